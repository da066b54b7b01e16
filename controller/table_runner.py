"""`pokertable table`: a table service wired to its readers and buttons (or to simulators).

With ``--simulate`` every configured reader is replaced by a simulator writing the real protocol
into a pty, the buttons run on gpiozero's mock pins, and a simulated dealer plays hands through
them: presses shuffle, pitches cards onto the seat antennas, folds by pushing cards to the muck
antenna, checks with the confirm key and enters bets on the dealer console. The table itself runs
exactly as on a Pi.
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
from controller.journal import Journal
from controller.outputs import Leds, PublicEvent, TableState
from controller.service import TableService
from controller.sinks import FileSink, MemorySink
from controller.table_config import ReaderSection, TableConfig
from drivers.buttons import ButtonPanel, PanelConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck, load_chips, load_deck
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice, press
from drivers.tag_reader import TagReader

log = logging.getLogger(__name__)

DEMO_ZONES = {k: f"seat:{k}" for k in range(1, 11)} | {11: "board", 12: "muck", 0: "burn"}
DEMO_PANEL = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23, led_hand_for_hand=5,
                         led_clock=6, led_irregularity=13, shuffle_guard=0.3)


class TeeSink:
    """The file sink, plus a memory of recent states for the simulated dealer to watch."""

    def __init__(self, files: FileSink, watch: MemorySink) -> None:
        self.files, self.watch = files, watch

    def state(self, state: TableState) -> None:
        self.files.state(state)
        self.watch.state(state)
        del self.watch.states[:-5]

    def event(self, event: PublicEvent) -> None:
        self.files.event(event)

    def record(self, record: HandRecord) -> None:
        self.files.record(record)


def demo_deck() -> Deck:
    return Deck(name="demo", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})


def run_table(config: TableConfig, *, simulate: bool = False, stdin_events: bool = False,
              hands: int = 0, echo: TextIO | None = None, seed: int = 1) -> int:
    """Run until SIGTERM/SIGINT, the end of stdin (``stdin_events``) or ``hands`` simulated
    hands."""
    journal = Journal(config.table.journal, keep_hands=config.table.keep_hands)
    files = FileSink(config.table.output, echo=echo)
    watch = MemorySink()
    sink = TeeSink(files, watch)
    stop = threading.Event()
    with contextlib.ExitStack() as stack:
        stack.callback(files.close)
        panel_holder: list[ButtonPanel] = []

        def show_leds(leds: Leds) -> None:
            if panel_holder:
                panel_holder[0].show(**leds.model_dump())

        service = TableService(config.session(), journal, sink, leds=show_leds)
        stack.callback(service.close)
        service.start()
        factory = MockFactory() if simulate else None
        readers = list(config.readers)
        simulators: dict[str, SimulatedPt1Reader] = {}
        if simulate:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            readers, simulators = _simulated_readers(readers, tmp, stack)
        decks: dict[str, Deck] = {}
        for reader in readers:
            deck, chips = _registries(reader, simulate)
            if deck is not None:
                decks[reader.name] = deck
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
            dealer = SimulatedDealer(config, service, watch, simulators, decks, factory,
                                     panel_config, random.Random(seed))
            threading.Thread(target=dealer.play, args=(hands, stop), daemon=True).start()
        while not stop.wait(0.2):
            pass
    return 0


def _read_stdin(service: TableService, stop: threading.Event) -> None:
    for line in sys.stdin:
        if line.strip():
            service.submit_line(line)
    stop.set()


def _registries(reader: ReaderSection, simulate: bool) -> tuple[Deck | None, ChipSet | None]:
    deck = load_deck(reader.deck) if reader.deck else None
    chips = load_chips(reader.chips) if reader.chips else None
    if simulate and reader.reads == "cards" and deck is None:
        deck = demo_deck()
    return deck, chips


def _simulated_readers(
    readers: list[ReaderSection], tmp: Path, stack: contextlib.ExitStack
) -> tuple[list[ReaderSection], dict[str, SimulatedPt1Reader]]:
    if not readers:  # a demo table: one card reader, seats 1-10, board, muck and burn
        readers = [ReaderSection(name="cards", url="sim", protocol="pt1", zones=DEMO_ZONES)]
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
    watches the screen. Hole cards only ever travel as tags on antennas."""

    def __init__(self, config: TableConfig, service: TableService, watch: MemorySink,
                 simulators: dict[str, SimulatedPt1Reader], decks: dict[str, Deck],
                 factory: MockFactory, panel: PanelConfig, rng: random.Random) -> None:
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
        self.placed: list[tuple[int, str]] = []

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

    def play(self, hands: int, stop: threading.Event) -> None:
        try:
            self._seat_players()
            played = 0
            while not stop.is_set() and (hands == 0 or played < hands):
                self._play_hand()
                played += 1
        except TimeoutError as exc:
            log.error("simulated dealer stopped: %s", exc)
        finally:
            if hands:
                stop.set()

    def _seat_players(self) -> None:
        state = self.watch.last if self.watch.states else None
        if state is not None and len(state.seats) >= 2:
            return
        names = ["ana", "ben", "cem", "dora", "emil", "fay"]
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
            if state.stage == "betting" and state.actor is not None:
                self._act(state, holding)
            elif state.stage == "dealing":
                self._place("burn", cards.pop())
                for _ in range(1 if state.board else 3):
                    self._place("board", cards.pop())
            elif state.stage == "showdown":
                self._press(self.panel.confirm)
            self._wait(lambda s, before=state: s != before)
        for antenna, uid in list(self.placed):
            self.reader.remove(antenna, uid)
        self.placed.clear()

    def _act(self, state: TableState, holding: dict[int, list[str]]) -> None:
        seat = state.actor
        assert seat is not None
        roll = self.rng.random()
        if state.to_call and roll < 0.3:
            for card in holding[seat]:
                self._move(card, f"seat:{seat}", "muck")
                break
            return
        if not state.to_call and roll < 0.6:
            self._press(self.panel.confirm)
            return
        if state.min_raise_to and roll > 0.85:
            self.service.submit(DeclareEvent(seat=seat, action="raise" if state.to_call else
                                             "bet", amount=state.min_raise_to))
            return
        action = "call" if state.to_call else "check"
        self.service.submit(DeclareEvent(seat=seat, action=action))


def _deal_order(dealt: list[int], button: int) -> list[int]:
    after = [s for s in dealt if s > button] + [s for s in dealt if s <= button]
    return after
