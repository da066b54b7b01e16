"""`pokertable replay` parses its command line with `replay` alone (issue 38): the other commands'
parsers are neither built nor their modules imported, and `replay` reads exactly as in the
parser of every command (its help, its mistakes, what it parses). Imports checked by the modules
a fresh interpreter has loaded (`-X importtime`), not by a stopwatch."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser, replay_parser

DATA = Path(__file__).resolve().parents[1] / "data" / "phh"
OTHER_COMMANDS = ("controller.cli.admin", "controller.cli.cash", "controller.cli.hands",
                  "controller.cli.services", "controller.cli.tournament",
                  "controller.cli.sources", "controller.cli.ohh_tournament")


def _replay_command(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found: argparse.ArgumentParser = commands.choices["replay"]
    return found


def test_replay_imports_no_other_command() -> None:
    hand = sorted(DATA.glob("*.phh"))[0]
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "controller.cli", "replay",
                           str(hand)], capture_output=True, text=True, timeout=60)
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    assert '"finishing_stacks"' in done.stdout  # the hand was replayed
    assert "controller.history.phh" in modules  # (the import log is read right)
    assert sorted(modules & set(OTHER_COMMANDS)) == []
    # Files alone: not even the command line's parser or its shared helpers (issue 37)
    assert not modules & {"argparse", "controller.cli.commands", "controller.cli.common"}


def test_help_still_builds_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for command in ("replay", "replay-events", "hands", "tournament", "room", "soak", "demo"):
        assert command in done.stdout


def test_replay_reads_as_in_the_parser_of_every_command() -> None:
    alone, every = replay_parser(), build_parser()
    assert _replay_command(alone).format_help() == _replay_command(every).format_help()
    argv = ["replay", "a.phh", "b.phh"]
    assert vars(alone.parse_args(argv)) == vars(every.parse_args(argv))


@pytest.mark.parametrize(("argv", "words"), [
    (["replay"], "pokertable replay: the following arguments are required: FILE"),
    (["replay", "--bogus", "a.phh"], "pokertable: unrecognized arguments: --bogus"),
])
def test_replay_mistakes_are_said_alike(argv: list[str], words: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    said = []
    for parser in (replay_parser(), build_parser()):
        with pytest.raises(SystemExit) as stopped:
            parser.parse_args(argv)
        assert stopped.value.code == 2
        said.append(capsys.readouterr().err)
    assert said == [words + "\n"] * 2
