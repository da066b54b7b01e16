"""One reader of a table's configuration (``[[readers]]`` in table.toml).

Two families:
- **reader chips** a venue buys on cheap modules, one per antenna, polled by the Pi: NXP MFRC522
  ("RC522") and PN5180 on the SPI bus with chip selects from GPIO (straight, or through a
  74HC154 decoder), NXP PN532 on a serial port (one module, one antenna);
- **serial line readers** that report by themselves: a multiplexing reader board speaking PT1
  (docs/hf-reader-protocol.md), and the 125 kHz RDM6300 (one tag at a time).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.events import ZONES
from drivers.protocols import DEFAULT_BAUD
from drivers.spi import DecoderConfig

Protocol = Literal["mfrc522", "pn5180", "pn532", "pt1", "rdm6300"]
SPI_CHIPS = ("mfrc522", "pn5180")
POLLED = ("mfrc522", "pn5180", "pn532")
# How many modules of a bus may have their field on at once: MFRC522 scans are short (5 ms of
# power-up, then a millisecond a card), PN5180 inventories long (4 ms a slot); the scheduler
# takes the ones running together from round the table, far apart (drivers/scan.py).
DEFAULT_PARALLEL = {"mfrc522": 3, "pn5180": 4, "pn532": 1}
# A card is read within about this of landing (a quick MFRC522 scan is one REQA); a chip zone
# is read again this often (a bet settles after R9's settle time anyway).
DEFAULT_PERIOD = {"mfrc522": 0.1, "pn5180": 0.2, "pn532": 0.1}


class ReaderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="e.g. 'cards' or 'chips'")
    url: str = Field(min_length=1, description="SPI device (/dev/spidev0.0) for MFRC522 and "
                     "PN5180; a pyserial URL or device path for PN532, PT1 and RDM6300")
    protocol: Protocol
    reads: Literal["cards", "chips"] = "cards"
    baudrate: int = Field(default=0, ge=0, description="serial readers: 0 is the protocol's")
    zones: dict[int, str] = Field(
        description="antenna -> zone ('seat:3', 'board', 'muck', 'burn', 'pot'); a PN532 or "
        "RDM6300 module is antenna 0")
    selects: dict[int, int] = Field(
        default_factory=dict, description="SPI readers: antenna -> its module's chip select, a "
        "GPIO (BCM) pin, or with `decoder` the decoder's output line")
    decoder: DecoderConfig | None = Field(default=None, description="a 74HC154 making the chip "
                                          "selects from four address pins and an enable")
    busy: int | None = Field(default=None, ge=0, le=27, description="PN5180: the GPIO the "
                             "modules' BUSY lines meet on (through diodes)")
    speed_hz: int = Field(default=4_000_000, ge=100_000, le=10_000_000,
                          description="SPI clock (MFRC522 up to 10 MHz, PN5180 up to 7 MHz)")
    parallel: int = Field(default=0, ge=0, le=16, description="modules scanning at once (0: the "
                          "chip's default)")
    scan_period: float = Field(default=0, ge=0, le=2, description="s: an antenna is scanned "
                               "again at most this often (0: the chip's default)")
    presence_timeout: float = Field(default=0.6, gt=0, description="s without a read: gone")
    settle: float = Field(default=0.4, gt=0, description="R9: s a chip zone must stay still")
    heartbeat_timeout: float = Field(default=3.0, gt=0, description="PT1: s without heartbeat")
    retry_max: float = Field(default=5.0, gt=0, description="longest wait between reopen tries")

    @property
    def speed(self) -> int:
        return self.baudrate or DEFAULT_BAUD.get(self.protocol, 115200)

    @property
    def period(self) -> float:
        return self.scan_period or DEFAULT_PERIOD.get(self.protocol, 0.1)

    @property
    def running_at_once(self) -> int:
        return self.parallel or DEFAULT_PARALLEL.get(self.protocol, 1)

    @model_validator(mode="after")
    def _wired(self) -> ReaderConfig:
        known = ZONES[self.reads]
        taken: dict[str, int] = {}
        for antenna, zone in sorted(self.zones.items()):
            if zone not in known:
                raise ValueError(
                    f"zones: antenna {antenna} is {zone!r}, which is no zone a {self.reads} "
                    f"reader has (seat:1 to seat:10, {', '.join(known[10:])})")
            if zone in taken:  # (one zone, one antenna: a card between the two would flicker)
                raise ValueError(f"zones: antennas {taken[zone]} and {antenna} are both {zone!r}")
            taken[zone] = antenna
        if self.protocol in SPI_CHIPS:
            missing = sorted(set(self.zones) - set(self.selects))
            if missing:
                raise ValueError(f"selects: antenna {missing[0]} has a zone but no chip select "
                                 "(each module on the SPI bus needs its own)")
            lines = list(self.selects.values())
            if len(set(lines)) != len(lines):
                raise ValueError("selects: two antennas share one chip select")
            if self.decoder is not None:
                high = self.decoder.lines - 1
                if any(not 0 <= line <= high for line in lines):
                    raise ValueError(f"selects: the decoder's lines are 0 to {high}")
            elif any(not 0 <= pin <= 27 for pin in lines):
                raise ValueError("selects: chip selects are BCM GPIO pins 0 to 27")
            if self.protocol == "pn5180" and self.busy is None:
                raise ValueError("busy: a PN5180 needs its BUSY line on a GPIO pin")
            if self.protocol == "mfrc522" and self.busy is not None:
                # (it was ignored, and its pin kept from every other use)
                raise ValueError("busy: an MFRC522 has no BUSY line (a PN5180 has): leave it "
                                 "out")
        elif self.selects or self.decoder is not None or self.busy is not None:
            raise ValueError(f"selects, decoder and busy are for SPI readers, not {self.protocol}")
        if self.protocol in ("pn532", "rdm6300") and set(self.zones) != {0}:
            raise ValueError(f"zones: a {self.protocol} module has one antenna, antenna 0")
        return self
