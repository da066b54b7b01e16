"""PT1 lines as the reader sends them (docs/hf-reader-protocol.md):
``$PT1,<seq>,<kind>,<field>,<field>*<checksum>\\r\\n``.

The host's encoder (drivers/hf_reader.py) is built on dataclasses and typing, which MicroPython
lacks, so the firmware frames its own lines; tests/firmware checks that they are byte for byte
what the host's encoder makes of the same frame.
"""

SEQ_MODULO = 65536  # seq runs 0 to 65535, then 0 again


def checksum(body: bytes) -> int:
    """The XOR of every byte between ``$`` and ``*``."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def line(seq: int, kind: str, first: int, second: "int | str") -> bytes:
    """One line: ``R``/``X`` with antenna and UID, or ``H`` with uptime and antenna count."""
    body = f"PT1,{seq},{kind},{first},{second}".encode()
    return b"$" + body + f"*{checksum(body):02X}\r\n".encode()


class Framer:
    """Numbers the lines: each one more than the last, wrapping to 0 after 65535 (the host
    counts a gap as lost lines)."""

    def __init__(self, seq: int = 0) -> None:
        self.seq = seq % SEQ_MODULO

    def next(self, kind: str, first: int, second: "int | str") -> bytes:
        out = line(self.seq, kind, first, second)
        self.seq = (self.seq + 1) % SEQ_MODULO
        return out
