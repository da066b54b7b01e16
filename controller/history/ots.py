"""A tournament's places and prizes as an Open Tournament Summary (OTS, spec 1.1.5:
ts-specs.handhistory.org), the companion of the hands' OHH: tracking software reads a
player's finish and winnings from it, which no hand history holds.

A summary is a player's document (the spec writes it to his computer when he goes out), so it
names its hero (``hero_player_name``) and lists every player who took part: each one out with
his place and prize, each one still in as ``still_playing``. The places and prizes are the
tournament's own (its standings: shared places, busts the floor took back, hand-for-hand), not
worked out again from the hands; this module only writes them, so that the history package
needs nothing of the room (`controller/cli/ohh_tournament.py` reads the standings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.history.ohh import SITE, TournamentInfo, utc_text

SPEC_VERSION = "1.1.5"
INTERNAL_VERSION = "1.1.0"  # ours: the spec's major and minor, our fixes in the patch


@dataclass(frozen=True)
class Finish:
    """A player's result: ``place`` None while he is in (or his place is not settled yet,
    hand-for-hand); a shared place is its best, the prize his share."""

    player: str
    place: int | None
    prize: int = 0


@dataclass(frozen=True)
class Results:
    """The standings as the tournament exported them: ``end``, when they were taken (the
    tournament's end once it has its winner)."""

    finishes: tuple[Finish, ...]
    prize_pool: int
    end: float | None


def ots_document(tournament: TournamentInfo, results: Results, hero: str) -> dict[str, Any]:
    """``{"ots": {...}}`` for ``hero``'s tournament. ``tournament`` is settled (its number
    and start known): the hands' OHH carries the same, so a tracker links the two."""
    finishes = []
    for f in results.finishes:
        if f.place is None:
            finishes.append({"player_name": f.player, "still_playing": True})
        else:
            finishes.append({"player_name": f.player, "finish_position": f.place,
                             "still_playing": False, "prize": f.prize, "ticket_value": 0})
    summary = {
        "spec_version": SPEC_VERSION,
        "site_name": SITE,
        "network_name": SITE,
        "internal_version": INTERNAL_VERSION,
        "tournament_number": tournament.number or "",
        "tournament_name": tournament.name or f"Tournament {tournament.number or ''}".strip(),
        "start_date_utc": utc_text(tournament.start),
        "end_date_utc": utc_text(results.end),
        "currency": tournament.currency,
        # The spec has no "unknown" for these: without the tournament's configuration the
        # buy-in is the one a freeroll has.
        "buyin_amount": tournament.buy_in or 0,
        "fee_amount": tournament.fee or 0,
        "initial_stack": tournament.initial_stack,
        "type": tournament.kind,
        "flags": list(tournament.flags),
        "speed": {"type": "Normal", "round_time": tournament.round_seconds},
        "prize_pool": results.prize_pool,
        "hero_player_name": hero,
        "player_count": len(results.finishes),
        "tournament_finishes_and_winnings": finishes,
    }
    return {"ots": summary}


__all__ = ["INTERNAL_VERSION", "SPEC_VERSION", "Finish", "Results", "ots_document"]
