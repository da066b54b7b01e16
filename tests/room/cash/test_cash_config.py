"""`cash.toml` (controller/room/cash/config.py): the room's games and tables, how long a call
lasts, the must-move order's setting; unknown keys and impossible settings refused naming the
file; a ledger kept under older settings gains the tables and games added since."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.room.cash.config import load_cash_config
from controller.room.cash.core import CashCore
from controller.room.cash.ledger import CashSettings, Ledger, TableSpec

TEXT = """
[cash]
games = ["NLH 2/5", "PLO 5/5"]
tables = ["1", "2", {table = "3", seats = 6}]
call_minutes = 5
must_move_order = "draw"

[mqtt]
venue = "hall"
credentials = "credentials.json"
"""


def test_a_cash_toml_gives_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "cash.toml"
    path.write_text(TEXT)
    config = load_cash_config(path)
    settings = config.settings()
    assert settings.games == ["NLH 2/5", "PLO 5/5"]
    assert [(t.table, t.seats) for t in settings.tables] == [("1", 9), ("2", 9), ("3", 6)]
    assert (settings.call_seconds, settings.must_move_order) == (300, "draw")
    assert config.cash.db == tmp_path / "cash.db"
    assert config.mqtt.credentials == tmp_path / "credentials.json"


@pytest.mark.parametrize(("change", "said"), [
    (("call_minutes = 5", "call_minuts = 5"), "cash.call_minuts: unknown key (misspelt?)"),
    (('"PLO 5/5"]', '"nlh 2/5"]'), "games: 'nlh 2/5' is listed twice"),
    (('"draw"', '"random"'), "cash.must_move_order"),
])
def test_a_mistake_in_cash_toml_is_one_line_naming_the_file(
        tmp_path: Path, change: tuple[str, str], said: str) -> None:
    path = tmp_path / "cash.toml"
    path.write_text(TEXT.replace(*change))
    with pytest.raises(ConfigError, match=str(path)) as caught:
        load_cash_config(path).settings()
    assert said in str(caught.value)


def test_a_ledger_kept_under_older_settings_gains_what_was_added() -> None:
    old = CashSettings(games=["NLH 2/5"], tables=[TableSpec(table="1")])
    core = CashCore(old)
    core.command("open_table", {"table": "1", "game": "NLH 2/5"}, "floor", 1.0)
    core.command("sign_up", {"game": "NLH 2/5", "name": "Anna"}, "floor", 2.0)
    kept = Ledger.model_validate_json(core.ledger.model_dump_json())
    new = CashSettings(games=["NLH 2/5", "PLO 5/5"],
                       tables=[TableSpec(table="1"), TableSpec(table="2", seats=6)])
    again = CashCore(new, kept)
    assert [(t.table, t.seats, t.game) for t in again.ledger.tables] == [
        ("1", 9, "NLH 2/5"), ("2", 6, None)]
    assert {g: [e.name for e in entries] for g, entries in again.ledger.lists.items()} == {
        "NLH 2/5": ["Anna"], "PLO 5/5": []}
