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
    assert pvb.showdown_fallback == "left-of-button"  # S3, PVB 55
    assert load_profile() == pvb  # the default tournament profile


def test_profile_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "bps.toml"
    path.write_text('name = "bps-2013"\nshowdown_fallback = "last-aggressor"\ngame = "PO"\n')
    profile = load_profile(path)
    assert profile.showdown_fallback == "last-aggressor" and profile.game == "PO"


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
