"""`pokertable decode`: raw bytes on stdin, one JSON line per valid frame, then the counts."""

from __future__ import annotations

import json
import subprocess
import sys

from drivers.hf_reader import ReaderFrame, encode_line
from drivers.rdm6300 import encode_frame


def decode(protocol: str, data: bytes) -> list[dict[str, object]]:
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli", "decode", "--protocol", protocol],
        input=data, capture_output=True, check=True, timeout=60,
    )
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def test_decode_rdm6300() -> None:
    data = (encode_frame("0A1B2C3D4E") + b"\xff\xfe" + encode_frame("1122334455")[:-3] + b"00\x03"
            + encode_frame("1122334455") + encode_frame("0a1b2c3d4e")[:9])
    assert decode("rdm6300", data) == [
        {"uid": "0A1B2C3D4E"},
        {"uid": "1122334455"},
        {"frames": 2, "bad": 3},  # the noise, the bad checksum, the cut-off last frame
    ]


def test_decode_pt1() -> None:
    data = (encode_line(ReaderFrame(7, "read", antenna=2, uid="04A1B2C3D4E5F6"))
            + b"junk\r\n"
            + encode_line(ReaderFrame(8, "heartbeat", uptime_ms=1000, antennas=13)))
    assert decode("pt1", data) == [
        {"uid": "04A1B2C3D4E5F6", "kind": "read", "seq": 7, "antenna": 2},
        {"uid": None, "kind": "heartbeat", "seq": 8, "uptime_ms": 1000, "antennas": 13},
        {"frames": 2, "bad": 1},
    ]


def test_decode_empty_input() -> None:
    assert decode("rdm6300", b"") == [{"frames": 0, "bad": 0}]
