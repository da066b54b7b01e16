"""The broadcast feed's pictures of a sealed hand (docs/broadcast.md): one step per action of
the recorder's full record, each the table as it stood after that action (every player's hole
cards, his stack and bet, the board, the pot, the last actions in words, each player's equity),
and the time each action happened, from the public events the floor heard while the hand was
played. Pure: no clock, no I/O.

An action's time must never be earlier than the action (the feed releases it at that time plus
the delay): it is the time the floor *received* the public event that announced it, which is
after the action. An action no event announced (blinds, the deal, a payout, one the floor
missed while it was away) takes the time of the next action that has one, else the time the
sealed record reached the floor: later than it happened, never earlier.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.cards import parse_cards
from controller.engine.records import ActionRecord, HandRecord
from controller.history.equity import Equity, Method, equities
from controller.session.outputs import PublicEvent, hand_id
from controller.session.words import blinds_text, spaced

ACTIONS_SHOWN = 8  # the last actions in words on each step
# A record's betting action -> the word its public event says (`data.action`)
ANNOUNCED = {"call": "call", "check": "check", "fold": "fold", "bet": "betorraise",
             "raise": "betorraise"}


@dataclass(frozen=True)
class Heard:
    """A public event of the hand as the floor received it, and when (the feed's clock)."""

    kind: str
    seat: int | None
    action: str | None
    amount: int | None
    cards: str
    board: int
    at: float


def heard(event: PublicEvent, at: float) -> Heard:
    data = event.data
    action = data.get("action")
    amount = data.get("amount")
    cards = data.get("cards")
    board = data.get("board")
    return Heard(kind=event.kind, seat=event.seat,
                 action=action if isinstance(action, str) else None,
                 amount=amount if isinstance(amount, int) else None,
                 cards=cards if isinstance(cards, str) else "",
                 board=board if isinstance(board, int) else 1, at=at)


def _announces(event: Heard, action: ActionRecord) -> bool:
    """Whether ``event`` is the public word of ``action`` (the same seat, action and, for a
    call, amount; the same cards for a street or a show)."""
    kind = action.action
    if kind in ANNOUNCED:
        return (event.kind == "action" and event.seat == action.seat
                and event.action == ANNOUNCED[kind]
                and (kind != "call" or event.amount == action.amount))
    if kind == "deal_board":
        return (event.kind == "street" and event.cards == action.cards
                and event.board == (action.board or 1))
    if kind == "show":
        return event.kind == "show" and event.seat == action.seat and event.cards == action.cards
    if kind == "muck":
        return event.kind == "muck" and event.seat == action.seat
    return False


def action_times(record: HandRecord, events: Sequence[Heard], sealed_at: float) -> list[float]:
    """Each action's time (see the module's note): never earlier than the action, and never
    earlier than the action before it."""
    used: set[int] = set()
    found: list[float | None] = []
    after = 0  # events are matched in the order they came, each once
    for action in record.actions:
        match = next((k for k in range(after, len(events))
                      if k not in used and _announces(events[k], action)), None)
        if match is None:
            found.append(None)
            continue
        used.add(match)
        after = match + 1
        found.append(events[match].at)
    times: list[float] = []
    later = sealed_at
    for at in reversed(found):  # unannounced: the next announced action's time
        later = at if at is not None else later
        times.append(later)
    times.reverse()
    for k in range(1, len(times)):  # (never before the action before it: only later)
        times[k] = max(times[k], times[k - 1])
    # (every action happened before its record reached the floor: that is later still)
    return [min(t, sealed_at) for t in times]


class FeedEquity(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: Method
    boards: int = Field(description="Boards counted (exact) or drawn (monte-carlo)")
    seed: int | None = None


class FeedSeat(BaseModel):
    model_config = ConfigDict(frozen=True)

    seat: int
    player: str
    stack: int
    bet: int = 0
    cards: str = Field(default="", description="His hole cards (sealed record), once dealt")
    folded: bool = False
    all_in: bool = False
    equity: float | None = Field(default=None, description="His share of the pot to expect")
    last: str = Field(default="", description="His last action, in words")
    won: int = 0


class FeedStep(BaseModel):
    """The table after one action of a sealed hand: what the broadcast shows."""

    model_config = ConfigDict(frozen=True)

    table: str
    hand: int
    hand_id: str
    started: float | None
    step: int = Field(description="The action's place in the record, from 0")
    steps: int
    at: float = Field(description="When the action happened (at the latest), room's clock")
    game: str
    level: int
    blinds: str
    button: int
    street: str
    board: str
    boards: list[str] = Field(default_factory=list, description="Both boards or runs, if two")
    pot: int
    seats: list[FeedSeat]
    actions: list[str] = Field(description="The last actions, in words, the newest last")
    equity: FeedEquity | None = None
    over: bool = False
    results: list[str] = Field(default_factory=list)


def _words(record: HandRecord, a: ActionRecord) -> str:
    name = record.players.get(a.seat, f"seat {a.seat}") if a.seat is not None else ""
    all_in = " all-in" if a.all_in else ""
    words = {
        "ante": f"{name} posts the ante {a.amount:,}",
        "blind": f"{name} posts {a.amount:,}",
        "fold": f"{name} folds", "kill": f"{name}'s hand is dead",
        "check": f"{name} checks", "call": f"{name} calls {a.amount:,}{all_in}",
        "bet": f"{name} bets {a.amount:,}{all_in}",
        "raise": f"{name} raises to {a.amount:,}{all_in}",
        "return": f"{a.amount:,} back to {name}",
        "deal_hole": f"{name} is dealt in",
        "deal_board": f"{a.street}: {spaced(a.cards)}",
        "show": f"{name} shows {spaced(a.cards)}", "muck": f"{name} mucks",
        "win": f"{name} wins {a.amount:,}",
    }
    return words.get(a.action, f"{name} {a.action}".strip())


def _seed(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


class _Table:
    """The hand replayed action by action (chips as `controller.history.stars` counts them:
    a bet or raise is to its amount, a call adds its amount)."""

    def __init__(self, record: HandRecord) -> None:
        self.record = record
        self.stacks = dict(record.starting_stacks)
        self.bets = dict.fromkeys(record.players, 0)
        self.collected = 0
        self.paid = 0
        self.folded: set[int] = set()
        self.all_in: set[int] = set()
        self.cards: dict[int, str] = {}
        self.last: dict[int, str] = {}
        self.won = dict.fromkeys(record.players, 0)
        self.board: list[str] = ["", ""]
        self.street = "preflop"
        self.over = False

    def apply(self, a: ActionRecord) -> None:
        s = a.seat
        kind, amount = a.action, a.amount
        self.street = a.street
        if s is not None and s not in self.stacks:
            return  # (a record names its seats; a stranger's action changes nothing shown)
        if kind == "deal_board":
            self._collect()
            self.board[(a.board or 1) - 1] += a.cards
            return
        if s is None:
            return
        if kind == "ante":
            self.stacks[s] -= amount
            self.collected += amount
        elif kind in ("blind", "call"):
            self.stacks[s] -= amount
            self.bets[s] += amount
        elif kind in ("bet", "raise"):
            self.stacks[s] -= amount - self.bets[s]
            self.bets[s] = amount
        elif kind in ("fold", "kill", "muck"):
            if amount:  # a short call left in the pot (R8)
                self.stacks[s] -= amount
                self.bets[s] += amount
            self.folded.add(s)
        elif kind == "return":
            self.stacks[s] += amount
            self.bets[s] -= amount
        elif kind == "deal_hole":
            self.cards[s] = a.cards
        elif kind == "win":
            self._collect()
            self.over = True
            self.stacks[s] += amount
            self.won[s] += amount
            self.paid += amount
        if a.all_in or (kind in ("blind", "call", "bet", "raise", "ante")
                        and self.stacks[s] == 0):
            self.all_in.add(s)
        if kind != "deal_hole":
            self.last[s] = _words(self.record, a).removeprefix(self.record.players[s] + " ")

    def _collect(self) -> None:
        self.collected += sum(self.bets.values())
        self.bets = dict.fromkeys(self.bets, 0)

    def live_hands(self) -> dict[int, list[int]] | None:
        """Each seat still in with his known cards, when the equity can be told: two or more
        in, every card of theirs known, one board (a second board or run: none shown)."""
        record = self.record
        wanted = 4 if record.game == "PO" else 2
        if self.over or record.double_board or self.board[1]:
            return None
        live = [s for s in record.players if s not in self.folded and s in self.cards]
        if len(live) < 2 or len(self.cards) < len(record.hole_cards):
            return None
        hands: dict[int, list[int]] = {}
        for s in live:
            parsed = parse_cards(self.cards[s])
            if len(parsed) != wanted or any(c is None for c in parsed):
                return None  # a card the readers did not see: no honest equity
            hands[s] = [c for c in parsed if c is not None]
        return hands

    def dead(self) -> list[int]:
        return [c for s in self.folded if s in self.cards
                for c in parse_cards(self.cards[s]) if c is not None]


def build_steps(record: HandRecord, times: Sequence[float]) -> list[FeedStep]:
    """Every step of the hand (one per action, at ``times``), with each player's equity where
    it can be told (`controller.history.equity`: exact from the flop on, a seeded Monte Carlo
    before it). CPU-bound (a tenth of a second or so a hand): run it off the web loop."""
    table = _Table(record)
    identity = hand_id(record.table, record.hand, record.started)
    said: list[str] = []
    cache: dict[tuple[tuple[int, ...], str], Equity] = {}
    steps: list[FeedStep] = []
    for k, (action, at) in enumerate(zip(record.actions, times, strict=True)):
        table.apply(action)
        if action.action != "deal_hole":
            said.append(_words(record, action))
        equity = None
        hands = table.live_hands()
        if hands is not None:
            board = table.board[0]
            key = (tuple(sorted(hands)), board)
            if key not in cache:
                cache[key] = equities(
                    record.game, hands, [c for c in parse_cards(board) if c is not None],
                    table.dead(), seed=_seed(f"{identity}|{key}"))
            equity = cache[key]
        steps.append(_step(record, table, identity, k, at, said, equity))
    return steps


def _step(record: HandRecord, table: _Table, identity: str, k: int, at: float,
          said: list[str], equity: Equity | None) -> FeedStep:
    seats = [FeedSeat(seat=s, player=name, stack=table.stacks[s], bet=table.bets[s],
                      cards=table.cards.get(s, ""), folded=s in table.folded,
                      all_in=s in table.all_in and s not in table.folded,
                      equity=equity.shares.get(s) if equity is not None else None,
                      last=table.last.get(s, ""), won=table.won[s])
             for s, name in sorted(record.players.items())]
    last = k == len(record.actions) - 1
    results = []
    if last:
        for n, pot in enumerate(record.pots, start=1):
            names = ", ".join(record.players.get(s, f"seat {s}") for s in pot.winners)
            with_hand = f" with {pot.winning_hand}" if pot.winning_hand else ""
            results.append(f"pot {n} ({pot.amount:,}): {names}{with_hand}")
    boards = [b for b in table.board if b] if table.board[1] else []
    return FeedStep(
        table=record.table, hand=record.hand, hand_id=identity, started=record.started,
        step=k, steps=len(record.actions), at=at, game=record.game, level=record.level,
        blinds=blinds_text(record.blinds), button=record.button, street=table.street,
        board=table.board[0], boards=boards,
        pot=table.collected + sum(table.bets.values()) - table.paid, seats=seats,
        actions=said[-ACTIONS_SHOWN:],
        equity=None if equity is None else FeedEquity(method=equity.method,
                                                      boards=equity.boards, seed=equity.seed),
        over=table.over or last, results=results)


__all__ = ["FeedEquity", "FeedSeat", "FeedStep", "Heard", "action_times", "build_steps",
           "heard"]
