"""`recorder.toml`: the recorder's configuration, validated (unknown keys are errors). Paths are
relative to the file, as for the clock and the floor."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.client import BrokerAddress
from controller.text_files import read_toml_model


class RecorderSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    db: Path = Field(default=Path("records.db"), description="Every full hand record and "
                     "durable event (SQLite; holds hole cards: 0600)")


class RecorderMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the "
                              "recorder's entry)")


class RecorderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    recorder: RecorderSection = Field(default_factory=RecorderSection)
    mqtt: RecorderMqtt


def load_recorder_config(path: str | Path) -> RecorderConfig:
    path = Path(path)
    config = read_toml_model(path, RecorderConfig, "a recorder configuration (TOML)")
    base = path.resolve().parent
    config.recorder.db = base / config.recorder.db
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    return config


__all__ = ["RecorderConfig", "load_recorder_config"]
