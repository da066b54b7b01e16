"""Standings: every player's place with its prize and points, and the final standings as CSV
and JSON (pure: the text; the service or the command line writes the files).

Places come from `places.placings`; prizes and points from `prizes`. Shared places split their
prizes and points evenly (PVB 64b(2)); the units an even split cannot give go to first place,
as the payout table's remainder does. Players still in have no place until one is left: the
winner is first.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from controller.room.tournament.places import Bust, GroupKey, group_words, placings
from controller.room.tournament.prizes import PointsProfile, shared_points, shared_prize


class Standing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    club: str | None = None
    place: int | None = Field(default=None, description="The best of the places shared; None "
                              "while the player is in")
    last: int | None = Field(default=None, description="The worst of the places shared")
    shared_with: list[str] = Field(default_factory=list)
    pending: bool = Field(default=False, description="Out in a hand-for-hand round that has not "
                          "ended at every table (PVB 64b(3)): the places are known as a range")
    out_in: str | None = Field(default=None, description="The hand (or round) the player went "
                               "out in")
    prize: int = 0
    points: float = 0.0


def standings(players_in: Sequence[str], busts: list[Bust], settled: set[GroupKey] | None,
              payout_table: list[int], points_profile: PointsProfile, players: int,
              clubs: dict[str, str | None] | None = None, in_time: bool = True
              ) -> list[Standing]:
    """Everyone: the players still in (their stacks decide nothing here), then the places,
    best first. When one player is left he is first; his prize takes what even splits left."""
    clubs = clubs or {}
    rows: list[Standing] = []
    extra = 0
    for p in placings(len(players_in), busts, settled):
        prize, left_over = (0, 0) if p.pending else shared_prize(payout_table, p.place, p.last)
        if p.player == min((p.player, *p.shared_with)):
            extra += left_over  # once per group
        # (built without validation: the fields are ours; a thousand rows after each bust)
        rows.append(Standing.model_construct(
            player=p.player, club=clubs.get(p.player), place=p.place, last=p.last,
            shared_with=list(p.shared_with), pending=p.pending, out_in=group_words(p.group),
            prize=prize, points=0.0 if p.pending else round(shared_points(
                points_profile, players, p.place, p.last, in_time), 2)))
    if len(players_in) == 1:
        (winner,) = players_in
        first = payout_table[0] if payout_table else 0
        top = Standing(player=winner, club=clubs.get(winner), place=1, last=1,
                       prize=first + extra,
                       points=round(shared_points(points_profile, players, 1, 1, in_time), 2))
        return [top, *sorted(rows, key=_best_first)]
    still = [Standing.model_construct(player=name, club=clubs.get(name), place=None, last=None,
                                      shared_with=[], pending=False, out_in=None, prize=0,
                                      points=0.0) for name in sorted(players_in)]
    return still + sorted(rows, key=_best_first)


def _best_first(row: Standing) -> tuple[int, str]:
    return (row.place or 0, row.player)


CSV_COLUMNS = ["place", "last", "player", "club", "shared_with", "prize", "currency", "points"]


def standings_csv(rows: Sequence[Standing], currency: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([row.place or "", row.last or "", row.player, row.club or "",
                         "; ".join(row.shared_with), row.prize, currency, f"{row.points:.2f}"])
    return out.getvalue()


def standings_json(rows: Sequence[Standing], *, name: str, entries: int, players: int,
                   prize_pool: int, currency: str) -> str:
    document = {"tournament": name, "entries": entries, "players": players,
                "prize_pool": prize_pool, "currency": currency,
                "standings": [r.model_dump() for r in rows]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


__all__ = ["CSV_COLUMNS", "Standing", "standings", "standings_csv", "standings_json"]
