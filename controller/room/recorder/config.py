"""`recorder.toml`: the recorder's configuration, validated (unknown keys are errors). Paths are
relative to the file, as for the clock and the floor."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import VENUE_NAME, BrokerAddress
from controller.room.recorder.store import is_url


class RecorderSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    store: str = Field(default="records.db", description="Where every full hand record and "
                       "durable event is kept: a SQLite file (holds hole cards: 0600), or a "
                       "postgresql:// URL (a league's shared database)")
    group_read: bool = Field(default=False, description="A SQLite store's files 0640, not "
                             "0600: the recorder's group may read them (an installed host's "
                             "floor, for the players' own cards and the broadcast)")
    follow: list[str] = Field(default_factory=list, description="The venues whose records it "
                              "keeps (a league's recorder); empty: [mqtt] venue")
    keeper: bool = Field(default=True, description="It acknowledges: the tables let a record "
                         "go on its word. False for a venue's own copy while a league's "
                         "recorder keeps the hands (docs/league.md)")

    @model_validator(mode="before")
    @classmethod
    def _older_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and "db" in data:  # before PostgreSQL: a file only
            data = dict(data)
            if "store" in data:
                raise ValueError("give store or db (its older name), not both")
            data["store"] = str(data.pop("db"))
        return data

    @field_validator("follow")
    @classmethod
    def _venues(cls, value: list[str]) -> list[str]:
        for venue in value:  # (named as the list's: "venue 'Hall A': ...")
            if not re.match(VENUE_NAME, venue):
                raise ValueError(f"venue {venue!r}: lower-case letters, digits and dashes")
        return value


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
    if not is_url(config.recorder.store):
        config.recorder.store = str(base / config.recorder.store)
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    return config


__all__ = ["RecorderConfig", "load_recorder_config"]
