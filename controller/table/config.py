"""`table.toml`: one table's configuration, validated (unknown keys are errors).

Paths (journal, output, deck and chip files) are relative to the configuration file, so a
provisioned Pi and a developer's checkout read the same file.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.engine.profiles import BUILTIN_PROFILES, load_profile
from controller.engine.straddles import StraddleKind
from controller.engine.table_play import Level
from controller.errors import ConfigError
from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import BrokerAddress
from controller.session import SessionConfig
from controller.session.model import BuyIn
from controller.session.shot_settings import ShotClockConfig
from drivers.buttons import PanelConfig
from drivers.reader_config import SPI_CHIPS, ReaderConfig


class TableSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(default="1", min_length=1)
    profile: str = "pvb-2020"
    seats: int = Field(default=10, ge=2, le=10)
    level: Level = Field(default_factory=lambda: Level(sb=50, bb=100))
    journal: Path = Path("journal.db")
    output: Path = Field(default=Path("out"), description="Local sink directory")
    check_burns: bool = False
    straddles: list[StraddleKind] = Field(
        default_factory=list, description="CG Straddle: the straddles this table opened with "
        "(live, button, mississippi), each one its rule profile knows; none by default")
    shot_clock: ShotClockConfig | None = Field(
        default=None, description="[table.shot_clock]: the table's shot clock "
        "(docs/shot-clock.md); absent: none")
    buy_in: BuyIn | None = Field(default=None, description="A cash table's minimum and "
                                 "maximum buy-in (CG Buy-in, CG Limits); none by default")
    keep_hands: int = Field(default=10, ge=10, description="Finished hands kept in the journal")
    events_max_bytes: int = Field(default=10_000_000, ge=4096, description="output/events.jsonl "
                                  "is rotated before a line would take it past this size")
    events_keep: int = Field(default=5, ge=1, le=100, description="Rotated event files kept: "
                             "events.jsonl.1 (the newest) to .N")

    @model_validator(mode="after")
    def _blinds_in_order(self) -> TableSection:
        if self.level.sb > self.level.bb:
            raise ValueError(f"level: the small blind ({self.level.sb}) is more than the big "
                             f"blind ({self.level.bb})")
        return self


class ReaderSection(ReaderConfig):
    deck: Path | None = Field(default=None, description="Registered deck (JSON), card readers")
    chips: Path | None = Field(default=None, description="Registered chip set, chip readers")


class MqttSection(BrokerAddress):
    """``[mqtt]``: the venue's broker. Without it the table writes only its local files."""

    credentials: Path = Field(description="credentials.json from `broker init` (or this "
                              "client's entry only)")
    client: str | None = Field(default=None, description="Name in the credentials; default "
                               "table-<id>")
    outbox: Path = Field(default=Path("outbox.db"), description="Durable outbox (SQLite)")


class TableConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: TableSection = Field(default_factory=TableSection)
    readers: list[ReaderSection] = Field(default_factory=list)
    buttons: PanelConfig | None = None
    mqtt: MqttSection | None = None

    def session(self) -> SessionConfig:
        t = self.table
        return SessionConfig(table_id=t.id, profile=t.profile, seats=t.seats, level=t.level,
                             check_burns=t.check_burns, straddles=t.straddles,
                             shot_clock=t.shot_clock, buy_in=t.buy_in)


def load_table_config(path: str | Path) -> TableConfig:
    """The validated configuration; every mistake is a `ConfigError` of one line that names the
    file, the field and what is wrong."""
    path = Path(path)
    config = read_toml_model(path, TableConfig, "a table configuration (TOML)")
    base = path.resolve().parent
    t = config.table
    t.journal = base / t.journal
    t.output = base / t.output
    if t.profile not in BUILTIN_PROFILES:
        t.profile = str(base / t.profile)  # a profile file beside the configuration
    try:
        profile = load_profile(t.profile)
    except ConfigError as exc:
        raise ConfigError(f"{path}: table.profile: {exc}") from None
    unknown = [kind for kind in t.straddles if kind not in profile.straddles]
    if unknown:
        known = ", ".join(profile.straddles) or "none"
        raise ConfigError(f"{path}: table.straddles: the rule profile {profile.name} knows no "
                          f"{' or '.join(unknown)} straddle (it knows: {known}; CG Straddle)")
    mistake = wiring_mistake(config)
    if mistake is not None:
        raise ConfigError(f"{path}: {mistake}")
    if config.mqtt is not None:
        m = config.mqtt
        m.credentials = base / m.credentials
        m.outbox = base / m.outbox
        m.ca = base / m.ca if m.ca else None
    config.readers = [
        reader.model_copy(update={
            "deck": base / reader.deck if reader.deck else None,
            "chips": base / reader.chips if reader.chips else None,
        })
        for reader in config.readers
    ]
    return config


SPI_DEVICE = re.compile(r"/dev/spidev\d\.\d")  # (a Pi's: bus 0 or 1, chip select 0 or 1)

# The pins of the SPI buses the readers use (docs/hardware.md, "Every GPIO"): MISO, MOSI, SCLK;
# on SPI1 also GPIO18, the chip select its overlay claims.
SPI_BUS_PINS = {"0": (9, 10, 11), "1": (18, 19, 20, 21)}


def _pins_of(reader: ReaderSection) -> list[tuple[int, str]]:
    """The GPIO pins a reader takes, each with its job: its SPI bus, its decoder's lines or its
    chip selects, its BUSY line."""
    where = f"readers.{reader.name}"
    pins: list[tuple[int, str]] = []
    if reader.protocol in SPI_CHIPS:
        bus = reader.url.removeprefix("/dev/spidev").partition(".")[0]
        pins += [(pin, f"the SPI{bus} bus") for pin in SPI_BUS_PINS.get(bus, ())]
    if reader.decoder is not None:
        pins += [(pin, f"{where}.decoder.address") for pin in reader.decoder.address]
        pins.append((reader.decoder.enable, f"{where}.decoder.enable"))
    elif reader.protocol in SPI_CHIPS:
        pins += [(pin, f"{where}.selects") for pin in reader.selects.values()]
    if reader.busy is not None:
        pins.append((reader.busy, f"{where}.busy"))
    return pins


def reader_pins(config: TableConfig) -> set[int]:
    """Every GPIO pin the configured readers take."""
    return {pin for reader in config.readers for pin, _ in _pins_of(reader)}


def wiring_mistake(config: TableConfig) -> str | None:
    """The first of the mistakes each section cannot see alone, as ``where: what``: a GPIO pin
    given two jobs (a key on a decoder's address line: the table would stop at start-up with the
    pin busy), two readers of one name, one zone read by two readers of the same kind, or a
    reader that cannot read a table's zones at all (an RDM6300: the table would wait for cards
    it never sees)."""
    jobs: dict[int, str] = {}

    def taken(pin: int, job: str) -> str | None:
        other = jobs.setdefault(pin, job)
        if other == job:
            return None
        return f"{job}: GPIO{pin} is also {other} (each pin has one job)"

    names: set[str] = set()
    zones: dict[tuple[str, str], str] = {}  # (reads, zone) -> the reader that reads it
    ports: dict[str, str] = {}  # url -> the reader on it
    seats = config.table.seats
    for reader in config.readers:
        where = f"readers.{reader.name}"
        if reader.name in names:
            return f"readers: two readers are named {reader.name!r}"
        names.add(reader.name)
        if reader.protocol in SPI_CHIPS and not SPI_DEVICE.fullmatch(reader.url):
            return (f"{where}.url: {reader.url!r} is no SPI bus: a {reader.protocol} module is "
                    "on /dev/spidev0.0 or /dev/spidev1.0 (docs/hardware.md)")
        other = ports.setdefault(reader.url, reader.name)
        if other != reader.name:
            # (two scan loops on one bus select modules at once and garble it; two readers
            # on one serial port read each other's frames)
            return (f"{where}.url: {reader.url} is reader {other!r}'s too: each reader has "
                    "a bus or port of its own (modules on one bus go in one [[readers]], "
                    "behind its decoder)")
        beyond = sorted(z for z in reader.zones.values()
                        if z.startswith("seat:") and int(z[5:]) > seats)
        if beyond:
            return (f"{where}.zones: {beyond[0]!r} at a table of {seats} seats (table.seats): "
                    "leave its antenna out, or set table.seats")
        if reader.protocol == "rdm6300":
            # (one tag at a time: no zone of a table holds one card or one chip; its one
            # antenna is 0, as ReaderConfig checks)
            return (f"{where}.protocol: an RDM6300 reads one tag at a time, and two cards or "
                    f"chips on its antenna read as nothing, so it cannot read "
                    f"{reader.zones[0]!r}: use "
                    "an MFRC522, PN5180 or PN532 (docs/hardware.md, \"Which tag for what\")")
        for zone in reader.zones.values():
            other = zones.setdefault((reader.reads, zone), reader.name)
            if other != reader.name:
                return (f"{where}.zones: {zone!r} is read by reader {other!r} too: leave it out "
                        "of one of them (docs/hardware.md, \"Other readers\")")
        for pin, job in _pins_of(reader):
            if (mistake := taken(pin, job)) is not None:
                return mistake
    if config.buttons is not None:
        for key, pin in config.buttons.pins().items():
            if (mistake := taken(pin, f"buttons.{key}")) is not None:
                return mistake
    card_readers = [r for r in config.readers if r.reads == "cards"]
    if config.table.check_burns and card_readers and ("cards", "burn") not in zones:
        return ("table.check_burns: no reader reads a 'burn' zone, so the table would wait for "
                "ever for the burn card (PVB 35(2)): give a card reader's burn antenna the "
                "zone \"burn\", or check_burns = false")
    return None
