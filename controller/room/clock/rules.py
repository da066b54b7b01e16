"""The tournament clock's rules, pure: a structure's schedule, where the clock stands in it, and
what the floor's commands do. Time is passed in (``now``, the clock's own seconds), so the same
state and commands always give the same clock; `ClockService` owns the real time, the journal
and MQTT.

The clock keeps the instant the current level (or break) ends, never a countdown: a clock that
restarts, or a screen that connects late, computes the same time left from the same instant
(docs/design.md, "The room's time and hand boundaries").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.errors import RuleViolation
from controller.room.clock.structure import Slot, Structure, schedule
from controller.session.words import blinds_text

Status = Literal["not_started", "running", "paused", "on_break", "finished"]
CLOCK_COMMANDS = frozenset({"start", "pause", "resume", "add_time", "remove_time", "set_level",
                            "hand_for_hand", "release_table"})


class ClockRefused(RuleViolation):
    """A floor command the clock will not carry out, with the reason in the floor's words."""


class ClockPosition(BaseModel):
    """Where the clock stands: everything a restart needs (stored after every change)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: Status = "not_started"
    slot: int = Field(default=0, ge=0, description="Index into the schedule")
    ends_at: float | None = Field(default=None, description="Clock time the slot ends (running)")
    remaining: float | None = Field(default=None, description="Seconds left (paused)")
    paused_on_break: bool = False
    hand_for_hand: bool = False
    round: int = Field(default=0, ge=0, description="Hand-for-hand: the last round released "
                       "(numbered on across the tournament, so that a round is never taken for "
                       "an earlier one; RULES T2 counts by it)")
    waiting: list[str] = Field(default_factory=list, description="Hand-for-hand: the tables "
                               "the round still waits for")
    playing: list[str] = Field(default_factory=list, description="Hand-for-hand: the tables "
                               "released for one hand of this round; none while the hands in "
                               "play when hand-for-hand began finish")


class Clock:
    def __init__(self, structure: Structure, position: ClockPosition | None = None) -> None:
        self.structure = structure
        self.slots: list[Slot] = schedule(structure)
        self.position = position or ClockPosition()

    # ---------------------------------------------------------------- reading

    @property
    def slot(self) -> Slot:
        return self.slots[min(self.position.slot, len(self.slots) - 1)]

    def level_slot(self) -> Slot:
        """The level in force, or during a break the level that follows it (it applies from
        the first hand after the break, RULES H2)."""
        for slot in self.slots[self.position.slot:]:
            if slot.kind == "level":
                return slot
        return next(s for s in reversed(self.slots) if s.kind == "level")

    def remaining(self, now: float) -> float | None:
        p = self.position
        if p.status in ("running", "on_break") and p.ends_at is not None:
            return max(0.0, p.ends_at - now)
        return p.remaining

    def next_level(self) -> Slot | None:
        current = self.level_slot()
        return next((s for s in self.slots if s.kind == "level" and s.level == current.level + 1),
                    None)

    def next_break(self) -> Slot | None:
        return next((s for s in self.slots[self.position.slot + 1:] if s.kind == "break"), None)

    # ---------------------------------------------------------------- time

    def advance(self, now: float) -> bool:
        """Move on past every level or break whose end instant has come; each next one ends
        its own length after the last one's end, not after ``now``, so a late tick loses no
        time. Returns whether anything changed."""
        changed = False
        p = self.position
        while p.status in ("running", "on_break") and p.ends_at is not None and now >= p.ends_at:
            ended = p.ends_at
            following = p.slot + 1
            if following >= len(self.slots):
                p = p.model_copy(update={"status": "finished", "slot": len(self.slots) - 1,
                                         "ends_at": None, "remaining": None})
            else:
                slot = self.slots[following]
                p = p.model_copy(update={
                    "slot": following, "ends_at": ended + (slot.end - slot.start),
                    "status": "on_break" if slot.kind == "break" else "running"})
            changed = True
        self.position = p
        return changed

    # ---------------------------------------------------------------- the floor's commands

    def command(self, name: str, args: dict[str, Any], now: float) -> str:
        """Carry out a floor command; returns what it did in the floor's words, or raises
        `ClockRefused` and changes nothing."""
        if name not in CLOCK_COMMANDS:
            raise ClockRefused(f"unknown clock command {name!r}; the clock knows: "
                               f"{', '.join(sorted(CLOCK_COMMANDS))}", "PVB 14")
        self.advance(now)
        return self._handlers()[name](args, now)

    def _handlers(self) -> dict[str, Callable[[dict[str, Any], float], str]]:
        """Each floor command's handler, by name (CLOCK_COMMANDS; a test checks they agree)."""
        return {"start": self._cmd_start, "pause": self._cmd_pause, "resume": self._cmd_resume,
                "add_time": self._cmd_add_time, "remove_time": self._cmd_remove_time,
                "set_level": self._cmd_set_level, "hand_for_hand": self._cmd_hand_for_hand,
                "release_table": self._cmd_release_table}

    def _cmd_start(self, args: dict[str, Any], now: float) -> str:
        if self.position.status != "not_started":
            raise ClockRefused("the clock has started already", "PVB 14")
        first = self.slots[0]
        # (hand-for-hand may be on before the start: its round goes on as it was)
        self.position = self.position.model_copy(update={
            "status": "running", "slot": 0, "ends_at": now + (first.end - first.start),
            "remaining": None, "paused_on_break": False})
        return f"the clock runs: level 1, {blinds_text(first)}"

    def _cmd_pause(self, args: dict[str, Any], now: float) -> str:
        p = self.position
        if p.status not in ("running", "on_break"):
            raise ClockRefused(f"the clock is not running ({_words(p.status)})", "PVB 14")
        self.position = p.model_copy(update={
            "status": "paused", "remaining": self.remaining(now), "ends_at": None,
            "paused_on_break": p.status == "on_break"})
        return f"the clock is paused with {_minutes(self.position.remaining)} left"

    def _cmd_resume(self, args: dict[str, Any], now: float) -> str:
        p = self.position
        if p.status != "paused" or p.remaining is None:
            raise ClockRefused(f"the clock is not paused ({_words(p.status)})", "PVB 14")
        self.position = p.model_copy(update={
            "status": "on_break" if p.paused_on_break else "running",
            "ends_at": now + p.remaining, "remaining": None, "paused_on_break": False})
        return f"the clock runs again with {_minutes(p.remaining)} left"

    def _cmd_add_time(self, args: dict[str, Any], now: float) -> str:
        return self._shift(_seconds(args), now)

    def _cmd_remove_time(self, args: dict[str, Any], now: float) -> str:
        return self._shift(-_seconds(args), now)

    def _shift(self, seconds: float, now: float) -> str:
        p = self.position
        if p.status in ("running", "on_break") and p.ends_at is not None:
            self.position = p.model_copy(update={"ends_at": max(now, p.ends_at + seconds)})
        elif p.status == "paused" and p.remaining is not None:
            self.position = p.model_copy(update={"remaining": max(0.0, p.remaining + seconds)})
        else:
            raise ClockRefused(f"no level is running ({_words(p.status)})", "PVB 14")
        self.advance(now)
        return f"{_minutes(abs(seconds))} {'added' if seconds >= 0 else 'taken off'}; " \
            f"{_minutes(self.remaining(now))} left"

    def _cmd_set_level(self, args: dict[str, Any], now: float) -> str:
        level = args.get("level")
        levels = [s for s in self.slots if s.kind == "level"]
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= len(levels):
            raise ClockRefused(f"set_level: args.level is a level from 1 to {len(levels)}",
                               "PVB 14")
        index = next(k for k, s in enumerate(self.slots) if s.kind == "level" and s.level == level)
        slot = self.slots[index]
        length = slot.end - slot.start
        p = self.position
        if p.status == "paused":
            self.position = p.model_copy(update={"slot": index, "remaining": length,
                                                 "paused_on_break": False})
        else:
            self.position = p.model_copy(update={"status": "running", "slot": index,
                                                 "ends_at": now + length, "remaining": None})
        return f"level {level} ({blinds_text(slot)}) from the next hand; {_minutes(length)} on it"

    def _cmd_hand_for_hand(self, args: dict[str, Any], now: float) -> str:
        on = args.get("on")
        if not isinstance(on, bool):
            raise ClockRefused("hand_for_hand: args.on is true or false", "PVB 35a")
        if on == self.position.hand_for_hand:
            raise ClockRefused(f"hand-for-hand is {'on' if on else 'off'} already", "PVB 35a")
        self.position = self.position.model_copy(update={
            "hand_for_hand": on, "waiting": [], "playing": []})
        return ("hand-for-hand is on: every table waits after its hand" if on
                else "hand-for-hand is over: every table plays on")

    def _cmd_release_table(self, args: dict[str, Any], now: float) -> str:
        """The round goes on without a table (offline, or stuck): the floor's decision."""
        table = args.get("table")
        if not self.position.hand_for_hand:
            raise ClockRefused("hand-for-hand is not on", "PVB 35a")
        if not isinstance(table, str) or table not in self.position.waiting:
            raise ClockRefused(f"{self.round_words()} does not wait for table "
                               f"{table!r} (it waits for: "
                               f"{', '.join(self.position.waiting) or 'none'})", "PVB 35a")
        self.position = self.position.model_copy(update={
            "waiting": [t for t in self.position.waiting if t != table],
            "playing": [t for t in self.position.playing if t != table]})
        if not self.position.playing:
            return (f"hand-for-hand goes on without table {table}'s hand in play; it joins a "
                    "later round")
        return (f"round {self.position.round} goes on without table {table}; it joins a later "
                "round when it is back")

    def finished_table(self, table: str) -> bool:
        """A table finished its hand of the round; True if that completes the round."""
        p = self.position
        if not p.hand_for_hand or table not in p.waiting:
            return False
        self.position = p.model_copy(update={"waiting": [t for t in p.waiting if t != table]})
        return not self.position.waiting

    def round_words(self) -> str:
        p = self.position
        return f"round {p.round}" if p.playing else "hand-for-hand (the hands in play)"

    def begin_hand_for_hand(self, tables: list[str]) -> None:
        """Hand-for-hand just switched on: before its first round it waits for the hands
        these tables are playing (those between hands have finished theirs)."""
        self.position = self.position.model_copy(update={"waiting": sorted(tables)})

    def next_round(self, tables: list[str]) -> None:
        """Every table finished: the next round releases these, and waits for them."""
        p = self.position
        self.position = p.model_copy(update={"round": p.round + 1, "waiting": sorted(tables),
                                             "playing": sorted(tables)})


def _seconds(args: dict[str, Any]) -> float:
    seconds = args.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not (
            0 < seconds <= 24 * 3600):
        raise ClockRefused("args.seconds is a number of seconds, more than 0, at most a day",
                           "PVB 14")
    return float(seconds)


def _minutes(seconds: float | None) -> str:
    seconds = seconds or 0.0
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _words(status: Status) -> str:
    return status.replace("_", " ")


__all__ = ["CLOCK_COMMANDS", "Clock", "ClockPosition", "ClockRefused", "Status"]
