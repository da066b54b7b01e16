"""`pokertable hands`: a player's own history, searched for any hole card but his own and those
tabled, in every format; each player's own file; the public export shows only tabled cards."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import rtoml

from controller.engine.records import HandRecord
from tests.cli.hands_commands import run


def cards_in(text: str) -> set[str]:
    return {text[k:k + 2] for k in range(0, len(text), 2)} - {"??"}


def hole_cards_shown(output: str, fmt: str) -> dict[str, set[str]]:
    """Every hole card an export shows, by hand (table:hand), read the way its readers read
    it: the records' fields and actions, PHH's deal and show actions, the bracketed cards of
    tracker text but the board."""
    shown: dict[str, set[str]] = {}
    if fmt == "json":
        for line in output.splitlines():
            record = HandRecord.model_validate_json(line)
            cards = shown.setdefault(f"{record.table}:{record.hand}", set())
            for text in record.hole_cards.values():
                cards |= cards_in(text)
            for a in record.actions:
                if a.action != "deal_board":
                    cards |= cards_in(a.cards)
    elif fmt == "phh":
        for hand in rtoml.loads(output).values():
            cards = shown.setdefault(f"{hand['table']}:{hand['hand']}", set())
            for action in hand["actions"]:
                words = action.split()
                if words[:2] == ["d", "dh"] or (len(words) == 3 and words[1] == "sm"):
                    cards |= cards_in(words[-1])
    else:
        for text in output.split("PokerStars Hand #")[1:]:
            table = re.search(r"^Table '\d+ (\S+)'", text, re.M)
            assert table is not None
            key = f"{table.group(1)}:{hand_of[text.split(':')[0]]}"
            cards = shown.setdefault(key, set())
            for line in text.splitlines()[1:]:  # after the header (its time is bracketed)
                if line.startswith(("*** FLOP", "*** TURN", "*** RIVER", "Board")):
                    continue
                for group in re.findall(r"\[([^\]]*)\]", line):
                    cards |= set(group.split())
    return shown


hand_of: dict[str, int] = {}  # tracker-text hand number -> the table's hand number


def show_json(output: str) -> str:
    """`hands show`'s indented records as JSON lines."""
    decoder, lines, at = json.JSONDecoder(), [], 0
    while output[at:].strip():
        value, end = decoder.raw_decode(output, at)
        lines.append(json.dumps(value))
        at = end + 1
    return "\n".join(lines)


def check_views(records: list[HandRecord], shown: dict[str, set[str]],
                hero: str | None) -> int:
    """No hand shows a hole card but the hero's own and those tabled; the hero's own are there
    (so the search would find others)."""
    checked = 0
    for record in records:
        key = f"{record.table}:{record.hand}"
        if key not in shown:
            continue
        tabled = record.tabled()
        own = next((s for s, n in record.players.items() if n == hero), None)
        allowed = set().union(*(cards_in(c) for s, c in record.hole_cards.items()
                                if s in tabled or s == own))
        hidden = set().union(*(cards_in(c) for s, c in record.hole_cards.items()
                               if s not in tabled and s != own))
        assert not shown[key] & hidden, (hero, key, shown[key] & hidden)
        assert shown[key] <= allowed, (hero, key)
        if own is not None:
            assert cards_in(record.hole_cards.get(own, "")) <= shown[key], (hero, key)
        checked += 1
    return checked


def test_a_players_own_history_shows_no_hole_card_but_his_and_those_tabled(
        table: tuple[Path, list[HandRecord]]) -> None:
    from controller.history.stars import hand_number

    directory, records = table
    source = str(directory / "records.jsonl")
    hand_of.update({str(hand_number(r)): r.hand for r in records})
    players = sorted({name for r in records for name in r.players.values()})
    checked = 0
    for hero in players:
        played = [r for r in records if hero in r.players.values()]
        complete = [r for r in played if r.status == "complete"]
        for fmt, hands in (("json", played), ("phh", complete), ("stars", complete)):
            code, out, _ = run("hands", "export", source, "--hero", hero, "--format", fmt)
            assert code == (0 if hands else 1), (hero, fmt)
            shown = hole_cards_shown(out, fmt)
            assert set(shown) == {f"{r.table}:{r.hand}" for r in hands}, (hero, fmt)
            checked += check_views(hands, shown, hero)
        code, out, _ = run("hands", "show", source, "--hero", hero)
        assert set(hole_cards_shown(show_json(out), "json")) == {
            f"{r.table}:{r.hand}" for r in played}
        checked += check_views(played, hole_cards_shown(show_json(out), "json"), hero)
        code, out, _ = run("hands", "show", source, "--hero", hero, "--format", "stars")
        checked += check_views(complete, hole_cards_shown(out, "stars"), hero)
        code, out, _ = run("hands", "list", source, "--hero", hero)
        assert len(out.splitlines()) == len(played)
        assert not re.search(r"\b[2-9TJQKA][cdhs]\b", out)  # a list shows no card at all
    assert checked >= 5 * 100


def test_every_player_gets_his_own_hands_in_a_file_of_his_own(
        table: tuple[Path, list[HandRecord]], tmp_path: Path) -> None:
    """After a tournament the room hands each player his own hands: one file each, named
    after him, private, holding his hands only with no hole card but his own and those
    tabled, every file with the same tournament number."""
    from controller.history.stars import hand_number

    directory, records = table
    source = str(directory / "records.jsonl")
    hand_of.update({str(hand_number(r)): r.hand for r in records})
    players = sorted({name for r in records for name in r.players.values()})
    out = tmp_path / "players"
    code, _, err = run("hands", "export", source, "--format", "stars", "--every-player",
                       "--out", str(out))
    assert code == 0, err
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"{name}.txt" for name in players]
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    numbers: set[str] = set()
    checked = 0
    for name, path in zip(players, files, strict=True):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        text = path.read_text()
        complete = [r for r in records if name in r.players.values()
                    and r.status == "complete"]
        shown = hole_cards_shown(text, "stars")
        assert set(shown) == {f"{r.table}:{r.hand}" for r in complete}, name
        checked += check_views(complete, shown, name)
        assert f"Dealt to {name} [" in text
        numbers |= set(re.findall(r"Tournament #(\d+)", text))
        assert f"{name}: {len(complete)} hand{'s' * (len(complete) != 1)} to {path}" in err
    assert len(numbers) == 1 and checked >= 100
    # Mistakes are one line, and write nothing.
    y = str(tmp_path / "y")
    for extra in (["--hero", players[0], "--out", y], ["--full", "--out", y], []):
        code, _, err = run("hands", "export", source, "--every-player", *extra)
        assert code == 2 and err.count("\n") == 1 and "--every-player" in err, extra
    assert not (tmp_path / "y").exists()


def test_a_players_file_name_is_his_name_made_safe() -> None:
    from controller.cli.hands import _file_stem

    taken: set[str] = set()
    assert [_file_stem(n, taken) for n in ("Anna K.", "../etc/passwd", "anna_k", "Anna K",
                                            "Jürgen", "...", "")] == [
        "Anna_K", "etc_passwd", "anna_k-2", "Anna_K-3", "Jürgen", "player", "player-2"]


def test_the_public_export_shows_only_tabled_cards(
        table: tuple[Path, list[HandRecord]]) -> None:
    from controller.history.stars import hand_number

    directory, records = table
    hand_of.update({str(hand_number(r)): r.hand for r in records})
    complete = [r for r in records if r.status == "complete"]
    for fmt, hands in (("json", records), ("phh", complete), ("stars", complete)):
        out = run("hands", "export", str(directory / "records.jsonl"), "--format", fmt)[1]
        assert check_views(hands, hole_cards_shown(out, fmt), None) == len(hands)
        assert "Dealt to" not in out
    out = run("hands", "export", str(directory / "records.jsonl"), "--full")[1]
    assert [HandRecord.model_validate_json(line) for line in out.splitlines()] == records
