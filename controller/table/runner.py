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
import functools
import logging
import random
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from gpiozero.pins import Factory

from controller.engine.records import HandRecord
from controller.mqtt.client import Login
from controller.mqtt.link import TableLink
from controller.mqtt.outbox import Outbox
from controller.service.manager import Watchdog, notify
from controller.session import SessionConfig
from controller.session.outputs import Leds, PublicEvent, Sink, TableState
from controller.table.config import ReaderSection, TableConfig, reader_pins
from controller.table.files import existing_registries, mqtt_login, read_registries
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import FileSink, MemorySink
from controller.table.upgrade import UpgradeWatch
from drivers.buttons import ButtonPanel, make_pin_factory, require_gpio
from drivers.chip_reader import ChipReader, open_chips
from drivers.reader_config import POLLED
from drivers.registry import ChipSet, Deck
from drivers.scan import RealClock
from drivers.tag_reader import TagReader

if TYPE_CHECKING:  # the simulation wing, imported only by --simulate (controller/sim/)
    from controller.sim.dealer import FeltSeen, SimulatedDealer
    from drivers.simulated.field import Antennas
    from drivers.simulated.readers import SimulatedReader

log = logging.getLogger(__name__)

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


def run_table(config: TableConfig, *, simulate: bool = False, stdin_events: bool = False,
              hands: int = 0, echo: TextIO | None = None, seed: int = 1,
              tournament: bool = False, sim_readers: str = "pt1") -> int:
    """Run until SIGTERM/SIGINT, the end of stdin (``stdin_events``) or ``hands`` simulated
    hands. ``tournament``: the simulated dealer seats nobody; the tournament does.
    ``sim_readers``: the simulated readers of a table configured without any (`pokertable
    table --sim-readers`)."""
    if config.buttons is not None and not simulate:
        require_gpio(config.buttons.pin_factory)  # before anything is written
    login = mqtt_login(config)  # its files too: a missing one is one line, nothing written
    # the decks and chip sets too (a simulation's demo ones, for the simulated readers, come
    # below: those already there are read now, and refused before anything is written)
    registries = {r.name: _registries(r, False, only_existing=simulate) for r in config.readers}
    journal = Journal(config.table.journal, keep_hands=config.table.keep_hands)
    files = FileSink(config.table.output, echo=echo,
                     events_max_bytes=config.table.events_max_bytes,
                     events_keep=config.table.events_keep)
    watch = MemorySink()
    outputs: list[Sink] = [files]
    stop = threading.Event()
    dealer: SimulatedDealer | None = None
    with contextlib.ExitStack() as stack:
        stack.callback(files.close)
        link = _mqtt_link(config, login, stack)
        if link is not None:
            outputs.append(link)
        sink = TeeSink(outputs, watch)
        panel_holder: list[ButtonPanel] = []

        def show_leds(leds: Leds) -> None:
            if panel_holder:
                panel_holder[0].show(**leds.model_dump())

        readers = list(config.readers)
        antennas: dict[str, Antennas] = {}
        chip_level: dict[str, SimulatedReader] = {}
        factory: Factory | None
        seen: FeltSeen | None = None
        if simulate:  # (the simulation wing: imported only when asked for)
            from controller.sim import table_rig as rig
            from controller.sim.dealer import FeltSeen, on_hardware

            factory = rig.MockFactory()
            seen = FeltSeen()  # what the readers tell the table, for the dealer's hands
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            readers, antennas, chip_level = rig.simulated_readers(readers, tmp, stack,
                                                                  factory, sim_readers)
        else:
            factory = pin_factory_of(config)
        if simulate:
            registries = {reader.name: _registries(reader, True) for reader in readers}
        decks = {name: deck for name, (deck, _) in registries.items() if deck is not None}
        chip_sets = {name: chips for name, (_, chips) in registries.items() if chips is not None}
        service = TableService(_session_config(config, chip_sets), journal, sink,
                               leds=show_leds)
        stack.callback(service.close)
        service.start()
        if link is not None:
            link.start(service.submit)
            stack.callback(link.close)  # before the service stops: says offline first
        emit = service.submit if seen is None else seen.tee(service.submit)
        for reader in readers:
            deck, chips = registries[reader.name]
            if reader.protocol in POLLED:  # reader chips, polled
                simulated = chip_level.get(reader.name)
                connect = simulated.connect if simulated else functools.partial(
                    open_chips, reader, RealClock(), pin_factory=factory)
                stack.enter_context(ChipReader(reader, emit, connect, deck=deck, chips=chips))
            else:  # a serial line that reports by itself
                stack.enter_context(TagReader(reader, emit, deck=deck, chips=chips))
        panel_config = config.buttons or (
            rig.demo_panel(reader_pins(config)) if simulate else None)
        if panel_config is not None:
            if simulate:
                panel_config = panel_config.model_copy(update={"pin_factory": "mock"})
            panel = stack.enter_context(ButtonPanel(panel_config, service.submit,
                                                    pin_factory=factory))
            panel_holder.append(panel)
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(ValueError):  # not the main thread (tests)
                signal.signal(signum, lambda *_: stop.set())
        playing: threading.Thread | None = None
        if stdin_events:
            threading.Thread(target=_read_stdin, args=(service, stop), daemon=True).start()
        if simulate:
            assert factory is not None and panel_config is not None
            dealer = on_hardware(config, readers, service, watch, antennas, decks, chip_sets,
                                 factory, panel_config, random.Random(seed), stop, seen)
            dealer.seated_by_floor = tournament
            playing = threading.Thread(target=dealer.play, args=(hands, stop), daemon=True)
            playing.start()
        watchdog = Watchdog(service.loops())
        upgrades = UpgradeWatch(config.table.journal.parent, service)
        notify("READY=1", f"STATUS=table {config.table.id}: playing")
        while not stop.wait(0.2):
            watchdog.tick()
            upgrades.tick()
        notify("STOPPING=1", f"STATUS=table {config.table.id}: sealing the last hand")
        if playing is not None:  # the dealer puts its hands down (it says how many it played)
            playing.join(5.0)
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


def _mqtt_link(config: TableConfig, login: Login | None, stack: contextlib.ExitStack
               ) -> TableLink | None:
    if config.mqtt is None or login is None:
        return None
    m = config.mqtt
    outbox = Outbox(m.outbox)
    stack.callback(outbox.close)
    return TableLink(m, login, config.table.id, outbox)


def _read_stdin(service: TableService, stop: threading.Event) -> None:
    for line in sys.stdin:
        if line.strip():
            service.submit_line(line)
    stop.set()


def _registries(reader: ReaderSection, simulate: bool, *,
                only_existing: bool = False) -> tuple[Deck | None, ChipSet | None]:
    """The reader's deck and chip set from their files (`read_registries`: refused in one line
    when they cannot be read or the reader's chip cannot read their tags). Simulated: where a
    file is not there, a demo deck or chip set with tags the simulated chip reads, kept in
    memory. Nothing is written where the configuration names them: a rehearsal on the table's
    own configuration left a demo deck there, which then passed for the registered one (the
    table started, and would have read every real card as foreign). ``only_existing``: the
    files that are there (a simulation's check before it starts)."""
    if only_existing or simulate:
        reader = existing_registries(reader)
    deck, chips = read_registries(reader, required=not (only_existing or simulate))
    if simulate:
        from controller.sim.table_rig import demo_chips, demo_deck

        if reader.reads == "cards" and deck is None:
            deck = demo_deck(reader.protocol)
            log.info("%s: no registered deck: the simulation deals its demo deck (written "
                     "nowhere)", reader.name)
        if reader.reads == "chips" and chips is None:
            chips = demo_chips(reader.protocol)
            log.info("%s: no registered chip set: the simulation uses its demo chips (written "
                     "nowhere)", reader.name)
    return deck, chips


def pin_factory_of(config: TableConfig) -> Factory | None:
    """The GPIO pin factory the readers' chip selects share with the buttons (None: gpiozero's
    default). Where the configured factory's library is missing (lgpio off a Pi), the one-line
    `ConfigError` the table itself gives, not the import's traceback."""
    if config.buttons is None:
        return None
    if config.buttons.pin_factory == "lgpio":
        require_gpio("lgpio")
    return make_pin_factory(config.buttons.pin_factory)
