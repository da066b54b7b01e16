"""`table.toml`: one table's configuration, validated (unknown keys are errors).

Paths (journal, output, deck and chip files) are relative to the configuration file, so a
provisioned Pi and a developer's checkout read the same file.
"""

from __future__ import annotations

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
from drivers.reader_config import ReaderConfig


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
