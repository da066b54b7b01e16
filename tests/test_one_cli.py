"""One CLI: help on every option, one name for the broker's port, older spellings still taken
with a warning, `floor-user` mistakes as one line and an accounts file that keeps its owner."""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, stdin: str | None = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += parsers(sub)
    return found


def test_every_option_of_every_command_says_what_it_is() -> None:
    undocumented = [f"{p.prog} {a.option_strings or a.dest}" for p in parsers(build_parser())
                    for a in p._actions
                    if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction |
                                      argparse._VersionAction) and not a.help]
    assert undocumented == []


def test_the_brokers_port_has_one_name_everywhere() -> None:
    for p in parsers(build_parser()):
        # --port survives only as an older spelling (not an option's own name) for a release.
        options = {a.option_strings[0] for a in p._actions if a.option_strings}
        if "--broker-port" in options:
            assert any(a.dest == "port" and "--broker-port" in a.option_strings
                       for a in p._actions)
        elif "--port" in options:
            pytest.fail(f"{p.prog}: --port is not the broker's port here; name what it is")


def test_an_older_spelling_is_taken_with_a_warning(reachable: Path) -> None:
    tmp_path = reachable
    done = cli("broker", "init", "--venue", "hall", "--tables", "1", "--port", "18830",
               "--out", str(tmp_path / "conf"))
    assert done.returncode == 0, done.stderr
    assert "--port is now --broker-port" in done.stderr
    assert "listener 18830 127.0.0.1" in (tmp_path / "conf" / "mosquitto.conf").read_text()


def test_floor_user_mistakes_are_one_line(tmp_path: Path) -> None:
    accounts = tmp_path / "users.json"
    closed = subprocess.run([sys.executable, "-m", "controller.cli", "floor-user", "add",
                             "anna", "--accounts", str(accounts)], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    piped_empty = cli("floor-user", "add", "anna", "--accounts", str(accounts),
                      "--password-stdin", stdin="")
    missing_dir = cli("floor-user", "add", "anna", "--accounts",
                      str(tmp_path / "no" / "such" / "users.json"), "--password-stdin",
                      stdin="long enough\n")
    # A directory no one may create files in, root included (tests run as root here).
    unwritable = cli("floor-user", "add", "anna", "--accounts", "/proc/floor-users.json",
                     "--password-stdin", stdin="long enough\n")
    for done, says in ((closed, "--password-stdin"), (piped_empty, "stdin is closed"),
                       (missing_dir, "does not exist"), (unwritable, "cannot write")):
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr and done.stderr.startswith("pokertable floor-user add: ")
    assert not accounts.exists()


def test_floor_user_keeps_the_accounts_files_owner_and_mode(tmp_path: Path) -> None:
    accounts = tmp_path / "floor-users.json"
    assert cli("floor-user", "add", "anna", "--accounts", str(accounts), "--password-stdin",
               stdin="felt and chips\n").returncode == 0
    assert stat.S_IMODE(accounts.stat().st_mode) == 0o600  # new: private
    group = 65534 if os.geteuid() == 0 else os.getgid()
    os.chown(accounts, os.getuid(), group)
    accounts.chmod(0o640)  # as the installer makes it: the floor's group reads it
    for argv in (["add", "ben"], ["remove", "anna"]):
        done = cli("floor-user", *argv, "--accounts", str(accounts), "--password-stdin",
                   stdin="river card 9\n") if argv[0] == "add" else \
            cli("floor-user", *argv, "--accounts", str(accounts))
        assert done.returncode == 0, done.stderr
        info = accounts.stat()
        assert (stat.S_IMODE(info.st_mode), info.st_gid) == (0o640, group), argv
    listed = cli("floor-user", "list", "--accounts", str(accounts))
    assert listed.stdout.split() == ["ben"]


def test_clock_check_reads_the_structure_its_configuration_names(tmp_path: Path) -> None:
    config = tmp_path / "clock.toml"
    config.write_text(f'[clock]\nstructure = "{ROOT / "deploy/structures/turbo.toml"}"\n\n'
                      '[mqtt]\nvenue = "hall"\ncredentials = "credentials.json"\n')
    done = cli("clock", "--config", str(config), "--check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count('"level"') > 5  # the schedule, one JSON line a slot


def test_chips_register_without_a_chip_says_so_and_fails(tmp_path: Path) -> None:
    out = tmp_path / "house.json"
    done = cli("chips", "register", "--url", "loop://", "--value", "100", "--idle", "0.5",
               "--out", str(out))
    assert done.returncode == 1 and "no new chip was read on antenna 0" in done.stderr
    assert "no file written" in done.stdout and not out.exists()
