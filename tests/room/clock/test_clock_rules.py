"""The clock's rules, pure: a level ends at an instant, pauses keep the time left,
added time moves the instant, breaks and levels follow each other without losing a second."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.events import parse_event
from controller.room.clock.core import ClockCore
from controller.room.clock.rules import CLOCK_COMMANDS, Clock, ClockRefused
from controller.room.clock.structure import load_structure
from controller.session import SessionConfig, TableSession
from controller.session.outputs import TableState
from controller.session.table_holds import HAND_FOR_HAND
from tests.session.helpers import seat

TURBO = load_structure(Path(__file__).resolve().parents[3] / "deploy/structures/turbo.toml")


def test_the_level_ends_at_an_instant_and_the_next_follows_from_that_instant() -> None:
    clock = Clock(TURBO)
    assert clock.command("start", {}, now=1_000.0).startswith("the clock runs: level 1")
    assert clock.position.ends_at == 1_900.0 and clock.remaining(1_300.0) == 600.0
    assert not clock.advance(1_899.9)
    assert clock.advance(1_905.0)  # a late tick: level 2 still ends 15 minutes after 1,900
    assert clock.level_slot().level == 2 and clock.position.ends_at == 2_800.0


def test_pvb_14_a_break_then_the_next_level_and_the_colour_up() -> None:
    clock = Clock(TURBO)
    clock.command("start", {}, now=0.0)
    clock.advance(3_600.0)  # four levels of 15 minutes
    assert clock.position.status == "on_break" and clock.slot.colour_up == [25]
    assert clock.level_slot().level == 5 and clock.level_slot().smallest_chip == 100
    clock.advance(4_200.0)  # a 10-minute break
    assert clock.position.status == "running" and clock.slot.level == 5


def test_pause_keeps_the_time_left_and_resume_gives_it_back() -> None:
    clock = Clock(TURBO)
    clock.command("start", {}, now=0.0)
    assert "paused with 10:00 left" in clock.command("pause", {}, now=300.0)
    assert clock.remaining(5_000.0) == 600.0 and not clock.advance(5_000.0)
    clock.command("resume", {}, now=5_000.0)
    assert clock.position.ends_at == 5_600.0


def test_added_and_removed_time_move_the_instant() -> None:
    clock = Clock(TURBO)
    clock.command("start", {}, now=0.0)
    clock.command("add_time", {"seconds": 120}, now=100.0)
    assert clock.position.ends_at == 1_020.0
    clock.command("remove_time", {"seconds": 2_000}, now=100.0)  # never into the past
    assert clock.level_slot().level == 2


def test_set_level_jumps_with_the_levels_full_time() -> None:
    clock = Clock(TURBO)
    clock.command("start", {}, now=0.0)
    assert "level 6" in clock.command("set_level", {"level": 6}, now=50.0)
    assert clock.level_slot().level == 6 and clock.position.ends_at == 950.0


@pytest.mark.parametrize("name, args", [
    ("pause", {}),  # not started
    ("resume", {}),
    ("add_time", {"seconds": 60}),
    ("set_level", {"level": 99}),
    ("add_time", {"seconds": "a minute"}),
    ("hand_for_hand", {"on": "yes"}),
    ("explode", {}),
])
def test_bad_commands_are_refused_and_change_nothing(name: str, args: dict[str, object]) -> None:
    clock = Clock(TURBO)
    before = clock.position
    with pytest.raises(ClockRefused):
        clock.command(name, args, now=10.0)
    assert clock.position == before


def test_the_last_level_ends_the_clock() -> None:
    clock = Clock(TURBO)
    clock.command("start", {}, now=0.0)
    clock.advance(1e9)
    assert clock.position.status == "finished"
    with pytest.raises(ClockRefused):
        clock.command("pause", {}, now=1e9)


def test_t1_hand_for_hand_rounds_and_the_floors_release_of_a_table() -> None:
    clock = Clock(TURBO)
    with pytest.raises(ClockRefused, match="not on"):
        clock.command("release_table", {"table": "3"}, now=0.0)
    clock.command("hand_for_hand", {"on": True}, now=0.0)
    with pytest.raises(ClockRefused, match="on already"):
        clock.command("hand_for_hand", {"on": True}, now=0.0)
    assert clock.position.round == 0  # the hands in progress finish first
    clock.next_round(["1", "2", "3"])
    assert clock.position.round == 1
    assert not clock.finished_table("1")
    assert "without table 3" in clock.command("release_table", {"table": "3"}, now=0.0)
    assert clock.finished_table("2")  # the last one the round waited for


def test_the_state_names_the_tournament_the_next_levels_blinds_and_a_breaks_colour_up() -> None:
    """What the TV clock shows beside the level: the tournament's name, the next level's
    blinds, and on a break the chips that colour up (RULES T5)."""
    core = ClockCore(TURBO, None, now=0.0)
    core.command("start", {}, now=0.0)
    state = core.state(10.0)
    assert state.name == "Turbo (15-minute levels)" and state.colour_up == []
    assert (state.next_level, state.next_sb, state.next_bb, state.next_bb_ante) == (2, 50, 100, 0)
    core.advance(1_800.0)  # level 3: the next has a big blind ante
    state = core.state(1_800.0)
    assert (state.next_sb, state.next_bb, state.next_bb_ante) == (150, 300, 300)
    core.advance(3_600.0)  # the break after level 4: the level fields are level 5's
    state = core.state(3_600.0)
    assert state.on_break and state.colour_up == [25]
    assert (state.level, state.sb, state.next_level, state.next_sb) == (5, 200, 6, 300)
    core.command("pause", {}, now=3_700.0)
    assert core.state(3_700.0).colour_up == [25]  # still the break, paused


def _between_hands(table: str, played_round: int) -> TableState:
    """A table's retained state after its hand of a hand-for-hand round: held, three players."""
    session = TableSession(SessionConfig(table_id=table))
    for n, player in ((1, "ana"), (2, "ben"), (3, "cem")):
        session.handle(parse_event(seat(n, f"{player}-{table}", 10_000)))
    return session.state().model_copy(update={
        "holds": {"hand_for_hand": HAND_FOR_HAND}, "released_round": None,
        "played_round": played_round, "stage": "over"})


def test_pvb_35a_a_clock_restarted_in_a_round_hears_the_room_before_it_ends_the_round() -> None:
    """Killed while table 3 played round 2 (1 and 2 had finished), started again after table 3
    finished too: the broker gives it the retained states and statuses in any order across
    their topics. Table 3's state came before its status: the round ended at once and round 3
    was released to tables 1 and 2 only, and every table was named late before it was heard
    (an outside check, 2 of 2 restarts). Listening first (`connected`), the next round is
    every table's and nobody is late."""
    core = ClockCore(TURBO, None, now=0.0)
    core.command("start", {}, 0.0)
    core.command("hand_for_hand", {"on": True}, 0.0)
    down = core.position.model_copy(update={"round": 2, "waiting": ["3"],
                                            "playing": ["1", "2", "3"]})
    again = ClockCore(TURBO, down, now=10.0)
    again.connected(10.0)
    outcomes = [again.reconcile(10.0)]  # (its first tick, before anything came)
    again.table_state(_between_hands("3", 2), 10.1)  # table 3's state before its status
    outcomes.append(again.reconcile(10.1, "3"))
    for table in ("1", "2"):
        again.table_status(table, True, 10.2)
        again.table_state(_between_hands(table, 2), 10.2)
        outcomes.append(again.reconcile(10.2, table))
    again.table_status("3", True, 10.4)
    outcomes.append(again.reconcile(10.4))
    assert again.position.round == 2 and again.position.waiting == ["3"]
    assert not any(o.late or o.released for o in outcomes)
    settled = again.reconcile(12.0)
    assert settled.released == 3 and again.position.playing == ["1", "2", "3"]
    assert settled.late == [] and again.state(12.0).late == []
    assert {(a.table, a.args.get("round")) for a in settled.asks} >= {
        ("1", 3), ("2", 3), ("3", 3)}


def test_every_clock_command_the_floor_may_send_has_its_handler() -> None:
    clock = Clock(TURBO)
    assert set(clock._handlers()) == CLOCK_COMMANDS
