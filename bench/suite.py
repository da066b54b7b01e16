"""The test suite's time: the tests `make test` runs, as it runs them (seven pytest-xdist workers,
work stealing), timed from outside: wall time and the CPU time of pytest and everything it
started (its workers, brokers, browsers, databases), the tests passed, and the ten slowest.

The reference is the target of issue 37: `make test` on a fresh 2-core machine in under five
minutes of test time (apt and pip aside; lint and type checks are not timed here).

    .venv/bin/python bench/suite.py [--workers 6] [TESTS ...]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 300.0
SLOWEST = 10

# pytest's last line: "1502 passed, 2 skipped, 3 warnings in 329.12s (0:05:29)"
OUTCOME = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m{seconds % 60:04.1f}s"


def slowest(output: str) -> list[str]:
    """The lines of pytest's "slowest N durations" section."""
    lines = output.splitlines()
    start = next((k for k, line in enumerate(lines) if "slowest" in line and "durations" in line),
                 None)
    if start is None:
        return []
    found = []
    for line in lines[start + 1:]:
        if not re.match(r"^\d+(\.\d+)?s ", line):
            break
        found.append(line)
    return found


def outcomes(output: str) -> dict[str, int]:
    tail = next((line for line in reversed(output.splitlines())
                 if re.search(r"\bin \d+(\.\d+)?s\b", line)), "")
    counts: dict[str, int] = {}
    for number, kind in OUTCOME.findall(tail):
        counts[kind.rstrip("s") if kind.startswith("error") else kind] = int(number)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=7, help="pytest-xdist workers (make "
                        "test: 7)")
    parser.add_argument("tests", nargs="*", help="only these tests (default: the whole suite, "
                        "as make test)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-n", str(args.workers), "--dist", "worksteal", f"--durations={SLOWEST}",
               *args.tests]
    # As `make unit` runs it: Python keeps its bytecode whatever the environment says, and one
    # collecting pass writes the tests' before the workers start (timed with the rest).
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "2", "controller", "drivers",
                    "harness"], cwd=ROOT, env=env, capture_output=True, check=True)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p",
                    "no:cacheprovider", *args.tests], cwd=ROOT, env=env, capture_output=True,
                   check=True)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    counts = outcomes(done.stdout)
    what = " ".join(args.tests) or "the whole suite"
    print(f"pytest -n {args.workers} --dist worksteal, {what} (make test's commands, its "
          f"bytecode and collecting pass included); load "
          f"average before {load[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(f"   {'':<34}{'measured':>12}{'target':>12}")
    print(f"   {'wall time':<34}{minutes(wall):>12}{'< ' + minutes(TARGET_SECONDS):>12}")
    print(f"   {'CPU time, pytest and its children':<34}{minutes(cpu):>12}"
          f"{'(' + str(os.cpu_count()) + ' cores)':>12}")
    for kind in ("passed", "failed", "error", "skipped", "xfailed", "xpassed"):
        if counts.get(kind) or kind in ("passed", "failed"):
            print(f"   {'tests ' + kind:<34}{counts.get(kind, 0):>12,}")
    for line in done.stdout.splitlines():  # which ones: the document shows them, not only a count
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"   {line[:200]}")
    print(f"the {SLOWEST} slowest (setup, call or teardown):")
    for line in slowest(done.stdout):
        print(f"   {line}")
    if done.returncode != 0:
        # The failures' own report goes to stderr (the runner shows its tail when the bench
        # fails), and whole to a file that outlives the run: a failure under the bench's load
        # may not come again alone.
        sys.stderr.write(done.stdout[-6000:])
        sys.stderr.write(done.stderr[-2000:])
        with tempfile.NamedTemporaryFile("w", prefix="pokertable-suite-", suffix=".log",
                                         delete=False) as report:
            report.write(done.stdout + done.stderr)
        print(f"pytest exited with {done.returncode}; its whole report: {report.name}")
    # Failed tests are `make test`'s business; this bench times the suite, and fails only when
    # the suite did not run to its end (interrupted, an internal or usage error, no tests).
    return 0 if done.returncode in (0, 1) else done.returncode


if __name__ == "__main__":
    sys.exit(main())
