"""The NXP PN5180 under one chip zone: every ISO 15693 tag in it, by inventory.

Why not drivers/pn5180.py: the host's driver runs under CPython on the table's Pi (typing,
gpiozero pins, generator scans interleaved by a scheduler); MicroPython on the Pico has none of
it, and the board scans one zone at a time, so the firmware has this small blocking version of
the same chip protocol (PN5180 datasheet section 11.4; ISO/IEC 15693-3 section 8 and annex D).
tests/firmware runs it against the same simulated chip as the host driver's tests.

Host interface: one command is one SPI frame; the chip raises BUSY while it works, and no frame
may start before BUSY falls. A command that answers (registers, EEPROM, received data) is
followed by a second frame that clocks the answer out.

A scan: a one-slot inventory first, which an empty zone (most zones, most of the time) or a
single chip settles in about a millisecond. When answers collide, 16-slot inventories: each tag
answers in the slot named by the four UID bits after the mask; a slot where tags collide is
asked again with a mask four bits longer, until no slot collides. The field goes off at the
end, so one zone's field is on at a time.
"""

from .ports import ChipError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .ports import Bus, Line, Timer

# Commands (datasheet table 5).
WRITE_REGISTER, WRITE_OR, WRITE_AND, READ_REGISTER = 0x00, 0x01, 0x02, 0x04
READ_EEPROM, SEND_DATA, READ_DATA = 0x07, 0x09, 0x0A
LOAD_RF_CONFIG, RF_ON, RF_OFF = 0x11, 0x16, 0x17
# Registers, and the EEPROM address of the product version.
SYSTEM_CONFIG, IRQ_STATUS, IRQ_CLEAR, RX_STATUS, TX_CONFIG = 0x00, 0x02, 0x03, 0x13, 0x18
PRODUCT_VERSION = 0x10
# IRQ_STATUS and RX_STATUS bits.
RX_IRQ, RX_SOF_DET_IRQ = 1 << 0, 1 << 14
RX_BYTES, RX_ERRORS, RX_COLLISION = 0x1FF, (1 << 16) | (1 << 17) | (1 << 18), 1 << 18
# RF configuration ISO 15693, 26 kbit/s, ASK 100 %: transmitter 0x0D, receiver 0x8D.
ISO15693_TX, ISO15693_RX = 0x0D, 0x8D
TRANSCEIVE = 0x03  # SYSTEM_CONFIG command bits
EOF_ONLY = 0xFFFFFB3F  # AND into TX_CONFIG: the next SEND_DATA sends an EOF alone (next slot)
ALL_IRQS = 0x000FFFFF

# ISO 15693 request flags: high data rate (0x02), inventory (0x04), one slot (0x20).
INVENTORY = 0x01
FLAGS_16_SLOTS, FLAGS_1_SLOT = 0x06, 0x26
# Air times (ISO/IEC 15693-2) in microseconds: the reader's 1-of-4 coding takes 37.76 us a bit
# and 113 for SOF and EOF; a tag starts answering t1 = 318.6 after the reader's EOF; its answer
# (high data rate, one subcarrier) is a 151 us SOF, 12 bytes (flags, DSFID, UID, CRC), an EOF.
READER_BIT_US = 37.76
READER_FRAMING_US = 113
T1_US = 319
TAG_SOF_US = 151
ANSWER_US = 151 + 12 * 8 * 38 + 76
POWER_UP_US = 1000  # tags need up to 1 ms of field before an inventory
BUSY_LIMIT_US = 20_000  # BUSY stays high a few hundred microseconds at most (RF_ON)
ANSWER_LIMIT_US = 10_000
MAX_ROUNDS = 64  # inventories in one scan: a stack far higher than a betting zone holds
COLLISION = "collision"  # a slot's result: a UID, COLLISION, or "" (nobody answered)


class Pn5180:
    misses = 3  # a chip deep in a stack misses an answer now and then: no removal for one

    def __init__(self, bus: "Bus", select: int, busy: "Line", timer: "Timer") -> None:
        self.bus, self.select, self.busy, self.timer = bus, select, busy, timer

    # ---------------------------------------------------------------- host interface

    def _ready(self) -> None:
        if not self.busy.value():
            return
        deadline = self.timer.now_us() + BUSY_LIMIT_US
        while self.busy.value():
            if self.timer.now_us() > deadline:
                raise ChipError(f"PN5180 on GP{self.select} holds BUSY high: its BUSY wire, its "
                                "diode, its supplies")
            self.timer.spin()

    def _command(self, frame: bytes) -> None:
        self._ready()
        self.bus.exchange(self.select, frame)

    def _query(self, frame: bytes, length: int) -> bytes:
        self._command(frame)
        self._ready()
        return self.bus.exchange(self.select, b"\xff" * length)

    def _register(self, register: int) -> int:
        return int.from_bytes(self._query(bytes([READ_REGISTER, register]), 4), "little")

    def _change(self, command: int, register: int, value: int) -> None:
        """WRITE_REGISTER, WRITE_OR or WRITE_AND: a 32-bit value, little-endian."""
        self._command(bytes([command, register]) + value.to_bytes(4, "little"))

    # ---------------------------------------------------------------- start and scan

    def start(self) -> None:
        """`ChipError` when the chip does not answer its EEPROM as a PN5180 does."""
        version = self._query(bytes([READ_EEPROM, PRODUCT_VERSION, 2]), 2)
        if version[1] in (0x00, 0xFF):
            raise ChipError(f"PN5180 on GP{self.select} does not answer (reads "
                            f"0x{version[1]:02X})")
        self._command(bytes([RF_OFF, 0]))

    def scan(self) -> "list[str]":
        """The UIDs of every ISO 15693 tag in the zone (upper-case hex, most significant byte
        first, as printed on the tags)."""
        self._command(bytes([LOAD_RF_CONFIG, ISO15693_TX, ISO15693_RX]))
        self._command(bytes([RF_ON, 0]))
        found = []
        try:
            self.timer.sleep_us(POWER_UP_US)
            masks = []  # (length in bits, value): the collided slots still to ask again
            first = self._inventory(0, 0, True)[0]
            if first == COLLISION:
                masks.append((0, 0))
            elif first:
                found.append(first)
            rounds = 0
            while masks and rounds < MAX_ROUNDS:
                rounds += 1
                length, mask = masks.pop(0)
                slots = self._inventory(length, mask, False)
                for slot in range(len(slots)):
                    seen = slots[slot]
                    if seen == COLLISION:
                        if length + 4 <= 60:
                            masks.append((length + 4, mask | (slot << length)))
                    elif seen and seen not in found:
                        found.append(seen)
        finally:
            self._command(bytes([RF_OFF, 0]))
        return found

    def _inventory(self, length: int, mask: int, one_slot: bool) -> "list[str]":
        """One inventory request with the mask's ``length`` low UID bits: each slot's result."""
        request = bytes([FLAGS_1_SLOT if one_slot else FLAGS_16_SLOTS, INVENTORY, length])
        request += mask.to_bytes((length + 7) // 8, "little")
        # Data frames again (the last inventory's slots switched TX_CONFIG to EOF only).
        self._command(bytes([LOAD_RF_CONFIG, ISO15693_TX, ISO15693_RX]))
        slots = []
        for slot in range(1 if one_slot else 16):
            if slot == 1:
                self._change(WRITE_AND, TX_CONFIG, EOF_ONLY)
            # The transceive routine afresh for every slot: after an empty slot it would still
            # be waiting to receive, and would not send.
            self._change(WRITE_AND, SYSTEM_CONFIG, 0xFFFFFFF8)  # idle
            self._change(WRITE_OR, SYSTEM_CONFIG, TRANSCEIVE)
            self._change(WRITE_REGISTER, IRQ_CLEAR, ALL_IRQS)
            if slot == 0:
                self._command(bytes([SEND_DATA, 0]) + request)  # 0: every bit of the last byte
                air_us = int((len(request) + 2) * 8 * READER_BIT_US) + READER_FRAMING_US
            else:
                self._command(bytes([SEND_DATA, 0]))  # an EOF alone: the next slot
                air_us = int(READER_BIT_US) + 1
            slots.append(self._slot(air_us))
        return slots

    def _slot(self, air_us: int) -> str:
        """What came back in one slot."""
        timer = self.timer
        timer.sleep_us(air_us + T1_US + TAG_SOF_US + 40)  # an answer would have begun by now
        irq = self._register(IRQ_STATUS)
        if irq in (0, 0xFFFFFFFF):  # a live chip has at least TX_IRQ: its frame went out
            raise ChipError(f"PN5180 on GP{self.select} stopped answering (reads "
                            f"0x{irq:08X})")
        if not irq & (RX_SOF_DET_IRQ | RX_IRQ):
            return ""
        if not irq & RX_IRQ:
            timer.sleep_us(ANSWER_US - TAG_SOF_US + 20)  # the answer's length is known
            deadline = timer.now_us() + ANSWER_LIMIT_US
            while not self._register(IRQ_STATUS) & RX_IRQ:
                if timer.now_us() > deadline:
                    return COLLISION  # an answer that never ended: several at once
                timer.sleep_us(200)
        status = self._register(RX_STATUS)
        count = status & RX_BYTES
        if status & RX_ERRORS or count != 10:
            return COLLISION if count or status & RX_COLLISION else ""
        answer = self._query(bytes([READ_DATA, 0]), 10)
        if answer[0] & 0x01:  # the tag's error flag
            return ""
        # Flags, DSFID, then the UID least significant byte first.
        return "".join(f"{answer[k]:02X}" for k in range(9, 1, -1))
