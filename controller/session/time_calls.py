"""Time calls (RULES C1, C2: PVB 21, 56(4)) and penalties (RULES T4: PVB 69(12)).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from controller.engine.hand import Hand, Stage
from controller.engine.records import Irregularity
from controller.engine.table_play import KillHand
from controller.events import CommandEvent, TickEvent
from controller.session.model import Refused, SessionSnapshot, TimeCall
from controller.session.parts import Core

# PVB 69(9)(b)(c) penalises by hands or orbits; the book's time penalty is at most 50 minutes
# (69(9)(e)), about four orbits at a full table. Beyond that the book's answers are elimination
# or disqualification (69(9)(g)(h)), which are not a count of hands.
MAX_PENALTY_HANDS = 40


class TimeCore(Core, Protocol):
    """What time calls and penalties read of the core beyond every part's view."""

    @property
    def absent(self) -> set[int]: ...

    def _contenders(self, hand: Hand) -> list[int]: ...

    def _after_step(self) -> None: ...


class TimeCalls:
    """Time called on a player (RULES C1, C2) and penalties served (RULES T4). Its own state:
    the hands each player has still to serve (``penalties``, kept in the snapshot); the clock
    that runs is the hand's (`HandTrack.clock`), replayed with it."""

    def __init__(self, core: TimeCore, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.penalties = dict(snapshot.penalties)  # player id -> hands; they follow the player

    def snapshot_fields(self) -> dict[str, Any]:
        return {"penalties": dict(self.penalties)}

    def leaves(self, player: str) -> int:
        """A player leaves the table: the hands he has still to serve go with him (PVB
        69(13)): how many."""
        return self.penalties.pop(player, 0)

    def served_nothing(self, players: list[str]) -> None:
        """A void hand is dealt again: the penalty hands it served count for nothing."""
        for player in players:
            self.penalties[player] = self.penalties.get(player, 0) + 1

    # ---------------------------------------------------------------- time and penalties

    def cmd_time(self, args: dict[str, Any], by: str, event: CommandEvent) -> bool:
        """RULES C1: the floor calls the clock on the player to act: one minute, the last ten
        seconds counted down, then the hand is dead (PVB 21(4)). At showdown, C2: a player who
        will not show gets a five-second count (PVB 56(4))."""
        hand = self.core._hand()
        track = self.core.track
        if hand is None or track is None:
            raise Refused("time: no hand is running", "PVB 21")
        if hand.stage is Stage.BETTING:
            actor = self.core.table.actor_seat()
            if actor is None:
                raise Refused("time: nobody is to act", "PVB 21")
            seat = self.core._seat_arg(args, "time") if "seat" in args else actor
            if seat != actor:
                raise Refused(f"time is called on the player to act, seat {actor}", "PVB 21(1)")
            if seat in self.core.absent:
                raise Refused(f"seat {seat} is not at the seat", "PVB 21(2)")
            call = TimeCall(seat=seat, seconds=60, rule="PVB 21(4)")
        elif hand.stage is Stage.SHOWDOWN:
            seat = self.core._seat_arg(args, "time")
            index = self.core._seat_index(seat)
            if seat not in self.core._contenders(hand) or index is None or hand.shown[index]:
                raise Refused(f"seat {seat} has no hand left to show", "PVB 56(4)")
            call = TimeCall(seat=seat, seconds=5, rule="PVB 56(4)")
        else:
            raise Refused("time is called when a player must act or show", "PVB 21")
        if track.clock is not None and track.clock.seat == call.seat:
            return False
        call.started = event.ts
        track.clock = call
        what = "to act" if call.seconds == 60 else "to show"
        self.core._say("clock", f"time on seat {call.seat} (by {by}): {call.seconds} seconds "
                       f"{what}", rule=call.rule, seat=call.seat, seconds=call.seconds)
        return True

    def wants_ticks(self) -> bool:
        """Whether a clock runs: the service then feeds ``tick`` events (and only then, so the
        journal holds no idle ticks)."""
        return self.core.track is not None and self.core.track.clock is not None and \
            self.core._hand() is not None

    def tick(self, event: TickEvent) -> bool:
        track = self.core.track
        hand = self.core._hand()
        if track is None or hand is None or track.clock is None:
            return False
        call = track.clock
        if not self._clock_still_runs(hand, call):
            track.clock = None
            return True
        if call.started is None:
            call.started = event.now
        remaining = max(0, math.ceil(call.seconds - (event.now - call.started)))
        if remaining == call.remaining:
            return False
        call.remaining = remaining
        if remaining > 10 and call.seconds > 10:
            return True  # the state shows the count; the last ten are called out
        if remaining > 0:
            self.core._say("clock", f"seat {call.seat}: {remaining}", rule=call.rule,
                           seat=call.seat, remaining=remaining)
            return True
        track.clock = None
        if hand.stage is Stage.SHOWDOWN:
            text = f"seat {call.seat} did not show in time: the hand is dead"
        else:
            text = f"seat {call.seat}'s time ran out: the hand is dead"
        self.core.table.apply(KillHand(seat=call.seat))
        self.core._irregular(call.rule, text, seat=call.seat)
        self.core._after_step()
        return True

    def _clock_still_runs(self, hand: Hand, call: TimeCall) -> bool:
        index = self.core._seat_index(call.seat)
        if index is None or hand.folded[index] or hand.mucked[index]:
            return False
        if call.seconds == 60:
            return hand.stage is Stage.BETTING and self.core.table.actor_seat() == call.seat
        return hand.stage is Stage.SHOWDOWN and not hand.shown[index]

    def cmd_penalty(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """RULES T4: a missed-hand or orbit penalty (PVB 69(12)): the player is dealt in and the
        hand killed, the blinds are taken; an orbit is as many hands as players at the table.
        The count belongs to the player, not the seat (PVB 69(13))."""
        seat = self.core._seat_arg(args, "penalty")
        player = self.core.table.seats.get(seat)
        if player is None:
            raise Refused(f"seat {seat} is empty", "PVB 69(12)")
        hands, orbits = _positive(args.get("hands")), _positive(args.get("orbits"))
        if (hands is None) == (orbits is None) or set(args) - {"seat", "hands", "orbits", "reason"}:
            raise Refused("penalty: args.seat and either args.hands or args.orbits (a positive "
                          "number)", "PVB 69(12)")
        count = hands if hands is not None else (orbits or 0) * len(self.core.table.seats)
        if count > MAX_PENALTY_HANDS:
            raise Refused(f"penalty: {count} hands is more than a tournament penalty can be "
                          f"(at most {MAX_PENALTY_HANDS}, four orbits at a full table); for more, "
                          "the book has elimination or disqualification", "PVB 69(9)")
        total = self.penalties.get(player.player, 0) + count
        self.penalties[player.player] = total
        what = f"{orbits} orbit(s), {count} hands" if orbits else f"{count} hand(s)"
        text = (f"seat {seat} ({player.player}): penalty of {what}; {total} to serve, dealt in "
                "and killed (floor decision by " + by + ")")
        if self.core.track is not None:
            self.core.track.irregularities.append(Irregularity(rule="PVB 69(12)", text=text,
                                                               seat=seat, by=by))
        self.core._say("decision", text, rule="PVB 69(12)", seat=seat, hands=total)
        return True

    def serve(self) -> None:
        """At the shuffle: every dealt-in player with a penalty is dealt in and his hand killed;
        his blinds stay (PVB 69(12)(a)). All-in from the blinds, he plays for the main pot
        without acting (PVB 69(12)(b))."""
        track = self.core.track
        hand = self.core.table.hand
        p = self.core.table.positions
        assert track is not None and hand is not None and p is not None
        for k, seat in enumerate(p.dealt):
            player = self.core.table.seats[seat].player
            left = self.penalties.get(player, 0)
            if not left or hand.stage is Stage.OVER:
                continue
            left -= 1
            if left:
                self.penalties[player] = left
            else:
                del self.penalties[player]
            track.penalized.append(seat)
            if hand.all_in[k]:
                self.core._irregular("PVB 69(12)(b)", f"seat {seat} serves a penalty but is all-in "
                                     "from the blinds: the hand plays for the main pot, no action",
                                     seat=seat)
                continue
            self.core.table.apply(KillHand(seat=seat))
            self.core._irregular("PVB 69(12)", f"seat {seat} serves a penalty: dealt in, the hand "
                                 f"is dead, the blinds stay; {left} more hand(s)", seat=seat)
        self.core._after_step()


def _positive(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
