"""The shot clock's settings and what it keeps (docs/shot-clock.md): the table's own clock on
the player to act, with time extensions per level. Data only, so the session's model can hold
it; the clock itself is `shot_clock`.

The clock never decides anything: when a player's time and extensions are gone the dealer and
the floor are told, and calling time stays the floor's decision (RULES C1, PVB 21).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PerLevel = Literal["keep", "refill", "add"]


class ShotClockConfig(BaseModel):
    """A table's shot clock (``[table.shot_clock]`` in table.toml); absent: no shot clock."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds: int = Field(default=30, ge=5, le=600, description="Seconds a player has for each "
                         "action, from when the action reaches him")
    extensions: int = Field(default=2, ge=0, le=20, description="Time extensions (extension "
                            "chips) a player has when he first plays at this table")
    extension_seconds: int = Field(default=30, ge=5, le=600, description="Seconds one "
                                   "extension adds")
    per_level: PerLevel = Field(default="refill", description="At each new level: 'refill' "
                                "every player back to `extensions`, 'add' `level_extensions` "
                                "more (up to `max_extensions`), 'keep' nothing")
    level_extensions: int = Field(default=1, ge=0, le=20, description="'add': extensions "
                                  "added at each new level")
    max_extensions: int | None = Field(default=None, ge=0, le=50, description="'add': the "
                                       "most a player can hold; none: no limit")

    @model_validator(mode="after")
    def _cap_holds_the_start(self) -> ShotClockConfig:
        if self.max_extensions is not None and self.max_extensions < self.extensions:
            raise ValueError(f"max_extensions ({self.max_extensions}) is below the extensions "
                             f"a player starts with ({self.extensions})")
        return self


class ShotBank(BaseModel):
    """A player's time extensions left, and the level they were last topped up at."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extensions: int = Field(ge=0)
    level: int = Field(ge=1)


@dataclass
class ShotTurn:
    """The clock on one player's turn. ``left`` seconds were left at ``since`` (the start, the
    end of the base time or of an extension, a resume); ``used`` seconds were counted before
    ``since``. ``since`` None: no time known yet (the next event with a time starts it)."""

    seat: int
    player: str
    log_at: int  # the hand's log length when his turn began: his action is logged after it
    started: float | None
    since: float | None
    left: float
    used: float = 0.0
    extensions: int = 0  # used in this turn
    paused: bool = False  # his chips or words show the action; the dealer still confirms it
    out: bool = False  # base time and extensions gone: the dealer and the floor were told


@dataclass
class ShotHand:
    """The shot clock in one hand: the turn running and the time each action took."""

    turn: ShotTurn | None = None
    times: dict[int, tuple[float, int]] = field(default_factory=dict)  # log index -> s, ext.
    now: float | None = None  # the latest time an event that changed the hand carried
    banked: bool = False  # the dealt players' extensions were topped up for the hand's level
