"""Hands leaving the room: records in, a document players' tools read out. The one code path of
`pokertable hands` and of the floor's downloads.

Which hole cards a hand shows is decided first (`view`): the public view by default (none but
those tabled, PVB 56), a player's own (``hero``: only hands he played, his own cards and those
tabled), or the full record (``full``: every card, for the room's own archive). Then the format:
``json`` (one record per line, what `replay-events` prints), ``phh`` (one PHH hand per file, or a
``.phhs`` document of numbered hands, as PokerKit reads them), ``stars`` (PokerStars-style
tracker text) or ``ohh`` (Open Hand History JSON, a hand an object, hands a blank line apart).
A void hand or a misdeal has no result to replay or import: PHH, tracker text and OHH leave
them out and count them (``Export.left_out``).

A hand comes with its venue when the source knows it and it matters (`Placed`: a league's store
of several venues, where two venues' table 1 are two tables). Each format says it its own way:
tracker text and OHH in the table's name (OHH in its game number too), PHH in phh-std's
``venue`` field, a JSON line in a ``venue`` field before the record's own (a reader of records
ignores it; `pokertable hands` reads it back). A hand of a room's own has none, and the output
is as it always was.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TextIO

import rtoml

from controller.engine.records import HandRecord
from controller.history.formats import FORMATS, Format
from controller.history.ohh import TournamentInfo, ohh_hand
from controller.history.phh_export import (
    BOARDS,
    FORFEIT,
    NO_CODE,
    PhhExportError,
    phh_document,
    record_phh,
)
from controller.history.replay_events import record_json
from controller.history.stars import (
    DOUBLE_BOARD,
    StarsExportError,
    stars_hand,
    tournament_number,
)
from controller.history.views import hero_view

# What a format cannot say (a hand left out for it, counted by reason): "N hand(s) ..."
REFUSED = {
    FORFEIT: "with a fold that left a short call's chips in the pot (R8), which no PHH "
             "action says",
    BOARDS: "on two boards (a double board or run twice), which PHH cannot say",
    NO_CODE: "of a game PHH has no variant code for (fixed-limit Omaha high, pot-limit "
             "hold'em, no-limit Omaha)",
    DOUBLE_BOARD: "on a double board, which tracker text cannot say (its two boards are a run "
                  "twice's)",
}


class Placed(NamedTuple):
    """A hand and its venue, where the source knows it and it matters (else None)."""

    record: HandRecord
    venue: str | None = None


@dataclass
class Export:
    """What an export wrote: hands, and those it left out by status (void, misdeal)."""

    hands: int = 0
    left_out: Counter[str] = field(default_factory=Counter)

    def left_out_text(self) -> str | None:
        """"3 hands that have no result to import (2 misdeals, 1 void)", or None."""
        said = []
        statuses = {k: n for k, n in self.left_out.items() if k not in REFUSED}
        total = sum(statuses.values())
        if total:
            parts = ", ".join(f"{n} {status}{'s' if n > 1 else ''}"
                              for status, n in sorted(statuses.items()))
            said.append(f"{total} hand{'s' if total > 1 else ''} that "
                        f"ha{'ve' if total > 1 else 's'} no result to import ({parts})")
        for reason, words in REFUSED.items():
            n = self.left_out[reason]
            if n:
                said.append(f"{n} hand{'s' if n > 1 else ''} {words}")
        return "; ".join(said) or None


def view(hands: Iterable[Placed], *, full: bool = False,
         hero: str | None = None) -> Iterator[Placed]:
    """The hands as they may leave: public, a player's own (his hands only) or full."""
    for record, venue in hands:
        if hero is not None:
            seen = hero_view(record, hero)
            if seen is not None:
                yield Placed(seen, venue)
        elif full:
            yield Placed(record, venue)
        else:
            yield Placed(record.public(), venue)


def one_hand(record: HandRecord, fmt: Literal["phh", "stars"], venue: str | None = None) -> str:
    """One hand, already the view to hand out, as a file's text: a ``.phh`` file or tracker
    text (the floor's downloads). An `ExportError` for a hand without a result."""
    if fmt == "phh":
        return record_phh(record, venue)
    if record.status != "complete":
        raise StarsExportError(f"hand {record.hand} is a {record.status}: it has no result to "
                               "import")
    return stars_hand(record, tournament_number(record.started), venue=venue)


def placed_json(record: HandRecord, venue: str | None) -> str:
    """One record as a JSON line; with its venue, in a ``venue`` field first."""
    line = record_json(record)
    if venue is None:
        return line
    return f'{{"venue":{json.dumps(venue, ensure_ascii=False)},{line[1:]}'


def write_export(hands: Iterable[Placed | HandRecord], out: TextIO, fmt: Format, *,
                 hero: str | None = None, tournament: int | None = None,
                 info: TournamentInfo | None = None) -> Export:
    """Write ``hands``, already the view to export (`view`), in ``fmt`` to ``out``, streaming
    (one hand in memory at a time); a bare record is a hand without a venue. ``hero``: whose
    cards tracker text deals ("Dealt to"), whose history OHH is. ``info``: OHH's tournament
    (by default what the records know; ``tournament`` its number)."""
    done = Export()
    for hand in hands:
        record, venue = (hand, None) if isinstance(hand, HandRecord) else hand
        if fmt == "json":
            out.write(placed_json(record, venue) + "\n")
            done.hands += 1
            continue
        if record.status != "complete":
            done.left_out[record.status] += 1
            continue
        done.hands += 1
        if fmt == "phh":
            try:
                document = phh_document(record, venue)
            except PhhExportError as exc:
                done.hands -= 1
                done.left_out[exc.reason] += 1
                continue
            # A .phhs document: numbered tables of PHH fields (PokerKit's loads_all).
            out.write(f"{'' if done.hands == 1 else chr(10)}[{done.hands}]\n")
            out.write(rtoml.dumps(document))
        elif fmt == "ohh":
            if done.hands == 1:  # the number and start nobody gave: the first hand's
                given = info or TournamentInfo(
                    number=None if tournament is None else str(tournament))
                info = given.settled(record)
            assert info is not None
            # The spec's storage: one object a hand, hands one blank line apart.
            out.write(("" if done.hands == 1 else "\n") +
                      json.dumps(ohh_hand(record, info, hero, venue), ensure_ascii=False) + "\n")
        else:
            if tournament is None:
                tournament = tournament_number(record.started)
            try:
                text = stars_hand(record, tournament, hero, venue)
            except StarsExportError as exc:
                done.hands -= 1
                done.left_out[exc.reason] += 1
                continue
            out.write(("" if done.hands == 1 else "\n\n") + text)
    return done


__all__ = ["FORMATS", "Export", "Format", "Placed", "TournamentInfo", "one_hand", "placed_json",
           "view", "write_export"]
