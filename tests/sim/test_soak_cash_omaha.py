"""The soak's pot-limit Omaha cash tables (`pokertable soak --cash`: tables 3, 7, 11, ...) beside
the hold'em ones: the CG's cash game dealt as pot-limit Omaha, with straddles, bomb pots, flips,
double boards and runs twice, gives a perfect dealer's floor no alert, and a faulty dealer's
mistakes one alert each, as anywhere."""

from __future__ import annotations

import pytest

from controller.engine.records import HandRecord
from controller.sim.soak import soak


@pytest.mark.long(20)
def test_omaha_cash_tables_deal_the_cg_variants_without_a_false_alert() -> None:
    hands = 150
    records: list[HandRecord] = []
    report = soak(tables=3, hands=hands, seed=3, cash=True, records=records.append)
    # table 1 a tournament's hold'em, table 2 hold'em cash, table 3 pot-limit Omaha cash
    assert report.cash_hands == 2 * hands and report.plo_cash_hands == hands
    assert report.plo_hands == hands
    omaha = [r for r in records if r.table == "3" and r.status == "complete"]
    assert omaha and all(r.cash and r.game == "PO" for r in omaha)
    assert all(len(cards) == 8 for r in omaha for cards in r.hole_cards.values())
    # (ten-handed now and then: 40 hole cards leave no deck for two boards, and the dealer
    # offers none there: two boards come in the hands with fewer players)
    assert max(len(r.hole_cards) for r in omaha) == 10
    assert all(len(r.hole_cards) <= 9 for r in omaha if r.double_board)
    assert sum(bool(r.straddles) for r in omaha) > 5
    assert sum(bool(r.run_twice) for r in omaha) > 5
    assert sum(bool(r.variant or r.double_board) for r in omaha) > 0
    assert report.unexplained == [], report.unexplained[:3]
    assert report.refused == [] and report.stalls == []
    assert f"{2 * hands:,} cash hands ({hands:,} pot-limit Omaha)" in report.summary()
    report = soak(tables=3, hands=80, seed=22, cash=True, faults=0.3)
    assert {f.table for f in report.injected} == {"1", "2", "3"}
    assert report.missed == [] and report.unexplained == []
    assert report.refused == [] and report.stalls == []
