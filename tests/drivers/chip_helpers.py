"""A reader of chips on a simulated bus, in virtual time, for the chip drivers' tests."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from controller.events import Emit, TableEvent
from drivers.chip_reader import ChipReader
from drivers.reader_config import ReaderConfig
from drivers.registry import REGISTRATION_ORDER, ChipSet, Deck
from drivers.scan import VirtualClock
from drivers.simulated.readers import SimulatedReader

DECK = Deck(name="t", cards={f"04{k:012X}": c for k, c in enumerate(REGISTRATION_ORDER)})
UID_OF = {card: uid for uid, card in DECK.cards.items()}
CHIPS = ChipSet(name="t", chips={f"E0040150{k:08X}": 100 for k in range(200)})
CHIP_UIDS = list(CHIPS.chips)

CARD_ZONES = {0: "burn", 11: "board", 12: "muck"} | {s: f"seat:{s}" for s in range(1, 11)}
CHIP_ZONES = {s: f"seat:{s}" for s in range(1, 11)} | {11: "pot"}


def cards_config(**changes: object) -> ReaderConfig:
    fields: dict[str, object] = {
        "name": "cards", "url": "/dev/spidev0.0", "protocol": "mfrc522", "zones": CARD_ZONES,
        "selects": {a: a for a in CARD_ZONES},
        "decoder": {"address": [4, 7, 8, 12], "enable": 16}}
    return ReaderConfig.model_validate(fields | changes)


def chips_config(**changes: object) -> ReaderConfig:
    fields: dict[str, object] = {
        "name": "chips", "url": "/dev/spidev1.0", "protocol": "pn5180", "reads": "chips",
        "zones": CHIP_ZONES, "selects": {a: a for a in CHIP_ZONES},
        "decoder": {"address": [2, 3, 24, 25], "enable": 26}, "busy": 15}
    return ReaderConfig.model_validate(fields | changes)


class Table:
    """A reader and its simulator, stepped in virtual time by the test."""

    def __init__(self, config: ReaderConfig, chip_set: ChipSet | None = None,
                 placed: dict[int, list[str]] | None = None, also: Emit | None = None,
                 **simulate: object) -> None:
        """``placed``: tags already on antennas when the reader opens (a restart); ``also``:
        where the events go besides ``events`` (a table service)."""
        self.clock = VirtualClock(100.0)
        self.factory = MockFactory()
        self.sim = SimulatedReader(config, self.factory, self.clock, **simulate)  # type: ignore[arg-type]
        for antenna, uids in (placed or {}).items():
            self.sim.field.place_many(antenna, uids)
        self.events: list[TableEvent] = []
        def emit(event: TableEvent) -> None:
            self.events.append(event)
            if also is not None:
                also(event)

        self.reader = ChipReader(config, emit, self.sim.connect,
                                 deck=DECK if config.reads == "cards" else None,
                                 chips=(chip_set or CHIPS) if config.reads == "chips" else None,
                                 clock=self.clock)
        assert self.reader.open()

    def run(self, seconds: float) -> None:
        end = self.clock.now() + seconds
        while self.clock.now() < end:
            self.reader.step(0.01)

    def of(self, kind: str) -> list[TableEvent]:
        return [e for e in self.events if e.type == kind]

    def close(self) -> None:
        self.reader.close()
        self.factory.reset()
