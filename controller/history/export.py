"""Hands leaving the room: records in, a document players' tools read out. The one code path of
`pokertable hands` and of the floor's downloads.

Which hole cards a hand shows is decided first (`view`): the public view by default (none but
those tabled, PVB 56), a player's own (``hero``: only hands he played, his own cards and those
tabled), or the full record (``full``: every card, for the room's own archive). Then the format:
``json`` (one record per line, what `replay-events` prints), ``phh`` (one PHH hand per file, or a
``.phhs`` document of numbered hands, as PokerKit reads them) or ``stars`` (PokerStars-style
tracker text). A void hand or a misdeal has no result to replay or import: PHH and tracker text
leave them out and count them (``Export.left_out``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, TextIO

import rtoml

from controller.engine.records import HandRecord
from controller.history.phh_export import PhhExportError, phh_document, record_phh
from controller.history.replay_events import record_json
from controller.history.stars import StarsExportError, stars_hand, tournament_number
from controller.history.views import hero_view

Format = Literal["json", "phh", "stars"]
FORMATS: tuple[Format, ...] = ("json", "phh", "stars")
FORFEIT = "forfeited short call"


@dataclass
class Export:
    """What an export wrote: hands, and those it left out by status (void, misdeal)."""

    hands: int = 0
    left_out: Counter[str] = field(default_factory=Counter)

    def left_out_text(self) -> str | None:
        """"3 hands that have no result to import (2 misdeals, 1 void)", or None."""
        said = []
        statuses = {k: n for k, n in self.left_out.items() if k != FORFEIT}
        total = sum(statuses.values())
        if total:
            parts = ", ".join(f"{n} {status}{'s' if n > 1 else ''}"
                              for status, n in sorted(statuses.items()))
            said.append(f"{total} hand{'s' if total > 1 else ''} that "
                        f"ha{'ve' if total > 1 else 's'} no result to import ({parts})")
        if self.left_out[FORFEIT]:
            n = self.left_out[FORFEIT]
            said.append(f"{n} hand{'s' if n > 1 else ''} with a fold that left a short call's "
                        "chips in the pot (R8), which no PHH action says")
        return "; ".join(said) or None


def view(records: Iterable[HandRecord], *, full: bool = False,
         hero: str | None = None) -> Iterator[HandRecord]:
    """The records as they may leave: public, a player's own (his hands only) or full."""
    for record in records:
        if hero is not None:
            seen = hero_view(record, hero)
            if seen is not None:
                yield seen
        elif full:
            yield record
        else:
            yield record.public()


def one_hand(record: HandRecord, fmt: Literal["phh", "stars"]) -> str:
    """One hand, already the view to hand out, as a file's text: a ``.phh`` file or tracker
    text (the floor's downloads). An `ExportError` for a hand without a result."""
    if fmt == "phh":
        return record_phh(record)
    if record.status != "complete":
        raise StarsExportError(f"hand {record.hand} is a {record.status}: it has no result to "
                               "import")
    return stars_hand(record, tournament_number(record.started))


def write_export(records: Iterable[HandRecord], out: TextIO, fmt: Format, *,
                 hero: str | None = None, tournament: int | None = None) -> Export:
    """Write ``records``, already the view to export (`view`), in ``fmt`` to ``out``, streaming
    (one hand in memory at a time). ``hero``: whose cards tracker text deals ("Dealt to")."""
    done = Export()
    for record in records:
        if fmt == "json":
            out.write(record_json(record) + "\n")
            done.hands += 1
            continue
        if record.status != "complete":
            done.left_out[record.status] += 1
            continue
        done.hands += 1
        if fmt == "phh":
            try:
                document = phh_document(record)
            except PhhExportError:
                done.hands -= 1
                done.left_out[FORFEIT] += 1
                continue
            # A .phhs document: numbered tables of PHH fields (PokerKit's loads_all).
            out.write(f"{'' if done.hands == 1 else chr(10)}[{done.hands}]\n")
            out.write(rtoml.dumps(document))
        else:
            if tournament is None:
                tournament = tournament_number(record.started)
            out.write(("" if done.hands == 1 else "\n\n") +
                      stars_hand(record, tournament, hero))
    return done


__all__ = ["FORMATS", "Export", "Format", "one_hand", "view", "write_export"]
