"""Time and penalties at a hand dealt from the chip zones (docs/rules.md C1, C2, T4): time
called on the player to act (PVB 21), the five-second count for a player who will not show
(PVB 56(4)), missed-hand and orbit penalties (PVB 69(9)(12)(13)); under both rule profiles.
"""

from __future__ import annotations

import pytest

from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.chip_hands import PROFILES, hand_at, last_action, to_flop
from tests.session.helpers import card, chips, command, declare, key, seat, shuffle, start

# ---------------------------------------------------------------- C1, C2: time


@pytest.mark.parametrize("profile", PROFILES)
def test_c1_pvb_21_4_time_called_last_ten_counted_then_the_hand_is_dead(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    run.feed(command("time", seat=4))
    assert run.session.wants_ticks()
    run.feed({"type": "tick", "now": 1000.0})
    clock = run.session.state().clock
    assert clock is not None and clock.remaining == 60 and clock.rule == "PVB 21(4)"
    assert run.session.leds().clock
    spoken = []
    for now in range(1001, 1061):
        step = run.feed({"type": "tick", "now": float(now)})
        spoken += [e.data.get("remaining") for e in step.events if e.kind == "clock"]
    assert spoken == list(range(10, 0, -1))
    hand = run.session.table.hand
    assert hand is not None and hand.folded[2]  # seat 4 is the third dealt (2, 3, 4, 1)
    assert any(e.rule == "PVB 21(4)" and "dead" in e.text for e in run.events)
    assert not run.session.wants_ticks() and run.session.state().actor == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_c1_acting_in_time_stops_the_clock(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    run.feed(command("time"), {"type": "tick", "now": 5.0}, {"type": "tick", "now": 40.0})
    run.feed(chips("seat:4", 500, 100))
    assert last_action(run) == (4, "call", 600)
    assert run.session.state().clock is None and not run.session.wants_ticks()
    assert not run.feed({"type": "tick", "now": 70.0}).changed


@pytest.mark.parametrize("profile", PROFILES)
def test_c1_time_only_on_the_player_to_act(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    step = run.feed(command("time", seat=2))
    assert not step.accepted and step.events[0].rule == "PVB 21(1)"


@pytest.mark.parametrize("profile", PROFILES)
def test_c2_pvb_56_4_refusal_to_show_five_seconds_then_dead(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    to_flop(run)
    for street_card in ("4s", "5s"):
        while run.session.state().stage == "betting":
            run.feed(key("confirm"))
        run.feed(card("burn", "6d" if street_card == "4s" else "6h"), card("board", street_card))
    while run.session.state().stage == "betting":
        run.feed(key("confirm"))
    state = run.session.state()
    assert state.stage == "showdown"
    first = state.showdown_order[0]
    run.feed(command("time", seat=first), {"type": "tick", "now": 0.0})
    for now in range(1, 6):
        run.feed({"type": "tick", "now": float(now)})
    assert any(e.rule == "PVB 56(4)" and "did not show" in e.text for e in run.events)
    hand = run.session.table.hand
    assert hand is not None
    assert run.session.table.positions is not None
    assert hand.folded[run.session.table.positions.dealt.index(first)]


# ---------------------------------------------------------------- T4: penalties


@pytest.mark.parametrize("profile", PROFILES)
def test_t4_pvb_69_12_orbit_penalty_deals_in_kills_and_follows_the_player(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    run.feed(declare(4, "fold"), declare(1, "fold"), declare(2, "fold"))  # BB wins the blinds
    step = run.feed(command("penalty", seat=4, orbits=1))
    assert step.events[0].rule == "PVB 69(12)" and "4 hands" in step.events[0].text
    assert run.session.state().seats[4].penalty == 4
    served = 0
    for _ in range(2):
        run.feed(shuffle())
        hand = run.session.table.hand
        positions = run.session.table.positions
        assert hand is not None and positions is not None
        assert 4 in positions.dealt and hand.folded[positions.dealt.index(4)]
        served += 1
        assert run.session.state().seats[4].penalty == 4 - served
        # the hand goes on without him; play it down quickly
        while run.session.state().stage == "betting":
            actor = run.session.state().actor
            assert actor != 4
            run.feed(declare(actor, "fold") if run.session.state().to_call else key("confirm"))
        if run.session.state().stage not in ("over", "waiting"):
            run.feed(command("void", reason="test"))
            served -= 1  # a void hand is dealt again: it served nothing
            assert run.session.state().seats[4].penalty == 4 - served
    left = run.session.state().seats[4].penalty
    assert 0 < left < 4
    step = run.feed(seat(4, None))  # moved to another table: the count goes with her
    assert step.events[0].rule is None and step.events[0].data["penalty"] == left
    assert "follow the player (PVB 69(13))" in step.events[0].text


@pytest.mark.parametrize("profile", PROFILES)
def test_t4_pvb_69_12_b_all_in_from_the_blinds_plays_for_the_pot(profile: str) -> None:
    run = start(seat(1, "ana", 10_000), seat(2, "ben", 10_000), seat(3, "cem", 500),
                config=SessionConfig(profile=profile, level=Level(sb=300, bb=600)))
    if profile == "cg-cash":
        run.feed(card("seat:1", "As"), card("seat:2", "2c"), card("seat:3", "3c"))
    run.feed(command("penalty", seat=3, hands=1), shuffle())
    hand = run.session.table.hand
    k = run.session._seat_index(3)
    assert hand is not None and k is not None and hand.all_in[k] and not hand.folded[k]
    assert any(e.rule == "PVB 69(12)(b)" for e in run.events)


@pytest.mark.parametrize("profile", PROFILES)
def test_t4_bad_penalty_commands_are_refused(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    for bad in (command("penalty", seat=3), command("penalty", seat=3, hands=0),
                command("penalty", seat=3, hands=2, orbits=1), command("penalty", seat=8,
                                                                       hands=2)):
        step = run.feed(bad)
        assert not step.accepted and step.events[0].rule == "PVB 69(12)", bad
    # A penalty beyond what the book counts in hands (PVB 69(9)) is refused.
    for huge in (command("penalty", seat=3, hands=10**12), command("penalty", seat=3, orbits=20)):
        step = run.feed(huge)
        assert not step.accepted and step.events[0].rule == "PVB 69(9)", huge
    assert run.session.penalties == {}
