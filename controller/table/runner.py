"""`pokertable table`: a table service wired to its readers and buttons (or to simulators).

With ``--simulate`` every configured reader is replaced by a simulator writing the real protocol
into a pty, the buttons run on gpiozero's mock pins, and a simulated dealer plays hands through
them: presses shuffle, pitches cards onto the seat antennas, folds by pushing cards to the muck
antenna, checks with the confirm key, and the players bet by pushing chip tags into their betting
zones (sometimes one oversized chip, which the dealer confirms and changes); the dealer sweeps
the bets into the pot zone after each round. The table itself runs exactly as on a Pi.
"""

from __future__ import annotations

import contextlib
import logging
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

from gpiozero.pins.mock import MockFactory

from controller.engine.records import HandRecord
from controller.events import DeclareEvent
from controller.mqtt.client import load_login
from controller.mqtt.link import TableLink
from controller.mqtt.outbox import Outbox
from controller.session import SessionConfig
from controller.session.outputs import Leds, PublicEvent, Sink, TableState
from controller.table.config import ReaderSection, TableConfig
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import FileSink, MemorySink
from drivers.buttons import ButtonPanel, PanelConfig, require_gpio
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck, load_chips, load_deck, save
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice, press
from drivers.tag_reader import TagReader

log = logging.getLogger(__name__)

DEMO_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "board", 12: "muck", 0: "burn"}
DEMO_CHIP_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "pot"}
# The simulated chip case: enough tagged chips of each value for every bet of the demo.
DEMO_CHIPS = {5000: 16, 1000: 60, 500: 30, 100: 80, 25: 40, 5: 30, 1: 30}
DEMO_PANEL = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23, led_hand_for_hand=5,
                         led_clock=6, led_irregularity=13, shuffle_guard=0.3)


class TeeSink:
    """The table's outputs (files, MQTT), plus a memory of recent states for the simulated
    dealer to watch."""

    def __init__(self, outputs: list[Sink], watch: MemorySink) -> None:
        self.outputs, self.watch = outputs, watch

    def state(self, state: TableState) -> None:
        for out in self.outputs:
            out.state(state)
        self.watch.state(state)
        del self.watch.states[:-5]

    def event(self, event: PublicEvent) -> None:
        for out in self.outputs:
            out.event(event)

    def record(self, record: HandRecord) -> None:
        for out in self.outputs:
            out.record(record)

    def recovered(self, events: list[PublicEvent]) -> None:
        for out in self.outputs:
            out.recovered(events)


def demo_deck() -> Deck:
    return Deck(name="demo", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})


def demo_chips() -> ChipSet:
    values = [value for value, count in DEMO_CHIPS.items() for _ in range(count)]
    return ChipSet(name="demo", chips={f"05{k:012X}": v for k, v in enumerate(values)})


def run_table(config: TableConfig, *, simulate: bool = False, stdin_events: bool = False,
              hands: int = 0, echo: TextIO | None = None, seed: int = 1) -> int:
    """Run until SIGTERM/SIGINT, the end of stdin (``stdin_events``) or ``hands`` simulated
    hands."""
    if config.buttons is not None and not simulate:
        require_gpio(config.buttons.pin_factory)  # before anything is written
    journal = Journal(config.table.journal, keep_hands=config.table.keep_hands)
    files = FileSink(config.table.output, echo=echo)
    watch = MemorySink()
    outputs: list[Sink] = [files]
    stop = threading.Event()
    dealer: SimulatedDealer | None = None
    with contextlib.ExitStack() as stack:
        stack.callback(files.close)
        link = _mqtt_link(config, stack)
        if link is not None:
            outputs.append(link)
        sink = TeeSink(outputs, watch)
        panel_holder: list[ButtonPanel] = []

        def show_leds(leds: Leds) -> None:
            if panel_holder:
                panel_holder[0].show(**leds.model_dump())

        factory = MockFactory() if simulate else None
        readers = list(config.readers)
        simulators: dict[str, SimulatedPt1Reader] = {}
        if simulate:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            readers, simulators = _simulated_readers(readers, tmp, stack)
        registries = {reader.name: _registries(reader, simulate) for reader in readers}
        decks = {name: deck for name, (deck, _) in registries.items() if deck is not None}
        chip_sets = {name: chips for name, (_, chips) in registries.items() if chips is not None}
        service = TableService(_session_config(config, chip_sets), journal, sink,
                               leds=show_leds)
        stack.callback(service.close)
        service.start()
        if link is not None:
            link.start(service.submit)
            stack.callback(link.close)  # before the service stops: says offline first
        for reader in readers:
            deck, chips = registries[reader.name]
            stack.enter_context(TagReader(reader, service.submit, deck=deck, chips=chips))
        panel_config = config.buttons or (DEMO_PANEL if simulate else None)
        if panel_config is not None:
            if simulate:
                panel_config = panel_config.model_copy(update={"pin_factory": "mock"})
            panel = stack.enter_context(ButtonPanel(panel_config, service.submit,
                                                    pin_factory=factory))
            panel_holder.append(panel)
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(ValueError):  # not the main thread (tests)
                signal.signal(signum, lambda *_: stop.set())
        if stdin_events:
            threading.Thread(target=_read_stdin, args=(service, stop), daemon=True).start()
        if simulate:
            assert factory is not None and panel_config is not None
            dealer = SimulatedDealer(config, service, watch, simulators, decks, chip_sets,
                                     factory, panel_config, random.Random(seed))
            threading.Thread(target=dealer.play, args=(hands, stop), daemon=True).start()
        while not stop.wait(0.2):
            pass
        # A clean stop: the last hand is sealed and, with a broker, handed to the recorder
        # before the link says offline (RULES H3; nothing left unrecorded).
        service.seal_last_hand()
        if link is not None and link.connected.is_set() and not link.wait_delivered(5.0):
            log.warning("table %s: %d messages wait in the outbox for the next start",
                        config.table.id, link.outbox.count_pending())
    if dealer is not None and dealer.failure is not None:
        print(f"pokertable table: {dealer.failure}", file=sys.stderr)
        return 1
    return 0


def _session_config(config: TableConfig, chip_sets: dict[str, ChipSet]) -> SessionConfig:
    """The session's settings. Split pots pay in the smallest chip in play (RULES S2, PVB 62):
    the configured level's, or else the smallest of the table's registered chips; a colour-up
    changes it later through the clock's level."""
    session = config.session()
    values = [v for chips in chip_sets.values() for v in chips.chips.values()]
    if values and session.level.smallest_chip == 1:
        level = session.level.model_copy(update={"smallest_chip": min(values)})
        session = session.model_copy(update={"level": level})
    return session


def _mqtt_link(config: TableConfig, stack: contextlib.ExitStack) -> TableLink | None:
    if config.mqtt is None:
        return None
    m = config.mqtt
    login = load_login(m.credentials, m.client or f"table-{config.table.id}")
    outbox = Outbox(m.outbox)
    stack.callback(outbox.close)
    return TableLink(m, login, config.table.id, outbox)


def _read_stdin(service: TableService, stop: threading.Event) -> None:
    for line in sys.stdin:
        if line.strip():
            service.submit_line(line)
    stop.set()


def _registries(reader: ReaderSection, simulate: bool) -> tuple[Deck | None, ChipSet | None]:
    if simulate:  # the simulated deck and chip case, registered where the configuration says
        for path, registry in ((reader.deck, demo_deck()), (reader.chips, demo_chips())):
            if path is not None and not path.exists():
                save(registry, path)
                log.info("simulated %s written to %s", type(registry).__name__.lower(), path)
    deck = load_deck(reader.deck) if reader.deck else None
    chips = load_chips(reader.chips) if reader.chips else None
    if simulate and reader.reads == "cards" and deck is None:
        deck = demo_deck()
    if simulate and reader.reads == "chips" and chips is None:
        chips = demo_chips()
    return deck, chips


def _simulated_readers(
    readers: list[ReaderSection], tmp: Path, stack: contextlib.ExitStack
) -> tuple[list[ReaderSection], dict[str, SimulatedPt1Reader]]:
    if not readers:  # a demo table: a card reader (seats, board, muck, burn) and chip zones
        readers = [ReaderSection(name="cards", url="sim", protocol="pt1", zones=DEMO_ZONES),
                   ReaderSection(name="chips", url="sim", protocol="pt1", reads="chips",
                                 zones=DEMO_CHIP_ZONES, settle=0.15)]
    out: list[ReaderSection] = []
    simulators: dict[str, SimulatedPt1Reader] = {}
    for reader in readers:
        device = VirtualSerialDevice(tmp / f"usb-sim-{reader.name}")
        stack.callback(device.close)
        simulator = SimulatedPt1Reader(device, antennas=max(reader.zones) + 1, repeat=0.1)
        stack.callback(simulator.close)
        simulators[reader.name] = simulator
        out.append(reader.model_copy(update={"url": str(device.path), "protocol": "pt1"}))
    return out, simulators


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
