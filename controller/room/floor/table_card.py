"""What a table's card on the floor's screens says (the room model, model.py, builds it): why
the floor is needed there, worst first, when its player to act has waited too long (RULES C1),
whether the tournament has taken it out of play, and its figures (seats, average stack, hands
per hour). Pure functions of the table's view and the room's clock, tournament and alerts."""

from __future__ import annotations

import collections

from controller.mqtt.messages import ClockState, TournamentState
from controller.room.floor.alerts import RANK, Alert, Reason, Severity
from controller.room.floor.views import TableView
from controller.session.outputs import TableState

# RULES C1 (PVB 21(1)): time may be called after a reasonable wait, about a minute, two when
# all-in. A player who has had the action longer is an alert of its own.
STALL_SECONDS = 60.0
STALL_ALL_IN_SECONDS = 120.0
RATE_WINDOW = 3600.0  # hands per hour: the hands begun within the last hour
RATE_MIN_HANDS = 3  # ... at least this many, for a rate that means something


def idle(tournament: TournamentState | None, view: TableView) -> bool:
    """Nobody will play there: the tournament broke it (or does not use it) and its last
    state seats no one, or the tournament is over. Switched off, it is no alert."""
    if tournament is None or view.state is None:
        return False
    return tournament.winner is not None or out_of_play(tournament, view) is not None


def out_of_play(tournament: TournamentState | None, view: TableView) -> str | None:
    """"broken" or "not in use" when the tournament says so of the table and its last
    state seats no one (a broken table's players may not have moved yet)."""
    if tournament is None or view.state is None or view.state.seats:
        return None
    lines = (tournament.model_extra or {}).get("tables")
    status = next((line.get("status") for line in lines or [] if isinstance(line, dict)
                   and line.get("table") == view.table), None)
    return status if status in ("broken", "not in use") else None


def stall_limit(view: TableView, clock: ClockState | None,
                floor_turn: tuple[int, int | None] | None) -> float | None:
    """How long the seat to act may take before time may be called; None when nobody is
    to act, or the wait is none of the player's doing: the table offline, a time call
    already running, the clock paused or on a break, the floor called to the table in this
    turn (``floor_turn``: the turn, hand and actor, in which its dealer called the floor)."""
    state = view.state
    if state is None or view.online is False or state.stage != "betting" or (
            state.actor is None or state.clock is not None):
        return None
    if clock is not None and play_stops(clock):
        return None
    if floor_turn == (state.hand, state.actor):
        return None  # the dealer called the floor in this turn: the floor is there
    seat = state.seats.get(state.actor)
    facing_all_in = any(s.all_in for s in state.seats.values() if s.in_hand) or (
        seat is not None and state.to_call is not None and state.to_call >= seat.stack)
    return STALL_ALL_IN_SECONDS if facing_all_in else STALL_SECONDS


def attention_reasons(view: TableView, alerts: dict[str, Alert],
                      clock: ClockState | None, tournament: TournamentState | None) -> list[Reason]:
    """Why the floor is needed at the table, worst first (its card's reasons)."""
    reasons: list[Reason] = []

    def say(text: str, severity: Severity) -> None:
        reasons.append(Reason(text=text, severity=severity))

    if view.online is False:
        alerted = any(a.table == view.table and a.kind == "offline"
                      for a in alerts.values())
        if upgrading(view) and not alerted:
            say("restarting for its upgrade", "notice")
        elif out_of_play(tournament, view) is not None and not alerted:
            pass  # its card says it is out of play: switched off, nothing for the floor
        elif idle(tournament, view) and not alerted:
            say("offline, nobody playing there", "notice")
        else:
            say("offline", "urgent")
    if clock is not None and view.table in clock.late:
        say(f"holds {round_words(clock)} up, not answering", "urgent")
    state = view.state
    if state is not None:
        if state.floor_called:
            say("the dealer calls the floor", "urgent")
        if state.alerts:
            text = state.alerts[-1]
            say(_headline(text), "urgent" if "fouled deck" in text else "warning")
        if view.stalled and state.actor is not None:
            say(f"seat {state.actor} has not acted: time may be called", "warning")
        if state.clock is not None:
            say(f"time called on seat {state.clock.seat}", "notice")
        shot = state.shot_clock  # the table's own (docs/shot-clock.md): the floor rules
        if shot is not None and shot.out and shot.seat is not None and state.clock is None:
            say(f"seat {shot.seat}: the shot clock ran out, the floor rules on time",
                "warning")
        for device, status in state.devices.items():
            if status != "ok":
                say(f"{device} reader {status}", "warning")
    mine = [a for a in alerts.values() if a.table == view.table]
    if mine:  # the worst open alert in its own words (the newest of the worst)
        # One whose cause has passed (the table back online, the reader back) waits only
        # for its acknowledgement: a notice, never above what is wrong now.
        def severity(alert: Alert) -> Severity:
            return alert.severity if _still_so(alert, view) else "notice"

        top = max(mine, key=lambda a: (RANK[severity(a)], a.at))
        more = f" (+{len(mine) - 1} more)" if len(mine) > 1 else ""
        headline = _headline(top.text)
        if not _still_so(top, view):
            headline = f"was: {headline}; acknowledge it"
        if headline not in [r.text for r in reasons]:
            say(headline + more, severity(top))
        elif more:
            say(f"{len(mine)} open alerts", severity(top))
    return sorted(reasons, key=lambda r: -RANK[r.severity])


def upgrading(view: TableView) -> bool:
    """Its last state held the table for its upgrade: it goes offline to restart (H1)."""
    return view.state is not None and "upgrade" in view.state.holds


def _still_so(alert: Alert, view: TableView) -> bool:
    """Whether what an alert says is still the case: an offline table or a reader that is
    not back; every other alert stands until the floor acknowledges it."""
    if alert.passed_at is not None:
        return False
    if alert.kind == "offline":
        return view.online is False
    if alert.kind == "reader" and view.state is not None:
        return view.state.devices.get(alert_device(alert), "ok") != "ok"
    return True


def alert_device(alert: Alert) -> str:
    """A reader alert's device, from its id ("table:device:cards:when")."""
    return alert.id.split(":")[2] if alert.id.count(":") >= 3 else ""


def card_figures(state: TableState | None, starts: collections.deque[float] | None,
                 now: float) -> dict[str, object]:
    """The table's numbers for its card: seats, the average stack, hands per hour."""
    if state is None:
        return {}
    players = len(state.seats)
    chips = sum(s.stack for s in state.seats.values()) + sum(p.amount for p in state.pots)
    rate = None
    if starts:
        recent = [t for t in starts if now - t <= RATE_WINDOW]
        if len(recent) >= RATE_MIN_HANDS and recent[-1] > recent[0]:
            rate = round((len(recent) - 1) * 3600 / (recent[-1] - recent[0]), 1)
    return {"players": players, "free_seats": max(0, state.seat_count - players),
            "average_stack": chips // players if players else None, "hands_per_hour": rate}


def _headline(text: str) -> str:
    """What a room screen's line says of an alert: a fouled deck first (its text begins with
    the card that fouled it)."""
    return "fouled deck: the hand is void" if "fouled deck" in text else text


def play_stops(clock: ClockState) -> bool:
    """The clock paused or on a break: nobody at the tables is slow meanwhile."""
    return clock.on_break or clock.status in ("paused", "on_break")


def round_words(clock: ClockState) -> str:
    """Before its first round, hand-for-hand waits for the hands in play (none released)."""
    return f"hand-for-hand round {clock.round}" if clock.playing else "hand-for-hand"


def table_number(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)
