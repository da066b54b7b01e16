"""`pokertable cash --config cash.toml [--check]`: the example configuration loads, `--check`
says what the cash floor would run with or names the file and the field of a mistake in one
line (never a traceback), and the service runs from the command line on the ACL broker init
writes, stops cleanly on SIGTERM and leaves a journal that says it is a cash store."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.mqtt.local_broker import LocalBroker
from controller.room.cash.config import load_cash_config
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashStatus
from controller.room.tournament.store import TournamentStore
from controller.storage.sqlite_store import KINDS
from tests.venue import VenueClient

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "deploy" / "cash.example.toml"


def cash(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "cash", *args],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_the_example_configuration_loads() -> None:
    config = load_cash_config(EXAMPLE)
    settings = config.settings()
    assert settings.games == ["NLH 2/5", "PLO 5/5", "Limit 5/10"]
    assert [(t.table, t.seats) for t in settings.tables] == [
        ("1", 9), ("2", 9), ("3", 9), ("4", 9), ("5", 6)]
    assert (settings.call_seconds, settings.must_move_order) == (600, "list")
    assert config.cash.db == EXAMPLE.parent / "cash.db"  # relative to the file
    assert config.mqtt.venue == "hall"
    assert config.mqtt.credentials == EXAMPLE.parent / "credentials.json"


def test_check_says_what_the_cash_floor_would_run_with() -> None:
    done = cash("--config", str(EXAMPLE), "--check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and done.stderr == ""
    assert "games NLH 2/5, PLO 5/5, Limit 5/10" in done.stdout
    assert "tables 1 (9), 2 (9), 3 (9), 4 (9), 5 (6)" in done.stdout
    assert "10 minutes" in done.stdout and "must_move_order list" in done.stdout
    assert not (EXAMPLE.parent / "cash.db").exists()  # a check opens no journal


@pytest.mark.parametrize(("minutes", "said"), [("1", "1 minute to sit down"),
                                              ("0.5", "0.5 minutes to sit down"),
                                              ("2", "2 minutes to sit down")])
def test_check_says_the_call_s_minutes_in_words(tmp_path: Path, minutes: str,
                                                said: str) -> None:
    path = tmp_path / "cash.toml"
    path.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        "call_minutes = 10", f"call_minutes = {minutes}"), encoding="utf-8")
    done = cash("--config", str(path), "--check")
    assert done.returncode == 0, done.stderr
    assert f"a called player has {said};" in done.stdout, done.stdout


@pytest.mark.parametrize(("change", "said"), [
    (("call_minutes = 10", "call_minuts = 10"), ["cash.call_minuts", "unknown key"]),
    (("call_minutes = 10", "call_minutes = 0"), ["cash.call_minutes", "0.5"]),
    (('"list"', '"random"'), ["cash.must_move_order", "list", "draw"]),
    (('"Limit 5/10"]', '"nlh 2/5"]'), ["games", "'nlh 2/5' is listed twice"]),
    (('venue = "hall"', 'venue = 7'), ["mqtt.venue"]),
])
def test_check_names_the_file_and_the_field_of_a_mistake_in_one_line(
        tmp_path: Path, change: tuple[str, str], said: list[str]) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert change[0] in text
    path = tmp_path / "cash.toml"
    path.write_text(text.replace(*change), encoding="utf-8")
    done = cash("--config", str(path), "--check")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"pokertable cash: {path}"), done.stderr
    for words in said:
        assert words in done.stderr, done.stderr
    with pytest.raises(ConfigError, match=str(path)):
        load_cash_config(path).settings()


def test_a_missing_configuration_or_login_is_one_line(tmp_path: Path) -> None:
    missing = cash("--config", str(tmp_path / "cash.toml"), "--check")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert str(tmp_path / "cash.toml") in missing.stderr and "Traceback" not in missing.stderr
    (tmp_path / "cash.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "credentials.json").write_text('{"tournament": {}}', encoding="utf-8")
    no_login = cash("--config", str(tmp_path / "cash.toml"))  # no service starts without it
    assert no_login.returncode == 2 and no_login.stderr.count("\n") == 1, no_login.stderr
    assert "no valid login for the MQTT client 'cash'" in no_login.stderr
    assert not (tmp_path / "cash.db").exists()


def test_the_service_runs_from_the_command_line_and_stops_on_sigterm(
        cash_broker: LocalBroker, tmp_path: Path) -> None:
    config = tmp_path / "cash.toml"
    config.write_text("\n".join([
        "[cash]", 'games = ["NLH 2/5"]', 'tables = ["1", "2"]', "",
        "[mqtt]", 'host = "127.0.0.1"', f"port = {cash_broker.port}",
        f'venue = "{cash_broker.plan.venue}"',
        f'credentials = "{cash_broker.directory / "credentials.json"}"', ""]),
        encoding="utf-8")
    floor = VenueClient(cash_broker, "floor", ("cash/status", "cash/state"))
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "cash", "--config",
                                str(config)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        def status(said: str) -> bool:
            return any(m.payload and CashStatus.model_validate_json(m.payload).status == said
                       for m in floor.on("status"))
        assert floor.wait(lambda _: status("online"), 20), process.stderr
        assert floor.on("state"), "the lists are published at once"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
        assert process.returncode == 0, stderr
        assert "Traceback" not in stderr and "cash: stopped" in stderr
        assert floor.wait(lambda _: status("offline"), 10), stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        floor.close()
    journal = tmp_path / "cash.db"
    with sqlite3.connect(journal) as db:
        application = db.execute("PRAGMA application_id").fetchone()[0]
    db.close()
    assert KINDS[application] == "cash store"
    with pytest.raises(ConfigError, match="is a cash store, not a tournament store"):
        TournamentStore(journal)
    CashStore(journal).close()  # and the cash floor opens it again
