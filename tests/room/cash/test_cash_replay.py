"""The lists' order survives a restart (CG "Tischwechsel", "Must Move": the order is the list's;
issue 36: "the order kept across restarts"), over random evenings (Hypothesis): the floor's
commands at random moments, many of them refused, time passing between them (calls running
out). After every evening:

- a replay of the journaled commands (what the store keeps: name, arguments, who, when) makes
  the same ledger: every list in the same order, the same must-move orders, offers and changes;
- the ledger as the store saves it (JSON) gives the same published state back;
- what the rules promise holds: nobody sits twice or at a table over its seats or at a closed
  one; nobody is twice on a list or on the list of the game he plays; a main table's order is
  exactly the players at its must-move tables; a seat is offered only at a main table with a
  seat open and an order, to one in the order; an approved change never waits by a seat open
  at its table that no called player was called to; the players called to a table never
  outnumber its open seats.

`make test` runs a hundred evenings; CASH_EXAMPLES=2000 a nightly-sized run."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.room.cash import seating
from controller.room.cash.core import CashCore, replay
from controller.room.cash.ledger import Ledger, Refused
from controller.room.tournament import names
from tests.room.cash.helpers import NLH, PLO, Floor, room_settings

EXAMPLES = int(os.environ.get("CASH_EXAMPLES", "100"))
T = TypeVar("T")
PLAYERS = ["Anna", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ida", "Jon"]
TABLES = ["1", "2", "3", "4"]
GAMES = [NLH, PLO]

name = st.sampled_from([*PLAYERS, "anna", "BEN"])  # the floor's spelling varies
table = st.sampled_from(TABLES)
game = st.sampled_from(GAMES)

COMMAND = st.one_of(
    st.tuples(st.just("open_table"), st.fixed_dictionaries({"table": table, "game": game})),
    st.tuples(st.just("close_table"), st.fixed_dictionaries({"table": table})),
    st.tuples(st.just("sign_up"), st.fixed_dictionaries(
        {"game": game, "name": name},
        optional={"initials": st.sampled_from(["AB", "X"]),
                  "phone": st.sampled_from(["+43 660 1", "0660 2"])})),
    st.tuples(st.just("remove"), st.fixed_dictionaries({"game": game, "name": name})),
    st.tuples(st.just("call"), st.fixed_dictionaries({"game": game},
                                                     optional={"table": table})),
    st.tuples(st.just("seat"), st.fixed_dictionaries(
        {"table": table, "name": name}, optional={"seat": st.integers(1, 4)})),
    st.tuples(st.just("leave"), st.fixed_dictionaries({"table": table, "name": name})),
    st.tuples(st.just("must_move"), st.fixed_dictionaries(
        {"table": table, "main": table, "seed": st.integers(0, 2**63 - 1)})),
    st.tuples(st.just("end_must_move"), st.fixed_dictionaries({"table": table})),
    st.tuples(st.just("answer"), st.fixed_dictionaries(
        {"table": table, "name": name, "accept": st.booleans()})),
    st.tuples(st.just("request_change"), st.fixed_dictionaries({"table": table, "name": name})),
    st.tuples(st.just("approve_change"), st.fixed_dictionaries({"name": name})),
    st.tuples(st.just("cancel_change"), st.fixed_dictionaries({"name": name})),
)
def evening(data: st.DataObject, order: str, steps: int) -> Floor:
    """An evening of ``steps`` commands, most of them drawn from what the room shows (a called
    player seated, the one asked answering), some from anywhere (``COMMAND``: mostly refused)."""
    floor = Floor(room_settings(seats=3, tables=4, call_seconds=240,
                                order=order))  # type: ignore[arg-type]
    floor.do("open_table", table="1", game=NLH)
    floor.do("open_table", table="2", game=NLH)
    floor.do("open_table", table="3", game=PLO)
    for _ in range(steps):
        floor.tick(floor.now + data.draw(st.floats(0, 150, allow_nan=False)))
        command, args = likely(data, floor.core.ledger)
        try:
            floor.do(command, **args)
        except Refused:
            floor.now -= 1  # (nothing was done; nothing journaled)
        check(floor.core.ledger)
    return floor


def likely(data: st.DataObject, ledger: Ledger) -> tuple[str, dict[str, Any]]:
    """A command that fits the room as it stands, or (one time in eight) any. (Indices drawn
    rather than strategies built at every step: ten times faster.)"""
    def pick(items: list[T]) -> T:
        return items[data.draw(st.integers(0, len(items) - 1))]

    seated = [(t.table, p.name) for t in ledger.tables for p in t.players]
    called = [(g, e.name) for g, entries in ledger.lists.items() for e in entries if e.called]
    open_tables = {g: [t.table for t in ledger.tables if t.game == g] for g in GAMES}
    pairs = [(a, b) for tables in open_tables.values() for a in tables for b in tables if a != b]
    kinds = ["any", "sign_up", "call", "call"]
    kinds += ["seat", "seat"] if called else []
    kinds += ["leave", "request_change"] if seated else []
    kinds += ["approve_change", "approve_change"] if ledger.changes else []
    kinds += ["answer", "answer"] if ledger.offers else []
    kinds += ["must_move"] if pairs else []
    kind = pick(kinds)
    if kind == "sign_up":
        return kind, {"game": pick(GAMES), "name": pick(PLAYERS)}
    if kind == "call":
        return kind, {"game": pick(GAMES)}
    if kind == "seat":
        g, player = pick(called)
        return kind, {"table": pick(open_tables[g] or TABLES), "name": player}
    if kind == "leave":
        at, player = pick(seated)
        return kind, {"table": at, "name": player}
    if kind == "request_change":
        at, player = pick(seated)
        others = [t for t in open_tables[ledger.table(at).game or NLH] if t != at]
        return kind, {"name": player, "table": pick(others or TABLES)}
    if kind == "approve_change":
        return kind, {"name": pick(ledger.changes).player}
    if kind == "answer":
        offer = pick(ledger.offers)
        return kind, {"table": offer.main, "name": offer.asking, "accept": pick([True, False])}
    if kind == "must_move":
        feeder, main = pick(pairs)
        return kind, {"table": feeder, "main": main, "seed": data.draw(st.integers(0, 2**63 - 1))}
    command, args = data.draw(COMMAND)
    return command, args


def check(ledger: Ledger) -> None:
    seated = [names.skeleton(p.name) for t in ledger.tables for p in t.players]
    assert len(seated) == len(set(seated)), "a player sits twice"
    playing = {names.skeleton(p.name): t.game for t in ledger.tables for p in t.players}
    for t in ledger.tables:
        assert len(t.players) <= t.seats
        assert t.game is not None or (not t.players and t.feeds is None)
        numbers = [p.seat for p in t.players if p.seat is not None]
        assert len(numbers) == len(set(numbers))
    for g, entries in ledger.lists.items():
        listed = [names.skeleton(e.name) for e in entries]
        assert len(listed) == len(set(listed)), f"twice on the {g} list"
        assert all(playing.get(n) != g for n in listed), f"on the list of {g}, which he plays"
    for main in {t.table for t in ledger.tables} | set(ledger.must_move):
        at_feeders = [p.name for f in ledger.feeders(main) for p in ledger.table(f).players]
        assert Counter(ledger.must_move.get(main, [])) == Counter(at_feeders)
    for offer in ledger.offers:
        assert ledger.table(offer.main).open_seats() > 0
        assert offer.asking in ledger.must_move[offer.main]
    for t in ledger.tables:
        if t.open_seats() > 0 and ledger.must_move.get(t.table):
            assert ledger.offer(t.table) is not None, f"table {t.table}'s seat is offered to no one"
    for change in ledger.changes:
        free = ledger.table(change.to).open_seats() - seating.promised(ledger, change.to)
        assert not (change.approved and free > 0), "an approved change waits by an open seat"
    for t in ledger.tables:  # a call is a promise of a seat at the table it names
        assert seating.promised(ledger, t.table) <= t.open_seats(), f"table {t.table} overcalled"


@settings(max_examples=EXAMPLES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), order=st.sampled_from(["list", "draw"]), steps=st.integers(0, 80))
def test_a_replay_of_the_journal_makes_the_same_lists_in_the_same_order(
        data: st.DataObject, order: str, steps: int) -> None:
    floor = evening(data, order, steps)
    again = replay(floor.settings, floor.journal)
    assert again.ledger.model_dump() == floor.core.ledger.model_dump()
    stored = Ledger.model_validate_json(floor.core.ledger.model_dump_json())
    assert CashCore(floor.settings, stored).state() == floor.core.state()


def test_an_evening_keeps_its_order_through_a_replay() -> None:
    """One evening spelt out: the lists' order after calls, seats and a time-out."""
    floor = Floor(room_settings(call_seconds=120))
    floor.do("open_table", table="1", game=NLH)
    for player in ("Anna", "Ben", "Cleo", "Dan", "Eve"):
        floor.do("sign_up", game=NLH, name=player)
    floor.do("call", game=NLH)
    floor.do("call", game=NLH)
    floor.do("seat", table="1", name="Ben")
    floor.tick(floor.now + 300)  # Anna did not come
    floor.do("sign_up", game=NLH, name="Anna")  # back, at the end
    assert floor.waiting(NLH) == ["Cleo", "Dan", "Eve", "Anna"]
    again = replay(floor.settings, floor.journal)
    assert [e.name for e in again.ledger.lists[NLH]] == ["Cleo", "Dan", "Eve", "Anna"]
    assert again.ledger == floor.core.ledger
