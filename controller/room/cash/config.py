"""`cash.toml`: the cash floor's configuration, validated (unknown keys are errors). Paths are
relative to the file, as for the clock and the tournament.

    [cash]
    games = ["NLH 2/5", "PLO 5/5", "Limit 5/10"]
    tables = ["1", "2", {table = "3", seats = 6}]
    call_minutes = 10
    must_move_order = "list"   # or "draw" (CG "Must Move")

    [mqtt]
    venue = "hall"
    credentials = "credentials.json"
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from controller.errors import ConfigError, first_error
from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import BrokerAddress
from controller.room.cash.ledger import CashSettings, MustMoveOrder, TableSpec


class CashSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    games: list[str] = Field(min_length=1, description='Each game and limit the room deals, '
                             'as its screens name it ("NLH 2/5"): each has its waiting list')
    tables: list[str | TableSpec] = Field(min_length=1, description="The room's cash tables: "
                                          "ids, or {table, seats} for a table of another size")
    seats: int = Field(default=9, ge=2, le=10, description="Seats at a table named by id alone")
    call_minutes: float = Field(default=10, ge=0.5, le=120, description="How long a called "
                                "player has to sit down before he leaves the list")
    must_move_order: MustMoveOrder = Field(default="list", description="list: the players at "
                                           "a new must-move table in the order they came; "
                                           "draw: drawn (CG \"Must Move\")")
    minimum_buy_ins: dict[str, int] = Field(default_factory=dict, description='CG "Buy-in": '
                                            "game -> its minimum buy-in (the same-day rule)")
    day_starts: int = Field(default=6, ge=0, le=23, description="The hour (UTC) a playing day "
                            "begins")
    db: Path = Field(default=Path("cash.db"), description="The cash floor's journal (SQLite)")


class CashMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the cash "
                              "floor's entry)")


class CashConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cash: CashSection
    mqtt: CashMqtt
    _source: Path = PrivateAttr(default=Path("cash.toml"))

    def settings(self) -> CashSettings:
        section = self.cash
        tables = [t if isinstance(t, TableSpec) else TableSpec(table=t, seats=section.seats)
                  for t in section.tables]
        try:
            return CashSettings(games=section.games, tables=tables,
                                call_seconds=section.call_minutes * 60,
                                must_move_order=section.must_move_order,
                                minimum_buy_ins=section.minimum_buy_ins,
                                day_starts=section.day_starts)
        except ValidationError as exc:
            raise ConfigError(f"{self._source}: {first_error(exc, 'the file')}") from None


def load_cash_config(path: str | Path) -> CashConfig:
    path = Path(path)
    config = read_toml_model(path, CashConfig, "a cash floor configuration (TOML)")
    base = path.resolve().parent
    config.cash.db = base / config.cash.db
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    config._source = path
    return config


__all__ = ["CashConfig", "load_cash_config"]
