"""`floor.toml`: the floor display server's configuration, validated (unknown keys are errors).
Paths are relative to the file, as for the clock and the tables."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import VENUE_NAME, BrokerAddress
from controller.room.recorder.store import is_url

LOOPBACK = ("127.0.0.1", "::1", "localhost")

class FloorSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    listen: str = Field(default="127.0.0.1", description="The address the web server binds: "
                        "another than this machine's own (127.0.0.1, ::1) needs tls_cert")
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
                                 "only (set it when a TLS proxy is in front; with tls_cert it "
                                 "always is)")
    tls_cert: Path | None = Field(default=None, description="The server certificate (PEM): "
                                  "broker init's floor.crt, or the venue's own")
    tls_key: Path | None = Field(default=None, description="Its private key (PEM)")
    records: str | None = Field(default=None, description="The recorder's store (its "
                                "records.db, or its postgresql:// URL), read for each "
                                "player's own cards of his sealed hands on his page "
                                "(docs/players.md); unset: his page shows tabled cards only")
    follow: list[str] = Field(default_factory=list, description="The venues it shows (a "
                              "league's floor, read-only: docs/league.md); empty: [mqtt] venue")

    @field_validator("follow")
    @classmethod
    def _venues(cls, value: list[str]) -> list[str]:
        for venue in value:  # (named as the list's: "venue 'Hall A': ...")
            if not re.match(VENUE_NAME, venue):
                raise ValueError(f"venue {venue!r}: lower-case letters, digits and dashes")
        return value

    @model_validator(mode="after")
    def _logins_never_in_clear(self) -> FloorSection:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.tls_cert is None and self.listen not in LOOPBACK:
            raise ValueError(
                f"listen = {self.listen!r} without tls_cert: the floor's logins would cross the "
                "room's network in clear. Give tls_cert and tls_key (broker init wrote floor.crt "
                "and floor.key), or listen on 127.0.0.1 behind a TLS proxy")
        return self


class BroadcastSection(BaseModel):
    """The secure-delay broadcast feed (docs/broadcast.md): how old what it shows must be."""

    model_config = ConfigDict(extra="forbid")

    delay_minutes: float = Field(default=30.0, gt=0, le=24 * 60, description="Nothing "
                                 "younger leaves the server (per room; a tournament's floor "
                                 "is its room's)")
    closed_door: list[str] = Field(default_factory=list, description="Tables played without "
                                   "an audience: no delay there (a hand shows once sealed)")
    feature_table: str | None = Field(default=None, max_length=40, description="The table "
                                      "/broadcast shows at the start (the floor switches it)")

    def delay(self, table: str) -> float:
        """Seconds of delay at ``table``."""
        return 0.0 if table in self.closed_door else self.delay_minutes * 60


class FloorMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the floor's "
                              "entry)")


class FloorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    floor: FloorSection = Field(default_factory=FloorSection)
    broadcast: BroadcastSection = Field(default_factory=BroadcastSection)
    mqtt: FloorMqtt


def load_floor_config(path: str | Path) -> FloorConfig:
    path = Path(path)
    config = read_toml_model(path, FloorConfig, "a floor configuration (TOML)")
    base = path.resolve().parent
    for name in ("accounts", "db", "secret"):
        setattr(config.floor, name, base / getattr(config.floor, name))
    for name in ("tls_cert", "tls_key"):
        if getattr(config.floor, name) is not None:
            setattr(config.floor, name, base / getattr(config.floor, name))
    if config.floor.records and not is_url(config.floor.records):
        config.floor.records = str(base / config.floor.records)
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    return config


__all__ = ["BroadcastSection", "FloorConfig", "load_floor_config"]
