"""What calls the floor, how badly, and what to do: the floor's alerts with their severity and
the step the floor takes, in the floor's words. Pure: the room model raises them.

Severity ranks the room's attention strip and the alerts screen:

- **urgent**: play cannot go on rightly until the floor is there: a fouled deck, a table or the
  clock offline, the dealer calling the floor, a table holding a hand-for-hand round up;
- **warning**: the floor must look soon: any other irregularity (a pot that does not count up,
  chips out of turn), a misdeal or void, a player who has not acted for longer than the time
  rules allow, a reader or the recorder gone;
- **notice**: the floor already acts: time called on a seat.

The tournament's alerts (``tournament/state`` carries its latest) join them, each under its
table ("tournament" when it names none): a chip count that does not add up is urgent (the floor
counts the table before play goes on, RULES T5, T6); the rest are warnings.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.mqtt.messages import EventMessage

Severity = Literal["urgent", "warning", "notice"]
RANK: dict[str, int] = {"urgent": 3, "warning": 2, "notice": 1}

# What makes an alert (RULES: the floor is called for irregularities, DFO): the table's durable
# alerts, a misdeal or void, a time call, a table or reader that went offline, a hand-for-hand
# round held up, a player who has not acted for longer than the time rules allow.
# The tournament's: its chip count ("chips"), and the rest of what it tells the floor.
AlertKind = Literal["irregularity", "misdeal", "time", "offline", "reader", "floor", "round",
                    "stalled", "chips", "tournament"]


class Alert(BaseModel):
    """Something the floor must see; it stays on the list until a floor login acknowledges it."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Unique on the floor: on a floor following several venues, "
                    "the venue's name and a slash before the venue's own id")
    table: str = Field(description="A table's id, or 'clock', 'recorder', 'bridge', "
                       "'tournament' or 'cash'")
    venue: str | None = Field(default=None, description="Whose venue, on a floor following "
                              "several (a league's); None on a venue's own floor")
    hand: int
    kind: AlertKind
    text: str = Field(description="What happened, without the table's name (the screens group "
                      "alerts by table)")
    rule: str | None = None
    at: float = Field(description="Server time it was raised")
    severity: Severity = Field(default="warning", description="As it is now: a notice once "
                               "its cause has passed")
    todo: str | None = Field(default=None, description="What the floor does, in its words")
    acknowledged_by: str | None = None
    acknowledged_at: float | None = None
    passed_at: float | None = Field(default=None, description="When what it says passed (the "
                                    "table, the clock, the recorder, the link or the reader "
                                    "back): it then waits only for its acknowledgement")


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
TODO_CASH = ("restart the cash floor on the host (systemctl restart pokertable-cash); it keeps "
             "the waiting lists and calls. Until then keep the lists on paper")
TODO_FOULED = ("replace the deck before the next hand; the hand is void and every bet goes back "
               "(PVB 33)")
TODO_IRREGULAR = "go to the table and rule on it"
TODO_RABBIT = ("nothing to rule: the table kept the card out of the hand; remind the dealer that "
               "no card is turned once a hand is decided (PVB 22)")
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
TODO_CHIPS = ("stop the table between hands and count every stack; correct a wrong read at the "
              "table, and compare with the chip count on the tournament page (RULES T5, T6)")
TODO_VOID = ("give the player their money back at the desk; the chips never reached their stack "
             "and leave the prize pool")
TODO_STRANGER = ("go to the table: a player who is not in the tournament leaves the seat; one "
                 "who went out by mistake is taken back on the tournament page (PVB 13)")
TODO_TAKEN_BACK = ("check the table's hand: the player keeps their seat and chips; the "
                   "standings no longer count them out (PVB 64)")
TODO_TOURNAMENT = "check the table and the tournament page"


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
        elif event.rule == "PVB 22" and event.text.startswith("no rabbit hunting"):
            kind = "irregularity"  # (the table already refused the card: a notice)
            severity, todo = "notice", TODO_RABBIT
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


class TournamentAlert(BaseModel):
    """An alert in ``tournament/state`` as the floor reads it (fields it does not know are
    ignored: the tournament may say more)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: int
    at: float
    text: str = Field(max_length=2000)
    rule: str | None = Field(default=None, max_length=40)
    table: str | None = Field(default=None, max_length=40)
    hand: int | None = None


# What the text says before the words the screens show under the table's name
_WHERE = re.compile(r"^table (?P<table>[^,:]{1,40})(?:, hand (?P<hand>\d+))?[:,] ")


def tournament_alert_id(alert: TournamentAlert) -> str:
    """Its id on the floor: the tournament's own number with the time it was raised (a new
    tournament counts from 1 again). The tournament page finds it by the same."""
    return f"tournament:{int(alert.at * 1000)}:{alert.id}"


def tournament_alerts(raw: Any) -> list[TournamentAlert]:
    """The alerts of a ``tournament/state``'s ``alerts`` field; one the floor cannot read is
    left out (the tournament page still lists it)."""
    found = []
    for item in raw if isinstance(raw, list) else []:
        try:
            found.append(TournamentAlert.model_validate(item))
        except ValidationError:
            continue
    return found


def tournament_alert(alert: TournamentAlert) -> Alert:
    """The floor's alert for one of the tournament's, in the floor's words."""
    text = alert.text
    where = _WHERE.match(text)
    if where is not None and where["table"] == alert.table:
        text = text[where.end():]  # the screens name the table (and the hand) already
    rule = alert.rule or ""
    severity: Severity = "warning"
    kind: AlertKind = "tournament"
    if rule in ("RULES T5", "RULES T6") and "count the table" in alert.text:  # (chip_count)
        kind, severity, todo = "chips", "urgent", TODO_CHIPS
    elif "void" in alert.text and "went out before the chips" in alert.text:
        todo = TODO_VOID if " back" in alert.text else TODO_TOURNAMENT
    elif rule == "PVB 13":
        todo = TODO_STRANGER
    elif "taken back" in alert.text:
        todo = TODO_TAKEN_BACK
    else:
        todo = TODO_TOURNAMENT
    return Alert(id=tournament_alert_id(alert), table=alert.table or "tournament",
                 hand=alert.hand or 0, kind=kind, text=text, rule=alert.rule, at=alert.at,
                 severity=severity, todo=todo)


def worst(severities: list[Severity]) -> Severity | None:
    found: Severity | None = None
    for severity in severities:
        if found is None or RANK[severity] > RANK[found]:
            found = severity
    return found


__all__ = ["RANK", "Alert", "AlertKind", "Reason", "Severity", "TournamentAlert", "event_alert",
           "tournament_alert", "tournament_alert_id", "tournament_alerts", "worst"]
