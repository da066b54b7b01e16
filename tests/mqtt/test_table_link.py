"""A table on the broker. Status and retained state, commands and their replies
(malformed, unknown, unauthorised: an error or a refusal, nothing changed), the clock's level,
and the secrecy of hole cards through scripted RFID hands."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paho.mqtt.reasoncodes import ReasonCode

from controller.engine.records import HandRecord
from controller.mqtt.messages import (
    ClockState,
    CommandReply,
    EventMessage,
    RecordMessage,
    StateMessage,
    StatusMessage,
    decode,
    encode,
)
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, SqliteRecordStore
from controller.sim.table_rig import demo_deck
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.session.helpers import played_session, seat
from tests.venue import Broker, Received, VenueClient, address, login
from tests.waiting import wait_until


def t(broker: Broker) -> Topics:
    return Topics(broker.plan.venue)


def test_status_online_and_retained_state_for_a_late_display(broker: Broker,
                                                             tmp_path: Path) -> None:
    with linked_table(broker, tmp_path) as table:
        table.feed([seat(1, "ana"), seat(2, "ben")])
        table.settle()
        late = VenueClient(broker, "display", ("table/1/status", "table/1/state"))
        try:
            marker = f'"seq":{table.link._seq},'.encode()
            assert late.wait(lambda ms: any(marker in m.payload for m in ms))
            status = decode(StatusMessage, late.on("status")[0].payload)
            assert status.status == "online" and late.on("status")[0].retain
            assert late.on("state")[0].retain  # the broker's copy, at once
            state = decode(StateMessage, late.on("state")[-1].payload)
            assert set(state.state.seats) == {1, 2} and state.state.seats[2].player == "ben"
        finally:
            late.close()
    # A clean stop says offline, retained, so a display that connects later knows.
    after = VenueClient(broker, "display", ("table/1/status",))
    try:
        assert after.wait(lambda ms: bool(ms))
        assert decode(StatusMessage, after.messages[-1].payload).status == "offline"
    finally:
        after.close()


def _reply_for(listener: VenueClient, correlation: bytes) -> CommandReply:
    assert listener.wait(lambda ms: any(m.correlation == correlation for m in ms)), correlation
    found = next(m for m in listener.on("reply") if m.correlation == correlation)
    return decode(CommandReply, found.payload)


def _sentinel(floor: VenueClient, topic: str, correlation: bytes) -> None:
    """A live command on ``topic`` that the table takes through its loop and refuses (a hold of
    no kind it knows), and its answer: whatever reached the table on that topic before it has
    been applied and answered by then."""
    assert not floor.publish(topic, b'{"v": 1, "id": "sentinel", "args": {"kind": "none"}}',
                             correlation=correlation).is_failure
    reply = _reply_for(floor, correlation)
    assert reply.status == "error" and "args.kind" in (reply.reason or ""), reply


def test_commands_are_answered_with_their_correlation_data(broker: Broker,
                                                           tmp_path: Path) -> None:
    topics = t(broker)
    floor = VenueClient(broker, "floor", ("table/1/reply",))
    try:
        with linked_table(broker, tmp_path) as table:
            ok = floor.publish(topics.table("1", "cmd/seat"),
                               b'{"v": 1, "args": {"seat": 4, "player": "dora", "stack": 8000},'
                               b' "id": "r1"}', correlation=b"c-1")
            assert not ok.is_failure
            reply = _reply_for(floor, b"c-1")
            assert (reply.status, reply.command, reply.id) == ("ok", "seat", "r1")
            assert "dora sits down" in (reply.reason or "")
            assert table.memory.last.seats[4].player == "dora"

            # A floor decision refused by the table's rules: the rule and the reason come back.
            floor.publish(topics.table("1", "cmd/void"),
                          b'{"v": 1, "by": "floor:anna", "id": "r2"}', correlation=b"c-2")
            reply = _reply_for(floor, b"c-2")
            assert reply.status == "error" and reply.rule == "PVB 33"
            assert "no hand is running" in (reply.reason or "")
        # The journal kept the accepted seat and the refused void, nothing else.
    finally:
        floor.close()


BAD_COMMANDS: list[tuple[str, bytes, str]] = [
    ("cmd/void", b"not json at all", "malformed command"),
    ("cmd/void", b'{"v": 2, "id": "b1"}', "malformed command"),  # another schema version
    ("cmd/void", b'{"id": "b2"}', 'no schema version "v"'),  # docs/mqtt.md: refused
    ("cmd/void", b'{"v": 1}', "malformed command"),  # no id: it could act twice
    ("cmd/void", b'{"v": 1, "id": "b3", "args": [1, 2]}', "malformed command"),
    ("cmd/void", b'{"v": 1, "id": "b4", "surprise": true}', "malformed command"),
    ("cmd/shuffle", b'{"v": 1, "id": "b5"}', "unknown command 'shuffle'"),  # no hardware
    ("cmd/card", b'{"v": 1, "id": "b6", "args": {"zone": "seat:1", "card": "As"}}',
     "unknown command"),
    ("cmd/seat", b'{"v": 1, "id": "b7", "args": {"seat": 11, "player": "x"}}',
     "invalid arguments"),
    ("cmd/seat", b'{"v": 1, "id": "b8", "args": {"seat": 5, "player": "", "stack": 100}}',
     "invalid arguments"),  # an empty name once bricked the table
    ("cmd/level", b'{"v": 1, "id": "b9", "args": {"level": 2, "sb": 100}}', "invalid arguments"),
    ("cmd/penalty", b'{"v": 1, "id": "b10", "args": {"seat": "one"}}', "penalty"),
    # Hostile payloads: each answered with its reason (a deep one went unanswered: json.loads
    # raised RecursionError, which nobody caught).
    ("cmd/void", b"[" * 100_000, "nested 100000 levels deep"),
    ("cmd/void", b'{"a":' * 3000, "nested 3000 levels deep"),
    ("cmd/void", b'{"v": 1, "id": "h1", "args": {"n": ' + b"9" * 5000 + b"}}", "5000 digits"),
    ("cmd/void", b'{"v": 1, "id": "h2", "args": {"n": 1e400}}', "out of range"),
    ("cmd/void", b'{"v": 1, "id": "h3", "args": {"n": NaN}}', "NaN is not a number"),
    ("cmd/void", b'{"v": 1, "id": "\xff\xfe"}', "not UTF-8"),
    ("cmd/void", b"", "empty"),
    ("cmd/void", b'{"v": true, "id": 7}', "malformed command"),
]


def test_malformed_unknown_and_refused_commands_get_errors_and_change_nothing(
        broker: Broker, tmp_path: Path) -> None:
    topics = t(broker)
    floor = VenueClient(broker, "floor", ("table/1/reply",))
    try:
        with linked_table(broker, tmp_path) as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            table.settle()
            before = table.memory.last
            events_before = table.service.journal.last_seq()
            for k, (leaf, payload, reason) in enumerate(BAD_COMMANDS):
                correlation = f"bad-{k}".encode()
                floor.publish(topics.table("1", leaf), payload, correlation=correlation)
                reply = _reply_for(floor, correlation)
                assert reply.status == "error", (leaf, payload)
                assert reason in (reply.reason or ""), (reply.reason, reason)
            table.settle()
            assert table.memory.last == before
            # Only the well-formed penalty reached the table (refused there, journaled as
            # input); the rest never became table events.
            assert table.service.journal.last_seq() == events_before + 1
    finally:
        floor.close()


def test_a_command_delivered_twice_acts_once(broker: Broker, tmp_path: Path) -> None:
    """Every command carries an id; the table applies an id at most once (journaled,
    so a restart remembers it), and a redelivery is answered without acting again."""
    topics = t(broker)
    floor = VenueClient(broker, "floor", ("table/1/reply",))
    penalty = b'{"v": 1, "id": "pen-1", "by": "floor:anna", "args": {"seat": 1, "hands": 2}}'
    try:
        with linked_table(broker, tmp_path) as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            table.settle()
            floor.publish(topics.table("1", "cmd/penalty"), penalty, correlation=b"p1")
            assert _reply_for(floor, b"p1").status == "ok"
            floor.publish(topics.table("1", "cmd/penalty"), penalty, correlation=b"p2")
            again = _reply_for(floor, b"p2")
            assert again.status == "ok" and "already applied" in (again.reason or "")
            table.settle()
            assert table.service.session.penalties == {"ana": 2}
        with linked_table(broker, tmp_path) as table:  # restarted from its journal
            floor.publish(topics.table("1", "cmd/penalty"), penalty, correlation=b"p3")
            assert "already applied" in (_reply_for(floor, b"p3").reason or "")
            table.settle()
            assert table.service.session.penalties == {"ana": 2}
    finally:
        floor.close()


@contextlib.contextmanager
def _floor_and_hold(broker: Broker) -> Iterator[tuple[VenueClient, str]]:
    """The floor's client (hearing table 1's replies) and table 1's hold command topic; what a
    test left retained there is cleared at the end."""
    floor = VenueClient(broker, "floor", ("table/1/reply",))
    hold = t(broker).table("1", "cmd/hold")
    try:
        yield floor, hold
    finally:
        floor.publish(hold, b"", retain=True)  # clears the retained message
        floor.close()


def _never_applied(table: LinkedTable, floor: VenueClient, hold: str) -> None:
    """The hold published retained on ``hold`` never applied, nor answered: after a sentinel
    on its topic the table holds nothing and the sentinel's is the floor's only reply."""
    _sentinel(floor, hold, b"after")
    table.settle()
    assert table.memory.last.hold is None
    assert [m.correlation for m in floor.on("reply")] == [b"after"]


def test_a_retained_command_is_never_applied(broker: Broker, tmp_path: Path) -> None:
    """A retained void once voided a later hand after a broker restart. A command
    left retained reaches the table again at every subscribe: it is ignored."""
    with _floor_and_hold(broker) as (floor, hold):
        with linked_table(broker, tmp_path) as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            table.settle()
        assert not floor.publish(hold, b'{"v": 1, "id": "ret-1", "args": {"reason": "x"}}',
                                 correlation=b"r", retain=True).is_failure
        with linked_table(broker, tmp_path) as table:  # subscribes: the broker hands it over
            # (before the SUBACK: the sentinel comes after it)
            _never_applied(table, floor, hold)


def test_a_command_published_retained_while_the_table_listens_is_never_applied(
        broker: Broker, tmp_path: Path) -> None:
    """Delivered live, a retained publish loses its retain flag unless the subscription keeps it
    ("retain as published", MQTT 5): the table subscribes so, and ignores it."""
    with _floor_and_hold(broker) as (floor, hold), linked_table(broker, tmp_path) as table:
        table.feed([seat(1, "ana"), seat(2, "ben")])
        table.settle()
        assert not floor.publish(hold, b'{"v": 1, "id": "ret-2", "args": {"reason": "x"}}',
                                 correlation=b"r2", retain=True).is_failure
        _never_applied(table, floor, hold)


def test_unauthorised_clients_cannot_command_a_table(broker: Broker, tmp_path: Path) -> None:
    topics = t(broker)
    display = VenueClient(broker, "display", ("table/1/state",))
    clock = VenueClient(broker, "clock", ("table/1/reply",))
    other = VenueClient(broker, "table-2", ("table/2/cmd/#",))
    try:
        with linked_table(broker, tmp_path) as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            table.settle()
            before = table.memory.last
            seq = table.service.journal.last_seq()
            command = (b'{"v": 1, "id": "u1", '
                       b'"args": {"seat": 3, "player": "eve", "stack": 5000}}')
            for client in (display, other):
                reason: ReasonCode = client.publish(topics.table("1", "cmd/seat"), command)
                assert reason.is_failure and "authori" in str(reason).lower()
            # The clock may set levels and hand-for-hand, not seat players or void hands.
            assert clock.publish(topics.table("1", "cmd/seat"), command).is_failure
            assert clock.publish(topics.table("1", "cmd/void"), b'{"v": 1, "id": "u2"}').is_failure
            table.settle()
            assert table.memory.last == before and table.service.journal.last_seq() == seq
            assert not clock.on("reply")
            assert not clock.publish(topics.table("1", "cmd/hold"),
                                     b'{"v": 1, "id": "u3", "args": {"reason": "bubble"}}',
                                     correlation=b"h").is_failure
            assert _reply_for(clock, b"h").status == "ok"
            assert wait_until(lambda: table.memory.last.hold is not None)
    finally:
        for listener in (display, clock, other):
            listener.close()


def test_the_clock_level_applies_from_the_next_hand(broker: Broker, tmp_path: Path) -> None:
    topics = t(broker)
    clock = VenueClient(broker, "clock", ())
    try:
        with linked_table(broker, tmp_path) as table:
            table.feed([seat(1, "ana"), seat(2, "ben")])
            table.settle()
            assert clock.publish(topics.clock("state"), encode(
                ClockState(level=2, sb=100, bb=200))).is_failure is False
            state = table.memory.wait_state(lambda s: s.pending_level == 2)
            assert state.level == 1 and state.blinds.bb == 100  # PVB 14(2): not this hand
            # A garbage clock message is ignored and changes nothing: the next change of the
            # table's state is the one the clock's next level makes (the same topic, after it).
            seen = len(table.memory.states)
            clock.publish(topics.clock("state"), b'{"v": 1, "level": "three"}')
            assert not clock.publish(topics.clock("state"), encode(
                ClockState(level=3, sb=200, bb=400))).is_failure
            table.memory.wait_state(lambda s: s.pending_level == 3)
            table.settle()
            assert [s.pending_level for s in table.memory.states[seen:]] == [3]
            assert table.memory.last.level == 1
            table.feed([{"type": "shuffle"}])
            state = table.memory.wait_state(lambda s: s.hand == 1)
            assert state.level == 3 and state.blinds.bb == 400
    finally:
        clock.close()


# Cards standing alone or run together ("As", "AsKd", "AsKd7c"), as records and texts write them.
CARDS = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")


def cards_in(text: str) -> set[str]:
    return {run[i:i + 2] for run in CARDS.findall(text) for i in range(0, len(run), 2)}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _hand_of(message: Received) -> int | None:
    body = json.loads(message.payload)
    if message.topic.endswith("/state"):
        return int(decode(StateMessage, message.payload).state.hand)
    if message.topic.endswith("/event"):
        return decode(EventMessage, message.payload).event.hand
    if message.topic.endswith("/record"):
        return decode(RecordMessage, message.payload).hand
    return body.get("hand") if isinstance(body, dict) else None


def test_secrecy_a_display_on_everything_never_sees_an_unrevealed_card(
        broker: Broker, tmp_path: Path) -> None:
    """docs/design.md "Secrets": scripted RFID hands (every card with its tag UID). The display and
    the floor, subscribed to the whole venue, never receive a hole card (or its tag) that was
    not tabled; only the recorder receives full records, and only after the hand."""
    uid_of = {card: uid for uid, card in demo_deck().cards.items()}
    script = [dict(raw, uid=uid_of[raw["card"]]) if raw["type"] == "card" else raw
              for raw in played_session(10, seed=11, players=6)]
    display = VenueClient(broker, "display")
    floor = VenueClient(broker, "floor")
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(address(broker), login(broker, "recorder"), store).start()
    try:
        assert recorder.connected.wait(5)
        with linked_table(broker, tmp_path / "table") as table:
            table.feed(script)
            table.settle()
            sealed = len(table.service.journal.records())
            assert sealed >= 8
            assert recorder.wait_for(sealed)
            last = table.link._seq  # the display has everything once it has the last state
            marker = f'"seq":{last},'.encode()  # cheap: the lambda runs on every message
            assert display.wait(lambda ms: any(
                m.topic.endswith("/state") and marker in m.payload for m in ms[-20:]))
            # Each public record once: the outbox sends a message again only when the broker
            # did not acknowledge it. The table's next state, after its last record's sending
            # (a hold the floor sets: it shows no card), comes after any duplicate would have.
            assert not floor.publish(Topics(broker.plan.venue).table("1", "cmd/hold"),
                                     b'{"v": 1, "id": "sentinel", "args": {"reason": "x"}}'
                                     ).is_failure
            assert display.wait(lambda ms: any(
                m.topic.endswith("/state") and decode(StateMessage, m.payload).state.hold
                for m in ms[-20:]))
            assert len(display.on("record")) == sealed
        records: dict[int, HandRecord] = {r.hand: r for r in store.records("1")}
        assert len(records) == sealed
        hidden: dict[int, set[str]] = {}
        for number, record in records.items():
            shown = record.tabled()
            cards = {c for s, h in record.hole_cards.items() if s not in shown
                     for c in cards_in(h)}
            hidden[number] = cards | {uid_of[c] for c in cards}
        assert sum(len(h) for h in hidden.values()) > 20  # the test has secrets to keep
        for listener in (display, floor):
            assert not any("/secure/" in m.topic for m in listener.messages)
            assert {m.topic.rsplit("/", 1)[-1] for m in listener.messages} >= {
                "state", "event", "record", "status"}
            for message in listener.messages:
                hand = _hand_of(message)
                if hand is None or hand not in hidden:
                    continue
                words = set()
                for text in _strings(json.loads(message.payload)):
                    words |= cards_in(text) | set(re.findall(r"[0-9A-F]{14}", text))
                leaked = words & hidden[hand]
                assert not leaked, (message.topic, leaked)
        # The recorder's records are whole: every hole card read, hidden or tabled.
        assert all(len(r.hole_cards) >= 2 for r in records.values() if r.status == "complete")
        # Full records only after the hand: each was sent after the state saying it was over.
        over_at: dict[int, float] = {}
        for message in display.on("state"):
            state_message = decode(StateMessage, message.payload)
            if state_message.state.stage == "over":
                over_at.setdefault(state_message.state.hand, state_message.sent)
        # (The recorder is the only login that reads them, and a client id is its login: the
        # recorder's store keeps when each was sent.)
        secure = store.sent_times()
        assert set(secure) == set(records)
        assert all(over_at[hand] <= sent for hand, sent in secure.items())
    finally:
        recorder.close()
        store.close()
        for listener in (display, floor):
            listener.close()
