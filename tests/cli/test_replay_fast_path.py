"""`pokertable replay FILE...` with nothing but files skips the command line's parser and the
`json` module (issue 37: its start-up is part of the replay benchmark). What it prints and its exit
status must be what the parsed command's were: checked against `replay_files` reached through the
parser (``--`` before the files makes `main` parse), on good and refused hands, a missing file, a
file with Windows line ends, a `.phhs` document and a name that JSON must escape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "phh"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "replay", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_files_alone_print_what_the_parsed_command_prints(tmp_path: Path) -> None:
    samples = sorted(DATA.glob("*.phh"))
    crlf = tmp_path / "windows line ends.phh"
    crlf.write_bytes(samples[0].read_bytes().replace(b"\n", b"\r\n"))
    odd_name = tmp_path / 'quote " and é.phh'
    odd_name.write_bytes(samples[1].read_bytes())
    refused = tmp_path / "refused.phh"
    refused.write_text('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\n'
                       'min_bet = 2\nstarting_stacks = [200, 200]\nactions = ["p1 cc"]\n')
    document = tmp_path / "two.phhs"
    document.write_text("[1]\n" + samples[2].read_text() + "\n[2]\n" + refused.read_text())
    files = [*map(str, samples), str(crlf), str(odd_name), str(refused), str(document),
             str(tmp_path / "missing.phh")]
    fast, parsed = _run(*files), _run("--", *files)
    assert fast.returncode == parsed.returncode == 1  # (refused hands and a missing file)
    assert fast.stdout == parsed.stdout
    assert fast.stderr == parsed.stderr
    lines = [json.loads(line) for line in fast.stdout.splitlines()]
    assert [line["file"] for line in lines] == files[:-2] + [str(document)] * 2 + files[-1:]
    assert lines[len(samples)]["finishing_stacks"] == lines[0]["finishing_stacks"]  # CRLF
    assert "finishing_stacks" in lines[len(samples) + 1]  # the name JSON escapes
    assert "hand" in lines[-3] and lines[-2]["hand"] == "2"  # (the sample names its hand)
    assert "error" in lines[-2] and "No such file" in lines[-1]["error"]


def test_an_option_still_goes_through_the_parser() -> None:
    done = _run("--bogus", str(sorted(DATA.glob("*.phh"))[0]))
    assert done.returncode == 2
    assert done.stderr == "pokertable: unrecognized arguments: --bogus\n"


def test_the_command_ends_without_the_interpreters_tear_down_and_loses_no_line() -> None:
    """`pokertable replay FILE...` ends with os._exit once its output is flushed (issue 37:
    the tear-down was a tenth of a one-hand replay): every line is out, the status is 0 for
    good hands, the console script behaves as ``-m``, and a reader that stops reading early
    gets no traceback."""
    every = [str(p) for p in sorted(DATA.glob("*.phh"))]
    good = [json.loads(line)["file"] for line in _run(*every).stdout.splitlines()
            if "finishing_stacks" in line]
    assert len(good) > 10
    samples = good * 30  # more lines than one batch of the output
    done = _run(*samples)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(samples)
    script = Path(sys.executable).with_name("pokertable")
    by_script = subprocess.run([str(script), "replay", *samples], capture_output=True, text=True,
                               timeout=60, check=False)
    assert (by_script.returncode, by_script.stdout) == (0, done.stdout)
    head = subprocess.Popen([sys.executable, "-m", "controller.cli", "replay", *samples * 4],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert head.stdout is not None and head.stderr is not None
    assert head.stdout.readline().startswith(b'{"file": ')
    head.stdout.close()  # the reader has what it wanted
    assert head.wait(timeout=60) in (0, 1)
    assert b"Traceback" not in head.stderr.read()
    head.stderr.close()
