"""The session's parts as components (controller/session/parts.py, issue 38): each keeps its own
state, its share of the snapshot, and answers to the session that holds it, also after a replay
has put a fresh session's parts in place (a refusal, an undo, a floor's correction)."""

from __future__ import annotations

from controller.session import TableSession
from tests.session.helpers import (
    HOLE,
    command,
    deal,
    declare,
    key,
    seat,
    shuffle,
    start,
    three_players,
)


def test_after_a_refusal_every_part_answers_to_the_session_that_holds_it() -> None:
    run = start(*three_players())
    session = run.session
    refused = run.feed(seat(1, "dan"))  # seat 1 is ana's: refused, the story replayed
    assert not refused.accepted
    assert all(getattr(part, "core") is session for part in session._parts())  # noqa: B009
    # A part's words reach this session's outputs (not the replay's, which is gone)
    step = run.feed(command("penalty", seat=2, hands=1))
    assert [e.rule for e in step.events] == ["PVB 69(12)"]
    assert session.penalties == {"ben": 1}
    assert session.state().seats[2].penalty == 1


def test_an_undo_retells_the_hand_and_the_parts_follow() -> None:
    run = start(*three_players(), shuffle(), deal(HOLE))
    session = run.session
    actor = session.state().actor
    assert actor is not None
    run.feed(declare(actor, "call"))
    undone = run.feed(key("undo"))  # the hand's story told again without the call
    assert undone.accepted and session.state().actor == actor
    step = run.feed(command("hold", kind="floor", reason="a dispute"))
    assert [e.kind for e in step.events] == ["hold"]
    assert session.state().holds == {"floor": "a dispute"}


def test_each_part_keeps_its_share_of_the_snapshot() -> None:
    run = start(*three_players(), command("penalty", seat=1, hands=2),
                command("hold", kind="floor", reason="a dispute"),
                command("stack", seat=2, player="ben", add=500, ref="add-on 1"))
    session = run.session
    snapshot = session._make_snapshot()
    assert snapshot.penalties == {"ana": 2}  # time_calls
    assert snapshot.holds.reasons == {"floor": "a dispute"}  # table_holds
    assert snapshot.stack_refs == ["add-on 1"]  # stacks
    again = TableSession(session.config, snapshot)
    assert again._make_snapshot() == snapshot
    assert again.state() == session.state()
