"""What the tests of `pokertable hands`, `journal export` and `replay-events` share: the command
run in process (its exit code, stdout and stderr) and the hand ids a listing names."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from controller.cli import main
from controller.engine.records import HandRecord
from controller.session.outputs import hand_id


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def ids(listing: str) -> list[str]:
    return [line.split()[0] for line in listing.splitlines()]


def ids_of(records: list[HandRecord]) -> list[str]:
    return [hand_id(r.table, r.hand, r.started) for r in records]
