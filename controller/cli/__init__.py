"""The `pokertable` command. This module imports nothing it does not need to start: the parser
and the commands are in controller/cli/commands.py, and `pokertable replay FILE...` goes straight
to controller/cli/replay.py without either (its start-up is part of the replay benchmark; issue
37: argparse, signal and the commands' shared helpers were a third of it)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from controller.storage.private_files import SERVICE_UMASK

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["replay"] and len(argv) > 1 and not any(a[:1] == "-" for a in argv[1:]):
        # Files and nothing else, as the parser would read them: no parser built (issue 37)
        from controller.cli.replay import replay_files

        os.umask(SERVICE_UMASK)
        return replay_files(argv[1:])
    from controller.cli.commands import run

    os.umask(SERVICE_UMASK)  # nothing any pokertable process writes is for other users
    return run(argv)


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser (`pokertable --help`)."""
    from controller.cli.commands import build_parser as build

    return build()


def replay_parser() -> argparse.ArgumentParser:
    """The replay command's parser alone."""
    from controller.cli.commands import replay_parser as build

    return build()


__all__ = ["build_parser", "main", "replay_parser"]
