"""Rule profiles: the built-in books and TOML files, validated strictly."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine.profiles import load_profile
from controller.errors import ConfigError


def test_builtin_profiles_differ_where_the_books_differ() -> None:
    pvb = load_profile("pvb-2020")
    cg = load_profile("cg-cash")
    assert pvb.name == "pvb-2020" and cg.name == "cg-cash"
    assert (pvb.odd_chip_unit, cg.odd_chip_unit) == ("smallest-chip", "small-blind")  # S2
    assert (pvb.same_colour_chips_full_raise, cg.same_colour_chips_full_raise) == (True, False)
    # Where the German books agree with each other and not with TDA, both follow the books:
    # S3 (PVB 55, APSA 5.3, BPS 37, CG 9) and B2 (PVB 27(1), APSA 5.3, BPS 6).
    assert pvb.showdown_fallback == cg.showdown_fallback == "last-aggressor"
    assert pvb.dead_button == cg.dead_button == "stays"
    assert load_profile() == pvb  # the default tournament profile


def test_profile_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "bps.toml"
    path.write_text('name = "tda"\nshowdown_fallback = "left-of-button"\ngame = "PO"\n'
                    'dead_button = "empty-seat"\n')
    profile = load_profile(path)
    assert profile.showdown_fallback == "left-of-button" and profile.game == "PO"
    assert profile.dead_button == "empty-seat"


def test_unknown_keys_and_bad_values_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "typo.toml"
    path.write_text('name = "x"\nodd_chip = "small-blind"\n')
    with pytest.raises(ConfigError, match="odd_chip"):
        load_profile(path)
    path.write_text('name = "x"\nshowdown_fallback = "random"\n')
    with pytest.raises(ConfigError, match="showdown_fallback"):
        load_profile(path)
    with pytest.raises(ConfigError, match="no rule profile 'nope'"):
        load_profile("nope")
