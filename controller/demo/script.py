"""Scripted table sessions in the event vocabulary (docs/design.md): builders for single events and
`played_session`, a valid multi-hand stream chosen against a live session. The tests, the
benchmarks and the demo share them."""

from __future__ import annotations

import random
from typing import Any

from controller.engine.hand import Stage
from controller.events import parse_event
from controller.session import TableSession

Ev = dict[str, Any]


def seat(n: int, player: str | None, stack: int = 10_000) -> Ev:
    return {"type": "seat", "seat": n, "player": player, "stack": stack if player else 0}


def shuffle(ts: float | None = None) -> Ev:
    return {"type": "shuffle"} | ({"ts": ts} if ts is not None else {})


def card(zone: str, text: str) -> Ev:
    return {"type": "card", "zone": zone, "card": text}


def board(cards: str, burn: str | None = None) -> list[Ev]:
    out = [card("burn", burn)] if burn else []
    return out + [card("board", cards[i:i + 2]) for i in range(0, len(cards), 2)]


def deal(hands: dict[int, str], order: list[int] | None = None) -> list[Ev]:
    """Hole cards pitched one at a time around the table, in ``order`` (default: as given)."""
    seats = order or list(hands)
    per_seat = {s: [hands[s][i:i + 2] for i in range(0, len(hands[s]), 2)] for s in seats}
    rounds = max(len(c) for c in per_seat.values())
    return [card(f"seat:{s}", per_seat[s][r]) for r in range(rounds) for s in seats
            if r < len(per_seat[s])]


def declare(n: int, action: str, amount: int | None = None) -> Ev:
    return {"type": "declare", "seat": n, "action": action} | (
        {"amount": amount} if amount is not None else {}
    )


def key(name: str) -> Ev:
    return {"type": "key", "key": name}


def command(name: str, by: str = "floor:anna", **args: Any) -> Ev:
    return {"type": "command", "name": name, "args": args, "by": by}


def level(n: int, sb: int, bb: int, ante: int = 0, bb_ante: int = 0) -> Ev:
    return {"type": "level", "level": n, "sb": sb, "bb": bb, "ante": ante, "bb_ante": bb_ante}


def chips(zone: str, *values: int) -> Ev:
    return {"type": "chips", "zone": zone, "chips": list(values)}


def flatten(*parts: Ev | list[Ev]) -> list[Ev]:
    out: list[Ev] = []
    for part in parts:
        out.extend(part if isinstance(part, list) else [part])
    return out


def played_session(hands: int, seed: int = 5, players: int = 4) -> list[Ev]:
    """A valid multi-hand event stream, chosen move by move against a live session like a
    dealer reading the screen: RFID deals, folds to the muck, confirm-key checks, declared
    bets, a level change, a misdeal, a floor call and showdowns."""
    rng = random.Random(seed)
    session = TableSession()
    out: list[Ev] = []

    def feed(*raws: Ev) -> None:
        for raw in raws:
            out.append(raw)
            session.handle(parse_event(raw))

    feed(*[seat(s, f"p{s}", 3_000 + 1_000 * s) for s in range(1, players + 1)])
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for number in range(hands):
        if len(session.table.seats) < 2:
            break
        rng.shuffle(deck)
        cards = iter(deck)
        feed(shuffle(ts=float(number)))
        if number == 2:
            feed(level(2, 100, 200, ante=25))
        state = session.state()
        dealt = [s for s, v in state.seats.items() if v.in_hand]
        order = [s for s in dealt if s > (state.button or 0)] + [
            s for s in dealt if s <= (state.button or 0)]
        hole = {s: next(cards) + next(cards) for s in order}
        feed(*deal(hole, order))
        if number == 3:
            feed(command("misdeal", reason="card exposed"))
            continue
        for _ in range(200):
            hand = session.table.hand
            if hand is None or hand.stage is Stage.OVER:
                break
            state = session.state()
            if hand.stage is Stage.BETTING and state.actor is not None:
                roll = rng.random()
                if state.to_call and roll < 0.25:
                    feed(card("muck", hole[state.actor][:2]))
                elif not state.to_call and roll < 0.6:
                    feed(key("confirm"))
                elif state.min_raise_to and roll > 0.9:
                    feed(declare(state.actor, "allin"))
                elif state.min_raise_to and roll > 0.8:
                    feed(declare(state.actor, "raise" if state.to_call else "bet",
                                 state.min_raise_to))
                else:
                    feed(declare(state.actor, "call" if state.to_call else "check"))
            elif hand.stage is Stage.DEALING:
                count = 3 if not state.board else 1
                feed(*board("".join(next(cards) for _ in range(count)), burn=next(cards)))
            elif hand.stage is Stage.SHOWDOWN:
                if rng.random() < 0.2 and len(state.showdown_order) > 1:
                    feed(card("muck", hole[state.showdown_order[-1]][:2]))
                else:
                    feed(key("confirm"))
        if number == 1:
            feed(key("floor"))
    feed(shuffle(ts=999.0))
    return out
