"""The moves list on the floor's tournament page says whether a moved player sits out a hand
(PVB 10(1)) the way the new table says it once he sits there (its state's seat), and before that
only that he may: the tournament's guess assumed he joins the very next hand, which he often
does not. A real Mosquitto, the floor server and headless Chromium; the tournament's and the
table's states as their services publish them (retained, each with its own login)."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from controller.demo.room_states import publish
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage, encode
from controller.mqtt.topics import Topics
from controller.room.tournament.balance import Spot
from controller.room.tournament.ledger import Move
from controller.room.tournament.view import PublishedState, SeatLine
from controller.session.outputs import SeatView, TableState
from tests.room.floor.floor_helpers import (
    clear_tables,
    floor_server,
    log_in,
    new_page,
    publish_tables,
)


def _tournament(broker: LocalBroker, status: str) -> None:
    move = Move(id=1, player="Ivo", source=Spot(table="1", seat=4), to=Spot(table="2", seat=3),
                stack=4_000, rule="PVB 09(1)", reason="balance", status=status,  # type: ignore[arg-type]
                decided=time.time(), sits_out=True)
    # (the moves list shows only the moves of players still in: those on the seat list)
    seat = SeatLine(player="Ivo", table="2", seat=3, stack=4_000,
                    moving=None if status == "seated" else status,  # type: ignore[arg-type]
                    chips_read=False)
    state = PublishedState(name="moves test", entries=12, players_left=12, status="running",
                           moves=[move], seats=[seat])
    publish(broker.address(), broker.login("tournament"),
            [(Topics(broker.plan.venue).service("tournament", "state"), encode(state))])


def _table(broker: LocalBroker, sits_out: str | None, hand: int) -> None:
    seats = {1: SeatView(player="Ana", stack=5_000), 5: SeatView(player="Ben", stack=5_000),
             3: SeatView(player="Ivo", stack=4_000, sits_out=sits_out)}
    state = TableState(table="2", hand=hand, stage="betting", level=1, blinds={"sb": 50, "bb": 100},
                       seats=seats, waiting_for="seat 1 to act", button=1, sb=5, bb=1)
    publish_tables(broker, [StateMessage(table="2", seq=hand, sent=time.time(), state=state)])


def test_pvb_10_1_the_moves_list_says_what_the_new_table_says(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    clear_tables(broker, ["1", "2", "3"])
    _tournament(broker, "arriving")
    with floor_server(broker, tmp_path / "floor") as server:
        staff = _tournament_page(browser, server.url)
        row = staff.locator("#t-moves tr[data-move='1']")
        expect(row).to_contain_text("on the way to the new seat")
        # On his way: the new table has not dealt him in yet, so he only may sit out a hand
        expect(row).to_contain_text("may sit out one hand (PVB 10(1))")
        # He sits there, and the table dealt him out of its hand: its words
        _tournament(broker, "seated")
        _table(broker, "PVB 10(1)", hand=7)
        expect(row).to_contain_text("sits out this hand (PVB 10(1))")
        expect(row).not_to_contain_text("may sit out")
        # The table dealt him in (the guess was wrong): nothing about sitting out
        _table(broker, None, hand=8)
        expect(row).to_contain_text("seated, chips not read yet: the dealer lays them on the "
                                    "seat's zone")
        expect(row.locator("button")).to_have_text("Counted by hand")
        expect(row).not_to_contain_text("sits out")
        assert staff.errors == []  # type: ignore[attr-defined]
    clear_tables(broker, ["2"])
    _no_tournament(broker)


def _moves(broker: LocalBroker, status: str) -> None:
    """Ben moved three times, none of the moves' chips read (as a journal written before a
    newer move superseded an older one kept them all ``seated``); Rob once."""
    hops = [("1", 2, "4", 1, "balance"), ("4", 1, "2", 5, "break"), ("2", 5, "1", 4, "break")]
    moves = [Move(id=k, player="Ben", source=Spot(table=a, seat=s), to=Spot(table=b, seat=t),
                  stack=4_000, rule="PVB 10(1)", reason=why, status="seated",  # type: ignore[arg-type]
                  decided=time.time()) for k, (a, s, b, t, why) in enumerate(hops, start=1)]
    moves.append(Move(id=4, player="Rob", source=Spot(table="3", seat=1),
                      to=Spot(table="1", seat=2), stack=6_000, rule="PVB 10(1)",
                      reason="break", status="seated", decided=time.time()))
    seats = [SeatLine(player="Ben", table="1", seat=4, stack=4_000, chips_read=False),
             SeatLine(player="Rob", table="1", seat=2, stack=6_000, chips_read=False)]
    state = PublishedState(name="moves test", entries=12, players_left=2, status=status,  # type: ignore[arg-type]
                           moves=moves, seats=seats)
    publish(broker.address(), broker.login("tournament"),
            [(Topics(broker.plan.venue).service("tournament", "state"), encode(state))])


def test_dfo_2_3_the_moves_list_shows_a_players_current_move_only_and_none_after_the_end(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    clear_tables(broker, ["1", "2", "3"])
    _moves(broker, "running")
    with floor_server(broker, tmp_path / "floor") as server:
        staff = _tournament_page(browser, server.url)
        expect(staff.locator("#t-moves tr[data-move='3']")).to_contain_text("table 1, seat 4")
        expect(staff.locator("#t-moves tr[data-move]")).to_have_count(2)  # Ben's latest, Rob's
        for old in ("1", "2"):
            expect(staff.locator(f"#t-moves tr[data-move='{old}']")).to_have_count(0)
        _moves(broker, "finished")
        expect(staff.locator("#t-moves")).to_have_text("no move to make")
        assert staff.errors == []  # type: ignore[attr-defined]
    _no_tournament(broker)


def _tournament_page(browser: Browser, url: str) -> Page:
    """A floor login on the tournament page."""
    staff = new_page(browser)
    log_in(staff, url)
    staff.goto(f"{url}/tournament")
    return staff


def _no_tournament(broker: LocalBroker) -> None:
    """This test's tournament state gone from the module's broker."""
    publish(broker.address(), broker.login("tournament"),
            [(Topics(broker.plan.venue).service("tournament", "state"), b"")])
