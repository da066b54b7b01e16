"""The command line starts at once (issue 37): `pokertable --help` builds every subcommand's
parser without importing what the subcommands run, and `pokertable replay` imports the engine
and the PHH reader, never the table service, the wire, the room or the web stack. Checked by the
modules a fresh interpreter has loaded (`-X importtime`), not by a stopwatch on a busy machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "phh"
HEAVY_FOR_REPLAY = ("controller.table", "controller.mqtt", "controller.room", "controller.demo",
                    "controller.install", "drivers", "paho", "serial", "gpiozero", "starlette",
                    "uvicorn", "sse_starlette", "sqlite3", "psycopg")
# Modules whose import the replay's start-up need not pay for: `secrets` and `hashlib` load
# OpenSSL (10 ms; they came in once through a temporary file's random name); the replay builds no
# parser, writes its lines itself, logs nothing, runs nothing and validates no model.
SLOW_IMPORTS_NOT_FOR_REPLAY = ("secrets", "hashlib", "_hashlib", "ssl", "argparse", "json",
                               "logging", "asyncio", "subprocess", "pydantic")


def _imported(*args: str) -> tuple[set[str], str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=60)
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    return modules, done.stdout


# The names of the balancing profiles, for `tournament balance --balancing`'s choices: two
# constants in a module of their own, and the (empty) packages above it.
NAMES_ONLY = {"controller.room", "controller.room.tournament",
              "controller.room.tournament.balance_profiles"}


def _under(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules - NAMES_ONLY
                  if any(m == r or m.startswith(r + ".") for r in roots))


def test_help_lists_every_command_without_importing_them() -> None:
    modules, out = _imported("--help")
    assert "replay" in out and "tournament" in out and "room" in out
    assert _under(modules, ("pydantic", "controller.engine", "controller.session",
                            "controller.history.export", "importlib.metadata")) == []
    assert _under(modules, HEAVY_FOR_REPLAY) == []


def test_replay_of_one_hand_imports_the_engine_and_nothing_of_the_room() -> None:
    hand = sorted(DATA.glob("*.phh"))[0]
    modules, out = _imported("replay", str(hand))
    assert '"finishing_stacks"' in out  # the hand was replayed
    assert "controller.engine.hand" in modules and "controller.history.phh" in modules
    assert _under(modules, HEAVY_FOR_REPLAY) == []
    assert _under(modules, SLOW_IMPORTS_NOT_FOR_REPLAY) == []
