"""PHH import and `pokertable replay`: the 41 shared samples and the refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import rtoml

from controller.errors import FouledDeck, IllegalAmount, NotYourTurn, PhhError, UnknownCards
from controller.history.phh import replay_text
from tests.conftest import PHH_DIR

# Hands whose showdown needs cards the file gives as ????: refused, a pot cannot be decided.
UNDECIDABLE = {"abs100nl_f1_h122_bb_only_antes_showdown.phh"}


def whole_chip_stacks(expected: list[float | int]) -> list[int]:
    """The file's stacks with split half chips resolved as RULES S2 says: the odd chip goes to
    the first player left of the button, i.e. the earlier player in the file."""
    out: list[int] = []
    pending_half = False
    for value in expected:
        exact = Decimal(str(value))
        if exact == exact.to_integral_value():
            out.append(int(exact))
        elif not pending_half:
            out.append(int(exact + Decimal("0.5")))
            pending_half = True
        else:
            out.append(int(exact - Decimal("0.5")))
            pending_half = False
    return out


def test_every_sample_with_finishing_stacks_replays_to_them(phh_files: list[Path]) -> None:
    checked = 0
    for path in phh_files:
        data = rtoml.load(path)
        if "finishing_stacks" not in data:
            continue
        replay = replay_text(path.read_text())
        assert replay.finishing_stacks() == whole_chip_stacks(data["finishing_stacks"]), path.name
        checked += 1
    assert checked == 33


def test_samples_without_finishing_stacks_replay_or_are_refused_clearly(
    phh_files: list[Path],
) -> None:
    for path in phh_files:
        data = rtoml.load(path)
        if "finishing_stacks" in data:
            continue
        if path.name in UNDECIDABLE:
            with pytest.raises(UnknownCards, match=r"hole cards of p4 were never seen .*PVB 53"):
                replay_text(path.read_text())
            continue
        replay = replay_text(path.read_text())
        stacks = replay.finishing_stacks()
        # chips are conserved, in the file's own unit (dollars and cents here)
        assert sum(Decimal(str(s)) for s in stacks) == sum(
            Decimal(str(s)) for s in data["starting_stacks"]
        ), path.name


def test_fractional_amounts_replay_in_cents() -> None:
    text = (PHH_DIR / "abs100nl_f1_h128_headsup_blinds_1_0.5.phh").read_text()
    replay = replay_text(text)
    assert replay.scale == 100
    assert replay.finishing_stacks() == [42.9, 406.25]  # the small blind folded 0.50


def test_wsop_2019_big_blind_ante_is_dead_money_and_omitted_fold_is_inferred() -> None:
    path = PHH_DIR / "wsop__2019__42__3__00-01-07.phh"
    replay = replay_text(path.read_text())
    assert replay.inferred_folds == ["p8"]
    assert replay.finishing_stacks()[:2] == [18_100_000, 5_625_000]


BASE = """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
"""


def phh(actions: list[str], extra: str = "") -> str:
    return BASE + extra + f"actions = {json.dumps(actions)}\n"


def test_r7_out_of_turn_is_refused() -> None:
    with pytest.raises(NotYourTurn, match=r"action 2 'p1 cc': p1 acted out of turn: it is p3's "
                                          r"turn \(PVB 36, 37\)"):
        replay_text(phh(["d dh p1 AsKs", "p1 cc", "p3 cc"]))


def test_r7_out_of_turn_is_refused_even_with_finishing_stacks_that_do_not_confirm_it() -> None:
    text = phh(["p2 cc", "p3 cc", "p1 cc"], extra="finishing_stacks = [1000, 1000, 1000]\n")
    with pytest.raises(NotYourTurn):
        replay_text(text)


def test_acting_after_folding_is_refused() -> None:
    with pytest.raises(NotYourTurn, match=r"p3 has folded and cannot act \(PVB 39\)"):
        replay_text(phh(["p3 f", "p1 cc", "p2 cc", "d db 2c3d4h", "p1 cc", "p2 cc", "p3 cc"]))


def test_illegal_raise_is_refused() -> None:
    with pytest.raises(IllegalAmount, match=r"raise to 150 is below the minimum raise to 200"):
        replay_text(phh(["p3 cbr 150"]))


def test_a_card_twice_is_refused() -> None:
    with pytest.raises(FouledDeck, match=r"As was seen twice.*PVB 33"):
        replay_text(phh(["d dh p1 AsKs", "d dh p2 AsQd"]))


def test_unfinished_hand_is_refused() -> None:
    with pytest.raises(PhhError, match="the actions end before the hand is over"):
        replay_text(phh(["p3 cc"]))


def test_unsupported_variant_and_garbage() -> None:
    with pytest.raises(PhhError, match="variant 'FR' is not supported"):
        replay_text(BASE.replace("'NT'", "'FR'") + "actions = []\n")
    with pytest.raises(PhhError, match="not a TOML file"):
        replay_text("variant = = 3")
    with pytest.raises(PhhError, match="PHH field min_bet"):
        replay_text("variant='NT'\nantes=[0,0]\nblinds_or_straddles=[1,2]\nstarting_stacks=[5,5]\n"
                    "actions=[]\n")
    with pytest.raises(PhhError, match="cannot read action 'p1 zz'"):
        replay_text(phh(["p1 zz"]))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
        check=False, timeout=60,
    )


def test_cli_replay_prints_one_json_line_per_file_in_order(
    phh_files: list[Path], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.phh"
    bad.write_text(phh(["p1 cc"]))
    good = [str(p) for p in phh_files if p.name.startswith("pluribus")][:3]
    result = run_cli("replay", good[0], str(bad), *good[1:], str(tmp_path / "missing.phh"))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == [good[0], str(bad), *good[1:],
                                                str(tmp_path / "missing.phh")]
    assert set(lines[0]) == {"file", "finishing_stacks"}
    assert all(isinstance(v, int) for v in lines[0]["finishing_stacks"])
    assert "PVB 36" in lines[1]["error"]
    assert "No such file" in lines[4]["error"]
    assert result.returncode == 1


def test_cli_replay_exit_zero_when_all_replay(phh_files: list[Path]) -> None:
    files = [str(p) for p in phh_files if p.name.startswith("wsop__2023")]
    result = run_cli("replay", *files)
    assert result.returncode == 0, result.stdout
    assert len(result.stdout.splitlines()) == len(files)
