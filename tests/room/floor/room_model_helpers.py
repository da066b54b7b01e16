"""A table's state as the floor's room model takes it, in the middle of a hand's betting (the
room model's tests: test_floor_model.py, test_floor_stalls.py)."""

from __future__ import annotations

from controller.mqtt.messages import StateMessage
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PotView, SeatView


def betting_state(table: str, *, hand: int = 1, actor: int | None = 2, sent: float = 100.0,
                  offset: float | None = None, all_in: bool = False, **update: object
                  ) -> StateMessage:
    """A hand in its betting: seats 1-3, ``actor`` to act (None: between actions)."""
    seats = {n: SeatView(player=name, stack=5_000, in_hand=True, bet=100 if n == 1 else 0,
                         all_in=all_in and n == 1)
             for n, name in ((1, "ana"), (2, "ben"), (3, "cem"))}
    state = TableSession(SessionConfig(table_id=table)).state().model_copy(update={
        "hand": hand, "stage": "betting", "street": "preflop", "actor": actor, "seats": seats,
        "to_call": 100, "pots": [PotView(amount=150, eligible=[1, 2, 3])], **update})
    return StateMessage(table=table, seq=1, sent=sent, state=state, clock_offset=offset)
