"""PT1 frame decoder for the multi-antenna HF card reader (docs/hf-reader-protocol.md).

Like the RDM6300 decoder it never raises on input: bad lines and stray bytes are counted and
skipped, resynchronising on the next ``$``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_LINE = 96
UID_LENGTHS = frozenset({8, 14, 16})
_HEX = frozenset("0123456789ABCDEF")
_KINDS: dict[str, Literal["read", "removed", "heartbeat"]] = {
    "R": "read", "X": "removed", "H": "heartbeat",
}


@dataclass(frozen=True, slots=True)
class ReaderFrame:
    seq: int
    kind: Literal["read", "removed", "heartbeat"]
    antenna: int | None = None
    uid: str | None = None
    uptime_ms: int | None = None
    antennas: int | None = None


def checksum(body: str) -> str:
    value = 0
    for byte in body.encode("ascii"):
        value ^= byte
    return f"{value:02X}"


def encode_line(frame: ReaderFrame) -> bytes:
    """The line a PT1 reader sends for ``frame``: used by the simulators and tests."""
    if frame.kind == "heartbeat":
        fields = f"H,{frame.uptime_ms},{frame.antennas}"
    else:
        fields = f"{'R' if frame.kind == 'read' else 'X'},{frame.antenna},{frame.uid}"
    body = f"PT1,{frame.seq},{fields}"
    return f"${body}*{checksum(body)}\r\n".encode("ascii")


def _number(text: str, high: int) -> int | None:
    if not text.isdigit() or len(text) > 10:
        return None
    value = int(text)
    return value if value <= high else None


def parse_line(line: bytes) -> ReaderFrame | None:
    """One line without its ``$`` and line end, or None if it is not a valid PT1 line."""
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError:
        return None
    body, star, given = text.rpartition("*")
    if not star or given != checksum(body):
        return None
    parts = body.split(",")
    if len(parts) != 5 or parts[0] != "PT1" or parts[2] not in _KINDS:
        return None
    seq = _number(parts[1], 65535)
    if seq is None:
        return None
    kind = _KINDS[parts[2]]
    if kind == "heartbeat":
        uptime, antennas = _number(parts[3], 2**63), _number(parts[4], 32)
        if uptime is None or antennas is None:
            return None
        return ReaderFrame(seq, kind, uptime_ms=uptime, antennas=antennas)
    antenna = _number(parts[3], 31)
    uid = parts[4]
    if antenna is None or len(uid) not in UID_LENGTHS or not set(uid) <= _HEX:
        return None
    return ReaderFrame(seq, kind, antenna=antenna, uid=uid)


class Pt1Decoder:
    """Feed it bytes in pieces of any size; it returns the valid lines completed so far."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._in_rubble = False
        self._last_seq: int | None = None
        self.frames = 0
        self.bad = 0
        self.lost = 0  # lines missing according to the sequence numbers

    def _rubble(self) -> None:
        if not self._in_rubble:
            self.bad += 1
            self._in_rubble = True

    def feed(self, data: bytes) -> list[ReaderFrame]:
        buffer = self._buffer
        buffer.extend(data)
        out: list[ReaderFrame] = []
        while buffer:
            start = buffer.find(b"$")
            if start != 0:
                self._rubble()
                if start < 0:
                    buffer.clear()
                    break
                del buffer[:start]
            end = buffer.find(b"\n", 1, MAX_LINE)
            if end < 0:
                if len(buffer) >= MAX_LINE or buffer.find(b"$", 1) > 0:
                    self.bad += 1  # overlong, or cut off by the next line's start
                    self._in_rubble = True
                    del buffer[:1]
                    continue
                break  # wait for the line end
            line = bytes(buffer[1:end]).rstrip(b"\r")
            nested = line.find(b"$")
            if nested >= 0:  # a line cut short and the next one started: drop the stub
                self.bad += 1
                self._in_rubble = False
                del buffer[: nested + 1]
                continue
            del buffer[: end + 1]
            frame = parse_line(line)
            if frame is None:
                self.bad += 1
                self._in_rubble = True
                continue
            self._in_rubble = False
            self._count_sequence(frame.seq)
            self.frames += 1
            out.append(frame)
        return out

    def _count_sequence(self, seq: int) -> None:
        if self._last_seq is not None:
            gap = (seq - self._last_seq - 1) % 65536
            if gap < 1024:  # a larger jump is a restarted reader (or a repeat), not lost lines
                self.lost += gap
        self._last_seq = seq

    def finish(self) -> None:
        if self._buffer and self._buffer[0] == ord("$"):
            self.bad += 1
        self._buffer.clear()
        self._in_rubble = False
