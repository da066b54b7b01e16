"""A simulated NXP PN5180 and the ISO 15693 chips in its zone.

The host interface as the datasheet has it: a frame while NSS is low, executed when NSS goes
high, BUSY high meanwhile (a frame sent while BUSY is high is lost and counted in
``protocol_errors``); an answering command's answer clocked out by the next frame. Registers are
32-bit; IRQ_STATUS and RX_STATUS follow the exchange on the air as time passes on the bus's
clock. Tags answer inventories by ISO/IEC 15693-3 (the slot is the four UID bits after the mask);
two or more in one slot collide (RX_STATUS collision bit, garbled data); a tag in a stack misses
an answer now and then (``miss``). An addressed Stay quiet (ISO/IEC 15693-3, 10.4.4) silences its
tag for inventories until the field goes off, once the request has gone out on the air: setting
the routine idle before then aborts it, as the chip does.

`BusyPin` is a gpiozero mock pin whose level is that of the BUSY lines of the chips wired to it
(several through diodes: high while any is busy).
"""

from __future__ import annotations

import random

from gpiozero.pins.mock import MockPin

from drivers import pn5180 as chip
from drivers.scan import Clock
from drivers.simulated.field import TagField

EEPROM = {chip.PRODUCT_VERSION: bytes([0x05, 0x03]), chip.FIRMWARE_VERSION: bytes([0x01, 0x04])}
TX_CONFIG_LOADED = 0x000007C8  # what LOAD_RF_CONFIG leaves in TX_CONFIG: data frames on
BUSY_COMMAND = 15e-6  # s BUSY stays high after a frame
BUSY_RF_ON = 150e-6


class SimulatedPn5180:
    def __init__(self, field: TagField, antenna: int, clock: Clock, *, miss: float = 0.0,
                 rng: random.Random | None = None) -> None:
        self.field, self.antenna, self.clock = field, antenna, clock
        self.miss = miss  # chance that a chip in a stack misses one answer
        self.rng = rng or random.Random(1000 + antenna)
        self.alive = True
        self.regs: dict[int, int] = {chip.TX_CONFIG: TX_CONFIG_LOADED}
        self._busy_until = 0.0
        self.busy_line: BusyPin | None = None
        self.frame = bytearray()
        self.readout: bytes | None = None  # an answer waiting for the host's next frame
        self.reading = False
        self.rf_on_at: float | None = None
        self.received = b""
        self.protocol_errors = 0
        # the inventory under way: mask length, mask, one slot only, the slot now
        self.inventory: tuple[int, int, bool, int] | None = None
        # the exchange on the air: sent at, SOF at, done at, data, RX_STATUS
        self.pending: tuple[float, float, float, bytes, int] | None = None
        self.quiet: set[int] = set()  # tags told to stay quiet (until the field goes off)
        self.quieting: tuple[float, int] | None = None  # a Stay quiet on the air: done at, UID
        self.state = "idle"  # the transceive routine: idle, wait_transmit, busy

    @property
    def busy_until(self) -> float:
        return self._busy_until

    @busy_until.setter
    def busy_until(self, until: float) -> None:
        self._busy_until = until
        if self.busy_line is not None:  # the line's latest fall, so an idle line costs nothing
            self.busy_line.until = max(getattr(self.busy_line, "until", 0.0), until)

    def busy(self) -> bool:
        return self.alive and self.clock.now() < self._busy_until

    # ---------------------------------------------------------------- SPI

    def exchange(self, data: bytes) -> bytes:
        if not self.alive:
            return bytes(len(data))
        if self.busy():
            self.protocol_errors += 1
            self.frame = bytearray(b"\x00")  # lost
            return b"\xff" * len(data)
        if self.readout is not None:
            out = (self.readout + b"\xff" * len(data))[: len(data)]
            self.readout, self.reading = None, True
            return out
        self.frame.extend(data)
        return b"\xff" * len(data)

    def deselected(self) -> None:
        if not self.alive:
            return
        now = self.clock.now()
        if self.reading:
            self.reading = False
            self.busy_until = now + BUSY_COMMAND / 3
            return
        frame, self.frame = bytes(self.frame), bytearray()
        if not frame:
            return
        self.busy_until = now + BUSY_COMMAND
        self._command(frame, now)

    # ---------------------------------------------------------------- commands

    def _command(self, frame: bytes, now: float) -> None:
        code, args = frame[0], frame[1:]
        if code in (chip.WRITE_REGISTER, chip.WRITE_OR, chip.WRITE_AND) and len(args) == 5:
            register, value = args[0], int.from_bytes(args[1:5], "little")
            old = self._register(register)
            new = {chip.WRITE_REGISTER: value, chip.WRITE_OR: old | value,
                   chip.WRITE_AND: old & value}[code]
            self._set(register, new)
        elif code == chip.READ_REGISTER and len(args) == 1:
            self.readout = self._register(args[0]).to_bytes(4, "little")
        elif code == chip.READ_EEPROM and len(args) == 2:
            image = bytearray(256)
            for address, content in EEPROM.items():
                image[address: address + len(content)] = content
            self.readout = bytes(image[args[0]: args[0] + args[1]])
        elif code == chip.READ_DATA:
            self.readout = self.received
        elif code == chip.LOAD_RF_CONFIG and len(args) == 2:
            self.regs[chip.TX_CONFIG] = TX_CONFIG_LOADED
        elif code == chip.RF_ON:
            if self.rf_on_at is None:
                self.rf_on_at = now
            self.busy_until = now + BUSY_RF_ON
        elif code == chip.RF_OFF:
            self.rf_on_at = None
            self.inventory = None
            self.pending = None
            self.quiet.clear()  # unpowered, every tag forgets it was told to stay quiet
            self.quieting = None
        elif code == chip.SEND_DATA and args:
            self._send(args[1:], now)
        else:
            self._set(chip.IRQ_STATUS, self.regs.get(chip.IRQ_STATUS, 0) | chip.GENERAL_ERROR_IRQ)

    def _set(self, register: int, value: int) -> None:
        value &= 0xFFFFFFFF
        if register == chip.IRQ_CLEAR:
            self.regs[chip.IRQ_STATUS] = self.regs.get(chip.IRQ_STATUS, 0) & ~value
            return
        if register == chip.SYSTEM_CONFIG:
            command = value & 0x07
            if command == 0:
                self.state = "idle"
                self._quieted(abort=True)
            elif command == chip.TRANSCEIVE and self.state == "idle":
                self.state = "wait_transmit"
        self.regs[register] = value

    def _register(self, register: int) -> int:
        self._settle()
        return self.regs.get(register, 0)

    # ---------------------------------------------------------------- the air

    def _send(self, data: bytes, now: float) -> None:
        if self.state != "wait_transmit" or self.rf_on_at is None:
            self._set(chip.IRQ_STATUS, self.regs.get(chip.IRQ_STATUS, 0) | chip.GENERAL_ERROR_IRQ)
            return
        self.state = "busy"
        self._set(chip.RX_STATUS, 0)
        eof_only = not self.regs.get(chip.TX_CONFIG, 0) & 0x4C0
        if not eof_only and len(data) >= 10 and data[0] & 0x20 and data[1] == chip.STAY_QUIET:
            self.inventory = None
            done = now + (len(data) + 2) * 8 * chip.BIT + 113e-6
            if not (len(self.field.tags(self.antenna)) > 1 and self.rng.random() < self.miss):
                self.quieting = (done, int.from_bytes(data[2:10], "little"))
            return  # no answer: the routine waits to receive until the host restarts it
        if eof_only:
            if self.inventory is None:
                return
            length, mask, one, slot = self.inventory
            self.inventory = (length, mask, one, slot + 1)
            sent = now + chip.BIT
        else:
            if len(data) < 3 or data[1] != chip.INVENTORY or not data[0] & 0x04:
                self.inventory = None
                return
            length = data[2]
            mask = int.from_bytes(data[3: 3 + (length + 7) // 8], "little") & ((1 << length) - 1)
            self.inventory = (length, mask, bool(data[0] & 0x20), 0)
            sent = now + (len(data) + 2) * 8 * chip.BIT + 113e-6
        length, mask, one, slot = self.inventory
        tags = [t for t in self.field.tags(self.antenna) if len(t) == 16]
        stacked = len(tags) > 1
        answering = []
        for uid in tags:
            value = int(uid, 16)
            if value in self.quiet or value & ((1 << length) - 1) != mask:
                continue
            if not one and (value >> length) & 0xF != slot:
                continue
            if stacked and self.rng.random() < self.miss:
                continue
            answering.append(value)
        if not answering:
            self.pending = (sent, float("inf"), sent + chip.T1, b"", 0)
            return
        sof = sent + chip.T1
        done = sof + chip.ANSWER
        if len(answering) == 1:
            self.field.mark_read(self.antenna, f"{answering[0]:016X}")
            data_out = bytes([0, 0]) + answering[0].to_bytes(8, "little")
            self.pending = (sent, sof, done, data_out, 10)
        else:  # the answers overlay: Manchester collisions, and a CRC that fails
            garbled = bytes(self.rng.randrange(256) for _ in range(10))
            status = 10 | chip.RX_COLLISION | chip.RX_INTEGRITY_ERROR
            self.pending = (sent, sof, done, garbled, status | (self.rng.randrange(80) << 19))

    def _quieted(self, *, abort: bool = False) -> None:
        if self.quieting is None:
            return
        done, uid = self.quieting
        if self.clock.now() >= done:
            self.quiet.add(uid)
            self.quieting = None
        elif abort:  # idle before the request had gone out: it never reached the tag
            self.quieting = None

    def _settle(self) -> None:
        self._quieted()
        if self.pending is None:
            return
        sent, sof, done, data, status = self.pending
        now = self.clock.now()
        irq = self.regs.get(chip.IRQ_STATUS, 0)
        if now >= sent:
            irq |= chip.TX_IRQ
        if sof != float("inf") and now >= sof:
            irq |= chip.RX_SOF_DET_IRQ
        if now >= done:
            irq |= chip.RX_IRQ if status else 0
            self.received = data
            self.regs[chip.RX_STATUS] = status
            self.pending = None
            # After a reception the routine waits to transmit again; after a slot nobody
            # answered it still waits to receive, until the host restarts it.
            self.state = "wait_transmit" if status else "wait_receive"
        self.regs[chip.IRQ_STATUS] = irq


class BusyPin(MockPin):  # type: ignore[misc]
    """The BUSY line the driver reads: high while any chip wired to it is busy."""

    chips: list[SimulatedPn5180]

    def wire(self, chip: SimulatedPn5180) -> None:
        if not hasattr(self, "chips"):
            self.chips = []
        self.chips.append(chip)
        chip.busy_line = self

    def _get_state(self) -> bool:
        # The host speaks to one chip at a time, so the latest fall of any chip's BUSY is the
        # line's (a chip that died while busy holds it high for those microseconds only).
        until = getattr(self, "until", 0.0)
        return bool(until) and self.chips[0].clock.now() < until
