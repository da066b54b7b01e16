"""The Pico-only files (main.py, board.py, check.py) run as MicroPython would run them, with
stand-ins for the modules only MicroPython has: ``machine`` (pins and SPI, wired to the
simulated chips), ``time`` with the Pico's 30-bit microsecond ticks on a virtual clock, and
micropython-lib's ``usb.device`` (which records the identity the board gives itself).

The virtual clock starts 0.3 s before the ticks wrap, so the board's clock runs across a wrap.
"""

from __future__ import annotations

import json
import runpy
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.hf_reader import Pt1Decoder, ReaderFrame
from firmware.pico.pt1reader.config import MANUFACTURER, PRODUCT
from tests.firmware.shim import Rig, cards_config, chips_config

PICO = Path(__file__).resolve().parents[2] / "firmware" / "pico"
PERIOD = 1 << 30  # MicroPython's ticks on the RP2040 wrap here
START = (PERIOD - 300_000) / 1e6  # s: 0.3 s before ticks_us wraps


class Stop(BaseException):
    """The test's end: raised by the fake clock, past any ``except Exception``."""


class Pico:
    """The stand-in modules, and what the firmware did with them."""

    def __init__(self, rig: Rig, seconds: float) -> None:
        self.rig, self.limit = rig, rig.clock.now() + seconds
        self.inputs: dict[int, Callable[[], int]] = {22: lambda: 1}  # maintenance: open
        for pin, line in rig.lines.items():
            self.inputs[pin] = line.value
        self.events: list[tuple[str, Any]] = []  # pins made, the SPI bus made, USB set up
        self.usb: dict[str, Any] = {}
        self.cdc: dict[str, Any] = {}
        self.modules = {"machine": self._machine(), "time": self._time(), **self._usb()}

    def _machine(self) -> types.ModuleType:
        pico, levels = self, self.rig.bus.levels

        class Pin:
            IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 1, 2

            def __init__(self, pin: int, mode: int = -1, pull: int = -1, *,
                         value: int | None = None) -> None:
                self.pin = pin
                pico.events.append(("pin", (pin, mode, pull, value)))
                if value is not None:
                    levels[pin] = value

            def value(self, level: int | None = None) -> int:
                if level is None:
                    read = pico.inputs.get(self.pin)
                    return read() if read is not None else levels.get(self.pin, 1)
                levels[self.pin] = level
                return level

        class SPI:
            MSB = 0

            def __init__(self, bus: int, **settings: Any) -> None:
                pico.events.append(("spi", (bus, settings)))

            def write_readinto(self, data: bytes, into: bytearray) -> None:
                into[:] = pico.rig.spi.transfer(bytes(data))

        def reset() -> None:
            pico.events.append(("reset", None))
            raise Stop

        module = types.ModuleType("machine")
        module.Pin, module.SPI, module.reset = Pin, SPI, reset  # type: ignore[attr-defined]
        return module

    def _time(self) -> types.ModuleType:
        clock = self.rig.clock

        def sleep(seconds: float) -> None:
            clock.sleep(seconds)
            if clock.now() > self.limit:
                raise Stop

        module = types.ModuleType("time")
        module.ticks_us = lambda: round(clock.now() * 1e6) % PERIOD  # type: ignore[attr-defined]
        module.ticks_diff = lambda a, b: (a - b + PERIOD // 2) % PERIOD - PERIOD // 2  # type: ignore[attr-defined]
        module.sleep_us = lambda us: sleep(us / 1e6)  # type: ignore[attr-defined]
        module.sleep_ms = lambda ms: sleep(ms / 1e3)  # type: ignore[attr-defined]
        return module

    def _usb(self) -> dict[str, types.ModuleType]:
        pico = self

        class CDCInterface:
            def __init__(self, **settings: Any) -> None:
                pico.cdc.update(settings)

            def is_open(self) -> bool:
                return True

            def write(self, data: bytes) -> int:
                pico.rig.write(data)
                return len(data)

        class Device:
            def init(self, *interfaces: object, **identity: Any) -> None:
                pico.events.append(("usb", None))
                pico.usb.update(identity, interfaces=interfaces)

        usb, device, cdc = (types.ModuleType(n) for n in ("usb", "usb.device", "usb.device.cdc"))
        usb.__path__ = device.__path__ = []  # packages
        usb.device = device  # type: ignore[attr-defined]
        device.cdc = cdc  # type: ignore[attr-defined]
        device.get = Device  # type: ignore[attr-defined]
        cdc.CDCInterface = CDCInterface  # type: ignore[attr-defined]
        return {"usb": usb, "usb.device": device, "usb.device.cdc": cdc}


@pytest.fixture
def pico_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The Pico's flash: the working directory (config.json), firmware/pico on the path; the
    modules imported from there forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(PICO))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name in ("board", "main", "check") or name.split(".")[0] == "pt1reader":
            del sys.modules[name]


def boot(pico: Pico, script: str) -> None:
    """Run a Pico file as MicroPython runs main.py, with the stand-in modules in place only
    meanwhile (the real ``time`` back at once)."""
    saved = {name: sys.modules.get(name) for name in pico.modules}
    sys.modules.update(pico.modules)
    try:
        runpy.run_path(str(PICO / script), run_name="__main__")
    finally:
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module


def frames(rig: Rig) -> tuple[list[ReaderFrame], Pt1Decoder]:
    decoder = Pt1Decoder()
    return decoder.feed(rig.output()), decoder


def test_main_takes_usb_over_as_pokertable_pt1_and_reports_the_cards(
        pico_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (pico_files / "config.json").write_text((PICO / "config.json").read_text())
    rig = Rig(cards_config(), start=START, firmware=False)
    rig.field.place_many(4, ["04000000000001", "04000000000002"])
    pico = Pico(rig, seconds=1.5)
    with pytest.raises(Stop):
        boot(pico, "main.py")
    assert pico.usb["builtin_driver"] is False  # no REPL port: ours is interface 0 (-if00)
    assert (pico.usb["manufacturer_str"], pico.usb["product_str"], pico.usb["serial_str"]) == (
        MANUFACTURER, PRODUCT, "cards")
    assert pico.cdc["timeout"] == 0  # a write never waits for the host
    kinds = [kind for kind, _ in pico.events]
    selects = [args for kind, args in pico.events if kind == "pin" and args[1] == 1]
    assert sorted(args[0] for args in selects) == list(range(13))
    assert all(args[3] == 1 for args in selects)  # released...
    assert kinds.index("spi") > max(k for k, kind in enumerate(kinds) if kind == "pin")  # ...first
    spi = next(args for kind, args in pico.events if kind == "spi")
    assert spi[0] == 0 and spi[1]["baudrate"] == 4_000_000
    assert (spi[1]["polarity"], spi[1]["phase"]) == (0, 0)
    out, decoder = frames(rig)
    assert {(f.antenna, f.uid) for f in out if f.kind == "read"} == {
        (4, "04000000000001"), (4, "04000000000002")}
    uptimes = [f.uptime_ms for f in out if f.kind == "heartbeat"]
    assert uptimes[0] == 0 and len(uptimes) == 2  # at once, then 0.9 s later
    assert uptimes[1] is not None and 895 <= uptimes[1] <= 905  # across the ticks' wrap
    assert (decoder.bad, decoder.lost) == (0, 0)


def test_a_chip_board_boots_with_its_busy_line(pico_files: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (pico_files / "config.json").write_text((PICO / "config-chips.json").read_text())
    rig = Rig(chips_config(), start=START, firmware=False)
    rig.field.place_many(11, ["E004015000000001", "E004015000000002", "E004015000000003"])
    pico = Pico(rig, seconds=0.5)
    with pytest.raises(Stop):
        boot(pico, "main.py")
    assert pico.usb["serial_str"] == "chips"
    assert (15, 0, 2, None) in [args for kind, args in pico.events if kind == "pin"]  # pulled down
    out, _ = frames(rig)
    assert {f.uid for f in out if f.kind == "read" and f.antenna == 11} == {
        "E004015000000001", "E004015000000002", "E004015000000003"}


def test_the_maintenance_pin_leaves_the_repl_on_usb(
        pico_files: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (pico_files / "config.json").write_text((PICO / "config.json").read_text())
    rig = Rig(cards_config(), start=START, firmware=False)
    pico = Pico(rig, seconds=1)
    pico.inputs[22] = lambda: 0  # the jumper to ground
    boot(pico, "main.py")
    assert not pico.usb and not rig.writes
    assert "GP22 is tied to ground: maintenance, not scanning" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "says"), [
    ('{"serial": "cards", "antennas": []', "config.json: "),  # not JSON
    (json.dumps(cards_config(serial="Cards")), "config.json: config.json: 'serial' names"),
    (None, "cannot read config.json"),
])
def test_a_bad_or_missing_config_leaves_the_repl_on_usb_with_a_sentence(
        pico_files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        content: str | None, says: str) -> None:
    if content is not None:
        (pico_files / "config.json").write_text(content)
    rig = Rig(cards_config(), start=START, firmware=False)
    pico = Pico(rig, seconds=1)
    boot(pico, "main.py")
    assert not pico.usb
    out = capsys.readouterr().out
    assert out.startswith("pt1reader: ") and says in out


def test_an_unforeseen_error_restarts_the_board(pico_files: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (pico_files / "config.json").write_text((PICO / "config.json").read_text())
    rig = Rig(cards_config(), start=START, firmware=False)
    pico = Pico(rig, seconds=5)

    def broken(data: bytes) -> bytes:
        raise RuntimeError("a bug")

    monkeypatch.setattr(rig.spi, "transfer", broken)
    with pytest.raises(Stop):
        boot(pico, "main.py")
    assert pico.events[-1] == ("reset", None)


def test_check_says_which_antennas_answer_and_what_lies_on_them(
        pico_files: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (pico_files / "config.json").write_text((PICO / "config.json").read_text())
    rig = Rig(cards_config(), start=START, firmware=False)
    rig.spi.chips = [(wire, chip) for wire, chip in rig.spi.chips if chip is not rig.chips[7]]
    rig.field.place(3, "04000000000003")
    pico = Pico(rig, seconds=0.5)
    with pytest.raises(Stop):
        boot(pico, "check.py")
    assert not pico.usb  # the REPL's own port
    out = capsys.readouterr().out.splitlines()
    assert "antenna 0 (MFRC522, chip select GP0): answers" in out
    assert ("antenna 7 (MFRC522, chip select GP7): MFRC522 on GP7 does not answer (reads "
            "0x00). Check its chip select wire, 3.3 V, ground, MISO, MOSI and SCK") in out
    assert "antenna 3: 04000000000003 laid down" in out
