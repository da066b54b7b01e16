"""The validated set-up of a hand (`HandSetup`, `PlayerSetup`): pydantic models, for the table
and the session, which build a hand from configuration and seat state. The vocabulary they use
(games, betting kinds, streets, stages, log entries) lives in `controller.engine.terms`, plain
Python (`controller.engine.hand` re-exports it where modules have always found it); the PHH
replay builds its hands from `terms.PlainSetup` and imports no pydantic (issue 37).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.engine.terms import Betting, Game, Street, Variant, betting_of, limit_bet

__all__ = ["HandSetup", "PlayerSetup"]


class PlayerSetup(BaseModel):
    """One player dealt into the hand, with the forced bets he owes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(description="How the dealer names him: 'seat 3', or 'p2' in a PHH file")
    stack: int = Field(gt=0, description="Chips before the forced bets")
    ante: int = Field(default=0, ge=0)
    blind: int = Field(default=0, ge=0, description="Small blind, big blind or straddle owed")


class HandSetup(BaseModel):
    """Everything a hand needs before the first card: players in action order and the stakes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Game = "NT"
    betting: Betting | None = Field(
        default=None,
        description="CG Limits: no-limit, pot-limit or split-limit; None: the game's own "
        "(NT no-limit, PO pot-limit)",
    )
    players: list[PlayerSetup] = Field(min_length=2, max_length=10)
    min_bet: int = Field(gt=0, description="The big blind: the smallest bet (PVB 42(2)); in "
                         "split limit the small bet, preflop and on the flop (APSA 5.2)")
    big_bet: int | None = Field(
        default=None, gt=0,
        description="Split limit only: the bet on the turn and river; twice min_bet when "
        "unset (APSA 5.2)",
    )
    big_blind: int | None = Field(
        default=None, ge=0,
        description="The bet everyone must match preflop even when the big blind is short "
        "(RULES R4); defaults to the largest blind owed",
    )
    dead_antes: bool = Field(
        default=True,
        description="Antes are dead money in the main pot (big-blind ante). If false, each ante "
        "counts as that player's contribution, so a player all-in on his ante only wins his "
        "share (S1). A lone ante is always dead money.",
    )
    odd_chip_unit: int = Field(default=1, gt=0, description="Smallest chip in play (PVB 62)")
    showdown_fallback: Literal["left-of-button", "last-aggressor"] = "left-of-button"
    variant: Variant | None = Field(
        default=None,
        description="CG Spielvarianten: bomb-pot (the flop comes without preflop betting) or "
        "flip (the whole board without betting); each player's agreed amount is his ante, "
        "his own contribution (dead_antes false)",
    )
    boards: int = Field(default=1, ge=1, le=2, description="CG Spielvarianten: 2 for a double "
                        "board, each pot shared equally between the boards")
    run_twice_min_pot: int | None = Field(
        default=None, ge=0,
        description="CG Run It Twice c: the smallest pot that may be run twice; None: the "
        "table does not run it twice",
    )
    posted: tuple[int, ...] = Field(
        default=(),
        description="CG Blinds: the players (indices) whose blind is a big blind posted out "
        "of position (a seat change two or more seats away from the button): live, he may "
        "check if no one raises, but the action starts where it would without it",
    )

    @model_validator(mode="after")
    def _consistent(self) -> HandSetup:
        labels = [p.label for p in self.players]
        if len(set(labels)) != len(labels):
            raise ValueError("player labels must be unique")
        if self.big_bet is not None and self.kind != "split-limit":
            raise ValueError("big_bet is for split limit only (CG Limits)")
        if self.variant is not None and (any(p.blind for p in self.players)
                                         or self.dead_antes):
            raise ValueError("a bomb pot or a flip has no blinds: every player's agreed amount "
                             "is his own ante (CG Spielvarianten)")
        if any(not 0 <= i < len(self.players) or not self.players[i].blind
               for i in self.posted):
            raise ValueError("a blind posted out of position is a player's blind (CG Blinds)")
        return self

    @property
    def kind(self) -> Betting:
        """The betting kind this hand is dealt with (CG Limits)."""
        return betting_of(self.game, self.betting)

    def limit_bet(self, street: Street) -> int:
        """Split limit: the one size of a bet or raise on ``street`` (CG Limits, APSA 5.2)."""
        return limit_bet(self.min_bet, self.big_bet, street)
