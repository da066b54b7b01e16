"""A simulated NXP MFRC522 on a simulated SPI bus, with the ISO 14443A cards on its antenna.

It keeps the chip's registers and FIFO and runs the Transceive command as the chip does: the
frame goes out when StartSend is set, the cards in the field answer by ISO/IEC 14443-3 (REQA,
WUPA, anticollision, SELECT, HLTA, each card with its state: idle, ready, active, halt), their
answers are merged bit by bit (a collision sets ErrorReg.CollErr and CollReg.CollPos, counted
from the first bit of the first FIFO byte), and the interrupt bits come when the air time of
the exchange has passed on the bus's clock. The timer fires when no card answers. Cards answer
only when they have been in the field for ``power_up`` seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from drivers import mfrc522 as chip
from drivers.mfrc522 import BIT_TIME, crc_a
from drivers.scan import Clock
from drivers.simulated.field import TagField

FDT = 86e-6  # frame delay time of a card's answer (1172 / fc)
RESET_VALUES = {chip.COMMAND: 0x20, 0x02: 0x80, chip.COM_IRQ: 0x14, chip.COLL: 0x80,
                chip.MODE: 0x3F, chip.TX_CONTROL: 0x80, chip.CONTROL: 0x10}


@dataclass
class Card:
    uid: bytes
    state: str = "idle"  # idle, ready, active, halt (ISO/IEC 14443-3, figure 7)
    level: int = 0  # the cascade level it is at

    def cln(self, level: int) -> bytes:
        """The 40 bits of a cascade level: four bytes and their BCC."""
        uid = self.uid
        if len(uid) == 4:
            part = uid
        elif len(uid) == 7:
            part = bytes([chip.CASCADE_TAG]) + uid[:3] if level == 0 else uid[3:7]
        else:  # ten bytes: three levels
            part = (bytes([chip.CASCADE_TAG]) + uid[3 * level: 3 * level + 3] if level < 2
                    else uid[6:10])
        return part + bytes([chip.bcc(part)])

    @property
    def levels(self) -> int:
        return {4: 1, 7: 2}.get(len(self.uid), 3)


def _bits(data: bytes, count: int, start: int = 0) -> list[int]:
    return [(data[i // 8] >> (i % 8)) & 1 for i in range(start, count)]


class SimulatedMfrc522:
    """One module: its antenna is ``antenna`` of ``field``."""

    def __init__(self, field: TagField, antenna: int, clock: Clock, *, version: int = 0x92,
                 power_up: float = 0.002, miss: float = 0.0,
                 rng: random.Random | None = None) -> None:
        self.field, self.antenna, self.clock = field, antenna, clock
        self.version, self.power_up, self.miss = version, power_up, miss
        self.rng = rng or random.Random(antenna)
        self.alive = True  # False: unplugged, every read 0x00
        self.regs = bytearray(64)
        self.fifo = bytearray()
        self.cards: dict[str, Card] = {}
        self.powered: dict[str, float] = {}  # uid -> since when it has had the field
        self.field_on_at: float | None = None
        # the exchange on the air: (done at, sent at, answer bits or None, RxAlign, collision)
        self.pending: tuple[float, float, list[int] | None, int, int] | None = None
        # Cards selected in the scan under way. The field hears of their reading only when the
        # host looks at the REQA nobody answered, the scan's last exchange: from there the driver
        # reports them without touching the bus again, so a dealer who waits for the read pitches
        # the next card only once this one is on its way to the table, however slow the host.
        self._selected: list[str] = []
        self._quiet = False  # the last exchange was a REQA nobody answered
        self._reset()

    def _reset(self) -> None:
        self.regs[:] = bytes(64)
        for register, value in RESET_VALUES.items():
            self.regs[register] = value
        self.regs[chip.VERSION] = self.version
        self.fifo.clear()
        self.pending = None
        self._field(False)

    # ---------------------------------------------------------------- SPI

    def exchange(self, data: bytes) -> bytes:
        if not self.alive:
            return bytes(len(data))
        self._settle()
        if not data:
            return b""
        if data[0] & 0x80:  # a read: every byte but the last names the register to read
            out = bytearray([0])
            for address in data[:-1]:
                out.append(self._read((address >> 1) & 0x3F))
            return bytes(out)
        register = (data[0] >> 1) & 0x3F
        for value in data[1:]:
            self._write(register, value)
        return bytes(len(data))

    def deselected(self) -> None:
        pass

    def _read(self, register: int) -> int:
        if register == chip.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if register == chip.FIFO_LEVEL:
            return len(self.fifo)
        if register == chip.COM_IRQ and self._quiet:
            self._reported()
        if register == chip.STATUS2:
            return self._modem_state()
        return self.regs[register]

    def _modem_state(self) -> int:
        """Status2Reg's ModemState: transmitting, waiting for data, or receiving."""
        if self.pending is None:
            return chip.MODEM_IDLE
        _, tx_end, answer, _, _ = self.pending
        now = self.clock.now()
        if now < tx_end:
            return chip.MODEM_TRANSMITTING
        if answer is not None and now >= tx_end + FDT:
            return chip.MODEM_RECEIVING
        return chip.MODEM_WAIT_DATA

    def _write(self, register: int, value: int) -> None:
        regs = self.regs
        if register == chip.FIFO_DATA:
            if len(self.fifo) < 64:
                self.fifo.append(value)
            return
        if register == chip.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
            return
        if register == chip.COM_IRQ:  # Set1: 1 sets the marked bits, 0 clears them
            regs[register] = (regs[register] | (value & 0x7F) if value & 0x80
                              else regs[register] & ~(value & 0x7F) & 0xFF)
            return
        if register == chip.COMMAND:
            command = value & 0x0F
            if command == chip.SOFT_RESET:
                self._reset()
                return
            regs[register] = (regs[register] & 0x30) & ~0x10 | command
            if command == chip.IDLE:
                self.pending = None
            return
        if register == chip.TX_CONTROL:
            regs[register] = value
            self._field(bool(value & 0x03))
            return
        if register in (chip.VERSION, chip.ERROR):
            return
        regs[register] = value
        if register == chip.BIT_FRAMING and value & 0x80 \
                and regs[chip.COMMAND] & 0x0F == chip.TRANSCEIVE:
            self._send()

    # ---------------------------------------------------------------- the field and the cards

    def _field(self, on: bool) -> None:
        now = self.clock.now()
        if on and self.field_on_at is None:
            self.field_on_at = now
            for uid in self.field.tags(self.antenna):  # powered from now on
                self.cards[uid] = Card(bytes.fromhex(uid))
                self.powered[uid] = now
        elif not on:
            # Not yet read: the driver switches the field off at the start of a full scan, and
            # reports what this scan selected only when the whole scan ends (the REQA nobody
            # answers, `_read`). Marked read here, a card was "read" while the driver had not
            # said so, and the dealer's next card, on another antenna, could be reported first
            # (a misdeal alert under a loaded host's scheduling).
            self.field_on_at = None
            self.cards.clear()  # without power every card forgets its state
            self.powered.clear()

    def _reported(self) -> None:
        """The scan's selected cards are read (see ``_selected``)."""
        self._quiet = False
        selected, self._selected = self._selected, []
        for uid in selected:
            self.field.mark_read(self.antenna, uid)

    def _cards_in_field(self) -> list[Card]:
        """The cards powered long enough to answer, each with its state."""
        if self.field_on_at is None:
            return []
        now = self.clock.now()
        here = self.field.tags(self.antenna)
        for uid in list(self.cards):
            if uid not in here:
                del self.cards[uid]
                self.powered.pop(uid, None)
        ready = []
        for uid in here:
            placed = self.field.placed_at(self.antenna, uid)
            if uid in self.cards and placed is not None and placed > self.powered[uid]:
                del self.cards[uid]  # lifted and laid again: it lost its power, and its halt
            if uid not in self.cards:
                self.cards[uid] = Card(bytes.fromhex(uid))
                placed = self.field.placed_at(self.antenna, uid)
                self.powered[uid] = now if placed is None else min(placed, now)
            if now - max(self.powered[uid], self.field_on_at) >= self.power_up:
                ready.append(self.cards[uid])
        return ready

    def _send(self) -> None:
        """StartSend: the FIFO goes out; the answer arrives after its air time."""
        regs = self.regs
        framing = regs[chip.BIT_FRAMING]
        tx_last, rx_align = framing & 0x07, (framing >> 4) & 0x07
        frame = bytes(self.fifo)
        self.fifo.clear()
        regs[chip.BIT_FRAMING] = framing & 0x7F
        bits = len(frame) * 8 - (8 - tx_last if tx_last else 0)
        answers = [a for a in self._answers(frame, bits) if self.rng.random() >= self.miss]
        self._quiet = bits == 7 and not answers
        now = self.clock.now()
        tx_end = now + (len(frame) * 9 + 2) * BIT_TIME
        if not answers:
            timer = (2 * regs[chip.T_PRESCALER] + 1) * (
                (regs[chip.T_RELOAD_H] << 8 | regs[chip.T_RELOAD_L]) + 1) / 13.56e6
            self.pending = (tx_end + timer, tx_end, None, rx_align, -1)
            return
        merged, collision = _merge(answers)
        done = tx_end + FDT + (len(merged) * 9 // 8 + 2) * BIT_TIME
        self.pending = (done, tx_end, merged, rx_align, collision)

    def _answers(self, frame: bytes, bits: int) -> list[list[int]]:
        cards = self._cards_in_field()
        if bits == 7 and frame[:1] in (b"\x26", b"\x52"):
            wake = frame[0] == 0x52
            out = []
            for card in cards:
                if card.state == "idle" or (wake and card.state == "halt"):
                    card.state, card.level = "ready", 0
                    out.append(_bits(b"\x44\x00", 16))  # ATQA of an NTAG21x
                elif card.state in ("ready", "active"):
                    card.state = "idle"
            return out
        if bits < 16:
            return []
        if frame[0] == chip.HLTA and len(frame) == 4 and frame[1] == 0 \
                and crc_a(frame[:2]) == frame[2:]:
            for card in cards:
                if card.state == "active":
                    card.state = "halt"
            return []
        if frame[0] in chip.SEL:
            level = chip.SEL.index(frame[0])
            nvb = frame[1]
            if nvb == 0x70 and len(frame) == 9 and bits == 72:
                if crc_a(frame[:7]) != frame[7:]:
                    return []
                out = []
                for card in cards:
                    if card.state == "ready" and card.level == level \
                            and card.cln(level) == frame[2:7]:
                        last = level == card.levels - 1
                        if last:
                            self._selected.append(card.uid.hex().upper())
                        sak = bytes([0x00 if last else 0x04])
                        card.state = "active" if last else "ready"
                        card.level = level + (0 if last else 1)
                        out.append(_bits(sak + crc_a(sak), 24))
                    elif card.state in ("ready", "active"):
                        card.state = "idle"
                return out
            known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
            if known != bits - 16 or known >= 40:
                return []
            prefix = _bits(frame[2:], known)
            out = []
            for card in cards:
                if card.state != "ready" or card.level != level:
                    continue
                cln = card.cln(level)
                if _bits(cln, known) == prefix:
                    out.append(_bits(cln, 40, known))
            return out
        for card in cards:  # anything else: a card that was talking goes back to sleep
            if card.state in ("ready", "active"):
                card.state = "idle"
        return []

    def _settle(self) -> None:
        """The exchange in progress, as far as the clock has come."""
        if self.pending is None:
            return
        done, tx_end, answer, rx_align, collision = self.pending
        now = self.clock.now()
        regs = self.regs
        if now >= tx_end:
            regs[chip.COM_IRQ] |= chip.TX_IRQ
        if now < done:
            return
        self.pending = None
        if answer is None:
            regs[chip.COM_IRQ] |= chip.TIMER_IRQ
            return
        stream = [0] * rx_align + answer
        error = 0
        if collision >= 0:
            error |= chip.COLL_ERR
            position = rx_align + collision + 1
            values_after = regs[chip.COLL] & 0x80
            if not values_after:
                for k in range(rx_align + collision + 1, len(stream)):
                    stream[k] = 0
            regs[chip.COLL] = values_after | (position & 0x1F if position <= 32 else 0x20)
        data = bytearray((len(stream) + 7) // 8)
        for k, bit in enumerate(stream):
            data[k // 8] |= bit << (k % 8)
        self.fifo[:] = data
        regs[chip.CONTROL] = (regs[chip.CONTROL] & 0xF8) | (len(stream) % 8)
        regs[chip.ERROR] = error
        regs[chip.COM_IRQ] |= chip.RX_IRQ | chip.IDLE_IRQ | (chip.ERR_IRQ if error else 0)
        regs[chip.COMMAND] = regs[chip.COMMAND] & 0xF0  # back to Idle


def _merge(answers: list[list[int]]) -> tuple[list[int], int]:
    """Several cards answering at once: the bits where they agree, and the index of the first
    bit where they do not (-1 without a collision). At a collision the reader sees both levels
    at once; the bit is read as 1."""
    length = max(len(a) for a in answers)
    merged, collision = [], -1
    for k in range(length):
        values = {a[k] for a in answers if k < len(a)}
        if len(values) > 1 and collision < 0:
            collision = k
        merged.append(1 if 1 in values else 0)
    return merged, collision
