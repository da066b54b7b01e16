"""What every pokertable command shares: one-line mistakes, numbers in a range, older spellings,
the broker's port by one name, and a service's life under systemd (signals, READY, watchdog)."""

from __future__ import annotations

import argparse
import copy
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from controller.service.manager import Loop

T = TypeVar("T")


def _on_disk(path: Path, write: Callable[[], T]) -> T:
    """``write()``, with a file system's refusal said in one line naming the path."""
    from controller.errors import ConfigError

    try:
        return write()
    except OSError as exc:
        where = exc.filename or path
        raise ConfigError(f"{where}: {exc.strerror or exc}") from None


def _log_to_stderr() -> None:
    """A service's log: to stderr (the journal under systemd), one line per record."""
    import logging

    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _stop_on_signals() -> threading.Event:
    """SIGTERM (systemd, a supervisor) and SIGINT (Ctrl-C) ask a service for a clean stop.
    SIGABRT, which systemd's watchdog sends a hung service, first writes every thread's stack
    to stderr (the journal): where it hung, not only that it did."""
    import faulthandler

    faulthandler.enable()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def _serve(stop: threading.Event, loops: list[Loop]) -> None:
    """A started service's main thread until SIGTERM or Ctrl-C: systemd hears that it is
    ready, then watchdog pings while its loops move (controller/service/manager.py)."""
    from controller.service.manager import Watchdog, notify

    watchdog = Watchdog(loops)
    notify("READY=1", "STATUS=serving")
    while not stop.wait(0.5):  # short waits: the signal handler runs between them
        watchdog.tick()
    notify("STOPPING=1")


class _HelpFormatter(argparse.HelpFormatter):
    """``--help`` as argparse writes it, with each option's default where it has one (not
    where it is nothing: None, off, an empty list), unless the help already says its default in
    words; and an option's older spelling left out (it is still taken, with a warning)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (default is None or default is False or default is argparse.SUPPRESS
                or default == [] or "default" in text or not (action.option_strings
                                                              or action.nargs == "?")):
            return text
        return f"{text} (default: %(default)s)"

    def _format_action_invocation(self, action: argparse.Action) -> str:
        older = getattr(action, "older", None)
        if older is None:
            return super()._format_action_invocation(action)
        shown = copy.copy(action)
        shown.option_strings = [s for s in action.option_strings if s != older]
        return super()._format_action_invocation(shown)


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (no usage block): the command and the
    problem, exit status 2; each option's default in ``--help``; and a command's older forms
    (`_older_form`) taken for one release with a warning."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        self.older_forms: list[Callable[[list[str]], list[str] | None]] = []

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        if args is None:
            args = sys.argv[1:]
        argv = list(args)
        for rewrite in self.older_forms:  # each warns once if it rewrites
            argv = rewrite(argv) or argv
        return super().parse_known_args(argv, namespace)


def _warn_older(prog: str, old: str, new: str) -> None:
    """The one line an older spelling gets."""
    print(f"{prog}: {old} is now {new}; the old spelling goes in the next release",
          file=sys.stderr)


def _renamed(old: str) -> type[argparse.Action]:
    """An option's older spelling, still taken for one release with a warning: give it after
    the new one in the same ``add_argument`` (one dest); ``--help`` shows the new one only."""

    class Renamed(argparse.Action):
        older = old

        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            if option_string == old:
                _warn_older(parser.prog, old, self.option_strings[0])
            setattr(namespace, self.dest, values)
    return Renamed


def _option_at(argv: list[str], name: str) -> int | None:
    """Where ``name`` (as ``--name VALUE`` or ``--name=VALUE``) is in ``argv``; None if absent.
    Everything after ``--`` is an operand, never an option."""
    for i, word in enumerate(argv):
        if word == "--":
            return None
        if word == name or word.startswith(name + "="):
            return i
    return None


def _respelt(argv: list[str], renames: dict[str, str]) -> list[str]:
    """``argv`` with each option of ``renames`` spelt the new way (values kept as they are)."""
    out: list[str] = []
    rest = False
    for word in argv:
        name, eq, value = word.partition("=")
        if not rest and name in renames:
            word = renames[name] + eq + value
        rest = rest or word == "--"
        out.append(word)
    return out


def _older_form(parser: _Parser, marker: str,
                renames: dict[str, str], old: str, new: str) -> None:
    """A command whose older form gave an option another meaning, e.g. `broker bundle`'s
    ``--out DIR --to FILE`` (now ``--broker-dir DIR --out FILE``): where ``marker`` (an option
    only the older form has) is in the command line, ``renames`` respell it before argparse
    reads it, with one line of warning (``old`` is now ``new``)."""

    def rewrite(argv: list[str]) -> list[str] | None:
        if _option_at(argv, marker) is None:
            return None
        new_only = [n for n in renames.values() if n not in renames]
        both = [n for n in renames if n in renames.values()]  # a word whose meaning changed
        if any(_option_at(argv, n) is not None for n in new_only) and any(
                _option_at(argv, n) is not None for n in both):
            return None  # the two forms mixed so that a word is ambiguous: argparse says so
        _warn_older(parser.prog, old, new)
        return _respelt(argv, renames)

    parser.older_forms.append(rewrite)


def _broker_port(parser: argparse.ArgumentParser, help: str, required: bool = False) -> None:
    """The broker's port has one name everywhere: --broker-port (--port before)."""
    parser.add_argument("--broker-port", "--port", type=_int_in(1, 65535), dest="port",
                        required=required, default=None, action=_renamed("--port"), help=help)


def _int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value
    return parse
