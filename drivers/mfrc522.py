"""NXP MFRC522 (the "RC522" module) on SPI: every ISO 14443A card on one antenna, by the
anticollision loop of ISO/IEC 14443-3.

One module per antenna; the host drives the whole protocol through the chip's registers and FIFO
(NXP MFRC522 datasheet, rev. 3.9: section 8.1.2 for SPI, 9 for the registers, 10 for the
commands). A scan switches the antenna's field on, waits for the cards to power up, then repeats:
REQA; anticollision and SELECT through the cascade levels (NTAG213/215 have 7-byte UIDs: two
levels); HLTA, so that the card keeps quiet; until REQA finds nobody. The field stays on, so
the next scan hears only newcomers; now and then it goes off and every card is read again (a
card that has gone is then missing).

The SPI address byte: bit 7 set to read, bits 6-1 the register, bit 0 zero. Several bytes
written after one address go to the same register (the FIFO); a read sends the address again
for every byte it wants back.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Protocol

from drivers.scan import MOST_TAGS, ChipError, Clock, Reading, Scan

# Registers (datasheet table 20).
COMMAND, COM_IRQ, DIV_IRQ, ERROR = 0x01, 0x04, 0x05, 0x06
STATUS2, FIFO_DATA, FIFO_LEVEL, CONTROL, BIT_FRAMING, COLL = 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x0E
MODE, TX_MODE, RX_MODE, TX_CONTROL, TX_ASK = 0x11, 0x12, 0x13, 0x14, 0x15
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x2A, 0x2B, 0x2C, 0x2D
VERSION = 0x37
# Commands (datasheet table 149).
IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F
# ComIrqReg bits.
TX_IRQ, RX_IRQ, IDLE_IRQ, ERR_IRQ, TIMER_IRQ = 0x40, 0x20, 0x10, 0x02, 0x01
# Status2Reg's ModemState (bits 2..0).
MODEM_IDLE, MODEM_TRANSMITTING, MODEM_WAIT_DATA, MODEM_RECEIVING = 0b000, 0b011, 0b101, 0b110
# ErrorReg bits.
BUFFER_OVFL, COLL_ERR, CRC_ERR, PARITY_ERR, PROTOCOL_ERR = 0x10, 0x08, 0x04, 0x02, 0x01
# VersionReg: 0x91 and 0x92 are NXP's versions 1.0 and 2.0; 0x88 is Fudan's FM17522, the chip
# on many cheap "RC522" modules, which behaves the same.
VERSIONS = {0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0", 0x88: "FM17522 (MFRC522 clone)"}

# ISO/IEC 14443-3 type A.
REQA, HLTA = 0x26, 0x50
SEL = (0x93, 0x95, 0x97)  # cascade levels 1 to 3
CASCADE_TAG = 0x88
BIT_TIME = 128 / 13.56e6  # 106 kbit/s
FDT = 86e-6  # a card answers 1172 / fc after the reader's frame
MAX_CARDS = MOST_TAGS["cards"]  # a scan's tags by default (a reader of chips: MOST_TAGS)
FULL_EVERY = 1.0  # s between two complete scans of an antenna (a card taken away: gone)
# Complete scans that follow at once when the antenna is changing: one after newcomers (a bet
# counts only once a complete scan begun after it has read it whole: drivers/presence.py), and
# three after a complete scan misses a tag (on a chip zone a tag is gone after three misses in a
# row, and the zone counts again once a complete scan has begun after that).
VERIFY_NEWCOMERS, VERIFY_MISSING = 1, 3

# The timer: 13.56 MHz / (2 * 0xA9 + 1) = 40 kHz, 25 us a tick; 60 ticks = 1.5 ms, the longest a
# card takes to answer anything the scan asks (an anticollision frame: about 0.6 ms).
PRESCALER = 0xA9
RELOAD = 60


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3 CRC_A (x^16 + x^12 + x^5 + 1, preset 0x6363), low byte first."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes([crc & 0xFF, crc >> 8])


def bcc(data: bytes) -> int:
    value = 0
    for byte in data:
        value ^= byte
    return value


class SpiPort(Protocol):
    def exchange(self, antenna: int, data: bytes) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Reply:
    data: bytes
    last_bits: int  # valid bits of the last byte (0: all eight)
    collision: int  # CollPos of the first collision (1..32), 0 without one


class Mfrc522:
    """The module on one antenna of a bus."""

    def __init__(self, port: SpiPort, antenna: int, clock: Clock, *, power_up: float = 0.005,
                 field_off: float = 0.006, full_every: float = FULL_EVERY,
                 owners: dict[str, int] | None = None, most: int = MAX_CARDS) -> None:
        self.port, self.antenna, self.clock = port, antenna, clock
        self.most = most  # tags a scan lists (`MOST_TAGS`)
        self.power_up = power_up  # s a card needs in the field before it answers (14443-3)
        self.field_off = field_off  # s without a field, and every card has reset (t_reset)
        self.full_every = full_every
        self._field_on = False
        self._next_full = 0.0
        # Which antenna of the reader heard each tag last (shared by the reader's modules).
        self.owners = owners if owners is not None else {}
        self._known: set[str] = set()  # the last complete scan's tags and newcomers since
        self._verify = 0  # complete scans due at once (the antenna is changing)
        # The antennas of a bus take their complete scans in turn, not all in one round.
        self._first_gap = full_every * (0.5 + (antenna * 0.618) % 1.0)

    # ---------------------------------------------------------------- registers

    def write(self, register: int, *values: int) -> None:
        self.port.exchange(self.antenna, bytes([(register << 1) & 0x7E, *values]))

    def read(self, register: int, count: int = 1) -> bytes:
        address = 0x80 | ((register << 1) & 0x7E)
        return self.port.exchange(self.antenna, bytes([address] * count + [0]))[1:]

    def every_scan_complete(self) -> None:
        """Read every card at every scan (a bring-up's reads per second, a registration)."""
        self.full_every = self._first_gap = 0.0

    def read_many(self, *registers: int) -> bytes:
        """Several registers in one transfer: the address byte may differ from byte to byte."""
        addresses = [0x80 | ((r << 1) & 0x7E) for r in registers]
        return self.port.exchange(self.antenna, bytes([*addresses, 0]))[1:]

    def version(self) -> int:
        return self.read(VERSION)[0]

    def start(self) -> str:
        """Reset the chip and set it up for ISO 14443A; its name. `ChipError` when the module
        does not answer its version register as an MFRC522 does."""
        version = self.version()
        if version not in VERSIONS:
            raise ChipError(_silent(version))
        self.write(COMMAND, SOFT_RESET)
        deadline = self.clock.now() + 0.05
        while self.read(COMMAND)[0] & 0x10:  # PowerDown: still waking from the reset
            if self.clock.now() > deadline:
                raise ChipError("did not come out of its soft reset")
            self.clock.sleep(0.001)
        self.write(T_MODE, 0x80)  # TAuto: the timer starts when a frame has gone out
        self.write(T_PRESCALER, PRESCALER)
        self.write(T_RELOAD_H, RELOAD >> 8)
        self.write(T_RELOAD_L, RELOAD & 0xFF)
        self.write(TX_ASK, 0x40)  # 100 % ASK, as type A needs
        self.write(MODE, 0x3D)  # CRC preset 0x6363 (CRC_A)
        self.write(TX_CONTROL, 0x80)  # field off until a scan
        return VERSIONS[version]

    # ---------------------------------------------------------------- the scan

    def scan(self) -> Scan:
        """The cards on the antenna. The field stays on between scans and a card read is
        halted, so a quick scan hears only the cards that came since (a REQA nobody answers:
        half a millisecond); every ``full_every`` seconds the field goes off long enough for
        every card to forget its halt, and the scan that follows reads them all (complete).
        Newcomers are listened for first even then: a card taken away and laid down again
        where it lay is heard only as a newcomer.

        While the antenna changes, complete scans come at once rather than a second apart,
        as the PN5180's do: after newcomers (chips pushed in count only once a complete scan
        has read the stack whole) and after a complete scan that missed a tag (chips taken
        back for change are gone after three misses). On a chip zone a swap for change took
        four seconds to count without them."""
        arrived: list[str] = []
        try:
            if self._field_on:
                arrived = yield from self._every_card()
                self._claim(arrived)
            changed = bool(arrived) | self._moved_away()
            now = self.clock.now()
            if self._field_on and now < self._next_full and not self._verify:
                if changed:  # (verified by the next scan: one that begins after the change)
                    self._verify = VERIFY_NEWCOMERS
                return Reading(arrived, False, arrived)
            if self._field_on:
                self.write(TX_CONTROL, 0x80)
                self._field_on = False
                yield now + self.field_off
            self.write(TX_CONTROL, 0x83)  # Tx1RFEn, Tx2RFEn: the field on
            self._field_on = True
            yield self.clock.now() + self.power_up
            gap, self._first_gap = self._first_gap or self.full_every, 0.0
            self._next_full = self.clock.now() + gap
            uids = yield from self._every_card()
            here = set(uids)
            # (a change heard while this scan was under way, or tags it read for the first
            # time: one more, begun after them, and none of those still due cut short)
            changed |= not here.issubset(self._known)
            self._verify = max(self._verify - 1, VERIFY_NEWCOMERS if changed else 0)
            if not self._known.issubset(here):
                self._verify = VERIFY_MISSING
            self._known = here
            self._claim(uids)
        except ChipError:
            self._field_on = False  # its state is unknown: the next scan starts afresh
            raise
        return Reading(uids, len(uids) < self.most, arrived)

    def _claim(self, uids: list[str]) -> None:
        self._known.update(uids)
        for uid in uids:
            self.owners[uid] = self.antenna

    def _moved_away(self) -> bool:
        """Whether a tag read here has been heard on another antenna since (a bet swept into
        the pot): no longer listed here, and the zone is to be verified."""
        moved = {u for u in self._known if self.owners.get(u, self.antenna) != self.antenna}
        self._known -= moved
        return bool(moved)

    def _every_card(self) -> Generator[float, None, list[str]]:
        """REQA, select, halt, until nobody answers: every card not halted, once."""
        uids: list[str] = []
        for _ in range(self.most):
            atqa = yield from self._transceive(bytes([REQA]), tx_last_bits=7, answer=2)
            if atqa is None:
                break
            uid = yield from self._select()
            if uid is None:
                break  # a card that left mid-way, or noise: the next scan tries again
            uids.append(uid.hex().upper())
            yield from self._transceive(bytes([HLTA, 0]) + crc_a(bytes([HLTA, 0])), answer=0)
        return uids

    def _select(self) -> Generator[float, None, bytes | None]:
        uid = b""
        for sel in SEL:
            field = yield from self._anticollision(sel)
            if field is None:
                return None
            frame = bytes([sel, 0x70]) + field
            sak = yield from self._transceive(frame + crc_a(frame), answer=3)
            if sak is None or len(sak.data) != 3 or crc_a(sak.data[:1]) != sak.data[1:]:
                return None
            if sak.data[0] & 0x04:  # cascade bit: the UID goes on at the next level
                if field[0] != CASCADE_TAG:
                    return None
                uid += field[1:4]
                continue
            return uid + field[:4]
        return None

    def _anticollision(self, sel: int) -> Generator[float, None, bytes | None]:
        """The 40 bits of this cascade level (four UID bytes and BCC) of one card in the field,
        choosing the card with a 1 wherever the cards' bits collide."""
        field = bytearray(5)
        known = 0  # bits of ``field`` settled so far
        guessed: int | None = None  # the last bit set to 1 at a collision
        for _ in range(64):
            whole, bits = divmod(known, 8)
            frame = bytes([sel, ((2 + whole) << 4) | bits]) + bytes(field[: whole + (bits > 0)])
            reply = yield from self._transceive(frame, tx_last_bits=bits, rx_align=bits)
            if reply is None:
                if guessed is None:
                    return None
                # Nobody has a 1 there: the collision was read at another position than this
                # driver counts it. Take the 0 instead; the search still ends.
                field[guessed // 8] &= ~(1 << (guessed % 8))
                known, guessed = guessed + 1, None
                continue
            for k, byte in enumerate(reply.data):
                index = whole + k
                if index >= 5:
                    break
                keep = (1 << bits) - 1 if k == 0 else 0
                field[index] = (field[index] & keep) | (byte & ~keep & 0xFF)
            if not reply.collision:
                if bcc(bytes(field[:4])) != field[4]:
                    return None
                return bytes(field)
            position = whole * 8 + (reply.collision or 32) - 1  # first colliding bit
            if position < known:
                position = known
            if position >= 40:
                return None
            field[position // 8] |= 1 << (position % 8)
            for later in range(position + 1, 40):  # nothing after it is known yet
                field[later // 8] &= ~(1 << (later % 8))
            known, guessed = position + 1, position
        return None

    def _transceive(self, data: bytes, *, tx_last_bits: int = 0, rx_align: int = 0,
                    answer: int = 5) -> Generator[float, None, Reply | None]:
        """Send ``data``; the card's answer (at most ``answer`` bytes), or None when no card
        answered in time (its frame delay is fixed by 14443-3, so the wait is known)."""
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)  # clear every interrupt request
        self.write(FIFO_LEVEL, 0x80)  # flush the FIFO
        self.write(FIFO_DATA, *data)
        self.write(COMMAND, TRANSCEIVE)
        self.write(BIT_FRAMING, 0x80 | (rx_align << 4) | tx_last_bits)  # StartSend
        bits = len(data) * 9 - (8 - tx_last_bits if tx_last_bits else 0) + 2
        sent = self.clock.now() + bits * BIT_TIME
        if not answer:  # HLTA: a halted card says nothing; the frame only has to be out
            yield sent + 20e-6
            return None
        yield sent + FDT + (answer * 9 + 2) * BIT_TIME + 30e-6
        for attempt in range(3):
            irq, error, level, control, coll, modem = self.read_many(
                COM_IRQ, ERROR, FIFO_LEVEL, CONTROL, COLL, STATUS2)
            if irq in (0x00, 0xFF):  # a live chip has at least TxIRq by now
                raise ChipError(_silent(irq))
            if irq & (RX_IRQ | IDLE_IRQ):
                break
            # An answer that had not begun by the time a whole one would have ended never
            # comes (its frame delay is fixed): no card, without waiting for the timer.
            if irq & TIMER_IRQ or attempt == 2 or modem & 0x07 != MODEM_RECEIVING:
                return None
            yield self.clock.now() + 0.0003
        if error & (BUFFER_OVFL | PARITY_ERR | PROTOCOL_ERR) and not error & COLL_ERR:
            return None
        collision = 0
        if error & COLL_ERR:
            if coll & 0x20:  # CollPosNotValid
                return None
            collision = coll & 0x1F or 32
        count = level & 0x7F
        received = self.read(FIFO_DATA, count) if count else b""
        return Reply(received, control & 0x07, collision)


def _silent(value: int) -> str:
    if value in (0x00, 0xFF):
        return (f"does not answer (it reads 0x{value:02X}): check its chip-select wire, 3.3 V, "
                "ground and the SPI wires (MISO, MOSI, SCK)")
    return f"is not an MFRC522 (its version register reads 0x{value:02X})"
