"""The PN532: its frames and their decoder, `pokertable decode --protocol pn532`, and the real
driver reading a simulated PN532 over a pty."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import pn532
from drivers.pn532 import (
    ACK,
    CHIP,
    ERROR_FRAME,
    HOST,
    MAX_CARDS,
    NACK,
    Pn532,
    Pn532Decoder,
    Pn532Frame,
    encode_frame,
    parse_targets,
)
from drivers.scan import ChipError, Reading, RealClock, run_scans
from drivers.simulated.field import TagField
from drivers.simulated.pn532 import SimulatedPn532
from drivers.simulators import VirtualSerialDevice
from tests.waiting import wait_for

UIDS = ["04A1B2C3D4E5F6", "04112233445566", "04778899AABBCC", "04DDEEFF102030"]


def answer(code: int, data: bytes = b"") -> bytes:
    """The frame a PN532 answers ``code`` with."""
    return encode_frame(CHIP, bytes([code + 1]) + data)


def listed(*uids: str) -> bytes:
    """An InListPassiveTarget answer listing NTAG21x cards."""
    data = bytearray([len(uids)])
    for tg, uid in enumerate(uids, 1):
        nfcid = bytes.fromhex(uid)
        data += bytes([tg, 0x00, 0x44, 0x00, len(nfcid)]) + nfcid
    return answer(pn532.IN_LIST_PASSIVE_TARGET, bytes(data))


def decode_all(data: bytes, piece: int = 0) -> tuple[list[Pn532Frame], Pn532Decoder]:
    decoder = Pn532Decoder()
    step = piece or max(1, len(data))
    frames = [f for k in range(0, len(data), step) for f in decoder.feed(data[k:k + step])]
    return frames + decoder.finish(), decoder


def cards(frames: list[Pn532Frame]) -> list[str]:
    out = []
    for frame in frames:
        if frame.tfi == CHIP and frame.payload[0] == pn532.IN_LIST_PASSIVE_TARGET + 1:
            out += [t.uid.hex().upper() for t in parse_targets(frame.payload[1:]) or ()]
    return out


# ---------------------------------------------------------------- frames


def test_get_firmware_version_frame_is_the_manuals() -> None:
    assert encode_frame(HOST, b"\x02") == bytes.fromhex("0000ff02fed4022a00")


def test_ack_nack_error_and_an_answer_decode() -> None:
    frames, decoder = decode_all(ACK + NACK + ERROR_FRAME + answer(0x02, b"\x32\x01\x06\x07"))
    assert frames == [Pn532Frame("ack"), Pn532Frame("nack"), Pn532Frame("error", 0x7F),
                      Pn532Frame("data", CHIP, b"\x03\x32\x01\x06\x07")]
    assert (decoder.frames, decoder.bad) == (4, 0)


def test_a_long_frame_is_an_extended_one() -> None:
    data = bytes(k & 0xFF for k in range(280))
    frame = encode_frame(CHIP, data)
    assert frame[:8] == bytes([0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x19, 0xE6])  # LEN 281
    assert decode_all(frame)[0] == [Pn532Frame("data", CHIP, data)]


@given(st.sampled_from([HOST, CHIP]), st.binary(min_size=1, max_size=299),
       st.integers(min_value=1, max_value=40))
@settings(max_examples=100)
def test_frames_round_trip_in_pieces_of_any_size(tfi: int, data: bytes, piece: int) -> None:
    frame = encode_frame(tfi, data)
    assert sum(frame[5 if len(data) < 254 else 8:-1]) & 0xFF == 0  # DCS
    frames, decoder = decode_all(ACK + frame + frame, piece)
    assert frames == [Pn532Frame("ack")] + [Pn532Frame("data", tfi, data)] * 2
    assert decoder.bad == 0


@given(st.binary(max_size=600), st.integers(min_value=1, max_value=64))
@settings(max_examples=300)
def test_the_decoder_never_raises_on_garbage(data: bytes, piece: int) -> None:
    frames, decoder = decode_all(data, piece)
    assert len(frames) == decoder.frames
    assert decoder.bad <= len(data)


@given(st.binary(min_size=7, max_size=7), st.data())
@settings(max_examples=300)
def test_a_corrupted_answer_never_gives_a_card(uid: bytes, data: st.DataObject) -> None:
    frame = bytearray(listed(uid.hex()))
    at = data.draw(st.integers(min_value=1, max_value=len(frame) - 2))  # start code to DCS
    frame[at] ^= data.draw(st.integers(min_value=1, max_value=255))
    frames, decoder = decode_all(bytes(frame))
    assert cards(frames) == []
    assert decoder.bad >= 1


def test_bad_checksums_noise_and_cut_frames_count_once_each() -> None:
    bad_lcs = bytearray(listed(UIDS[0]))
    bad_lcs[4] ^= 0x01
    bad_dcs = bytearray(listed(UIDS[1]))
    bad_dcs[-2] ^= 0x01
    data = (bytes(bad_lcs) + ACK + bytes(bad_dcs) + ACK + b"\x55\xaajunk\x00\x17" + ACK
            + listed(UIDS[2])[:-6] + listed(UIDS[3]) + listed(UIDS[0])[:12])
    frames, decoder = decode_all(data)
    assert cards(frames) == [UIDS[3]]
    assert (decoder.frames, decoder.bad, decoder.bad_checksums) == (4, 5, 3)


def test_a_listing_of_two_cards_parses() -> None:
    targets = parse_targets(listed(UIDS[0], UIDS[1])[7:-2])
    assert targets is not None
    assert [(t.tg, t.sens_res, t.sel_res, t.uid.hex().upper()) for t in targets] == [
        (1, 0x0044, 0x00, UIDS[0]), (2, 0x0044, 0x00, UIDS[1])]
    assert parse_targets(b"\x00") == []
    assert parse_targets(b"\x01\x01\x00\x44\x00\x07\x04") is None  # the UID cut short


# ---------------------------------------------------------------- pokertable decode


def decode(data: bytes) -> list[dict[str, object]]:
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli", "decode", "--protocol", "pn532"],
        input=data, capture_output=True, check=True, timeout=60,
    )
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def test_decode_pn532_capture() -> None:
    bad_lcs = bytearray(listed("04000000000001"))
    bad_lcs[4] ^= 0x40
    bad_dcs = bytearray(listed("04000000000002"))
    bad_dcs[-2] ^= 0x40
    data = (ACK + listed(UIDS[0])
            + bytes(bad_lcs) + ACK + bytes(bad_dcs) + ACK + b"\xff\xfeline noise" + ACK
            + listed(UIDS[1], UIDS[2])
            + listed("04000000000003")[:-6] + ACK + listed(UIDS[3])  # cut by the next frame
            + answer(pn532.GET_FIRMWARE_VERSION, b"\x32\x01\x06\x07")
            + listed("04000000000004")[:10])  # cut off at the end
    assert decode(data) == [
        {"uid": UIDS[0], "tg": 1},
        {"uid": UIDS[1], "tg": 1},
        {"uid": UIDS[2], "tg": 2},
        {"uid": UIDS[3], "tg": 1},
        # ACKs 5, listings 3, the version; the bad LCS and DCS, the noise, the two cut frames
        {"frames": 9, "bad": 5},
    ]


# ---------------------------------------------------------------- the driver on a scripted port


@dataclass
class ScriptedPort:
    """A serial port with a PN532 that answers each command from a script: an ACK, then the
    next of ``replies[code]``; a NACK from the host gets ``resend``."""

    replies: dict[int, list[bytes]]
    resend: bytes = b""
    timeout: float | None = 0.01

    def __post_init__(self) -> None:
        self.inbox = bytearray()
        self.host = Pn532Decoder()
        self.heard: list[Pn532Frame] = []

    @property
    def in_waiting(self) -> int:
        return len(self.inbox)

    def read(self, size: int = 1) -> bytes:
        data = bytes(self.inbox[:size])
        del self.inbox[:size]
        return data

    def write(self, data: bytes) -> int:
        for frame in self.host.feed(data):
            self.heard.append(frame)
            if frame.kind == "nack":
                self.inbox += self.resend
            elif frame.kind == "data":
                self.inbox += ACK + self.replies[frame.payload[0]].pop(0)
        return len(data)

    def reset_input_buffer(self) -> None:
        self.inbox.clear()

    def open(self) -> None: ...

    def close(self) -> None: ...


def scripted_start(version: bytes) -> ScriptedPort:
    rf = answer(pn532.RF_CONFIGURATION)
    return ScriptedPort({pn532.SAM_CONFIGURATION: [answer(pn532.SAM_CONFIGURATION)],
                         pn532.RF_CONFIGURATION: [rf, rf, rf],
                         pn532.GET_FIRMWARE_VERSION: [answer(0x02, version)]})


def test_start_wakes_and_sets_up_the_pn532() -> None:
    port = scripted_start(b"\x32\x01\x06\x07")
    assert Pn532(port, RealClock()).start() == "PN532 v1.6"
    commands = [f.payload[:3] for f in port.heard if f.kind == "data"]
    assert commands == [bytes([0x14, 0x01, 0x14]), bytes([0x32, 0x05, 0xFF]),
                        bytes([0x32, 0x02, 0x00]), bytes([0x32, 0x01, 0x00]), b"\x02"]
    assert [f.payload for f in port.heard if f.kind == "data"][1] == b"\x32\x05\xff\x01\x01"


def test_a_module_that_is_not_a_pn532_is_a_chip_error() -> None:
    with pytest.raises(ChipError, match="is not a PN532"):
        Pn532(scripted_start(b"\x33\x01\x06\x07"), RealClock()).start()


def test_a_garbled_answer_is_nacked_and_its_repeat_taken() -> None:
    good = answer(pn532.GET_FIRMWARE_VERSION, b"\x32\x01\x06\x07")
    garbled = bytearray(good)
    garbled[-3] ^= 0x10
    port = ScriptedPort({pn532.GET_FIRMWARE_VERSION: [bytes(garbled)]}, resend=good)
    assert Pn532(port, RealClock()).command(pn532.GET_FIRMWARE_VERSION) == b"\x32\x01\x06\x07"
    assert Pn532Frame("nack") in port.heard


def test_the_error_frame_is_a_chip_error() -> None:
    port = ScriptedPort({pn532.IN_LIST_PASSIVE_TARGET: [ERROR_FRAME]})
    with pytest.raises(ChipError, match="rejects command 0x4A"):
        Pn532(port, RealClock()).command(pn532.IN_LIST_PASSIVE_TARGET, b"\x01\x00")


# ---------------------------------------------------------------- the driver on a simulated PN532


@dataclass
class Bench:
    device: VirtualSerialDevice
    field: TagField
    module: SimulatedPn532
    port: serial.SerialBase
    chip: Pn532

    def result(self) -> Reading | ChipError:
        return run_scans([(0, self.chip.scan)], RealClock())[0]

    def scan(self) -> list[str]:
        result = self.result()
        assert isinstance(result, Reading) and result.complete, result
        return result.uids


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    device = VirtualSerialDevice(tmp_path / "usb-pn532")
    field = TagField()
    module = SimulatedPn532(device, field)
    module.start()
    port = serial.serial_for_url(str(device.path), baudrate=115200, timeout=0.05)
    # A loaded test machine may take longer than a PN532's few milliseconds to answer.
    chip = Pn532(port, RealClock(), timeout=0.5)
    try:
        yield Bench(device, field, module, port, chip)
    finally:
        port.close()
        module.close()
        device.close()


def test_start_reports_the_version(bench: Bench) -> None:
    assert bench.chip.start() == "PN532 v1.6"
    assert not bench.module.field_on


@pytest.mark.parametrize("uids", [UIDS[:1], UIDS[:2], UIDS], ids=["one", "holdem", "omaha"])
def test_every_card_on_the_antenna_in_one_scan(bench: Bench, uids: list[str]) -> None:
    bench.chip.start()
    bench.field.place_many(0, uids)
    assert sorted(bench.scan()) == sorted(uids)
    assert not bench.module.field_on  # switched off at the end: the halted cards wake


def test_a_pot_of_chips_and_a_full_muck_are_read_whole(bench: Bench) -> None:
    """Thirteen chips in a pot (the ninth and later were never listed, and the scan said it
    had read everything), then the whole deck in the muck; more than a scan lists is not a
    complete reading."""
    bench.chip.start()
    stack = [f"04{k:012X}" for k in range(13)]
    bench.field.place_many(0, stack)
    assert sorted(bench.scan()) == sorted(stack)
    deck = [f"04{k:012X}" for k in range(MAX_CARDS)]
    bench.field.place_many(0, deck[13:])
    assert sorted(bench.scan()) == sorted(deck)
    bench.field.place(0, "04FFFFFFFFFFFF")  # one more than a scan lists: not all read
    result = bench.result()
    assert isinstance(result, Reading) and not result.complete
    assert len(result.uids) == MAX_CARDS


def test_an_empty_antenna_reads_nothing(bench: Bench) -> None:
    bench.chip.start()
    assert bench.scan() == []


def test_a_card_taken_away_is_gone_at_the_next_scan(bench: Bench) -> None:
    bench.chip.start()
    bench.field.place_many(0, UIDS[:2])
    assert sorted(bench.scan()) == sorted(UIDS[:2])
    assert sorted(bench.scan()) == sorted(UIDS[:2])  # the field off woke the halted cards
    bench.field.remove(0, UIDS[0])
    assert bench.scan() == [UIDS[1]]


def test_a_silent_module_is_a_chip_error_until_it_answers_again(bench: Bench) -> None:
    bench.chip.start()
    bench.field.place(0, UIDS[0])
    bench.module.alive = False
    with pytest.raises(ChipError, match="TX and RX are crossed"):
        bench.chip.start()
    assert isinstance(bench.result(), ChipError)
    bench.module.alive = True
    assert bench.chip.start() == "PN532 v1.6"
    assert bench.scan() == [UIDS[0]]


def test_an_unplugged_adapter_is_a_chip_error_and_start_opens_it_again(bench: Bench) -> None:
    bench.chip.start()
    bench.field.place(0, UIDS[0])
    bench.device.unplug()
    result = bench.result()
    assert isinstance(result, ChipError) and "serial port" in str(result)
    bench.device.plug()
    assert bench.chip.start() == "PN532 v1.6"
    assert bench.scan() == [UIDS[0]]


def test_the_simulator_nacks_a_bad_host_frame(bench: Bench) -> None:
    frame = bytearray(encode_frame(HOST, b"\x02"))
    frame[-2] ^= 0x01
    bench.port.write(bytes(frame))
    decoder = Pn532Decoder()
    heard: list[Pn532Frame] = []

    def answered() -> bool:
        heard.extend(decoder.feed(bench.port.read(64)))
        return bool(heard)

    wait_for(answered)
    assert heard == [Pn532Frame("nack")]
    assert not bench.module.commands


def test_a_card_missed_by_one_listing_is_read_by_a_later_scan(bench: Bench) -> None:
    bench.module.miss = 0.5
    bench.chip.start()
    bench.field.place_many(0, UIDS)
    seen: set[str] = set()
    deadline = time.monotonic() + 5
    while seen != set(UIDS) and time.monotonic() < deadline:
        result = bench.scan()
        assert set(result) <= set(UIDS)
        seen |= set(result)
    assert seen == set(UIDS)


def test_a_pot_of_more_chips_than_a_deck_is_read_whole_by_a_reader_of_chips(
        tmp_path: Path) -> None:
    """A scan lists at most 52 tags where it reads cards (a muck holds the whole deck); a pot
    zone of 55 chips was never read whole, and the table waited for the pot for ever (APSA
    5.4.25; found by a soak of PN532 chip zones). A reader of chips lists up to 250 a scan:
    here 80 in the pot, through the real driver on the module's serial line."""
    from gpiozero.pins.mock import MockFactory

    from controller.events import ChipsEvent
    from drivers.chip_reader import ChipReader
    from drivers.reader_config import ReaderConfig
    from drivers.registry import ChipSet
    from drivers.simulated.readers import SimulatedReader
    from tests.drivers.helpers import Events

    config = ReaderConfig(name="pot", url="/dev/ttyUSB0", protocol="pn532", reads="chips",
                          zones={0: "pot"})
    chips = ChipSet(name="t", chips={f"04{k:012X}": 100 for k in range(80)})
    clock = RealClock()
    sim = SimulatedReader(config, MockFactory(), clock, tmp=tmp_path)
    sim.field.place_many(0, list(chips.chips))
    events = Events()
    reader = ChipReader(sim.config, events, sim.connect, chips=chips, clock=clock)
    try:
        assert reader.open()
        deadline = time.monotonic() + 20
        while not events.of(ChipsEvent) and time.monotonic() < deadline:
            reader.step(0.05)
    finally:
        reader.close()
        sim.close()
    assert [(e.zone, len(e.chips)) for e in events.of(ChipsEvent)] == [("pot", 80)]  # type: ignore[attr-defined]
