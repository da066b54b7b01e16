"""The shot clock the table runs itself (docs/shot-clock.md): a player's time starts when the
action reaches him and stops when his chips or cards show his action; when it is gone a time
extension is used by itself, and when those are gone too the dealer and the floor are told.
Nothing is folded: calling time stays the floor's decision (RULES C1, PVB 21).

Pure, like the rest of the session: time comes only from the events (their ``ts``, a tick's
``now``), so a table replaying its journal after a restart has the same clock. The table
service dates every event with its own clock where a shot clock runs, and sends a tick when
`shot_clock_due` says a player's time or extension ends (only then: no idle ticks journaled).
"""

from __future__ import annotations

from typing import Any, Literal

from controller.engine.hand import Hand, Stage
from controller.engine.records import HandRecord
from controller.events import TableEvent, TickEvent
from controller.session.model import BETTING_KINDS, HandTrack, SessionSnapshot
from controller.session.outputs import ShotClockView
from controller.session.parts import Core
from controller.session.shot_settings import ShotBank, ShotClockConfig, ShotHand, ShotTurn

RULE = "PVB 21(1)"  # time may be called on a player who takes too long: the floor's call


class ShotClock:
    """The shot clock's part of the session. Off (no state, no event, no field) unless the
    table's configuration has one. Its own state: each player's time extensions (``banks``,
    kept in the snapshot) and the time of the event being applied; the turn that runs is the
    hand's (`HandTrack.shot`), replayed with it."""

    def __init__(self, core: Core, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.banks = dict(snapshot.shot_banks)  # extensions follow the player, not the seat
        self.now: float | None = None

    def snapshot_fields(self) -> dict[str, Any]:
        return {"shot_banks": dict(self.banks)} if self.banks else {}

    # ---------------------------------------------------------------- the hooks

    def before(self, event: TableEvent) -> bool:
        """Before an event is applied: the time it carries, and whatever ran out by then (an
        action at that instant comes after it). Whether that changed anything."""
        self.now = None
        shot = self._shot()
        if shot is None:
            return False
        now = event.now if isinstance(event, TickEvent) else event.ts
        if now is None or (shot.now is not None and now < shot.now):
            now = shot.now  # no time, or an earlier one: the clock never goes back
        self.now = now
        turn = shot.turn
        if turn is None or now is None or self.core._hand() is None:
            return False
        return self._run(turn, now)

    def after(self, changed: bool) -> bool:
        """After an event: the turn that ended (his action is in the hand's log), the one that
        began, a pause while the dealer confirms what the chips or words show. Whether that
        changed anything."""
        config = self.core.config.shot_clock
        shot = self._shot()
        if config is None or shot is None:
            return False
        now = self.now
        mine = False
        if not shot.banked and self.core.table.hand is not None:
            shot.banked = True
            self._top_up(config)
            mine = True
        due = self._due_seat()
        turn = shot.turn
        if turn is not None:
            if self._close():
                mine = True
            elif due != turn.seat:  # voided, killed, or the floor moved the action on
                shot.turn = None
                mine = True
            else:
                mine = self._pause(turn, now) or mine
        if shot.turn is None and due is not None:
            player = self.core.table.seats[due].player
            hand = self.core.table.hand
            assert hand is not None
            shot.turn = ShotTurn(seat=due, player=player, log_at=len(hand.log), started=now,
                                 since=now, left=float(config.seconds))
            mine = True
        if (changed or mine) and now is not None:
            shot.now = now
        return mine

    def record(self, record: HandRecord) -> HandRecord:
        """The finished hand's record with each timed action's seconds and extensions."""
        shot = self._shot()
        if shot is None:
            return record
        self._close()
        if not shot.times:
            return record
        actions = list(record.actions)
        for k, (seconds, extensions) in shot.times.items():
            if k < len(actions):
                actions[k] = actions[k].model_copy(update={"time_used": seconds,
                                                           "extensions_used": extensions})
        return record.model_copy(update={"actions": actions})

    def due(self) -> float | None:
        """When the service must send a tick (the table's time): the end of the running base
        time or extension; 0 when a turn waits for its first time; None otherwise."""
        shot = self._shot()
        turn = shot.turn if shot is not None else None
        if turn is None or turn.paused or turn.out or self.core._hand() is None:
            return None
        return 0.0 if turn.since is None else turn.since + turn.left

    # ---------------------------------------------------------------- the clock

    def _shot(self) -> ShotHand | None:
        track: HandTrack | None = self.core.track
        if self.core.config.shot_clock is None or track is None:
            return None
        return track.shot

    def _due_seat(self) -> int | None:
        """The seat whose clock runs: the seat to act, once he holds his cards (before the
        flop: every seat's cards read, or somebody acted already)."""
        hand = self.core._hand()
        track = self.core.track
        if hand is None or track is None or hand.stage is not Stage.BETTING:
            return None
        actor = self.core.table.actor_seat()
        if actor is None or (hand.street == 0 and not _cards_out(hand, track)):
            return None
        return actor

    def _run(self, turn: ShotTurn, now: float) -> bool:
        """Whatever ran out by ``now``: a base time or an extension ends, the next extension
        starts at that very instant (not at the tick's), or the dealer is told."""
        config = self.core.config.shot_clock
        assert config is not None
        if turn.since is None:  # the first time known
            turn.started = turn.since = now
            return True
        changed = False
        while not turn.paused and not turn.out and now >= turn.since + turn.left:
            end = turn.since + turn.left
            turn.used += turn.left
            turn.since = end
            bank = self.banks.get(turn.player)
            if bank is not None and bank.extensions > 0:
                left = bank.extensions - 1
                self.banks[turn.player] = bank.model_copy(update={"extensions": left})
                turn.extensions += 1
                turn.left = float(config.extension_seconds)
                self.core._say("clock", f"seat {turn.seat}: time extension {turn.extensions} "
                               f"({config.extension_seconds} seconds); {left} left", seat=turn.seat,
                               shot_clock="extension", extensions=left)
            else:
                turn.left = 0.0
                turn.out = True
                spent = f"{config.seconds} seconds" + (
                    f" and {turn.extensions} extension(s)" if turn.extensions else "")
                self.core._say("alert", f"seat {turn.seat}: the shot clock ran out ({spent}): "
                               "call the floor; nothing is folded, the floor rules on time",
                               rule=RULE, seat=turn.seat, shot_clock="out")
            changed = True
        return changed

    def _pause(self, turn: ShotTurn, now: float | None) -> bool:
        """His chips or words show the action and the dealer is to confirm it: his time
        stops; it counts on if that comes to nothing (the chips taken back)."""
        track = self.core.track
        assert track is not None
        showing = (track.doubt is not None and track.doubt[0] == turn.seat) or (
            turn.seat in track.announced)
        if showing == turn.paused or now is None or turn.since is None:
            return False
        if showing:
            ran = max(0.0, now - turn.since)
            turn.used += ran
            turn.left = max(0.0, turn.left - ran)
        turn.since = now
        turn.paused = showing
        return True

    def _close(self) -> bool:
        """The turn ends when the hand's log has his action: the seconds it took (with its
        extensions) are kept for the record."""
        shot = self._shot()
        hand = self.core.table.hand
        turn = shot.turn if shot is not None else None
        if shot is None or turn is None or hand is None:
            return False
        index = self.core._seat_index(turn.seat)
        acted = next((k for k in range(turn.log_at, len(hand.log))
                      if hand.log[k].player == index and hand.log[k].kind in BETTING_KINDS),
                     None)
        if acted is None:
            return False
        now = self.now
        if turn.since is not None:
            ran = 0.0 if turn.paused or now is None else max(0.0, now - turn.since)
            shot.times[acted] = (round(turn.used + ran, 1), turn.extensions)
        shot.turn = None
        return True

    def _top_up(self, config: ShotClockConfig) -> None:
        """At the start of a hand, each dealt player's extensions for the hand's level: a
        newcomer's first ones; at a new level refilled, added to or kept, as configured."""
        track = self.core.track
        assert track is not None
        level = self.core.table.hand_level.level
        topped = []
        for seat in track.dealt:
            player = self.core.table.seats[seat].player
            bank = self.banks.get(player)
            if bank is None:
                self.banks[player] = ShotBank(extensions=config.extensions, level=level)
                continue
            if bank.level >= level:
                continue
            count = bank.extensions
            if config.per_level == "refill":
                count = max(count, config.extensions)
            elif config.per_level == "add":
                count += config.level_extensions * (level - bank.level)
                if config.max_extensions is not None:
                    count = min(count, max(config.max_extensions, bank.extensions))
            self.banks[player] = ShotBank(extensions=count, level=level)
            if count != bank.extensions:
                topped.append(f"seat {seat} {count}")
        if topped:
            how = "refilled" if config.per_level == "refill" else "added"
            self.core._say("clock", f"level {level}: time extensions {how}: {', '.join(topped)}",
                           shot_clock="level", level=level)

    # ---------------------------------------------------------------- what it shows

    def view(self) -> ShotClockView | None:
        config = self.core.config.shot_clock
        if config is None:
            return None
        extensions = {seat: self._extensions(s.player, config)
                      for seat, s in sorted(self.core.table.seats.items())}
        shot = self._shot()
        turn = shot.turn if shot is not None and self.core._hand() is not None else None
        base = {"seconds": config.seconds, "extension_seconds": config.extension_seconds,
                "extensions": extensions}
        if turn is None:
            return ShotClockView(**base)
        return ShotClockView(seat=turn.seat, started=turn.started, since=turn.since,
                             remaining=round(turn.left, 3),
                             running=not (turn.paused or turn.out or turn.since is None),
                             extension=turn.extensions > 0 and not turn.out,
                             extensions_used=turn.extensions, out=turn.out, **base)

    def _extensions(self, player: str, config: ShotClockConfig) -> int:
        bank = self.banks.get(player)
        return config.extensions if bank is None else bank.extensions

    def led(self) -> Literal["off", "running", "extension", "out"]:
        """The shot clock's LED: steady while a player's time runs, slow blinking in an
        extension, fast once it ran out; dark otherwise (his action shown, nobody to act)."""
        view = self.view()
        if view is None or view.seat is None:
            return "off"
        if view.out:
            return "out"
        if not view.running:
            return "off"
        return "extension" if view.extension else "running"


def _cards_out(hand: Hand, track: HandTrack) -> bool:
    """Before the flop the clock waits for the cards: every dealt seat's read (a table with
    seat antennas), or a first action (a table without: the first to act goes untimed)."""
    if any(act.kind in BETTING_KINDS for act in hand.log):
        return True
    return track.hole_reads > 0 and all(
        len(track.seat_cards.get(seat, [])) >= track.wanted for seat in track.dealt)
