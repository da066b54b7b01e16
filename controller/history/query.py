"""Which hands: the one filter every source of hand records answers (the recorder's store, a
table's records.jsonl or journal, replay-events output), so `pokertable hands` and the floor's
hands page find the same hands wherever they are kept."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.records import HandRecord

Game = Literal["cash", "tournament"]
GAMES: tuple[Game, ...] = ("cash", "tournament")
# How a cash hand's stored JSON says it (`HandRecord.cash`, written only when true): inside a
# JSON string a quote is always escaped, so the text occurs nowhere but as the record's key.
CASH_JSON = '"cash":true'


class HandQuery(BaseModel):
    """Every field that is set must match; none set: every hand. Times are the shuffle press's
    (`HandRecord.started`), in seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str | None = None
    player: str | None = Field(default=None, description="A player's name as the records have it")
    hand: int | None = Field(default=None, ge=1, description="The hand's number at its table")
    since: float | None = None
    until: float | None = None
    limit: int | None = Field(default=None, ge=1)
    game: Game | None = Field(
        default=None, description="A cash game's hands (`HandRecord.cash`, CG) or a "
        "tournament's: a room deals both, and they are kept apart")

    def matches(self, record: HandRecord) -> bool:
        if self.table is not None and record.table != self.table:
            return False
        if self.player is not None and self.player not in record.players.values():
            return False
        if self.hand is not None and record.hand != self.hand:
            return False
        if self.game is not None and record.cash != (self.game == "cash"):
            return False
        started = record.started
        if self.since is not None and (started is None or started < self.since):
            return False
        return not (self.until is not None and (started is None or started >= self.until))


__all__ = ["CASH_JSON", "GAMES", "Game", "HandQuery"]
