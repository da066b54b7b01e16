"""Bring-up on the REPL: each antenna's chip answers or not, then what lies on the antennas, in
words, for 30 seconds. Run it in maintenance (the maintenance pin tied to ground, so the REPL
is on USB): ``mpremote run firmware/pico/check.py`` (docs/firmware.md).
"""

import json

import board  # type: ignore[import-not-found]
from pt1reader.config import parse  # type: ignore[import-not-found]
from pt1reader.ports import ChipError  # type: ignore[import-not-found]
from pt1reader.scanner import build  # type: ignore[import-not-found]

SECONDS = 30


class Words:
    """PT1 lines as sentences: a tag's first R and its X; the repeats and heartbeats unsaid."""

    def __init__(self) -> None:
        self.shown = {}  # type: dict[str, bool]

    def write(self, line: bytes) -> None:
        text = line.decode()
        fields = text[1:text.index("*")].split(",")
        kind, antenna, value = fields[2], fields[3], fields[4]
        key = antenna + "/" + value
        if kind == "R" and key not in self.shown:
            self.shown[key] = True
            print(f"antenna {antenna}: {value} laid down")
        elif kind == "X":
            self.shown.pop(key, None)
            print(f"antenna {antenna}: {value} taken away")


def check(seconds: int = SECONDS) -> None:
    with open("config.json") as file:
        config = parse(json.load(file))
    bus = board.SpiBus(config.spi, [antenna.cs for antenna in config.antennas])
    clock = board.Clock()
    scanner = build(config, bus, board.input_line, clock, Words().write)
    for k in range(len(config.antennas)):  # (MicroPython's zip has no strict=)
        entry, antenna = config.antennas[k], scanner.antennas[k]
        where = f"antenna {entry.number} ({entry.chip.upper()}, chip select GP{entry.cs})"
        try:
            antenna.chip.start()
            antenna.started = True
            print(where + ": answers")
        except ChipError as exc:
            print(where + ": " + str(exc) + ". Check its chip select wire, 3.3 V, ground, "
                  "MISO, MOSI and SCK")
    print(f"Lay a tag on each antenna in turn ({seconds} s).")
    scanner.run(clock.now_us() + seconds * 1_000_000)
    print("done")


check()
