"""The tournament behind `hands export --format ohh`: what OHH's ``tournament_info`` says of it
and the players' summaries (OTS), from ``--tournament-config tournament.toml``, the tournament
service's own configuration (its name, its structure's buy-in, currency, start stack and level
time, its tables) and the standings the service exports (``standings.json`` in its export
directory: places and prizes as the tournament decided them, which the hands alone cannot
give: a bust the floor took back, shared places, hand-for-hand).

Here, not in controller/history/, because the tournament is the room's: the history package
writes OHH and OTS from plain values and imports nothing of the room."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, ValidationError

from controller.errors import ConfigError, first_error

if TYPE_CHECKING:
    from controller.history.ohh import TournamentInfo
    from controller.history.ots import Results

STANDINGS = "standings.json"


def tournament_info(config: str | None, number: int | None,
                    start: float | None) -> tuple[TournamentInfo, Path | None]:
    """The tournament as OHH names it, and where its standings are (None without a
    configuration). ``number``: ``--tournament`` (default: the first hand's UTC date, as
    tracker text's); ``start``: the first hand's start (None: the first hand exported)."""
    from controller.history.ohh import NO_CURRENCY, TournamentInfo
    from controller.history.stars import tournament_number

    if number is None and start is not None:
        number = tournament_number(start)
    given = None if number is None else str(number)
    if config is None:
        return TournamentInfo(number=given, start=start), None
    from controller.room.tournament.config import load_tournament_config

    loaded = load_tournament_config(config)
    settings = loaded.settings()
    entry = settings.structure.entry
    flags = ("Re-Entry",) if entry.reentry else ("Rebuy",) if entry.rebuy else ()
    info = TournamentInfo(
        number=given, name=settings.name, start=start,
        # OHH's currencies are ISO 4217 codes; a structure's own word for it ("chips") is none.
        currency=entry.currency if re.fullmatch(r"[A-Z]{3}", entry.currency) else NO_CURRENCY,
        buy_in=entry.buy_in, fee=0, initial_stack=settings.start_stack(),
        kind="STT" if len(settings.tables) == 1 else "MTT",
        round_seconds=round(settings.structure.levels[0].minutes * 60), flags=flags)
    return info, loaded.tournament.export / STANDINGS


class _Row(BaseModel):
    model_config = ConfigDict(extra="ignore")

    player: str
    place: int | None = None
    prize: int = 0
    out_at: str | None = None


class _Standings(BaseModel):
    """What `standings_json` (controller/room/tournament/export.py) writes, as far as the
    summary needs it."""

    model_config = ConfigDict(extra="ignore")

    exported_at: str
    prize_pool: int
    standings: list[_Row]


def _seconds(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def read_results(path: Path) -> Results | None:
    """The standings the tournament exported, or None when it has exported none yet (it
    writes them at its end and on the floor's ``export``). Ended: the last player out's time,
    once one player is left; else the time of the export."""
    from controller.history.ots import Finish, Results

    if not path.exists():
        return None
    try:
        standings = _Standings.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        detail = first_error(exc, "the file") if isinstance(exc, ValidationError) else exc
        raise ConfigError(f"{path}: not the tournament's standings ({detail})") from None
    rows = standings.standings
    finishes = tuple(Finish(player=r.player, place=r.place, prize=r.prize) for r in rows)
    outs = [_seconds(r.out_at) for r in rows if r.out_at]
    over = sum(r.place is None for r in rows) == 0 and outs
    end = max(outs) if over else _seconds(standings.exported_at)
    return Results(finishes=finishes, prize_pool=standings.prize_pool, end=end)


def summary_text(info: TournamentInfo, results: Results, hero: str) -> str:
    """A player's ``.ots`` file."""
    from controller.history.ots import ots_document

    return json.dumps(ots_document(info, results, hero), ensure_ascii=False, indent=2) + "\n"


__all__ = ["STANDINGS", "read_results", "summary_text", "tournament_info"]
