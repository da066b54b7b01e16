"""What the tables and the clock tell the tournament: eliminations (durable, so they may come
twice), sealed hand records (the truth of who went out, and a hand-for-hand round's end) and the
clock's state (the registration window, the rounds' tables)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.engine.records import HandRecord
from controller.mqtt.messages import ClockState
from controller.room.tournament.ledger import (
    Out,
    Player,
)
from controller.room.tournament.places import Bust

if TYPE_CHECKING:
    from controller.room.tournament.core import TournamentCore


class EliminationData(BaseModel):
    """What a table's elimination event says (``data``)."""

    model_config = ConfigDict(extra="ignore")

    player: str = Field(min_length=1, max_length=40)
    hand: int = Field(ge=0)
    round: int | None = None
    stack: int = Field(default=0, ge=0)
    busted: dict[str, int] = Field(default_factory=dict)
    started: float | None = None


def elimination(core: TournamentCore, table: str, event_id: str, data: dict[str, Any], now: float,
                at: float | None = None) -> bool:
    """A table's elimination event (durable, so it may come twice): True if it changed
    anything. ``at``: when the table said it (the end of the hand), else ``now``."""
    ledger = core.ledger
    if any(o.id == event_id for o in ledger.outs):
        return False
    try:
        said = EliminationData.model_validate(data)
    except ValidationError:
        core.alert(now, f"table {table}: an elimination that does not say who or in "
                    "which hand; the floor checks the table", "PVB 64b", table)
        return True
    player = ledger.players.get(said.player)
    if player is None:
        core.alert(now, f"table {table}, hand {said.hand}: {said.player} is out, but is "
                    "not in the tournament", "PVB 13", table, said.hand)
        return True
    if player.out:
        return False
    bust = Bust(player=said.player, table=table, hand=said.hand, started=said.started,
                round=said.round, stack=said.stack, seq=ledger.seq)
    ledger.seq += 1
    ledger.outs.append(Out(id=event_id, bust=bust, busted=sorted(said.busted),
                           at=now if at is None else at))
    _out(core, player)
    return True

def _out(core: TournamentCore, player: Player) -> None:
    """He is out: his seat and stack are gone, and a move of his not yet done is cancelled
    (nothing more is asked of the tables for it, and no chips of his are left to count)."""
    player.out, player.spot, player.stack = True, None, 0
    for move in core.ledger.moves:
        if move.player == player.name and move.status in ("leaving", "arriving", "seated"):
            move.status = "cancelled"

def record(core: TournamentCore, table: str, record: HandRecord, now: float) -> bool:
    """A table's sealed hand record (public part): the truth of who went out in that hand
    (RULES H3), and for hand-for-hand that the table's hand of the round is over."""
    ledger = core.ledger
    changed = False
    number = record.hand_for_hand_round
    if number is not None:
        tables = ledger.round_records.setdefault(number, [])
        if table not in tables:
            tables.append(table)
            changed = True
    if record.status != "complete":
        return changed
    busted = {player: record.starting_stacks.get(seat, 0)
              for seat, player in record.players.items()
              if record.starting_stacks.get(seat, 0) > 0
              and record.finishing_stacks.get(seat, 1) == 0}
    heard = {(b.player, b.table, b.hand, b.started)
             for b in [*ledger.busts(), *(u.bust for u in ledger.undone)]}
    for player, stack in sorted(busted.items()):
        known = ledger.players.get(player)
        if known is None or known.out or (player, table, record.hand,
                                          record.started) in heard:
            continue  # (a bust the floor took back, or an entry since re-entered)
        bust = Bust(player=player, table=table, hand=record.hand, started=record.started,
                    round=number, stack=stack, seq=ledger.seq)
        ledger.seq += 1
        ledger.outs.append(Out(id=f"record:{table}:{record.hand}:{player}", bust=bust,
                               busted=sorted(busted), at=now))
        _out(core, known)
        changed = True
    for out in [o for o in ledger.outs if o.bust.table == table
                and o.bust.hand == record.hand and o.bust.started == record.started
                and o.bust.player not in busted]:
        core.undo(out, f"table {table}'s sealed record", now, "the hand was corrected")
        core.alert(now, f"table {table}, hand {record.hand}: the sealed record shows "
                    f"{out.bust.player} still with chips; the elimination is taken back",
                    "PVB 64(1)", table, record.hand)
        changed = True
    if number is None:
        key = [
            "hand", table, record.hand, record.started]
        if key not in ledger.settled:
            ledger.settled.append(key)
            changed = True
    return changed

def clock_state(core: TournamentCore, clock: ClockState) -> bool:
    """The clock's state: the registration window, and for hand-for-hand which tables
    each round released (PVB 64b(3): a round's places wait for all of them)."""
    core.clock = clock
    if not core.ledger.clock_heard:
        core.ledger.clock_heard = True
        core.dirty = True
    if clock.hand_for_hand and clock.playing and clock.round:
        playing = sorted(clock.playing)
        if core.ledger.rounds.get(clock.round) != playing:
            core.ledger.rounds[clock.round] = playing
            return True
    return False
