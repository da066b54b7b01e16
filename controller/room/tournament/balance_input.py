"""The seating file `pokertable tournament balance --seating FILE` reads: the tables as they
sit after a hand, checked for positions no table could have shown, then handed to the same
`balance.plan` the service runs (`read_seating`).

A file that is not what it should be is one `ConfigError` line naming the file, the table and
the field: a seat a table does not have, a seat or a player given twice, a big blind on a seat
nobody played from, button and blinds not following each other clockwise (RULES B2), the
heads-up button on an empty seat (RULES B3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from controller.errors import ConfigError, first_error
from controller.inputs.json_input import BadJson, loads_bounded
from controller.inputs.text_files import read_text_file
from controller.room.tournament.balance import TableSeating

Seat = StrictInt


class SeatingTable(BaseModel):
    """One table after the hand it just played (or before its first: no positions)."""

    model_config = ConfigDict(extra="forbid")

    table: str = Field(min_length=1, max_length=32)
    seats: int | None = Field(default=None, ge=2, le=10, strict=True,
                              description="This table's own size (default: the file's)")
    button: Seat | None = None
    small_blind: Seat | None = Field(default=None, description="Where the small blind was "
                                     "posted; null: it was dead; left out: the last player "
                                     "before the big blind after the button, else dead")
    big_blind: Seat | None = None
    players: dict[str, str] = Field(default_factory=dict, description="Player by seat, now")
    out: list[Seat] = Field(default_factory=list, description="Seats whose players went out "
                            "in the hand just played (empty now)")
    newcomers: list[Seat] = Field(default_factory=list, description="Seats of players who sat "
                                  "down since that hand (RULES B4)")


class SeatingFile(BaseModel):
    """``{"seats": 9, "break_order": ["3", "2", "1"], "tables": [{"table": "1", "button": 4,
    "big_blind": 6, "players": {"1": "p01", ...}}]}``: the positions of the hand just played,
    the players sitting now."""

    model_config = ConfigDict(extra="forbid")

    seats: int = Field(ge=2, le=10, strict=True)
    break_order: list[str] = Field(default_factory=list)
    tables: list[SeatingTable] = Field(min_length=1)


class _Bad(Exception):
    """What is wrong, as ``where: what``."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Bad(f"the key {key!r} is given twice in one object")
        seen[key] = value
    return seen


def read_seating(path: Path) -> tuple[list[TableSeating], list[str]]:
    """The tables and the break order in the file, or `ConfigError` naming what is wrong."""
    text = read_text_file(path, "a seating file (JSON)")
    try:
        raw = loads_bounded(text)
        json.loads(text, object_pairs_hook=_no_duplicate_keys)  # json keeps the last silently
        seating = SeatingFile.model_validate(raw)
        return _check(seating), _break_order(seating)
    except BadJson as exc:
        raise ConfigError(f"{path}: not JSON: {exc}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: {first_error(exc, 'the file')}") from None
    except _Bad as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _break_order(seating: SeatingFile) -> list[str]:
    names = [t.table for t in seating.tables]
    for k, name in enumerate(seating.break_order):
        if name not in names:
            raise _Bad(f"break_order: table {name!r} is not in tables")
        if name in seating.break_order[:k]:
            raise _Bad(f"break_order: table {name!r} is named twice")
    return list(seating.break_order)


def _check(seating: SeatingFile) -> list[TableSeating]:
    out: list[TableSeating] = []
    sits: dict[str, str] = {}  # player -> "table T seat S"
    for table in seating.tables:
        if any(t.table == table.table for t in out):
            raise _Bad(f"tables: table {table.table!r} is listed twice")
        seats = table.seats or seating.seats
        where = f"table {table.table}"
        players = _players(table, seats, where)
        for seat, player in sorted(players.items()):
            if player in sits:
                raise _Bad(f"{where}, players: {player} at seat {seat} sits at {sits[player]} "
                           "already (the same player twice)")
            sits[player] = f"{where} seat {seat}"
        small_blind = _positions(table, seats, players, where)
        for k, seat in enumerate(table.newcomers):
            if seat not in players:
                raise _Bad(f"{where}, newcomers: seat {seat} has no player (players)")
            if seat in table.newcomers[:k]:
                raise _Bad(f"{where}, newcomers: seat {seat} is given twice")
        out.append(TableSeating(table=table.table, seats=seats, button=table.button,
                                small_blind=small_blind, big_blind=table.big_blind,
                                players=players, newcomers=frozenset(table.newcomers)))
    return out


def _players(table: SeatingTable, seats: int, where: str) -> dict[int, str]:
    players: dict[int, str] = {}
    for key, player in table.players.items():
        if not (key.isascii() and key.isdigit()):
            raise _Bad(f"{where}, players: {key!r} is not a seat number")
        seat = int(key)
        _exists(seat, seats, f"{where}, players")
        if seat in players:
            raise _Bad(f"{where}, players: seat {seat} is given twice")
        if not player.strip():
            raise _Bad(f"{where}, players: seat {seat} has no player's name")
        players[seat] = player
    return players


def _exists(seat: int, seats: int, where: str) -> None:
    if not 1 <= seat <= seats:
        raise _Bad(f"{where}: seat {seat} does not exist (seats 1 to {seats})")


def _positions(table: SeatingTable, seats: int, players: dict[int, str], where: str
               ) -> int | None:
    """Checks the positions of the hand just played against each other and the seats; returns
    the small blind balancing is to see (`TableSeating.small_blind`: None is dead)."""
    button, big_blind = table.button, table.big_blind
    given_small_blind = "small_blind" in table.model_fields_set
    small_blind = table.small_blind
    for name, seat in (("button", button), ("small_blind", small_blind),
                       ("big_blind", big_blind)):
        if seat is not None:
            _exists(seat, seats, f"{where}, {name}")
    for k, seat in enumerate(table.out):
        _exists(seat, seats, f"{where}, out")
        if seat in table.out[:k]:
            raise _Bad(f"{where}, out: seat {seat} is given twice")
        if seat in players:
            raise _Bad(f"{where}, out: seat {seat} is taken (players): out names the seats "
                       "whose players went out in the hand just played")
    if big_blind is None:
        if button is not None or given_small_blind or table.out:
            field = "button" if button is not None else (
                "small_blind" if given_small_blind else "out")
            raise _Bad(f"{where}, {field}: give the positions of the hand just played with "
                       "its big_blind, or none before the table's first hand")
        return None
    if button is None:
        raise _Bad(f"{where}, button: missing (the hand just played had one, with its "
                   f"big_blind {big_blind})")
    played = set(players) | set(table.out)  # seats whose players could have played it
    if big_blind not in played:
        raise _Bad(f"{where}, big_blind: seat {big_blind} is empty: the big blind is always "
                   "posted (RULES B2); if its player went out in that hand, add the seat to "
                   "out")
    if button == big_blind:
        raise _Bad(f"{where}, button: on the big blind's seat {big_blind}: button, small "
                   "blind and big blind follow each other clockwise (RULES B2)")
    if small_blind is not None:
        if small_blind == big_blind:
            raise _Bad(f"{where}, small_blind: on the big blind's seat {big_blind}")
        if small_blind != button and not _strictly_between(seats, small_blind, button,
                                                           big_blind):
            raise _Bad(f"{where}, small_blind: seat {small_blind} is not after the button "
                       f"({button}) and before the big blind ({big_blind}), clockwise "
                       "(RULES B2)")
        if small_blind == button and button not in played:
            raise _Bad(f"{where}, button: seat {button} is empty, but heads-up the button "
                       "posts the small blind (RULES B3); if its player went out in that hand, "
                       "add the seat to out")
        if small_blind not in played:
            raise _Bad(f"{where}, small_blind: seat {small_blind} is empty: give small_blind "
                       "only where it was posted (null when it was dead); if its player went "
                       "out in that hand, add the seat to out")
    if given_small_blind:
        return small_blind
    # Left out: the last player of that hand after the button and before the big blind posted
    # it (no player of a hand sits between its blinds, RULES B2); none there: it was dead.
    hand = (set(players) - set(table.newcomers)) | set(table.out)
    before = [s for s in sorted(hand) if _strictly_between(seats, s, button, big_blind)]
    if not before:
        return None
    order = [(s - button) % seats for s in before]
    return before[order.index(max(order))]


def _strictly_between(seats: int, seat: int, after: int, before: int) -> bool:
    """Whether ``seat`` lies clockwise after ``after`` and before ``before``."""
    return 0 < (seat - after) % seats < (before - after) % seats


__all__ = ["SeatingFile", "SeatingTable", "read_seating"]
