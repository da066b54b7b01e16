"""The PT1 reader board: MicroPython runs this file at power-up (docs/firmware.md).

Read config.json and check it whole; then, unless the maintenance pin is tied to ground, take
the USB port over as the "pokertable" "PT1" serial port and scan the antennas for ever. A
mistake in config.json, or the maintenance pin, leaves the REPL on USB (`mpremote` still works)
with a sentence on it saying why.
"""

import json

import board  # type: ignore[import-not-found]
from pt1reader.config import ConfigError, parse  # type: ignore[import-not-found]
from pt1reader.scanner import build  # type: ignore[import-not-found]

CONFIG = "config.json"


def main() -> None:
    try:
        with open(CONFIG) as file:
            config = parse(json.load(file))
    except OSError as exc:
        print(f"pt1reader: cannot read {CONFIG} ({exc}): copy it to the Pico (docs/firmware.md)")
        return
    except (ConfigError, ValueError) as exc:  # a JSON syntax error is a ValueError
        print(f"pt1reader: {CONFIG}: {exc}. The REPL stays on USB: fix the file, then reset.")
        return
    if board.maintenance(config.maintenance_pin):
        print(f"pt1reader: GP{config.maintenance_pin} is tied to ground: maintenance, not "
              "scanning. The REPL stays on USB; remove the jumper and reset to scan.")
        return
    usb = board.UsbSerial(config.serial)
    bus = board.SpiBus(config.spi, [antenna.cs for antenna in config.antennas])
    scanner = build(config, bus, board.input_line, board.Clock(), usb.write)
    try:
        scanner.run()
    except Exception:  # nobody can read a traceback here: start afresh
        board.restart()


main()
