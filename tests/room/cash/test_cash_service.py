"""The cash floor's service on a real Mosquitto (the ``cash_broker`` fixture: `broker init`'s
files plus the ``cash`` login): the floor's commands answered with their correlation data, an id
applied once, a retained command ignored, a refusal with its CG section; sign-up -> call ->
seat seen in the retained ``cash/state`` (the phone only in ``cash/contacts``, which a display
may not read); a call running out on the service's own time, journaled; and the lists' order
surviving a restart, from the store and from a replay of its journal."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import decode
from controller.mqtt.topics import Topics
from controller.room.cash.core import replay
from controller.room.cash.ledger import CHANGE
from controller.room.cash.view import CashContacts, CashStatus
from tests.room.cash.cash_helpers import NLH, PLO, SETTINGS, Floor, Room
from tests.venue import VenueClient

_IDS = itertools.count()


@pytest.fixture
def floor(cash_broker: LocalBroker) -> Iterator[Floor]:
    floor = Floor(cash_broker)
    yield floor
    floor.client.close()


def test_sign_up_call_and_seat_over_the_broker(cash_broker: LocalBroker, floor: Floor,
                                               tmp_path: Path) -> None:
    room = Room(cash_broker, tmp_path / "cash.db")
    try:
        assert floor.ok("open_table", table="1", game=NLH) == ("table 1 opens with NLH 2/5 (6 "
                                                               "seats; 0 on its list)")
        floor.ok("sign_up", game=NLH, name="Anna Berger", initials="AB", phone="+43 660 1234")
        floor.ok("sign_up", game=NLH, name="Ben")
        state = floor.state(lambda s: s.games[0].waiting == 2)
        assert [(e.name, e.shown) for e in state.games[0].entries] == [("Anna Berger", "AB"),
                                                                       ("Ben", "Ben")]
        assert floor.ok("call", game=NLH, table="1") == ("Anna Berger is called to table 1 for "
                                                         "NLH 2/5: 1 minute to sit down")
        refused = floor.command("seat", table="1", name="Ben")
        assert (refused.status, refused.rule) == ("error", CHANGE)
        assert refused.reason == "Ben is next on the NLH 2/5 list, not called yet: call him first"
        assert floor.ok("seat", table="1", name="anna berger", seat=3) == (
            "Anna Berger sits down at table 1, seat 3 (NLH 2/5)")
        state = floor.state(lambda s: s.tables[0].players)
        assert [(p.name, p.seat) for p in state.tables[0].players] == [("Anna Berger", 3)]
        assert floor.waiting(NLH, state) == ["Ben"]
        assert (state.games[0].seats_open, state.games[0].waiting) == (5, 1)
        # the phone went to the floor's contacts, never into the state every screen reads
        contacts = decode(CashContacts, floor.client.on("contacts")[-1].payload)
        assert [c.name for c in contacts.contacts] == []  # (she left the list: gone too)
        assert all("1234" not in m.payload.decode() for m in floor.client.on("state"))
        assert decode(CashStatus, floor.client.on("status")[-1].payload).status == "online"
    finally:
        room.close()


def test_an_id_is_applied_once_a_retained_command_never(cash_broker: LocalBroker, floor: Floor,
                                                        tmp_path: Path) -> None:
    room = Room(cash_broker, tmp_path / "cash.db")
    try:
        first = floor.command("sign_up", command_id="same-id", game=PLO, name="Cleo")
        again = floor.command("sign_up", command_id="same-id", game=PLO, name="Cleo")
        assert first.status == again.status == "ok"
        assert again.reason == f"command same-id was already applied: {first.reason}"
        other = floor.command("remove", command_id="same-id", game=PLO, name="Cleo")
        assert other.status == "error" and "was already used for 'sign_up'" in (other.reason or "")
        tick = floor.command("tick")
        assert tick.status == "error" and (tick.reason or "").startswith("unknown cash command")
        retained = json.dumps({"v": 1, "id": "r-1", "args": {"game": PLO, "name": "Dan"}})
        ignored = floor.publish("sign_up", retained.encode(), retain=True)
        floor.ok("sign_up", game=PLO, name="Eve")  # (answered in order: the retained one not)
        assert not floor.replied(ignored)
        assert floor.waiting(PLO, floor.state(lambda s: s.games[1].waiting == 2)) == ["Cleo",
                                                                                     "Eve"]
        assert "r-1" not in [c["id"] for c in room.store.commands()]
    finally:
        room.close()
        floor.client.publish(floor.topics.service("cash", "cmd/sign_up"), b"", retain=True)


def test_a_malformed_command_is_answered_and_logged(cash_broker: LocalBroker, floor: Floor,
                                                    tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Loud when wrong: a command that is not a command (no version, no id, not UTF-8) was
    answered but left no line in the cash floor's log; a refused one did. Both are logged now,
    as the tournament's are (a flood counted in one line: controller/room/refusals.py)."""
    caplog.set_level(logging.WARNING, logger="controller.room.cash.service")
    room = Room(cash_broker, tmp_path / "cash.db")
    try:
        for payload in (b'{"id": "x-1", "args": {}}', b"\xff\xfe", b"[]"):
            answer = floor.send("sign_up", payload)
            assert answer is not None and answer.status == "error", payload
        refused = floor.command("sign_up", game="Omaha 9/9", name="Ida")
        assert refused.status == "error"
        lines = [r.getMessage() for r in caplog.records]
        assert sum(line.startswith("cash: command 'sign_up' (id 'none') refused: malformed")
                   for line in lines) == 3, lines
        assert any("refused: the room deals no 'Omaha 9/9'" in line for line in lines), lines
    finally:
        room.close()


def test_a_call_runs_out_on_the_service_s_time_and_the_journal_says_so(
        cash_broker: LocalBroker, floor: Floor, tmp_path: Path) -> None:
    clock = [1_000_000.0]
    room = Room(cash_broker, tmp_path / "cash.db", now=lambda: clock[0])
    try:
        floor.ok("open_table", table="1", game=NLH)  # (a call promises one of its seats)
        for name in ("Anna", "Ben", "Cleo"):
            floor.ok("sign_up", game=NLH, name=name)
        floor.ok("call", game=NLH)
        clock[0] += 59
        floor.ok("sign_up", game=NLH, name="Dan")  # (a later message: the call still runs)
        assert floor.waiting(NLH, floor.state(lambda s: s.games[0].waiting == 4))[0] == "Anna"
        clock[0] += 1
        state = floor.state(lambda s: s.games[0].waiting == 3)
        assert floor.waiting(NLH, state) == ["Ben", "Cleo", "Dan"]
        assert state.recent[-1].text == ("Anna did not sit down within 1 minute of the call: "
                                         "off the NLH 2/5 list")
        assert [(c["name"], c["by"], c["at"]) for c in room.store.commands()][-1] == (
            "tick", "cash", clock[0])
    finally:
        room.close()


def test_a_call_keeps_the_minutes_the_player_was_told_through_a_restart_with_another_setting(
        cash_broker: LocalBroker, floor: Floor, tmp_path: Path) -> None:
    """Called with 10 minutes to sit down; cash.toml's call_minutes set to 1 and the service
    restarted: the calls still run out 10 minutes after they were made, and say so."""
    clock = [1_000_000.0]
    ten = SETTINGS.model_copy(update={"call_seconds": 600.0})
    room = Room(cash_broker, tmp_path / "cash.db", now=lambda: clock[0], settings=ten)
    try:
        floor.ok("open_table", table="2", game=PLO)
        for name in ("Karl", "Xena", "Vera"):
            floor.ok("sign_up", game=PLO, name=name)
        assert floor.ok("call", game=PLO) == "Karl is called for PLO 5/5: 10 minutes to sit down"
        floor.ok("call", game=PLO)
        called = clock[0]
        assert [c["args"] for c in room.store.commands() if c["name"] == "call"] == [
            {"game": PLO, "seconds": 600.0}] * 2  # journaled with the call: a replay keeps it
        room.restart(SETTINGS)  # call_minutes = 1
        clock[0] = called + 61
        assert not room.service.core.tick(clock[0])  # (what the service asks every second)
        state = floor.state(lambda s: s.call_seconds == 60)
        assert [(e.name, e.until) for e in state.games[1].entries] == [
            ("Karl", called + 600), ("Xena", called + 600), ("Vera", None)]
        assert floor.ok("call", game=PLO) == "Vera is called for PLO 5/5: 1 minute to sit down"
        assert replay(SETTINGS, room.store.journal()).ledger == room.service.core.ledger
        clock[0] = called + 600
        state = floor.state(lambda s: s.games[1].waiting == 0)
        assert [h.text for h in state.recent[-3:]] == [
            f"{name} did not sit down within {minutes} of the call: off the PLO 5/5 list"
            for name, minutes in (("Karl", "10 minutes"), ("Xena", "10 minutes"),
                                  ("Vera", "1 minute"))]
    finally:
        room.close()


def test_the_lists_order_survives_a_restart(cash_broker: LocalBroker, floor: Floor,
                                            tmp_path: Path) -> None:
    room = Room(cash_broker, tmp_path / "cash.db")
    try:
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("open_table", table="2", game=PLO)
        for name in ("Finn", "Anna", "Dan", "Cleo", "Ben", "Eve"):
            floor.ok("sign_up", game=NLH, name=name)
        floor.ok("sign_up", game=PLO, name="Gus")
        floor.ok("call", game=NLH)
        floor.ok("remove", game=NLH, name="Dan")
        before = floor.state(lambda s: s.games[0].waiting == 5)
        assert floor.waiting(NLH, before) == ["Finn", "Anna", "Cleo", "Ben", "Eve"]
        room.restart()
        assert room.service.state() == before  # (the recent lines too)
        journal = room.store.journal()
        assert replay(SETTINGS, journal).ledger == room.service.core.ledger
        floor.ok("call", game=NLH)
        after = floor.state(lambda s: s.games[0].called == 2)
        assert [(e.name, e.called is not None) for e in after.games[0].entries] == [
            ("Finn", True), ("Anna", True), ("Cleo", False), ("Ben", False), ("Eve", False)]
        assert floor.waiting(PLO, after) == ["Gus"]
    finally:
        room.close()


def test_a_display_reads_the_lists_never_the_phones(cash_broker: LocalBroker, floor: Floor,
                                                    tmp_path: Path) -> None:
    room = Room(cash_broker, tmp_path / "cash.db")
    display = VenueClient(cash_broker, "display", ("cash/#",))
    try:
        floor.ok("sign_up", game=PLO, name="Hana", phone="0660 555")
        floor.ok("sign_up", game=PLO, name="Ida")  # a later message: Hana's is through too
        assert display.wait(lambda ms: any(
            m.topic.endswith("/cash/state") and b"Ida" in m.payload for m in ms))
        assert not any(m.topic.endswith("/cash/contacts") for m in display.messages)
        assert any(b"0660 555" in m.payload for m in floor.client.on("contacts"))
        assert not display.may_write(Topics(cash_broker.plan.venue).service("cash",
                                                                            "cmd/sign_up"))
    finally:
        display.close()
        room.close()
