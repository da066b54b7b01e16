"""NXP PN5180 on SPI with its BUSY line: every ISO 15693 tag in a chip zone, by inventory.

The host interface (PN5180 datasheet, section 11.4): a command is one SPI frame; the chip raises
BUSY while it works and the host waits for BUSY to fall before the next frame; a command that
answers (READ_REGISTER, READ_EEPROM, READ_DATA) is followed by a second frame that clocks the
answer out. Registers are 32 bits, little-endian.

A zone's complete scan (ISO/IEC 15693-3, section 8 and annex D):
1. One-slot inventory: nobody answers (an empty zone, most of the time: about 2 ms), one tag
   answers (a single chip: done), or several collide.
2. On a collision, 16-slot inventories: a tag answers in the slot named by the four UID bits after
   the mask; a slot where tags collide is asked again with a mask four bits longer, until no slot
   collides. A stack of 20 chips takes about 40 slots.
Between two complete scans (every ``full_every`` seconds) a quick scan tells each chip the zone
held to stay quiet (one frame each, no answer) and listens for newcomers with a one-slot
inventory, then sixteen slots if they collide: a zone of five chips in a fifth of the SPI frames.
A chip heard in another zone of the same reader is no longer told to stay quiet here (it moved);
one taken away is missed at the next complete scan, which comes at once after a quick scan heard
newcomers (chips swapped for change: the ones taken out are missed before the bet settles).
The field is switched off at the end, so the zone is quiet while its neighbours read (and every
chip forgets it was told to stay quiet).

The BUSY lines of every PN5180 on the bus may share one GPIO through diodes (docs/hardware.md):
the host talks to one chip at a time, and the others hold BUSY low while they are not spoken to.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

from drivers.scan import ChipError, Clock, Reading, Scan

# Commands (datasheet table 5).
WRITE_REGISTER, WRITE_OR, WRITE_AND, READ_REGISTER = 0x00, 0x01, 0x02, 0x04
READ_EEPROM, SEND_DATA, READ_DATA = 0x07, 0x09, 0x0A
LOAD_RF_CONFIG, RF_ON, RF_OFF = 0x11, 0x16, 0x17
# Registers.
SYSTEM_CONFIG, IRQ_STATUS, IRQ_CLEAR, RX_STATUS, TX_CONFIG = 0x00, 0x02, 0x03, 0x13, 0x18
# EEPROM.
PRODUCT_VERSION, FIRMWARE_VERSION = 0x10, 0x12
# IRQ_STATUS bits.
RX_IRQ, TX_IRQ, RX_SOF_DET_IRQ, GENERAL_ERROR_IRQ = 1 << 0, 1 << 1, 1 << 14, 1 << 17
# RX_STATUS bits.
RX_BYTES, RX_INTEGRITY_ERROR, RX_PROTOCOL_ERROR, RX_COLLISION = 0x1FF, 1 << 16, 1 << 17, 1 << 18
# RF configurations: ISO 15693, 26 kbit/s, ASK 100 % (tx 0x0D, rx 0x8D).
ISO15693_TX, ISO15693_RX = 0x0D, 0x8D
TRANSCEIVE = 0x03
EOF_ONLY = 0xFFFFFB3F  # TX_CONFIG: the next SEND_DATA sends an EOF alone (the next slot)

# ISO 15693 request flags: high data rate, inventory; 0x20: one slot instead of sixteen.
INVENTORY, STAY_QUIET = 0x01, 0x02
FLAGS_16_SLOTS, FLAGS_1_SLOT, FLAGS_ADDRESSED = 0x06, 0x26, 0x22
# Air times (ISO/IEC 15693-2): the reader's 1-of-4 coding is 37.76 us a bit; a tag answers
# (high data rate, one subcarrier) after t1 = 318.6 us with SOF 151 us, 37.76 us a bit, EOF.
BIT = 37.76e-6
T1 = 318.6e-6
SOF = 151e-6
ANSWER = SOF + 12 * 8 * BIT + 75.5e-6  # flags, DSFID, UID, CRC
MAX_ROUNDS = 64  # inventories in one scan: a stack far higher than any betting zone holds
FULL_EVERY = 1.0  # s between two complete scans of a zone (a chip taken back: missed)


class SpiPort(Protocol):
    def exchange(self, antenna: int, data: bytes) -> bytes: ...


class BusyLine(Protocol):
    @property
    def pin(self) -> Any: ...


class Pn5180:
    """The module under one chip zone."""

    def __init__(self, port: SpiPort, antenna: int, busy: BusyLine, clock: Clock, *,
                 power_up: float = 0.001, full_every: float = FULL_EVERY,
                 owners: dict[str, int] | None = None) -> None:
        self.port, self.antenna, self.busy, self.clock = port, antenna, busy, clock
        self._busy_pin = busy.pin  # gpiozero's Pin itself: read thousands of times a second
        self.power_up = power_up  # s tags need in the field (ISO 15693: up to 1 ms)
        self.full_every = full_every
        # Which antenna of the reader heard each chip last (shared by the reader's zones).
        self.owners = owners if owners is not None else {}
        self._known: set[str] = set()  # the chips here: the last complete scan's and newcomers
        self._last_count = 0  # tags the last complete scan read
        self._next_full = 0.0
        # The zones of a bus take their complete scans in turn, not all in one round.
        self._first_gap = full_every * (0.5 + (antenna * 0.618) % 1.0)

    def every_scan_complete(self) -> None:
        """Read every chip at every scan (a bring-up's reads per second, a registration)."""
        self.full_every = self._first_gap = 0.0

    # ---------------------------------------------------------------- host interface

    def _ready(self) -> None:
        pin = self._busy_pin
        if not pin.state:
            return
        deadline = self.clock.now() + 0.02
        while pin.state:
            if self.clock.now() > deadline and pin.state:  # (not just this thread late)
                raise ChipError("holds BUSY high: check its BUSY wire (and its diode), its "
                                "reset line and its 3.3 V and 5 V supplies")
            self.clock.spin()

    def command(self, *frame: int) -> None:
        self._ready()
        self.port.exchange(self.antenna, bytes(frame))

    def query(self, frame: bytes, length: int) -> bytes:
        self._ready()
        self.port.exchange(self.antenna, frame)
        self._ready()
        return self.port.exchange(self.antenna, b"\xff" * length)

    def register(self, register: int) -> int:
        return int.from_bytes(self.query(bytes([READ_REGISTER, register]), 4), "little")

    def _write(self, command: int, register: int, value: int) -> None:
        self.command(command, register, *value.to_bytes(4, "little"))

    def versions(self) -> tuple[int, int, int, int]:
        """(product major, minor, firmware major, minor) from the EEPROM."""
        product = self.query(bytes([READ_EEPROM, PRODUCT_VERSION, 2]), 2)
        firmware = self.query(bytes([READ_EEPROM, FIRMWARE_VERSION, 2]), 2)
        return product[1], product[0], firmware[1], firmware[0]

    def start(self) -> str:
        """The chip's name and versions; `ChipError` when it does not answer as a PN5180."""
        product_major, product_minor, firmware_major, firmware_minor = self.versions()
        if product_major in (0x00, 0xFF) or firmware_major in (0x00, 0xFF):
            raise ChipError(f"does not answer (its EEPROM reads 0x{product_major:02X}): check "
                            "its chip-select wire, 3.3 V and 5 V, ground, its BUSY wire and the "
                            "SPI wires (MISO, MOSI, SCK)")
        self.command(RF_OFF, 0)
        return (f"PN5180 product {product_major}.{product_minor}, "
                f"firmware {firmware_major}.{firmware_minor}")

    # ---------------------------------------------------------------- the scan

    def scan(self) -> Scan:
        """Every ISO 15693 tag in the zone (each UID as printed: most significant byte first)."""
        now = self.clock.now()
        if not self._next_full:
            self._next_full = now + self._first_gap
        known = sorted(u for u in self._known if self.owners.get(u) == self.antenna)
        complete = now >= self._next_full or not known
        self.command(LOAD_RF_CONFIG, ISO15693_TX, ISO15693_RX)
        self.command(RF_ON, 0)
        yield self.clock.now() + self.power_up
        try:
            if complete:
                found = yield from self._everyone()
                self._next_full = self.clock.now() + self.full_every
                self._known = set(found)
                self._last_count = len(found)
            else:
                for uid in known:
                    yield from self._stay_quiet(uid)
                found = yield from self._newcomers()
                self._known = set(known) | found
                if found:  # the zone is changing (change made, a bet pushed): verify it next
                    self._next_full = self.clock.now()
        finally:
            self.command(RF_OFF, 0)
        for uid in found:
            self.owners[uid] = self.antenna
        # A chip told to stay quiet here and heard by another zone meanwhile (their scans run
        # side by side) has moved: it is no longer listed here.
        self._known = {u for u in self._known if self.owners.get(u) == self.antenna}
        return Reading(sorted(self._known))

    def _everyone(self) -> Generator[float, None, set[str]]:
        if self._last_count >= 2:  # a stack lay here: straight to sixteen slots
            return (yield from self._sixteen_slots([(0, 0)], fresh=True))
        return (yield from self._newcomers())

    def _newcomers(self) -> Generator[float, None, set[str]]:
        """Every tag that answers (the ones told to stay quiet do not): one slot, then sixteen
        while slots collide."""
        slots = yield from self._inventory(0, 0, one_slot=True, fresh=True)
        found = {s for s in slots if s not in ("collision", "")}
        if "collision" in slots:
            # (one slot leaves TX_CONFIG sending data frames: no reload)
            found |= yield from self._sixteen_slots([(0, 0)], fresh=True)
        return found

    def _sixteen_slots(self, masks: list[tuple[int, int]], *,
                       fresh: bool) -> Generator[float, None, set[str]]:
        found: set[str] = set()
        rounds = 0
        while masks and rounds < MAX_ROUNDS:
            rounds += 1
            length, value = masks.pop(0)
            slots = yield from self._inventory(length, value, fresh=fresh and rounds == 1)
            for slot, seen in enumerate(slots):
                if seen == "collision" and length + 4 < 64:
                    masks.append((length + 4, value | slot << length))
                elif seen:
                    found.add(seen)
        return found

    def _stay_quiet(self, uid: str) -> Generator[float, None, None]:
        """Tell one chip to keep out of inventories until the field goes off (no answer)."""
        request = bytes([FLAGS_ADDRESSED, STAY_QUIET]) + bytes.fromhex(uid)[::-1]
        self._write(WRITE_AND, SYSTEM_CONFIG, 0xFFFFFFF8)  # idle
        self._write(WRITE_OR, SYSTEM_CONFIG, TRANSCEIVE)
        self.command(SEND_DATA, 0, *request)
        yield self.clock.now() + (len(request) + 2) * 8 * BIT + 113e-6  # on the air, then on

    def _inventory(self, mask_length: int, mask: int, *, one_slot: bool = False,
                   fresh: bool = False) -> Generator[float, None, list[str]]:
        """One inventory: per slot, the UID read, "collision", or "" for a slot nobody used.
        ``fresh``: the RF configuration was just loaded (TX_CONFIG sends data frames)."""
        mask_bytes = mask.to_bytes((mask_length + 7) // 8, "little")
        request = bytes([FLAGS_1_SLOT if one_slot else FLAGS_16_SLOTS, INVENTORY,
                         mask_length]) + mask_bytes
        if not fresh:  # TX_CONFIG as loaded: data frames again after the last slot's EOFs
            self.command(LOAD_RF_CONFIG, ISO15693_TX, ISO15693_RX)
        slots: list[str] = []
        waiting = True  # the transceive routine waits to transmit (it does after a reception)
        for slot in range(1 if one_slot else 16):
            if slot == 1:
                self._write(WRITE_AND, TX_CONFIG, EOF_ONLY)
            if slot == 0 or not waiting:  # restarted: an empty slot left it waiting to receive
                self._write(WRITE_AND, SYSTEM_CONFIG, 0xFFFFFFF8)  # idle
                self._write(WRITE_OR, SYSTEM_CONFIG, TRANSCEIVE)
            self._write(WRITE_REGISTER, IRQ_CLEAR, 0x000FFFFF)
            if slot == 0:
                self.command(SEND_DATA, 0, *request)
                sent = (len(request) + 2) * 8 * BIT + 113e-6  # with CRC, SOF and EOF
            else:
                self.command(SEND_DATA, 0)
                sent = BIT
            seen, waiting = yield from self._slot(sent)
            slots.append(seen)
        return slots

    def _slot(self, sent: float) -> Generator[float, None, tuple[str, bool]]:
        """What came back in one slot, and whether anything was received."""
        yield self.clock.now() + sent + T1 + SOF + 40e-6
        irq = self.register(IRQ_STATUS)
        if irq in (0, 0xFFFFFFFF):  # a live chip has TX_IRQ by now: its frame went out
            raise ChipError(f"does not answer (it reads 0x{irq & 0xFF:02X}): check its "
                            "chip-select wire, 3.3 V and 5 V, ground and the SPI wires")
        if not irq & (RX_SOF_DET_IRQ | RX_IRQ):
            return "", False  # nobody began to answer in time: an empty slot
        if not irq & RX_IRQ:
            yield self.clock.now() + ANSWER - SOF + 20e-6  # the answer's length is known
        status = self.register(RX_STATUS)
        deadline = self.clock.now() + 0.01
        while not status & (RX_BYTES | RX_COLLISION | RX_INTEGRITY_ERROR | RX_PROTOCOL_ERROR):
            if self.clock.now() > deadline:
                return "collision", False  # an answer that never ended: several at once
            yield self.clock.now() + 0.0002
            status = self.register(RX_STATUS)
        count = status & RX_BYTES
        if status & (RX_COLLISION | RX_INTEGRITY_ERROR | RX_PROTOCOL_ERROR) or count != 10:
            return ("collision" if count or status & RX_COLLISION else ""), True
        answer = self.query(bytes([READ_DATA, 0]), count)
        if answer[0] & 0x01:  # the tag's error flag
            return "", True
        return answer[2:10][::-1].hex().upper(), True
