"""`pokertable room --cash`: the room's simulated tables (real processes, real drivers on ptys)
are cash tables, a hold'em and a pot-limit Omaha game; the cash floor seats the players from its
waiting lists at them, and the floor display's snapshot (what every screen gets) shows the tables
dealing and a player from the list at his seat there."""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

import pytest

from controller.demo.cash_room import BUY_IN, GAMES
from controller.demo.room_demo import run_room
from controller.room.cash.view import CashState
from controller.room.floor.model import RoomSnapshot
from tests.room.floor.floor_helpers import get
from tests.waiting import wait_for, wait_until


@pytest.mark.e2e
@pytest.mark.long(28)
def test_the_cash_floor_seats_a_player_from_its_list_at_a_dealing_table(
        tmp_path: Path) -> None:
    out = io.StringIO()
    stop = threading.Event()
    ended: list[int] = []
    room = threading.Thread(target=lambda: ended.append(run_room(
        tables=2, hands=0, out=out, port=0, stop=stop, cash=True, keep=tmp_path / "room")))
    room.start()
    try:
        wait_for(lambda: "floor display: " in out.getvalue(), 30, "the floor display")
        found = re.search(r"floor display: (http://[0-9.:]+)/ ", out.getvalue())
        assert found, out.getvalue()
        url = found.group(1)

        def snapshot() -> RoomSnapshot:
            return RoomSnapshot.model_validate_json(get(f"{url}/api/snapshot")[1])

        def cash() -> CashState | None:
            status, body, _ = get(f"{url}/api/cash")
            return CashState.model_validate_json(body) if status == 200 else None

        def dealing() -> bool:
            tables = {t.table: t.state for t in snapshot().tables}
            return all((state := tables.get(n)) is not None and state.hand >= 2
                       for n in ("1", "2"))

        def from_the_list() -> list[tuple[str, str, int]]:
            """Players called from a list after the tables dealt their first hand, whom the
            cash floor saw reach a seat: (name, table, seat)."""
            text = out.getvalue()
            first = text.find("record of hand 1 ")
            if first < 0:
                return []
            later = text[first:]
            called = re.findall(r"\[cash\] (.+?) is called to table (\d) for ", later)
            reached = dict(((name, table), int(seat)) for name, seat, table in re.findall(
                r"\[cash\] (.+?) takes seat (\d+) at table (\d)", later))
            return [(name, table, reached[(name, table)]) for name, table in called
                    if (name, table) in reached]

        def seated() -> tuple[str, str, int] | None:
            """One of them as the floor's snapshot shows him at his seat of a dealing table,
            and the cash floor knows him there."""
            lines = cash()
            if lines is None or not dealing():
                return None
            views = {t.table: t.state for t in snapshot().tables}
            for name, table, seat in from_the_list():
                state = views.get(table)
                at = {p.name: (p.seat, p.at_table) for t in lines.tables if t.table == table
                      for p in t.players}
                if (state is not None and state.seats.get(seat) is not None
                        and state.seats[seat].player == name and at.get(name) == (seat, True)):
                    return name, table, seat
            return None

        assert wait_until(seated, 90), out.getvalue()[-3000:]
        found_seated = seated()
        assert found_seated is not None
        name = found_seated[0]
        assert re.search(rf"\[cash\] {re.escape(name)} is \d+(st|nd|rd|th) on the "
                         r"(NLH|PLO) 50/100 list", out.getvalue())
        lines = cash()
        assert lines is not None
        assert [g.game for g in lines.games] == [GAMES["NT"], GAMES["PO"]]
        assert {t.table: t.game for t in lines.tables} == {"1": GAMES["NT"], "2": GAMES["PO"]}
        # Each table is a cash table of its game, opened with straddles; the first players
        # brought the buy-in the floor took
        for n, game in (("1", "NT"), ("2", "PO")):
            config = (tmp_path / "room" / f"table-{n}" / "table.toml").read_text()
            assert 'profile = "cash.toml"' in config and "straddles = [" in config
            profile = (tmp_path / "room" / f"table-{n}" / "cash.toml").read_text()
            assert f'game = "{game}"' in profile and "cash = true" in profile
        assert f"sits down at table 1 (NLH 50/100) with {BUY_IN:,}" in out.getvalue()
    finally:
        stop.set()
        room.join(90)
    assert ended == [0], out.getvalue()[-3000:]
    assert "Traceback" not in out.getvalue() and "alert:" not in out.getvalue()
