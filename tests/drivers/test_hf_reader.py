"""PT1 decoder (docs/hf-reader-protocol.md): crafted lines, split points, garbage, sequence gaps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drivers.hf_reader import Pt1Decoder, ReaderFrame, checksum, encode_line, parse_line

READ = ReaderFrame(42, "read", antenna=3, uid="04A1B2C3D4E5F6")
GONE = ReaderFrame(43, "removed", antenna=3, uid="04A1B2C3D4E5F6")
BEAT = ReaderFrame(44, "heartbeat", uptime_ms=120_500, antennas=13)
LINE = re.compile(rb"\$PT1,[^$\n]*\*[0-9A-F]{2}\r?\n")


def decode(*chunks: bytes) -> tuple[list[ReaderFrame], Pt1Decoder]:
    decoder = Pt1Decoder()
    frames = [f for chunk in chunks for f in decoder.feed(chunk)]
    decoder.finish()
    return frames, decoder


def test_documented_examples_decode() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "hf-reader-protocol.md").read_text()
    examples = [line for line in doc.splitlines() if line.startswith("$PT1,4")]
    frames, decoder = decode("".join(e + "\r\n" for e in examples).encode())
    assert [f.kind for f in frames] == ["heartbeat", "read", "removed"]
    assert decoder.bad == 0


def test_round_trip_and_checksum() -> None:
    for frame in (READ, GONE, BEAT):
        line = encode_line(frame)
        assert line.endswith(b"\r\n")
        assert parse_line(line[1:].rstrip(b"\r\n")) == frame
    assert checksum("PT1,42,R,3,04A1B2C3D4E5F6") == "56"


def test_split_at_every_byte_boundary() -> None:
    stream = encode_line(READ) + b"noise" + encode_line(GONE) + encode_line(BEAT)
    for cut in range(len(stream) + 1):
        frames, decoder = decode(stream[:cut], stream[cut:])
        assert frames == [READ, GONE, BEAT]
        assert decoder.bad == 1


@pytest.mark.parametrize(
    "line",
    [
        b"$PT1,42,R,3,04A1B2C3D4E5F6*57\r\n",  # bad checksum
        b"$PT2,42,R,3,04A1B2C3D4E5F6*55\r\n",  # unknown version (checksum right)
        b"$PT1,42,Q,3,04A1B2C3D4E5F6*" + checksum("PT1,42,Q,3,04A1B2C3D4E5F6").encode() + b"\n",
        b"$PT1,42,R,32,04A1B2C3D4E5F6*" + checksum("PT1,42,R,32,04A1B2C3D4E5F6").encode() + b"\n",
        b"$PT1,42,R,3,04A1B2C*" + checksum("PT1,42,R,3,04A1B2C").encode() + b"\n",  # 7 digits
        b"$PT1,42,R,3,04a1b2c3d4e5f6*" + checksum("PT1,42,R,3,04a1b2c3d4e5f6").encode() + b"\n",
        b"$PT1," + b"9" * 120 + b"\n",  # overlong
        b"$PT1,42,R,3,04A1B2",  # cut off at the end of input
    ],
)
def test_bad_lines_are_counted_and_dropped(line: bytes) -> None:
    frames, decoder = decode(line)
    assert frames == [] and decoder.bad == 1


def test_a_line_cut_short_by_the_next_line() -> None:
    frames, decoder = decode(encode_line(READ)[:12] + encode_line(GONE))
    assert frames == [GONE] and decoder.bad == 1


def test_sequence_gaps_count_lost_lines() -> None:
    lines = [encode_line(ReaderFrame(seq, "heartbeat", uptime_ms=seq, antennas=4))
             for seq in (65534, 65535, 2, 3)]
    _, decoder = decode(*lines)
    assert decoder.lost == 2  # 0 and 1 went missing across the wrap


@settings(max_examples=300)
@given(st.binary(max_size=300), st.integers(1, 40))
def test_random_bytes_never_crash(data: bytes, chunk: int) -> None:
    decoder = Pt1Decoder()
    frames = [f for k in range(0, len(data), chunk) for f in decoder.feed(data[k : k + chunk])]
    decoder.finish()
    assert decoder.frames == len(frames)
    for frame in frames:
        assert encode_line(frame).rstrip(b"\r\n") in data


FRAMES = st.one_of(
    st.builds(lambda s, a, u: ReaderFrame(s, "read", antenna=a, uid=u),
              st.integers(0, 65535), st.integers(0, 31),
              st.text("0123456789ABCDEF", min_size=14, max_size=14)),
    st.builds(lambda s, a, u: ReaderFrame(s, "removed", antenna=a, uid=u),
              st.integers(0, 65535), st.integers(0, 31),
              st.text("0123456789ABCDEF", min_size=8, max_size=8)),
    st.builds(lambda s, t, n: ReaderFrame(s, "heartbeat", uptime_ms=t, antennas=n),
              st.integers(0, 65535), st.integers(0, 10**9), st.integers(0, 32)),
)


@settings(max_examples=300)
@given(st.lists(st.tuples(st.binary(max_size=30), FRAMES), max_size=8), st.integers(1, 50))
def test_lines_in_garbage_all_come_out_in_order_and_nothing_else(
    pieces: list[tuple[bytes, ReaderFrame]], chunk: int
) -> None:
    assume(not any(LINE.search(g) for g, _ in pieces))
    stream = b"".join(g + encode_line(f) for g, f in pieces)
    decoder = Pt1Decoder()
    out = [f for k in range(0, len(stream), chunk) for f in decoder.feed(stream[k : k + chunk])]
    decoder.finish()
    assert out == [f for _, f in pieces]
