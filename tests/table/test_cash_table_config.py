"""A cash table says in table.toml which straddles it opened with (CG Straddle: only where the
table opened with them), each one its rule profile knows; a mistake is one line naming the file
and the field. `pokertable soak --cash` deals the CG's cash tables beside the tournaments'."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.table.config import load_table_config


def _config(tmp_path: Path, table: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nid = "7"\n{table}\n')
    return path


def test_cg_straddle_the_table_opens_with_its_straddles(tmp_path: Path) -> None:
    config = load_table_config(_config(tmp_path, 'profile = "cg-cash"\n'
                                                 'straddles = ["live", "button"]'))
    assert config.session().straddles == ["live", "button"]
    assert load_table_config(_config(tmp_path, "")).session().straddles == []


def test_cg_straddle_a_straddle_the_book_does_not_know_is_refused_in_one_line(
        tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        load_table_config(_config(tmp_path, 'straddles = ["live"]'))  # the PVB: none
    text = str(refused.value)
    assert "\n" not in text and "table.straddles" in text and "pvb-2020" in text
    with pytest.raises(ConfigError, match=r"table\.straddles"):
        load_table_config(_config(tmp_path, 'profile = "cg-cash"\nstraddles = ["sleeper"]'))


def test_soak_deals_cash_tables_when_asked() -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "soak", "--tables", "2",
                           "--hands", "40", "--cash"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    assert "cash hands" in done.stdout
