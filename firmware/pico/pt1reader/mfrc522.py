"""The NXP MFRC522 ("RC522" module) under one card antenna: every ISO 14443A card on it.

Why not drivers/mfrc522.py: that driver runs on the table's Pi under CPython (dataclasses,
typing, scans as generators that a scheduler interleaves, several fields on at once) and
MicroPython on the Pico has none of it. The board scans one antenna at a time, so this one is a
small blocking loop. The chip and the cards speak the same protocol either way (NXP MFRC522
datasheet rev. 3.9; ISO/IEC 14443-3), and tests/firmware runs this code against the same
simulated chip as the host driver's tests.

A scan: the field on, 5 ms for the cards to power up, then REQA; anticollision and SELECT
through the cascade levels (a 7-byte NTAG21x UID takes two); HLTA so the card keeps quiet; REQA
again until nobody answers. The field goes off at the end: every card forgets its halt, and the
next scan of the antenna reads them all again (a card missing from it may have gone).
"""

from .ports import ChipError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .ports import Bus, Timer

# Registers (datasheet section 9.2).
COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x06, 0x09, 0x0A
CONTROL, BIT_FRAMING, COLL, MODE, TX_CONTROL, TX_ASK = 0x0C, 0x0D, 0x0E, 0x11, 0x14, 0x15
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = 0x2A, 0x2B, 0x2C, 0x2D, 0x37
# Commands (section 10.3).
IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F
POWER_DOWN = 0x10  # CommandReg: still waking from a reset
# ComIrqReg and ErrorReg bits.
RX_IRQ, IDLE_IRQ, TIMER_IRQ = 0x20, 0x10, 0x01
BUFFER_OVFL, COLL_ERR, PARITY_ERR, PROTOCOL_ERR = 0x10, 0x08, 0x02, 0x01
COLL_POS_NOT_VALID = 0x20
STATUS = (COM_IRQ, ERROR, FIFO_LEVEL, COLL)  # read in one frame after each exchange
FIELD_ON, FIELD_OFF = 0x83, 0x80  # TxControlReg: Tx1RFEn and Tx2RFEn, or neither
# VersionReg: NXP's 1.0 and 2.0, and Fudan's FM17522 on many cheap modules (same behaviour).
VERSIONS = (0x91, 0x92, 0x88)

# ISO/IEC 14443-3 type A.
REQA, HLTA, CASCADE_TAG = 0x26, 0x50, 0x88
SEL = (0x93, 0x95, 0x97)  # cascade levels 1 to 3
MAX_CARDS = 52  # a muck antenna may hold the whole deck
POWER_UP_US = 5000  # a card answers within 5 ms of the field coming on
FIELD_OFF_US = 6000  # and forgets its halt after 5.1 ms without a field (t_reset)
BIT_US = 10  # one bit at 106 kbit/s is 9.44 us; rounded up, so every wait is long enough
FDT_US = 100  # a card answers 86 us after the reader's frame (1172 / fc)
POLL_US = 100  # between two looks at ComIrqReg
ANSWER_LIMIT_US = 3000  # the chip's own timer (1 ms) fires long before this
# The timer: 13.56 MHz / (2 * 169 + 1) = 40 kHz, 25 us a tick; 40 ticks = 1 ms without an
# answer and the chip gives up (a card that answers at all starts within 0.1 ms).
PRESCALER, RELOAD = 0xA9, 40


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3 CRC_A: CRC-16 CCITT bit-reversed (polynomial 0x8408 as the bits come
    least significant first), preset 0x6363, low byte first. The card checks it on SELECT and
    HLTA and sends it with its SAK."""
    crc = 0x6363
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return bytes([crc & 0xFF, crc >> 8])


def hexa(data: bytes) -> str:
    return "".join(f"{byte:02X}" for byte in data)


class Mfrc522:
    misses = 2  # scans in a row a card is missing from before it is reported gone (it never
    # misses an answer in a field it is wholly in)

    def __init__(self, bus: "Bus", select: int, timer: "Timer") -> None:
        self.bus, self.select, self.timer = bus, select, timer
        self._off_at = -FIELD_OFF_US  # when the field last went off

    # ---------------------------------------------------------------- registers over SPI

    def _write(self, register: int, data: bytes) -> None:
        # Address byte: bit 7 clear to write, the register in bits 6-1; every byte after it goes
        # to that register (the FIFO takes them all).
        self.bus.exchange(self.select, bytes([(register << 1) & 0x7E]) + data)

    def _set(self, register: int, value: int) -> None:
        self._write(register, bytes([value]))

    def _read(self, register: int, count: int = 1) -> bytes:
        # One address byte per byte wanted, and one more to clock the last answer out.
        address = 0x80 | ((register << 1) & 0x7E)
        return self.bus.exchange(self.select, bytes([address] * count + [0]))[1:]

    def _read_many(self, registers: "tuple[int, ...]") -> bytes:
        """Several registers in one frame: each address byte may name another register."""
        frame = [0x80 | ((register << 1) & 0x7E) for register in registers]
        frame.append(0)  # (MicroPython has no [*a, b])
        return self.bus.exchange(self.select, bytes(frame))[1:]

    # ---------------------------------------------------------------- start and scan

    def start(self) -> None:
        """Reset the chip and set it up for type A; `ChipError` when it does not answer its
        version register as an MFRC522 does."""
        version = self._read(VERSION)[0]
        if version in (0x00, 0xFF):
            raise ChipError(f"MFRC522 on GP{self.select} does not answer (reads 0x{version:02X})")
        if version not in VERSIONS:
            raise ChipError(f"GP{self.select}: not an MFRC522 (version 0x{version:02X})")
        self._set(COMMAND, SOFT_RESET)
        deadline = self.timer.now_us() + 50_000
        while self._read(COMMAND)[0] & POWER_DOWN:
            if self.timer.now_us() > deadline:
                raise ChipError(f"MFRC522 on GP{self.select} stays in its reset")
            self.timer.sleep_us(1000)
        self._set(T_MODE, 0x80)  # TAuto: the timer starts when a frame has gone out
        self._set(T_PRESCALER, PRESCALER)
        self._set(T_RELOAD_H, RELOAD >> 8)
        self._set(T_RELOAD_L, RELOAD & 0xFF)
        self._set(TX_ASK, 0x40)  # 100 % ASK, as type A needs
        self._set(MODE, 0x3D)  # CRC preset 0x6363
        self._set(TX_CONTROL, FIELD_OFF)

    def scan(self) -> "list[str]":
        """The UIDs of every card on the antenna, in upper-case hex (4- and 7-byte UIDs: what
        PT1 carries; a 10-byte one is read and halted but not reported)."""
        timer = self.timer
        rest = self._off_at + FIELD_OFF_US - timer.now_us()
        if rest > 0:
            timer.sleep_us(rest)
        self._set(TX_CONTROL, FIELD_ON)
        uids = []  # type: list[str]
        try:
            timer.sleep_us(POWER_UP_US)
            failures = 0
            while len(uids) < MAX_CARDS and failures < 3:
                if self._transceive(bytes([REQA]), 7, 0, 2) is None:
                    break  # nobody left who is not halted
                uid = self._select()
                if uid is None:
                    failures += 1  # garbled, or the card left mid-way: ask again
                    continue
                frame = bytes([HLTA, 0])
                self._transceive(frame + crc_a(frame), 0, 0, 0)
                if len(uid) in (4, 7):
                    uids.append(hexa(uid))
        finally:
            self._set(TX_CONTROL, FIELD_OFF)
            self._off_at = timer.now_us()
        return uids

    # ---------------------------------------------------------------- ISO 14443-3

    def _select(self) -> "bytes | None":
        """One card's whole UID, through as many cascade levels as it has; the card is then
        selected (active) and will obey HLTA."""
        uid = b""
        for sel in SEL:
            level = self._anticollision(sel)
            if level is None:
                return None
            frame = bytes([sel, 0x70]) + level
            reply = self._transceive(frame + crc_a(frame), 0, 0, 3)
            if reply is None:
                return None
            sak = reply[0]
            if len(sak) != 3 or crc_a(sak[:1]) != sak[1:]:
                return None
            if not sak[0] & 0x04:  # no cascade bit: the UID is complete
                return uid + level[:4]
            if level[0] != CASCADE_TAG:
                return None
            uid += level[1:4]
        return None

    def _anticollision(self, sel: int) -> "bytes | None":
        """The five bytes of this cascade level (four of the UID, or the cascade tag and three,
        then their XOR) of one card. Where the cards' bits differ the chip reports a
        collision; the search takes the card with a 1 there and asks again with the bits known
        so far, until one card answers alone."""
        level = bytearray(5)
        known = 0  # bits of ``level`` settled
        for _ in range(41):  # each round settles at least one more bit
            whole, bits = known // 8, known % 8
            nvb = ((2 + whole) << 4) | bits  # bytes sent (with SEL and NVB) and extra bits
            sent = bytes(level[:whole + (1 if bits else 0)])
            reply = self._transceive(bytes([sel, nvb]) + sent, bits, bits, 5)
            if reply is None:
                return None
            data, collision = reply
            for k in range(len(data)):
                index = whole + k
                if index >= 5:
                    break
                # The first byte received shares its low ``bits`` with the last byte sent.
                keep = ((1 << bits) - 1) if k == 0 else 0
                level[index] = (level[index] & keep) | (data[k] & ~keep & 0xFF)
            if not collision:
                if level[0] ^ level[1] ^ level[2] ^ level[3] != level[4]:
                    return None  # BCC wrong: noise
                return bytes(level)
            position = whole * 8 + collision - 1  # the first bit where the cards differ
            if position < known or position >= 32:
                return None
            level[position // 8] |= 1 << (position % 8)
            known = position + 1
        return None

    def _transceive(self, data: bytes, tx_bits: int, rx_align: int,
                    answer: int) -> "tuple[bytes, int] | None":
        """Send ``data`` (its last byte's ``tx_bits`` only, 0: all eight); the answer and the
        position of its first collision (1 to 32, 0 without one), or None when no card answered.
        ``answer``: the bytes expected, for the wait (0: none, as after HLTA)."""
        self._set(COMMAND, IDLE)
        self._set(COM_IRQ, 0x7F)  # clear every interrupt request
        self._set(FIFO_LEVEL, 0x80)  # flush the FIFO
        self._write(FIFO_DATA, data)
        self._set(COMMAND, TRANSCEIVE)
        self._set(BIT_FRAMING, 0x80 | (rx_align << 4) | tx_bits)  # StartSend
        air_us = (len(data) * 9 + 2) * BIT_US  # with parity bits, start and end
        if not answer:
            self.timer.sleep_us(air_us + 20)  # only the frame has to be out
            self._set(COMMAND, IDLE)
            return None
        self.timer.sleep_us(air_us + FDT_US + (answer * 9 + 2) * BIT_US)
        deadline = self.timer.now_us() + ANSWER_LIMIT_US
        while True:
            irq, error, level, coll = self._read_many(STATUS)
            if irq in (0x00, 0xFF):  # a live chip has TxIRq by now
                raise ChipError(f"MFRC522 on GP{self.select} stopped answering (reads "
                                f"0x{irq:02X})")
            if irq & (RX_IRQ | IDLE_IRQ):
                break
            if irq & TIMER_IRQ or self.timer.now_us() > deadline:
                return None
            self.timer.sleep_us(POLL_US)
        if error & (BUFFER_OVFL | PARITY_ERR | PROTOCOL_ERR) and not error & COLL_ERR:
            return None
        collision = 0
        if error & COLL_ERR:
            if coll & COLL_POS_NOT_VALID:
                return None
            collision = coll & 0x1F or 32  # 0 stands for the 32nd bit
        count = level & 0x7F
        received = self._read(FIFO_DATA, count) if count else b""
        return received, collision
