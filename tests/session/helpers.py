"""Builders for scripted table sessions in the event vocabulary, and a runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.demo.script import (  # re-exported: the table tests build their scripts from these
    Ev,
    board,
    card,
    chips,
    command,
    deal,
    declare,
    flatten,
    key,
    level,
    played_session,
    seat,
    shuffle,
)
from controller.engine.records import HandRecord
from controller.events import TableEvent, parse_event
from controller.session import SessionConfig, Step, TableSession
from controller.session.outputs import PublicEvent


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


HOLE = {2: "AsAh", 3: "KdKh", 1: "7c2d"}  # a deal for three_players(), in dealing order


def three_players(stack: int = 10_000) -> list[Ev]:
    return [seat(1, "ana", stack), seat(2, "ben", stack), seat(3, "cem", stack)]


def folded_hand() -> list[dict[str, object]]:
    """Hand on seats 1-3: the button raises, both blinds fold."""
    return [*deal(HOLE), declare(1, "raise", 300), declare(2, "fold"), declare(3, "fold")]




__all__ = ["HOLE", "Ev", "Run", "board", "card", "chips", "command", "deal", "declare", "flatten",
           "folded_hand", "key", "level", "played_session", "seat", "shuffle", "start",
           "three_players"]
