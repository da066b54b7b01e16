"""A simulated SPI bus: the modules on it, each behind the chip-select wire it is really
connected to (a GPIO pin, or a 74HC154 decoder's output), read on gpiozero's mock pins as the
driver drives them. With a `VirtualClock` every transfer takes the time it takes on the wire
(8 bits per byte at the bus speed, plus the kernel's per-transfer cost), so the benchmarks
measure scan times as a Pi would see them."""

from __future__ import annotations

import time
from typing import Protocol

from gpiozero.pins.mock import MockFactory, MockPin

from drivers.scan import Clock, VirtualClock

TRANSFER_OVERHEAD = 20e-6  # s per ioctl on a Pi 4, an estimate (docs/hardware.md)


class SimulatedChip(Protocol):
    def exchange(self, data: bytes) -> bytes: ...

    def deselected(self) -> None: ...


class WirePin(MockPin):  # type: ignore[misc]
    """A mock pin that keeps no history: a chip select changes thousands of times a second,
    and gpiozero's MockPin lists every change (a demo would grow by gigabytes an hour)."""

    _state: bool

    def _change_state(self, value: bool) -> bool:
        if self._state == value:
            return False
        self._state = value
        return True


class GpioWire:
    """A chip select straight from a GPIO pin (low selects)."""

    def __init__(self, factory: MockFactory, pin: int) -> None:
        self.pin = factory.pin(pin, pin_class=WirePin)

    def selected(self) -> bool:
        return self.pin.function == "output" and not self.pin.state


class Decoder:
    """A 74HC154 on mock pins: which output line is low now (None: the enable is high)."""

    def __init__(self, factory: MockFactory, address: list[int], enable: int) -> None:
        self.address = [factory.pin(p, pin_class=WirePin) for p in address]
        self.enable = factory.pin(enable, pin_class=WirePin)

    def active(self) -> int | None:
        if self.enable.function != "output" or self.enable.state:
            return None
        return sum(1 << k for k, pin in enumerate(self.address)
                   if pin.function == "output" and pin.state)


class DecoderWire:
    """One output of a 74HC154: low while the enable is low and the address is this line."""

    def __init__(self, decoder: Decoder, line: int) -> None:
        self.decoder, self.line = decoder, line

    def selected(self) -> bool:
        return self.decoder.active() == self.line


class Wire(Protocol):
    def selected(self) -> bool: ...


class SimulatedSpiBus:
    """Implements the driver's `SpiBus`."""

    def __init__(self, clock: Clock, *, speed_hz: int = 4_000_000, idle: int = 0x00) -> None:
        self.clock, self.speed_hz, self.idle = clock, speed_hz, idle
        self.chips: list[tuple[Wire, SimulatedChip]] = []
        self.transfers = 0
        self.busy_seconds = 0.0  # the simulator's own CPU time, for the benchmarks to subtract
        self.broken = False  # SPI wires off: every read 0x00

    def attach(self, wire: Wire, chip: SimulatedChip) -> None:
        self.chips.append((wire, chip))

    def transfer(self, data: bytes) -> bytes:
        started = time.thread_time()
        self.transfers += 1
        if isinstance(self.clock, VirtualClock):
            self.clock.advance(len(data) * 8 / self.speed_hz + TRANSFER_OVERHEAD)
        lines: dict[int, int | None] = {}  # each decoder read once per transfer
        chosen = []
        for wire, chip in self.chips:
            if isinstance(wire, DecoderWire):
                key = id(wire.decoder)
                if key not in lines:
                    lines[key] = wire.decoder.active()
                if lines[key] == wire.line:
                    chosen.append(chip)
            elif wire.selected():
                chosen.append(chip)
        if self.broken or not chosen:
            reply = bytes([self.idle]) * len(data)  # nobody drives MISO
        elif len(chosen) > 1:  # two modules selected at once drive MISO against each other
            replies = [chip.exchange(data) for chip in chosen]
            reply = bytes(a & b for a, b in zip(*replies, strict=False))
        else:
            reply = chosen[0].exchange(data)
        for chip in chosen:  # its chip select goes high again: the end of a frame
            chip.deselected()
        self.busy_seconds += time.thread_time() - started
        return reply

    def close(self) -> None:
        """The bus outlives its drivers (a restarted reader finds it again)."""
