"""Rule profiles: one per rulebook, holding the settings where the books disagree.

docs/rules.md marks each disagreement **[profile]**. A profile is a TOML file validated by
`RuleProfile`; unknown keys are an error, so a typo never silently falls back to a default.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

import rtoml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.engine.straddles import StraddleKind
from controller.engine.terms import Betting
from controller.errors import ConfigError

BUILTIN_PROFILES = ("pvb-2020", "cg-cash")
DEFAULT_PROFILE = "pvb-2020"


class RuleProfile(BaseModel):
    """Settings where the rulebooks differ; every field names the rules it decides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Short name, e.g. pvb-2020")
    description: str = Field(default="", description="Which book and edition this follows")
    game: Literal["NT", "PO"] = Field(
        default="NT", description="NT no-limit hold'em, PO pot-limit Omaha (RULES R1, S6)"
    )
    betting: Betting | None = Field(
        default=None,
        description="R1, CG Limits: the kind of limit (Split Limit / Pot Limit / No Limit) set "
        "before play; unset, the game's own (NT no-limit, PO pot-limit). Split limit: the big "
        "blind is the small bet, twice it the big bet on turn and river (APSA 5.2), a bet and "
        "three raises a round, no cap heads-up (CG Raise)",
    )
    button_start: Literal["seat-1", "high-card"] = Field(
        default="seat-1",
        description="B1: the first button on seat 1 (PVB 26a) or by high-card draw (PVB 26b)",
    )
    odd_chip_unit: Literal["smallest-chip", "small-blind"] = Field(
        default="smallest-chip",
        description="S2: split pots down to the smallest chip in play (PVB 62) "
        "or only down to the small blind (CG)",
    )
    showdown_fallback: Literal["left-of-button", "last-aggressor"] = Field(
        default="last-aggressor",
        description="S3: without a bet on the last round, the first to show is the last to bet "
        "or raise on the flop or turn (PVB 55, APSA 5.3, BPS 37), or the first player left of "
        "the button (TDA); with no bet after the flop at all, left of the button either way",
    )
    same_colour_chips_full_raise: bool = Field(
        default=True,
        description="R6: unannounced same-colour chips that reach a full minimum raise are a raise "
        "(PVB 45); otherwise they are a call when one chip less would not cover the call (CG)",
    )
    dead_button: Literal["stays", "empty-seat"] = Field(
        default="stays",
        description="B2: after a small blind busts, and in the hand after a dead small blind, "
        "the button stays where it was (PVB 27(1), APSA 5.3, BPS 6) or moves onto the empty "
        "seat (common TDA practice)",
    )
    straddles: list[StraddleKind] = Field(
        default_factory=list,
        description="CG Straddle: the straddles the book knows (live, button, mississippi); a "
        "table plays those it opened with (the session's `straddles`), none here: none at all",
    )
    cash: bool = Field(
        default=False,
        description="CG: the book is a cash game's (fixed blinds, no tournament): its hands are "
        "recorded as cash hands (`HandRecord.cash`), kept apart from tournaments' and exported "
        "in the formats' cash-game form",
    )
    run_it_twice_min_pot: int | None = Field(
        default=None, ge=0,
        description="CG Run It Twice c: the smallest pot (in chips) that may be run twice "
        "(the CG's EUR 500); unset: the book has no run it twice",
    )
    at_seat: Literal["first-card", "all-cards"] = Field(
        default="first-card",
        description="H5: a player must be at the seat when the first card is dealt (PVB 23(1)) "
        "or when all cards are dealt (BPS 8, APSA 5.4.2)",
    )


def load_profile(name_or_path: str | Path = DEFAULT_PROFILE) -> RuleProfile:
    """A built-in profile by name (``pvb-2020``, ``cg-cash``) or a profile TOML file by path."""
    text: str
    source = str(name_or_path)
    if source in BUILTIN_PROFILES:
        text = resources.files("controller.engine").joinpath(f"profiles/{source}.toml").read_text(
            encoding="utf-8"
        )
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            known = ", ".join(BUILTIN_PROFILES)
            raise ConfigError(f"no rule profile {source!r} (built in: {known}): {exc}") from exc
    try:
        return RuleProfile.model_validate(rtoml.loads(text))
    except (ValidationError, rtoml.TomlParsingError) as exc:
        raise ConfigError(f"rule profile {source!r} is invalid: {exc}") from exc
