"""`pokertable decode`: what a reader is really sending, for the person wiring up a table."""

from __future__ import annotations

import json
import sys
from typing import BinaryIO, TextIO

from drivers.hf_reader import Pt1Decoder
from drivers.pn532 import CHIP, IN_LIST_PASSIVE_TARGET, Pn532Decoder, Pn532Frame, parse_targets
from drivers.rdm6300 import Rdm6300Decoder

CHUNK = 4096


def decode_stream(protocol: str, source: BinaryIO, out: TextIO) -> int:
    """Read ``source`` to its end; print each valid frame as JSON, then ``{"frames", "bad"}``."""
    if protocol == "rdm6300":
        rdm = Rdm6300Decoder()
        while chunk := source.read(CHUNK):
            for tag in rdm.feed(chunk):
                out.write(json.dumps({"uid": tag.uid}) + "\n")
        rdm.finish()
        out.write(json.dumps({"frames": rdm.frames, "bad": rdm.bad}) + "\n")
        return 0
    if protocol == "pn532":
        return _decode_pn532(source, out)
    pt1 = Pt1Decoder()
    while chunk := source.read(CHUNK):
        for frame in pt1.feed(chunk):
            line: dict[str, object] = {"uid": frame.uid, "kind": frame.kind, "seq": frame.seq}
            if frame.kind == "heartbeat":
                line.update(uptime_ms=frame.uptime_ms, antennas=frame.antennas)
            else:
                line["antenna"] = frame.antenna
            out.write(json.dumps(line) + "\n")
    pt1.finish()
    out.write(json.dumps({"frames": pt1.frames, "bad": pt1.bad}) + "\n")
    if pt1.lost:
        sys.stderr.write(f"{pt1.lost} lines missing according to the sequence numbers\n")
    return 0


def _decode_pn532(source: BinaryIO, out: TextIO) -> int:
    """What a PN532 sends its host: every card its InListPassiveTarget answers list."""
    pn532 = Pn532Decoder()

    def cards(frames: list[Pn532Frame]) -> None:
        for frame in frames:
            if frame.tfi != CHIP or frame.payload[0] != IN_LIST_PASSIVE_TARGET + 1:
                continue
            for target in parse_targets(frame.payload[1:]) or ():
                out.write(json.dumps({"uid": target.uid.hex().upper(), "tg": target.tg}) + "\n")

    while chunk := source.read(CHUNK):
        cards(pn532.feed(chunk))
    cards(pn532.finish())
    out.write(json.dumps({"frames": pn532.frames, "bad": pn532.bad}) + "\n")
    return 0
