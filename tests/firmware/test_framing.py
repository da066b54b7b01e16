"""The firmware's PT1 lines are the host's: byte for byte what drivers/hf_reader.py encodes,
read back whole by its decoder, numbered without gaps across the wrap at 65535."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.hf_reader import Pt1Decoder, ReaderFrame, checksum, encode_line
from drivers.mfrc522 import crc_a as host_crc_a
from firmware.pico.pt1reader import framing
from firmware.pico.pt1reader.mfrc522 import crc_a

UIDS = st.one_of(*(st.text("0123456789ABCDEF", min_size=n, max_size=n) for n in (8, 14, 16)))


@given(st.integers(0, 65535), st.sampled_from(["R", "X"]), st.integers(0, 31), UIDS)
def test_tag_lines_are_what_the_host_encodes(seq: int, kind: str, antenna: int,
                                             uid: str) -> None:
    frame = ReaderFrame(seq, "read" if kind == "R" else "removed", antenna=antenna, uid=uid)
    assert framing.line(seq, kind, antenna, uid) == encode_line(frame)


@given(st.integers(0, 65535), st.integers(0, 2**40), st.integers(1, 32))
def test_heartbeats_are_what_the_host_encodes(seq: int, uptime_ms: int, antennas: int) -> None:
    frame = ReaderFrame(seq, "heartbeat", uptime_ms=uptime_ms, antennas=antennas)
    assert framing.line(seq, "H", uptime_ms, antennas) == encode_line(frame)


def test_the_documented_example_and_its_checksum() -> None:
    assert framing.line(42, "R", 3, "04A1B2C3D4E5F6") == b"$PT1,42,R,3,04A1B2C3D4E5F6*56\r\n"
    assert f"{framing.checksum(b'PT1,41,H,120500,13'):02X}" == checksum("PT1,41,H,120500,13")


def test_seq_wraps_after_65535_and_the_host_counts_no_lost_line() -> None:
    framer = framing.Framer(65533)
    decoder = Pt1Decoder()
    frames = decoder.feed(b"".join(framer.next("R", 1, "A1B2C3D4") for _ in range(6)))
    assert [f.seq for f in frames] == [65533, 65534, 65535, 0, 1, 2]
    assert (decoder.frames, decoder.bad, decoder.lost) == (6, 0, 0)


@given(st.binary(max_size=12))
def test_the_firmware_crc_a_is_iso_14443s(data: bytes) -> None:
    """The firmware's bitwise CRC_A against the host driver's (a different algorithm)."""
    assert crc_a(data) == host_crc_a(data)
