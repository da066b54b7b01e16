"""`floor.toml`: the floor display server's configuration, validated (unknown keys are errors).
Paths are relative to the file, as for the clock and the tables."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.client import BrokerAddress
from controller.text_files import read_toml_model


class FloorSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    listen: str = Field(default="0.0.0.0", description="The address the web server binds")
    port: int = Field(default=8080, ge=1, le=65535)
    accounts: Path = Field(default=Path("floor-users.json"), description="Floor staff "
                           "accounts (`pokertable floor-user add`)")
    db: Path = Field(default=Path("floor.db"), description="Alerts, acknowledgements and the "
                     "public hand records (SQLite)")
    keep_hands_days: int = Field(default=30, ge=0, le=3650, description="How long the hands "
                                 "screen keeps a hand (0: for ever); the recorder keeps all")
    secret: Path = Field(default=Path("floor-secret"), description="The key that signs login "
                         "sessions; created (0600) on the first start")
    secure_cookies: bool = Field(default=False, description="Send the login cookie over HTTPS "
                                 "only (set it when a TLS proxy is in front)")


class FloorMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the floor's "
                              "entry)")


class FloorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    floor: FloorSection = Field(default_factory=FloorSection)
    mqtt: FloorMqtt


def load_floor_config(path: str | Path) -> FloorConfig:
    path = Path(path)
    config = read_toml_model(path, FloorConfig, "a floor configuration (TOML)")
    base = path.resolve().parent
    for name in ("accounts", "db", "secret"):
        setattr(config.floor, name, base / getattr(config.floor, name))
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    return config


__all__ = ["FloorConfig", "load_floor_config"]
