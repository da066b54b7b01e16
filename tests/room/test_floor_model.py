"""The floor display's room model (pure): what the floor login receives becomes what the screens
are told, and which tables need the floor first."""

from __future__ import annotations

from pathlib import Path

from controller.history.replay_events import replay_events
from controller.mqtt.messages import ClockState, EventMessage, StateMessage
from controller.room.floor.model import Alert, Room
from controller.room.floor.store import FloorStore, HandQuery
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, TableState, hand_id

ROOT = Path(__file__).resolve().parents[2]


def _state(table: str, **update: object) -> StateMessage:
    state = TableSession(SessionConfig(table_id=table)).state()
    return StateMessage(table=table, seq=1, sent=100.0,
                        state=TableState.model_validate(state.model_dump() | update))


def _event(table: str, kind: str, text: str, *, durable: str | None = None,
           **data: object) -> EventMessage:
    return EventMessage(table=table, id=durable, sent=100.0,
                        event=PublicEvent(kind=kind, text=text, hand=3, data=data,  # type: ignore[arg-type]
                                          rule="DFO" if text.endswith("floor") else None))


def test_tables_needing_the_floor_come_first() -> None:
    room = Room()
    for table in ("1", "2", "10", "3"):
        room.take_state(_state(table), now=1.0)
    room.take_state(_state("10", floor_called=True), now=2.0)
    room.take_status("3", online=False, now=3.0)
    room.take_state(_state("3", devices={"cards": "offline"}), now=4.0)
    order = [v.table for v in room.ordered()]
    assert order[:2] == ["3", "10"] and order[2:] == ["1", "2"]
    assert room.tables["3"].attention[0] == "offline"


def test_alerts_are_raised_once_and_stay_until_acknowledged() -> None:
    room = Room()
    room.take_state(_state("4"), now=1.0)
    updates = room.take_event(_event("4", "alert", "the dealer calls the floor",
                                     durable="4:3:0:9.0"), now=2.0)
    (alert,) = [u.alert for u in updates if u.kind == "alert"]
    assert alert is not None and alert.kind == "floor" and alert.table == "4"
    assert room.take_event(_event("4", "alert", "the dealer calls the floor",
                                  durable="4:3:0:9.0"), now=3.0)[-1].kind == "event"  # no 2nd
    assert "1 open alert" in room.tables["4"].attention
    room.take_event(_event("4", "hand_over", "hand 3 is misdeal", status="misdeal"), now=4.0)
    room.take_event(_event("4", "clock", "time on seat 2 (by floor:anna): 60 seconds"),
                    now=5.0)
    assert [a.kind for a in room.open_alerts()] == ["floor", "misdeal", "time"]
    done = room.acknowledge("4:3:0:9.0", "floor:anna", now=6.0)
    assert done[0].alert is not None and done[0].alert.acknowledged_by == "floor:anna"
    assert room.acknowledge("4:3:0:9.0", "floor:ben", now=7.0) == []  # once
    assert [a.kind for a in room.open_alerts()] == ["misdeal", "time"]


def test_an_acknowledged_alert_is_not_raised_again_after_a_restart() -> None:
    room = Room()
    open_one = Alert(id="1:2:0:5.0", table="1", hand=2, kind="irregularity", text="x", at=1.0)
    room.restore_alerts([open_one], closed={"1:2:0:4.0"})
    again = room.take_event(_event("1", "alert", "a fouled deck", durable="1:2:0:4.0"),
                            now=2.0)
    assert [u.kind for u in again] == ["event"] and room.open_alerts() == [open_one]


def test_a_table_going_offline_and_a_reader_failing_raise_alerts() -> None:
    room = Room()
    room.take_status("5", online=True, now=1.0)
    assert room.take_status("5", online=True, now=1.5) == []  # no change, nothing to tell
    room.take_status("5", online=False, now=2.0)
    room.take_state(_state("5", devices={"chips": "offline"}), now=3.0)
    room.take_state(_state("5", devices={"chips": "offline"}), now=4.0)  # still: no new alert
    assert [a.kind for a in room.open_alerts()] == ["offline", "reader"]


def test_the_actors_clock_starts_when_the_action_reaches_a_seat() -> None:
    room = Room()
    room.take_state(_state("6", hand=1, actor=2, stage="betting"), now=10.0)
    room.take_state(_state("6", hand=1, actor=2, stage="betting"), now=12.0)
    assert room.tables["6"].actor_since == 10.0
    room.take_state(_state("6", hand=1, actor=3, stage="betting"), now=15.0)
    assert room.tables["6"].actor_since == 15.0
    room.take_state(_state("6", hand=1, actor=None, stage="over"), now=16.0)
    assert room.tables["6"].actor_since is None


def test_the_clock_going_offline_is_an_alert_and_its_state_stays() -> None:
    room = Room()
    assert room.take_clock_status(True, now=1.0)[0].clock_online is True
    updates = room.take_clock_status(False, now=2.0)
    assert [u.kind for u in updates] == ["clock", "alert"]
    (alert,) = room.open_alerts()
    assert alert.table == "clock" and "levels and breaks do not change" in alert.text
    assert room.take_clock_status(False, now=3.0) == []
    assert room.snapshot().clock_online is False


def test_the_recorder_going_away_is_an_alert_once() -> None:
    room = Room()
    assert room.take_recorder_status(False, now=1.0) == []  # never seen: nothing to say
    assert room.take_recorder_status(True, now=2.0) == []
    (update,) = room.take_recorder_status(False, now=3.0)[:1]
    assert update.alert is not None and "keep every hand" in update.alert.text
    assert room.take_recorder_status(False, now=4.0) == []


def test_the_hands_screen_forgets_hands_older_than_its_window(tmp_path: Path) -> None:
    """A room runs for months: the floor's store keeps its window of public hands (the recorder
    keeps every hand); searching by player matches whole names, whatever their case."""
    lines = (ROOT / "docs" / "examples" / "two-hands.jsonl").read_text().splitlines()
    (first,) = [r.public() for r in replay_events(lines)]
    assert first.started is not None
    second = first.model_copy(update={"hand": 2, "started": first.started + 600})
    store = FloorStore(tmp_path / "floor.db")
    try:
        for record in (first, second):
            assert store.add_hand(hand_id("1", record.hand, record.started), record)
        assert not store.add_hand(hand_id("1", first.hand, first.started), first)  # once
        assert len(store.find(HandQuery(player="ANNA"))) == 2
        assert store.find(HandQuery(player="ann")) == []  # a whole name, not a part
        assert store.forget_hands(before=second.started) == 1
        assert [h.hand for h in store.find(HandQuery())] == [second.hand]
    finally:
        store.close()


def test_pvb_35a_a_table_the_clock_names_late_is_an_alert_once_a_round() -> None:
    """The clock's state names a table that holds the round without answering: one alert a
    round (the clock publishes its state again and again meanwhile), and the reason on the
    table's card until the clock no longer names it."""
    room = Room()
    room.take_state(_state("2", hand=7), now=1.0)
    base = ClockState(level=3, sb=100, bb=200, hand_for_hand=True, round=4, waiting=["2"],
                      playing=["1", "2"])
    assert [u.kind for u in room.take_clock(base, now=2.0)] == ["clock"]
    late = base.model_copy(update={"late": ["2"], "silent": ["2"]})
    updates = room.take_clock(late, now=3.0)
    assert [u.kind for u in updates].count("alert") == 1
    (alert,) = room.open_alerts()
    assert alert.kind == "round" and alert.rule == "PVB 35a" and alert.hand == 7
    assert "hand-for-hand round 4 waits for it" in alert.text
    assert "holds hand-for-hand round 4 up, not answering" in room.tables["2"].attention
    assert not [u for u in room.take_clock(late, now=4.0) if u.kind == "alert"]
    room.take_clock(base.model_copy(update={"round": 5, "waiting": []}), now=5.0)
    assert not any("not answering" in r for r in room.tables["2"].attention)
    room.take_clock(late.model_copy(update={"round": 5}), now=6.0)
    assert len(room.open_alerts()) == 2  # another round, another alert
