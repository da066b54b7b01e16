"""What calls the floor, how badly, and what to do: the floor's alerts with their severity and
the step the floor takes, in the floor's words. Pure: the room model raises them.

Severity ranks the room's attention strip and the alerts screen:

- **urgent**: play cannot go on rightly until the floor is there: a fouled deck, a table or the
  clock offline, the dealer calling the floor, a table holding a hand-for-hand round up;
- **warning**: the floor must look soon: any other irregularity (a pot that does not count up,
  chips out of turn), a misdeal or void, a player who has not acted for longer than the time
  rules allow, a reader or the recorder gone;
- **notice**: the floor already acts: time called on a seat.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.messages import EventMessage

Severity = Literal["urgent", "warning", "notice"]
RANK: dict[str, int] = {"urgent": 3, "warning": 2, "notice": 1}

# What makes an alert (RULES: the floor is called for irregularities, DFO): the table's durable
# alerts, a misdeal or void, a time call, a table or reader that went offline, a hand-for-hand
# round held up, a player who has not acted for longer than the time rules allow.
AlertKind = Literal["irregularity", "misdeal", "time", "offline", "reader", "floor", "round",
                    "stalled"]


class Alert(BaseModel):
    """Something the floor must see; it stays on the list until a floor login acknowledges it."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Unique on the floor: on a floor following several venues, "
                    "the venue's name and a slash before the venue's own id")
    table: str = Field(description="A table's id, or 'clock', 'recorder' or 'bridge'")
    venue: str | None = Field(default=None, description="Whose venue, on a floor following "
                              "several (a league's); None on a venue's own floor")
    hand: int
    kind: AlertKind
    text: str = Field(description="What happened, without the table's name (the screens group "
                      "alerts by table)")
    rule: str | None = None
    at: float = Field(description="Server time it was raised")
    severity: Severity = "warning"
    todo: str | None = Field(default=None, description="What the floor does, in its words")
    acknowledged_by: str | None = None
    acknowledged_at: float | None = None


class Reason(BaseModel):
    """Why a table needs the floor now (its card and the attention strip)."""

    model_config = ConfigDict(frozen=True)

    text: str
    severity: Severity


# ------------------------------------------------------------------------ what to do

TODO_OFFLINE = ("go to the table: check its Pi's power and network; it takes up its hand from "
                "its journal when it is back")
TODO_CLOCK = ("restart the clock on the host (systemctl restart pokertable-clock); until then "
              "announce the levels yourself")
TODO_RECORDER = ("restart the recorder on the host (systemctl restart pokertable-recorder); the "
                 "tables keep every hand until it is back")
TODO_FOULED = ("replace the deck before the next hand; the hand is void and every bet goes back "
               "(PVB 33)")
TODO_IRREGULAR = "go to the table and rule on it"
TODO_FLOOR = "go to the table: the dealer asks for a ruling"
TODO_MISDEAL = "check the redeal: the same button deals again"
TODO_TIME = ("the player has one minute, the last ten seconds counted down; then the hand is "
             "dead (PVB 21(4))")
TODO_READER = "check the reader's cable and power at the table"
TODO_ROUND = "go to the table, or let the round go on without it from the room screen (PVB 35a)"
TODO_BRIDGE = ("check the venue's broker and its link to the league (its bridge reconnects by "
               "itself); the venue's own floor sees its tables, which keep every hand")
TODO_STALLED = ("ask the dealer; call time on the seat from the table's screen if the wait is "
                "not reasonable (PVB 21)")


def event_alert(table: str, message: EventMessage, now: float) -> Alert | None:
    """The alert a table's public event raises, if any."""
    event = message.event
    key = message.id or f"{table}:{event.hand}:{event.kind}:{message.sent:.3f}"
    severity: Severity = "warning"
    if event.kind == "alert":
        if event.rule == "DFO":
            kind: AlertKind = "floor"
            severity, todo = "urgent", TODO_FLOOR
        elif "fouled deck" in event.text:
            kind = "irregularity"
            severity, todo = "urgent", TODO_FOULED
        else:
            kind, todo = "irregularity", TODO_IRREGULAR
    elif event.kind == "hand_over" and event.data.get("status") in ("misdeal", "void"):
        kind, todo = "misdeal", TODO_MISDEAL
    elif event.kind == "clock" and event.text.startswith("time on seat"):
        kind = "time"
        severity, todo = "notice", TODO_TIME
    else:
        return None
    return Alert(id=key, table=table, hand=event.hand, kind=kind, rule=event.rule,
                 text=event.text, at=now, severity=severity, todo=todo)


def worst(severities: list[Severity]) -> Severity | None:
    found: Severity | None = None
    for severity in severities:
        if found is None or RANK[severity] > RANK[found]:
            found = severity
    return found


__all__ = ["RANK", "Alert", "AlertKind", "Reason", "Severity", "event_alert", "worst"]
