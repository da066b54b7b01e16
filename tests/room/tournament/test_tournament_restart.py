"""The tournament restarted while tables still have players: the retained states come back one
by one (Mosquitto gives them in the order the tables first published them) and the clock's
after them. Until it has the state of every open table, and the clock's where the room has a
clock, the core decides nothing about seats (breaks, balancing, late seats, a bust taken back)
and judges no chip count (RULES T3, T5, T6); its state says what it waits for. A table that
never comes back: the floor says so after a while, and the director goes on without it."""

from __future__ import annotations

import pytest

from controller.room.tournament.core import MISSING_SECONDS
from controller.room.tournament.draw import Refused
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_room import BREAKS, SimRoom, settings
from tests.room.tournament.tournament_room import drawn as core_drawn


def drawn(**kw: object) -> SimRoom:
    room = SimRoom(settings(tables=3, seats=6, **kw))  # type: ignore[arg-type]
    for k in range(14):
        room.command("register", name=f"p{k:02d}")
    room.command("draw", seed=42)
    return room


def unchanged_after(room: SimRoom, order: list[str], clock_last: bool = False) -> None:
    seated = room.seated()
    alerts = len(room.core.ledger.alerts)
    moves = len(room.core.ledger.moves)
    chips = room.core.state().chips
    room.restart(order=order, clock_last=clock_last)
    room.settle()
    assert room.core.ledger.broken == [] and room.core.ledger.open_tables == ["1", "2", "3"]
    assert room.seated() == seated
    assert len(room.core.ledger.moves) == moves  # nothing decided
    assert room.core.ledger.alerts[alerts:] == [] and room.refused == []
    state = room.core.state()
    assert state.waiting_for == [] and state.chips == chips  # (mid-break: the race's own)


def test_rules_t3_a_restart_mid_level_waits_for_every_table_before_it_seats_anyone() -> None:
    room = drawn()
    room.clock(level=1, status="running")
    room.fold_all()
    room.fold_all()
    assert room.counts() == {"1": 5, "2": 5, "3": 4}
    unchanged_after(room, ["3", "2", "1"])


def test_rules_t5_a_restart_mid_break_waits_for_the_clock_before_anyone_moves() -> None:
    room = drawn(structure=BREAKS)
    room.clock(level=1, status="running")
    room.fold_all()
    room.on_break(1)
    colour_up = room.core.ledger.colour_ups[-1]
    assert set(colour_up.tables.values()) == {"racing"}  # made at every table, racing
    unchanged_after(room, ["3", "2", "1"], clock_last=True)


def test_the_state_says_what_the_restarted_tournament_waits_for() -> None:
    room = drawn()
    room.clock(level=1, status="running")
    room.fold_all()
    clock = room.core.clock
    assert clock is not None
    room.restart(order=[], with_clock=False)  # the ledger is back; nothing retained came yet
    core = room.core
    assert core.state().waiting_for == ["table 1's state", "table 2's state", "table 3's state",
                                        "the clock's state"]
    core.table_state(room.state("3"))
    core.table_state(room.state("2"))
    outcome = core.reconcile(room.now)
    assert outcome.asks == [] and core.ledger.broken == []
    state = core.state()
    assert state.waiting_for == ["table 1's state", "the clock's state"]
    assert [(t.table, t.missing) for t in state.tables] == [("1", True), ("2", False),
                                                            ("3", False)]
    # A late registration draws no seat before the room is known
    with pytest.raises(Refused, match="waits for table 1's state"):
        core.command("register", {"name": "late"}, "floor:test", room.now)
    core.clock_state(clock)
    core.table_state(room.state("1"))
    core.reconcile(room.now)
    assert core.state().waiting_for == []
    assert "registered late" in core.command("register", {"name": "late"}, "floor:test",
                                             room.now)


def test_a_table_gone_for_good_is_named_and_the_director_goes_on_without_it() -> None:
    room = drawn()
    room.clock(level=1, status="running")
    room.fold_all()
    lost = {p for p, (t, _) in room.seated().items() if t == "1"}
    room.restart(order=["3", "2"])  # table 1's state never comes (its Pi burnt out)
    core = room.core
    core.reconcile(room.now)
    assert not any("table 1" in a.text for a in core.ledger.alerts)
    room.now += MISSING_SECONDS + 1
    core.reconcile(room.now)
    said = [a.text for a in core.ledger.alerts if "has not come" in a.text]
    assert len(said) == 1 and "go_on_without" in said[0] and "table 1" in said[0]
    core.reconcile(room.now + 5)  # said once
    assert len([a for a in core.ledger.alerts if "has not come" in a.text]) == 1
    with pytest.raises(Refused, match="table 4 is not"):
        core.command("go_on_without", {"table": "4"}, "floor:test", room.now)
    words = core.command("go_on_without", {"table": "1"}, "floor:test", room.now)
    assert "without table 1" in words and "5 players" in words
    state = core.state()
    assert state.waiting_for == [] and state.players_left == 14
    # The others play on: a late entry gets a seat at table 2 or 3, never at table 1
    before = core.ledger.next_move
    room.command("register", name="late")
    assert room.seat_of("late")[0] in ("2", "3")
    room.fold_all()
    assert all(m.to.table != "1" and (m.source is None or m.source.table != "1")
               for m in core.ledger.moves if m.id >= before)
    assert "1" in core.ledger.open_tables and {p for p in lost} <= set(core.ledger.players_in())
    # Table 1 comes back after all: the tournament follows it again
    room.publish("1", None)
    room.settle()
    assert core.ledger.gone == [] and core.state().waiting_for == []
    assert room.refused == []


def test_rules_t3_without_the_first_table_to_break_the_others_still_break_and_balance() -> None:
    """The table gone for good is the first in the break order (the last table, by default):
    the others break and balance among themselves, and the gone table's players are shown where
    they were last seen (not "0 / 6")."""
    room = drawn()  # 14 players at three tables of six; table 3 breaks first
    room.clock(level=1, status="running")
    room.fold_all()
    room.settle()
    at_three = sum(1 for t, _ in room.seated().values() if t == "3")
    room.restart(order=["1", "2"])  # table 3's state never comes
    core = room.core
    core.command("go_on_without", {"table": "3"}, "floor:test", room.now)
    assert next(t for t in core.state().tables if t.table == "3").players == at_three
    # Tables 1 and 2 lose players until they fit at one table: one of them breaks
    while sum(room.counts()[t] for t in ("1", "2")) > 6:
        table = max(("1", "2"), key=lambda t: room.counts()[t])
        victim = next(p for s, p in room.players_at(table))
        room.knock_out(victim)
        room.settle()
        fold_playing(room)
    fold_playing(room)
    assert len([t for t in ("1", "2") if t in core.ledger.broken]) == 1, core.ledger.broken
    assert "3" in core.ledger.open_tables and "3" not in core.ledger.broken
    assert not any(m.to.table == "3" or (m.source is not None and m.source.table == "3")
                   for m in core.ledger.moves if m.reason != "draw")


def fold_playing(room: SimRoom, tables: tuple[str, ...] = ("1", "2")) -> None:
    """A hand at ``tables`` (the other's Pi is gone: nothing of it may be heard)."""
    for table in tables:
        if room.counts()[table] >= 2 and "seating" not in room.state(table).holds:
            room.fold(table)
    room.settle()


def _bust_unsettled(room: SimRoom, table: str, count: int) -> None:
    """A hand at ``table`` in which ``count`` players go out; the tournament not yet asked."""
    state = room.state(table)
    seats = sorted(state.seats)
    winner = max(seats, key=lambda s: (state.seats[s].stack, -s))
    losers = [s for s in seats if s != winner][:count]
    assert room.shuffle(table)
    hands.bust(room.feeder(table), lambda: room.state(table), winner, losers)


def test_rules_t3_a_table_does_not_break_while_a_player_is_on_his_way_to_it() -> None:
    """Seen in a demo: a balancing move to table 3, and 40 ms later table 3 broken while the
    player's seat request was still on its way; table 3 refused to unseat a player it did not
    have yet, and he then sat down at the broken table, alone, for good. A break waits until
    everyone on the way to its table has sat down (then moves them on with the others)."""
    room = core_drawn(tables=3, seats=6, players=16)  # 6, 5, 5; table 3 breaks first
    room.clock(level=1, status="running")
    room.fold_all()
    _bust_unsettled(room, "3", 2)  # 6, 5, 3: one moves from table 1 to table 3
    for _ in range(5):  # everything reaches the tables but the seat at table 3
        outcome = room.core.reconcile(room.now)
        room.now += 3.0
        for ask in outcome.asks:
            if not (ask.table == "3" and ask.command == "seat"):
                room.apply(ask)
    moving = [m for m in room.core.ledger.moves if m.status == "arriving"]
    assert [m.to.table for m in moving] == ["3"], room.core.ledger.moves
    _bust_unsettled(room, "2", 2)  # 12 players: they fit at two tables, table 3 is to break
    room.core.reconcile(room.now)
    assert "3" not in room.core.ledger.broken  # he is still on his way there
    for _ in range(4):  # the seat request goes again (after the retry time) and arrives
        room.now += 5.0
        room.settle()
    assert "3" in room.core.ledger.broken and room.counts()["3"] == 0
    assert sum(room.counts().values()) == 12 and room.refused == []


def test_rules_t3_a_table_that_never_came_the_others_break_and_balance() -> None:
    """Table 3's Pi never came up: the draw's players for it never sat down there. Gone on
    without it, the draw's moves to it must not hold every break and move for good (seen: two
    tables played down to one player each)."""
    room = SimRoom(settings(tables=3, seats=6))
    del room.core.tables["3"]  # (no state of table 3 ever heard)
    for k in range(16):
        room.command("register", name=f"p{k:02d}")
    room.command("draw", seed=42)
    room.clock(level=1, status="running")
    room.command("go_on_without", table="3")
    drawn_there = {m.player for m in room.core.ledger.moves if m.to.table == "3"}
    assert drawn_there and room.counts()["3"] == 0
    while room.counts()["1"] + room.counts()["2"] > 6:
        table = max(("1", "2"), key=lambda t: room.counts()[t])
        if room.counts()[table] < 2:
            break
        _bust_unsettled(room, table, 1)
        room.settle()
        fold_playing(room)
    assert [t for t in ("1", "2") if t in room.core.ledger.broken], room.counts()
    assert room.refused == []


def test_pvb_08a_1_players_drawn_to_a_table_that_never_came_are_drawn_other_seats() -> None:
    """Table 3's Pi never came up: going on without it, the players the draw sent there (they
    stayed "arriving" for good and could never play: an outside check) are drawn free seats at
    the tables in play, with their stacks, each told to the floor; one for whom no seat is
    free is told so once and waits. Nobody is seated twice; the chips stay counted."""
    room = SimRoom(settings(tables=3, seats=6))
    del room.core.tables["3"]  # (no state of table 3 ever heard)
    for k in range(14):  # at three tables; the two in play have twelve seats
        room.command("register", name=f"p{k:02d}")
    room.command("draw", seed=7)
    room.clock(level=1, status="running")
    drawn_there = sorted(m.player for m in room.core.ledger.moves if m.to.table == "3")
    assert len(drawn_there) == 4
    said = room.command("go_on_without", table="3")
    assert all(name in said for name in drawn_there) and "drawn other seats" in said
    assert "0 players" not in said
    for _ in range(4):  # the seat requests arrive
        room.settle()
        room.now += 5.0
    assert room.counts() == {"1": 6, "2": 6, "3": 0}
    seated = [player for t in ("1", "2") for _, player in room.players_at(t)]
    assert len(seated) == len(set(seated)) == 12
    told = sorted(a.text for a in room.core.ledger.alerts if "gone on without" in a.text)
    assert [t.split(",")[0] for t in told] == drawn_there
    assert sum("goes to table" in t for t in told) == 2
    assert sum("has no seat to go to: every seat in the room is taken" in t
               for t in told) == 2
    state = room.core.state()
    assert state.chips is not None and state.chips.difference == 0
    assert room.refused == []


def test_rules_t3_the_director_goes_on_without_a_table_gone_offline_mid_tournament() -> None:
    """Table 3's Pi lost power mid-tournament: its last state stays retained at the broker, its
    status says offline. The director can go on without it (it used to be refused, "its state
    is in", and the break behind it waited for good); back online, it is followed again."""
    room = drawn()
    room.clock(level=1, status="running")
    room.fold_all()
    core = room.core
    core.table_status("3", False)
    room.restart(order=["1", "2", "3"])  # its retained state comes back: it is still offline
    core = room.core
    core.table_status("3", False)
    assert "without table 3" in core.command("go_on_without", {"table": "3"}, "floor:test",
                                             room.now)
    assert core.ledger.gone == ["3"]
    core.reconcile(room.now)
    assert core.ledger.gone == ["3"]  # its retained state is not the table back
    core.table_status("3", True)
    core.reconcile(room.now)
    assert core.ledger.gone == []


def test_rules_t3_the_director_breaks_a_table_gone_for_good_and_its_players_sit_elsewhere(
) -> None:
    """A table gone on without keeps its players for as long as its Pi is away; when it is gone
    for good, the director breaks it (`break_table`), once its players fit at the other tables.
    They are drawn seats as a break draws them (PVB 10(1)), each with the stack the table last
    showed between hands, and each move ends when the chips are counted at the new seat
    (DFO §2(3))."""
    room = drawn()  # 14 players at three tables of six: 5, 5 and 4
    room.clock(level=1, status="running")
    room.fold_all()
    lost = {v.player: v.stack for v in room.state("1").seats.values()}
    assert len(lost) == 5 and len(set(lost.values())) > 1  # (stacks that differ)
    room.restart(order=["2", "3"])  # table 1's Pi burnt out
    core = room.core
    with pytest.raises(Refused, match="table 1 is in play and the tournament follows it"):
        core.command("break_table", {"table": "1"}, "floor:test", room.now)
    core.command("go_on_without", {"table": "1"}, "floor:test", room.now)
    with pytest.raises(Refused, match="table 2 is in play"):
        core.command("break_table", {"table": "2"}, "floor:test", room.now)
    before = core.ledger.model_dump()
    with pytest.raises(Refused, match=r"table 1's 5 players do not fit in the 3 free seats"):
        core.command("break_table", {"table": "1"}, "floor:test", room.now)
    assert core.ledger.model_dump() == before  # nothing was done
    with pytest.raises(Refused, match=r"break_table: name the table"):
        core.command("break_table", {}, "floor:test", room.now)
    room.knock_out(*[p for _, p in room.players_at("2")][:2])  # now they fit: 5 free seats
    fold_playing(room, ("2", "3"))
    alerts = len(core.ledger.alerts)
    said = room.command("break_table", table="1")
    assert said.startswith("floor:test: table 1 is broken") and all(p in said for p in lost)
    ledger = core.ledger
    assert (ledger.broken, ledger.open_tables, ledger.gone) == (["1"], ["2", "3"], [])
    now_at = {v.player: v.stack for t in ("2", "3") for v in room.state(t).seats.values()}
    assert len(now_at) == 12 and {p: now_at[p] for p in lost} == lost  # each with his stack
    room.count("2")
    room.count("3")
    assert all(m.status == "done" for m in ledger.moves
               if m.source is not None and m.source.table == "1")
    state = core.state()
    assert state.waiting_for == [] and state.players_left == 12
    assert next(t for t in state.tables if t.table == "1").status == "broken"
    assert ledger.alerts[alerts:] == [] and room.refused == []
    fold_playing(room, ("2", "3"))  # play goes on at the two tables
    assert room.refused == []
    # Its Pi comes back after all, its players still seated: they are unseated (they sit
    # elsewhere) and the table, empty, is told to close
    room.publish("1", None)
    room.settle()
    assert room.counts()["1"] == 0 and core.ledger.closed == ["1"]
    assert {p: t for p, (t, _) in room.seated().items() if p in lost} == {
        p: core.ledger.players[p].spot.table for p in lost}  # type: ignore[union-attr]
    assert room.refused == [] and core.ledger.broken == ["1"]
