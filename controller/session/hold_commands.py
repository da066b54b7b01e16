"""The table's holds as a part of the session: the floor's and the room's ``hold`` and
``release`` commands, the shuffle they refuse, and the hand-for-hand round of the hand played
(docs/rules.md, "The room's holds"; the holds themselves, one per source, in `table_holds`).
"""

from __future__ import annotations

from typing import Any, cast

from controller.events import CommandEvent
from controller.session.model import Refused, SessionSnapshot
from controller.session.parts import Core
from controller.session.table_holds import (
    HAND_FOR_HAND,
    HOLD_KINDS,
    HoldKind,
    TableHolds,
    kind_of,
)


class HoldCommands:
    """Why the table may not shuffle (``holds``, kept in the snapshot) and the hand-for-hand
    round of the hand now played, or last played between hands (``hand_round``)."""

    def __init__(self, core: Core, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.holds = snapshot.holds
        self.hand_round: int | None = None

    def snapshot_fields(self) -> dict[str, Any]:
        return {"holds": self.holds}

    @property
    def may_shuffle(self) -> bool:
        return self.holds.may_shuffle

    def refusal(self) -> tuple[str, str] | None:
        """Why a shuffle press is refused now (the dealer's words, the rule), or None."""
        held = self.holds.first()
        return None if held is None else _refusal(*held)

    def dealt(self) -> None:
        """The shuffle deals a hand: a release for one hand of a round is used up by it (PVB
        35a); RULES T2: eliminations in one round count as the same hand for placing."""
        self.hand_round = self.holds.released_round
        self.holds = self.holds.dealt()

    def cmd_hold(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """A hold on the next shuffle, by its source (``args.kind``: break, hand_for_hand,
        floor; without it, what the reason says). Holds stack; the same hold again changes
        nothing (the clock may ask twice)."""
        reason = str(args.get("reason", ""))[:200]
        kind = _hold_kind(args, reason)
        reason = reason or (HAND_FOR_HAND if kind == "hand_for_hand" else kind)
        holds = self.holds.held(kind, reason)
        if holds is None:
            return False
        self.holds = holds
        if kind == "break":
            words, rule = f"after this hand the table waits for the end of the break ({reason})", \
                "PVB 14"
        elif kind == "floor":
            words, rule = f"the floor holds the table after this hand ({reason}, {by})", "DFO"
        elif kind == "upgrade":
            words, rule = (f"after this hand the table waits while its software is upgraded "
                           f"({reason})"), "H1"
        elif kind == "seating":
            words, rule = (f"after this hand the table waits for its new players to take their "
                           f"seats ({reason})"), "PVB 09(3)"
        else:
            words, rule = f"hand-for-hand: after this hand the table waits ({reason})", "PVB 35a"
        self.core._say("hold", words, rule=rule)
        return True

    def cmd_release(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """A hold lifted (``args.kind``; without it every hold: the floor's override, which the
        clock puts back where its break or hand-for-hand still applies). ``one_hand`` with
        ``round``: hand-for-hand releases the table for one hand of that round (PVB 35a), once
        a round; a hold still on (a break) keeps it from dealing until it is lifted."""
        if args.get("one_hand") is True:
            number = args.get("round")
            if number is None:  # (a console's release: the round after the last one played)
                number = (self.hand_round or 0) + 1
            if type(number) is not int or number < 1:
                raise Refused("release for one hand: args.round is the hand-for-hand round, "
                              "from 1", "PVB 35a")
            holds = self.holds.released(number, self.hand_round)
            if holds is None:
                return False
            self.holds = holds
            after = f" once the {self.holds.summary()} is over" if holds.reasons else ""
            self.core._say("hold", f"hand-for-hand round {number}: the table plays one "
                           f"hand{after}, then waits again", rule="PVB 35a")
            return True
        kind = _hold_kind(args, None) if "kind" in args else None
        holds = self.holds.lifted(kind)
        if holds is None:
            return False  # nothing to release
        self.holds = holds
        if holds.reasons:
            self.core._say("hold", f"still held: {holds.summary()}", rule=_rule(holds))
        else:
            self.core._say("hold", "the table may shuffle the next hand",
                           rule=_rule(TableHolds(reasons={kind: ""})) if kind else "DFO")
        return True


def _hold_kind(args: dict[str, Any], reason: str | None) -> HoldKind:
    kind = args.get("kind")
    if kind is None and reason is not None:
        return kind_of(reason)
    if kind not in HOLD_KINDS:
        raise Refused(f"args.kind is one of {', '.join(HOLD_KINDS)}, not {kind!r}", "DFO")
    assert isinstance(kind, str)
    return cast(HoldKind, kind)


def _rule(holds: TableHolds) -> str:
    first = holds.first()
    kind = first[0] if first else "floor"
    return {"break": "PVB 14", "hand_for_hand": "PVB 35a", "floor": "DFO", "upgrade": "H1",
            "seating": "PVB 09(3)"}[kind]


def _refusal(kind: HoldKind, reason: str) -> tuple[str, str]:
    """A shuffle press a hold refuses, in the dealer's words, with the rule."""
    if kind == "break":  # the clock's break: play resumes with the clock
        return (f"the tournament is on a break: no hand until the clock resumes play "
                f"({reason})", "PVB 14")
    if kind == "floor":
        return f"the floor holds this table: no hand until the floor releases it ({reason})", "DFO"
    if kind == "upgrade":
        return (f"the table's software is being upgraded between hands: press shuffle again "
                f"in a few seconds, when the table is back ({reason})", "H1")
    if kind == "seating":
        return (f"players are on their way to this table: no hand until they have taken their "
                f"seats ({reason})", "PVB 09(3)")
    return (f"hand-for-hand: the table waits for the tournament director before the next hand "
            f"({reason})", "PVB 35a")
