"""Hypothesis over the chip zones: any sequence of zone changes yields a legal action
or a clear wait for the dealer, never an illegal state, never a change in the chips at the table.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine.hand import Stage
from controller.events import parse_event
from tests.session.chip_hands import PROFILES, hand_at

EXAMPLES = int(os.environ.get("CHIP_EXAMPLES", "120"))
DENOMINATIONS = [25, 100, 500, 1000, 5000]

zone_change = st.tuples(
    st.sampled_from(["seat:1", "seat:2", "seat:3", "seat:4", "seat:5", "pot"]),
    st.lists(st.sampled_from(DENOMINATIONS), max_size=8),
)
dealer_move = st.one_of(
    st.just({"type": "key", "key": "confirm"}),
    st.builds(lambda s, a: {"type": "declare", "seat": s, "action": a},
              st.integers(1, 5), st.sampled_from(["call", "raise", "fold", "allin", "check"])),
)
step = st.one_of(zone_change, zone_change, zone_change, dealer_move)


@settings(max_examples=EXAMPLES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(profile=st.sampled_from(PROFILES), blinds=st.sampled_from([(25, 50), (100, 200),
                                                                   (300, 600)]),
       stack=st.sampled_from([1_500, 20_000]), steps=st.lists(step, max_size=40))
def test_any_zone_changes_give_an_action_or_a_clear_wait(
    profile: str, blinds: tuple[int, int], stack: int, steps: list[Any],
) -> None:
    run = hand_at(profile, *blinds, players=5, stack=stack)
    session = run.session
    total = session.chips_on_table()
    for item in steps:
        hand = session.table.hand
        assert hand is not None
        live = hand.stage is Stage.BETTING
        actor = session.table.actor_seat()
        log_before = len(hand.log)
        doubt_before = session.track.doubt if session.track else None
        if isinstance(item, tuple):
            zone, values = item
            raw: dict[str, Any] = {"type": "chips", "zone": zone, "chips": values}
        else:
            raw = item
        result = session.handle(parse_event(raw))  # never raises
        assert result.accepted or result.events[0].kind == "refused"
        assert session.chips_on_table() == total, raw
        hand = session.table.hand
        assert hand is not None
        assert all(s >= 0 for s in hand.stacks) and all(b >= 0 for b in hand.bets)
        state = session.state()
        assert state.waiting_for  # the table always says what it waits for
        if (live and isinstance(item, tuple) and item[0] == f"seat:{actor}"
                and doubt_before is None and result.changed):
            acted = len(hand.log) > log_before
            track = session.track
            assert track is not None
            waits = track.doubt is not None and state.waiting_for.startswith(f"seat {actor}:")
            index = session._seat_index(actor or 0)
            assert index is not None
            face = session.chips.face(actor or 0)
            nothing_added = face <= hand.bets[index]
            assert acted or waits or nothing_added, (raw, state.waiting_for)
            if waits:
                assert result.events[-1].kind == "wait" and result.events[-1].rule
