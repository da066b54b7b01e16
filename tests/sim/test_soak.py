"""The soak (`pokertable soak`): simulated hands at full speed through the real session.

A perfect dealer gives the floor no alert at all; a faulty one gives exactly one alert per
mistake, in the hand of the mistake, naming its rule (APSA 5.4.25 count the pot, PVB 36(3)
chips taken back, PVB 30(2)(d) a card to the wrong seat). These are the false alerts of a room
demo found at their root: each fix below was found by this soak first.
"""

from __future__ import annotations

from collections import Counter

import pytest

from controller.cli import main
from controller.sim.soak import FAULTS, soak


def test_a_perfect_dealer_gives_no_alert_in_hundreds_of_hands() -> None:
    report = soak(tables=4, hands=100, seed=11)
    assert report.hands == 400
    # The structures and stacks really reach the hard cases.
    assert report.all_ins > 50 and report.side_pots > 20 and report.split_pots > 0
    assert report.plo_hands == 100 and report.level_changes > 0
    assert report.misdeals_called + report.time_calls > 0
    assert report.unexplained == [], report.unexplained[:3]
    assert report.refused == [] and report.stalls == []


def test_every_fault_gives_exactly_one_alert_naming_its_hand_and_rule() -> None:
    report = soak(tables=4, hands=80, seed=5, faults=0.3)
    kinds = Counter(f.fault for f in report.injected)
    assert set(kinds) == set(FAULTS), kinds
    assert report.missed == [] and report.unexplained == []
    assert report.refused == [] and report.stalls == []
    # (a misdeal the floor called in the same hand is its own, expected alert)
    by_hand = {(a.table, a.hand): a for a in report.alarms if a.status != "misdeal"}
    for fault in report.injected:
        if fault.healed and (fault.table, fault.hand) not in by_hand:
            continue  # the player's next chips made the zone whole before the pot was counted
        alarm = by_hand[(fault.table, fault.hand)]
        assert alarm.rule, alarm
        # Too much change shows when the zone is short of the bet (PVB 36(3)), or, when the
        # dealer made it as the bets went in, only when the pot is counted (APSA 5.4.25).
        expected = {"short_call": {"APSA 5.4.25", "APSA 5.4.30"}, "extra_in_pot": {"APSA 5.4.25"},
                    "wrong_change": {"PVB 36(3)", "APSA 5.4.25"},
                    "wrong_seat": {"PVB 30(2)(d)"}}[fault.fault]
        assert alarm.rule in expected, (fault, alarm)


def test_the_soak_command_exits_non_zero_only_for_false_alerts(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--tables", "1", "--hands", "30", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "1 tables, 30 hands" in out and "0 alerts no fault explains" in out
    assert main(["soak", "--faults", "1.5"]) == 2
    assert "--faults must be a chance from 0 to 1" in capsys.readouterr().err


@pytest.mark.long(15)
def test_cash_tables_straddles_variants_and_run_it_twice_give_no_false_alert() -> None:
    """The CG's cash table (table 2): straddles before the cards, bomb pots, flips and double
    boards now and then, run it twice after an all-in; a faulty dealer's mistakes there are told
    as anywhere."""
    report = soak(tables=2, hands=150, seed=7, cash=True)
    assert report.cash_hands == 150
    assert report.straddled > 5 and report.variant_hands > 0 and report.run_twice > 5
    assert report.unexplained == [] and report.refused == [] and report.stalls == []
    report = soak(tables=2, hands=120, seed=8, cash=True, faults=0.3)
    assert report.injected and report.missed == [] and report.unexplained == []
    assert report.refused == [] and report.stalls == []
