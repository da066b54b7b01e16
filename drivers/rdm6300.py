"""RDM6300 (125 kHz) frame decoder: bytes in, tag frames out, garbage counted and skipped.

A frame is 14 bytes: STX ``0x02``, ten ASCII hex digits (two of version, eight of tag), two ASCII
hex digits of checksum (the XOR of the five data bytes), ETX ``0x03``. The module repeats the frame
while a tag is in the field; turning repeats into one card is the presence tracker's job.

The decoder never raises on input. Every piece of input that is not a valid frame counts once in
``bad``: a candidate frame that fails (wrong length, non-hex digit, bad checksum, no ETX) and a
run of stray bytes between frames. After a failed candidate it resynchronises on the next STX,
so a valid frame that starts inside the rubble still comes out.
"""

from __future__ import annotations

from dataclasses import dataclass

STX = 0x02
ETX = 0x03
FRAME_LENGTH = 14
_HEX = frozenset(b"0123456789ABCDEFabcdef")


@dataclass(frozen=True, slots=True)
class TagFrame:
    uid: str  # the ten hex digits, version then tag, upper case

    @property
    def version(self) -> str:
        return self.uid[:2]

    @property
    def tag(self) -> str:
        return self.uid[2:]


def encode_frame(uid: str) -> bytes:
    """The frame an RDM6300 sends for ``uid`` (ten hex digits): used by the simulators."""
    digits = uid.upper()
    if len(digits) != 10 or not set(digits.encode()) <= _HEX:
        raise ValueError(f"an RDM6300 uid is ten hex digits, not {uid!r}")
    checksum = 0
    for k in range(0, 10, 2):
        checksum ^= int(digits[k : k + 2], 16)
    return bytes([STX]) + digits.encode() + f"{checksum:02X}".encode() + bytes([ETX])


def _valid(window: bytes | bytearray) -> str | None:
    if window[13] != ETX or not all(b in _HEX for b in window[1:13]):
        return None
    text = bytes(window[1:13]).decode("ascii").upper()
    checksum = 0
    for k in range(0, 10, 2):
        checksum ^= int(text[k : k + 2], 16)
    return text[:10] if checksum == int(text[10:12], 16) else None


class Rdm6300Decoder:
    """Feed it bytes as they arrive, in pieces of any size; it returns the frames completed."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._in_rubble = False  # inside a stretch of input already counted as bad
        self.frames = 0
        self.bad = 0

    def feed(self, data: bytes) -> list[TagFrame]:
        buffer = self._buffer
        buffer.extend(data)
        out: list[TagFrame] = []
        while buffer:
            start = buffer.find(STX)
            if start != 0:
                stray = len(buffer) if start < 0 else start
                if not self._in_rubble:
                    self.bad += 1
                    self._in_rubble = True
                del buffer[:stray]
                if start < 0:
                    break
            if len(buffer) < FRAME_LENGTH:
                break  # wait for the rest of the frame
            uid = _valid(buffer[:FRAME_LENGTH])
            if uid is None:
                self.bad += 1
                self._in_rubble = True  # its tail up to the next STX belongs to this bad frame
                del buffer[:1]
                continue
            del buffer[:FRAME_LENGTH]
            self._in_rubble = False
            self.frames += 1
            out.append(TagFrame(uid))
        return out

    def finish(self) -> None:
        """End of input: a frame cut off at the end counts as bad."""
        if self._buffer and self._buffer[0] == STX:
            self.bad += 1
        self._buffer.clear()
        self._in_rubble = False
