"""A configured reader, simulated at the chip level: its modules on a simulated SPI bus behind
the chip-select wires they are really connected to (which may differ from the configuration: a
wiring mistake for the bring-up check to find), or a PN532 behind a pty. The real driver opens it
through `drivers.chip_reader.open_chips`, exactly as on a Pi, but for the bus itself.
"""

from __future__ import annotations

import random
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from drivers.chip_reader import OpenedChips, open_chips
from drivers.reader_config import ReaderConfig
from drivers.scan import Clock
from drivers.simulated.field import TagField
from drivers.simulated.mfrc522 import SimulatedMfrc522
from drivers.simulated.pn5180 import BusyPin, SimulatedPn5180
from drivers.simulated.spi_bus import Decoder, DecoderWire, GpioWire, SimulatedSpiBus, Wire
from drivers.simulators import VirtualSerialDevice

SimulatedChip = SimulatedMfrc522 | SimulatedPn5180


class SimulatedReader:
    """``field`` is where the dealer's hands put the tags; ``chips`` the simulated modules by
    the antenna they lie under; ``config`` the configuration the driver is to open."""

    def __init__(self, config: ReaderConfig, factory: MockFactory, clock: Clock, *,
                 tmp: Path | None = None, wiring: dict[int, int] | None = None,
                 missing: tuple[int, ...] = (), miss: float = 0.0, seed: int = 0) -> None:
        self.factory, self.clock = factory, clock
        self.field = TagField(clock.now)
        self.chips: dict[int, object] = {}
        self.bus: SimulatedSpiBus | None = None
        self._decoder: Decoder | None = None
        self._closers: list[object] = []
        self.config = config
        rng = random.Random(seed)
        if config.protocol == "pn532":
            from drivers.simulated.pn532 import SimulatedPn532

            assert tmp is not None, "a simulated PN532 needs a directory for its pty"
            device = VirtualSerialDevice(tmp / f"usb-sim-{config.name}")
            module = SimulatedPn532(device, self.field, 0, miss=miss, rng=rng)
            module.start()
            self.chips[0] = module
            self._closers += [module, device]
            self.config = config.model_copy(update={"url": str(device.path)})
            return
        self.bus = SimulatedSpiBus(clock, speed_hz=config.speed_hz)
        busy: BusyPin | None = None
        if config.protocol == "pn5180":
            assert config.busy is not None
            busy = factory.pin(config.busy, pin_class=BusyPin)
        lines = dict(config.selects) | (wiring or {})  # the wires as they really are
        for antenna, line in sorted(lines.items()):
            if antenna in missing:
                continue  # a module that is not there at all
            chip: SimulatedChip
            if config.protocol == "mfrc522":
                chip = SimulatedMfrc522(self.field, antenna, clock, miss=miss,
                                        rng=random.Random(rng.random()))
            else:
                chip = SimulatedPn5180(self.field, antenna, clock, miss=miss,
                                       rng=random.Random(rng.random()))
                assert busy is not None
                busy.wire(chip)
            self.bus.attach(self._wire(line), chip)
            self.chips[antenna] = chip

    def _wire(self, line: int) -> Wire:
        decoder = self.config.decoder
        if decoder is None:
            return GpioWire(self.factory, line)
        if self._decoder is None:
            self._decoder = Decoder(self.factory, decoder.address, decoder.enable)
        return DecoderWire(self._decoder, line)

    def connect(self) -> OpenedChips:
        return open_chips(self.config, self.clock, pin_factory=self.factory, bus=self.bus)

    def close(self) -> None:
        for closer in self._closers:
            closer.close()  # type: ignore[attr-defined]
