"""The `pokertable` command. This module imports nothing it does not need to start: the parser
and the commands are in controller/cli/commands.py, and `pokertable replay FILE...` goes straight
to controller/cli/replay.py without either (its start-up is part of the replay benchmark; issue
37: argparse, signal and the commands' shared helpers were a third of it)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def entry() -> NoReturn:
    """The `pokertable` process (its console script, `python -m controller.cli`): `main`, then
    its exit. A replay of files ends without the interpreter's tear-down of every module and
    object it made (a tenth of a one-hand replay's time; issue 37): its only output, stdout and
    stderr, is flushed first, and it starts no thread, holds no other file and registers nothing
    to run at exit. Every other command ends as Python ends (its log handlers, its threads)."""
    argv = sys.argv[1:]
    if not _files_only_replay(argv):
        sys.exit(main(argv))
    try:
        code = main(argv)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader stopped reading (`| head`): it has what it wanted
        code = 1
    os._exit(code)


def _files_only_replay(argv: Sequence[str]) -> bool:
    """`pokertable replay FILE...`: files and nothing else, as the parser would read them."""
    return argv[:1] == ["replay"] and len(argv) > 1 and not any(a[:1] == "-" for a in argv[1:])


def main(argv: Sequence[str] | None = None) -> int:
    from controller.storage.private_files import SERVICE_UMASK

    argv = sys.argv[1:] if argv is None else list(argv)
    if _files_only_replay(argv):  # no parser built (issue 37)
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


__all__ = ["build_parser", "entry", "main", "replay_parser"]
