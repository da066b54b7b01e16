"""The simulated dealer: plays hands on simulated hardware (cards as tags on antennas, bets as
chip tags in the betting zones, keys and the shuffle button on mock pins), watching the table's
public state as a dealer watches the screen."""

from __future__ import annotations

import logging
import random
import threading
import time

from gpiozero.pins.mock import MockFactory

from controller.events import DeclareEvent
from controller.session.outputs import TableState
from controller.table.config import TableConfig
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from drivers.buttons import PanelConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.simulators import SimulatedPt1Reader, press

log = logging.getLogger(__name__)

DEMO_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "board", 12: "muck", 0: "burn"}
DEMO_CHIP_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "pot"}


class SimulatedDealer:
    """Plays hands on the simulated hardware, watching the table's public state like a dealer
    watches the screen. Hole cards only ever travel as tags on antennas; bets only as chip tags
    in the betting zones (no bet is typed in)."""

    def __init__(self, config: TableConfig, service: TableService, watch: MemorySink,
                 simulators: dict[str, SimulatedPt1Reader], decks: dict[str, Deck],
                 chip_sets: dict[str, ChipSet], factory: MockFactory, panel: PanelConfig,
                 rng: random.Random) -> None:
        self.service = service
        self.watch = watch
        name = next(iter(decks))
        self.reader = simulators[name]
        self.deck = decks[name]
        self.uid_of = {card: uid for uid, card in self.deck.cards.items()}
        zones = next((r.zones for r in config.readers if r.name == name), DEMO_ZONES)
        self.antenna = {zone: antenna for antenna, zone in zones.items()}
        self.factory = factory
        self.panel = panel
        self.rng = rng
        self.failure: str | None = None
        self.seats = config.table.seats
        self.placed: list[tuple[int, str]] = []
        # The chip case, if the table reads chips: free chips by value, chips in each zone.
        self.chip_reader: SimulatedPt1Reader | None = None
        self.chip_antenna: dict[str, int] = {}
        self.free: dict[int, list[str]] = {}
        self.in_zone: dict[str, list[tuple[str, int]]] = {}
        self.zone_street: str | None = None
        self.change_due: dict[str, int] = {}  # an oversized chip's change, per zone
        self.antes: dict[str, int] = {}  # antes in a zone beside the bet, until swept
        if chip_sets:
            chip_name = next(iter(chip_sets))
            self.chip_reader = simulators[chip_name]
            chip_zones = next((r.zones for r in config.readers if r.name == chip_name),
                              DEMO_CHIP_ZONES)
            self.chip_antenna = {zone: antenna for antenna, zone in chip_zones.items()}
            for uid, value in sorted(chip_sets[chip_name].chips.items()):
                self.free.setdefault(value, []).append(uid)

    def _wait(self, test: object, timeout: float = 10.0) -> TableState:
        return self.watch.wait_state(test, timeout)  # type: ignore[arg-type]

    def _place(self, zone: str, card: str) -> None:
        antenna = self.antenna[zone]
        uid = self.uid_of[card]
        self.reader.place(antenna, uid)
        self.placed.append((antenna, uid))
        time.sleep(0.02)

    def _move(self, card: str, from_zone: str, to_zone: str) -> None:
        uid = self.uid_of[card]
        self.reader.remove(self.antenna[from_zone], uid)
        self.placed.remove((self.antenna[from_zone], uid))
        self._place(to_zone, card)

    def _press(self, pin: int) -> None:
        time.sleep(0.12)  # a human hand: the panel ignores presses closer than its bounce time
        press(self.factory.pin(pin))

    # ------------------------------------------------------------ chips

    def _pick(self, amount: int) -> list[tuple[str, int]]:
        """Chips from the case making ``amount`` exactly, largest first."""
        picked: list[tuple[str, int]] = []
        for value in sorted(self.free, reverse=True):
            while amount >= value and self.free[value]:
                picked.append((self.free[value].pop(), value))
                amount -= value
        if amount:
            raise TimeoutError(f"the simulated chip case cannot make {amount}")
        return picked

    def _oversized(self, amount: int, limit: int) -> list[tuple[str, int]] | None:
        """One chip larger than ``amount`` (and not over ``limit``), as a player might push."""
        for value in sorted(self.free):
            if amount < value <= limit and self.free[value]:
                return [(self.free[value].pop(), value)]
        return None

    def _push(self, zone: str, chips: list[tuple[str, int]]) -> None:
        """One motion: the chips land together, then the zone stays still (RULES R9)."""
        assert self.chip_reader is not None
        for uid, value in chips:
            self.chip_reader.place(self.chip_antenna[zone], uid)
            self.in_zone.setdefault(zone, []).append((uid, value))

    def _take(self, zone: str) -> list[tuple[str, int]]:
        assert self.chip_reader is not None
        chips = self.in_zone.pop(zone, [])
        for uid, _ in chips:
            self.chip_reader.remove(self.chip_antenna[zone], uid)
        return chips

    def _to_case(self, chips: list[tuple[str, int]]) -> None:
        for uid, value in chips:
            self.free[value].append(uid)

    def _post_blinds(self, state: TableState) -> None:
        """Blinds and antes in the betting zones, as the players put them (RULES H4): each
        seat its blind and its ante, the big blind the big-blind ante too."""
        for seat_no, view in state.seats.items():
            ante = state.blinds.ante + (state.blinds.bb_ante if seat_no == state.bb else 0)
            if view.in_hand and (view.bet or ante):
                self._push(f"seat:{seat_no}", self._pick(view.bet + ante))
                self.antes[f"seat:{seat_no}"] = ante
        self.zone_street = state.street

    def _sweep(self, state: TableState) -> None:
        """The betting round is over: the dealer pulls the bets into the pot zone."""
        swept: list[tuple[str, int]] = []
        self.antes.clear()  # swept with the bets
        for zone in [z for z in self.in_zone if z.startswith("seat:")]:
            chips = self._take(zone)
            change = self.change_due.pop(zone, 0)
            if change:  # change first: only the bet goes into the pot
                self._to_case(chips)
                chips = self._pick(sum(v for _, v in chips) - change)
            swept += chips
        if swept:
            time.sleep(0.05)
            self._push("pot", swept)
            pot = sum(v for _, v in self.in_zone.get("pot", []))
            # Out of step is a false alert: the table must have read the sweep (every betting
            # zone empty, the pot zone whole) before the dealer deals on.
            self._wait(lambda s: s.hand != state.hand or s.stage in ("over", "waiting") or (
                s.pot_zone == pot and all(not v.zone for v in s.seats.values())))
        self.zone_street = state.street

    def _make_change(self, state: TableState) -> None:
        """A zone holding more than the seat's bet (an oversized chip called): the dealer
        swaps it for the bet and gives the rest back."""
        for seat_no, view in state.seats.items():
            zone = f"seat:{seat_no}"
            held = sum(v for _, v in self.in_zone.get(zone, []))
            due = view.bet + self.antes.get(zone, 0)
            if held > due and seat_no != state.actor and view.in_hand:
                self.change_due.pop(zone, None)
                self._to_case(self._take(zone))
                time.sleep(0.05)
                self._push(zone, self._pick(due))
                self._wait(lambda s, n=seat_no, due=due: s.hand != state.hand or
                           n not in s.seats or not s.seats[n].in_hand or s.seats[n].zone == due)

    # ------------------------------------------------------------ hands

    def play(self, hands: int, stop: threading.Event) -> None:
        """Play ``hands`` hands (0: until stopped). Whatever stops it early is kept in
        ``failure``: the table then exits non-zero with that reason."""
        played = 0
        try:
            self._seat_players()
            while not stop.is_set() and (hands == 0 or played < hands):
                with_chips = [s for s, v in self.watch.last.seats.items() if v.stack > 0]
                if len(with_chips) < 2:
                    raise TimeoutError(f"only seat {with_chips[0] if with_chips else '-'} has "
                                       "chips left: no further hand can be dealt")
                self._play_hand()
                played += 1
        except TimeoutError as exc:
            self.failure = f"the simulated dealer stopped after {played} of {hands} hands: {exc}"
            log.error("%s", self.failure)
        finally:
            if hands:
                stop.set()

    def _seat_players(self) -> None:
        state = self.watch.last if self.watch.states else None
        if state is not None and len(state.seats) >= 2:
            return
        names = ["ana", "ben", "cem", "dora", "emil", "fay"][:self.seats]  # a small table too
        for k, name in enumerate(names, start=1):
            self.service.submit_line(
                f'{{"type": "seat", "seat": {k}, "player": "{name}", "stack": 10000}}'
            )
        self._wait(lambda s: len(s.seats) == len(names))

    def _play_hand(self) -> None:
        number = self.watch.last.hand
        time.sleep(0.35)  # the shuffle guard
        self._press(self.panel.shuffle)
        state = self._wait(lambda s: s.hand > number and s.stage != "waiting")
        if self.chip_reader is not None:
            self._post_blinds(state)
        cards = list(REGISTRATION_ORDER)
        self.rng.shuffle(cards)
        dealt = [s for s, v in sorted(state.seats.items()) if v.in_hand]
        order = _deal_order(dealt, state.button or dealt[0])
        holding: dict[int, list[str]] = {s: [] for s in dealt}
        for _ in range(2):
            for seat in order:
                card = cards.pop()
                holding[seat].append(card)
                self._place(f"seat:{seat}", card)
        self._wait(lambda s: s.stage != "betting" or all(
            s.seats[x].cards == 2 for x in dealt if x in s.seats))
        while True:
            state = self.watch.last
            if state.hand != number + 1 or state.stage in ("over", "waiting"):
                break
            bets_out = any(chips for zone, chips in self.in_zone.items()
                           if zone.startswith("seat:"))
            if bets_out and (state.stage != "betting" or state.street != self.zone_street):
                self._sweep(state)
                continue
            if state.stage == "betting" and state.actor is not None:
                if self.chip_reader is not None:
                    self._make_change(state)
                self._act(state, holding)
                # The next move waits for the table to have taken this one (a dealer who acts
                # on a screen that is not yet updated is out of step, not the table).
                self._wait(lambda s, before=state: _moved_on(s, before))
                continue
            if state.stage == "dealing":
                self._place("burn", cards.pop())
                for _ in range(1 if state.board else 3):
                    self._place("board", cards.pop())
            elif state.stage == "showdown":
                self._press(self.panel.confirm)
            self._wait(lambda s, before=state: s != before)
        if self.chip_reader is not None:  # the pot goes to the winner, the bets back home
            self._sweep(self.watch.last)
            self._to_case(self._take("pot"))
        for antenna, uid in list(self.placed):
            self.reader.remove(antenna, uid)
        self.placed.clear()

    def _act(self, state: TableState, holding: dict[int, list[str]]) -> None:
        seat = state.actor
        assert seat is not None
        doubt = f"seat {seat}:"
        if state.waiting_for.startswith(doubt):
            self._press(self.panel.confirm)  # the rules left a doubt: the dealer decides
            self._wait(lambda s: not s.waiting_for.startswith(doubt))
            return
        roll = self.rng.random()
        if state.to_call and roll < 0.25:
            for card in holding[seat]:
                self._move(card, f"seat:{seat}", "muck")
                break
            return
        if not state.to_call and roll < 0.55:
            self._press(self.panel.confirm)
            return
        view = state.seats[seat]
        if self.chip_reader is None:
            return self._declare_act(state, seat, roll)
        if state.min_raise_to and roll > 0.8:
            amount = state.min_raise_to - view.bet  # a raise, in one motion
        else:
            amount = state.to_call or 0
        if not amount:
            self._press(self.panel.confirm)
            return
        amount = min(amount, view.stack)
        chips = self._oversized(amount, view.stack) if 0.45 < roll < 0.55 else None
        self.zone_street = state.street
        if chips:
            self.change_due[f"seat:{seat}"] = chips[0][1] - amount
        self._push(f"seat:{seat}", chips or self._pick(amount))

    def _declare_act(self, state: TableState, seat: int, roll: float) -> None:
        """A table without chip readers: the dealer types the bets in."""
        if state.min_raise_to and roll > 0.85:
            self.service.submit(DeclareEvent(seat=seat, action="raise" if state.to_call else
                                             "bet", amount=state.min_raise_to))
            return
        self.service.submit(DeclareEvent(seat=seat, action="call" if state.to_call else
                                         "check"))


def _moved_on(state: TableState, before: TableState) -> bool:
    """The table took the acting seat's move: another seat acts, the round or the hand moved
    on, or the rules ask the dealer about it (a doubt: "seat N: ...")."""
    return (state.hand != before.hand or state.stage != before.stage
            or state.street != before.street or state.actor != before.actor
            or state.waiting_for.startswith(f"seat {before.actor}:"))


def _deal_order(dealt: list[int], button: int) -> list[int]:
    after = [s for s in dealt if s > button] + [s for s in dealt if s <= button]
    return after
