"""The shot clock the table runs itself (docs/shot-clock.md), through the session from table
events in virtual time: each event carries its time (``ts``), the service's ticks their ``now``.

Three players: button seat 1 (first to act before the flop), small blind seat 2, big blind
seat 3. Calling time stays the floor's decision (RULES C1, PVB 21): the clock only tells.
"""

from __future__ import annotations

from typing import Any

from controller.engine.table_play import Level
from controller.history.story import hand_story
from controller.session import SessionConfig
from controller.session.shot_settings import ShotClockConfig
from tests.session.helpers import (
    Ev,
    Run,
    board,
    card,
    chips,
    deal,
    declare,
    key,
    level,
    seat,
    shuffle,
    start,
)

CLOCK = ShotClockConfig(seconds=30, extensions=2, extension_seconds=20)
HOLES = {1: "7c2d", 2: "AsAh", 3: "KdKh"}


def at(ts: float, *events: Ev | list[Ev]) -> list[Ev]:
    """The events, each at ``ts`` (the table's time)."""
    out: list[Ev] = []
    for e in events:
        out += [x | {"ts": float(ts)} for x in (e if isinstance(e, list) else [e])]
    return out


def tick(now: float) -> Ev:
    return {"type": "tick", "now": float(now)}


def table(clock: ShotClockConfig | None = CLOCK, **kw: Any) -> Run:
    config = SessionConfig(level=Level(sb=50, bb=100), shot_clock=clock, **kw)
    return start(seat(1, "ana"), seat(2, "ben"), seat(3, "cem"), config=config)


def dealt(run: Run, ts: float, holes: dict[int, str] = HOLES) -> None:
    """A hand begun at ``ts``, the blinds in their zones, the cards read at ``ts + 5``."""
    run.feed(shuffle(ts=ts))
    run.feed(at(ts + 1, chips("seat:2", 50), chips("seat:3", 100)))
    run.feed(at(ts + 5, deal({s: holes[s] for s in (2, 3, 1)}, [2, 3, 1])))


def texts(run: Run, kind: str | None = None) -> list[str]:
    return [e.text for e in run.events if kind is None or e.kind == kind]


def timed(run: Run) -> list[tuple[int | None, str, float | None, int | None]]:
    """Each betting action with its time and extensions: the finished hand's record, or the
    hand running (the times its record will carry)."""
    session = run.session
    if session._hand() is None:
        actions = [(a.seat, a.action, a.time_used, a.extensions_used)
                   for a in run.records()[-1].actions]
    else:
        hand, track, p = session.table.hand, session.track, session.table.positions
        assert hand is not None and track is not None and p is not None
        actions = [(None if a.player is None else p.dealt[a.player], a.kind,
                    *track.shot.times.get(k, (None, None))) for k, a in enumerate(hand.log)]
    return [a for a in actions if a[1] in ("fold", "check", "call", "bet", "raise")]


# ---------------------------------------------------------------- starts and stops


def test_clock_starts_when_the_action_reaches_the_seat_holding_his_cards() -> None:
    run = table()
    run.feed(shuffle(ts=1000.0))
    # Seat 1 is to act, but the cards are not out yet: no clock (the deal is not his time).
    assert run.session.state().actor == 1
    assert run.session.state().shot_clock.seat is None  # type: ignore[union-attr]
    assert run.session.shot_clock_due() is None
    run.feed(at(1001, chips("seat:2", 50), chips("seat:3", 100)))
    run.feed(at(1004, deal({2: "AsAh", 3: "KdKh"})), at(1004, card("seat:1", "7c")))
    assert run.session.state().shot_clock.seat is None  # type: ignore[union-attr]
    run.feed(at(1006, card("seat:1", "2d")))  # the last card: every seat holds his
    shot = run.session.state().shot_clock
    assert shot is not None
    assert (shot.seat, shot.started, shot.since, shot.remaining, shot.running) == (
        1, 1006.0, 1006.0, 30.0, True)
    assert run.session.shot_clock_due() == 1036.0
    assert run.session.leds().shot_clock == "running"


def test_chips_stop_his_clock_and_start_the_next_players() -> None:
    run = table()
    dealt(run, 1000)
    run.feed(at(1017, chips("seat:1", 100)))  # seat 1 calls with his chips, 12 s in
    shot = run.session.state().shot_clock
    assert shot is not None and (shot.seat, shot.started, shot.remaining) == (2, 1017.0, 30.0)
    run.feed(at(1020, card("muck", "As")), at(1020, card("muck", "Ah")))  # seat 2's cards
    shot = run.session.state().shot_clock
    assert shot is not None and (shot.seat, shot.started) == (3, 1020.0)
    run.feed(at(1029.5, key("confirm")))  # the big blind checks: the flop is due
    shot = run.session.state().shot_clock
    assert shot is not None and shot.seat is None and run.session.leds().shot_clock == "off"
    run.feed(at(1040, board("2c7d9h", burn="3s")))
    shot = run.session.state().shot_clock
    assert shot is not None and (shot.seat, shot.started) == (3, 1040.0)  # first after the flop
    assert "clock" not in {e.kind for e in run.events}  # nothing ran out: nothing said
    run.feed(at(1041, declare(3, "bet", 200)), at(1043, declare(1, "fold")))
    assert timed(run) == [(1, "call", 12.0, 0), (2, "fold", 3.0, 0), (3, "check", 9.5, 0),
                          (3, "bet", 1.0, 0), (1, "fold", 2.0, 0)]


def test_his_time_pauses_while_the_dealer_confirms_what_his_chips_show() -> None:
    run = table()
    dealt(run, 1000)
    run.feed(at(1015, chips("seat:1", 1000)))  # one oversized chip: a call, once confirmed
    shot = run.session.state().shot_clock
    assert shot is not None and shot.seat == 1 and not shot.running
    assert shot.remaining == 20.0  # ten seconds used
    assert run.session.shot_clock_due() is None  # no tick while his action shows
    run.feed(tick(1100))  # the dealer takes long: that is not the player's time
    assert texts(run, "clock") == [] and texts(run, "alert") == []
    run.feed(at(1105, key("confirm")))
    assert timed(run)[0] == (1, "call", 10.0, 0)
    shot = run.session.state().shot_clock
    assert shot is not None and (shot.seat, shot.started, shot.running) == (2, 1105.0, True)


# ---------------------------------------------------------------- extensions and running out


def test_an_extension_is_used_by_itself_when_his_time_runs_out() -> None:
    run = table()
    dealt(run, 1000)  # seat 1's clock from 1005
    run.feed(tick(1035.4))  # the service's tick, a little after the time ran out
    step = run.steps[-1]
    assert [e.text for e in step.events] == ["seat 1: time extension 1 (20 seconds); 1 left"]
    shot = run.session.state().shot_clock
    assert shot is not None
    # The extension starts when the time ran out, not at the tick: displays count from there.
    assert (shot.since, shot.remaining, shot.extension, shot.extensions_used) == (
        1035.0, 20.0, True, 1)
    assert shot.extensions == {1: 1, 2: 2, 3: 2}
    assert run.session.leds().shot_clock == "extension"
    assert run.session.shot_clock_due() == 1055.0
    run.feed(at(1050, chips("seat:1", 100)))
    assert timed(run)[0] == (1, "call", 45.0, 1)


def test_an_action_after_the_time_ran_out_still_uses_the_extension_first() -> None:
    """No tick came (the service was busy): the action at 1040 comes after the time ran out
    at 1035, so the extension was used before it, and said so."""
    run = table()
    dealt(run, 1000)
    run.feed(at(1040, declare(1, "fold")))
    assert texts(run)[-2:] == ["seat 1: time extension 1 (20 seconds); 1 left", "seat 1 folds"]
    assert timed(run) == [(1, "fold", 35.0, 1)]


def test_at_zero_the_dealer_and_floor_are_told_and_nothing_is_folded() -> None:
    run = table()
    dealt(run, 1000)
    run.feed(tick(1035), tick(1055), tick(1075.2))  # 30 s, then two extensions of 20
    alert = run.steps[-1].events[-1]
    assert alert.kind == "alert" and alert.rule == "PVB 21(1)" and alert.seat == 1
    assert alert.text == ("seat 1: the shot clock ran out (30 seconds and 2 extension(s)): "
                          "call the floor; nothing is folded, the floor rules on time")
    assert alert.data["player"] == "ana"
    state = run.session.state()
    assert state.actor == 1 and not state.seats[1].folded  # RULES C1: the floor's decision
    assert state.shot_clock is not None and state.shot_clock.out
    assert not state.shot_clock.running and state.shot_clock.remaining == 0
    assert run.session.leds().shot_clock == "out"
    assert run.session.shot_clock_due() is None  # told once: no more ticks
    run.feed(tick(1200))
    assert len(texts(run, "alert")) == 1
    run.feed(at(1210, declare(1, "call")))  # the player still acts; his time is on the record
    assert timed(run)[0] == (1, "call", 205.0, 2)
    assert run.session.state().shot_clock.extensions[1] == 0  # type: ignore[union-attr]


def test_a_floor_time_call_runs_beside_it_and_stays_the_floors() -> None:
    run = table()
    dealt(run, 1000)
    run.feed(tick(1035), tick(1055), tick(1075))
    run.feed(at(1080, {"type": "command", "name": "time", "args": {}, "by": "floor:anna"}))
    state = run.session.state()
    assert state.clock is not None and state.clock.seat == 1 and state.actor == 1


# ---------------------------------------------------------------- per level


def test_extensions_are_refilled_at_a_new_level_from_the_next_hand() -> None:
    run = table(ShotClockConfig(seconds=30, extensions=1, extension_seconds=20))
    dealt(run, 1000)
    run.feed(tick(1035))  # seat 1 uses his only extension
    run.feed(at(1040, declare(1, "fold")), at(1041, declare(2, "fold")))
    run.feed(level(2, 100, 200))  # applies from the next hand (PVB 14(2))
    assert run.session.state().shot_clock.extensions[1] == 0  # type: ignore[union-attr]
    dealt(run, 2000, {1: "9c8c", 2: "AsAh", 3: "7c2d"})
    assert "level 2: time extensions refilled: seat 1 1" in texts(run, "clock")
    assert run.session.state().shot_clock.extensions == {1: 1, 2: 1, 3: 1}  # type: ignore[union-attr]


def test_extensions_are_added_per_level_up_to_the_most_a_player_holds() -> None:
    config = ShotClockConfig(seconds=30, extensions=1, extension_seconds=20, per_level="add",
                             level_extensions=1, max_extensions=2)
    run = table(config)
    dealt(run, 1000)
    run.feed(at(1006, declare(1, "fold")), at(1007, declare(2, "fold")))
    run.feed(level(2, 100, 200))
    dealt(run, 2000, {1: "9c8c", 2: "AsAh", 3: "7c2d"})
    assert run.session.state().shot_clock.extensions == {1: 2, 2: 2, 3: 2}  # type: ignore[union-attr]
    run.feed(at(2006, declare(2, "fold")), at(2007, declare(3, "fold")))
    run.feed(level(3, 200, 400))
    dealt(run, 3000, {1: "9c8c", 2: "AsAh", 3: "7c2d"})
    assert run.session.state().shot_clock.extensions == {1: 2, 2: 2, 3: 2}  # type: ignore[union-attr]


def test_a_players_extensions_follow_him_to_another_seat_between_hands() -> None:
    run = table()
    dealt(run, 1000)
    run.feed(tick(1035))
    run.feed(at(1040, declare(1, "fold")), at(1041, declare(2, "fold")))
    run.feed(seat(1, None), seat(5, "ana"))
    assert run.session.state().shot_clock.extensions[5] == 1  # type: ignore[union-attr]


# ---------------------------------------------------------------- off by default


def test_off_by_default_no_event_no_field_no_tick() -> None:
    run = table(None)
    dealt(run, 1000)
    run.feed(tick(1100), at(1200, declare(1, "fold")), at(1201, declare(2, "fold")))
    state = run.session.state()
    assert state.shot_clock is None
    assert "shot_clock" not in state.model_dump_json()
    assert run.session.leds().shot_clock == "off"
    assert run.session.shot_clock_due() is None
    assert not [e for e in run.events if e.kind in ("clock", "alert")]
    record = run.records()[-1]
    assert "time_used" not in record.model_dump_json()
    assert all(a.time_used is None for a in record.actions)


def test_replaying_the_hands_events_gives_the_same_clock() -> None:
    """What a restarted table does: the same events from the snapshot, the same clock."""
    run = table()
    dealt(run, 1000)
    run.feed(at(1010, chips("seat:1", 100)), tick(1040))  # seat 2 into an extension
    session = run.session
    again = type(session)(session.config, session.snapshot)
    for event in session.events:
        again.handle(event)
    assert again.state() == session.state()
    assert again.state().shot_clock.extension  # type: ignore[union-attr]
    assert again.shot_clock_due() == session.shot_clock_due() == 1060.0


# ---------------------------------------------------------------- the hand record


def test_the_hand_record_tells_each_timed_actions_time() -> None:
    """The record's times (`time_used`, `extensions_used`) in the hand's story, as the floor's
    hands screen shows a sealed hand; an untimed action says nothing of a time."""
    run = table()
    dealt(run, 1000)  # seat 1's clock from 1005
    run.feed(tick(1035), at(1050, chips("seat:1", 100)))  # his extension, then his call
    run.feed(at(1062.5, declare(2, "fold")), at(1063, declare(3, "fold")))
    record = run.records()[-1].public()
    told = [line.text for line in hand_story(record)]
    assert "seat 1 calls 100 (after 45 s, 1 time extension)" in told
    assert "seat 2 folds (after 12.5 s)" in told
    assert "seat 3 folds (after 0.5 s)" in told
    assert [t for t in told if "after" in t and "posts" in t] == []  # blinds are not timed
    untimed = table(None)
    dealt(untimed, 1000)
    untimed.feed(at(1050, chips("seat:1", 100)), at(1060, declare(2, "fold")),
                 at(1061, declare(3, "fold")))
    assert "seat 1 calls 100" in [line.text for line in hand_story(untimed.records()[-1])]
