"""`pokertable room --tournament`: the room's simulated tables seat nobody themselves; the
floor registers the players, the tournament draws the seats and the tables play with the players
it seated there."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from controller.demo.room_demo import PER_TABLE, run_room


@pytest.mark.e2e
@pytest.mark.long(26)
def test_the_tournament_seats_the_simulated_tables_and_they_play(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_room(tables=2, hands=2, out=out, port=0, tournament=True,
                    keep=tmp_path / "room") == 0
    text = out.getvalue()
    assert "[tournament] online" in text
    assert re.search(r"\[tournament\] the draw \(seed \d+\): 12 players at 2 tables", text)
    seated = re.search(r"\[tournament\] 12 of 12 players left; table 1: ([^;]+); "
                       r"table 2: ([^\n]+)", text)
    assert seated, text[-3000:]
    one, two = (group.split(", ") for group in seated.groups())
    assert len(one) == len(two) == PER_TABLE and not set(one) & set(two)
    for table in (1, 2):  # each table played its hands with the players drawn there
        assert f"[table {table}] record of hand 2 (" in text
    summary = next(line for line in text.splitlines() if line.startswith("recorder: "))
    assert summary.startswith("recorder: 4 full hand records kept, 0 duplicates dropped")
    # The tables are the tournament's size: the floor's room screen and the tournament agree
    for table in (1, 2):
        state = json.loads((tmp_path / "room" / f"table-{table}" / "out" / "state.json")
                           .read_text())
        assert state.get("seat_count", state.get("state", {}).get("seat_count")) == PER_TABLE
