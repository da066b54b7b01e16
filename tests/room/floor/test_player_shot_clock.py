"""The shot clock on a player's own page (docs/shot-clock.md, docs/players.md): his own turn's
time, moved onto the room clock's time as the floor's table view moves it, and his extensions
left; another seat's turn shows him nothing of that seat's time. Built by the pure page model
from the table's public state (player_view.py)."""

from __future__ import annotations

from controller.room.floor.model import TableView
from controller.room.floor.player_view import player_page
from controller.session import SessionConfig, TableSession
from controller.session.outputs import SeatView, ShotClockView


def view(shot: ShotClockView | None) -> dict[str, TableView]:
    state = TableSession(SessionConfig(table_id="1")).state().model_copy(update={
        "seats": {1: SeatView(player="anna", stack=5000, in_hand=True),
                  4: SeatView(player="ben", stack=7000, in_hand=True)},
        "shot_clock": shot})
    return {"1": TableView(table="1", state=state, clock_offset=2.5)}


def page_of(player: str, shot: ShotClockView | None):  # type: ignore[no-untyped-def]
    return player_page(player, tournament=None, tables=view(shot), clock=None,
                       clock_online=None, hands=[], own_cards=False)


def test_his_own_turn_counts_down_on_the_room_clock_with_his_extensions() -> None:
    shot = ShotClockView(seat=1, started=100.0, since=110.0, remaining=20.0, running=True,
                         seconds=30, extension_seconds=20, extensions={1: 2, 4: 0})
    mine = page_of("anna", shot).shot_clock
    assert mine is not None and mine.his_turn and mine.running
    assert (mine.remaining, mine.since, mine.extensions) == (20.0, 112.5, 2)


def test_another_seats_turn_shows_only_his_own_extensions() -> None:
    shot = ShotClockView(seat=4, started=100.0, since=110.0, remaining=7.0, running=True,
                         extension=True, extensions_used=1, seconds=30, extension_seconds=20,
                         extensions={1: 2, 4: 0})
    mine = page_of("anna", shot).shot_clock
    assert mine is not None and not mine.his_turn
    assert (mine.remaining, mine.since, mine.running, mine.extension, mine.extensions) == (
        0, None, False, False, 2)
    out = page_of("ben", shot.model_copy(update={"out": True, "running": False})).shot_clock
    assert out is not None and out.his_turn and out.out and out.extensions == 0


def test_a_table_without_a_shot_clock_says_nothing_of_one() -> None:
    assert page_of("anna", None).shot_clock is None
    assert "shot_clock" not in page_of("anna", None).model_dump(exclude_none=True)
