"""Standings: every player's place with its prize and points, and where and when he went out
(pure; `export` writes them as CSV and JSON).

Places come from `places.placings`; prizes and points from `prizes`. Shared places split their
prizes and points evenly (PVB 64b(2)), each share rounded down to the structure's unit; what
the split leaves goes to first place, as the payout table's remainder does. Players still in
have no place until one is left: the winner is first.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from controller.room.tournament.places import Bust, GroupKey, group_words, placings
from controller.room.tournament.prizes import PointsProfile, shared_points, shared_prize
from controller.session.outputs import hand_id


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
    out_at: float | None = Field(default=None, description="When he went out (the table's "
                                 "time of the elimination)")
    out_table: str | None = Field(default=None, description="The table he went out at")
    out_hand: int | None = Field(default=None, description="The table's number of that hand")
    out_hand_id: str | None = Field(default=None, description="That hand's id "
                                    "(table:hand:start ms), as its record names it")
    out_stack: int | None = Field(default=None, description="His chips at the start of that "
                                  "hand (PVB 64b(1))")
    prize: int = 0
    points: float = 0.0


def standings(players_in: Sequence[str], busts: list[Bust], settled: set[GroupKey] | None,
              payout_table: list[int], points_profile: PointsProfile, players: int,
              clubs: dict[str, str | None] | None = None, in_time: bool = True,
              unit: int = 1, out_at: dict[str, float] | None = None) -> list[Standing]:
    """Everyone: the players still in (their stacks decide nothing here), then the places,
    best first. When one player is left he is first; his prize takes what shared places'
    splits left (each share in whole ``unit``s). ``out_at``: when each went out."""
    clubs, out_at = clubs or {}, out_at or {}
    bust_of = {b.player: b for b in busts}
    rows: list[Standing] = []
    extra = 0
    for p in placings(len(players_in), busts, settled):
        prize, left_over = (0, 0) if p.pending else shared_prize(payout_table, p.place, p.last,
                                                                  unit)
        if p.player == min((p.player, *p.shared_with)):
            extra += left_over  # once per group
        bust = bust_of[p.player]
        # (built without validation: the fields are ours; a thousand rows after each bust)
        rows.append(Standing.model_construct(
            player=p.player, club=clubs.get(p.player), place=p.place, last=p.last,
            shared_with=list(p.shared_with), pending=p.pending, out_in=group_words(p.group),
            out_at=out_at.get(p.player), out_table=bust.table, out_hand=bust.hand,
            out_hand_id=hand_id(bust.table, bust.hand, bust.started), out_stack=bust.stack,
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
                                      shared_with=[], pending=False, out_in=None, out_at=None,
                                      out_table=None, out_hand=None, out_hand_id=None,
                                      out_stack=None, prize=0, points=0.0)
             for name in sorted(players_in)]
    return still + sorted(rows, key=_best_first)


def _best_first(row: Standing) -> tuple[int, str]:
    return (row.place or 0, row.player)


__all__ = ["Standing", "standings"]
