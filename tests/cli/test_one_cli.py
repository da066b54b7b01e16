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

ROOT = Path(__file__).resolve().parents[2]


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


# ------------------------------------------------------------- one word, one meaning (issue 38)

# Each older spelling (the command line before it), the new one, and what both give the command.
RENAMES: list[tuple[list[str], list[str], dict[str, object]]] = [
    (["broker", "bundle", "3", "--out", "D", "--to", "F"],
     ["broker", "bundle", "3", "--broker-dir", "D", "--out", "F"],
     {"broker_dir": "D", "out": "F"}),
    (["broker", "league", "bundle", "hall-a", "--out", "D", "--to", "F"],
     ["broker", "league", "bundle", "hall-a", "--broker-dir", "D", "--out", "F"],
     {"broker_dir": "D", "out": "F"}),
    (["broker", "add-table", "9", "--out", "D"], ["broker", "add-table", "9", "--broker-dir", "D"],
     {"broker_dir": "D"}),
    (["broker", "add-display", "--out", "D"], ["broker", "add-display", "--broker-dir", "D"],
     {"broker_dir": "D"}),
    (["broker", "add-services", "--out", "D"], ["broker", "add-services", "--broker-dir", "D"],
     {"broker_dir": "D"}),
    (["broker", "hostnames", "--hostname", "h", "--out", "D"],
     ["broker", "hostnames", "--hostname", "h", "--broker-dir", "D"], {"broker_dir": "D"}),
    (["broker", "league", "add-venue", "v", "--out", "D"],
     ["broker", "league", "add-venue", "v", "--broker-dir", "D"], {"broker_dir": "D"}),
    (["broker", "bridge", "--bundle", "B", "--out", "D"],
     ["broker", "bridge", "--bundle", "B", "--broker-dir", "D"], {"broker_dir": "D"}),
    (["broker", "bridge", "--bundle", "B", "--broker-dir", "D", "--to", "h:1"],
     ["broker", "bridge", "--bundle", "B", "--broker-dir", "D", "--league-broker", "h:1"],
     {"league_broker": "h:1"}),
    (["broker", "init", "--venue", "v", "--tables", "1", "--broker-port", "1", "--out", "D",
      "--bridge-to", "h"],
     ["broker", "init", "--venue", "v", "--tables", "1", "--broker-port", "1", "--out", "D",
      "--league-broker", "h"], {"league_broker": "h", "out": "D"}),
    (["upgrade", "table", "--to", "R"], ["upgrade", "table", "--release", "R"], {"release": "R"}),
    (["backup", "--to", "D", "a.db"], ["backup", "--out", "D", "a.db"], {"out": "D"}),
    (["restore", "B", "--to", "a.db"], ["restore", "B", "--out", "a.db"], {"out": "a.db"}),
    (["hands", "export", "r.db", "--every-player", "P"],
     ["hands", "export", "r.db", "--every-player", "--out", "P"],
     {"every_player": True, "out": "P", "source": "r.db"}),
    (["hands", "export", "--every-player=P", "r.db"],
     ["hands", "export", "--every-player", "--out=P", "r.db"],
     {"every_player": True, "out": "P", "source": "r.db"}),
    (["tournament", "balance", "--seating", "s", "--profile", "apsa-2010"],
     ["tournament", "balance", "--seating", "s", "--balancing", "apsa-2010"],
     {"balancing": "apsa-2010"}),
    (["recorder", "--db", "r.db"], ["recorder", "--store", "r.db"], {"store": "r.db"}),
    (["recorder", "--port", "1884"], ["recorder", "--broker-port", "1884"], {"port": 1884}),
    (["room", "--port", "0"], ["room", "--floor-port", "0"], {"floor_port": 0}),
]


@pytest.mark.parametrize(("old", "new", "given"), RENAMES, ids=[" ".join(r[0]) for r in RENAMES])
def test_an_older_spelling_still_works_with_one_line_of_warning(
        old: list[str], new: list[str], given: dict[str, object],
        capsys: pytest.CaptureFixture[str]) -> None:
    before = vars(build_parser().parse_args(old))
    warned = capsys.readouterr().err
    after = vars(build_parser().parse_args(new))
    assert capsys.readouterr().err == ""  # the new spelling: no word of warning
    assert before == after and {k: after[k] for k in given} == given
    assert warned.count("\n") == 1 and " is now " in warned, warned
    assert warned.startswith("pokertable ") and "goes in the next release" in warned


def test_the_two_forms_of_bundle_mixed_so_that_out_is_ambiguous_are_refused() -> None:
    done = cli("broker", "bundle", "3", "--broker-dir", "D", "--out", "F", "--to", "G")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--to" in done.stderr


def test_no_option_is_named_by_an_older_word_and_help_shows_the_new_one_only() -> None:
    older = {"--to", "--port", "--db", "--bridge-to", "--profile"}
    for p in parsers(build_parser()):
        for a in p._actions:
            if a.option_strings and a.option_strings[0] in older:
                # --profile is a table's rule profile (replay-events), as table.toml says it
                assert (p.prog, a.option_strings) == ("pokertable replay-events", ["--profile"])
        formatter = p._get_formatter()
        for a in p._actions:
            spelt: str | None = getattr(a, "older", None)
            if spelt is not None:
                assert spelt not in formatter._format_action_invocation(a), p.prog
                assert spelt not in p.format_usage(), p.prog


def test_help_shows_each_default_there_is_and_no_empty_one() -> None:
    for p in parsers(build_parser()):
        shown = "".join(p.format_help().split())  # argparse wraps lines, even at a hyphen
        assert "(default:None)" not in shown and "(default:False)" not in shown, p.prog
        assert "(default:[])" not in shown, p.prog
        for a in p._actions:
            if a.option_strings and a.default not in (None, False, argparse.SUPPRESS):
                assert a.help is not None and ("default" in a.help or
                                               f"(default:{a.default})" in shown), (p.prog, a)
    soak = " ".join(next(p for p in parsers(build_parser())
                         if p.prog == "pokertable soak").format_help().split())
    assert "hands per table (default: 250)" in soak and "(default: 0)" not in soak


SERVICES = ("table", "recorder", "clock", "tournament", "cash", "floor")


def test_every_service_checks_its_configuration_with_the_same_words() -> None:
    commands = {p.prog.removeprefix("pokertable "): p for p in parsers(build_parser())}
    for name in SERVICES:
        options = {s for a in commands[name]._actions for s in a.option_strings}
        assert {"--config", "--check"} <= options, name


@pytest.mark.parametrize("service", SERVICES)
def test_check_validates_the_example_configuration_and_starts_nothing(
        service: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = ROOT / "deploy" / f"{service}.example.toml"
    if service == "table":  # its --check reads the deck and chip set it names: registered
        from controller.sim.table_rig import demo_chips, demo_deck
        from drivers.registry import save

        config = tmp_path / config.name
        config.write_text((ROOT / "deploy" / config.name).read_text())
        save(demo_deck("mfrc522"), tmp_path / "decks" / "house.json")
        save(demo_chips("pn5180"), tmp_path / "chips" / "house.json")
    args = build_parser().parse_args([service, "--config", str(config), "--check"])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert out.strip(), service  # what it would run with
    if service == "clock":
        assert out.count('"level"') > 5  # the whole schedule
    else:
        assert out.count("\n") == 1, out


def test_check_says_a_mistake_in_one_line(tmp_path: Path) -> None:
    floor = tmp_path / "floor.toml"
    floor.write_text('[floor]\nprot = 8080\n\n[mqtt]\nvenue = "hall"\n'
                     'credentials = "credentials.json"\n')
    recorder = tmp_path / "recorder.toml"
    recorder.write_text('[recorder]\nstore = "postgresql://rec:secret@db/hands"\n\n[mqtt]\n'
                        'venue = "hall"\ncredentials = "credentials.json"\n')
    done = cli("floor", "--config", str(floor), "--check")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "floor.prot" in done.stderr and done.stdout == ""
    checked = cli("recorder", "--config", str(recorder), "--check")
    assert checked.returncode == 0, checked.stderr
    assert "postgresql://rec:***@db/hands" in checked.stdout and "secret" not in checked.stdout
