"""The tournament's rules as commands that read files and print JSON lines, for the director's
audit and for anyone checking us (`pokertable tournament balance | standings | payouts`). A file
that cannot be read is one line naming it and what is wrong (`ConfigError`).

- ``balance --seating FILE``: the tables as they sit after a hand (`balance_input`); prints
  the breaks, the moves and the holds, in that order (`balance.plan`, as the service).
- ``standings --entries N RECORDS...``: hand records as the tables (``records.jsonl``) and the
  recorder write them, one JSON object a line, of several tables at once; the players out in
  each hand place by their stacks at its start, hands in the order of their ``started``, a
  hand-for-hand round as one hand (`places.placings`). Prints each place from the last given
  upward. N is every player who took part: refused when the records show more players than N,
  or eliminate N or more (someone is left with every chip). A player dealt into a later hand
  is not out (a re-entry, or a bust the floor took back: the records do not say which).
- ``payouts --structure FILE --entries N``: the structure's payout table for N entries.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from controller.engine.records import HandRecord
from controller.errors import ConfigError, first_error
from controller.inputs.json_input import BadJson, loads_bounded
from controller.inputs.text_files import read_text_file
from controller.room.clock.structure import Structure
from controller.room.tournament.balance import BalanceProfile, plan
from controller.room.tournament.balance_input import SeatingFile, read_seating
from controller.room.tournament.places import Bust, placings
from controller.room.tournament.prizes import payouts, prize_pool


def balance_lines(path: Path, profile: BalanceProfile, seed: int = 0) -> list[dict[str, Any]]:
    tables, break_order = read_seating(path)
    return plan(tables, break_order, profile, random.Random(seed)).lines()


def read_records(paths: list[Path]) -> list[HandRecord]:
    """Every hand record in the files: a `HandRecord` a line, or a message carrying one under
    ``record`` (the MQTT payloads)."""
    out: list[HandRecord] = []
    for path in paths:
        text = read_text_file(path, "hand records (JSON lines)")
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = loads_bounded(line)
                if isinstance(raw, dict) and isinstance(raw.get("record"), dict):
                    raw = raw["record"]
                out.append(HandRecord.model_validate(raw))
            except BadJson as exc:
                raise ConfigError(f"{path}, line {number}: not JSON: {exc}") from None
            except ValidationError as exc:
                raise ConfigError(f"{path}, line {number}: not a hand record: "
                                  f"{first_error(exc, 'the line')}") from None
    return out


def busts_from_records(records: list[HandRecord]) -> list[Bust]:
    """The players each complete hand eliminated (their stack went to nothing), in the order of
    the hands' starts; a record seen twice counts once; a player out twice (a re-entry) counts
    by the last. A player dealt into a later hand with chips is not out: he entered again, or
    the floor took the bust back (that decision is in the tournament's journal, not in the
    hands: the records show only that he played on)."""
    seen: dict[tuple[str, int, float | None], HandRecord] = {}
    for record in records:
        seen.setdefault((record.table, record.hand, record.started), record)
    ordered = sorted(seen.values(), key=lambda r: (r.started if r.started is not None else 0.0,
                                                  r.table, r.hand))
    last: dict[str, Bust] = {}
    played: dict[str, int] = {}  # the last hand each player began with chips
    for seq, record in enumerate(ordered):
        if record.status != "complete":
            continue
        for seat, player in record.players.items():
            began = record.starting_stacks.get(seat, 0)
            if began > 0:
                played[player] = seq
            if began > 0 and record.finishing_stacks.get(seat, began) == 0:
                last[player] = Bust(player=player, table=record.table, hand=record.hand,
                                    started=record.started, round=record.hand_for_hand_round,
                                    stack=began, seq=seq)
    return sorted((b for b in last.values() if played[b.player] == b.seq),
                  key=lambda b: b.seq)


def standings_lines(entries: int, records: list[HandRecord]) -> list[dict[str, Any]]:
    """``entries``: the players who took part (places run 1..entries; the records may show
    fewer, the final table's alone, never more). Someone is left with every chip: the records
    cannot eliminate them all."""
    busts = busts_from_records(records)
    seen = {player for record in records for player in record.players.values()}
    if len(seen) > entries:
        raise ConfigError(f"--entries {entries}: the records show {len(seen)} players; "
                          "--entries counts every player who took part")
    if len(busts) >= entries:
        raise ConfigError(f"--entries {entries}: the records eliminate {len(busts)} players, "
                          "and one is left with every chip (a bust the floor took back is in "
                          "the tournament's journal, not in the hands: the records still "
                          "eliminate that player unless he played on)")
    placed = placings(entries - len(busts), busts)
    placed.sort(key=lambda p: (-p.place, p.player))
    lines = [{"place": p.place, "player": p.player, "shared_with": list(p.shared_with)}
             for p in placed]
    if len(busts) == entries - 1:  # the tournament is over: the one left with every chip won
        out = {b.player for b in busts}
        left = [player for player in seen if player not in out]
        if len(left) == 1:
            lines.append({"place": 1, "player": left[0], "shared_with": []})
    return lines


def payout_lines(structure: Structure, entries: int) -> list[dict[str, Any]]:
    if structure.prizes is None:
        raise ConfigError(f"the structure {structure.name!r} has no [prizes] payout table")
    pool = prize_pool(entries, structure.entry.buy_in)
    return [{"place": k, "prize": prize, "currency": structure.entry.currency}
            for k, prize in enumerate(payouts(structure.prizes, pool, entries), start=1)]


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False)


__all__ = ["SeatingFile", "balance_lines", "busts_from_records", "dumps", "payout_lines",
           "read_records", "read_seating", "standings_lines"]
