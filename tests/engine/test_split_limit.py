"""Split limit (fixed limit), the third betting kind, each rule by its CG section: "Limits" (the
kind is set before play; the limit gives the size of every bet: the small bet, which is the big
blind, before and on the flop, the big bet, twice it, on the turn and river, APSA 5.2), "Raise"
(three raises a round; no cap once only two players are left before the third raise) and
"Unvollständiges Raise" (an all-in for less than a full raise does not reopen the betting for
those who already acted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from controller.engine.hand import Options, Stage, Street
from controller.engine.profiles import load_profile
from controller.engine.table_play import BetOrRaise, Call, Level, SitDown, StartHand, Table
from controller.errors import IllegalAmount
from tests.engine.helpers import make_hand, run


def test_cg_limits_small_bet_before_and_on_the_flop_big_bet_on_turn_and_river() -> None:
    hand = make_hand([10_000] * 3, betting="split-limit")  # blinds 50/100: limit 100/200
    options = hand.options()
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (200, 200)
    run(hand, "p3 cbr 200; p1 c; p2 c; db 2c3d4h")
    assert hand.options() == Options(0, 0, 100, 100)
    run(hand, "p1 cbr 100; p2 cbr 200")
    options = hand.options()
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (300, 300)
    run(hand, "p3 c; p1 c; db 5s")
    options = hand.options()
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (200, 200)
    run(hand, "p1 cbr 200; p2 cbr 400; p3 c; p1 c; db 6s")
    assert hand.street is Street.RIVER
    options = hand.options()
    assert options is not None and (options.min_raise_to, options.max_raise_to) == (200, 200)
    run(hand, "p1 cbr 200; p2 c; p3 c")
    assert hand.stage is Stage.SHOWDOWN
    assert hand.contributions == [200 + 200 + 400 + 200] * 3


def test_cg_limits_no_other_size_in_the_dealers_words() -> None:
    hand = make_hand([10_000] * 3, betting="split-limit")
    with pytest.raises(IllegalAmount, match=r"^raise to 300: in split limit a raise on the "
                                            r"preflop is 100 more, to 200 \(CG Limits\)$"):
        hand.bet_or_raise_to(2, 300)
    with pytest.raises(IllegalAmount, match=r"raise to 150: .* to 200 \(CG Limits\)"):
        hand.bet_or_raise_to(2, 150)  # below it as well: no minimum, one size
    assert hand.actor == 2 and hand.current_bet == 100 and hand.log[-1].kind != "raise"
    run(hand, "p3 c; p1 c; p2 x; db 2c3d4h; p1 x; p2 x; p3 x; db 5s")
    with pytest.raises(IllegalAmount, match=r"^bet of 100: in split limit the turn bet is 200 "
                                            r"\(CG Limits\)$"):
        hand.bet_or_raise_to(0, 100)
    with pytest.raises(IllegalAmount, match=r"bet of 400: .* turn bet is 200"):
        hand.bet_or_raise_to(0, 400)
    assert hand.can("bet_or_raise_to", 0, 200)


def test_cg_limits_an_all_in_for_less_than_the_size_is_allowed_nothing_between() -> None:
    hand = make_hand([10_000, 10_000, 350], betting="split-limit")
    run(hand, "p3 c; p1 c; p2 x; db 2c3d4h; p1 x; p2 x; p3 cbr 100; p1 cbr 200; p2 c")
    # p3 has 250 in all: a raise to 300 is more than he has, so all-in for 250 or nothing
    assert hand.options() == Options(2, 100, 250, 250)
    with pytest.raises(IllegalAmount, match=r"^raise to 220: in split limit a raise on the flop "
                                            r"is 100 more, to 300; with 250 in all, p3 can only "
                                            r"go all-in \(CG Limits\)$"):
        hand.bet_or_raise_to(2, 220)
    with pytest.raises(IllegalAmount, match=r"more than p3 has \(250 in all\) \(PVB 43\)"):
        hand.bet_or_raise_to(2, 300)
    run(hand, "p3 cbr 250")
    assert hand.all_in[2] and hand.current_bet == 250
    assert hand.options() == Options(0, 50, None, None)  # CG Unvollständiges Raise


def test_cg_limits_the_kind_is_the_profiles_and_goes_into_the_record(tmp_path: Path) -> None:
    path = tmp_path / "cg-limit.toml"
    path.write_text('name = "cg-limit"\nbetting = "split-limit"\ngame = "PO"\n')
    profile = load_profile(path)
    assert profile.betting == "split-limit" and load_profile("cg-cash").betting is None
    table = Table(level=Level(sb=50, bb=100), profile=profile)
    for seat in (1, 2, 3):
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=5_000))
    table.apply(StartHand())
    hand = table.hand
    assert hand is not None and hand.betting == "split-limit" and hand.game == "PO"
    first = table.actor_seat()
    assert first is not None
    with pytest.raises(IllegalAmount, match=r"\(CG Limits\)"):
        table.apply(BetOrRaise(seat=first, to=350))  # the pot limit would allow it
    table.apply(BetOrRaise(seat=first, to=200))
    for _ in range(2):
        seat = table.actor_seat()
        assert seat is not None
        table.apply(Call(seat=seat))
    assert hand.stage is Stage.DEALING and hand.contributions == [200, 200, 200]


def test_cg_limits_records_name_split_limit_and_no_other_kind() -> None:
    from controller.engine.records import Blinds, build_record

    def record_of(**kwargs: object) -> dict[str, object]:
        hand = make_hand([1_000, 1_000], blinds=[100, 50], **kwargs)  # type: ignore[arg-type]
        hand.fold(1)
        return build_record(hand, table="1", number=1, level=1, blinds=Blinds(sb=50, bb=100),
                            button=2, sb=2, bb=1, seats=[1, 2],
                            players={1: "A", 2: "B"}).model_dump()

    assert record_of(betting="split-limit")["betting"] == "split-limit"
    assert "betting" not in record_of()  # records of the game's own kind read as before
    assert "betting" not in record_of(game="PO", betting="pot-limit")
    assert record_of(betting="pot-limit")["betting"] == "pot-limit"  # pot-limit hold'em


def test_cg_limits_big_bet_twice_the_small_unless_set_and_only_for_split_limit() -> None:
    hand = make_hand([10_000] * 2, blinds=[100, 50], betting="split-limit", big_bet=300)
    run(hand, "p2 c; p1 x; db 2c3d4h; p1 x; p2 x; db 5s")
    assert hand.min_raise_to(0) == hand.max_raise_to(0) == 300
    with pytest.raises(ValidationError, match="big_bet is for split limit only"):
        make_hand([10_000] * 2, big_bet=300)


def test_cg_raise_a_bet_and_three_raises_a_round() -> None:
    hand = make_hand([10_000] * 4, betting="split-limit")
    # preflop the big blind is the bet: three raises to 400
    run(hand, "p3 cbr 200; p4 cbr 300; p1 cbr 400")
    assert hand.options() == Options(1, 300, None, None)
    with pytest.raises(IllegalAmount, match=r"^p2 cannot raise: three raises already this "
                                            r"round; call or fold \(CG Raise\)$"):
        hand.bet_or_raise_to(1, 500)
    run(hand, "p2 c; p3 c; p4 c; db 2c3d4h")
    run(hand, "p1 cbr 100; p2 cbr 200; p3 cbr 300; p4 cbr 400")  # the flop: bet and 3 raises
    assert not hand.can("bet_or_raise_to", 0, 500)
    run(hand, "p1 c; p2 c; p3 c; db 5s")
    run(hand, "p1 x; p2 cbr 200")  # a new round, a new count
    assert hand.can("bet_or_raise_to", 2, 400)


def test_cg_raise_heads_up_no_limit_on_the_number_of_raises() -> None:
    hand = make_hand([100_000] * 2, blinds=[100, 50], betting="split-limit")
    amount = 200
    for k in range(12):  # p2, the button, acts first preflop
        hand.bet_or_raise_to(1 if k % 2 == 0 else 0, amount)
        amount += 100
    assert hand.stage is Stage.BETTING and hand.full_bets == 13


def test_cg_raise_two_players_left_before_the_third_raise_no_cap() -> None:
    hand = make_hand([100_000] * 3, betting="split-limit")
    run(hand, "p3 cbr 200; p1 cbr 300; p2 f")  # two raises made, two players left
    run(hand, "p3 cbr 400; p1 cbr 500; p3 cbr 600")
    assert hand.can("bet_or_raise_to", 0, 700)


def test_cg_raise_the_cap_stands_when_players_fold_after_the_third_raise() -> None:
    hand = make_hand([100_000] * 3, betting="split-limit")
    run(hand, "p3 cbr 200; p1 cbr 300; p2 cbr 400; p3 f")
    assert hand.options() == Options(0, 100, None, None)
    with pytest.raises(IllegalAmount, match=r"\(CG Raise\)"):
        hand.bet_or_raise_to(0, 500)


def test_cg_raise_an_all_in_player_is_still_in_the_hand() -> None:
    """'Befinden sich nur noch zwei Spielteilnehmer im Spiel': a player all-in is in the game
    (his hand plays for the pot), so with three hands in the cap holds for the two who bet."""
    hand = make_hand([100_000, 100_000, 150], betting="split-limit")
    run(hand, "p3 cbr 150; p1 cbr 250; p2 cbr 350")  # 150: an all-in, not a full raise
    run(hand, "p1 cbr 450")  # the third raise
    assert hand.capped() and not hand.can("bet_or_raise_to", 1, 550)


def test_cg_unvollstaendiges_raise_a_short_all_in_does_not_reopen_nor_count() -> None:
    hand = make_hand([10_000, 10_000, 10_000, 250], betting="split-limit")
    run(hand, "p3 c; p4 c; p1 c; p2 x; db 2c3d4h")  # the button has 150 left
    run(hand, "p1 cbr 100; p2 c; p3 c")
    run(hand, "p4 cbr 150")  # all-in: 50 more, less than a full raise of 100
    # p1, p2 and p3 acted and face less than a full raise: call or fold
    with pytest.raises(IllegalAmount, match=r"^p1 cannot raise: the all-in was less than a full "
                                            r"raise .* call or fold \(CG Unvollständiges "
                                            r"Raise\)$"):
        hand.bet_or_raise_to(0, 250)
    assert hand.options() == Options(0, 50, None, None)
    assert hand.full_bets == 1  # the short all-in is not one of the three raises


def test_cg_unvollstaendiges_raise_a_player_yet_to_act_raises_a_full_bet_over_it() -> None:
    hand = make_hand([10_000, 230, 10_000, 10_000], betting="split-limit")
    run(hand, "p3 c; p4 c; p1 c; p2 x; db 2c3d4h")  # the big blind has 130 left
    run(hand, "p1 cbr 100; p2 cbr 130")  # p2 all-in: 30 more
    assert hand.options() == Options(2, 130, 230, 230)
    run(hand, "p3 cbr 230; p4 cbr 330; p1 cbr 430")  # three full raises after the short one
    assert hand.capped()


def test_pot_limit_and_no_limit_unchanged_by_the_count() -> None:
    hand = make_hand([10**9] * 3)
    amount = 200
    for k in range(9):
        hand.bet_or_raise_to((2 + k) % 3, amount)
        amount *= 2
    assert not hand.capped() and hand.betting == "no-limit"
    po = make_hand([10_000] * 3, game="PO")
    assert po.betting == "pot-limit" and po.max_raise_to(2) == 350
