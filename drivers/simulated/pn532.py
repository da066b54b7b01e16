"""A simulated NXP PN532 on a serial port (a pty), with the ISO 14443A cards on its antenna.

A thread reads what the host sends, decodes its frames with the driver's codec and answers as
the PN532 does (UM0701-02): an ACK, then the answer frame; a NACK for a frame with a bad LCS or
DCS; its last answer again for the host's NACK; the error frame for a command it does not know.

The commands a table's scan uses: GetFirmwareVersion, SAMConfiguration, RFConfiguration (the
field on and off; the other items accepted), InListPassiveTarget at 106 kbit/s type A (each card
in the field that is not halted, as an NTAG21x: SENS_RES 0x0044, SEL_RES 0x00, a 7-byte UID),
InCommunicateThru with HLTA (the card listed last halts; no answer, so status 0x01), InRelease
and InDeselect. Switching the field off wakes every halted card. ``alive`` False is a module
that is unplugged or unpowered: it answers nothing. ``miss`` is the chance that a card is not
listed by one InListPassiveTarget.
"""

from __future__ import annotations

import os
import random
import select
import threading
from collections import deque

from drivers import pn532 as chip
from drivers.pn532 import CHIP, ERROR_FRAME, HOST, Pn532Decoder, Pn532Frame, encode_frame
from drivers.simulated.field import TagField
from drivers.simulators import VirtualSerialDevice

FIRMWARE = bytes([chip.IC_PN532, 0x01, 0x06, 0x07])  # PN532 v1.6; ISO 14443A, B and 18092
SENS_RES = bytes([0x00, 0x44])  # an NTAG21x's ATQA, high byte first as the PN532 gives it
SEL_RES = 0x00  # SAK: a type 2 tag, no ISO/IEC 14443-4
POLL = 0.05  # s the thread waits for the host before it looks whether it should stop


class SimulatedPn532:
    """The module behind ``device``; its antenna is ``antenna`` of ``field``."""

    def __init__(self, device: VirtualSerialDevice, field: TagField, antenna: int = 0, *,
                 miss: float = 0.0, rng: random.Random | None = None) -> None:
        self.device, self.field, self.antenna = device, field, antenna
        self.miss = miss
        self.rng = rng or random.Random(antenna)
        self.alive = True
        self.field_on = False
        self.halted: set[str] = set()
        self.selected: str | None = None  # the card an HLTA reaches
        self.commands: deque[int] = deque(maxlen=64)  # the last command codes received
        self._last: bytes | None = None  # the last answer, sent again on a NACK
        self._decoder = Pn532Decoder()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-pn532", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    # ---------------------------------------------------------------- the serial line

    def _receive(self) -> bytes:
        """What the host sent (b"" after ``POLL`` without any). The device's master end is
        read here; it changes when the device is plugged in again, and is closed by unplug()
        at any time, so it is read only while it is still the device's."""
        device = self.device
        with device._lock:
            master = device._master
        if master is None:
            self._stop.wait(POLL)
            return b""
        try:
            ready, _, _ = select.select([master], [], [], POLL)
        except (OSError, ValueError):  # closed meanwhile
            return b""
        if not ready:
            return b""
        with device._lock:
            if device._master != master:
                return b""
            try:
                return os.read(master, 4096)
            except BlockingIOError:
                return b""
            except OSError:
                pass  # EIO: nobody has the port open; the master reads ready until they do
        self._stop.wait(0.005)
        return b""

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self._receive()
            if not data:
                continue
            if not self.alive:
                self._decoder = Pn532Decoder()  # what it heard while unpowered is gone
                continue
            checksums = self._decoder.bad_checksums
            frames = self._decoder.feed(data)
            if self._decoder.bad_checksums > checksums:
                self.device.write(chip.NACK)
            for frame in frames:
                self._handle(frame)

    def _handle(self, frame: Pn532Frame) -> None:
        if frame.kind == "nack":
            if self._last is not None:
                self.device.write(self._last)
            return
        if frame.kind != "data" or frame.tfi != HOST:
            return  # the host's ACK aborts a command: nothing here runs long enough
        code, data = frame.payload[0], frame.payload[1:]
        self.commands.append(code)
        self.device.write(chip.ACK)
        answer = self._answer(code, data)
        self._last = ERROR_FRAME if answer is None else encode_frame(CHIP, bytes([code + 1])
                                                                     + answer)
        self.device.write(self._last)

    # ---------------------------------------------------------------- the commands

    def _answer(self, code: int, data: bytes) -> bytes | None:
        """The answer's data after its command code; None for the error frame."""
        if code == chip.GET_FIRMWARE_VERSION:
            return FIRMWARE
        if code == chip.SAM_CONFIGURATION:
            return b"" if data[:1] == b"\x01" else None  # only normal mode here
        if code == chip.RF_CONFIGURATION:
            if not data:
                return None
            if data[0] == chip.RF_FIELD and len(data) == 2:
                self._field(bool(data[1] & 0x01))
            return b""
        if code == chip.IN_LIST_PASSIVE_TARGET:
            return self._list(data)
        if code == chip.IN_COMMUNICATE_THRU:
            if data == chip.HLTA and self.selected is not None:
                self.halted.add(self.selected)
            self.selected = None  # whatever was sent, no card answers it here
            return bytes([chip.STATUS_TIMEOUT])
        if code in (chip.IN_RELEASE, chip.IN_DESELECT):
            self.selected = None
            return b"\x00"
        return None

    def _field(self, on: bool) -> None:
        if not on:
            self.halted.clear()  # without power every card forgets it was halted
            self.selected = None
        self.field_on = on

    def _list(self, data: bytes) -> bytes | None:
        if len(data) < 2 or data[0] not in (1, 2):
            return None
        if data[1] != chip.TYPE_A_106:
            return b"\x00"  # only type A cards lie here
        self._field(True)  # the PN532 switches the field on to poll
        here = self.field.tags(self.antenna)
        self.halted &= set(here)  # a card taken away loses its power, and its halt with it
        found = [uid for uid in here
                 if uid not in self.halted and self.rng.random() >= self.miss][:data[0]]
        # One card at a time is active (ISO/IEC 14443-3): to select a second the first is
        # halted. The one selected last is the one an HLTA reaches.
        self.halted.update(found[:-1])
        self.selected = found[-1] if found else None
        for uid in found:
            self.field.mark_read(self.antenna, uid)
        answer = bytearray([len(found)])
        for tg, uid in enumerate(found, 1):
            nfcid = bytes.fromhex(uid)
            answer += bytes([tg]) + SENS_RES + bytes([SEL_RES, len(nfcid)]) + nfcid
        return bytes(answer)
