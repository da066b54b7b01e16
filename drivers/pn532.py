"""NXP PN532 on a serial port (HSU, 115200 baud): every ISO 14443A card on its one antenna.

Unlike the MFRC522, the PN532 runs the card protocol itself; the host sends it commands in
frames and reads its answers (NXP PN532 User Manual UM0701-02: "Host controller communication
protocol" for the frames, "Commands supported" for the commands). The PN532 acknowledges a
command with an ACK frame, then answers in an information frame whose command code is the
command's plus one. The host answers a garbled frame with a NACK, and the PN532 sends its last
answer again.

A frame: preamble ``00``, start code ``00 FF``, LEN (TFI and data), LCS (LEN + LCS = 0 mod 256),
TFI (``D4`` host to PN532, ``D5`` back), the data, DCS (TFI + data + DCS = 0 mod 256),
postamble ``00``. An extended frame has ``FF FF`` where LEN and LCS go, then LENM LENL and their
checksum. ACK is ``00 00 FF 00 FF 00``, NACK ``00 00 FF FF 00 00``, and the error frame
``00 00 FF 01 FF 7F 81 00`` says the PN532 could not make sense of a command.

A scan switches the field on, waits for the cards to power up, then repeats: InListPassiveTarget
(one card at 106 kbit/s, type A; the PN532 does REQA, anticollision and SELECT itself), then HLTA
through InCommunicateThru, so that the card keeps quiet; until nobody answers. It switches the
field off again, which wakes every halted card for the next scan.
"""

from __future__ import annotations

import termios
import time
from dataclasses import dataclass
from typing import Literal, Protocol

from drivers.scan import MOST_TAGS, ChipError, Clock, Reading, Scan

# pyserial's SerialException is an OSError; reset_input_buffer on a dead tty raises termios's.
SERIAL_ERRORS = (OSError, termios.error)

START = b"\x00\xff"
HOST, CHIP, ERROR_TFI = 0xD4, 0xD5, 0x7F
ACK = bytes.fromhex("0000ff00ff00")
NACK = bytes.fromhex("0000ffff0000")
ERROR_FRAME = bytes.fromhex("0000ff01ff7f8100")
MAX_LENGTH = 300  # TFI and data: the PN532's buffer holds 264 bytes, so a longer LEN is noise

# Commands.
GET_FIRMWARE_VERSION, SAM_CONFIGURATION, RF_CONFIGURATION = 0x02, 0x14, 0x32
IN_COMMUNICATE_THRU, IN_DESELECT, IN_LIST_PASSIVE_TARGET, IN_RELEASE = 0x42, 0x44, 0x4A, 0x52
# RFConfiguration items.
RF_FIELD, TIMINGS, MAX_RETRIES = 0x01, 0x02, 0x05
IC_PN532 = 0x32
TYPE_A_106 = 0x00  # InListPassiveTarget BrTy: 106 kbit/s, ISO/IEC 14443 type A
STATUS_TIMEOUT = 0x01  # InCommunicateThru: the card did not answer
HLTA = bytes([0x50, 0x00])  # the PN532 adds the CRC

# HSU wake-up: 0x55 wakes the PN532 from power-down; the zeros give its oscillator time to start
# before the first frame. The ACK after them aborts a command a previous run left running.
WAKE_UP = b"\x55\x55" + bytes(14) + ACK
ANSWER_TIMEOUT = 0.05  # s; the PN532 answers any command the scan sends within a few ms
WAKE_TIMEOUT = 0.1  # s for the first command after the wake-up
READ_SLICE = 0.01  # s a read of the port blocks at most, so that the driver keeps its deadlines
MAX_CARDS = MOST_TAGS["cards"]  # a scan's tags by default (a reader of chips: MOST_TAGS)


# ---------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class Pn532Frame:
    kind: Literal["ack", "nack", "error", "data"]
    tfi: int = 0
    payload: bytes = b""  # PD0..PDn: the command code, then its data


def encode_frame(tfi: int, data: bytes) -> bytes:
    """The information frame carrying ``data`` (the command code first) from ``tfi``'s side;
    an extended frame when it does not fit a normal one."""
    body = bytes([tfi]) + data
    length = len(body)
    if length > 0xFFFF:
        raise ValueError(f"a PN532 frame carries at most 65535 bytes, not {length}")
    if length < 0xFF:
        head = bytes([length, -length & 0xFF])
    else:
        high, low = length >> 8, length & 0xFF
        head = bytes([0xFF, 0xFF, high, low, -(high + low) & 0xFF])
    return b"\x00" + START + head + body + bytes([-sum(body) & 0xFF, 0x00])


def _frame(body: bytes | bytearray) -> Pn532Frame | None:
    tfi = body[0]
    if tfi == ERROR_TFI and len(body) == 1:
        return Pn532Frame("error", ERROR_TFI)
    if tfi in (HOST, CHIP) and len(body) >= 2:
        return Pn532Frame("data", tfi, bytes(body[1:]))
    return None


class Pn532Decoder:
    """Frames from either side of the link, from bytes in pieces of any size.

    It never raises on input. Zero bytes between frames are the line at rest (preambles,
    postambles, the wake-up). Everything else that is not a valid frame counts once in ``bad``:
    a candidate frame that fails (LCS, DCS, its TFI, a length no PN532 sends) with its tail up to
    the next start code, and a run of stray bytes between frames. After a failed candidate it
    resynchronises on the next start code, so a frame that starts inside a cut-off one still
    comes out. ``bad_checksums`` counts the candidates that failed on LCS or DCS."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._in_rubble = False
        self.frames = 0
        self.bad = 0
        self.bad_checksums = 0

    def feed(self, data: bytes) -> list[Pn532Frame]:
        self._buffer.extend(data)
        return self._decode()

    def finish(self) -> list[Pn532Frame]:
        """End of input: a frame cut off at the end counts as bad; the frames that started
        inside it still come out."""
        out: list[Pn532Frame] = []
        while self._buffer.startswith(START):
            self._failed()
            out += self._decode()
        self._buffer.clear()
        self._in_rubble = False
        return out

    def _rubble(self) -> None:
        if not self._in_rubble:
            self.bad += 1
            self._in_rubble = True

    def _failed(self, checksum: bool = False) -> None:
        self.bad += 1
        self.bad_checksums += int(checksum)
        self._in_rubble = True  # its tail up to the next start code belongs to it
        del self._buffer[:1]

    def _decode(self) -> list[Pn532Frame]:
        buffer = self._buffer
        out: list[Pn532Frame] = []
        while buffer:
            start = buffer.find(START)
            if start != 0:
                # Keep a last 0x00: it may be the first byte of a start code.
                end = start if start > 0 else len(buffer) - (buffer[-1] == 0)
                if any(buffer[:end]):
                    self._rubble()
                del buffer[:end]
                if start < 0:
                    break
            if len(buffer) < 4:
                break
            length, lcs = buffer[2], buffer[3]
            if (length, lcs) in ((0x00, 0xFF), (0xFF, 0x00)):
                del buffer[:4]
                out.append(Pn532Frame("ack" if length == 0 else "nack"))
                self._in_rubble = False
                self.frames += 1
                continue
            head = 4
            if (length, lcs) == (0xFF, 0xFF):  # extended frame
                if len(buffer) < 7:
                    break
                length, head = buffer[4] << 8 | buffer[5], 7
                if (buffer[4] + buffer[5] + buffer[6]) & 0xFF:
                    self._failed(checksum=True)
                    continue
            elif (length + lcs) & 0xFF:
                self._failed(checksum=True)
                continue
            if not 1 <= length <= MAX_LENGTH:
                self._failed()
                continue
            if len(buffer) < head + length + 1:
                break  # wait for the rest of the frame
            body = buffer[head: head + length]
            if (sum(body) + buffer[head + length]) & 0xFF:
                self._failed(checksum=True)
                continue
            frame = _frame(body)
            if frame is None:
                self._failed()
                continue
            del buffer[: head + length + 1]  # the postamble is a zero at rest
            out.append(frame)
            self._in_rubble = False
            self.frames += 1
        return out


@dataclass(frozen=True, slots=True)
class Target:
    """A card InListPassiveTarget found at 106 kbit/s type A."""

    tg: int  # the number the PN532 gave it
    sens_res: int  # ATQA
    sel_res: int  # SAK
    uid: bytes  # NFCID1
    ats: bytes = b""  # only from an ISO/IEC 14443-4 card


def parse_targets(data: bytes) -> list[Target] | None:
    """The cards in an InListPassiveTarget answer (its data after the command code: NbTg, then
    each target); None when it does not add up."""
    if not data or data[0] > 2:
        return None
    targets: list[Target] = []
    at = 1
    for _ in range(data[0]):
        if len(data) < at + 5:
            return None
        tg, sel_res, size = data[at], data[at + 3], data[at + 4]
        sens_res = data[at + 1] << 8 | data[at + 2]  # the PN532 gives it high byte first
        at += 5
        if size not in (4, 7, 10) or len(data) < at + size:
            return None
        uid = data[at: at + size]
        at += size
        ats = b""
        if sel_res & 0x20:  # ISO/IEC 14443-4 compliant: the PN532 sent RATS; the ATS follows
            if len(data) <= at or not 1 <= data[at] <= len(data) - at:
                return None
            ats = data[at: at + data[at]]
            at += len(ats)
        targets.append(Target(tg, sens_res, sel_res, uid, ats))
    return targets if at == len(data) else None


# ---------------------------------------------------------------- the host driver


class SerialPort(Protocol):
    """What the driver uses of a pyserial port (`serial.serial_for_url`)."""

    timeout: float | None

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def reset_input_buffer(self) -> None: ...

    def open(self) -> None: ...

    def close(self) -> None: ...


class Pn532:
    """The module on a serial port; the caller opens the port (115200 baud) and closes it. The
    driver shortens the port's read timeout to ``READ_SLICE`` so that it keeps its own
    deadlines; a port that failed (an adapter unplugged) is opened again by `start`."""

    def __init__(self, port: SerialPort, clock: Clock, *, power_up: float = 0.005,
                 timeout: float = ANSWER_TIMEOUT, most: int = MAX_CARDS) -> None:
        self.port, self.clock = port, clock
        self.most = most  # tags a scan lists (`MOST_TAGS`)
        self.power_up = power_up  # s a card needs in the field before it answers (14443-3)
        self.timeout = timeout  # s the PN532 has to acknowledge and answer a command
        if port.timeout is None or port.timeout > READ_SLICE:
            port.timeout = READ_SLICE
        self._broken = False

    # ---------------------------------------------------------------- the serial port

    def _serial(self, what: str, exc: BaseException) -> ChipError:
        self._broken = True
        return ChipError(f"its serial port failed to {what} ({exc}): is its USB adapter still "
                         "plugged in?")

    def _write(self, data: bytes) -> None:
        try:
            self.port.write(data)
        except SERIAL_ERRORS as exc:
            raise self._serial("write", exc) from None

    def _read(self) -> bytes:
        try:
            return bytes(self.port.read(max(1, self.port.in_waiting)))
        except SERIAL_ERRORS as exc:
            raise self._serial("read", exc) from None

    def _reopen(self) -> None:
        try:
            self.port.close()
            self.port.open()
        except SERIAL_ERRORS as exc:
            raise ChipError(f"its serial port does not open ({exc}): is its USB adapter "
                            "plugged in?") from None
        self._broken = False

    def command(self, code: int, data: bytes = b"", *, timeout: float | None = None) -> bytes:
        """Send a command; its answer's data after the command code. `ChipError` when the
        PN532 does not answer in time, rejects the command, or the port fails."""
        try:
            self.port.reset_input_buffer()  # a late answer to an earlier command
        except SERIAL_ERRORS as exc:
            raise self._serial("flush", exc) from None
        self._write(encode_frame(HOST, bytes([code]) + data))
        decoder = Pn532Decoder()
        wait = timeout or self.timeout
        deadline = time.monotonic() + wait
        acked = retried = False
        while True:
            bad = decoder.bad
            for frame in decoder.feed(self._read()):
                if frame.kind == "ack":
                    acked = True
                elif frame.kind == "error":
                    raise ChipError(f"rejects command 0x{code:02X} (it answers with its error "
                                    "frame)")
                elif frame.tfi == CHIP and frame.payload[0] == code + 1:
                    return frame.payload[1:]
                # a NACK, or an answer to something else: not ours
            now = time.monotonic()
            # Only once the command is acknowledged: before, a NACK would bring the answer to
            # the command before this one (and rubble before the ACK is no answer anyway).
            if acked and not retried and (decoder.bad > bad or now > deadline):
                self._write(NACK)  # the PN532 sends its answer again
                retried, deadline = True, now + wait
                continue
            if now > deadline:
                if acked:
                    raise ChipError(f"acknowledges command 0x{code:02X} but does not answer it")
                if decoder.bad:
                    raise ChipError("sends only garbled frames: check that the port runs at "
                                    "115200 baud and that its switches or jumpers select HSU")
                raise ChipError(_SILENT)

    # ---------------------------------------------------------------- set-up

    def start(self) -> str:
        """Wake the PN532 and set it up to read cards; its name and version. `ChipError` when
        it does not answer as a PN532 does."""
        if self._broken:
            self._reopen()
        for attempt in range(2):
            self._write(WAKE_UP)
            try:
                # Normal mode (no security module); timeout 1 s (virtual card mode only); IRQ pin.
                self.command(SAM_CONFIGURATION, bytes([0x01, 0x14, 0x01]),
                             timeout=max(self.timeout, WAKE_TIMEOUT))
                break
            except ChipError:
                if attempt or self._broken:
                    raise
        # MaxRetries: ATR the default, PSL the default, passive activation once more: with the
        # default 0xFF InListPassiveTarget waits for a card for ever.
        self.command(RF_CONFIGURATION, bytes([MAX_RETRIES, 0xFF, 0x01, 0x01]))
        # Timings: RFU, ATR_RES the default 102.4 ms, fRetryTimeout 1.6 ms (0x05) instead of
        # 51.2 ms: the HLTA of a scan, which a card never answers, waits that long. A card
        # answers within 1 ms if at all (ISO/IEC 14443-3).
        self.command(RF_CONFIGURATION, bytes([TIMINGS, 0x00, 0x0B, 0x05]))
        self._field(False)  # quiet until a scan
        answer = self.command(GET_FIRMWARE_VERSION)
        if len(answer) != 4 or answer[0] != IC_PN532:
            raise ChipError(f"is not a PN532 (GetFirmwareVersion answers {answer.hex(' ')})")
        return f"PN532 v{answer[1]}.{answer[2]}"

    def _field(self, on: bool) -> None:
        self.command(RF_CONFIGURATION, bytes([RF_FIELD, 0x01 if on else 0x00]))  # no AutoRFCA

    # ---------------------------------------------------------------- the scan

    def every_scan_complete(self) -> None:
        """Every scan of a PN532 is complete already (it switches its field off after each)."""

    def scan(self) -> Scan:
        """Every card on the antenna, each listed and halted once."""
        self._field(True)
        uids: list[str] = []
        failed = complete = False
        try:
            yield self.clock.now() + self.power_up
            while True:
                answer = self.command(IN_LIST_PASSIVE_TARGET, bytes([1, TYPE_A_106]))
                targets = parse_targets(answer)
                if targets is None:
                    raise ChipError(f"answers InListPassiveTarget with nonsense ({answer.hex()})")
                if not targets:
                    complete = True
                    break
                uid = targets[0].uid.hex().upper()
                if uid in uids:
                    complete = True
                    break  # the HLTA did not keep it quiet: it would be listed for ever
                if len(uids) == self.most:
                    break  # one more than a scan lists: nothing unlisted is known to be gone
                uids.append(uid)
                # A halted card does not answer: status 0x01 (timeout) is success, and any
                # other status changes nothing (a card still awake is listed again, see above).
                self.command(IN_COMMUNICATE_THRU, HLTA)
        except ChipError:
            # Not the field off as well: a module that failed would only fail again, and the
            # error that counts is this one. The `start` that brings it back switches it off.
            failed = True
            raise
        finally:
            if not failed:
                self._field(False)
        return Reading(uids, complete)


_SILENT = ("does not answer on its serial port: check that TX and RX are crossed (its TX to the "
           "Pi's RX, its RX to the Pi's TX), that its switches or jumpers select HSU (UART, not "
           "I2C or SPI), that the port runs at 115200 baud, and its power (VCC and GND)")
