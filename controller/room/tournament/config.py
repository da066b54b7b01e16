"""`tournament.toml`: the tournament service's configuration, validated (unknown keys are
errors). Paths are relative to the file, as for the clock."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from controller.errors import ConfigError, first_error
from controller.inputs.text_files import read_toml_model
from controller.mqtt.client import BrokerAddress
from controller.room.clock.structure import load_structure
from controller.room.tournament.balance import BalanceProfile
from controller.room.tournament.ledger import Settings, TableSpec
from controller.room.tournament.prizes import PointsProfile, payouts, prize_pool
from controller.session.colour_up import ColourUpMethod


class TournamentSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    structure: Path = Field(description="The structure (TOML) the clock runs too: its [entry] "
                            "and [prizes] are the tournament's")
    db: Path = Field(default=Path("tournament.db"), description="The tournament's journal")
    export: Path = Field(default=Path("standings"), description="Where the final standings "
                         "go (standings.csv, standings.json)")
    seats: int = Field(default=9, ge=2, le=10, description="Players per table")
    tables: list[str | TableSpec] = Field(min_length=1, description="The room's tables in "
                                          "the order balancing's ties go by: ids, or "
                                          "{table, seats} for a table of another size")
    break_order: list[str] = Field(default_factory=list, description="The order tables break "
                                   "in (default: the tables' order reversed)")
    balancing: BalanceProfile = Field(default="pvb-2020", description="pvb-2020: the player "
                                      "in the free seat's position moves (PVB 09(1)); "
                                      "apsa-2010: the next big blind (APSA 3.1.2.4)")
    points: PointsProfile = Field(default="none", description="apsa-ranking (APSA 4.1.1.2), "
                                  "apsa-sit-and-go (APSA 3.1.1.3) or none")
    colour_up: ColourUpMethod = Field(default="race", description="The leftover chips at a "
                                      "colour-up: race (APSA 2.1.18, BPS 2) or chip-up (PVB "
                                      "15b(1))")


class TournamentMqtt(BrokerAddress):
    credentials: Path = Field(description="credentials.json from `broker init` (the "
                              "tournament's entry)")


class TournamentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tournament: TournamentSection
    mqtt: TournamentMqtt
    _source: Path = PrivateAttr(default=Path("tournament.toml"))

    def settings(self) -> Settings:
        """The rules the tournament runs by, its structure read (a mistake is one line naming
        the file)."""
        section = self.tournament
        structure = load_structure(section.structure)
        tables = [t if isinstance(t, TableSpec) else TableSpec(table=t, seats=section.seats)
                  for t in section.tables]
        try:
            return Settings(name=section.name, structure=structure, tables=tables,
                            break_order=section.break_order, seats=section.seats,
                            balancing=section.balancing, points=section.points,
                            colour_up=section.colour_up)
        except ValidationError as exc:
            raise ConfigError(f"{self._source}: {first_error(exc, 'the file')}") from None

    def summary(self) -> str:
        """What `--check` prints: what the tournament would run with, in one paragraph."""
        settings = self.settings()
        structure = settings.structure
        tables = ", ".join(f"{t.table} ({t.seats})" for t in settings.tables)
        entries = sum(t.seats for t in settings.tables)
        prizes = payouts(structure.prizes, prize_pool(entries, structure.entry.buy_in), entries)
        paid = ", ".join(f"{p:,}" for p in prizes) or "no payout table"
        add_on, rebuy = structure.entry.add_on, structure.entry.rebuy
        bought = (f"; add-on {add_on.chips:,} chips at the break after level "
                  f"{structure.add_on_level()}" if add_on else "; no add-on") + (
            f"; rebuys of {rebuy.chips:,} chips to level {structure.rebuy_until()}" if rebuy
            else "; no rebuy")
        return (f"{settings.name}: structure {structure.name!r} ({len(structure.levels)} "
                f"levels, late registration to level {structure.late_registration_ends}); "
                f"tables {tables}, breaking {', '.join(settings.order_of_breaking())}; start "
                f"stack {settings.start_stack():,} (tables of {settings.seats}); re-entry "
                f"{'yes' if structure.entry.reentry else 'no'}{bought}; balancing "
                f"{settings.balancing}; colour-ups by {settings.colour_up}; points "
                f"{settings.points}; a full room of {entries} entries pays {paid} "
                f"{structure.entry.currency}")


def load_tournament_config(path: str | Path) -> TournamentConfig:
    path = Path(path)
    config = read_toml_model(path, TournamentConfig, "a tournament configuration (TOML)")
    base = path.resolve().parent
    section = config.tournament
    section.structure = base / section.structure
    section.db = base / section.db
    section.export = base / section.export
    config.mqtt.credentials = base / config.mqtt.credentials
    config.mqtt.ca = base / config.mqtt.ca if config.mqtt.ca else None
    config._source = path
    return config


__all__ = ["TournamentConfig", "load_tournament_config"]
