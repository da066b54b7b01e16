"""The simulated dealer: plays hands the way a good dealer does, through its hands (`DealerHands`,
controller/sim/hands.py): cards onto the antennas, bets as chip tags pushed into the
betting zones, the keys and the shuffle button, while it watches the table's public state as a
dealer watches the screen. Between hands it runs a colour-up's chip race, lays each newcomer's
stack on his seat's zone for the table to read, and waits calmly at a table with no hand to deal
(fewer than two players with chips: broken, or waiting for the tournament's players).

Two pairs of hands: `HardwareHands` (simulated readers on ptys and mock pins, in real time: the
real drivers read them; `pokertable table --simulate`) and the soak's direct hands (the events
the drivers would give, in virtual time: `controller.sim.soak`). The dealer is the same.

What lies on the felt (cards and chips on the antennas) is the dealer's memory: a table that
restarts in the middle of a hand finds the same tags there, and the dealer picks the hand up
from them (`Felt`).
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory

from controller.engine.profiles import load_profile
from controller.events import CommandEvent, DeclareEvent, SeatEvent
from controller.session.colour_up import RACE_RULE
from controller.session.outputs import TableState
from controller.sim import cash as sim_cash
from controller.sim.hands import (
    Chip,
    DealerHands,
    DealerStuck,
    Felt,
    HardwareHands,
    Key,
    Stopped,
)
from controller.sim.race import deal_race, race_winners, stacks_after
from controller.table.config import ReaderSection, TableConfig
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from drivers.buttons import PanelConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.simulated.field import Antennas, ZoneAntennas

log = logging.getLogger(__name__)

DEMO_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "board", 12: "muck", 0: "burn"}
DEMO_CHIP_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "pot"}
PLAYERS = ["ana", "ben", "cem", "dora", "emil", "fay", "gus", "hana", "ivo", "jule"]
MOVES_SECONDS = 2.0  # a table's players moved away (or brought) in one go take about this


class SimulatedDealer:
    """Plays hands through its hands. Hole cards only ever travel as tags on antennas; bets, where
    the table reads chips, only as chip tags in the betting zones.

    ``chip_case``: every chip tag of the table (uid -> value), or None where no chips are read
    (the dealer then types the bets in). ``hole_cards``: 2 for hold'em, 4 for Omaha."""

    def __init__(self, hands: DealerHands, chip_case: dict[str, int] | None, seats: int,
                 rng: random.Random, hole_cards: int = 2, stack: int = 10000,
                 all_in: float = 0.0) -> None:
        self.hands = hands
        self.felt = hands.felt  # the dealer's memory is what lies on the table
        self.rng = rng
        self.seats = seats
        self.hole_cards = hole_cards
        self.all_in = all_in  # the chance that a raise is all in
        self.stack = stack
        self.reads_chips = chip_case is not None
        self.case_total = sum((chip_case or {}).values())  # every chip the table holds
        self.failure: str | None = None
        self.played = 0
        on_felt = {uid for chips in self.felt.chips.values() for uid, _ in chips}
        self.free: dict[int, list[str]] = {}
        for uid, value in sorted((chip_case or {}).items()):
            if uid not in on_felt:
                self.free.setdefault(value, []).append(uid)
        self.stub: list[str] = []
        self.dealt_hand: int | None = None
        self.run_on = False  # playing until stopped: new players when one has every chip
        # The tournament seats the players (its seat commands): the dealer seats nobody and,
        # with fewer than two left, waits for the tournament to bring more (or to close it).
        self.seated_by_floor = False
        self.shorted: dict[str, int] = {}  # a zone short of its bet (a faulty dealer's doing)
        # A cash table (the CG): straddles, a bomb pot or flip or double board now and then,
        # run it twice after an all-in (controller/sim/cash.py)
        self.cash = False

    # ------------------------------------------------------------ what lies where

    def _cards(self, zone: str) -> list[str]:
        return self.felt.cards.get(zone, [])

    def _in_zone(self, zone: str) -> list[Chip]:
        return self.felt.chips.get(zone, [])

    def _place(self, zone: str, card: str) -> None:
        self.hands.card_on(zone, card)

    def _move(self, card: str, from_zone: str, to_zone: str) -> None:
        self.hands.card_off(from_zone, card)
        self.hands.card_on(to_zone, card)

    # ------------------------------------------------------------ chips

    def _pick(self, amount: int, below: int | None = None,
              leaving: frozenset[int] = frozenset()) -> list[Chip]:
        """Chips from the case making ``amount`` exactly, largest first (``below``: only chips
        of a smaller value; ``leaving``: none of these values, out of play since a
        colour-up)."""
        picked: list[Chip] = []
        left = amount
        for value in sorted(self.free, reverse=True):
            if (below is not None and value >= below) or value in leaving:
                continue
            while left >= value and self.free[value]:
                picked.append((self.free[value].pop(), value))
                left -= value
        if left:
            self._to_case(picked)
            raise DealerStuck(f"the simulated chip case cannot make {amount:,}")
        return picked

    def _oversized(self, amount: int, limit: int) -> list[Chip] | None:
        """One chip larger than ``amount`` (and not over ``limit``), as a player might push."""
        for value in sorted(self.free):
            if amount < value <= limit and self.free[value]:
                return [(self.free[value].pop(), value)]
        return None

    def _push(self, zone: str, chips: list[Chip]) -> None:
        self.hands.chips_in(zone, chips)

    def _take(self, zone: str) -> list[Chip]:
        chips = list(self._in_zone(zone))
        if chips:
            self.hands.chips_out(zone, chips)
        return chips

    def _to_case(self, chips: list[Chip]) -> None:
        for uid, value in chips:
            self.free.setdefault(value, []).append(uid)

    def _post_blinds(self, state: TableState, stacks: dict[int, int]) -> None:
        """Blinds and antes in the betting zones, as the players put them (RULES H4): each
        seat its blind and its ante, the big blind the big-blind ante too; a short stack all
        it has (``stacks``: before the hand)."""
        posted: dict[int, int] = {}
        agreed = sim_cash.variant_amount(state)  # a bomb pot's or flip's: no blinds, no antes
        for seat_no, view in state.seats.items():
            ante = state.blinds.ante + (state.blinds.bb_ante if seat_no == state.bb else 0)
            # (a blind from the seat, in case the round closed at once: everyone all in)
            blind = view.bet or (state.blinds.bb if seat_no == state.bb else
                                 state.blinds.sb if seat_no == state.sb else 0)
            if agreed:
                ante, blind = agreed, 0
            owed = min(blind + ante, stacks.get(seat_no, blind + ante))
            ante = min(ante, owed)  # a short stack pays the ante first (RULES R4)
            if view.in_hand and owed and not self._in_zone(f"seat:{seat_no}"):
                self._push(f"seat:{seat_no}", self._pick(owed))
                self.felt.antes[f"seat:{seat_no}"] = ante
                posted[seat_no] = owed
        self.felt.street = state.street
        # The blinds are out before the cards (seconds at a real table): the next chips in a
        # zone within the readers' settle time would read as one motion with the blind (a
        # call with one bigger chip, PVB 44(2), read as a raise of blind and chip together).
        self.hands.wait(lambda s: s.hand != state.hand or all(
            n not in s.seats or s.seats[n].zone == amount for n, amount in posted.items()))

    def _bets_out(self) -> bool:
        return any(chips for zone, chips in self.felt.chips.items() if zone.startswith("seat:"))

    def _sweep(self, state: TableState) -> None:
        """The betting round is over: the dealer pulls the bets into the pot zone, less an
        oversized chip's change and the part of the largest bet nobody called, which go back to
        their players (PVB 60(3): the amount nobody called goes back)."""
        zones = [z for z, chips in self.felt.chips.items() if z.startswith("seat:") and chips]
        held = {z: sum(v for _, v in self._in_zone(z)) - self.felt.change_due.get(z, 0)
                for z in zones}
        for zone in zones:  # a short zone's chips owed come out of its change (the table's way)
            repaid = min(self.shorted.get(zone, 0), self.felt.change_due.get(zone, 0))
            held[zone] += repaid
            self.shorted[zone] = self.shorted.get(zone, 0) - repaid
            if repaid and not self.shorted[zone]:
                self._healed(zone)
        short = {z: self.shorted.pop(z, 0) for z in zones}
        bets = sorted(((held[z] + short[z] - self.felt.antes.get(z, 0), z) for z in zones),
                      reverse=True)
        back = dict.fromkeys(zones, 0)
        if bets:
            top, top_zone = bets[0]
            second = bets[1][0] if len(bets) > 1 else 0
            back[top_zone] = max(0, top - second)
            repaid = min(short[top_zone], back[top_zone])  # ... and out of what goes back
            back[top_zone] -= repaid
            if repaid and repaid == short[top_zone]:
                self._healed(top_zone)
        swept: list[Chip] = []
        self.felt.antes.clear()  # swept with the bets
        for zone in zones:
            chips = self._take(zone)
            self.felt.change_due.pop(zone, None)
            into_pot = held[zone] - back[zone]
            if into_pot != sum(v for _, v in chips):  # change first: only the bet goes in
                self._to_case(chips)
                chips = self._pick(into_pot) if into_pot else []
            swept += chips
        if swept:
            self.hands.pause(0.05)
            self._push("pot", swept)
            pot = sum(v for _, v in self._in_zone("pot"))
            # Out of step is a false alert: the table must have read the sweep (every betting
            # zone empty, the pot zone whole) before the dealer deals on.
            self.hands.wait(lambda s: s.hand != state.hand or s.stage in ("over", "waiting") or (
                s.pot_zone == pot and all(not v.zone for v in s.seats.values())))
        self.felt.street = state.street

    def _forget_repaid(self, state: TableState) -> None:
        """A zone left short (a faulty dealer's doing) whose seat has put chips in since, read
        by the table as a bet the zone now holds whole: nothing is short any more."""
        for zone in list(self.shorted):
            if int(zone[5:]) == state.actor:  # its chips may not be read yet
                continue
            view = state.seats.get(int(zone[5:]))
            held = sum(v for _, v in self._in_zone(zone)) - self.felt.change_due.get(zone, 0)
            if view is not None and held >= view.bet + self.felt.antes.get(zone, 0):
                del self.shorted[zone]
                self._healed(zone)

    def _healed(self, zone: str) -> None:
        """A zone left short is whole again: the player's next chips made up for it."""

    def _make_change(self, state: TableState) -> None:
        """A zone holding more than the seat's bet (an oversized chip called): the dealer
        swaps it for the bet and gives the rest back."""
        for seat_no, view in state.seats.items():
            zone = f"seat:{seat_no}"
            held = sum(v for _, v in self._in_zone(zone))
            due = view.bet + self.felt.antes.get(zone, 0)
            if held > due and seat_no != state.actor and view.in_hand:
                self.felt.change_due.pop(zone, None)
                held_chips = list(self._in_zone(zone))
                self._to_case(held_chips)
                self.hands.swap(zone, held_chips, self._pick(due))
                self.hands.wait(_zone_reads(state.hand, seat_no, due))
                if self.shorted.pop(zone, 0):  # the zone holds the table's bet: whole again
                    self._healed(zone)

    # ------------------------------------------------------------ hands

    def play(self, hands: int, stop: threading.Event) -> None:
        """Play ``hands`` hands (0: until stopped). A table the dealer cannot go on with is
        reported to the floor (the floor key) and kept in ``failure``; with ``hands`` 0 the
        dealer then waits for the floor to end the hand and deals on."""
        self.run_on = hands == 0
        try:
            self._seat_players()
            while not stop.is_set() and (hands == 0 or self.played < hands):
                try:
                    self.play_hand()
                except DealerStuck as exc:
                    self._stuck(str(exc))
                    if hands:
                        return
                    self._wait_for_floor()
        except Stopped:
            pass
        except DealerStuck as exc:
            self._stuck(str(exc))
        finally:
            if hands:
                stop.set()
            log.info("the simulated dealer stopped after %s", f"{self.played} of {hands} hands"
                     if hands else f"{self.played} hand{'' if self.played == 1 else 's'}")

    def _stuck(self, reason: str) -> None:
        state = self.hands.last()
        where = (f"hand {state.hand}, {state.stage}" + (f" on the {state.street}"
                 if state.street else "")) if state is not None else "no state yet"
        self.failure = f"the simulated dealer cannot go on ({where}): {reason}"
        log.error("%s; it calls the floor", self.failure)
        self.hands.press("floor")

    def _wait_for_floor(self) -> None:
        """The floor ends the hand (void, kill) or sets it right; then the dealer deals on."""
        state = self.hands.last()
        # (and tries again after a while: what it waited for may have come meanwhile)
        with contextlib.suppress(DealerStuck):
            self.hands.wait(lambda s: s != state and (state is None or s.hand != state.hand or
                                                       s.stage in ("over", "waiting")),
                            timeout=60)
        self._clear_felt()

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
            with_chips = _with_chips(state)
            if not self.run_on:
                raise DealerStuck(f"only seat {with_chips[0] if with_chips else '-'} has "
                                  "chips left: no further hand can be dealt")
            return self._new_players(state)
        said: str | None = None
        while len(_with_chips(state)) < 2:
            # (a broken table's players leave one after the other, newcomers sit down one by
            # one: what it comes to is said, once)
            with contextlib.suppress(DealerStuck):
                self.hands.wait(lambda s: len(_with_chips(s)) >= 2, timeout=MOVES_SECONDS)
            state = self.hands.last() or state
            if len(_with_chips(state)) >= 2:
                break
            why = said = _why_no_hand(state)
            log.info("no hand to deal: %s; the dealer waits for two players with chips", why)
            state = self.hands.wait(_no_longer(why), timeout=24 * 3600)
        if said is not None:
            log.info("seats %s have chips: the dealer deals again",
                     ", ".join(map(str, _with_chips(state))))
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

    def play_hand(self) -> None:
        """One hand from the shuffle (or from where a restarted table is) to its end."""
        state = self.hands.last()
        assert state is not None
        if state.stage in ("over", "waiting"):
            state, stacks = self._start_hand(state)
            if self.reads_chips:
                self._post_blinds(state, stacks)
                if self.cash:
                    sim_cash.straddle(self, self.hands.wait(lambda s: True))
        self._play_from(state.hand)
        self.played += 1
        if self.cash:  # who lost his chips buys again or goes home (CG Table Stake)
            sim_cash.no_chips(self)

    def _start_hand(self, state: TableState) -> tuple[TableState, dict[int, int]]:
        """Between hands: what comes before the shuffle (players to deal to, a colour-up's chip
        race, newcomers' chips read at their seats, a hold waited out), then the press. Returns
        the state of the hand it began and the stacks before it."""
        number = state.hand
        self._clear_zones()
        if self.cash:  # (one left with no chips by a hand the floor ended)
            sim_cash.no_chips(self)
            state = self.hands.last() or state
        while True:
            if len(_with_chips(state)) < 2:
                state = self._no_hand_to_deal(state)
                continue
            if self._race_due(state):  # a colour-up's chip race first (RULES T5)
                self._race(state)
                state = self.hands.wait(lambda s: True)
                continue
            if self._newcomers(state):
                self._count_newcomers(state)
                state = self.hands.wait(lambda s: True)
                continue
            if state.hold is not None:  # a break or hand-for-hand: the dealer waits it out
                state = self.hands.wait(lambda s: s.hold is None or self._before_shuffle(s),
                                        timeout=24 * 3600)
                continue
            self.hands.pause(0.35)  # the shuffle guard
            # (the latest state: a colour-up, a hold, a newcomer may have come meanwhile, or a
            # player gone to another table)
            state = self.hands.wait(lambda s: True)
            if state.hold is not None or self._before_shuffle(state):
                continue
            if self.cash and self.reads_chips:
                sim_cash.ask_variant(self, state)
            stacks = {n: v.stack for n, v in state.seats.items()}
            self.hands.press("shuffle")
            # A hold, or a player leaving, that arrived just before the press refuses it: wait
            # again, no fault.
            state = self.hands.wait(lambda s: (s.hand > number and s.stage != "waiting")
                                    or s.hold is not None or len(_with_chips(s)) < 2)
            if state.hand > number:
                self._race_lost(state, number)
                return state, stacks

    def _before_shuffle(self, state: TableState) -> bool:
        """Something to do before a shuffle press, even during a hold: a race, newcomers to
        count, fewer than two players with chips."""
        return (self._race_due(state) or bool(self._newcomers(state))
                or len(_with_chips(state)) < 2)

    def _clear_zones(self) -> None:
        """Between hands no chip lies in a zone (a count or a race cut short by a restart):
        back to the case."""
        for zone in [z for z, chips in self.felt.chips.items() if chips]:
            self._to_case(self._take(zone))

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
        self.hands.wait(lambda s: all(_read_or_gone(s, seat, *was) for seat, was in seats.items()))
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
                self.hands.wait(_race_read(up.ref, seat))
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
        self.hands.wait(_race_read(ref, seat))

    def _new_stub(self) -> None:
        used = {card for cards in self.felt.cards.values() for card in cards}
        self.stub = [card for card in REGISTRATION_ORDER if card not in used]
        self.rng.shuffle(self.stub)

    def _deal_hole_cards(self, state: TableState) -> None:
        """One card at a time round the table from the left of the button, until each seat in
        the hand holds its cards (a restart in the middle of the deal goes on from the felt)."""
        dealt = [s for s, v in sorted(state.seats.items()) if v.in_hand]
        order = _deal_order(dealt, state.button or dealt[0])
        # (after a restart the table knows who folded and who holds his cards already)
        wanting = [s for s in order if not state.seats[s].folded
                   and state.seats[s].cards < self.hole_cards]
        for round_no in range(self.hole_cards):
            for seat in wanting:
                if len(self._cards(f"seat:{seat}")) <= round_no:
                    self._place(f"seat:{seat}", self.stub.pop())
        self.hands.wait(lambda s: s.stage != "betting" or all(
            s.seats[x].cards >= self.hole_cards for x in dealt if x in s.seats))

    def _play_from(self, number: int) -> None:
        if self.dealt_hand != number:  # a new hand, or one a restarted table is in
            self._new_stub()
            self.dealt_hand = number
            self._deal_hole_cards(self.hands.wait(lambda s: True))
        while True:
            state = self.hands.wait(lambda s: True)
            if state.hand != number or state.stage in ("over", "waiting"):
                break
            if self._bets_out() and (state.stage != "betting"
                                     or state.street != self.felt.street):
                self._sweep(state)
                continue
            if state.stage == "betting" and state.actor is not None:
                if self.reads_chips:
                    self._forget_repaid(state)
                    self._make_change(state)
                self._act(state)
                # The next move waits for the table to have taken this one (a dealer who acts
                # on a screen that is not yet updated is out of step, not the table).
                self.hands.wait(_moved_on(state))
                continue
            if state.stage == "dealing":
                if self.cash and sim_cash.run_twice(self, state):
                    continue
                self._place("burn", self.stub.pop())
                for _ in range(sim_cash.board_cards_due(state)):
                    self._place("board", self.stub.pop())
            elif state.stage == "showdown":
                self.hands.press("confirm")
            self.hands.wait(_changed(state))
        self._clear_felt()

    def _clear_felt(self) -> None:
        """The hand is over: the pot goes to the winner, the bets back home, the cards in."""
        if self.reads_chips:
            state = self.hands.last()
            if state is not None and self._bets_out():
                self._sweep(state)
            for zone in list(self.felt.chips):
                self._to_case(self._take(zone))
        self.felt.change_due.clear()
        self.felt.antes.clear()
        for zone, cards in list(self.felt.cards.items()):
            for card in list(cards):
                self.hands.card_off(zone, card)

    def _act(self, state: TableState) -> None:
        seat = state.actor
        assert seat is not None
        doubt = f"seat {seat}:"
        if state.waiting_for.startswith(doubt):
            self.hands.press("confirm")  # the rules left a doubt: the dealer decides
            self.hands.wait(lambda s: not s.waiting_for.startswith(doubt))
            return
        roll = self.rng.random()
        if state.to_call and roll < 0.25:
            self._move(self._cards(f"seat:{seat}")[0], f"seat:{seat}", "muck")
            return
        if not state.to_call and roll < 0.55:
            self.hands.press("confirm")
            return
        view = state.seats[seat]
        if not self.reads_chips:
            return self._declare_act(state, seat, roll)
        if state.min_raise_to and roll > 0.8:
            top = min(state.max_raise_to or state.min_raise_to, view.bet + view.stack)
            target = top if self.rng.random() < self.all_in else state.min_raise_to
            amount = max(target, state.min_raise_to) - view.bet  # a raise, in one motion
        else:
            amount = state.to_call or 0
        if not amount:
            self.hands.press("confirm")
            return
        amount = min(amount, view.stack)
        # (not the whole stack: that is an all-in, PVB 43)
        chips = self._oversized(amount, view.stack - 1) if 0.45 < roll < 0.55 else None
        self.felt.street = state.street
        if chips is not None:
            self.felt.change_due[f"seat:{seat}"] = chips[0][1] - amount
        if chips is None:
            chips = self._pick(amount)
            if amount > (state.to_call or 0) and len(chips) == 1 and amount < view.stack:
                # One chip is a call unless "raise" is said first (PVB 44(1)); the simulated
                # players do not speak, so a raise goes in as several chips (a last chip is an
                # all-in, whatever it is).
                self._to_case(chips)
                chips = self._pick(amount, below=chips[0][1])
        self._push(f"seat:{seat}", chips)

    def _declare_act(self, state: TableState, seat: int, roll: float) -> None:
        """A table without chip readers: the dealer types the bets in."""
        if state.min_raise_to and roll > 0.85:
            self.hands.submit(DeclareEvent(seat=seat, action="raise" if state.to_call else "bet",
                                           amount=state.min_raise_to))
            return
        self.hands.submit(DeclareEvent(seat=seat, action="call" if state.to_call else "check"))


def on_hardware(config: TableConfig, readers: list[ReaderSection], service: TableService,
                watch: MemorySink, antennas: dict[str, Antennas], decks: dict[str, Deck],
                chip_sets: dict[str, ChipSet], factory: MockFactory, panel: PanelConfig,
                rng: random.Random, stop: threading.Event) -> SimulatedDealer:
    """The dealer at a `pokertable table --simulate`: its hands on the simulated readers'
    antennas (every card zone of every card reader, every chip zone of every chip reader) and
    the mock pins; the felt kept beside the journal, so a restart finds the hand as it lay."""
    card_zones: dict[str, tuple[Antennas, int]] = {}
    chip_zones: dict[str, tuple[Antennas, int]] = {}
    for reader in readers:
        target = card_zones if reader.reads == "cards" else chip_zones
        for antenna, zone in sorted(reader.zones.items()):
            target.setdefault(zone, (antennas[reader.name], antenna))
    cards = ZoneAntennas(card_zones)
    chips = ZoneAntennas(chip_zones) if chip_sets and chip_zones else None
    journal = config.table.journal
    hands = HardwareHands(cards, cards.zones, next(iter(decks.values())), chips,
                          chips.zones if chips else {}, factory, panel, watch, service.submit,
                          stop, felt_file=journal.with_name(journal.name + ".felt.json"))
    profile = load_profile(config.table.profile)
    return sim_cash.at_table(SimulatedDealer(hands, chip_case(chip_sets), config.table.seats, rng,
                                             hole_cards=4 if profile.game == "PO" else 2),
                             profile.cash)


Test = Callable[[TableState], bool]


def _moved_on(before: TableState) -> Test:
    """The table took the acting seat's move: another seat acts, the round or the hand moved
    on, or the rules ask the dealer about it (a doubt: "seat N: ...")."""
    return lambda state: (
        state.hand != before.hand or state.stage != before.stage
        or state.street != before.street or state.actor != before.actor
        or state.waiting_for.startswith(f"seat {before.actor}:"))


def _changed(before: TableState) -> Test:
    """The table took the dealer's move: the hand moved on (a hold, or a clock's tick arriving
    meanwhile changes the state too, but not the hand: pressing again then would be a second
    press the table refuses)."""
    def moved(state: TableState) -> bool:
        return (state.hand, state.stage, state.board, state.waiting_for,
                {n: (v.cards, v.shown, v.folded) for n, v in state.seats.items()}) != (
            before.hand, before.stage, before.board, before.waiting_for,
            {n: (v.cards, v.shown, v.folded) for n, v in before.seats.items()})
    return moved


def _zone_reads(hand: int, seat: int, amount: int) -> Test:
    """The seat's zone reads ``amount`` (or the seat is out of it)."""
    return lambda s: (s.hand != hand or seat not in s.seats or not s.seats[seat].in_hand
                      or s.seats[seat].zone == amount)


def _race_read(ref: str, seat: int) -> Test:
    """The table has the seat's chip from the race (or the race is over)."""
    def read(state: TableState) -> bool:
        up = state.colour_up
        racer = up.race.get(seat) if up is not None else None
        return (up is None or up.ref != ref or not up.open or racer is None or racer.won)
    return read


def _with_chips(state: TableState) -> list[int]:
    return sorted(n for n, v in state.seats.items() if v.stack > 0)


def _why_no_hand(state: TableState) -> str:
    """Why a table the tournament seats has no hand to deal, in the floor's words."""
    with_chips = _with_chips(state)
    if with_chips:
        seat = with_chips[0]
        return (f"only {state.seats[seat].player} (seat {seat}) has chips: one player left at "
                "the table (balancing brings more, or the tournament has its winner)")
    if not state.seats and state.hand:
        return "nobody sits here any more: the tournament broke the table (PVB 10)"
    return "nobody with chips sits here yet: the tournament seats the players"


def _no_longer(why: str) -> Test:
    """Two players with chips at last, or no hand to deal for another reason."""
    return lambda state: len(_with_chips(state)) >= 2 or _why_no_hand(state) != why


def _read_or_gone(state: TableState, seat: int, player: str, stack: int) -> bool:
    """A newcomer's chips laid on his zone: the table read them (or he left, or his stack
    changed: laid again at the next look)."""
    view = state.seats.get(seat)
    return (state.stage not in ("over", "waiting") or view is None or view.player != player
            or view.stack != stack or view.counted is not False)


def _deal_order(dealt: list[int], button: int) -> list[int]:
    return [s for s in dealt if s > button] + [s for s in dealt if s <= button]


def chip_case(chip_sets: dict[str, ChipSet]) -> dict[str, int] | None:
    """Every chip tag of the table, or None where it reads no chips."""
    if not chip_sets:
        return None
    return dict(next(iter(chip_sets.values())).chips)


# (the hands' names as well, from sim_hands.py, where they lived before)
__all__ = ["DEMO_CHIP_ZONES", "DEMO_ZONES", "PLAYERS", "Chip", "DealerHands", "DealerStuck", "Felt",
           "HardwareHands", "Key", "SimulatedDealer", "Stopped", "chip_case", "on_hardware"]
