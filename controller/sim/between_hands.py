"""What the simulated dealer (controller/sim/dealer.py) does between hands, before the shuffle:
players to deal to (a demo seats its own; a tournament's table waits calmly for its players),
each newcomer's stack laid on his seat's zone for the table to read, and a colour-up's chip race
(RULES T5) run at the table. A base of `SimulatedDealer`."""

from __future__ import annotations

import contextlib
import logging
import random

from controller.events import CommandEvent, SeatEvent
from controller.session.colour_up import RACE_RULE
from controller.session.outputs import TableState
from controller.sim.dealer_chips import DealerChips
from controller.sim.hands import DealerStuck
from controller.sim.race import deal_race, race_winners, stacks_after
from controller.sim.screen import (
    no_longer,
    race_read,
    read_or_gone,
    seats_with_chips,
    why_no_hand,
)

# (the dealer's log, whichever module its moves live in)
log = logging.getLogger("controller.sim.dealer")

PLAYERS = ["ana", "ben", "cem", "dora", "emil", "fay", "gus", "hana", "ivo", "jule"]
MOVES_SECONDS = 2.0  # a table's players moved away (or brought) in one go take about this


class BetweenHands(DealerChips):
    """The dealer's moves between hands; `SimulatedDealer` sets what they work on."""

    rng: random.Random
    seats: int
    stack: int
    run_on: bool
    seated_by_floor: bool

    def _seat_players(self) -> None:
        state = self.hands.last()
        if state is not None and len(state.seats) >= 2:
            return
        if self.seated_by_floor:  # the tournament seats them; the first hand waits for them
            self.hands.wait(lambda s: True)
            return
        names = PLAYERS[:self.seats]
        for k, name in enumerate(names, start=1):
            self.hands.submit(SeatEvent(seat=k, player=name, stack=self.stack))
        self.hands.wait(lambda s: len(s.seats) == len(names))

    def _no_hand_to_deal(self, state: TableState) -> TableState:
        """Fewer than two players with chips. At a table the tournament seats that is normal
        (its players not seated yet; broken, every player moved away; one player left, whom
        balancing brings company, or the winner): said once, calmly, and the dealer deals again
        once two players with chips sit there. Elsewhere a demo seats new players; a table asked
        for a number of hands cannot play them: that is a failure."""
        if not self.seated_by_floor:
            with_chips = seats_with_chips(state)
            if not self.run_on:
                raise DealerStuck(f"only seat {with_chips[0] if with_chips else '-'} has "
                                  "chips left: no further hand can be dealt")
            return self._new_players(state)
        said: str | None = None
        while len(seats_with_chips(state)) < 2:
            # (a broken table's players leave one after the other, newcomers sit down one by
            # one: what it comes to is said, once)
            with contextlib.suppress(DealerStuck):
                self.hands.wait(lambda s: len(seats_with_chips(s)) >= 2, timeout=MOVES_SECONDS)
            state = self.hands.last() or state
            if len(seats_with_chips(state)) >= 2:
                break
            why = said = why_no_hand(state)
            log.info("no hand to deal: %s; the dealer waits for two players with chips", why)
            state = self.hands.wait(no_longer(why), timeout=24 * 3600)
        if said is not None:
            log.info("seats %s have chips: the dealer deals again",
                     ", ".join(map(str, seats_with_chips(state))))
        return state

    def _new_players(self, state: TableState) -> TableState:
        """One player has every chip: the busted seats get new players (a demo plays on)."""
        taken = {v.player for v in state.seats.values()}
        names = (f"{name}-{k}" for k in range(2, 10**6) for name in PLAYERS)
        for seat in range(1, self.seats + 1):
            view = state.seats.get(seat)
            if view is None or view.stack == 0:
                name = next(n for n in names if n not in taken)
                self.hands.submit(SeatEvent(seat=seat, player=name, stack=self.stack))
        return self.hands.wait(lambda s: sum(1 for v in s.seats.values() if v.stack > 0) >= 2)

    def _before_shuffle(self, state: TableState) -> bool:
        """Something to do before a shuffle press, even during a hold: a race, newcomers to
        count, fewer than two players with chips."""
        return (self._race_due(state) or bool(self._newcomers(state))
                or len(seats_with_chips(state)) < 2)

    # ------------------------------------------------------------ newcomers

    def _newcomers(self, state: TableState) -> list[int]:
        """Seats whose players sat down (the draw, a move, a late entry) and whose chips the
        table has not read there yet; none where no chips are read (the floor counts them)."""
        if not self.reads_chips or state.stage not in ("over", "waiting"):
            return []
        return sorted(s for s, v in state.seats.items() if v.counted is False and v.stack > 0)

    def _count_newcomers(self, state: TableState) -> None:
        """The dealer lays each newcomer's stack on his seat's zone, as a dealer does when a
        player sits down with his chips, and the table reads it (DFO §2(3): the start stack
        checked at the seat; PVB 09: a moved player's chips at his new seat; the tournament's
        move is done then); then the chips go back beside the zone. All at once, between
        hands; a stack that changed meanwhile (chips bought) is laid again."""
        up = state.colour_up  # (the chips a colour-up took out of play are not laid)
        leaving = frozenset(up.chips) if up is not None else frozenset()
        seats = {seat: (state.seats[seat].player, state.seats[seat].stack)
                 for seat in self._newcomers(state)}
        for seat, (_, stack) in seats.items():
            self._push(f"seat:{seat}", self._pick(stack, leaving=leaving))
        self.hands.wait(lambda s: all(read_or_gone(s, seat, *was) for seat, was in seats.items()))
        self._clear_zones()

    # ------------------------------------------------------------ the chip race

    def _race_due(self, state: TableState) -> bool:
        """The table made a colour-up whose chip race the dealer has still to run (RULES T5)."""
        up = state.colour_up
        return (up is not None and up.open and up.contested
                and up.ref not in self.felt.raced and state.stage in ("over", "waiting"))

    def _race_lost(self, state: TableState, number: int) -> None:
        """Checked again right after the press: a colour-up that reached the table after the
        dealer's last look (between hands, before hand ``number + 1``) was closed unrun by the
        shuffle (the race ends when the next hand begins, docs/table.md). Nothing the dealer can
        undo: it says so and calls the floor, who gives the race's chips by hand after this
        hand (``stack``), rather than dealing on as if it had been run."""
        up = state.colour_up
        if (up is None or up.open or not up.contested or up.hand != number
                or up.ref in self.felt.raced or up.winners() or up.entered()):
            return
        self.felt.raced.append(up.ref)
        log.error("the colour-up %s reached the table as the shuffle was pressed: its chip race "
                  "is over unrun (RULES T5; %d chip(s) of %s); the dealer calls the floor to "
                  "give the race's chips after hand %d", up.ref, up.race_chips, f"{up.unit:,}",
                  state.hand)
        self.hands.press("floor")

    def _race(self, state: TableState) -> None:
        """The chip race (APSA 2.1.18): the cards dealt face up beside the antennas, the winners
        named, and each racer's stack after it laid on his zone for the table to read (one
        chip of the unit more for a winner), then taken back; where no chips are read, the
        floor enters the winners' stacks (`stack`)."""
        up = state.colour_up
        assert up is not None
        cards = deal_race(up)
        winners = race_winners(up, cards)
        after = stacks_after(up, winners)
        log.info("chip race for %d chip(s) of %s: %s; won by seat(s) %s", up.race_chips,
                 f"{up.unit:,}", "; ".join(f"seat {s} {' '.join(c)}" for s, c in cards.items()),
                 ", ".join(map(str, winners)) or "-")
        racers = [seat for seat, racer in sorted(up.race.items())
                  if not racer.sure and not racer.counted and seat in state.seats
                  and state.seats[seat].player == racer.player]
        self._clear_zones()  # (a race cut short by a restart: laid again)
        for seat in racers:
            won = seat in winners
            if not self.reads_chips:
                if won:
                    self._floor_enters(up.ref, seat, state.seats[seat].player, after[seat])
                continue
            zone = f"seat:{seat}"
            self._push(zone, self._pick(after[seat], leaving=frozenset(up.chips)))
            if won:
                self.hands.wait(race_read(up.ref, seat))
            else:  # what they keep: the table already has it, and says nothing
                self.hands.pause(0.3)
            self._to_case(self._take(zone))
        # Run only once every racer's stack is read: a table killed in the middle of the race
        # finds it still due and deals the same race again (seeded by the colour-up); a winner
        # read twice changes nothing, a stack the floor entered is made once per ref
        self.felt.raced.append(up.ref)

    def _floor_enters(self, ref: str, seat: int, player: str, stack: int) -> None:
        """A table without chip readers: the floor enters a winner's stack (docs/table.md);
        the simulated room's floor is the dealer's own hand here."""
        self.hands.submit(CommandEvent(name="stack", by="floor:simulated", args={
            "seat": seat, "player": player, "stack": stack, "ref": f"{ref}:race:{seat}",
            "rule": RACE_RULE, "reason": "won a chip in the chip race"}))
        self.hands.wait(race_read(ref, seat))
