"""What every pokertable command shares: one-line mistakes, numbers in a range, older spellings,
the broker's port by one name, and a service's life under systemd (signals, READY, watchdog)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
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
    """SIGTERM (systemd, a supervisor) and SIGINT (Ctrl-C) ask a service for a clean stop."""
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


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (no usage block): the command and the
    problem, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def _renamed(old: str) -> type[argparse.Action]:
    """An option's older spelling, still taken for one release with a warning."""

    class Renamed(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            if option_string == old:
                print(f"{parser.prog}: {old} is now {self.option_strings[0]}; the old spelling "
                      "goes in the next release", file=sys.stderr)
            setattr(namespace, self.dest, values)
    return Renamed


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
