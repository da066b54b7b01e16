"""The final standings as a director exports them: CSV and JSON text (the service writes the
files at the end and on ``export``; the floor's pages offer them for download).

Each place with its prize and points, and for every player out the time he went out, the table
and the hand (its number and its id, as the hand's record names it) and his chips at the start
of that hand (PVB 64b(1): what placed him); the export's own time on every CSV row and in the
JSON document. Times are ISO 8601 in UTC (``2025-03-01T19:04:05Z``): the same in every room and
every spreadsheet. No clock is read here: the time of the export comes in.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from controller.room.tournament.standings import Standing

CSV_COLUMNS = ["place", "last", "player", "club", "shared_with", "prize", "currency", "points",
               "out_at", "out_table", "out_hand", "out_hand_id", "out_stack", "exported_at"]


def iso_time(ts: float | None) -> str:
    """``ts`` (seconds since the epoch) as ISO 8601 in UTC, to the second; "" for none."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def standings_csv(rows: Sequence[Standing], currency: str, exported: float) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    when = iso_time(exported)
    for row in rows:
        writer.writerow([row.place or "", row.last or "", row.player, row.club or "",
                         "; ".join(row.shared_with), row.prize, currency, f"{row.points:.2f}",
                         iso_time(row.out_at), row.out_table or "",
                         "" if row.out_hand is None else row.out_hand, row.out_hand_id or "",
                         "" if row.out_stack is None else row.out_stack, when])
    return out.getvalue()


def standings_json(rows: Sequence[Standing], *, name: str, entries: int, players: int,
                   prize_pool: int, currency: str, exported: float) -> str:
    def line(row: Standing) -> dict[str, Any]:
        data = row.model_dump()
        data["out_at"] = iso_time(row.out_at) or None
        return data

    document = {"tournament": name, "exported_at": iso_time(exported), "entries": entries,
                "players": players, "prize_pool": prize_pool, "currency": currency,
                "standings": [line(r) for r in rows]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


__all__ = ["CSV_COLUMNS", "iso_time", "standings_csv", "standings_json"]
