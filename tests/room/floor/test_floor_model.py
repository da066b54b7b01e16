"""The floor display's room model (pure): what the floor login receives becomes what the screens
are told, and which tables need the floor first."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from controller.history.replay_events import replay_events
from controller.mqtt.messages import ClockState, EventMessage, StateMessage, TournamentState
from controller.room.floor.league import League
from controller.room.floor.model import Alert, Room
from controller.room.floor.store import FloorStore, HandQuery
from controller.session import SessionConfig, TableSession
from controller.session.outputs import (
    PublicEvent,
    TableState,
    hand_id,
)
from tests.room.floor.room_model_helpers import betting_state

ROOT = Path(__file__).resolve().parents[3]


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
    assert [v.table for v in room.needing()] == ["3", "10"]  # the worst first
    assert [v.table for v in room.ordered()] == ["1", "2", "3", "10"]  # the room: its order
    assert room.tables["3"].attention[0].text == "offline"
    assert room.tables["3"].severity == room.tables["10"].severity == "urgent"


def test_alerts_are_raised_once_and_stay_until_acknowledged() -> None:
    room = Room()
    room.take_state(_state("4"), now=1.0)
    updates = room.take_event(_event("4", "alert", "the dealer calls the floor",
                                     durable="4:3:0:9.0"), now=2.0)
    (alert,) = [u.alert for u in updates if u.kind == "alert"]
    assert alert is not None and alert.kind == "floor" and alert.table == "4"
    assert room.take_event(_event("4", "alert", "the dealer calls the floor",
                                  durable="4:3:0:9.0"), now=3.0)[-1].kind == "event"  # no 2nd
    assert [r.text for r in room.tables["4"].attention] == ["the dealer calls the floor"]
    room.take_event(_event("4", "hand_over", "hand 3 is misdeal", status="misdeal"), now=4.0)
    room.take_event(_event("4", "clock", "time on seat 2 (by floor:anna): 60 seconds"),
                    now=5.0)
    assert [a.kind for a in room.open_alerts()] == ["time", "misdeal", "floor"]  # newest first
    assert [a.severity for a in room.open_alerts()] == ["notice", "warning", "urgent"]
    assert all(a.todo and not a.text.startswith("table") for a in room.open_alerts())
    done = room.acknowledge("4:3:0:9.0", "floor:anna", now=6.0)
    assert done[0].alert is not None and done[0].alert.acknowledged_by == "floor:anna"
    assert room.acknowledge("4:3:0:9.0", "floor:ben", now=7.0) == []  # once
    assert [a.kind for a in room.open_alerts()] == ["time", "misdeal"]


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
    assert [a.kind for a in room.open_alerts()] == ["reader", "offline"]


def test_h1_a_table_restarting_for_its_upgrade_is_no_alert_unless_it_stays_away() -> None:
    """Its last state holds it for its upgrade: offline for seconds as planned, a notice on
    its card and no alert; back within the grace, nothing more. One that has not come back
    after it is the urgent alert an offline table is, once."""
    room = Room()
    room.take_status("5", online=True, now=1.0)
    room.take_state(_state("5", holds={"upgrade": "upgrade to 2026.11.25"}), now=2.0)
    room.take_status("5", online=False, now=10.0)
    room.tick(50.0)
    assert room.open_alerts() == []
    assert [(r.text, r.severity) for r in room.tables["5"].attention] == [
        ("restarting for its upgrade", "notice")]
    room.take_status("5", online=True, now=60.0)
    room.take_state(_state("5"), now=61.0)  # the new version lifted its hold
    room.tick(200.0)
    assert room.open_alerts() == [] and room.tables["5"].attention == []
    # Another upgrade that does not come back.
    room.take_state(_state("5", holds={"upgrade": "upgrade to 2026.12.01"}), now=300.0)
    room.take_status("5", online=False, now=310.0)
    room.tick(399.0)
    assert room.open_alerts() == []
    room.tick(400.0)
    room.tick(401.0)
    (alert,) = room.open_alerts()
    assert alert.kind == "offline" and alert.severity == "urgent"
    assert alert.text == "the table has not come back from its upgrade for 90 s"
    assert room.tables["5"].severity == "urgent"
    assert "offline" in [r.text for r in room.tables["5"].attention]


def test_a_table_nobody_plays_at_switched_off_is_no_alert() -> None:
    """Broken up by the tournament (its last state seats no one): out of play, switching it
    off is nothing for the floor; after the tournament's winner switching any off is the
    evening's end, a notice on its card. A table the
    tournament still uses, or any table without a tournament, going offline is the urgent
    alert it always was, even empty (the draw may seat players there)."""
    lines = [{"table": "5", "seats": 10, "players": 0, "status": "broken"},
             {"table": "6", "seats": 10, "players": 0, "status": "open"}]
    room = Room()
    room.take_tournament(TournamentState.model_validate(
        {"v": 1, "name": "Cup", "entries": 9, "players_left": 5, "tables": lines}))
    for table in ("5", "6"):
        room.take_status(table, online=True, now=1.0)
        room.take_state(_state(table, seats={}), now=2.0)
        room.take_status(table, online=False, now=3.0)
    assert [a.table for a in room.open_alerts()] == ["6"]
    assert room.tables["5"].attention == [] and room.tables["5"].out_of_play == "broken"
    assert room.tables["6"].out_of_play is None
    room.take_status("7", online=True, now=1.0)
    room.take_state(betting_state("7"), now=2.0)
    room.take_tournament(TournamentState(name="Cup", entries=9, players_left=1, winner="ana"))
    room.take_status("7", online=False, now=5.0)
    assert [a.table for a in room.open_alerts()] == ["6"]
    assert [(r.text, r.severity) for r in room.tables["7"].attention] == [
        ("offline, nobody playing there", "notice")]
    room.take_status("8", online=True, now=1.0)
    room.take_state(_state("8", seats={}), now=2.0)
    room.take_tournament(None)
    room.take_status("8", online=False, now=7.0)
    assert sorted(a.table for a in room.open_alerts()) == ["6", "8"]


def test_a_table_the_tournament_broke_is_out_of_play_on_its_card() -> None:
    """An outside check saw broken tables as idle cards with "shuffle" and hands per hour:
    the tournament breaking a table (once its last state seats no one) pushes its card out of
    play, without a rate and not in the attention strip; used again, it is back in play."""
    room = Room()
    for hand, at in enumerate((10.0, 70.0, 130.0, 190.0), start=1):
        room.take_state(_state("4", hand=hand), now=at)
    assert room.tables["4"].hands_per_hour == 60.0
    room.take_state(_state("4", hand=4, seats={}), now=200.0)

    def tournament(status: str) -> TournamentState:
        return TournamentState.model_validate({"v": 1, "name": "Cup", "entries": 9,
                                               "players_left": 5, "tables": [
                                                   {"table": "4", "seats": 10, "players": 0,
                                                    "status": status}]})

    (update,) = [u for u in room.take_tournament(tournament("broken")) if u.kind == "table"]
    assert update.table is not None and update.table.out_of_play == "broken"
    assert update.table.hands_per_hour is None and update.table.attention == []
    assert [u.kind for u in room.take_tournament(tournament("broken"))] == ["tournament"]
    room.take_status("4", online=False, now=210.0)  # switched off: nothing for the floor
    assert room.needing() == [] and room.open_alerts() == []
    room.take_status("4", online=True, now=220.0)
    views = [u.table for u in room.take_tournament(tournament("open")) if u.table]
    assert [v.out_of_play for v in views] == [None]
    # seated again: in play, whatever it says
    room.take_state(betting_state("4", hand=5), now=230.0)
    room.take_tournament(tournament("broken"))
    assert room.tables["4"].out_of_play is None


def test_the_last_view_pushed_is_the_table_as_it_is_now() -> None:
    """A screen keeps the last view it is pushed: the alert's refresh came after the change
    and showed an offline table online (an outside check froze a table to see it)."""
    room = Room()
    room.take_status("5", online=True, now=1.0)
    views = [u.table for u in room.take_status("5", online=False, now=2.0) if u.table]
    assert views and views[-1].online is False and views[-1].severity == "urgent"
    views = [u.table for u in room.take_state(_state("5", devices={"chips": "offline"}),
                                              now=3.0) if u.table]
    assert views and views[-1].state is not None
    assert views[-1].state.devices == {"chips": "offline"}
    assert "chips reader offline" in [r.text for r in views[-1].attention]


def test_an_alert_whose_cause_has_passed_ranks_below_what_is_wrong_now() -> None:
    """The strip said 'the table is offline' long after the table was back, above a seat
    that had not acted for six minutes."""
    room = Room()
    room.take_status("5", online=True, now=1.0)
    room.take_status("5", online=False, now=2.0)
    room.take_status("5", online=True, now=3.0)
    view = room.tables["5"]
    assert view.attention[0].text == "was: the table is offline; acknowledge it"
    assert view.attention[0].severity == "notice" and view.severity == "notice"
    room.take_state(_state("5", devices={"cards": "offline"}), now=4.0)
    assert [(r.text, r.severity) for r in room.tables["5"].attention][:2] == [
        ("cards reader offline", "warning"),
        ("the cards reader is offline (+1 more)", "warning")]


def test_an_alert_whose_cause_has_passed_says_so_and_when_until_acknowledged() -> None:
    """/alerts showed "URGENT · the table is offline" after the table was back: the alert
    itself now says it passed (a notice, and when), for every screen and the journal; a new
    time offline is a new alert, and the old one stays passed."""
    room = Room()
    room.take_status("5", online=True, now=1.0)
    room.take_status("5", online=False, now=2.0)
    updates = room.take_status("5", online=True, now=3.0)
    (passed,) = [u.alert for u in updates if u.alert is not None]
    assert (passed.severity, passed.passed_at, passed.text) == (
        "notice", 3.0, "the table is offline")
    assert [u.kind for u in updates] == ["alert", "table"]  # the card last
    room.take_status("5", online=False, now=4.0)
    old, new = sorted(room.open_alerts(), key=lambda a: a.at)
    assert (old.passed_at, new.passed_at, new.severity) == (3.0, None, "urgent")
    assert room.tables["5"].severity == "urgent"
    # A reader back, the clock, the recorder back: the same
    room.take_state(_state("5", devices={"cards": "offline"}), now=5.0)
    room.take_state(_state("5", devices={"cards": "ok"}), now=6.0)
    room.take_clock_status(True, now=6.0)
    room.take_clock_status(False, now=7.0)
    room.take_clock_status(True, now=8.0)
    room.take_recorder_status(True, now=8.0)
    room.take_recorder_status(False, now=9.0)
    room.take_recorder_status(True, now=10.0)
    passed_at = {a.kind if a.table == "5" else a.table: a.passed_at
                 for a in room.open_alerts() if a.passed_at is not None}
    assert passed_at == {"offline": 3.0, "reader": 6.0, "clock": 8.0, "recorder": 10.0}
    assert all(a.severity == "notice" for a in room.open_alerts() if a.passed_at)


def test_a_passed_alert_is_kept_as_it_is_now_until_acknowledged(tmp_path: Path) -> None:
    store = FloorStore(tmp_path / "floor.db")
    room = Room()
    room.take_status("5", online=True, now=1.0)
    for update in [*room.take_status("5", online=False, now=2.0),
                   *room.take_status("5", online=True, now=3.0)]:
        if update.alert is not None:
            store.add_alert(update.alert)
    (kept,) = store.open_alerts()
    assert (kept.passed_at, kept.severity) == (3.0, "notice")
    store.acknowledge(kept.id, "floor:anna", 4.0)
    store.add_alert(kept.model_copy(update={"severity": "urgent"}))  # never over a closed one
    assert store.open_alerts() == []
    store.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "floor.db")) as db:
        (body,) = db.execute("SELECT body FROM alerts").fetchone()
    assert Alert.model_validate_json(body).severity == "notice"


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


def test_a_card_turned_after_the_hand_is_a_notice_with_nothing_to_rule() -> None:
    """PVB 22: the table keeps a board card turned after the hand out of it; the floor was
    told to go to the table and rule on it, where there is nothing left to rule."""
    room = Room()
    room.take_state(_state("5"), now=1.0)
    event = EventMessage(table="5", id="5:3:0:7.0", sent=100.0, event=PublicEvent(
        kind="alert", text="no rabbit hunting: the hand is over, the card stays unseen",
        hand=3, rule="PVB 22"))
    (alert,) = [u.alert for u in room.take_event(event, now=2.0) if u.alert]
    assert alert.severity == "notice" and alert.todo is not None
    assert alert.todo.startswith("nothing to rule") and "go to the table" not in alert.todo


def test_a_clock_cleared_is_gone_from_the_screens() -> None:
    """An empty retained clock state (a room with no clock any more) was ignored: the screens
    kept its last level until the floor restarted."""
    room = Room()
    room.take_clock(ClockState(level=3, sb=100, bb=200, status="paused"), now=1.0)
    assert room.snapshot().clock is not None
    (update,) = room.take_clock(None, now=2.0)
    assert update.kind == "clock" and update.clock is None
    assert room.clock is None and room.snapshot().clock is None


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
    assert "holds hand-for-hand round 4 up, not answering" in [
        r.text for r in room.tables["2"].attention]
    assert not [u for u in room.take_clock(late, now=4.0) if u.kind == "alert"]
    room.take_clock(base.model_copy(update={"round": 5, "waiting": []}), now=5.0)
    assert not any("not answering" in r.text for r in room.tables["2"].attention)
    room.take_clock(late.model_copy(update={"round": 5}), now=6.0)
    assert len(room.open_alerts()) == 2  # another round, another alert


# ---------------------------------------------------------------- severity, figures, tournament

def test_a_fouled_deck_and_an_offline_table_come_before_a_pot_that_does_not_count() -> None:
    room = Room()
    for table in ("1", "2", "3"):
        room.take_state(_state(table), now=0.0)
        room.take_status(table, online=True, now=0.0)
    room.take_event(_event("1", "alert", "the pot zone holds 900, the pots make 800: 100 more; "
                           "count the pot", durable="1:3:0:1"), now=1.0)
    room.take_event(_event("2", "alert", "a card seen on seat:1 came up again on board: fouled "
                           "deck, the hand is void and every bet goes back", durable="2:3:0:1"),
                    now=2.0)
    room.take_status("3", online=False, now=3.0)
    needing = [(v.table, v.severity) for v in room.needing()]
    assert set(needing[:2]) == {("2", "urgent"), ("3", "urgent")}  # (3 has two reasons)
    assert needing[2] == ("1", "warning")
    assert room.tables["2"].attention[0].text == "fouled deck: the hand is void"
    fouled = next(a for a in room.open_alerts() if a.table == "2")
    assert fouled.severity == "urgent" and fouled.todo is not None and "deck" in fouled.todo


def test_a_tables_card_counts_its_seats_its_average_stack_and_its_hands_per_hour() -> None:
    room = Room()
    room.take_state(betting_state("9", hand=1, seat_count=9), now=0.0)
    view = room.tables["9"]
    assert (view.players, view.free_seats) == (3, 6)
    assert view.average_stack == (3 * 5_000 + 150) // 3  # the pots are still the players'
    assert view.hands_per_hour is None
    for k, at in enumerate((100.0, 220.0, 340.0, 460.0), start=2):  # a hand each 2 minutes
        room.take_state(betting_state("9", hand=k, seat_count=9), now=at)
    assert room.tables["9"].hands_per_hour == 30.0


def test_the_tournaments_latest_state_goes_to_the_screens_and_can_go_away() -> None:
    room = Room()
    state = TournamentState(name="Berlin Open", entries=84, players_left=23,
                            average_stack=73_043, prize_pool=8_400, standings=[1, 2])  # type: ignore[call-arg]
    (update,) = room.take_tournament(state)
    assert update.kind == "tournament" and room.snapshot().tournament == state
    assert '"standings":[1,2]' in update.model_dump_json()  # its own fields go on as they are
    (gone,) = room.take_tournament(None)
    assert "tournament" not in gone.model_dump(exclude_none=True)
    assert room.snapshot().tournament is None


def _tournament(alerts: list[dict[str, object]]) -> TournamentState:
    return TournamentState(name="Berlin Open", entries=12, players_left=9,  # type: ignore[call-arg]
                           alerts=alerts)


CHIP_ALERT = {"id": 3, "at": 1_000.25, "rule": "RULES T5", "table": "2", "hand": 14,
              "text": "table 2, hand 14: the stacks add up to 59,900, 100 chips fewer than the "
                      "table should hold after the colour-up (60,000); count the table"}
VOID_ALERT = {"id": 4, "at": 1_001.0, "rule": "RULES T6", "text": "Player 7 went out before "
              "the chips of his rebuy reached his table: it is void; 20 EUR back"}


def test_the_tournaments_alerts_are_the_floors_by_table_with_severity_and_what_to_do() -> None:
    """RULES T5, T6: a chip count that does not add up names its table and hand, is urgent (the
    floor counts the table) and shows on the table's card; a void rebuy with money back is the
    tournament's own (no table), a warning; each raised once, however often the state comes."""
    room = Room()
    room.take_state(_state("2"), now=900.0)
    updates = room.take_tournament(_tournament([CHIP_ALERT, VOID_ALERT]))
    raised = {u.alert.table: u.alert for u in updates if u.alert is not None}
    chips, void = raised["2"], raised["tournament"]
    assert (chips.kind, chips.severity, chips.hand, chips.rule) == ("chips", "urgent", 14,
                                                                    "RULES T5")
    assert chips.text.startswith("the stacks add up to 59,900")  # the table named once
    assert chips.todo is not None and "count every stack" in chips.todo
    assert chips.at == 1_000.25 and chips.id == "tournament:1000250:3"
    assert (void.kind, void.severity, void.hand) == ("tournament", "warning", 0)
    assert void.todo is not None and "money back" in void.todo
    card = room.tables["2"]
    assert card.severity == "urgent" and "59,900" in card.attention[0].text
    assert [a.table for a in room.open_alerts()] == ["tournament", "2"]  # newest first
    again = room.take_tournament(_tournament([CHIP_ALERT, VOID_ALERT]))
    assert [u.kind for u in again] == ["tournament"]  # nothing raised twice
    assert room.acknowledge(chips.id, "floor:anna", 1_010.0)
    assert room.take_tournament(_tournament([CHIP_ALERT, VOID_ALERT]))[1:] == []
    assert [a.id for a in room.open_alerts()] == [void.id] and room.tables["2"].severity is None
    # a new tournament counts its alerts from 1 again: another time, another alert
    later = room.take_tournament(_tournament([{**CHIP_ALERT, "at": 5_000.0}]))
    assert [u.alert.id for u in later if u.alert] == ["tournament:5000000:3"]


def test_a_tournament_alert_the_floor_cannot_read_is_left_out() -> None:
    room = Room()
    updates = room.take_tournament(_tournament(
        [{"id": "x"}, {"id": 1, "at": 2.0, "text": "y" * 3000}, VOID_ALERT, "garbage"]))
    assert [u.alert.text[:7] for u in updates if u.alert] == ["Player "]
    bare = TournamentState(name="no alerts field", entries=0, players_left=0)
    assert [u.kind for u in room.take_tournament(bare)] == ["tournament"]


# ---------------------------------------------------------------- a floor following several venues

def test_a_league_keeps_each_venues_tables_clock_and_alerts_apart() -> None:
    """Two venues' table 1 are two tables; each venue's clock pauses its own tables only; the
    same durable alert id at both venues is two alerts, each acknowledged on its own."""
    league = League(["hall-a", "hall-b"])
    a, b = league.rooms["hall-a"], league.rooms["hall-b"]
    a.take_state(betting_state("1"), now=0.0)
    b.take_state(betting_state("1"), now=0.0)
    b.take_state(_state("2", floor_called=True), now=0.0)
    assert list(league.tables) == ["hall-a/1", "hall-b/1", "hall-b/2"]
    assert [(v.venue, v.table) for v in league.ordered()] == [
        ("hall-a", "1"), ("hall-b", "1"), ("hall-b", "2")]
    assert [(v.venue, v.table) for v in league.needing()] == [("hall-b", "2")]
    paused = ClockState(level=2, sb=50, bb=100, status="paused", running=False, remaining=300)
    (update,) = a.take_clock(paused, now=1.0)
    assert update.venue == "hall-a"
    b.take_clock(paused.model_copy(update={"status": "running", "running": True, "level": 5}),
                 now=1.0)
    league.tick(100.0)  # hall-a's clock is paused: only hall-b's seat to act is slow
    (stall,) = [x for x in league.open_alerts() if x.kind == "stalled"]
    assert (stall.venue, stall.table) == ("hall-b", "1") and stall.id.startswith("hall-b/1:")
    for room in (a, b):
        room.take_event(_event("1", "alert", "the dealer calls the floor", durable="1:3:0:9.0"),
                        now=2.0)
    called = sorted(x.id for x in league.open_alerts() if x.kind == "floor")
    assert called == ["hall-a/1:3:0:9.0", "hall-b/1:3:0:9.0"]
    done = league.acknowledge("hall-a/1:3:0:9.0", "floor:anna", now=3.0)
    assert done[0].alert is not None and done[0].alert.venue == "hall-a"
    assert [x.venue for x in league.open_alerts() if x.kind == "floor"] == ["hall-b"]
    assert league.acknowledge("1:3:0:9.0", "floor:anna", now=3.0) == []  # whose? nobody's
    snap = league.snapshot()
    assert snap.clock is None and snap.venues is not None
    assert [(v.venue, v.clock.level if v.clock else None) for v in snap.venues] == [
        ("hall-a", 2), ("hall-b", 5)]
    assert set(snap.stories) == {"hall-a/1", "hall-b/1"}
    # The league's recorder is the server's own; a venue's link to the league is the venue's.
    league.take_recorder_status(True, now=4.0)
    (gone,) = [u.alert for u in league.take_recorder_status(False, now=5.0) if u.alert]
    assert gone is not None and gone.venue is None and gone.table == "recorder"
    assert b.take_bridge(True, now=5.0)[0].bridge is True
    updates = b.take_bridge(False, now=6.0)
    assert (updates[0].kind, updates[0].venue, updates[0].bridge) == ("broker", "hall-b", False)
    (link,) = [u.alert for u in updates if u.alert]
    assert link is not None and link.venue == "hall-b" and "link to the league" in link.text
    assert league.snapshot().venues[1].bridge is False  # type: ignore[index]


def test_a_league_restores_each_venues_alerts_and_never_raises_a_closed_one_again() -> None:
    league = League(["hall-a", "hall-b"])
    a_open = Alert(id="hall-a/1:2:0:5.0", venue="hall-a", table="1", hand=2,
                   kind="irregularity", text="x", at=1.0)
    older = Alert(id="7:1:0:1.0", table="7", hand=1, kind="irregularity", text="y", at=0.5)
    league.restore_alerts([a_open, older], closed={"hall-b/1:2:0:4.0"})
    assert league.rooms["hall-a"].open_alerts() == [a_open]
    assert league.host.open_alerts() == [older]  # kept while the floor followed one venue
    again = league.rooms["hall-b"].take_event(
        _event("1", "alert", "a fouled deck", durable="1:2:0:4.0"), now=2.0)
    assert [u.kind for u in again] == ["event"]
    raised = league.rooms["hall-a"].take_event(  # hall-a's alert of that id was never closed
        _event("1", "alert", "a fouled deck", durable="1:2:0:4.0"), now=2.0)
    assert [u.kind for u in raised] == ["event", "alert"]
    assert {x.id for x in league.open_alerts()} == {a_open.id, older.id, "hall-a/1:2:0:4.0"}


def test_one_venues_room_is_as_it_was() -> None:
    """A venue's own floor: no venue on its tables, alerts or updates, ids as the tables
    give them (the pages and the stored alerts of a venue's floor stay as they were)."""
    room = Room()
    room.take_state(_state("4"), now=1.0)
    updates = room.take_event(_event("4", "alert", "the dealer calls the floor",
                                     durable="4:3:0:9.0"), now=2.0)
    assert all(u.venue is None for u in updates)
    (alert,) = room.open_alerts()
    assert alert.id == "4:3:0:9.0" and alert.venue is None and room.tables["4"].venue is None
    assert room.snapshot().venues is None
    assert "venue" not in updates[0].model_dump_json(exclude_none=True)
