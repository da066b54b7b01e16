"""`pokertable replay FILE...`: each PHH file's finishing stacks (or why it was refused) as one
JSON line, in the order of the files.

The whole process is the replay benchmark's measure (issue 37, bench/replay_throughput.py), so this
module imports the engine and the PHH reader and little else: `pokertable replay` with nothing but
files on its command line comes here without building the command line's parser (`main` in
controller/cli/__init__.py), and the lines are written with the JSON module's own C string encoder
rather than `json` (whose import and general encoder cost more than the lines they write).
"""

from __future__ import annotations

import os
import sys
from _json import encode_basestring_ascii as _quoted  # json.dumps's own, for its strings
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from controller.history.phh import PhhHand


def replay_files(paths: Iterable[str], out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """Replay every file; 1 when any file or hand was refused, else 0."""
    from controller.errors import PokertableError
    from controller.history.phh import parse_phhs, replay_phh

    output = _Batched(sys.stdout if out is None else out)
    err = sys.stderr if err is None else err
    refused = False
    try:
        for path in paths:
            file = _quoted(path)
            try:
                text = _read(path)
                hands = parse_phhs(text)  # one hand, or a .phhs file's numbered hands
            except (PokertableError, OSError, UnicodeDecodeError) as exc:
                refused = True
                output.add(f'{{"file": {file}, "error": {_quoted(str(exc))}}}\n')
                continue
            for key, phh in hands:
                where = f'{{"file": {file}, ' if key is None else _entry(path, key, phh)
                try:
                    replay = replay_phh(phh)
                except PokertableError as exc:
                    refused = True
                    output.add(f'{where}"error": {_quoted(str(exc))}}}\n')
                    continue
                stacks = ", ".join(map(repr, replay.finishing_stacks()))  # (ints, finite floats)
                output.add(f'{where}"finishing_stacks": [{stacks}]}}\n')
                if replay.inferred_folds:
                    folded = ", ".join(replay.inferred_folds)
                    print(f"{path}: {folded} did not act and were taken as folded; the file's "
                          "finishing_stacks confirm it", file=err)
    finally:
        output.flush()
    return 1 if refused else 0


class _Batched:
    """The output's lines written some hundred at a time, not one write each: where
    PYTHONUNBUFFERED is set (as in many containers and CI images) each write is a system call,
    and they were a tenth of a 1,000-file replay's time."""

    BATCH = 256

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lines: list[str] = []

    def add(self, line: str) -> None:
        self._lines.append(line)
        if len(self._lines) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        self._out.write("".join(self._lines))
        self._lines.clear()


_PIECE = 1 << 16


def _read(path: str) -> str:
    """The file's text, as ``open(path, encoding="utf-8").read()`` gives it (universal
    newlines), without a text wrapper or even a buffered file object for every file: the
    descriptor read directly until it says the end (a pipe may give a file in pieces)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, _PIECE)
        piece = os.read(fd, _PIECE) if data else b""
        if piece:  # (a long file, or a pipe: the rest)
            pieces = [data, piece]
            while piece := os.read(fd, _PIECE):
                pieces.append(piece)
            data = b"".join(pieces)
    except OSError as exc:  # (a directory: named, as open() names it)
        raise OSError(exc.errno, exc.strerror, path) from None
    finally:
        os.close(fd)
    text = data.decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _entry(path: str, key: str, phh: PhhHand) -> str:
    """How a hand of a ``.phhs`` file is named: by its venue (a league's), table and hand
    number when the file gives them (our export does), else by its place in the file ([1],
    [2] ...). The start of its JSON line, up to the result."""
    import json  # (a venue may be any TOML value: the general encoder; .phhs files only)

    named: dict[str, object] = {"file": path}
    venue = phh.extra.get("venue")
    if venue is not None:
        named["venue"] = venue
    if phh.table is not None:
        named["table"] = phh.table
    named["hand"] = key if phh.hand is None else phh.hand
    return json.dumps(named)[:-1] + ", "


__all__ = ["replay_files"]
