"""RDM6300 decoder: crafted streams, every split point, and random garbage (hypothesis)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drivers.rdm6300 import ETX, STX, Rdm6300Decoder, encode_frame

UID = "0A1B2C3D4E"
FRAME = encode_frame(UID)
VALID = re.compile(rb"\x02[0-9A-Fa-f]{12}\x03")


def decode(*chunks: bytes) -> tuple[list[str], Rdm6300Decoder]:
    decoder = Rdm6300Decoder()
    uids = [tag.uid for chunk in chunks for tag in decoder.feed(chunk)]
    decoder.finish()
    return uids, decoder


def test_frame_layout_and_checksum() -> None:
    assert FRAME[0] == STX and FRAME[-1] == ETX and len(FRAME) == 14
    assert FRAME[1:11] == UID.encode()
    assert FRAME[11:13] == f"{0x0A ^ 0x1B ^ 0x2C ^ 0x3D ^ 0x4E:02X}".encode()
    tag = decode(FRAME)[0]
    assert tag == [UID]


def test_frame_split_at_every_byte_boundary() -> None:
    stream = FRAME + b"\x00\xff" + encode_frame("1122334455") + FRAME
    for cut in range(len(stream) + 1):
        for second in range(cut, len(stream) + 1):
            uids, decoder = decode(stream[:cut], stream[cut:second], stream[second:])
            assert uids == [UID, "1122334455", UID]
            assert (decoder.frames, decoder.bad) == (3, 1)


def test_one_byte_at_a_time() -> None:
    uids, _ = decode(*(bytes([b]) for b in FRAME * 3))
    assert uids == [UID] * 3


@pytest.mark.parametrize(
    ("stream", "bad"),
    [
        (FRAME[:-3] + b"00" + FRAME[-1:], 1),  # bad checksum
        (FRAME[:5] + b"G" + FRAME[6:], 1),  # non-hex digit
        (FRAME[:-1] + b"\x04", 1),  # no ETX
        (FRAME[:8], 1),  # truncated at the end of input
        (b"\x02", 1),  # a lone stray STX
        (b"\x03\x03 noise", 1),  # stray ETX and noise: one run
    ],
)
def test_bad_input_is_counted_and_skipped(stream: bytes, bad: int) -> None:
    uids, decoder = decode(stream)
    assert uids == [] and decoder.bad == bad and decoder.frames == 0


def test_valid_frame_after_a_truncated_one_and_a_stray_stx() -> None:
    uids, decoder = decode(FRAME[:6] + b"\x02" + FRAME + FRAME[:-2] + b"ZZ\x03" + FRAME)
    assert uids == [UID, UID]
    assert decoder.bad == 3  # the cut frame, the stray STX, the mangled frame


def test_lower_case_hex_is_accepted_and_reported_upper_case() -> None:
    frame = encode_frame("ab12cd34ef")
    assert decode(frame.lower())[0] == ["AB12CD34EF"]


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    decoder = Rdm6300Decoder()
    uids = [t.uid for k in range(0, len(data), 7) for t in decoder.feed(data[k : k + 7])]
    decoder.finish()
    assert decoder.frames == len(uids)
    for uid in uids:  # nothing comes out that was not sent
        assert encode_frame(uid)[1:13].lower() in data.lower()


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(st.binary(max_size=40), st.text("0123456789ABCDEF", min_size=10, max_size=10)),
        max_size=8,
    ),
    st.binary(max_size=40),
    st.integers(1, 30),
)
def test_frames_in_garbage_all_come_out_in_order_and_nothing_else(
    pieces: list[tuple[bytes, str]], tail: bytes, chunk: int
) -> None:
    garbage = [g for g, _ in pieces] + [tail]
    assume(not any(VALID.search(g) for g in garbage))  # garbage that is itself a frame is a frame
    stream = b"".join(g + encode_frame(uid) for g, uid in pieces) + tail
    assume(len(VALID.findall(stream)) == len(pieces))  # no frame formed across a boundary
    decoder = Rdm6300Decoder()
    chunks = [stream[k : k + chunk] for k in range(0, len(stream), chunk)]
    uids = [t.uid for piece in chunks for t in decoder.feed(piece)]
    decoder.finish()
    assert uids == [uid for _, uid in pieces]
