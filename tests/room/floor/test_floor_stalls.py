"""The floor's room model (pure) on a player who does not act (RULES C1): an alert once a turn
after a minute, two when all-in, none while the floor is already called to that turn, never a
false one, counted from the table's own time of the turn."""

from __future__ import annotations

from controller.mqtt.messages import ClockState
from controller.room.floor.model import Alert, Room
from controller.session.outputs import ClockView
from tests.room.floor.room_model_helpers import betting_state


def _stalls(room: Room) -> list[Alert]:
    return [a for a in room.open_alerts() if a.kind == "stalled"]


def test_c1_a_player_who_has_not_acted_for_a_minute_is_an_alert_once_a_turn() -> None:
    room = Room()
    room.take_state(betting_state("7"), now=1_000.0)
    assert room.tick(1_059.0) == [] and not room.tables["7"].stalled
    updates = room.tick(1_060.0)
    (alert,) = _stalls(room)
    assert [u.kind for u in updates] == ["alert", "table"]
    assert alert.rule == "PVB 21(1)" and alert.severity == "warning" and alert.table == "7"
    assert alert.text == "seat 2 (ben) has not acted for more than a minute: time may be called"
    assert room.tables["7"].stalled and room.needing()[0].table == "7"
    assert "seat 2 has not acted: time may be called" in [
        r.text for r in room.tables["7"].attention]
    assert room.tick(1_200.0) == []  # once a turn
    room.take_state(betting_state("7", actor=3), now=1_210.0)  # ben acted: cem's turn
    assert not room.tables["7"].stalled and len(_stalls(room)) == 1
    room.tick(1_269.0)
    assert len(_stalls(room)) == 1
    room.tick(1_270.0)
    assert len(_stalls(room)) == 2  # cem's turn is another


def test_c1_the_floor_called_in_a_turn_is_no_stall_of_that_player() -> None:
    """The dealer calls the floor while ben is to act: the ruling takes minutes, and that wait
    is the floor's (RULES C1), no alert for ben's turn; cem's turn after it counts again,
    although the hand still says the floor was called."""
    room = Room()
    room.take_state(betting_state("7"), now=1_000.0)
    room.take_state(betting_state("7", floor_called=True), now=1_030.0)
    room.tick(1_400.0)
    assert _stalls(room) == [] and not room.tables["7"].stalled
    room.take_state(betting_state("7", actor=3, floor_called=True), now=1_410.0)
    room.tick(1_469.0)
    assert _stalls(room) == []
    room.tick(1_470.0)
    (alert,) = _stalls(room)
    assert alert.text.startswith("seat 3 (cem)")
    # The next hand: no floor called, ben's slow turn is his own again.
    room.take_state(betting_state("7", hand=2), now=2_000.0)
    room.tick(2_060.0)
    assert len(_stalls(room)) == 2


def test_c1_two_minutes_when_all_in() -> None:
    room = Room()
    room.take_state(betting_state("7", all_in=True), now=0.0)
    room.tick(119.0)
    assert _stalls(room) == []
    room.tick(120.0)
    (alert,) = _stalls(room)
    assert "more than two minutes (all-in)" in alert.text


def test_c1_never_a_false_stall() -> None:
    """Between hands, held for a break or hand-for-hand, on a paused clock or a break, offline,
    or with time already called: ten minutes without an action are nobody's slow play."""
    waiting = [betting_state("1", actor=None, stage="over"),
               betting_state("2", actor=None, stage="waiting", hold="the break"),
               betting_state("3", actor=None, stage="dealing"),
               betting_state("4", clock=ClockView(seat=2, seconds=60, remaining=40,
                                             rule="PVB 21(4)"))]
    room = Room()
    for message in waiting:
        room.take_state(message, now=0.0)
    room.take_state(betting_state("5"), now=0.0)
    room.take_status("5", online=False, now=1.0)
    room.tick(600.0)
    assert _stalls(room) == [] and not any(v.stalled for v in room.tables.values())
    paused = ClockState(level=2, sb=50, bb=100, status="paused", running=False, remaining=300)
    room = Room()
    room.take_clock(paused, now=0.0)
    room.take_state(betting_state("6"), now=0.0)
    room.tick(600.0)
    assert _stalls(room) == []
    running = paused.model_copy(update={"status": "running", "running": True, "remaining": None,
                                        "ends_at": 2_000.0})
    room.take_clock(running, now=600.0)  # counted from the resume, not from the turn
    room.tick(659.0)
    assert _stalls(room) == []
    room.tick(660.0)
    assert len(_stalls(room)) == 1
    room.take_clock(running.model_copy(update={"status": "on_break", "on_break": True}),
                    now=700.0)
    assert not room.tables["6"].stalled  # the break: the card no longer says so


def test_c1_the_wait_counts_from_the_tables_own_time_of_the_turn() -> None:
    """A retained state met after a restart of the floor: the turn began when the table sent
    it (on the clock's time), not when the floor heard of it."""
    room = Room()
    room.take_state(betting_state("8", sent=1_000.0, offset=-30.0), now=1_100.0)
    assert room.tables["8"].actor_since == 970.0
    room.tick(1_100.0)
    assert len(_stalls(room)) == 1
