"""`pokertable install table`: one table's Pi. The table service as the ``pokertable`` user in
the ``dialout``, ``gpio`` and ``spi`` groups (the serial readers, the buttons' and chip selects'
pins, the reader modules' SPI buses), udev rules that give the serial readers stable names and
the GPIO chips and SPI devices to those groups, the table's login and the venue CA from its
bundle (`pokertable broker bundle`), hourly backups of its journal and outbox, and, on a
Raspberry Pi, the lgpio pin factory (the GPIO character device, which the Pi 5 needs) and the
SPI buses of docs/hardware.md switched on in the firmware's config.txt.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Literal

import rtoml
from pydantic import BaseModel, ConfigDict, Field

from controller.errors import ConfigError
from controller.install.host import SYSUSERS, _enable, _sysusers, one_role
from controller.install.tree import Tree
from controller.install.units import TABLE_SERVICE, backup_units
from controller.mqtt.table_bundle import TableBundle

ETC = "/etc/pokertable"
STATE = "/var/lib/pokertable"
TABLE_USERS = """\
# Written by `pokertable install table`: the table service's user, in the groups of the
# readers' serial ports (dialout), the GPIO chips (gpio: buttons, LEDs, chip selects) and the
# reader modules' SPI buses (spi); plain Debian has neither gpio nor spi.
u pokertable - "pokertable table" /var/lib/pokertable
g gpio -
g spi -
m pokertable dialout
m pokertable gpio
m pokertable spi
"""

# Readers made for pokertable name themselves in their USB descriptors (manufacturer
# "pokertable", serial "cards"/"chips"): /dev/pokertable/cards whichever port they are in. The
# rule reads the USB device's own attributes (ATTRS, $attr), so it does not depend on the order
# in which udev's other rules set their variables. Any other USB serial adapter stays reachable
# under /dev/serial/by-id as usual.
UDEV_RULES = """\
# Written by `pokertable install table`.
# Serial RFID readers: group dialout, and a name that does not depend on the USB port.
SUBSYSTEM=="tty", ATTRS{manufacturer}=="pokertable", GROUP="dialout", MODE="0660", \
  SYMLINK+="pokertable/$attr{serial}"
# The GPIO chips: buttons, LEDs, the reader modules' chip selects (Raspberry Pi OS has such a
# rule; plain Debian does not).
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
SUBSYSTEM=="bcm2835-gpiomem", KERNEL=="gpiomem", GROUP="gpio", MODE="0660"
# The reader modules' SPI buses, /dev/spidev* (Raspberry Pi OS has this one too).
SUBSYSTEM=="spidev", GROUP="spi", MODE="0660"
"""

UDEV_FILE = "/etc/udev/rules.d/70-pokertable.rules"

# The Pi's firmware configuration: /boot/firmware/config.txt since bookworm, /boot/config.txt
# on older images. The readers of docs/hardware.md need both SPI buses: SPI0 without kernel chip
# selects (the 74HC154 makes them, on GPIO7 and GPIO8 among others), SPI1 with its one kernel
# chip select parked on GPIO18, which nothing else uses. ``[all]`` first: a block appended after
# a filter section such as ``[cm4]`` would otherwise apply to that board alone.
BOOT_CONFIGS = ("/boot/firmware/config.txt", "/boot/config.txt")
SPI_LINES = ("dtparam=spi=on", "dtoverlay=spi0-0cs", "dtoverlay=spi1-1cs,cs0_pin=18")
BOOT_BEGIN = ("# >>> pokertable: the RFID readers' SPI buses (docs/hardware.md), "
              "written by `pokertable install table`")
BOOT_END = "# <<< pokertable"
BOOT_BLOCK = "\n".join([BOOT_BEGIN, "[all]", *SPI_LINES, BOOT_END]) + "\n"
# Lines elsewhere in config.txt that take pins the readers use.
BOOT_CONFLICTS = {
    "dtparam=i2c_arm=on": "I2C takes GPIO2 and GPIO3, the chip decoder's A0 and A1",
    "dtparam=i2c=on": "I2C takes GPIO2 and GPIO3, the chip decoder's A0 and A1",
    "enable_uart=1": "on a Pi 4 the UART takes GPIO15, the PN5180s' BUSY line",
    "dtparam=uart0=on": "the UART takes GPIO15, the PN5180s' BUSY line",
    "dtoverlay=w1-gpio": "1-Wire takes GPIO4 (unless moved), the card decoder's A0",
}
Board = Literal["auto", "pi5", "pi", "other"]


class TablePlan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str | None = Field(default=None, description="The table id; from the bundle when "
                              "one is given")
    bundle: TableBundle | None = None
    board: Board = "auto"
    keep_days: int = Field(default=14, ge=1, le=3650)
    venv: str = "/opt/pokertable/.venv"


def board_of(tree: Tree, board: Board) -> str:
    """The board, from the device tree: every Raspberry Pi gets lgpio (the Pi 5's RP1 chip
    needs it; on the others gpiozero's fallback would use the sysfs GPIO interface, gone from
    recent kernels and read-only in the unit's sandbox)."""
    if board != "auto":
        return board
    for model in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
        path = tree.path(model)
        if path.is_file():
            text = path.read_bytes().decode("ascii", "replace")
            return "pi5" if "Raspberry Pi 5" in text else "pi" if "Raspberry Pi" in text \
                else "other"
    return "other"


def _zones(others: dict[int, str]) -> str:
    """A reader's antennas: 1-10 the seats, the others as given (deploy/table.example.toml)."""
    zones = {**{n: f"seat:{n}" for n in range(1, 11)}, **others}
    return "{ " + ", ".join(f'{n} = "{zones[n]}"' for n in sorted(zones)) + " }"


def table_config(table: str, bundle: TableBundle | None, pin_factory: str) -> str:
    mqtt = "# No [mqtt]: install with --bundle FILE to join the venue's broker.\n"
    if bundle is not None:
        mqtt = (f'[mqtt]\nhost = "{bundle.host}"      # the name in the broker\'s certificate\n'
                f"port = {bundle.port}\ntls = true\n"
                'ca = "ca.crt"\n'
                f'venue = "{bundle.venue}"\n'
                'credentials = "credentials.json"\n'
                f'outbox = "{STATE}/outbox.db"\n')
    return f"""\
# Table {table}, written by `pokertable install table`; edit it freely: a second install keeps
# it. Paths are relative to this file; what the service writes lives in {STATE}.
# Fill in [[readers]] (the device names, the antennas), then register the deck and the chips
# on them (docs/install.md); `pokertable table --check` after each edit.

[table]
id = "{table}"
profile = "pvb-2020"
seats = 10
journal = "{STATE}/journal.db"
output = "{STATE}/out"

[[readers]]
name = "cards"
url = "/dev/pokertable/cards"
protocol = "pt1"
reads = "cards"
deck = "decks/house.json"
zones = {_zones({0: "burn", 11: "board", 12: "muck"})}

[[readers]]
name = "chips"
url = "/dev/pokertable/chips"
protocol = "pt1"
reads = "chips"
chips = "chips/house.json"
zones = {_zones({11: "pot"})}

[buttons]
pin_factory = "{pin_factory}"
shuffle = 17
confirm = 27
undo = 22
floor = 23
led_hand_for_hand = 5
led_clock = 6
led_irregularity = 13

{mqtt}"""


def install_table(plan: TablePlan, tree: Tree) -> None:
    bundle = plan.bundle
    table = bundle.table if bundle is not None else plan.table
    if table is None:
        raise ConfigError("give --bundle FILE (from `pokertable broker bundle`) or --id ID for "
                          "a table without the venue's broker")
    if bundle is not None and plan.table is not None and plan.table != bundle.table:
        raise ConfigError(f"--id {plan.table} but the bundle is table {bundle.table}'s")
    one_role(tree, "table")
    _same_table(tree, table)
    board = board_of(tree, plan.board)
    pin_factory = "lgpio" if board in ("pi5", "pi") else "default"
    if tree.real and pin_factory == "lgpio":
        tree.run([f"{plan.venv}/bin/pip", "install", "-q", "lgpio"],
                 "install lgpio (the Pi's GPIO chip)")
    tree.file(SYSUSERS, TABLE_USERS.encode(), 0o644)
    _sysusers(tree)
    tree.file(UDEV_FILE, UDEV_RULES.encode(), 0o644)
    if board in ("pi5", "pi"):
        boot_config(tree)
    tree.directory(ETC, 0o750, "root", "pokertable")
    tree.directory(f"{ETC}/decks", 0o750, "root", "pokertable")
    tree.directory(f"{ETC}/chips", 0o750, "root", "pokertable")
    tree.file(f"{ETC}/table.toml", table_config(table, bundle, pin_factory).encode(), 0o640,
              "root", "pokertable", keep_edits=True)
    if bundle is not None:
        login = {f"table-{bundle.table}": bundle.login.model_dump()}
        tree.file(f"{ETC}/credentials.json", (json.dumps(login, indent=2) + "\n").encode(),
                  0o640, "root", "pokertable")
        tree.file(f"{ETC}/ca.crt", bundle.ca.encode(), 0o644)
    tree.directory(STATE, 0o700, "pokertable", "pokertable")
    tree.directory("/var/backups/pokertable", 0o700)
    units = {f"{TABLE_SERVICE.name}.service": TABLE_SERVICE.text(plan.venv)}
    units |= backup_units(plan.venv, [f"{STATE}/journal.db", f"{STATE}/outbox.db"],
                          plan.keep_days)
    for name, text in units.items():
        tree.file(f"/etc/systemd/system/{name}", text.encode(), 0o644)
    if tree.real:
        tree.run(["udevadm", "control", "--reload-rules"], "reload the udev rules")
    tree.save_manifest()
    _enable(tree, [f"{TABLE_SERVICE.name}.service", "pokertable-backup.timer"])


def boot_config(tree: Tree) -> None:
    """The SPI lines in the Pi's config.txt, in a block of their own at its end: written once,
    put back as this version has it if it was changed, and otherwise left alone with the rest of
    the file (a second install changes nothing). The firmware reads it at boot only."""
    where = next((p for p in BOOT_CONFIGS if tree.path(p).is_file()), None)
    if where is None:
        tree.kept.append(f"the Pi's boot configuration: neither {' nor '.join(BOOT_CONFIGS)} "
                         "is here; for the SPI readers add these lines to its config.txt by "
                         f"hand and reboot: {', '.join(SPI_LINES)} (docs/hardware.md)")
        return
    path = tree.path(where)
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    end = text.find(BOOT_END)
    begin = text.rfind(BOOT_BEGIN, 0, max(end, 0))
    if begin >= 0 and end > begin:  # ours, from this or an earlier install
        after = text.find("\n", end)
        cut = len(text) if after < 0 else after + 1
        before, ours, rest = text[:begin], text[begin:cut], text[cut:]
    else:
        before, ours, rest = text, "", ""
    for line in (before + rest).splitlines():
        said = line.split("#", 1)[0].strip().replace(" ", "")
        overlay = said.split(",", 1)[0]
        if said in SPI_LINES or said == "dtoverlay=spi1-1cs":  # the same again: harmless
            continue
        why = BOOT_CONFLICTS.get(said) or BOOT_CONFLICTS.get(overlay)
        if why is None and overlay.startswith(("dtoverlay=spi0-", "dtoverlay=spi1-")):
            why = "another SPI overlay, which claims chip-select pins the readers use"
        if why is not None:
            tree.kept.append(f"{where} also has '{line.strip()}': {why}; remove it or the "
                             "readers will not work (docs/hardware.md)")
    if ours == BOOT_BLOCK:
        return
    if not ours and before and not before.endswith("\n"):
        before += "\n"
    new = before + ("\n" if not ours and before.strip() else "") + BOOT_BLOCK + rest
    _replace(path, new.encode("utf-8", errors="surrogateescape"))
    tree.changed(f"{'updated' if ours else 'added'} the SPI buses ({', '.join(SPI_LINES)}) "
                 f"in {where}: reboot the Pi for them to take effect")


def _replace(path: Path, content: bytes) -> None:
    """The file's new content through a new file renamed over it (a power cut leaves the old
    one or the new one, never half of one), with the old one's mode where the file system keeps
    modes (the firmware's partition is FAT, which does not)."""
    new = path.with_name(f".{path.name}.pokertable-new")
    new.write_bytes(content)
    with contextlib.suppress(OSError):
        shutil.copymode(path, new)
    with open(new, "rb+") as written:
        os.fsync(written.fileno())
    os.replace(new, path)


def _same_table(tree: Tree, table: str) -> None:
    """A Pi that is already a table stays that table: another table's bundle on it would
    leave its configuration naming one table and its login another's."""
    path = tree.path(f"{ETC}/table.toml")
    if not path.is_file():
        return
    try:
        installed = rtoml.loads(path.read_text(encoding="utf-8"))["table"]["id"]
    except (OSError, ValueError, KeyError, TypeError, rtoml.TomlParsingError):
        return  # not readable as a table's: the table itself will say what is wrong
    if str(installed) != table:
        raise ConfigError(f"this Pi is table {installed} ({ETC}/table.toml), and this is table "
                          f"{table}'s bundle: to make it table {table}, remove {ETC}/table.toml "
                          "first (or install table " + str(installed) + "'s bundle)")


def read_bundle_file(path: Path) -> TableBundle:
    from controller.mqtt.table_bundle import read_bundle

    return read_bundle(path)


__all__ = ["BOOT_BLOCK", "TablePlan", "board_of", "boot_config", "install_table",
           "table_config"]
