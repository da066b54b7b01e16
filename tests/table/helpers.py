"""Builders for scripted table sessions in the event vocabulary, and a runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine.records import HandRecord
from controller.events import TableEvent, parse_event
from controller.outputs import PublicEvent
from controller.session import SessionConfig, Step, TableSession

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


@dataclass
class Run:
    session: TableSession
    steps: list[Step] = field(default_factory=list)
    sealed: list[HandRecord] = field(default_factory=list)

    @property
    def events(self) -> list[PublicEvent]:
        return [e for s in self.steps for e in s.events]

    def rules(self) -> list[str]:
        return [e.rule for e in self.events if e.rule]

    def records(self) -> list[HandRecord]:
        """Sealed records and the last finished one."""
        pending = self.session.pending_record
        return self.sealed + ([pending] if pending is not None else [])

    def feed(self, *parts: Ev | list[Ev]) -> Step:
        step = Step(True)
        for raw in flatten(*parts):
            event: TableEvent = parse_event(raw)
            step = self.session.handle(event)
            self.steps.append(step)
            self.sealed.extend(step.sealed)
        return step


def start(*parts: Ev | list[Ev], config: SessionConfig | None = None, **kw: Any) -> Run:
    run = Run(TableSession(config or SessionConfig(**kw)))
    run.feed(*parts)
    return run


def three_players(stack: int = 10_000) -> list[Ev]:
    return [seat(1, "ana", stack), seat(2, "ben", stack), seat(3, "cem", stack)]
