"""The tournament's core with real table sessions in memory
(tests/room/tournament/tournament_room.py):
the draw reaching the tables, eliminations placed (PVB 64b), balancing moves and broken tables
carried out between hands at the seats the rules name (PVB 09, 10; APSA 3.1.2.4), the holds
of PVB 09(3), payouts and points, the chip count, restarts, and the floor's commands refused
with the reason."""

from __future__ import annotations

import json

import pytest

from controller.room.tournament.balance import TableSeating, plan
from controller.room.tournament.draw import Refused
from controller.room.tournament.export import standings_csv, standings_json
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_room import SimRoom, drawn, settings, two_out_at_table_one
from tests.session.helpers import command


def places(room: SimRoom) -> dict[str, tuple[int | None, bool]]:
    return {s.player: (s.place, s.pending) for s in room.core.state().standings
            if s.place is not None}


def test_pvb_08a_1_the_draw_reaches_the_tables_and_they_wait_until_everyone_sits() -> None:
    room = drawn()
    assert room.counts() == {"1": 5, "2": 5, "3": 4}
    assert sorted(room.seated()) == [f"p{k:02d}" for k in range(14)]
    # PVB 09(3): each table held while its players were on their way, released once seated
    assert any("waits for its new players" in line for line in room.said)
    assert all(room.state(t).holds == {} for t in room.tables)
    state = room.core.state()
    assert state.status == "running" and state.seed == 42 and state.players_left == 14
    assert state.average_stack == 5_000 and state.prize_pool == 14 * 20
    assert [(p.place, p.amount) for p in state.payouts] == [(1, 145), (2, 80), (3, 55)]
    assert state.chips is not None and state.chips.difference == 0
    assert all(m.status == "seated" and m.rule == "PVB 08a(1)" for m in state.moves)
    # The same seed draws the same seats
    again = drawn()
    assert again.seated() == room.seated()


def test_dfo_2_3_a_move_is_done_when_the_chips_are_read_at_the_new_seat() -> None:
    room = drawn()
    room.count("1")
    done = {m.player for m in room.core.ledger.moves if m.status == "done"}
    assert done == {p for p, (t, _) in room.seated().items() if t == "1"}
    player = next(p for p, (t, _) in room.seated().items() if t == "2")
    assert "counted" in room.command("move_done", player=player)
    with pytest.raises(Refused, match="no move waiting"):
        room.command("move_done", player=player)


def test_pvb_64b_1_two_out_in_one_hand_place_by_their_stacks_at_its_start() -> None:
    room = drawn(tables=2, seats=6, players=6)
    room.fold_all()  # the blinds move chips: the stacks differ
    losers = _two_shortest(room, "1")
    room.knock_out(*losers)
    assert places(room) == {losers[1]: (5, False), losers[0]: (6, False)}


def test_pvb_64b_2_equal_stacks_share_the_places_their_prizes_and_points() -> None:
    room = drawn(tables=1, seats=6, players=6, points="apsa-sit-and-go")
    equal = [p for _, p in room.players_at("1")][:2]
    assert room.state("1").hand == 0  # nobody has played: 5,000 each
    room.knock_out(*equal)
    state = room.core.state()
    shared = [s for s in state.standings if s.player in equal]
    assert {(s.place, s.last) for s in shared} == {(5, 6)}
    assert {tuple(s.shared_with) for s in shared} == {(equal[0],), (equal[1],)}
    assert {s.points for s in shared} == {(2 + 1) / 2}  # places 5 and 6: 2 and 1 point


def test_pvb_64b_3_a_hand_for_hand_round_places_when_it_ended_at_every_table() -> None:
    """Round 5 of hand-for-hand at tables 1 and 2: one player out at each, with different
    stacks. No place until both tables sealed their hand of the round; then the one who began
    it with more chips places better, though he went out first."""
    room = drawn(tables=2, seats=6, players=12)
    room.fold_all()
    room.clock(hand_for_hand=True, round=5, playing=["1", "2"], status="running")
    for table in ("1", "2"):
        _hold(room, table)
        _release(room, table, 5)
    short = min((p for _, p in room.players_at("2")),
                key=lambda p: room.state("2").seats[room.seat_of(p)[1]].stack)
    tall = max((p for _, p in room.players_at("1")),
               key=lambda p: room.state("1").seats[room.seat_of(p)[1]].stack)
    big_one = room.state("1").seats[room.seat_of(tall)[1]].stack
    loser_one = next(p for _, p in room.players_at("1") if p != tall and
                     room.state("1").seats[room.seat_of(p)[1]].stack > 5_000 - 200)
    room.knock_out(loser_one)
    room.knock_out(short)
    assert big_one > 0
    pending = places(room)
    assert pending == {loser_one: (11, True), short: (11, True)}
    # Round 6: both tables deal their next hand, which seals the round's records
    room.clock(hand_for_hand=True, round=6, playing=["1", "2"], status="running")
    for table in ("1", "2"):
        _release(room, table, 6)
        assert room.shuffle(table)
    room.settle()
    given = places(room)
    stacks = {b.bust.player: b.bust.stack for b in room.core.ledger.outs}
    better, worse = sorted((loser_one, short), key=lambda p: -stacks[p])
    assert given == {better: (11, False), worse: (12, False)}


def _event(raw: dict[str, object]):  # type: ignore[no-untyped-def]
    from controller.events import parse_event

    return parse_event(raw)


def _hold(room: SimRoom, table: str) -> None:
    """The clock's hand-for-hand hold, as the table receives it."""
    room.handle(table, _event(command("hold", by="clock", kind="hand_for_hand",
                                      reason="hand-for-hand")))


def _release(room: SimRoom, table: str, round_: int) -> None:
    """The clock's release of hand-for-hand round ``round_`` for one hand."""
    room.handle(table, _event(command("release", by="clock", one_hand=True, round=round_,
                                      kind="hand_for_hand")))


def _two_shortest(room: SimRoom, table: str) -> list[str]:
    """The table's two shortest stacks, shortest first (of different sizes: checked)."""
    at = [p for _, p in room.players_at(table)]
    stacks = {p: room.state(table).seats[room.seat_of(p)[1]].stack for p in at}
    two = sorted(at, key=lambda p: stacks[p])[:2]
    assert stacks[two[0]] < stacks[two[1]]
    return two


def test_rules_t3_a_balancing_move_goes_between_hands_to_the_seats_the_rules_name() -> None:
    for profile, rule in (("pvb-2020", "PVB 09(1)"), ("apsa-2010", "APSA 3.1.2.4")):
        room, _ = two_out_at_table_one(profile)
        assert room.counts() == {"1": 4, "2": 6}
        # What the rules say for the tables as they sit now (table 2 between hands)
        seatings = [TableSeating(table=t, seats=6, button=room.state(t).button,
                                 small_blind=room.state(t).sb, big_blind=room.state(t).bb,
                                 players=dict(room.players_at(t))) for t in ("1", "2")]
        (expected,) = plan(seatings, ["2", "1"], profile).moves  # type: ignore[arg-type]
        assert expected.rule == rule
        room.settle()
        moves = [m for m in room.core.ledger.moves if m.reason == "balance"]
        assert [(m.player, m.source, m.to, m.rule) for m in moves] == [
            (expected.player, expected.source, expected.to, rule)]
        assert room.seat_of(expected.player) == ("1", expected.to.seat)
        assert room.counts() == {"1": 5, "2": 5}


def test_pvb_09_a_move_decided_while_the_long_table_plays_waits_for_the_end_of_its_hand(
        ) -> None:
    room = drawn(tables=2, seats=6, players=12)
    assert room.shuffle("2")  # table 2 is in a hand when table 1 runs short
    at_one = [p for _, p in room.players_at("1")]
    room.knock_out(*at_one[:2])
    assert not [m for m in room.core.ledger.moves if m.reason == "balance"]
    hands.fold_around(room.feeder("2"), room.state_of("2"))
    room.settle()
    assert room.counts() == {"1": 5, "2": 5}


def test_pvb_10_a_table_breaks_and_its_players_sit_elsewhere_between_hands() -> None:
    room = drawn(tables=3, seats=6, players=14)  # 5, 5, 4
    room.fold_all()
    victims = [p for _, p in room.players_at("1")][:2]
    room.knock_out(*victims)  # 12 players: they fit at two tables of six
    assert room.core.ledger.broken == ["3"]
    assert room.counts() == {"1": 6, "2": 6, "3": 0}
    breaks = [m for m in room.core.ledger.moves if m.reason == "break"]
    assert len(breaks) == 4 and all(m.rule == "PVB 10(1)" for m in breaks)
    assert {m.status for m in breaks} == {"seated"}
    assert any("3: the table is closed" in line for line in room.said)
    assert room.core.state().chips.difference == 0  # type: ignore[union-attr]


def test_pvb_09_3_a_table_with_three_empty_seats_stops_until_its_newcomers_sit() -> None:
    room = drawn(tables=3, seats=6, players=14)  # 5, 5, 4
    room.fold_all()
    assert room.shuffle("1")  # table 1 in a hand
    room.knock_out(*[p for _, p in room.players_at("2")][:3])  # table 2: 2 players left
    # 11 players: table 3 breaks (break order 3, 2, 1); table 2, with 4 seats free, is held
    assert "seating" in room.state("2").holds or room.counts()["2"] >= 4
    hands.fold_around(room.feeder("1"), room.state_of("1"))
    room.settle()
    assert all(room.state(t).holds == {} for t in ("1", "2"))
    assert max(room.counts()[t] for t in ("1", "2")) - min(room.counts()[t] for t in
                                                          ("1", "2")) <= 1


def test_a_late_registration_and_a_re_entry_take_the_shortest_tables_free_seat() -> None:
    room = drawn(tables=3, seats=6, players=14)  # 5, 5, 4
    said = room.command("register", name="late", club="Asse")
    assert "registered late" in said and room.seat_of("late")[0] == "3"
    table = room.knock_out("p00")
    assert table
    said = room.command("reenter", name="p00")
    assert "entry 2" in said
    state = room.core.state()
    assert state.entries == 16 and state.players_left == 15
    assert state.chips is not None and state.chips.in_play == 16 * 5_000
    assert state.chips.difference == 0
    assert [u.why for u in room.core.ledger.undone] == ["a new entry"]


def test_the_floor_undoes_a_wrong_bust_and_is_named() -> None:
    room = drawn()
    room.knock_out("p03")
    said = room.command("undo_bust", player="p03", stack=4_000)
    assert "taken back by floor:test" in said
    (undone,) = room.core.ledger.undone
    assert undone.by == "floor:test" and undone.bust.player == "p03" and undone.stack == 4_000
    assert room.core.state().players_left == 14


@pytest.mark.parametrize(("command", "args", "reason", "rule"), [
    ("register", {"name": "p01"}, "p01 is registered already", "PVB 13"),
    ("register", {"name": "P01"}, "p01 is registered already", "PVB 13"),
    ("register", {"name": ""}, "args.name", "PVB 13"),
    ("register", {}, "args.name: missing; give the player's name", "PVB 13"),
    ("register", {"name": "x" * 41}, "1 to 40 printable characters", "PVB 13"),
    ("register", {"name": "ok", "club": 7}, "args.club", "PVB 08a(1)"),
    ("draw", {}, "the draw was made already", "PVB 08a(1)"),
    ("reenter", {"name": "p01"}, "still in the tournament: only a player who is out",
     "APSA 3.1.2.7"),
    ("reenter", {"name": "nobody"}, "nobody is not registered", "PVB 13"),
    ("unregister", {"name": "p01"}, "the draw was made", "PVB 12"),
    ("undo_bust", {"player": "p01"}, "p01 is not out", "PVB 64a(1)"),
    ("undo_bust", {"player": "nobody"}, "nobody is not registered", "PVB 13"),
    ("undo_bust", {"player": "p01", "stack": -5}, "args.stack: the chips the player gets back",
     "PVB 64a(1)"),
    ("move_done", {"player": "nobody"}, "nobody is not registered", "PVB 13"),
    ("explode", {}, "unknown tournament command 'explode'", "DFO"),
    # An argument the command does not take is refused, not ignored (a misspelt club would
    # register a player without his club)
    ("register", {"name": "new", "clb": "Asse"}, "register does not take args.clb (it takes "
     "name, club)", "DFO"),
    ("undo_bust", {"player": "p01", "chips": 5_000}, "undo_bust does not take args.chips "
     "(it takes player, stack)", "DFO"),
    ("move_done", {"player": "p01", "seat": 3}, "does not take args.seat", "DFO"),
    ("export", {"now": True}, "export does not take args.now (it takes no arguments)", "DFO"),
    ("draw", {"sed": 4}, "does not take args.sed", "DFO"),
    ("add_on", {"player": "p01", "chips": 1}, "does not take args.chips", "DFO"),
])
def test_bad_commands_are_refused_with_the_reason_and_change_nothing(
        command: str, args: dict[str, object], reason: str, rule: str) -> None:
    room = drawn()
    before = room.core.ledger.model_dump_json()
    with pytest.raises(Refused) as refused:
        room.core.command(command, args, "floor:test", room.now)
    assert reason in refused.value.reason and refused.value.rule == rule, refused.value
    assert room.core.ledger.model_dump_json() == before


def test_registration_closes_at_the_end_of_the_late_registration_level() -> None:
    room = drawn()
    room.clock(level=3, status="running")
    with pytest.raises(Refused, match="closed at the end of level 2"):
        room.command("register", name="too-late")
    fresh = SimRoom(settings())
    fresh.command("register", name="a")
    with pytest.raises(Refused, match="a tournament needs two"):
        fresh.command("draw")


def test_the_chip_count_names_the_table_and_hand_where_chips_appeared() -> None:
    room = drawn()
    room.fold_all()
    # The floor seats an unknown player at table 3 with chips of his own
    free = min(set(range(1, 7)) - set(room.state("3").seats))
    assert room.handle("3", _event({"type": "seat", "seat": free, "player": "ghost",
                                    "stack": 700})).accepted
    room.settle()
    alerts = [a.text for a in room.core.ledger.alerts]
    assert any("table 3, hand 1: the stacks add up to" in a and "700 chips more" in a
               for a in alerts), alerts
    assert any("ghost is not in the tournament" in a for a in alerts)
    assert room.core.state().chips.difference == 700  # type: ignore[union-attr]


def test_a_restart_in_the_middle_of_a_move_loses_nothing_and_doubles_nothing() -> None:
    room = drawn(tables=2, seats=6, players=12)
    room.fold_all()
    room.knock_out(*[p for _, p in room.players_at("1")][:2])
    # The move was decided and the player has left table 2; the service dies before he sits
    room.restart()
    room.settle()
    assert room.counts() == {"1": 5, "2": 5}
    assert len([m for m in room.core.ledger.moves if m.reason == "balance"]) == 1
    assert room.core.state().chips.difference == 0  # type: ignore[union-attr]


def test_a_whole_small_tournament_to_one_winner() -> None:
    room = drawn(tables=3, seats=6, players=14, points="apsa-ranking")
    issued = 14 * 5_000
    hands_played = 0
    while room.core.state().players_left > 1:
        assert room.chips_at_tables() + sum(
            m.stack for m in room.core.ledger.moves if m.status == "arriving") == issued
        table = max((t for t in room.tables if room.counts()[t] >= 2),
                    key=lambda t: room.counts()[t])
        players = [p for _, p in room.players_at(table)]
        room.knock_out(players[-1])
        room.fold_all()
        hands_played += 1
        if hands_played % 5 == 0:
            room.restart()
        assert hands_played < 60
    for table in room.tables:
        room.close(table)
    room.settle()
    state = room.core.state()
    assert state.status == "finished"
    rows = state.standings
    assert state.winner == rows[0].player  # the TV names him, the clock pauses
    assert [r.place for r in rows] == list(range(1, 15))
    assert sum(r.prize for r in rows) == state.prize_pool
    assert rows[0].points == pytest.approx(9 * 14 ** 0.5 + 5, abs=0.005)
    text = standings_csv(rows, "EUR", room.now)
    assert text.splitlines()[1].startswith("1,1,")
    document = json.loads(standings_json(rows, name="test", entries=14, players=14,
                                         prize_pool=state.prize_pool, currency="EUR",
                                         exported=room.now))
    assert [r["place"] for r in document["standings"]] == list(range(1, 15))


def test_pvb_35a_a_table_the_tournament_emptied_holds_up_no_hand_for_hand_round() -> None:
    """The clock (its pure core) with two tables in hand-for-hand: when the tournament has
    broken table 2 (no players left there), the round is not kept waiting for it and the next
    one releases table 1 alone; and the tournament moves no player off a table released for a
    round until it has dealt that hand."""
    from controller.room.clock.core import ClockCore
    from controller.session import SessionConfig, TableSession
    from tests.room.tournament.tournament_room import SMALL
    from tests.session.helpers import seat

    clock = ClockCore(SMALL, None, 0.0)
    clock.command("start", {}, 0.0)
    clock.command("hand_for_hand", {"on": True}, 0.0)
    one = TableSession(SessionConfig(table_id="1"))
    two = TableSession(SessionConfig(table_id="2"))
    for event in (seat(1, "a"), seat(2, "b")):
        one.handle(_event(event))
    for session in (one, two):
        clock.table_status(session.config.table_id, True, 1.0)
        clock.heard(session.config.table_id, 1.0)
        for ask in clock.reconcile(1.0).asks:
            target = one if ask.table == "1" else two
            target.handle(_event(command(ask.command, by="clock", **ask.args)))
        clock.table_state(session.state(), 1.0)
    clock.table_state(one.state(), 1.0)
    clock.table_state(two.state(), 1.0)
    clock.reconcile(1.5)
    assert clock.position.playing == ["1"] and "2" not in clock.position.waiting

    room = drawn(tables=2, seats=6, players=8)
    room.clock(hand_for_hand=True, round=3, playing=["1", "2"], status="running")
    for table in ("1", "2"):
        _hold(room, table)
        _release(room, table, 3)
    room.knock_out(*[p for _, p in room.players_at("1")][:2])  # 6 left: table 2 is to break
    assert room.state("2").released_round == 3
    assert not [m for m in room.core.ledger.moves if m.reason == "break"]
    room.fold("2")  # table 2 deals its hand of the round: now its players may leave it
    assert [m.status for m in room.core.ledger.moves if m.reason == "break"] == ["seated"] * 4
    assert room.counts() == {"1": 6, "2": 0}


def test_pvb_35a_a_table_the_clock_released_deals_its_round_before_it_breaks() -> None:
    """The clock released round 3 at tables 1 and 2; table 1 has its release, table 2's is
    still on its way (its state: held, between hands). Table 1's hand of the round puts two
    players out and the rest fit at one table: table 2 owes the round its hand all the same,
    so it is not broken before it dealt it (docs/tournament.md, "Hand-for-hand and moves").
    Broken first, it could never deal it: the round waited for its record for ever and the
    two places stayed pending (prize 0) to the end (PVB 64b(3))."""
    room = drawn(tables=2, seats=6, players=8)
    room.fold_all()  # the blinds move chips: the stacks differ
    for table in ("1", "2"):
        _hold(room, table)
    room.clock(hand_for_hand=True, round=3, playing=["1", "2"], waiting=["1", "2"],
               status="running")
    _release(room, "1", 3)
    losers = _two_shortest(room, "1")
    room.knock_out(*losers)  # 6 left: table 2 is to break, once it dealt round 3
    assert room.state("2").released_round is None  # (its release is still on its way)
    assert not [m for m in room.core.ledger.moves if m.reason == "break"]
    assert places(room) == {losers[0]: (7, True), losers[1]: (7, True)}
    _release(room, "2", 3)
    room.fold("2")  # table 2 deals its hand of round 3: the round is over at both tables
    assert [m.status for m in room.core.ledger.moves if m.reason == "break"] == ["seated"] * 4
    assert room.counts() == {"1": 6, "2": 0}
    assert room.core.ledger.round_records[3] == ["2"]  # (sealed by its close)
    # Round 4 at table 1 alone: its next hand seals its record of round 3, the round's last
    room.clock(hand_for_hand=True, round=4, playing=["1"], waiting=["1"], status="running")
    _release(room, "1", 4)
    assert room.shuffle("1")
    room.settle()
    assert places(room) == {losers[1]: (7, False), losers[0]: (8, False)}


def test_pvb_64b_3_the_winner_is_not_announced_while_the_last_round_is_pending() -> None:
    """Heads-up in hand-for-hand round 2: the elimination event comes before the hand's sealed
    record. The last player out waits for the round's record like any other, so the
    tournament is not over (2nd place pending, paid nothing) until it came; then it is, with
    every place given and paid (APSA 3.1.2.1, PVB 64b(3))."""
    room = drawn(tables=1, seats=6, players=2)
    room.fold_all()
    room.fold_all()  # (its shuffle seals the first: a hand without a bust, settled)
    assert room.core.ledger.settled
    _hold(room, "1")
    room.clock(hand_for_hand=True, round=2, playing=["1"], waiting=["1"], status="running")
    _release(room, "1", 2)
    loser = min((p for _, p in room.players_at("1")),
                key=lambda p: room.state("1").seats[room.seat_of(p)[1]].stack)
    stack = room.state("1").seats[room.seat_of(loser)[1]].stack
    assert room.core.elimination("1", "early", {"player": loser, "hand": 2, "round": 2,
                                                "stack": stack, "busted": {loser: stack}},
                                 room.now)
    room.core.reconcile(room.now)
    state = room.core.state()
    assert state.status == "running" and state.winner is None
    assert places(room)[loser] == (2, True)
    room.knock_out(loser)  # the hand itself: its sealed record of round 2 comes
    state = room.core.state()
    assert state.status == "finished"
    assert [(r.place, r.pending) for r in state.standings] == [(1, False), (2, False)]
    assert state.standings[1].player == loser and state.standings[1].prize > 0
    assert sum(r.prize for r in state.standings) == state.prize_pool


def test_pvb_64b_3_a_round_settles_without_a_released_table_broken_before_it_dealt() -> None:
    """The clock's state names table 2 in round 3 though the tournament broke it (the clock
    released the round on table 2's state from before the break, which nothing had shown to
    the tournament yet). Table 2, empty, can never deal its hand of round 3, and the clock
    does not wait for it (PVB 35a): the round's places are given from table 1's record, by the
    stacks at the start of the hand (PVB 64b(1)(3)), not left pending for ever."""
    room = drawn(tables=2, seats=6, players=8)
    room.fold_all()
    room.knock_out(*[p for _, p in room.players_at("1")][:2])  # table 2 breaks
    assert room.counts() == {"1": 6, "2": 0}
    room.fold_all()
    room.fold_all()  # (everyone who came from table 2 is dealt in)
    _hold(room, "1")
    room.clock(hand_for_hand=True, round=3, playing=["1", "2"], waiting=["1"],
               status="running")
    _release(room, "1", 3)
    losers = _two_shortest(room, "1")
    room.knock_out(*losers)
    room.clock(hand_for_hand=True, round=4, playing=["1"], waiting=["1"], status="running")
    _release(room, "1", 4)
    assert room.shuffle("1")  # seals table 1's record of round 3
    room.settle()
    assert room.core.ledger.round_records[3] == ["1"]
    got = places(room)
    assert (got[losers[1]], got[losers[0]]) == ((5, False), (6, False))

def test_the_draws_words_count_one_table_as_one() -> None:
    room = SimRoom(settings(tables=2, seats=6))
    for k in range(3):
        room.command("register", name=f"p{k}")
    assert "3 players at 1 table (1)" in room.command("draw", seed=1)


def test_dfo_2_3_a_newer_move_supersedes_an_older_one_still_waiting_for_the_chips() -> None:
    """A player moved again before his chips were read at his new seat left that seat: the
    older move is superseded (no longer waiting for a chip count there), only his current move
    is open, and `move_done` counts his chips where he sits now."""
    room = drawn(tables=3, seats=6, players=14)  # 5, 5, 4; no chips read at the new seats
    room.fold_all()
    room.knock_out(*[p for _, p in room.players_at("1")][:2])  # table 3 breaks
    room.knock_out(*[p for _, p in room.players_at("2")][:3])
    room.fold_all()
    room.knock_out(*[p for _, p in room.players_at("1")][:3])
    room.fold_all()  # balancing moves players the break brought, again
    ledger = room.core.ledger
    twice = {m.player for m in ledger.moves if m.reason != "draw"
             and any(o.player == m.player and o.id < m.id and o.reason != "draw"
                     for o in ledger.moves)}
    assert twice  # (the scene: moved by the break, then by balancing)
    for player in {m.player for m in ledger.moves}:
        mine = sorted((m for m in ledger.moves if m.player == player), key=lambda m: m.id)
        assert [m.status for m in mine[:-1]] == ["superseded"] * (len(mine) - 1), mine
        assert mine[-1].status in ("seated", "cancelled"), mine
    assert {m.status for m in room.core.state().moves} >= {"seated", "superseded"}
    player = sorted(twice)[0]
    table, seat = room.seat_of(player)
    said = room.command("move_done", player=player)
    assert said == f"{player}'s chips are counted at table {table}, seat {seat}"
    with pytest.raises(Refused, match="no move waiting"):
        room.command("move_done", player=player)
    lines = {s.player: s for s in room.core.state().seats}
    assert lines[player].chips_read
    assert room.core.state().chips.difference == 0  # type: ignore[union-attr]


def full_after_two_breaks() -> tuple[SimRoom, list[str]]:
    """4 tables of 6, 22 players; one bust after another until tables 4 and 3 are broken and
    1 and 2 hold six each. Returns the room and who went out."""
    room = drawn(tables=4, seats=6, players=22)
    room.fold_all()
    out = []
    while room.core.ledger.broken != ["4", "3"] or sum(room.counts().values()) > 12:
        table = max(room.counts(), key=lambda t: room.counts()[t])
        (_, player), *_ = room.players_at(table)
        room.knock_out(player)
        out.append(player)
        room.fold_all()
    assert room.counts() == {"1": 6, "2": 6, "3": 0, "4": 0}
    return room, out


@pytest.mark.parametrize("command", ["register", "reenter", "undo_bust"])
def test_rules_t3_a_late_seat_opens_the_last_broken_table_again_when_every_seat_is_taken(
        command: str) -> None:
    room, out = full_after_two_breaks()
    if command == "register":
        said = room.command("register", name="late")
        player = "late"
    elif command == "reenter":
        player = out[-1]
        said = room.command("reenter", name=player)
    else:
        player = out[-1]
        said = room.command("undo_bust", player=player, stack=5_000)
    assert "draws table 3, seat" in said, said  # the last broken first (break order 4, 3, ...)
    ledger = room.core.ledger
    assert ledger.open_tables == ["1", "2", "3"] and ledger.broken == ["4"]
    assert "3" not in ledger.closed
    assert room.seat_of(player)[0] == "3"
    assert any(a.text.startswith("table 3, broken before, opens again") for a in ledger.alerts)
    lines = {t.table: t.status for t in room.core.state().tables}
    assert lines == {"1": "open", "2": "open", "3": "open", "4": "broken"}
    # Balanced, not broken again: 13 players do not fit at two tables of six (RULES T3)
    room.fold_all()
    room.fold_all()
    assert room.core.ledger.broken == ["4"]
    assert sorted(room.counts().values()) == [0, 4, 4, 5]
    assert room.core.state().chips.difference == 0  # type: ignore[union-attr]
    # Down to 12 again: table 3 breaks again, and is told to close again
    room.knock_out(player)
    room.fold_all()
    assert room.core.ledger.broken == ["4", "3"] and room.counts()["3"] == 0
    assert "3" in room.core.ledger.closed
