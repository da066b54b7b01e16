"""The holds on a table, by source (docs/rules.md "The room's holds"): the clock's break
(PVB 14), the clock's hand-for-hand (PVB 35a), the floor's own hold (DFO). They stack, and a
table shuffles only when none is on; a hand-for-hand release is one hand of one round, once.
"""

from __future__ import annotations

from controller.session import SessionConfig, TableSession
from controller.session.model import SessionSnapshot
from tests.session.helpers import Run, command, folded_hand, shuffle, start, three_players

BREAK = "break before level 4; colour up the 25 chips"


def _refused_by(run: Run) -> str | None:
    step = run.feed(shuffle())
    return None if step.accepted else step.events[0].rule


def test_pvb_14_35a_hand_for_hand_switched_on_during_a_break_waits_for_the_break() -> None:
    """Hand-for-hand on during a break: its round released at once must not deal during the
    break; the hand comes when the break ends, and then the table waits again."""
    run = start(three_players(), command("hold", by="clock", kind="break", reason=BREAK),
                command("hold", by="clock", kind="hand_for_hand", reason="hand-for-hand"))
    assert run.session.state().holds == {"break": BREAK, "hand_for_hand": "hand-for-hand"}
    run.feed(command("release", by="clock", kind="hand_for_hand", one_hand=True, round=1))
    state = run.session.state()
    assert state.holds == {"break": BREAK} and state.released_round == 1
    assert state.waiting_for.startswith("the break")
    assert _refused_by(run) == "PVB 14"
    run.feed(command("release", by="clock", kind="break"))
    assert run.feed(shuffle()).accepted and run.session.state().played_round == 1
    run.feed(folded_hand())
    assert _refused_by(run) == "PVB 35a"


def test_pvb_14_a_break_ending_leaves_hand_for_hand_on() -> None:
    """The break's release lifts the break's hold only: a table in hand-for-hand still waits
    for its round (the old single hold was cleared, and the round stuck)."""
    run = start(three_players(), command("hold", kind="hand_for_hand", reason="hand-for-hand"),
                command("hold", kind="break", reason=BREAK))
    run.feed(command("release", kind="break"))
    assert run.session.state().holds == {"hand_for_hand": "hand-for-hand"}
    assert _refused_by(run) == "PVB 35a"


def test_pvb_35a_a_round_is_dealt_once_however_often_it_is_released() -> None:
    run = start(three_players(), command("hold", kind="hand_for_hand", reason="hand-for-hand"))
    release = command("release", kind="hand_for_hand", one_hand=True, round=2)
    run.feed(release)
    assert not run.feed(release).changed  # the clock asked twice: nothing more
    assert run.feed(shuffle()).accepted
    assert not run.feed(release).changed  # round 2's hand is under way: not another
    run.feed(folded_hand())
    assert not run.feed(release).changed
    assert _refused_by(run) == "PVB 35a"
    run.feed(command("release", kind="hand_for_hand", one_hand=True, round=3))
    assert run.feed(shuffle()).accepted and run.session.state().played_round == 3


def test_pvb_35a_a_hold_again_withdraws_a_release_not_dealt_and_the_same_hold_is_silent() -> None:
    run = start(three_players(), command("hold", kind="hand_for_hand", reason="hand-for-hand"),
                command("release", kind="hand_for_hand", one_hand=True, round=1))
    step = run.feed(command("hold", kind="hand_for_hand", reason="hand-for-hand"))
    assert step.changed and run.session.state().released_round is None
    assert not run.feed(command("hold", kind="hand_for_hand", reason="hand-for-hand")).changed
    assert _refused_by(run) == "PVB 35a"


def test_dfo_the_floors_own_hold_and_the_floors_release_of_every_hold() -> None:
    run = start(three_players(), command("hold", kind="floor", reason="new deck at the table"),
                command("hold", kind="break", reason=BREAK))
    state = run.session.state()
    assert state.hold == f"{BREAK}; new deck at the table"  # the break first
    run.feed(command("release", kind="break"))
    assert _refused_by(run) == "DFO"
    assert "the floor holds" in run.session.state().waiting_for
    run.feed(command("hold", kind="break", reason=BREAK), command("release"))  # every hold
    assert run.session.state().holds == {} and run.feed(shuffle()).accepted


def test_a_hold_of_an_unknown_kind_is_refused_with_the_kinds() -> None:
    run = start(three_players())
    step = run.feed(command("hold", kind="lunch", reason="x"))
    assert not step.accepted and "break, floor, seating, hand_for_hand" in step.events[0].text


def test_a_journal_from_before_the_holds_by_source_restarts_into_the_same_holds() -> None:
    """A snapshot written with one hold, a release for one hand and its round: read as the
    holds by source (the table restarts into the same state)."""
    fresh = TableSession(SessionConfig()).snapshot
    old = fresh.model_dump(mode="json")
    del old["holds"]
    for hold, after, number, reasons, released in (
            (BREAK, None, None, {"break": BREAK}, None),
            (None, "hand-for-hand", 4, {}, 4),
            ("bubble", None, None, {"floor": "bubble"}, None)):
        snapshot = SessionSnapshot.model_validate(
            {**old, "hold": hold, "hold_after_next": after, "round_next": number})
        assert snapshot.holds.reasons == reasons and snapshot.holds.released_round == released
