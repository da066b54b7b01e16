"""`clock.toml`: the tournament clock's configuration, validated (unknown keys are errors).
Paths are relative to the file, as for a table."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import BrokerAddress
from controller.room.clock.room_holds import ANSWER_SECONDS


class ClockSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    structure: Path = Field(description="The tournament structure (TOML)")
    db: Path = Field(default=Path("clock.db"), description="The clock's journal (SQLite)")
    answer_seconds: float = Field(default=ANSWER_SECONDS, gt=0, le=600, description="A table "
                                  "holding a hand-for-hand round that has not answered for this "
                                  "long is named late and the floor alerted")


class ClockMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the clock's "
                              "entry)")


class ClockConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clock: ClockSection
    mqtt: ClockMqtt


def load_clock_config(path: str | Path) -> ClockConfig:
    path = Path(path)
    config = read_toml_model(path, ClockConfig, "a clock configuration (TOML)")
    base = path.resolve().parent
    config.clock.structure = base / config.clock.structure
    config.clock.db = base / config.clock.db
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    return config


__all__ = ["ClockConfig", "load_clock_config"]
