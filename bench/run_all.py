"""Run every benchmark and write docs/performance.md from this run's output, and the summary
block of README.md with it (`make bench`).

Each bench (bench/catalogue.py) runs as its own process; its output is shown as it comes and
copied into the document verbatim, under a fixed explanation of what it measures. The summary
table at the top (copied into README.md between its bench:summary markers) is read out of the
same outputs. A bench that fails is shown as failed with the tail of its stderr; the others still
run, and this script exits non-zero at the end.

    .venv/bin/python bench/run_all.py            # full: docs/performance.md and README.md
    .venv/bin/python bench/run_all.py --quick    # quick: a scratch file, README.md untouched
    .venv/bin/python bench/run_all.py --only soak floor --out /tmp/perf.md
    .venv/bin/python bench/run_all.py --summary-only   # the summary read again, nothing run

`BENCH_SUITE=0` leaves the test suite's bench out of a full run (`BENCH_SUITE=1` puts it in a
quick one).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from catalogue import BENCHES, Bench, Row

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench:summary -->", "<!-- /bench:summary -->"
OUTPUT = "<!-- bench:output {name} -->"
STDERR_TAIL = 40  # lines of a failed bench's stderr shown
QUICK = "quick (`make bench-quick`: fewer hands, shorter windows; not the figures to quote)"


@dataclass
class Result:
    bench: Bench
    args: list[str]
    code: int | None  # None: not run (left out)
    seconds: float
    stdout: str
    stderr: str


def machine() -> dict[str, str]:
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return {"cores": str(os.cpu_count()), "cpu": model,
            "python": platform.python_version(),
            "commit": commit + (" with uncommitted changes" if dirty else "")}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(bench: Bench, args: list[str], timeout: float) -> Result:
    """The bench as its own process; its output echoed as it comes and kept. One that is still
    running after ``timeout`` seconds is stopped with everything it started (its own session)."""
    print(f"\n=== {bench.name}: bench/{bench.script} {' '.join(args)}", flush=True)
    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as errors:
        started = time.monotonic()
        process = subprocess.Popen([sys.executable, str(ROOT / "bench" / bench.script), *args],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True,
                                   bufsize=1, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                   start_new_session=True)

        def stop() -> None:
            errors.write(f"\nstopped by bench/run_all.py after {timeout:.0f} s\n")
            errors.flush()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)

        timer = threading.Timer(timeout, stop)
        timer.start()
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
        code = process.wait()
        timer.cancel()
        seconds = time.monotonic() - started
        errors.seek(0)
        stderr = errors.read()
    print(f"=== {bench.name}: {'done' if code == 0 else f'FAILED ({code})'} in {seconds:.0f} s",
          flush=True)
    return Result(bench, args, code, seconds, "".join(lines).rstrip("\n"), stderr)


def summary_rows(results: list[Result]) -> list[Row]:
    return [row for r in results if r.code == 0 for row in r.bench.headlines(r.stdout)]


def summary_block(rows: list[Row], when: str, commit: str, quick: bool) -> str:
    lines = [BEGIN,
             textwrap.fill(f"Headline figures of `make bench{'-quick' if quick else ''}` on "
                           f"{when}, commit {commit} (docs/performance.md has each bench's "
                           "whole output):", 100), "",
             "| figure | this run | reference or target |", "|---|---|---|"]
    lines += [f"| {figure} | {value} | {reference} |" for figure, value, reference in rows]
    lines.append(END)
    return "\n".join(lines)


def document(results: list[Result], info: dict[str, str], quick: bool) -> str:
    rows = summary_rows(results)
    out = ["# Performance: the last `make bench`", "",
           textwrap.fill(
               "Written by `make bench` (bench/run_all.py) from the output of one run: every "
               "figure below was printed by that run, each beside its reference measured in the "
               "same run or its target. Nothing here is edited by hand; run `make bench` again "
               "to bring it up to date. Earlier runs, what changed between them and why, are in "
               "[performance-history.md](performance-history.md).", 100), "",
           "| run | |", "|---|---|",
           f"| date | {info['date']} |",
           f"| mode | {QUICK if quick else 'full'} |",
           f"| machine | {info['cores']} cores, {info['cpu']} |",
           f"| load average (1, 5, 15 min) | before {info['load_before']}, after "
           f"{info['load_after']} |",
           f"| Python | {info['python']} |",
           f"| commit | {info['commit']} |",
           f"| total time | {info['total']} |", "",
           "## Summary", "",
           summary_block(rows, info["date"], info["commit"], quick), ""]
    failed = [r for r in results if r.code not in (0, None)]
    if failed:
        out += ["**Failed:** " + ", ".join(f"`bench/{r.bench.script}`" for r in failed), ""]
    for r in results:
        out += [f"## {r.bench.title} (`bench/{r.bench.script}`)", "",
                textwrap.fill(r.bench.about, 100, break_on_hyphens=False), ""]
        command = f"bench/{r.bench.script} {' '.join(r.args)}".strip()
        if r.code is None:
            out += [f"Not run this time (`{command}`).", ""]
            continue
        if r.code == 0:
            out += [f"`{command}`: {r.seconds:.0f} s.", "", OUTPUT.format(name=r.bench.name),
                    "```text", r.stdout, "```", ""]
        else:  # (no output marker: the summary takes nothing from a failed bench)
            out += [f"`{command}`: **failed with exit code {r.code}** after {r.seconds:.0f} s. "
                    "Its output up to there:", "", "```text", r.stdout, "```", ""]
            tail = "\n".join(r.stderr.rstrip("\n").splitlines()[-STDERR_TAIL:])
            out += ["The end of its stderr:", "", "```text", tail, "```", ""]
    return "\n".join(out)


def replace_block(text: str, block: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + block + text[end:]


def shown_outputs(document: str) -> dict[str, str]:
    """Each bench's output as a document written by this script shows it (by its marker)."""
    return dict(re.findall(r"<!-- bench:output (\w+) -->\n```text\n(.*?)\n```", document, re.S))


def summarize_again(out: Path, readme: Path | None) -> None:
    """The summary block read again out of the outputs ``out`` already shows (after a change to
    a bench's headline reader), in ``out`` and ``readme``: no bench runs, no figure changes."""
    document = out.read_text()
    shown = shown_outputs(document)
    header = dict(re.findall(r"^\| (date|commit|mode) \| (.*) \|$", document, re.M))
    rows = [row for bench in BENCHES if bench.name in shown
            for row in bench.headlines(shown[bench.name])]
    block = summary_block(rows, header["date"], header["commit"],
                          header["mode"] != "full")
    out.write_text(replace_block(document, block))
    if readme is not None:
        readme.write_text(replace_block(readme.read_text(), block))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="each bench's quick mode, to a scratch file; README.md untouched")
    parser.add_argument("--out", type=Path, default=None,
                        help="the document (default docs/performance.md; quick: "
                        "$TMPDIR/pokertable-bench/performance.md)")
    parser.add_argument("--readme", type=Path, default=None,
                        help="the README whose summary block is rewritten (default: README.md "
                        "after a full run to docs/performance.md; none otherwise)")
    parser.add_argument("--only", nargs="+", choices=[b.name for b in BENCHES], default=None)
    parser.add_argument("--skip", nargs="+", choices=[b.name for b in BENCHES], default=[])
    parser.add_argument("--timeout", type=float, default=40.0,
                        help="minutes after which a bench still running is stopped (failed)")
    parser.add_argument("--summary-only", action="store_true",
                        help="run nothing: read the summary again out of the outputs the "
                        "document already shows (after a change to a headline reader)")
    args = parser.parse_args()
    if args.summary_only:
        summarize_again(args.out or ROOT / "docs" / "performance.md",
                        args.readme or (None if args.out else ROOT / "README.md"))
        return 0
    suite = os.environ.get("BENCH_SUITE")
    skip = set(args.skip) | ({"suite"} if suite == "0" else set())
    chosen = [b for b in BENCHES if (args.only is None or b.name in args.only)
              and b.name not in skip and (not args.quick or b.in_quick or suite == "1"
                                          or (args.only and b.name in args.only))]
    out = args.out or (Path(tempfile.gettempdir()) / "pokertable-bench" / "performance.md"
                       if args.quick else ROOT / "docs" / "performance.md")
    # README.md quotes a full run that wrote docs/performance.md, nothing else.
    readme = args.readme or (ROOT / "README.md" if not (args.quick or args.only or args.out)
                             else None)
    info = machine()
    info["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    info["load_before"] = load()
    started = time.monotonic()
    results = []
    for bench in BENCHES:
        if bench in chosen:
            results.append(run(bench, list(bench.quick if args.quick else bench.full),
                               args.timeout * 60))
        else:
            results.append(Result(bench, list(bench.quick if args.quick else bench.full), None,
                                  0.0, "", ""))
    info["load_after"] = load()
    info["total"] = f"{(time.monotonic() - started) / 60:.1f} min"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document(results, info, args.quick))
    print(f"\nwrote {out}")
    rows = summary_rows(results)
    if readme is not None:
        block = summary_block(rows, info["date"], info["commit"], args.quick)
        readme.write_text(replace_block(readme.read_text(), block))
        print(f"rewrote the summary in {readme}")
    ran = [r for r in results if r.code is not None]
    empty = [r.bench.name for r in ran if r.code == 0 and not r.bench.headlines(r.stdout)]
    if empty:
        print(f"no headline figure found in the output of: {', '.join(empty)}")
    failed = [r.bench.name for r in ran if r.code != 0]
    for r in ran:
        print(f"   {r.bench.name:<18}{'ok' if r.code == 0 else 'FAILED':<8}{r.seconds:>6.0f} s")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
