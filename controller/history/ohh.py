"""A hand record as an Open Hand History document (OHH, spec 1.4.7: hh-specs.handhistory.org),
the JSON that PokerTracker and other tracking software read. An ``.ohh`` file holds one
``{"ohh": {...}}`` object a hand, each on a line of its own, hands one blank line apart (the
spec's storage format: a writer appends a hand without reading the file again).

The record is already the view to hand out (`HandRecord.public`, `views.hero_view`): a hole
card is written only where the view holds it, in the seat's "Dealt Cards" action (the hero's
own; every seat's in the full view; in the public view those tabled) and in its "Shows Cards"
at the showdown. A player whose cards the view does not hold has no "Dealt Cards" action: the
spec's actions carry real cards only, and an action without them would say nothing.

A cash game's hand (`HandRecord.cash`, the CG) is ``"tournament": false`` without a
``tournament_info``; its straddles are "Straddle" posts, a bomb pot's or flip's agreed amounts
"Post Ante" (no blinds), and a second board's or run's streets rounds of their own (the
"Run_It_Twice" flag). Every other hand is a tournament hand: ``tournament_info`` comes from
`TournamentInfo`, the tournament's own where the command was given its configuration, else
what the records know (the number, the first hand's start) and ``XXX`` (ISO 4217: no currency)
for a currency nobody gave. Only complete hands have a history: a void hand or a misdeal has
no result to import (`OhhExportError`).

What OHH says differently from the record, and why:

- Amounts are the chips each action puts in: a raise's is what it adds to the player's bet
  this round (the spec: "bet 2, re-raised to 20" is 18), a call's what it adds.
- An uncalled bet is not an action (OHH has none): the pots hold what was called, and a reader
  gives the rest back, as the spec's examples do.
- The forced bets come antes first, then the small and the big blind, also heads-up (where
  the record posts the big blind first); a big-blind ante is the big blind's "Post Ante".
- A fold that leaves a short call's chips in the pot (RULES R8) is a "Call" of those chips
  and a "Fold", as the tracker text writes it: OHH has no action that puts chips in and folds.
- Every show and muck is in one "Showdown" round after the board: a player all-in tables his
  cards before the board is run out, but the spec keeps showdown information there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from controller.engine.records import ActionRecord, HandRecord
from controller.errors import ExportError
from controller.session.outputs import hand_id

SPEC_VERSION = "1.4.7"
# Ours, as the spec recommends: its major and minor, our own fixes in the patch.
INTERNAL_VERSION = "1.4.0"
SITE = "pokertable"
NO_CURRENCY = "XXX"  # ISO 4217's code for "no currency is involved"
GAME_TYPES = {"NT": "Holdem", "PO": "Omaha"}
BET_TYPES = {"no-limit": "NL", "pot-limit": "PL", "split-limit": "FL"}
GAME_BETTING = {"NT": "no-limit", "PO": "pot-limit"}
STREETS = {"flop": "Flop", "turn": "Turn", "river": "River"}
BY_CARDS = {3: "Flop", 4: "Turn", 5: "River"}  # a board's cards after a deal: its street
CARD = re.compile(r"[2-9TJQKA][cdhs]")

Json = dict[str, Any]


class OhhExportError(ExportError):
    """A record OHH has no history for (a void hand, a misdeal)."""


@dataclass(frozen=True)
class TournamentInfo:
    """What OHH's ``tournament_info`` (and the summary, OTS) say of the tournament. ``number``
    and ``start`` None: the first hand exported gives them (its UTC date, as tracker text's
    tournament number; its start). Amounts are the tournament's own units, chips in chips."""

    number: str | None = None
    name: str | None = None
    start: float | None = None
    currency: str = NO_CURRENCY
    buy_in: int | None = None
    fee: int | None = None
    initial_stack: int = 0  # unknown without the tournament's configuration
    kind: Literal["STT", "MTT"] = "MTT"
    round_seconds: int = 0  # a level's length; unknown without the configuration
    flags: tuple[str, ...] = ()

    def settled(self, first: HandRecord) -> TournamentInfo:
        """The number and the start, where nobody gave them, from the first hand exported."""
        number = self.number or str(_date_number(first.started))
        return TournamentInfo(
            number=number, name=self.name or f"Tournament {number}",
            start=self.start if self.start is not None else first.started,
            currency=self.currency, buy_in=self.buy_in, fee=self.fee,
            initial_stack=self.initial_stack, kind=self.kind,
            round_seconds=self.round_seconds, flags=self.flags)

    def document(self) -> Json:
        """OHH's ``<tournament_info_obj>``."""
        return {
            "tournament_number": self.number or "",
            "name": self.name or f"Tournament {self.number or ''}".strip(),
            "start_date_utc": utc_text(self.start),
            "currency": self.currency,
            "buyin_amount": self.buy_in,
            "fee_amount": self.fee,
            "bounty_fee_amount": None,
            "initial_stack": self.initial_stack,
            "type": self.kind,
            "flags": list(self.flags),
            "speed": {"type": "Normal", "round_time": self.round_seconds},
        }


def _date_number(started: float | None) -> int:
    """The UTC date of a hand (20261125): the tracker text's default tournament number."""
    return int(datetime.fromtimestamp(started or 0.0, UTC).strftime("%Y%m%d"))


def utc_text(ts: float | None) -> str:
    """ISO 8601 in UTC to the second (``2026-11-25T19:04:05Z``), the spec's dates."""
    return datetime.fromtimestamp(ts or 0.0, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cards_list(text: str) -> list[str] | None:
    """``"AsKd"`` -> ``["As", "Kd"]``; None when any card is unknown (``??``): the spec's
    cards are real cards only."""
    cards = [text[k:k + 2] for k in range(0, len(text), 2)]
    if not cards or not all(CARD.fullmatch(c) for c in cards):
        return None
    return cards


def game_number(record: HandRecord, venue: str | None = None) -> str:
    """The hand's id (table:hand:start ms), with its venue where the source keeps several:
    unique across a league, the same in every export (a tracker skips a hand it holds)."""
    own = hand_id(record.table, record.hand, record.started)
    return own if venue is None else f"{venue}:{own}"


@dataclass
class _Rounds:
    """The hand's rounds as its actions are read: the chips in front of each seat this round
    (a raise's amount is what it adds) and what each seat has left (an all-in post)."""

    record: HandRecord
    ids: dict[int, int]
    rounds: list[Json] = field(default_factory=list)
    showdown: list[Json] = field(default_factory=list)
    bets: dict[int, int] = field(default_factory=dict)
    stacks: dict[int, int] = field(default_factory=dict)
    dealt: dict[int, int] = field(default_factory=dict)  # board -> its cards dealt so far
    straddles: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.rounds = [{"id": 0, "street": "Preflop", "cards": [], "actions": []}]
        self.bets = dict.fromkeys(self.record.starting_stacks, 0)
        self.stacks = dict(self.record.starting_stacks)
        # CG Straddle: a straddle is a blind in the record's actions.
        self.straddles = set(self.record.straddles)

    def add(self, seat: int, action: str, amount: int = 0, all_in: bool = False,
            cards: list[str] | None = None, showdown: bool = False) -> None:
        actions = self.showdown if showdown else self.rounds[-1]["actions"]
        entry: Json = {"action_number": len(actions) + 1, "player_id": self.ids[seat],
                       "action": action, "amount": amount, "is_allin": all_in}
        if cards is not None:
            entry["cards"] = cards
        actions.append(entry)

    def put_in(self, seat: int, chips: int) -> None:
        self.stacks[seat] -= chips
        self.bets[seat] += chips

    def deal_board(self, a: ActionRecord) -> None:
        """A new round: a second board's or run's streets are rounds of their own with the
        same street names (the spec's run it twice)."""
        board = a.board or 1
        self.dealt[board] = self.dealt.get(board, 0) + len(a.cards) // 2
        street = STREETS.get(a.street) or BY_CARDS.get(self.dealt[board], "River")
        self.rounds.append({"id": len(self.rounds), "street": street,
                            "cards": cards_list(a.cards) or [], "actions": []})
        self.bets = dict.fromkeys(self.bets, 0)

    def action(self, a: ActionRecord) -> None:
        seat, kind, amount = a.seat, a.action, a.amount
        if seat is None:
            if kind == "deal_board":
                self.deal_board(a)
            return
        if kind == "deal_hole":
            cards = cards_list(a.cards)
            if cards is not None:  # the view holds them
                self.add(seat, "Dealt Cards", cards=cards)
        elif kind == "call":
            self.put_in(seat, amount)
            self.add(seat, "Call", amount, a.all_in)
        elif kind == "check":
            self.add(seat, "Check")
        elif kind in ("fold", "kill"):
            if amount:  # a short call he would not complete, left in the pot (R8)
                self.put_in(seat, amount)
                self.add(seat, "Call", amount, self.stacks[seat] == 0)
            self.add(seat, "Fold")
        elif kind in ("bet", "raise"):
            added = amount - self.bets[seat]
            self.put_in(seat, added)
            # "Bet" is no preflop action (the spec): there the blinds are the bet.
            word = "Bet" if kind == "bet" and len(self.rounds) > 1 else "Raise"
            self.add(seat, word, added, a.all_in)
        elif kind == "ante":
            self.stacks[seat] -= amount
            self.add(seat, "Post Ante", amount, self.stacks[seat] == 0)
        elif kind == "blind":
            self.put_in(seat, amount)
            word = ("Straddle" if seat in self.straddles else
                    "Post BB" if seat == self.record.bb else
                    "Post SB" if seat == self.record.sb else "Post Extra Blind")
            self.add(seat, word, amount, self.stacks[seat] == 0)
        elif kind == "return":  # an uncalled bet: no action in OHH (see the module's doc)
            self.stacks[seat] += amount
            self.bets[seat] -= amount
        elif kind == "show":
            self.add(seat, "Shows Cards", cards=cards_list(a.cards), showdown=True)
        elif kind == "muck":
            self.add(seat, "Mucks Cards", showdown=True)

    def done(self) -> list[Json]:
        if self.showdown:
            self.rounds.append({"id": len(self.rounds), "street": "Showdown", "cards": [],
                                "actions": self.showdown})
        return self.rounds


def _flags(record: HandRecord, hero_id: int | None) -> list[str]:
    """"Observed": no hero was dealt in (the public view, the full record); "Run_It_Twice":
    more than one board (run twice, or a double board: CG Spielvarianten)."""
    flags = [] if hero_id is not None else ["Observed"]
    if record.boards:
        flags.append("Run_It_Twice")
    return flags


def posts_first(record: HandRecord) -> Iterable[ActionRecord]:
    """The actions with the forced posts in the spec's order: antes, the small blind, the big
    blind, a big blind posted out of position ("Post Extra Blind": CG Blinds, a seat change), a
    straddle (heads-up the record posts from the button's left, the big blind
    first)."""
    actions = record.actions
    lead = 0
    while lead < len(actions) and actions[lead].action in ("ante", "blind"):
        lead += 1
    straddles = record.straddles

    def rank(a: ActionRecord) -> int:
        if a.action == "ante":
            return 0
        return (4 if a.seat in straddles else 3 if a.seat in record.posts  # (CG Blinds)
                else 2 if a.seat == record.bb else 1)

    return [*sorted(actions[:lead], key=rank), *actions[lead:]]


def ohh_hand(record: HandRecord, tournament: TournamentInfo, hero: str | None = None,
             venue: str | None = None) -> Json:
    """One complete hand as ``{"ohh": {...}}``. ``record`` is already the view to export;
    ``hero``, the player whose history it is (``hero_player_id``); without one the hand is
    "Observed". ``venue``, where it matters (a league's hands), names the table with it."""
    if record.status != "complete":
        raise OhhExportError(f"hand {record.hand} is a {record.status}: it has no result")
    seats = sorted(record.starting_stacks)
    ids = {seat: k for k, seat in enumerate(seats)}
    hero_id = next((ids[s] for s in seats if hero is not None and record.players[s] == hero),
                   None)
    rounds = _Rounds(record, ids)
    for a in posts_first(record):
        rounds.action(a)
    betting = record.betting or GAME_BETTING[record.game]
    b = record.blinds
    hand: Json = {
        "spec_version": SPEC_VERSION,
        "site_name": SITE,
        "network_name": SITE,
        "internal_version": INTERNAL_VERSION,
        # A cash game's hand (CG) is no tournament's: no tournament_info (the spec's "if").
        "tournament": not record.cash,
        **({} if record.cash else {"tournament_info": tournament.document()}),
        "game_number": game_number(record, venue),
        "start_date_utc": utc_text(record.started),
        # Two venues' table 1 are two tables: a tracker keeps tables apart by this name.
        "table_name": record.table if venue is None else f"{venue} {record.table}",
        "game_type": GAME_TYPES[record.game],
        "bet_limit": {"bet_type": BET_TYPES[betting], "bet_cap": 0},
        # The table's size as the record keeps it; older records only say whether seat 10 played.
        "table_size": record.seat_count or (10 if 10 in record.players else 9),
        "currency": tournament.currency,
        "dealer_seat": record.button,
        "small_blind_amount": b.sb,
        "big_blind_amount": b.bb,
        "ante_amount": b.ante,
        "hero_player_id": hero_id,
        "flags": _flags(record, hero_id),
        "players": [{"id": ids[s], "seat": s, "name": record.players[s],
                     "starting_stack": record.starting_stacks[s]} for s in seats],
        "rounds": rounds.done(),
        "pots": [{"number": k, "amount": pot.amount, "rake": 0,
                  "player_wins": [{"player_id": ids[seat], "win_amount": chips}
                                  for seat, chips in pot.shares.items()]}
                 for k, pot in enumerate(record.pots)],
    }
    return {"ohh": hand}


__all__ = ["INTERNAL_VERSION", "NO_CURRENCY", "SPEC_VERSION", "OhhExportError", "TournamentInfo",
           "cards_list", "game_number", "ohh_hand", "posts_first", "utc_text"]
