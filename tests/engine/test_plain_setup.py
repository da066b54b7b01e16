"""`PlainSetup`, the set-up the PHH replay deals from without pydantic (issue 37), stays in step
with `HandSetup`: the same fields and defaults, and a hand dealt from either plays the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine.hand import Hand, HandSetup, PlainPlayer, PlainSetup, PlayerSetup
from controller.engine.terms import Street
from controller.errors import PokertableError
from controller.history.phh import Replay, parse_phh


def test_plain_setup_has_the_fields_and_defaults_of_hand_setup() -> None:
    pairs = ((PlainSetup, HandSetup), (PlainPlayer, PlayerSetup))
    for plain_class, validated_class in pairs:
        defaults = plain_class._field_defaults  # (NamedTuples: issue 37)
        validated = validated_class.model_fields
        assert set(plain_class._fields) == set(validated), plain_class.__name__
        for name, field in validated.items():
            if field.is_required():
                assert name not in defaults, name
            else:
                assert defaults[name] == field.default, name


def test_plain_setup_answers_kind_and_limit_bets_as_hand_setup() -> None:
    players = (PlainPlayer("a", 1000, 0, 50), PlainPlayer("b", 1000, 0, 100))
    for betting, big_bet in ((None, None), ("split-limit", None), ("split-limit", 300)):
        plain = PlainSetup(players=players, min_bet=100, betting=betting, big_bet=big_bet)
        validated = HandSetup(players=[PlayerSetup(label=p.label, stack=p.stack, blind=p.blind)
                                       for p in players],
                              min_bet=100, betting=betting, big_bet=big_bet)
        assert plain.kind == validated.kind
        for street in Street:
            assert plain.limit_bet(street) == validated.limit_bet(street)


def _validated(setup: PlainSetup) -> HandSetup:
    values = setup._asdict()
    values["players"] = [PlayerSetup(label=p.label, stack=p.stack, ante=p.ante, blind=p.blind)
                         for p in setup.players]
    return HandSetup(**values)


def test_every_sample_plays_the_same_from_either_setup(phh_files: list[Path]) -> None:
    played = 0
    for path in phh_files:
        phh = parse_phh(path.read_text())
        plain, validated = Replay(phh), Replay(phh)
        assert isinstance(plain.hand.setup, PlainSetup)
        validated.hand = Hand(_validated(plain.hand.setup))
        outcomes = []
        for replay in (plain, validated):
            try:
                replay.run()
                outcomes.append((replay.hand.log, replay.hand.stacks, replay.hand.results))
            except PokertableError as exc:
                outcomes.append((str(exc), [], []))
        assert outcomes[0] == outcomes[1], path.name
        played += 1
    assert played == len(phh_files) > 40


@pytest.mark.parametrize("stack", [0, -5])
def test_a_plain_hand_is_dealt_only_from_what_its_caller_checked(stack: int) -> None:
    """What HandSetup refuses, the PHH replay refuses itself before it deals (no chips)."""
    text = ("variant='NT'\nantes=[0,0]\nblinds_or_straddles=[1,2]\nmin_bet=2\n"
            f"starting_stacks=[{stack},5]\nactions=[]\n")
    with pytest.raises(PokertableError, match="p1 has no chips"):
        Replay(parse_phh(text))
