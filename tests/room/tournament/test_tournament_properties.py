"""The tournament over random sequences (Hypothesis stateful testing): registrations before the
draw and late, eliminations at any table (one player, or two in the same hand, with equal stacks
or not), hands folded around, hand-for-hand rounds across the tables, re-entries, rebuys, the
breaks with their colour-ups and chip races (RULES T5) and the add-ons taken at one, the floor
undoing a bust, chip counts at the seats, and the service restarted at any point from its
ledger as the store gives it back, also right after a hand when only some of its requests went
out, and in the middle of a chip race. The tables are real sessions
(tests/room/tournament/tournament_room.py).

After every step, with the tables between hands and the requests carried out:
- every player is either seated exactly once (or on his way to one seat) or placed exactly
  once (or waiting for his hand-for-hand round), never both;
- the places are a permutation of the places below the players still in, ties sharing a range;
- the chips are conserved: the tables' stacks and the stacks on their way are the chips issued
  (start stacks, add-ons, rebuys, chips the floor gave back with a bust it took back) less what
  left play at the colour-ups, and the count says so;
- balancing has settled: no two open tables differ by more than one player, and no table that
  could break is left standing.

`make test` runs a hundred sequences; TOURNAMENT_EXAMPLES=2000 a nightly-sized run."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from controller.events import parse_event
from controller.room.tournament import purchases
from controller.room.tournament.draw import Refused
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_room import BREAKS, SimRoom
from tests.room.tournament.tournament_room import settings as room_settings
from tests.session.helpers import command

EXAMPLES = int(os.environ.get("TOURNAMENT_EXAMPLES", "100"))
# What the floor may be told when it registers, re-enters or sells chips at a random moment
EXPECTED_REFUSALS = ("every seat in the room is taken", "registration closed",
                     "a rebuy while the stack is at most", "rebuys closed",
                     "rebuy(s), all the structure allows", "has taken their add-on")


class TournamentMachine(RuleBasedStateMachine):
    room: SimRoom
    names = 0
    round = 0
    level = 1

    @initialize(tables=st.integers(2, 4), seats=st.integers(4, 7), data=st.data(),
                balancing=st.sampled_from(["pvb-2020", "apsa-2010"]),
                colour_up=st.sampled_from(["race", "chip-up"]))
    def draw(self, tables: int, seats: int, data: st.DataObject, balancing: str,
             colour_up: str) -> None:
        self.room = SimRoom(room_settings(tables=tables, seats=seats, balancing=balancing,
                                          structure=BREAKS, colour_up=colour_up))
        players = data.draw(st.integers(2, tables * seats), label="players")
        for _ in range(players):
            self._register(data.draw(st.sampled_from(["Asse", "Bluff", None]), label="club"))
        self.room.command("draw", seed=data.draw(st.integers(0, 2**32), label="seed"))
        self.room.clock(level=1, status="running")

    def _register(self, club: str | None) -> str:
        self.names += 1
        name = f"p{self.names:03d}"
        self.room.command("register", name=name, club=club)
        return name

    # ---------------------------------------------------------------- rules

    def _tables_with(self, players: int) -> list[str]:
        return [t for t, n in self.room.counts().items() if n >= players
                and "seating" not in self.room.state(t).holds]

    @precondition(lambda self: self.room.core.state().players_left > 1)
    @rule(data=st.data(), two=st.booleans())
    def eliminate(self, data: st.DataObject, two: bool) -> None:
        """A hand with one player out, or two (the smallest stacks dealt in, so that the
        biggest covers them); or, when the biggest cannot cover them, folded around."""
        tables = self._tables_with(3 if two else 2)
        if not tables:
            return
        table = data.draw(st.sampled_from(tables), label="table")
        self._hand(table, data, 2 if two else 1)

    @precondition(lambda self: self.room.core.state().players_left > 1)
    @rule(data=st.data(), asks=st.integers(0, 3))
    def killed_after_a_hand(self, data: st.DataObject, asks: int) -> None:
        """A hand with a player out, then the service is killed having sent only some of
        what followed (a move half made, a hold without its release), and restarted."""
        tables = self._tables_with(2)
        if not tables:
            return
        table = data.draw(st.sampled_from(tables), label="table")
        self._hand(table, data, 1, settle=False)
        self.room.partly(asks)
        self.room.restart()
        self.room.settle()

    def _hand(self, table: str, data: st.DataObject, out: int, settle: bool = True) -> None:
        room = self.room
        if len(room.state(table).seats) < 2:
            return  # (a round's table lost its players to another meanwhile)
        assert room.shuffle(table), room.refused[-1]
        state = room.state(table)
        dealt = sorted((s for s, v in state.seats.items() if v.in_hand),
                       key=lambda s: (state.seats[s].stack + state.seats[s].bet, s))
        stack = {s: state.seats[s].stack + state.seats[s].bet for s in dealt}
        winner = dealt[-1]
        losers = dealt[:out] if out == 2 else [data.draw(st.sampled_from(dealt[:-1]),
                                                         label="loser")] if out else []
        if len(dealt) <= len(losers) or any(stack[s] >= stack[winner] for s in losers):
            losers = []
        if losers:
            hands.bust(room.feeder(table), room.state_of(table), winner, losers)
        else:
            hands.fold_around(room.feeder(table), room.state_of(table))
        if settle:
            room.settle()

    @precondition(lambda self: self.room.core.state().players_left > 1)
    @rule(data=st.data())
    def fold(self, data: st.DataObject) -> None:
        tables = self._tables_with(2)
        if tables:
            self.room.fold(data.draw(st.sampled_from(tables), label="table"))

    @precondition(lambda self: self.room.core.state().players_left > 1)
    @rule(data=st.data())
    def hand_for_hand_round(self, data: st.DataObject) -> None:
        """One round at every table (PVB 35a): each table plays one hand, some with a player
        out; then hand-for-hand ends, and the next hands seal the round's records."""
        tables = self._tables_with(2)
        if len(tables) < 2:
            return
        self.round += 1
        room = self.room
        room.clock(hand_for_hand=True, round=self.round, playing=tables, status="running",
                   level=self.level)
        for table in tables:
            for raw in (command("hold", by="clock", kind="hand_for_hand",
                                reason="hand-for-hand"),
                        command("release", by="clock", one_hand=True, round=self.round,
                                kind="hand_for_hand")):
                room.handle(table, parse_event(raw))
        for table in tables:
            self._hand(table, data, 1 if data.draw(st.booleans(), label="bust") else 0)
        room.clock(hand_for_hand=False, round=self.round, status="running", level=self.level)
        for table in tables:
            room.handle(table, parse_event(command("release", by="clock",
                                                   kind="hand_for_hand")))

    @precondition(lambda self: self.room.core.ledger.status == "running")
    @rule(club=st.sampled_from(["Asse", None]))
    def register_late(self, club: str | None) -> None:
        try:
            self._register(club)
        except Refused as refused:
            assert any(why in refused.reason for why in EXPECTED_REFUSALS), refused.reason

    @rule(data=st.data())
    def reenter(self, data: st.DataObject) -> None:
        out = [o.bust.player for o in self.room.core.ledger.outs]
        if out and self.room.core.ledger.status == "running":
            name = data.draw(st.sampled_from(out), label="re-entry")
            try:
                self.room.command("reenter", name=name)
            except Refused as refused:
                assert any(why in refused.reason for why in EXPECTED_REFUSALS), refused.reason

    @precondition(lambda self: self.room.core.ledger.status == "running")
    @rule(data=st.data())
    def rebuy(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(self.room.core.ledger.players_in()), label="rebuy")
        offered = name in self.room.core.state().can_rebuy  # (the page's Rebuy button)
        try:
            self.room.command("rebuy", player=name)
        except Refused as refused:
            assert any(why in refused.reason for why in EXPECTED_REFUSALS), refused.reason
            assert not offered, f"the page offers {name} a rebuy refused: {refused.reason}"
        else:
            assert offered, f"the page offers {name} no rebuy, and one is sold"

    @precondition(lambda self: self.room.core.ledger.status == "running" and self.level < 3)
    @rule(data=st.data(), restart=st.booleans())
    def a_break(self, data: st.DataObject, restart: bool) -> None:
        """The break after this level: its colour-up made at every table, the races run by
        the book, the add-on taken by some at the break that offers it (and the service
        restarted in the middle of it all); then the next level."""
        room = self.room
        after = self.level
        room.on_break(after)
        if restart:
            room.restart()
            room.settle()
        if room.settings.structure.add_on_level() == after:
            for name in room.core.ledger.players_in():
                if data.draw(st.booleans(), label=f"{name} takes the add-on"):
                    room.command("add_on", player=name)

        def pick(options: list[object], k: int) -> list[object]:
            return data.draw(st.permutations(options), label="race")[:k]

        for table in sorted(room.tables):
            up = room.state(table).colour_up
            if up is not None and up.ref == f"colour-up:{after}" and up.open:
                room.race_right(table, pick)
        self.level = after + 1
        room.play_level(self.level)

    @precondition(lambda self: bool(self.room.core.ledger.outs))
    @rule(data=st.data())
    def undo_bust(self, data: st.DataObject) -> None:
        """The floor takes back a bust (PVB 64a(1)): the player gets the chips it names
        (issued) and a drawn free seat, or it is refused when the room has none."""
        out = sorted(o.bust.player for o in self.room.core.ledger.outs)
        name = data.draw(st.sampled_from(out), label="bust taken back")
        # (a start stack or more: the dealing helpers need every stack to cover the blinds)
        stack = 2_500 * data.draw(st.integers(2, 8), label="chips given back, in 2,500s")
        try:
            self.room.command("undo_bust", player=name, stack=stack)
        except Refused as refused:
            assert any(why in refused.reason for why in (
                "every seat in the room is taken", "more than every chip in play")), refused

    @rule(data=st.data())
    def count(self, data: st.DataObject) -> None:
        self.room.count(data.draw(st.sampled_from(sorted(self.room.tables)), label="table"))

    @rule()
    def restart(self) -> None:
        self.room.restart()
        self.room.settle()

    # ---------------------------------------------------------------- invariants

    @invariant()
    def seated_once_or_placed_once(self) -> None:
        room = self.room
        seated = room.seated()  # asserts that nobody sits twice
        ledger = room.core.ledger
        arriving = {m.player for m in ledger.moves if m.status == "arriving"}
        outs = [o.bust.player for o in ledger.outs]
        assert len(outs) == len(set(outs)), "placed twice"
        rows = {s.player: s for s in room.core.state().standings}
        for name, player in ledger.players.items():
            if player.out:
                assert name in outs and name not in seated and name not in arriving, name
                assert rows[name].place is not None
            else:
                assert (name in seated) != (name in arriving), (name, seated.get(name))
                assert rows[name].place is None or ledger.status == "finished"

    @invariant()
    def places_are_a_permutation_with_shared_ties(self) -> None:
        state = self.room.core.state()
        left = state.players_left
        placed = [s for s in state.standings if (s.place is not None and s.place > left)
                  or (s.place == 1 and left == 1)]
        covered: list[int] = []
        ranges: dict[tuple[int, int], int] = {}
        for row in placed:
            assert row.place is not None and row.last is not None
            ranges[(row.place, row.last)] = ranges.get((row.place, row.last), 0) + 1
        for (first, last), count in ranges.items():
            assert count == last - first + 1, (first, last, count)
            covered += range(first, last + 1)
        start = 2 if left == 1 else left + 1
        assert sorted(covered) == list(range(start if left != 1 else 1,
                                             len(self.room.core.ledger.players) + 1))

    @invariant()
    def chips_are_conserved(self) -> None:
        ledger = self.room.core.ledger
        arriving = sum(m.stack for m in ledger.moves if m.status == "arriving")
        owed = purchases.owed(ledger)
        assert self.room.chips_at_tables() + arriving + owed == ledger.chips.in_play()
        assert ledger.chips.in_play() == ledger.chips.issued - ledger.chips.coloured_up
        state = self.room.core.state()
        assert state.chips is not None and state.chips.difference == 0, ledger.alerts
        assert not any(a.rule in ("RULES T5", "RULES T6") for a in ledger.alerts), ledger.alerts

    @invariant()
    def balancing_has_settled(self) -> None:
        ledger = self.room.core.ledger
        if ledger.status != "running":
            return
        counts = {t: n for t, n in self.room.counts().items() if t in ledger.open_tables}
        assert max(counts.values()) - min(counts.values()) <= 1, counts
        players = sum(counts.values())
        seats = {t.table: t.seats for t in self.room.settings.tables}
        breaking = next(t for t in self.room.settings.order_of_breaking()
                        if t in ledger.open_tables)
        if len(counts) > 1:
            assert players > sum(seats[t] for t in counts if t != breaking), counts
        assert not any(m.status in ("leaving", "arriving") for m in ledger.moves)


TournamentMachine.TestCase.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestTheTournament = pytest.mark.long(25)(TournamentMachine.TestCase)
