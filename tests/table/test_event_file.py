"""The table's events.jsonl is rotated by size: whole lines only, none lost but the oldest
files beyond the ones kept, and a line cut by a power cut does not swallow the next."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.session.outputs import PublicEvent
from controller.table.config import load_table_config
from controller.table.sinks import FileSink


def event(k: int, text: str = "") -> PublicEvent:
    return PublicEvent(kind="action", text=f"event {k} {text}".strip(), hand=k)


def lines_of(path: Path) -> list[dict[str, object]]:
    raw = path.read_bytes()
    assert raw == b"" or raw.endswith(b"\n")  # never a half line at the end of a file
    return [json.loads(line) for line in raw.decode().splitlines()]


def test_events_rotate_by_size_keeping_whole_lines_and_the_newest_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = FileSink(out, events_max_bytes=4096, events_keep=3)
    written = 0
    for k in range(400):
        sink.event(event(k, "x" * (k % 50)))
        written += 1
    sink.close()
    files = [out / "events.jsonl.3", out / "events.jsonl.2", out / "events.jsonl.1",
             out / "events.jsonl"]
    assert not (out / "events.jsonl.4").exists()  # the oldest went
    assert all(path.stat().st_size <= 4096 for path in files)
    assert all(path.stat().st_mode & 0o777 == 0o640 for path in files)
    kept = [e["hand"] for path in files for e in lines_of(path)]
    # The files kept hold the newest events, in order, without a gap or a repeat.
    assert kept == list(range(written - len(kept), written))
    assert len(kept) > 3 * 4096 // 200  # each full file was filled close to its size


def test_a_line_longer_than_the_limit_is_written_whole_in_a_file_of_its_own(
        tmp_path: Path) -> None:
    sink = FileSink(tmp_path, events_max_bytes=4096, events_keep=2)
    sink.event(event(1))
    sink.event(event(2, "y" * 5000))
    sink.event(event(3))
    sink.close()
    assert [e["hand"] for e in lines_of(tmp_path / "events.jsonl.2")] == [1]
    assert [e["hand"] for e in lines_of(tmp_path / "events.jsonl.1")] == [2]
    assert [e["hand"] for e in lines_of(tmp_path / "events.jsonl")] == [3]


def test_a_restart_goes_on_counting_the_file_it_finds(tmp_path: Path) -> None:
    sink = FileSink(tmp_path, events_max_bytes=4096)
    for k in range(30):
        sink.event(event(k))
    sink.close()
    size = (tmp_path / "events.jsonl").stat().st_size
    with (tmp_path / "events.jsonl").open("ab") as fh:
        fh.write(b'{"kind": "action", "te')  # the power went mid-line
    sink = FileSink(tmp_path, events_max_bytes=4096)
    k = 30
    while not (tmp_path / "events.jsonl.1").exists():
        sink.event(event(k))
        k += 1
    sink.close()
    older = (tmp_path / "events.jsonl.1").read_bytes()
    assert older[size:].startswith(b'{"kind": "action", "te\n')  # cut, then a fresh line
    assert len(older) <= 4096
    hands = [json.loads(line)["hand"] for line in older.decode().splitlines()
             if not line.endswith('"te')]
    hands += [e["hand"] for e in lines_of(tmp_path / "events.jsonl")]
    assert hands == list(range(k))


def test_the_rotation_is_configured_in_table_toml(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nevents_max_bytes = 65536\nevents_keep = 2\n')
    table = load_table_config(config).table
    assert (table.events_max_bytes, table.events_keep) == (65536, 2)
    default = tmp_path / "default.toml"
    default.write_text("[table]\n")
    table = load_table_config(default).table
    assert (table.events_max_bytes, table.events_keep) == (10_000_000, 5)
    config.write_text("[table]\nevents_max_bytes = 10\n")
    with pytest.raises(ConfigError, match=r"table\.events_max_bytes"):
        load_table_config(config)
