"""Bets read from the chip zones: every rule and every worked example of the books.

Each test names the rule it checks (docs/rules.md R2, R5-R9, PVB 44/45, CG, APSA 5.4.28-5.4.31) and
runs under both rule profiles unless the profiles disagree, in which case both answers are
asserted side by side. The hands they start from are tests/session/chip_hands.py's; time called
and penalties on those hands are test_time_and_penalties.py's.
"""

from __future__ import annotations

import pytest

from controller.engine.table_play import Level
from controller.session import SessionConfig
from tests.session.chip_hands import (
    CHIP_5000,
    FLOP,
    HOLES,
    NAMES,
    PROFILES,
    actions,
    chips_conserved,
    hand_at,
    last_action,
    to_flop,
    waiting,
)
from tests.session.helpers import card, chips, command, deal, declare, key, seat, shuffle, start

# ---------------------------------------------------------------- R5: one oversized chip


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_pvb_44_1_oversized_chip_is_a_call_after_the_dealers_confirm(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    step = run.feed(chips("seat:1", 1000))
    assert step.events[-1].kind == "wait" and step.events[-1].rule == "PVB 44(1)"
    assert "unless 'raise' was said" in waiting(run)
    assert not actions(run)
    step = run.feed(key("confirm"))
    assert last_action(run) == (1, "call", 600)
    assert "400 back to the player" in step.events[0].text
    assert run.session.state().actor == 2


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_pvb_44_5_raise_announced_with_one_chip_is_the_largest_raise_up_to_it(
    profile: str,
) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 5000))
    run.feed(declare(1, "raise"))  # the dealer heard "raise" before the chip landed
    assert last_action(run) == (1, "raise", CHIP_5000[profile])
    assert any(e.rule == "PVB 44(5)" for e in run.events)


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_raise_announced_first_then_one_chip(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(declare(1, "raise"))
    assert "announced a raise" in waiting(run)
    run.feed(chips("seat:1", 5000))
    assert last_action(run) == (1, "raise", CHIP_5000[profile])


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_pvb_44_2_small_blind_adds_a_big_chip_it_is_a_call(profile: str) -> None:
    # "SB 300, BB 600: the SB puts a 1,000 chip next to his 300, then takes the 300 away:
    # a call, although 1,300 lay there for a moment."
    run = hand_at(profile, 300, 600)
    run.feed(declare(1, "call"), chips("seat:1", 500, 100))
    run.feed(chips("seat:2", 1000))  # the 1,300 never settled: the 300 left in the motion
    assert "PVB 44(1)" in waiting(run) or "unless 'raise'" in waiting(run)
    run.feed(key("confirm"))
    assert last_action(run) == (2, "call", 300)
    # With the 300 still there when the zone settles, it is a call all the same.
    run = hand_at(profile, 300, 600)
    run.feed(declare(1, "call"), chips("seat:2", 1000, 300), key("confirm"))
    assert last_action(run) == (2, "call", 300)


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_pvb_44_3_big_blind_swaps_his_blind_for_a_big_chip_and_raises(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(declare(1, "call"), declare(2, "call"))
    assert run.session.state().actor == 3
    run.feed(chips("seat:3"))  # he takes the blind back (slowly: the zone settled empty)
    assert not any(kind == "raise" for _, kind, _ in actions(run))
    step = run.feed(chips("seat:3", 5000))
    assert last_action(run) == (3, "raise", CHIP_5000[profile])
    assert step.events[0].rule == "PVB 44(3)"


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_pvb_44_6_one_chip_opening_the_betting_after_the_flop_is_a_bet_at_full_value(
    profile: str,
) -> None:
    run = hand_at(profile, 300, 600)
    to_flop(run)
    first = run.session.state().actor
    assert first is not None
    step = run.feed(chips(f"seat:{first}", 5000))
    assert last_action(run) == (first, "bet", CHIP_5000[profile])
    assert step.events[0].rule == "PVB 44(6)"


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_apsa_5_4_28_example_blinds_10_20_one_50_chip_is_a_call(profile: str) -> None:
    run = hand_at(profile, 10, 20)
    run.feed(chips("seat:1", 50))
    assert "unless 'raise'" in waiting(run)
    run.feed(key("confirm"))
    assert last_action(run) == (1, "call", 20)
    # "After the flop a chip counts at its value": an opening bet of 50.
    run = hand_at(profile, 10, 20)
    to_flop(run)
    first = run.session.state().actor
    run.feed(chips(f"seat:{first}", 50))
    assert last_action(run) == (first, "bet", 50)


@pytest.mark.parametrize("profile", PROFILES)
def test_r5_oversized_chip_that_could_never_raise_needs_no_confirm(profile: str) -> None:
    # 300/600, seat 1 raised to 3,000 (min re-raise to 5,400): a 5,000 chip for the call
    # cannot be a raise, even if "raise" was said... it could only complete (R2): it waits.
    # A 1,000 chip facing 600 with nothing else possible is tested above; here the seat is
    # short of a full raise: the chip is a plain call.
    run = hand_at(profile, 300, 600)
    run.feed(declare(1, "raise", 3000), declare(2, "fold"))
    run.feed(chips("seat:3", 2500, 600))  # BB: 600 + 2,500 = 3,100; one less is short
    assert last_action(run) == (3, "call", 2400)


# ---------------------------------------------------------------- R6: several chips


def test_r6_pvb_45_1_example_two_1000s_facing_1200_raise_under_pvb_call_under_cg() -> None:
    # "Blinds 200/400; A raises to 1,200; B puts two 1,000 chips in without a word: a raise."
    for profile, expected in (("pvb-2020", (5, "raise", 2000)), ("cg-cash", (5, "call", 1200))):
        run = hand_at(profile, 200, 400, players=5)
        run.feed(chips("seat:4", 1000, 200))  # A (UTG): a raise to 1,200
        assert last_action(run) == (4, "raise", 1200)
        run.feed(chips("seat:5", 1000, 1000))  # B
        assert last_action(run) == expected, profile


def test_r6_cg_example_20_40_two_100s_facing_120_call_under_cg_raise_under_pvb() -> None:
    # CG "Höherer Jeton": "A puts in 120 (a raise of 80), B two 100 chips: a call".
    for profile, expected in (("cg-cash", (1, "call", 120)), ("pvb-2020", (1, "raise", 200))):
        run = hand_at(profile, 20, 40, players=4)
        run.feed(chips("seat:4", 100, 20))
        assert last_action(run) == (4, "raise", 120)
        run.feed(chips("seat:1", 100, 100))
        assert last_action(run) == expected, profile


@pytest.mark.parametrize("profile", PROFILES)
def test_r6_cg_example_20_40_four_50s_facing_120_is_a_raise_to_200(profile: str) -> None:
    # "Had B put four 50 chips in, it would be a raise to 200 (another 80)."
    run = hand_at(profile, 20, 40, players=4)
    run.feed(chips("seat:4", 100, 20), chips("seat:1", 50, 50, 50, 50))
    assert last_action(run) == (1, "raise", 200)


@pytest.mark.parametrize("profile", PROFILES)
def test_r6_cg_example_30_60_two_50s_after_a_bet_of_60_is_a_call(profile: str) -> None:
    # "At 30/60, after an opening bet, two 50 chips without a word are only a call."
    run = hand_at(profile, 30, 60)
    to_flop(run)
    first = run.session.state().actor
    assert first is not None
    run.feed(chips(f"seat:{first}", 50, 10))
    assert last_action(run) == (first, "bet", 60)
    second = run.session.state().actor
    run.feed(chips(f"seat:{second}", 50, 50))
    assert last_action(run) == (second, "call", 60)


def test_r6_cg_example_80_160_240_320_four_100s_call_under_cg_raise_under_pvb() -> None:
    # "After bets of 80 / 160 / 240 / 320, four 100 chips are no raise to 400, only a call."
    for profile, expected in (("cg-cash", (1, "call", 320)), ("pvb-2020", (1, "raise", 400))):
        run = hand_at(profile, 40, 80, players=6)
        run.feed(chips("seat:4", 100, 50, 10), chips("seat:5", 200, 40),
                 chips("seat:6", 100, 100, 100, 20))
        assert [a[2] for a in actions(run)] == [160, 240, 320]
        run.feed(chips("seat:1", 100, 100, 100, 100))
        assert last_action(run) == expected, profile


# ---------------------------------------------------------------- R2: the half-bet rule


@pytest.mark.parametrize("profile", PROFILES)
def test_r2_pvb_45_2_mixed_chips_follow_the_half_bet_rule(profile: str) -> None:
    # 200/400, raised to 1,200 (a raise of 800): a raise of 300 is less than half: a call.
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200))
    step = run.feed(chips("seat:1", 1000, 500))
    assert last_action(run) == (1, "call", 1200)
    assert step.events[0].rule == "PVB 42(5)" and "300 back" in step.events[0].text
    # A raise of 400 or more, less than 800: completed to exactly 2,000 (PVB 42(4)).
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200))
    step = run.feed(chips("seat:1", 1000, 500, 100, 25, 25))
    assert last_action(run) == (1, "raise", 2000)
    assert step.events[0].rule == "PVB 42(4)" and "350 more to put in" in step.events[0].text


@pytest.mark.parametrize("profile", PROFILES)
def test_r2_apsa_5_4_29_an_incomplete_opening_bet_is_completed(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    to_flop(run)
    first = run.session.state().actor
    run.feed(chips(f"seat:{first}", 100, 100, 100))  # 300: half the minimum bet of 600
    assert last_action(run) == (first, "bet", 600)


@pytest.mark.parametrize("profile", PROFILES)
def test_r2_a_completion_owed_is_not_a_string_bet(profile: str) -> None:
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200), chips("seat:1", 1000, 500, 100, 25, 25))
    assert last_action(run) == (1, "raise", 2000)
    step = run.feed(chips("seat:1", 1000, 500, 100, 100, 100, 100, 100))  # the 350 owed... +
    assert not any(e.rule == "PVB 49" for e in step.events)


# ---------------------------------------------------------------- R8: a short call


@pytest.mark.parametrize("profile", PROFILES)
def test_r8_apsa_5_4_30_short_call_completed_on_confirm(profile: str) -> None:
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200))
    step = run.feed(chips("seat:1", 100, 100, 100, 100))  # he missed the raise
    assert step.events[-1].rule == "APSA 5.4.30" and "complete the call" in waiting(run)
    run.feed(chips("seat:1", 1000, 100, 100))  # completes it (no re-raise possible: R8)
    assert last_action(run) == (1, "call", 1200)


@pytest.mark.parametrize("profile", PROFILES)
def test_r8_short_call_folded_forfeits_the_chips(profile: str) -> None:
    run = hand_at(profile, 200, 400, players=4)
    total = run.session.chips_on_table()
    run.feed(declare(4, "raise", 1200), chips("seat:1", 100, 100, 100, 100))
    run.feed(declare(1, "fold"))
    hand = run.session.table.hand
    assert hand is not None
    assert last_action(run) == (1, "fold", 400)
    assert hand.stacks[3] == 100_000 - 400  # seat 1 is the 4th dealt (after 2, 3, 4)
    chips_conserved(run, total)


@pytest.mark.parametrize("profile", PROFILES)
def test_r8_the_completion_cannot_become_a_raise(profile: str) -> None:
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200), chips("seat:1", 500))
    run.feed(chips("seat:1", 5000))  # more than enough: still only the call
    assert last_action(run) == (1, "call", 1200)


# ---------------------------------------------------------------- all-in and R9


@pytest.mark.parametrize("profile", PROFILES)
def test_allin_when_the_whole_stack_is_in_the_zone(profile: str) -> None:
    run = hand_at(profile, 300, 600, stack=3000)
    step = run.feed(chips("seat:1", 1000, 1000, 1000))
    assert last_action(run) == (1, "raise", 3000)
    assert "(all-in)" in step.events[0].text


@pytest.mark.parametrize("profile", PROFILES)
def test_r9_chips_added_after_the_bet_settled_go_back(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100))
    assert last_action(run) == (1, "call", 600)
    step = run.feed(chips("seat:1", 1000, 500, 100))
    assert step.events[0].rule == "PVB 49" and "go back" in step.events[0].text
    assert last_action(run) == (1, "call", 600)
    assert run.session.state().actor == 2


@pytest.mark.parametrize("profile", PROFILES)
def test_r9_the_bet_is_what_settled_first_even_while_the_dealer_decides(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 1000))  # an oversized chip: waiting for the dealer
    step = run.feed(chips("seat:1", 1000, 1000))  # a second motion
    assert step.events[0].rule == "PVB 49"
    run.feed(key("confirm"))
    assert last_action(run) == (1, "call", 600)


@pytest.mark.parametrize("profile", PROFILES)
def test_chips_taken_back_after_the_action_are_an_alert(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100))
    step = run.feed(chips("seat:1", 100))
    assert step.events[0].rule == "PVB 36(3)"
    assert last_action(run) == (1, "call", 600)


@pytest.mark.parametrize("profile", PROFILES)
def test_dealer_makes_change_without_alerts(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 1000), key("confirm"))
    step = run.feed(chips("seat:1", 500, 100))  # the dealer swaps the 1,000 for the call
    assert not step.events and last_action(run) == (1, "call", 600)


# ---------------------------------------------------------------- R7: out of turn


@pytest.mark.parametrize("profile", PROFILES)
def test_r7_pvb_37_3_chips_out_of_turn_stand_when_the_action_did_not_change(
    profile: str,
) -> None:
    run = hand_at(profile, 300, 600, players=4)
    step = run.feed(chips("seat:1", 500, 100))  # seat 4 is to act
    assert step.events[0].rule == "PVB 37(3)" and "held" in step.events[0].text
    assert not actions(run)
    run.feed(declare(4, "call"))  # a call changes nothing
    assert actions(run)[-1] == (1, "call", 600)
    assert run.session.state().actor == 2


@pytest.mark.parametrize("profile", PROFILES)
def test_r7_pvb_37_4_chips_out_of_turn_go_back_when_someone_raised(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    run.feed(chips("seat:1", 500, 100))
    step = run.feed(declare(4, "raise", 1800))
    texts = [e.text for e in step.events]
    assert any("go back" in t and "every option" in t for t in texts)
    assert run.session.state().actor == 1 and last_action(run) == (4, "raise", 1800)
    run.feed(chips("seat:1"))  # he takes them back
    run.feed(chips("seat:1", 1000, 500, 100, 100, 100))  # and calls 1,800
    assert last_action(run) == (1, "call", 1800)


@pytest.mark.parametrize("profile", PROFILES)
def test_r7_declaration_out_of_turn_is_held_then_applied(profile: str) -> None:
    run = hand_at(profile, 300, 600, players=4)
    run.feed(declare(2, "call"))  # the small blind, before seats 4 and 1
    assert not actions(run)
    run.feed(declare(4, "call"), declare(1, "fold"))
    assert actions(run)[-1] == (2, "call", 300)
    # ... and lapses when the action changed.
    run = hand_at(profile, 300, 600, players=4)
    run.feed(declare(2, "call"), declare(4, "raise", 2000))
    assert run.session.state().actor == 1
    run.feed(declare(1, "fold"))
    assert run.session.state().actor == 2 and last_action(run) == (1, "fold", 0)


# ---------------------------------------------------------------- sweeping and the pot


@pytest.mark.parametrize("profile", PROFILES)
def test_sweeping_into_a_pot_zone_that_matches(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100), chips("seat:2", 500, 100), key("confirm"))
    run.feed(chips("seat:1"), chips("seat:2"), chips("seat:3"),
             chips("pot", 1000, 500, 100, 100, 100))
    run.feed(card("burn", "3s"), *[card("board", c) for c in FLOP])
    first = run.session.state().actor
    step = run.feed(key("confirm"))
    assert not any(e.kind == "alert" for e in step.events), step.events
    assert last_action(run) == (first, "check", 0)


@pytest.mark.parametrize("profile", PROFILES)
def test_sweeping_a_pot_zone_that_differs_is_an_alert_when_play_goes_on(profile: str) -> None:
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100), chips("seat:2", 500, 100), key("confirm"))
    run.feed(chips("seat:1"), chips("seat:2"), chips("seat:3"), chips("pot", 1000, 500, 100))
    run.feed(card("burn", "3s"), *[card("board", c) for c in FLOP])
    step = run.feed(key("confirm"))
    alert = next(e for e in step.events if e.kind == "alert")
    assert alert.rule == "APSA 5.4.25" and "1,600" in alert.text and "1,800" in alert.text
    assert run.session.state().pot_zone == 1600


@pytest.mark.parametrize("profile", PROFILES)
def test_pvb_36_3_chips_taken_back_then_made_up_by_the_next_chips_leave_the_pot_whole(
        profile: str) -> None:
    """Too much change (the zone holds 500 of a 600 call: told once, PVB 36(3)); the player's
    next call comes with chips enough, and the dealer keeps the whole bet in the zone: the pot
    count agrees (APSA 5.4.25). The table said "count the pot" for the 100 already made up."""
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 1000), key("confirm"))
    step = run.feed(chips("seat:1", 500))  # 500 back instead of 400
    assert [e.rule for e in step.events if e.kind == "alert"] == ["PVB 36(3)"]
    run.feed(chips("seat:2", 1000, 500, 300), declare(3, "fold"))  # to 1,800
    step = run.feed(chips("seat:1", 1000, 500, 500))  # 2,000 in the zone: 200 back
    assert last_action(run) == (1, "call", 1200) and "200 back" in step.events[-1].text
    run.feed(chips("seat:1", 1000, 500, 100, 100, 100))  # the change: 1,800 stay
    run.feed(chips("seat:1"), chips("seat:2"), chips("seat:3"),
             chips("pot", 1000, 1000, 1000, 500, 500, 100, 100))  # 4,200: every bet
    run.feed(card("burn", "3s"), *[card("board", c) for c in FLOP])
    step = run.feed(key("confirm"))
    assert not [e for e in step.events if e.kind == "alert"], step.events
    assert not [e for e in run.events if e.rule == "APSA 5.4.25"]


@pytest.mark.parametrize("profile", PROFILES)
def test_pvb_36_3_apsa_5_4_30_chips_taken_back_and_still_owed_are_told_once(
        profile: str) -> None:
    """The 100 a player took back are the 100 his raise lacks when the hand ends by folds:
    one alert (PVB 36(3)), not a second one for the same chips (APSA 5.4.30). (His raise was
    never called, so the 100 come out of the part that goes back to him (PVB 60(3)). The pot
    lacks nothing, and the alert for the chips taken back is told once, when they were taken.)"""
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100))
    run.feed(chips("seat:1", 500))  # took 100 back: told
    run.feed(chips("seat:2", 1000, 500, 300), declare(3, "fold"))
    step = run.feed(chips("seat:1", 1000, 1000, 500, 100, 100, 100, 100))  # 2,900 in
    assert last_action(run) == (1, "raise", 3000) and "100 more to put in" in step.events[-1].text
    run.feed(declare(2, "fold"))
    assert [e.rule for e in run.events if e.kind == "alert"] == ["PVB 36(3)"]

    # A raise completed to 3,000 with 2,900 in the zone, then nobody calls: the 100 still
    # owed are part of the 1,200 that go back (PVB 60(3)). The dealer pushes the called 1,800
    # into the pot and returns 1,100, and nothing is missing, so there is nothing to tell.
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 500, 100), chips("seat:2", 1000, 500, 300), declare(3, "fold"))
    step = run.feed(chips("seat:1", 1000, 1000, 500, 100, 100, 100, 100))  # 2,900
    assert last_action(run) == (1, "raise", 3000) and "100 more to put in" in step.events[-1].text
    run.feed(declare(2, "fold"))
    assert [e.rule for e in run.events if e.kind == "alert"] == []

    # Chips owed that nothing returned covers are still told when the hand ends: a short call
    # completed on the dealer's confirm (R8), and then the caller folds to a raise.
    run = hand_at(profile, 300, 600)
    run.feed(chips("seat:1", 1000, 500, 300))  # a raise to 1,800
    run.feed(chips("seat:2", 1000, 300, 300), key("confirm"))  # 1,600 of 1,800: completed
    assert last_action(run) == (2, "call", 1500)
    run.feed(chips("seat:3", 1000, 1000, 1000, 1000, 500, 500))  # a raise to 5,000
    run.feed(declare(1, "fold"), declare(2, "fold"))
    alerts = [e for e in run.events if e.kind == "alert"]
    assert [e.rule for e in alerts] == ["APSA 5.4.30"] and "seat 2" in alerts[0].text
    assert "200 still owed" in alerts[0].text


@pytest.mark.parametrize("profile", PROFILES)
def test_pvb_60_3_chips_a_bet_lacks_come_out_of_the_part_nobody_called(profile: str) -> None:
    """The soak's table 6, hand 1188 (seed 1, faults 0.1), with three seats. The button calls
    the big blind with one 500 chip; the dealer gives 451 back instead of 450, so 49 stay in
    the zone: 1 taken back, told once (PVB 36(3)). The small blind raises to 150; the button
    puts in 200 more (249 in the zone): a raise to 250 (PVB 42(4)) with 1 more to put in. The
    small blind calls all-in for 200, so 50 of the button's raise was never called and goes
    back to him (PVB 60(3)). His zone holds 249: 200 go into the pot and 49 go back, so the
    missing chip was part of what goes back. The pot zone holds 450 and the pots make 450, so
    the table must not say "count the pot" (APSA 5.4.25)."""
    run = start(seat(1, "ana", 10_000), seat(2, "ben", 200), seat(3, "cem", 10_000),
                config=SessionConfig(profile=profile, level=Level(sb=25, bb=50)))
    if profile == "cg-cash":  # B1: a high-card draw gives seat 1 the button
        run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c"])])
    run.feed(shuffle(), chips("seat:2", 25), chips("seat:3", 25, 25),
             deal({s: HOLES[s - 1] for s in (2, 3, 1)}, [2, 3, 1]))
    run.feed(chips("seat:1", 500), key("confirm"))
    assert last_action(run) == (1, "call", 50) and "450 back" in run.events[-1].text
    step = run.feed(chips("seat:1", 25, 5, 5, 5, 5, 1, 1, 1, 1))  # 451 back instead of 450
    assert [(e.rule, e.text.split(":")[0]) for e in step.events if e.kind == "alert"] == [
        ("PVB 36(3)", "seat 1 took 1 back out of the betting zone")]
    run.feed(chips("seat:2", 100, 25, 25), declare(3, "fold"))
    assert actions(run)[-2:] == [(2, "raise", 150), (3, "fold", 0)]
    step = run.feed(chips("seat:1", 100, 25, 25, 25, 25, 25, 5, 5, 5, 5, 1, 1, 1, 1))  # 249
    assert last_action(run) == (1, "raise", 250) and "1 more to put in" in step.events[-1].text
    run.feed(chips("seat:2", 100, 50, 25, 25))  # all-in for 200: 50 of the raise uncalled
    hand = run.session.table.hand
    assert hand is not None and [a.amount for a in hand.log if a.kind == "return"] == [50]
    # The dealer sweeps: 200 of the 249 into the pot, 49 back to the button.
    run.feed(chips("seat:1"), chips("seat:2"), chips("seat:3"),
             chips("pot", 100, 100, 100, 100, 25, 25))
    assert run.session.state().pot_zone == 450
    run.feed(card("burn", "3s"), *[card("board", c) for c in FLOP], card("burn", "4s"),
             card("board", "Jc"), card("burn", "5s"), card("board", "3d"))
    assert [e.rule for e in run.events if e.kind == "alert"] == ["PVB 36(3)"], [
        e.text for e in run.events if e.kind == "alert"]
    record = run.records()[-1]
    assert record.status == "complete"
    assert [(p.amount, p.winners) for p in record.pots] == [(450, [1])]
    assert run.session.table.seats[1].stack == 10_000 - 200 + 450
    chips_conserved(run, 20_200)


@pytest.mark.parametrize("profile", PROFILES)
def test_pvb_36_3_change_taken_out_of_the_ante_is_chips_taken_back(profile: str) -> None:
    """The ante lies in the zone beside the bet until the sweep: change given out of it (the
    zone holds 600 for a call of 600 and an ante of 100) is 100 taken back, told at once. It
    was taken for change, and the pot only came up short when it was counted (or never, when
    the hand ended by folds)."""
    run = start(*[seat(k + 1, NAMES[k], 100_000) for k in range(3)],
                config=SessionConfig(profile=profile, level=Level(sb=300, bb=600, ante=100)))
    if profile == "cg-cash":  # B1: a high-card draw gives seat 1 the button
        run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c"])])
    run.feed(shuffle(), chips("seat:1", 100), chips("seat:2", 300, 100),
             chips("seat:3", 500, 100, 100), deal({s: HOLES[s - 1] for s in (2, 3, 1)}, [2, 3, 1]))
    run.feed(chips("seat:1", 1000, 100), key("confirm"))
    assert last_action(run) == (1, "call", 600) and "400 back" in run.events[-1].text
    step = run.feed(chips("seat:1", 500, 100))  # 500 back instead of 400
    assert [(e.kind, e.rule) for e in step.events] == [("alert", "PVB 36(3)")]
    assert "took 100 back" in step.events[0].text
    step = run.feed(chips("seat:1", 500, 100, 100))  # the right change: nothing to tell
    assert not step.events


# ---------------------------------------------------------------- hands from chips alone


@pytest.mark.parametrize("profile", PROFILES)
def test_a_whole_hand_played_from_the_chip_zones(profile: str) -> None:
    run = hand_at(profile, 50, 100, players=4)
    total = run.session.chips_on_table()
    run.feed(chips("seat:4", 100, 100, 100))       # UTG raises to 300
    run.feed(chips("seat:1", 100, 100, 100))       # the button calls (same colour, one less
    run.feed(chips("seat:2", 100, 100, 50, 50))    # is short: a call); the small blind calls
    run.feed(chips("seat:3", 100, 100, 100))       # the big blind adds 200: his 100 stay
    assert [a[1] for a in actions(run)] == ["raise", "call", "call", "call"]
    run.feed(*[chips(f"seat:{s}") for s in (1, 2, 3, 4)], chips("pot", *([100] * 12)))
    run.feed(card("burn", "3s"), *[card("board", c) for c in FLOP])
    run.feed(key("confirm"), key("confirm"))         # small blind, big blind check
    run.feed(chips("seat:4", 500))                   # UTG bets 500 with one chip
    run.feed(chips("seat:1", 100, 100, 100, 100, 100), declare(2, "fold"), declare(3, "fold"))
    assert actions(run)[-4:] == [(4, "bet", 500), (1, "call", 500), (2, "fold", 0),
                                 (3, "fold", 0)]
    chips_conserved(run, total)


# ---------------------------------------------------------------- corrections


@pytest.mark.parametrize("profile", PROFILES)
def test_pvb_64_1_floor_corrects_a_reading_the_player_had_declared_a_call(profile: str) -> None:
    # Two 1,000s facing 1,200: under PVB 45 a raise; the player had said "call" first and the
    # dealer missed it: the floor corrects, the chips now make the call with 800 change.
    run = hand_at(profile, 200, 400, players=5)
    run.feed(chips("seat:4", 1000, 200), chips("seat:5", 1000, 1000))
    assert run.feed(key("undo")).events[0].rule == "PVB 64(1)"  # not the dealer's to undo
    step = run.feed(command("correct", seat=5, action="call"))
    assert step.accepted and last_action(run) == (5, "call", 1200)
    track = run.session.track
    assert track is not None and track.extra[5] == 800
    assert run.session.state().actor == 1


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("raise_", [declare(1, "raise", 2400), declare(1, "raise"),
                                    declare(1, "allin")])
def test_r8_apsa_5_4_30_no_raise_declared_after_a_short_call(profile: str,
                                                            raise_: dict[str, object]) -> None:
    """The table used to accept a raise from a player who called short, and the hand
    then could not finish. He may complete the call or fold, nothing else."""
    run = hand_at(profile, 200, 400, players=4)
    run.feed(declare(4, "raise", 1200), chips("seat:1", 100, 100, 100, 100))
    before = run.session.state()
    step = run.feed(raise_)
    assert not step.accepted and step.events[0].rule == "APSA 5.4.30"
    assert "complete the call or fold; no raise" in step.events[0].text
    assert run.session.state() == before
    run.feed(chips("seat:1", 1000, 100, 100, 100, 100, 100, 100, 100, 100))  # completes it
    assert last_action(run) == (1, "call", 1200)
    run.feed(declare(2, "fold"), declare(3, "fold"))
    assert run.session.state().stage == "dealing"  # the round is over: the flop is due
