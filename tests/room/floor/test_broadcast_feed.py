"""The secure-delay broadcast feed on the wire (docs/broadcast.md), with the real table, the
recorder and the floor on the test broker, and the feed's clock turned by the test: nothing
younger than the delay ever leaves the server (each step absent from the stream up to a clock
push just before its time plus the delay, there at its time), a closed-door table's hand shows
once sealed and not before, the feature table is the floor's to switch, only a broadcast login
reads the feed, and its equities are an independent enumeration's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pokerkit import Deck, StandardHighHand, calculate_equities, parse_range

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.accounts import load_accounts, remove_user, save_accounts
from controller.room.floor.config import BroadcastSection
from tests.room.floor.broadcast_helpers import (
    DELAY,
    FIRST_STEPS,
    HOLE,
    SEALED,
    STEP_AT,
    T0,
    Clock,
    log_in,
    play_hand,
    request,
    room,
    stream,
    timed,
)
from tests.room.floor.pokerkit_equity import enumerated_shares
from tests.session.helpers import deal, declare, shuffle
from tests.waiting import wait_for


def _steps(frames: list[tuple[str, dict[str, Any]]]) -> list[int]:
    return [data["step"] for kind, data in frames if kind == "step"]


@pytest.mark.usefixtures("pokerkit_remembered")
def test_nothing_younger_than_the_delay_leaves_the_server(broker: LocalBroker,
                                                          tmp_path: Path) -> None:
    clock = Clock(T0 - 60)
    settings = BroadcastSection(feature_table="1", closed_door=["2"])
    with room(broker, tmp_path, settings, clock) as (tables, server):
        play_hand(tables["1"], server, clock)

        viewer, _ = log_in(server.url, "bea")
        with stream(server.url, "/api/broadcast/stream?table=1", viewer) as wire:
            assert wire.status == 200
            wait_for(lambda: wire.of("snapshot"), 5, "the snapshot")
            (snap,) = wire.of("snapshot")
            assert snap["step"] is None and snap["delay"] == DELAY and snap["table"] == "1"

            # Each step: absent up to the clock push just before its time plus the delay;
            # there (with all it shows) once the clock reaches it
            for index in (0, 6, 9):
                due = T0 + STEP_AT[index] + DELAY
                clock.now = due - 0.001
                wait_for(lambda: wire.upto_clock(clock.now) is not None, FIRST_STEPS,
                         "the clock push")
                before = _steps(wire.upto_clock(due - 0.001) or [])
                assert before == [k for k, at in enumerate(STEP_AT) if at < STEP_AT[index]]
                clock.now = due
                wait_for(lambda: wire.upto_clock(clock.now) is not None, FIRST_STEPS,
                         "the clock push")
                now = _steps(wire.upto_clock(due) or [])
                assert now == [k for k, at in enumerate(STEP_AT) if at <= STEP_AT[index]]
            steps = {d["step"]: d for d in wire.of("step")}
            assert sorted(steps) == list(range(10))  # the flop, and nothing after it

            # Every step left at its time plus the delay, never sooner, its time the action's
            for k, data in steps.items():
                assert data["at"] == T0 + STEP_AT[k], (k, data["at"] - T0)
            marks = iter(wire.frames)
            for kind, data in marks:
                if kind == "step":
                    after = next(d for k, d in marks if k == "clock")
                    assert data["at"] + DELAY <= after["now"]

            # What the steps show: the cards (from the sealed record), stacks, board, pot
            ran = steps[5]  # ana has called: every card dealt, the last words hers
            assert {s["seat"]: s["cards"] for s in ran["seats"]} == HOLE
            assert ran["actions"][-1] == "ana calls 100" and ran["pot"] == 250
            flop = steps[9]
            assert flop["board"] == "QsJd9h" and flop["street"] == "flop"
            assert flop["pot"] == 700
            assert {s["player"]: s["stack"] for s in flop["seats"]} == {
                "ana": 9900, "ben": 9700, "cem": 9700}
            text = wire.text()
            for later in ("8s", "Kc", "three of a kind", "ben checks", "cem bets"):
                assert later not in text, later  # the turn, the river, the result: not yet

            # Its equities: exactly an enumeration by another evaluator (ana's folded cards
            # dead), and before the flop a seeded Monte Carlo that says so and agrees with
            # PokerKit's own
            assert flop["equity"] == {"method": "exact", "boards": 903, "seed": None}
            expected = enumerated_shares(StandardHighHand, {2: "AsAh", 3: "KdKh"}, "QsJd9h", "7c2d")
            shown = {s["seat"]: s["equity"] for s in flop["seats"]}
            assert shown[1] is None
            for seat in (2, 3):
                assert abs(shown[seat] - expected[seat]) < 1e-9, (seat, shown, expected)
            preflop = steps[5]
            assert preflop["equity"]["method"] == "monte-carlo"
            assert preflop["equity"]["boards"] == 20_000
            theirs = calculate_equities(
                tuple(parse_range(HOLE[s]) for s in (1, 2, 3)), (), 2, 5, Deck.STANDARD,
                (StandardHighHand,), sample_count=5000)
            for seat, share in zip((1, 2, 3), theirs, strict=True):
                mine = next(s["equity"] for s in preflop["seats"] if s["seat"] == seat)
                assert abs(mine - share) < 0.03, (seat, mine, share)

        # The state, on request: the same, as of the feed's clock
        status, body, _ = request(server.url, "/api/broadcast/state?table=1", viewer)
        assert status == 200
        now = json.loads(body)
        assert now["step"]["step"] == 9 and b"8s" not in body and b"Kc" not in body
        clock.now = T0 + SEALED + DELAY
        status, body, _ = request(server.url, "/api/broadcast/state?table=1", viewer)
        last = json.loads(body)["step"]
        assert last["over"] and last["results"] == ["pot 1 (1,700): cem with three of a kind"]
        assert last["board"] == "QsJd9h8sKc"


def test_a_closed_door_table_shows_a_hand_once_sealed_and_the_floor_picks_the_feature(
        broker: LocalBroker, tmp_path: Path) -> None:
    clock = Clock(T0)
    settings = BroadcastSection(feature_table="1", closed_door=["2"])
    with room(broker, tmp_path, settings, clock) as (tables, server):
        viewer, _ = log_in(server.url, "bea")
        staff, csrf = log_in(server.url, "anna")
        with stream(server.url, "/api/broadcast/stream", viewer) as wire:
            wait_for(lambda: wire.of("snapshot"), 5, "the snapshot")
            assert wire.of("snapshot")[0]["table"] == "1"  # /broadcast: the feature table

            # The floor switches the feature table; a broadcast login cannot
            assert request(server.url, "/api/broadcast-feature", viewer, "POST",
                           {"table": "2"}, "x")[0] == 403
            status, body, _ = request(server.url, "/api/broadcast-feature", staff, "POST",
                                      {"table": "2"}, csrf)
            assert status == 200, body
            wait_for(lambda: len(wire.of("snapshot")) == 2, 5, "the feature table's snapshot")
            switched = wire.of("snapshot")[1]
            assert switched["table"] == "2" and switched["delay"] == 0  # closed door

            # Table 2's hand, live: nothing of it, up to a clock push after its last action
            two = tables["2"]
            timed(two, "2", server, clock, T0 + 1, 1, [shuffle(), *deal(HOLE)])
            for k, who in enumerate((1, 2)):
                timed(two, "2", server, clock, T0 + 2 + k, 1, [declare(who, "fold")])
            clock.now = T0 + 10
            wait_for(lambda: wire.upto_clock(T0 + 10) is not None, 5, "the clock push")
            assert not _steps(wire.upto_clock(T0 + 10) or [])
            assert not any(cards in wire.text() for cards in HOLE.values())

            # Sealed: the whole hand at once, every card in it
            two.feed([shuffle()])
            two.settle()
            wait_for(lambda: 1 in server.broadcast.known("2"), 15, "the sealed hand")
            wait_for(lambda: any(d["over"] for d in wire.of("step")), FIRST_STEPS,
                     "the hand's steps")
            last = wire.of("step")[-1]
            assert last["table"] == "2" and last["results"][0].endswith("cem")
            assert {s["seat"]: s["cards"] for s in last["seats"]} == HOLE


def test_only_a_broadcast_login_reads_the_feed(broker: LocalBroker, tmp_path: Path) -> None:
    clock = Clock(T0)
    with room(broker, tmp_path, BroadcastSection(), clock) as (_, server):
        url = server.url
        staff, csrf = log_in(url, "anna")
        viewer, viewer_csrf = log_in(url, "bea")
        for path in ("/api/broadcast/state?table=1", "/api/broadcast/stream?table=1",
                     "/api/broadcast/stream"):
            for cookie in ("", staff):
                status, body, _ = request(url, path, cookie)
                assert status == 403, (path, cookie, body)
                assert b"broadcast" in body
        status, _, where = request(url, "/broadcast/1")  # a stranger: to the login first
        assert status == 303 and where == "/login?next=/broadcast/1"
        status, body, _ = request(url, "/broadcast/1", staff)
        assert status == 403 and b"no broadcast role" in body
        status, body, _ = request(url, "/broadcast/1", viewer)
        assert status == 200 and b"broadcast.js" in body
        # A broadcast login decides nothing on the floor
        status, body, _ = request(url, "/api/command", viewer, "POST",
                                  {"target": "1", "name": "hold", "args": {}}, viewer_csrf)
        assert status == 403, body
        status, body, _ = request(url, "/api/broadcast-feature", staff, "POST",
                                  {"table": "1"}, csrf)
        assert status == 200, body
        # An open feed ends once its login is gone (here: the account removed)
        with stream(url, "/api/broadcast/stream?table=1", viewer) as wire:
            wait_for(lambda: wire.of("clock"), 5, "the feed running")
            accounts = tmp_path / "floor" / "floor-users.json"
            save_accounts(accounts, remove_user(load_accounts(accounts), "bea"))
            wait_for(lambda: wire.ended, 5, "the feed ended")
        assert request(url, "/api/broadcast/state?table=1", viewer)[0] == 403
