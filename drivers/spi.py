"""The Pi's SPI bus and the chip selects of the reader modules on it.

One SPI bus (``/dev/spidev0.0``) carries many reader modules, one per antenna; each module's chip
select comes from GPIO, either straight from a pin or, where a table has more modules than the Pi
has free pins, from one output of a 74HC154 4-to-16 line decoder whose address and enable pins
are on GPIO (docs/hardware.md). The kernel's own chip select is not used (``SPI_NO_CS``).

`LinuxSpi` speaks to the kernel's spidev driver with the ioctl the C library would use: no
compiled module is needed on the Pi. Tests and ``--simulate`` put a simulated bus in its place
(`drivers.simulated.spi_bus`); the chip selects are real gpiozero devices on either.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import struct
import threading
from typing import Protocol

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory
from pydantic import BaseModel, ConfigDict, Field, field_validator

_IOC_WRITE = 1
_SPI_MAGIC = ord("k")


def _iow(number: int, size: int) -> int:
    return (_IOC_WRITE << 30) | (size << 16) | (_SPI_MAGIC << 8) | number


SPI_IOC_MESSAGE_1 = _iow(0, 32)  # one struct spi_ioc_transfer
SPI_IOC_WR_MODE = _iow(1, 1)
SPI_IOC_WR_BITS_PER_WORD = _iow(3, 1)
SPI_IOC_WR_MAX_SPEED_HZ = _iow(4, 4)
SPI_MODE_0 = 0x00
SPI_NO_CS = 0x40  # the module's chip select is ours, from GPIO
_TRANSFER = struct.Struct("=QQIIHBBBBBB")  # struct spi_ioc_transfer, 32 bytes
MAX_TRANSFER = 4096  # spidev's default buffer


class SpiError(OSError):
    """The SPI device cannot be used: missing (SPI not enabled), not permitted, or it failed."""


class SpiBus(Protocol):
    """Full-duplex transfers: as many bytes come back as were sent."""

    def transfer(self, data: bytes) -> bytes: ...

    def close(self) -> None: ...


class LinuxSpi:
    """``/dev/spidevB.C`` through the kernel's spidev ioctls (mode 0, 8 bits, no kernel CS)."""

    def __init__(self, path: str, speed_hz: int) -> None:
        self.path, self.speed_hz = path, speed_hz
        try:
            self._fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            lines = ("'dtoverlay=spi1-1cs,cs0_pin=18'" if "spidev1" in path
                     else "'dtparam=spi=on' and 'dtoverlay=spi0-0cs'")
            raise SpiError(f"{path} does not exist: its SPI bus is not enabled on this Pi. Add "
                           f"{lines} to /boot/firmware/config.txt (`pokertable install table` "
                           "does) and reboot") from None
        except PermissionError:
            raise SpiError(f"{path}: permission denied: the table's user must be in the 'spi' "
                           "group (`pokertable install table` puts it there)") from None
        except OSError as exc:
            raise SpiError(f"{path}: {exc.strerror or exc}") from None
        try:
            fcntl.ioctl(self._fd, SPI_IOC_WR_MODE, struct.pack("=B", SPI_MODE_0 | SPI_NO_CS))
            fcntl.ioctl(self._fd, SPI_IOC_WR_BITS_PER_WORD, struct.pack("=B", 8))
            fcntl.ioctl(self._fd, SPI_IOC_WR_MAX_SPEED_HZ, struct.pack("=I", speed_hz))
        except OSError as exc:
            os.close(self._fd)
            raise SpiError(f"{path} is not an SPI device ({exc.strerror or exc})") from None

    def transfer(self, data: bytes) -> bytes:
        if len(data) > MAX_TRANSFER:
            raise ValueError(f"one SPI transfer is at most {MAX_TRANSFER} bytes")
        tx = ctypes.create_string_buffer(bytes(data), len(data))
        rx = ctypes.create_string_buffer(len(data))
        request = _TRANSFER.pack(ctypes.addressof(tx), ctypes.addressof(rx), len(data),
                                 self.speed_hz, 0, 8, 0, 0, 0, 0, 0)
        try:
            fcntl.ioctl(self._fd, SPI_IOC_MESSAGE_1, request)
        except OSError as exc:
            raise SpiError(f"{self.path}: transfer failed ({exc.strerror or exc})") from None
        return rx.raw

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


class DecoderConfig(BaseModel):
    """A 74HC154 (4-to-16 line decoder) making chip selects: its address inputs A0..A3 and its
    enable (G1 and G2 tied together), BCM pin numbers. Output line N is low while the address
    is N and the enable is low: the module wired to it is selected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: list[int] = Field(min_length=1, max_length=4, description="A0 first")
    enable: int = Field(ge=0, le=27)

    @field_validator("address")
    @classmethod
    def _pins(cls, pins: list[int]) -> list[int]:
        if any(not 0 <= pin <= 27 for pin in pins) or len(set(pins)) != len(pins):
            raise ValueError("the address pins are different BCM pins 0 to 27")
        return pins

    @property
    def lines(self) -> int:
        return 1 << len(self.address)


class ChipSelects:
    """Every module's chip select on one bus, as gpiozero output devices: all released (high)
    at rest, one selected (low) during its transfer."""

    def __init__(self, factory: Factory | None, decoder: DecoderConfig | None,
                 selects: dict[int, int]) -> None:
        self._devices: list[DigitalOutputDevice] = []
        self.decoder = decoder
        self._line_of = dict(selects)  # antenna -> pin (or the decoder's output line)
        # The devices own the pins; every transfer drives the pins themselves (gpiozero's
        # Pin.state): the device layer's locking and blink handling cost more than a transfer.
        if decoder is None:
            self._pins = {antenna: self._output(pin, factory, active_low=True).pin
                          for antenna, pin in selects.items()}
            return
        self._address = [self._output(pin, factory).pin for pin in decoder.address]
        self._current = -1  # the address on the decoder's inputs (-1: not set yet)
        self._enable = self._output(decoder.enable, factory, active_low=True).pin

    def _output(self, pin: int, factory: Factory | None,
                active_low: bool = False) -> DigitalOutputDevice:
        device = DigitalOutputDevice(pin, active_high=not active_low, initial_value=False,
                                     pin_factory=factory)
        self._devices.append(device)
        return device

    def select(self, antenna: int) -> None:
        if self.decoder is None:
            self._pins[antenna].state = 0
            return
        line = self._line_of[antenna]
        if line != self._current:  # only the address bits that change
            for bit, pin in enumerate(self._address):
                value = (line >> bit) & 1
                if self._current < 0 or value != (self._current >> bit) & 1:
                    pin.state = value
            self._current = line
        self._enable.state = 0

    def release(self, antenna: int) -> None:
        if self.decoder is None:
            self._pins[antenna].state = 1
        else:
            self._enable.state = 1

    def close(self) -> None:
        for device in self._devices:
            with contextlib.suppress(Exception):  # closing never fails a stop
                device.close()


class SpiModules:
    """One bus with its modules' chip selects: `exchange` selects a module, transfers, releases.
    A lock keeps two threads (a bring-up check beside the table) from sharing one transfer."""

    def __init__(self, bus: SpiBus, selects: ChipSelects) -> None:
        self.bus, self.selects = bus, selects
        self._lock = threading.Lock()

    def exchange(self, antenna: int, data: bytes) -> bytes:
        with self._lock:
            self.selects.select(antenna)
            try:
                return self.bus.transfer(data)
            finally:
                self.selects.release(antenna)

    def close(self) -> None:
        self.selects.close()
        self.bus.close()
