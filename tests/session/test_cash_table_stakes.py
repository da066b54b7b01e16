"""Table stakes and buy-ins at a cash table (the CG, "Einsätze"), through the session from the
table's events: seats, chips read on the zones, keys and the floor's commands.

CG "Buy-in" / "Limits": the table's minimum and maximum buy-in; CG "Table Stake": chips added
only between hands, never taken off, every bet divisible by the small blind; CG "Blinds" and
"Am Sitzplatz": an absent player's blinds taken from his stack, a new player's blind, a seat
change, a player moved by the floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.engine.table_play import Level
from controller.errors import ConfigError
from controller.session import SessionConfig
from controller.session.model import BuyIn
from controller.table.config import load_table_config
from tests.session.cash_table_helpers import (
    HOLES,
    LIMITS,
    NAMES,
    hand,
    said,
    stack_of,
    table,
)
from tests.session.helpers import Run, card, chips, command, deal, declare, seat, shuffle, start


def folds_to_the_big_blind(run: Run) -> None:
    """Everyone folds to the big blind (seat 3): the hand is over, his blind back to him."""
    for s in (4, 1, 2):
        run.feed(declare(s, "fold"))
    assert run.session.state().stage == "over"


# ---------------------------------------------------------------- CG Buy-in, CG Limits


def test_cg_buy_in_a_sit_down_below_the_minimum_is_refused() -> None:
    run = table()
    step = run.feed(seat(5, "emil", 3_000))
    assert not step.accepted
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("refused", "seat 5: emil buys in for 3,000: this table's minimum buy-in is 4,000",
         "CG Buy-in")]
    assert 5 not in run.session.state().seats


def test_cg_limits_a_sit_down_above_the_maximum_is_refused_even_during_a_hand() -> None:
    run = table()
    hand(run)
    step = run.feed(seat(5, "emil", 12_000))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("refused", "seat 5: emil buys in for 12,000: this table's maximum buy-in is 10,000",
         "CG Limits")]
    step = run.feed(seat(5, "emil", 10_000))  # within: he sits down after this hand
    assert step.accepted and run.session.queued_seats[0].player == "emil"


def test_cg_buy_in_within_the_limits_and_a_new_player_waits_for_his_blinds() -> None:
    run = table()
    step = run.feed(seat(5, "emil", 4_000))
    assert step.accepted and stack_of(run, 5) == 4_000
    told = said(run, "seat", "CG Blinds")
    assert [e.text for e in told][-1] == ("seat 5: emil posts no blind until the blinds reach "
                                         "him (CG Blinds)")
    # Dealt in at once (CG "Am Sitzplatz": every valid table stake gets cards), no blind.
    hand(run, players=5)
    table_hand = run.session.table.hand
    positions = run.session.table.positions
    assert table_hand is not None and positions is not None
    assert 5 in positions.dealt
    index = positions.dealt.index(5)
    assert not [a for a in table_hand.log if a.player == index and a.kind == "blind"]


def test_cg_blinds_a_player_moved_by_the_floor_brings_his_stake_and_no_blind() -> None:
    run = table()
    step = run.feed({**seat(5, "emil", 23_000), "arrival": "moved"})
    assert step.accepted and stack_of(run, 5) == 23_000  # the whole table stake (Tischwechsel)
    assert said(run, "seat", "CG Blinds")[-1].text == (
        "seat 5: emil comes moved by the floor with his whole stake and brings no blind "
        "(CG Blinds)")
    run.feed({**seat(6, "fay", 1_000), "arrival": "broken-table"})
    assert stack_of(run, 6) == 1_000
    assert "from a broken table" in said(run, "seat", "CG Blinds")[-1].text


def test_cg_limits_a_top_up_above_the_maximum_is_refused() -> None:
    run = table()
    step = run.feed(command("stack", seat=1, player="ana", add=6_000))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("refused", "stack: seat 1: ana tops up to 11,000: this table's maximum buy-in is "
         "10,000", "CG Limits")]
    assert stack_of(run, 1) == 5_000
    step = run.feed(command("stack", seat=1, player="ana", add=5_000))
    assert step.accepted and stack_of(run, 1) == 10_000


def test_cg_table_stake_a_top_up_only_between_hands() -> None:
    run = table()
    hand(run)
    step = run.feed(command("stack", seat=1, player="ana", add=1_000))
    assert not step.accepted and step.events[0].rule == "CG Table Stake"
    assert stack_of(run, 1) == 5_000


# ---------------------------------------------------------------- CG Table Stake: the chips


def test_cg_table_stake_chips_laid_on_the_zone_between_hands_are_a_top_up() -> None:
    run = table()
    # The dealer changes the player's cash and lays the stack on his zone in two motions,
    # then takes it back: the count is complete when the zone is empty again.
    run.feed(chips("seat:1", *[1_000] * 5))
    run.feed(chips("seat:1", *[1_000] * 6, 500))
    assert stack_of(run, 1) == 5_000  # not while it is being laid down
    step = run.feed(chips("seat:1"))
    assert [(e.kind, e.text, e.rule) for e in step.events] == [
        ("decision", "seat 1: ana adds 1,500 between hands (a top-up read on the zone): "
         "6,500 (CG Table Stake)", "CG Table Stake")]
    assert stack_of(run, 1) == 6_500


def test_cg_table_stake_chips_taken_off_the_table_are_told() -> None:
    run = table()
    run.feed(chips("seat:2", *[1_000] * 4), chips("seat:2"))
    alerts = said(run, "alert")
    assert [(e.text, e.rule, e.seat) for e in alerts] == [
        ("seat 2: ben's stack reads 4,000, 1,000 less than the 5,000 in play: chips are never "
         "taken off the table (CG Table Stake); count the stack", "CG Table Stake", 2)]
    assert stack_of(run, 2) == 5_000  # the floor counts it (`stack`)
    # A stack laid and read whole says nothing.
    run.feed(chips("seat:3", *[1_000] * 5), chips("seat:3"))
    assert len(said(run, "alert")) == 1


def test_cg_limits_chips_read_above_the_maximum_are_no_top_up() -> None:
    run = table()
    run.feed(chips("seat:1", *[1_000] * 11), chips("seat:1"))
    assert [(e.kind, e.rule) for e in run.steps[-1].events] == [("alert", "CG Limits")]
    assert "above this table's maximum buy-in of 10,000" in run.steps[-1].events[0].text
    assert stack_of(run, 1) == 5_000


def test_cg_table_stake_the_hands_chips_leaving_the_zone_are_no_count() -> None:
    run = table()
    hand(run)
    run.feed(chips("seat:4", 400, 100))  # seat 4 raises to 500; everyone folds to it
    for s in (1, 2, 3):
        run.feed(declare(s, "fold"))
    assert run.session.state().stage == "over"
    run.feed(chips("seat:4", 100), chips("seat:4"))  # the dealer hands back the uncalled bet
    assert not said(run, "alert")
    assert stack_of(run, 4) == 5_000 + 150


def test_cg_table_stake_chips_arriving_during_a_hand_are_told() -> None:
    run = table(stack=5_000)
    hand(run)
    step = run.feed(chips("seat:4", *[1_000] * 6))  # a player with 5,000 puts out 6,000
    alerts = [e for e in step.events if e.kind == "alert"]
    assert [(e.text, e.rule) for e in alerts] == [
        ("seat 4's betting zone holds 6,000, more than the 5,000 he brought to this hand: "
         "chips are added between hands only, never during a hand; the extra chips do not "
         "play", "CG Table Stake")]
    # (the reading itself waits for the dealer's count: all-in for 5,000 at most, PVB 43)
    assert "count the chips" in run.session.state().waiting_for
    run.feed(chips("seat:4", *[1_000] * 7))  # told once a hand
    assert len(said(run, "alert", "CG Table Stake")) == 1


def test_cg_table_stake_a_bet_is_divisible_by_the_small_blind_the_rest_goes_back() -> None:
    run = table()
    hand(run)
    step = run.feed(chips("seat:4", 1_000, 200, 25, 5))  # 1,230 at 50/100
    actions = [e for e in step.events if e.kind == "action"]
    assert [(e.text, e.data["amount"]) for e in actions] == [
        ("seat 4 raises to 1,200 (in one motion; 1,230 is no multiple of the small blind (50): "
         "1,200, the odd 30 goes back (CG Table Stake); 30 back to the player)", 1_200)]
    hand_now = run.session.table.hand
    assert hand_now is not None and hand_now.current_bet == 1_200
    # A call matches the bet, and the change taken back is no alert.
    run.feed(chips("seat:4", 1_000, 200), chips("seat:1", 1_000, 200))
    assert not said(run, "alert")
    assert run.session.state().actor == 2


def test_cg_table_stake_a_declared_raise_is_divisible_too() -> None:
    """The dealer keys in a raise the small blind does not divide: as with chips, the raise is
    to the amount below, and the odd rest goes back (CG Table Stake)."""
    run = table()
    hand(run)
    step = run.feed(declare(4, "raise", 1_230))
    actions = [e for e in step.events if e.kind == "action"]
    assert [e.text for e in actions] == [
        "seat 4 raises to 1,200; 1,230 is no multiple of the small blind (50): 1,200, the odd "
        "30 goes back (CG Table Stake)"]
    hand_now = run.session.table.hand
    assert hand_now is not None and hand_now.current_bet == 1_200
    run.feed(declare(1, "raise", 2_400))  # a raise the small blind divides stands
    assert hand_now.current_bet == 2_400


def test_cg_unteilbare_jetons_in_a_2_5_game_bets_are_divisible_by_the_big_blind() -> None:
    """CG Unteilbare Jetons: "Ausnahme: Im Limit 2/5 müssen alle getätigten Einsätze durch das
    Big Blind teilbar sein": read from the chips or keyed in, and a bomb pot's amount."""
    run = start(*[seat(k + 1, NAMES[k], 1_000) for k in range(4)],
                config=SessionConfig(profile="cg-cash", level=Level(sb=2, bb=5)))
    run.feed(*[card(f"seat:{k + 1}", c) for k, c in enumerate(["As", "2c", "3c", "4c"])])
    refused = run.feed(command("variant", kind="bomb-pot", amount=12))
    assert [e.text for e in refused.events if e.kind == "refused"] == [
        "a bomb pot: every player puts in an amount the big blind divides (5): args.amount"]
    run.feed(shuffle(), chips("seat:2", 2), chips("seat:3", 5))
    run.feed(deal({s: HOLES[s - 1] for s in (2, 3, 4, 1)}, [2, 3, 4, 1]))
    step = run.feed(chips("seat:4", 25, 1, 1))  # 27
    assert [e.text for e in step.events if e.kind == "action"] == [
        "seat 4 raises to 25 (in one motion; 27 is no multiple of the big blind (5): 25, the "
        "odd 2 goes back (CG Table Stake); 2 back to the player)"]
    run.feed(declare(1, "raise", 62))
    hand_now = run.session.table.hand
    assert hand_now is not None and hand_now.current_bet == 60
    run.feed(command("variant", kind="bomb-pot", amount=10))
    wanted = run.session.state().next_variant
    assert wanted is not None and (wanted.variant, wanted.amount) == ("bomb-pot", 10)


def test_cg_table_stake_an_all_in_plays_whole() -> None:
    run = table(stack=5_000)
    run.feed(command("stack", seat=4, player="dora", add=30))  # (an odd stake: 5,030)
    hand(run)
    run.feed(chips("seat:4", *[1_000] * 5, 25, 5))
    hand_now = run.session.table.hand
    assert hand_now is not None and hand_now.current_bet == 5_030


def test_pvb_tables_keep_their_chips_as_read() -> None:
    """The divisibility is the CG's (a cash table): a tournament's bet stands as read."""
    run = start(*[seat(k + 1, NAMES[k], 5_000) for k in range(4)],
                config=SessionConfig(level=Level(sb=50, bb=100)))
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    run.feed(deal({s: HOLES[s - 1] for s in (2, 3, 4, 1)}, [2, 3, 4, 1]))
    run.feed(chips("seat:4", 1_000, 200, 25, 5))
    hand_now = run.session.table.hand
    assert hand_now is not None and hand_now.current_bet == 1_230


# ---------------------------------------------------------------- CG Blinds, CG Am Sitzplatz


def test_cg_blinds_an_absent_players_blinds_are_taken_from_his_stack() -> None:
    run = table()
    run.feed(command("absent", seat=3))
    posted = []
    for _ in (1, 2):  # the big blind, then the small blind: away both times
        run.feed(shuffle())
        state = run.session.state()
        told = [e for e in run.steps[-1].events if e.rule == "CG Blinds"]
        blind = 100 if state.bb == 3 else 50
        assert [(e.text, e.seat) for e in told] == [
            (f"seat 3 is away: the dealer takes the blind of {blind:,} from the stack into the "
             "betting zone (CG Blinds: no missed blinds)", 3)]
        run.feed(chips(f"seat:{state.sb}", 50), chips(f"seat:{state.bb}", 100))
        dealt = run.session.table.positions
        table_hand = run.session.table.hand
        assert dealt is not None and table_hand is not None
        posted += [a.amount for a in table_hand.log
                   if a.kind == "blind" and dealt.dealt[a.player or 0] == 3]
        run.feed(deal({s: HOLES[k] for k, s in enumerate(dealt.dealt)}, list(dealt.dealt)))
        # CG "Am Sitzplatz": not at his seat when the deal ends, his hand is dead.
        assert "the hand is dead, the blinds stay" in said(run, "alert")[-1].text
        while run.session.state().stage != "over":
            actor = run.session.state().actor
            assert actor is not None
            run.feed(declare(actor, "fold"))
        for zone in (2, 3, 4):
            run.feed(chips(f"seat:{zone}"))
        run.feed(chips("pot"))
    assert posted == [100, 50]  # taken from his stack each time: no blind is ever missed
    assert stack_of(run, 3) < 5_000 - 50
    # Back at the table he owes nothing: the next hand names no blind of his.
    run.feed(command("present", seat=3), shuffle())
    assert not [e for e in run.steps[-1].events if e.rule == "CG Blinds"]
    assert run.session.state().sb != 3 and run.session.state().bb != 3


def seat_change(run: Run, player_seat: int, to: int, stack: int = 5_000) -> Any:
    run.feed(seat(player_seat, None))
    return run.feed(seat(to, NAMES[player_seat - 1], stack))


def test_cg_blinds_a_seat_change_two_occupied_seats_away_from_the_button_brings_the_bb() -> None:
    run = table(players=5)
    hand(run, players=5)  # button 1, small blind 2, big blind 3
    folds = [4, 5, 1, 2]
    for s in folds:
        run.feed(declare(s, "fold"))
    assert run.session.state().stage == "over"
    run.feed(chips("seat:2"), chips("seat:3"))
    # Seat 2 moves to seat 6, past seats 3, 4 and 5: three occupied seats away from the button.
    step = seat_change(run, 2, 6, 4_950)
    told = [e for e in step.events if e.rule == "CG Blinds"]
    assert [(e.kind, e.text, e.data["posts"]) for e in told] == [
        ("seat", "seat 6: ben changes seats from seat 2, 3 occupied seats clockwise away from "
         "the button: he posts the big blind of 100 in his first hand at this seat (CG Blinds: "
         "a seat change)", 100)]
    assert not [e for e in step.events if e.kind == "alert"]
    # (the post itself: tests/session/test_cash_seat_change.py)


def test_cg_blinds_a_seat_change_by_one_seat_or_towards_the_button_brings_none() -> None:
    run = table(players=5)
    hand(run, players=5)
    for s in (4, 5, 1, 2):
        run.feed(declare(s, "fold"))
    run.feed(chips("seat:2"), chips("seat:3"))
    step = seat_change(run, 5, 6)  # past nobody
    assert [e.text for e in step.events if e.rule == "CG Blinds"] == [
        "seat 6: emil changes seats from seat 5 with his stake of 5,000: no blind to bring "
        "(not two occupied seats away from the button, CG Blinds)"]
    step = seat_change(run, 4, 7)  # past seats 5 (empty now) and 6 (emil): one occupied seat
    assert not [e for e in step.events if e.kind == "alert"]
    assert not [e for e in run.events if e.kind == "alert"]


def test_cg_table_stake_a_seat_change_keeps_the_stake() -> None:
    run = table(players=5)
    run.feed(seat(5, None))
    step = run.feed(seat(6, "emil", 9_000))
    assert [(e.kind, e.rule) for e in step.events] == [("refused", "CG Table Stake")]
    assert "changes seats from seat 5 with his stake of 5,000, not 9,000" in step.events[0].text
    step = run.feed(seat(6, "emil", 5_000))
    assert step.accepted and stack_of(run, 6) == 5_000


# ---------------------------------------------------------------- restarts and bad input


def test_a_count_in_progress_survives_a_refusal_replay() -> None:
    """A refused event replays the story since the snapshot: a count half laid stays."""
    run = table()
    run.feed(shuffle(), chips("seat:2", 50), chips("seat:3", 100))
    run.feed(deal({s: HOLES[s - 1] for s in (2, 3, 4, 1)}, [2, 3, 4, 1]))
    folds_to_the_big_blind(run)
    run.feed(chips("seat:2"), chips("seat:3"))
    run.feed(chips("seat:1", *[1_000] * 6))
    refused = run.feed(command("stack", seat=1, player="nobody", add=5))
    assert not refused.accepted
    step = run.feed(chips("seat:1"))
    assert [e.rule for e in step.events] == ["CG Table Stake"]
    assert stack_of(run, 1) == 6_000


@pytest.mark.parametrize("bad", [{"min": 0}, {"min": 5_000, "max": 4_000}])
def test_a_buy_in_setting_out_of_range_is_refused(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        BuyIn.model_validate(bad)


def test_without_a_buy_in_setting_any_stake_sits_down() -> None:
    run = table(buy_in=None)
    assert run.feed(seat(5, "emil", 50)).accepted
    assert stack_of(run, 5) == 50


def test_cg_buy_in_is_the_tables_setting_in_table_toml(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "7"\nprofile = "cg-cash"\n'
                    '[table.buy_in]\nmin = 4000\nmax = 10000\n')
    assert load_table_config(path).session().buy_in == LIMITS
    path.write_text('[table]\nid = "7"\n[table.buy_in]\nmin = 4000\nmax = 1000\n')
    with pytest.raises(ConfigError, match="buy_in"):
        load_table_config(path)
