"""The simulated dealer: plays hands the way a good dealer does, through its hands (`DealerHands`,
controller/sim/hands.py): cards onto the antennas, bets as chip tags pushed into the
betting zones, the keys and the shuffle button, while it watches the table's public state as a
dealer watches the screen. Between hands it runs a colour-up's chip race, lays each newcomer's
stack on his seat's zone for the table to read, and waits calmly at a table with no hand to deal
(fewer than two players with chips: broken, or waiting for the tournament's players).
Its chip work lives in dealer_chips.py, its moves between hands in between_hands.py,
what it watches for on the table's state in screen.py.

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

from gpiozero.pins.mock import MockFactory

from controller.engine.profiles import load_profile
from controller.events import DeclareEvent
from controller.session.outputs import TableState
from controller.sim import cash as sim_cash
from controller.sim.between_hands import PLAYERS, BetweenHands
from controller.sim.hands import (
    Chip,
    DealerHands,
    DealerStuck,
    Felt,
    FeltSeen,
    HardwareHands,
    Key,
    Stopped,
)
from controller.sim.screen import changed, deal_order, moved_on, seats_with_chips
from controller.table.config import ReaderSection, TableConfig
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from drivers.buttons import PanelConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.simulated.field import Antennas, ZoneAntennas

log = logging.getLogger(__name__)

DEMO_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "board", 12: "muck", 0: "burn"}
DEMO_CHIP_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "pot"}


class SimulatedDealer(BetweenHands):
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

    def _place(self, zone: str, card: str) -> None:
        self.hands.card_on(zone, card)

    def _move(self, card: str, from_zone: str, to_zone: str) -> None:
        self.hands.card_off(from_zone, card)
        self.hands.card_on(to_zone, card)

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
        except Exception as exc:  # the dealer's own bug: the run fails saying so, not exit 0
            self.failure = f"the simulated dealer failed ({type(exc).__name__}: {exc})"
            log.exception("the simulated dealer failed")
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
        # Between hands no card lies on the felt either: a restart while the last hand's cards
        # were being taken in left some there (the table would read them in the next hand)
        self._cards_in()
        if self.cash:  # (one left with no chips by a hand the floor ended)
            sim_cash.no_chips(self)
            state = self.hands.last() or state
        while True:
            if len(seats_with_chips(state)) < 2:
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
                                    or s.hold is not None or len(seats_with_chips(s)) < 2)
            if state.hand > number:
                self._race_lost(state, number)
                return state, stacks

    def _new_stub(self) -> None:
        used = {card for cards in self.felt.cards.values() for card in cards}
        self.stub = [card for card in REGISTRATION_ORDER if card not in used]
        self.rng.shuffle(self.stub)

    def _deal_hole_cards(self, state: TableState) -> None:
        """One card at a time round the table from the left of the button, until each seat in
        the hand holds its cards (a restart in the middle of the deal goes on from the felt)."""
        dealt = [s for s, v in sorted(state.seats.items()) if v.in_hand]
        order = deal_order(dealt, state.button or dealt[0])
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
                self.hands.wait(moved_on(state))
                continue
            if state.stage == "dealing":
                if self.cash and sim_cash.run_twice(self, state):
                    continue
                due = sim_cash.board_cards_due(state)
                burn = self.stub.pop()
                if self.hands.reads_cards_in("burn"):
                    self._place("burn", burn)
                # (else burned face down where no antenna reads it: the table checks no burns)
                # The table's words change once it has the burn: the street's cards are what
                # the dealer then waits for the table to take.
                state = self.hands.last() or state
                for _ in range(due):
                    self._place("board", self.stub.pop())
            elif state.stage == "showdown":
                self.hands.press("confirm")
            self.hands.wait(changed(state))
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
        self._cards_in()

    def _cards_in(self) -> None:
        """Every card off the felt, back into the deck."""
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
                rng: random.Random, stop: threading.Event,
                seen: FeltSeen | None = None) -> SimulatedDealer:
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
                          stop, felt_file=journal.with_name(journal.name + ".felt.json"),
                          seen=seen)
    profile = load_profile(config.table.profile)
    return sim_cash.at_table(SimulatedDealer(hands, chip_case(chip_sets), config.table.seats, rng,
                                             hole_cards=4 if profile.game == "PO" else 2),
                             profile.cash)



def chip_case(chip_sets: dict[str, ChipSet]) -> dict[str, int] | None:
    """Every chip tag of the table, or None where it reads no chips."""
    if not chip_sets:
        return None
    return dict(next(iter(chip_sets.values())).chips)


# (the hands' names as well, from sim_hands.py, where they lived before)
__all__ = ["DEMO_CHIP_ZONES", "DEMO_ZONES", "PLAYERS", "Chip", "DealerHands", "DealerStuck", "Felt",
           "FeltSeen", "HardwareHands", "Key", "SimulatedDealer", "Stopped", "chip_case",
           "on_hardware"]
