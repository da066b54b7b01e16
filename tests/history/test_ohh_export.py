"""Open Hand History and Open Tournament Summary (controller/history/ohh.py, ots.py): every
hand of a long simulated session, in the public view, the full record and each player's own,
validates against the OHH 1.4.7 JSON Schema (tests/data/ohh/, written from the specification's
text: no official schema exists) and its chips add up as a reader of the file counts them: the
posts, calls, bets and raises it says, the uncalled bet a reader gives back (OHH has no action
for it), and the pots' wins leave every player with the record's finishing stack. No hole card
the view does not hold is in any file; a void hand or a misdeal is left out, as PHH and tracker
text leave it. Through the command: a player's own hands with his tournament summary beside
them, and every player's."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.engine.records import Blinds, HandRecord, PotRecord
from controller.history.export import Placed, view, write_export
from controller.history.ohh import OhhExportError, TournamentInfo, ohh_hand
from controller.history.ots import Finish, Results, ots_document
from controller.history.views import hero_view
from tests.history.export_helpers import OHH, OTS, _split, cards_in, checked, settle, valid
from tests.history.sample_hand import SIDE_POTS, record_of


def read_ohh(text: str) -> list[dict[str, Any]]:
    """An .ohh file as the spec stores it: JSON objects one blank line apart."""
    assert text.endswith("\n") and "\n\n\n" not in text
    return [json.loads(part) for part in text.rstrip("\n").split("\n\n")]


@pytest.mark.long(35)
def test_every_hand_of_a_long_session_validates_and_its_chips_add_up(
        session_records: list[HandRecord]) -> None:
    """The public view, the full record, and each hand as one of its players' own (a
    different player hand after hand), written as `hands export --format ohh` writes them."""
    complete = [r for r in session_records if r.status == "complete"]
    public, full = io.StringIO(), io.StringIO()
    done = write_export(view(Placed(r) for r in session_records), public, "ohh")
    assert done.hands == len(complete)
    write_export(view((Placed(r) for r in session_records), full=True), full, "ohh")
    for record, hand in zip(complete, read_ohh(public.getvalue()), strict=True):
        checked(record, hand["ohh"], None)
        assert hand["ohh"]["hero_player_id"] is None and "Observed" in hand["ohh"]["flags"]
    for record, hand in zip(complete, read_ohh(full.getvalue()), strict=True):
        checked(record, hand["ohh"], "--full")
        assert set(cards_in(hand["ohh"])) == set(record.hole_cards)
    heroes = 0
    for k, record in enumerate(complete):
        names = sorted(record.players.values())
        hero = names[k % len(names)]
        seen = hero_view(record, hero)
        assert seen is not None
        hand = ohh_hand(seen, TournamentInfo(number="1", start=0.0), hero)["ohh"]
        checked(record, hand, hero)
        own = next(p for p in hand["players"] if p["name"] == hero)
        assert hand["hero_player_id"] == own["id"]
        dealt = [a for a in hand["rounds"][0]["actions"]
                 if a["action"] == "Dealt Cards" and a["player_id"] == own["id"]]
        assert [a["cards"] for a in dealt] == [_split(record.hole_cards[own["seat"]])]
        heroes += 1
    # The session has what the format must say: all-ins, side pots, showdowns, Omaha.
    assert heroes == len(complete) >= 1000
    assert sum(len(r.pots) > 1 for r in complete) >= 50
    assert sum(r.game == "PO" for r in complete) >= 100


def test_void_hands_and_misdeals_are_left_out_and_counted(
        session_records: list[HandRecord]) -> None:
    refused = [r for r in session_records if r.status != "complete"]
    assert refused
    for record in refused:
        with pytest.raises(OhhExportError):
            ohh_hand(record, TournamentInfo())
    out = io.StringIO()
    done = write_export(refused, out, "ohh")
    assert (done.hands, out.getvalue()) == (0, "")
    assert sum(done.left_out.values()) == len(refused)


# The side pots hand with the big blind's post recorded before the small blind's: the file still
# posts them in the specification's order.
BIG_BLIND_FIRST = [*(a for a in SIDE_POTS if a[1] == "ante"),
                   (9, "blind", 125, "", True), (6, "blind", 100, "", False),
                   *(a for a in SIDE_POTS if a[1] not in ("ante", "blind"))]


def test_the_hand_as_ohh_says_it() -> None:
    """Posts in the spec's order, a raise's amount what it adds, no uncalled bet, the shows in
    the Showdown round after the board, the pots main first; dora's own history."""
    record = record_of(BIG_BLIND_FIRST, board="2c7h9dJc3s", pots=[
        PotRecord(amount=475, eligible=[6, 9, 2], winners=[6], shares={6: 475}),
        PotRecord(amount=1500, eligible=[6, 2], winners=[6], shares={6: 1500}),
    ], finishing_stacks={6: 6075, 9: 0, 2: 0, 4: 7975})
    info = TournamentInfo(number="20261125", name="Berliner Einzelmeisterschaft",
                          start=1_794_990_000.0, currency="EUR", buy_in=100, fee=0,
                          initial_stack=20000, round_seconds=1200)
    document = ohh_hand(hero_view(record, "dora") or record, info, "dora")
    hand = document["ohh"]
    checked(record, hand, "dora")
    assert hand["start_date_utc"] == "2026-11-18T11:06:40Z"
    assert hand["game_number"] == "3:17:1795000000000"
    assert (hand["table_name"], hand["table_size"], hand["dealer_seat"]) == ("3", 9, 4)
    assert hand["tournament_info"] == {
        "tournament_number": "20261125", "name": "Berliner Einzelmeisterschaft",
        "start_date_utc": "2026-11-18T08:20:00Z", "currency": "EUR", "buyin_amount": 100,
        "fee_amount": 0, "bounty_fee_amount": None, "initial_stack": 20000, "type": "MTT",
        "flags": [], "speed": {"type": "Normal", "round_time": 1200}}
    ids = {p["name"]: p["id"] for p in hand["players"]}
    assert [p["seat"] for p in hand["players"]] == [2, 4, 6, 9]
    preflop = [(a["player_id"], a["action"], a["amount"], a["is_allin"], a.get("cards"))
               for a in hand["rounds"][0]["actions"]]
    assert preflop == [
        (ids["ben"], "Post Ante", 25, False, None), (ids["cem"], "Post Ante", 25, False, None),
        (ids["dora"], "Post Ante", 25, False, None), (ids["ana"], "Post Ante", 25, False, None),
        (ids["ben"], "Post SB", 100, False, None), (ids["cem"], "Post BB", 125, True, None),
        # What the view holds: dora's own, and those tabled; not ana's.
        (ids["ben"], "Dealt Cards", 0, False, ["As", "Ad"]),
        (ids["cem"], "Dealt Cards", 0, False, ["Ks", "Kd"]),
        (ids["dora"], "Dealt Cards", 0, False, ["Qs", "Qd"]),
        (ids["dora"], "Raise", 875, True, None), (ids["ana"], "Fold", 0, False, None),
        (ids["ben"], "Raise", 1900, False, None)]
    assert [(r["id"], r["street"], r["cards"], r["actions"][:0]) for r in hand["rounds"][1:4]] \
        == [(1, "Flop", ["2c", "7h", "9d"], []), (2, "Turn", ["Jc"], []),
            (3, "River", ["3s"], [])]
    showdown = hand["rounds"][4]
    assert (showdown["id"], showdown["street"]) == (4, "Showdown")
    assert [(a["player_id"], a["cards"]) for a in showdown["actions"]] == [
        (ids["ben"], ["As", "Ad"]), (ids["cem"], ["Ks", "Kd"]), (ids["dora"], ["Qs", "Qd"])]
    assert hand["pots"] == [
        {"number": 0, "amount": 475, "rake": 0,
         "player_wins": [{"player_id": ids["ben"], "win_amount": 475}]},
        {"number": 1, "amount": 1500, "rake": 0,
         "player_wins": [{"player_id": ids["ben"], "win_amount": 1500}]}]
    assert "7c" not in json.dumps(document)  # ana's cards: nobody saw them


def test_a_fold_that_leaves_a_short_call_in_the_pot_is_a_call_and_a_fold() -> None:
    """RULES R8: OHH has no action that puts chips in and folds; the chips must add up."""
    record = record_of([
        (6, "blind", 100, "", False), (9, "blind", 200, "", False),
        (2, "call", 200, "", False), (4, "raise", 1000, "", False), (6, "fold", 0, "", False),
        (9, "fold", 300, "", False), (2, "fold", 0, "", False), (4, "return", 500, "", False),
    ], blinds=Blinds(sb=100, bb=200), pots=[
        PotRecord(amount=1300, eligible=[4], winners=[4], shares={4: 1300})],
        finishing_stacks={6: 4900, 9: 0, 2: 700, 4: 8800},
        starting_stacks={6: 5000, 9: 500, 2: 900, 4: 8000})
    hand = ohh_hand(record.public(), TournamentInfo(number="1", start=0.0))["ohh"]
    valid(OHH, {"ohh": hand})
    assert settle(hand) == record.finishing_stacks
    cem = next(p["id"] for p in hand["players"] if p["name"] == "cem")
    assert [a["action"] for a in hand["rounds"][0]["actions"] if a["player_id"] == cem] == [
        "Post BB", "Call", "Fold"]


def test_the_schema_check_names_what_a_broken_hand_gets_wrong() -> None:
    """The validator the suite leans on refuses what the spec does not allow, naming where."""
    record = record_of([(6, "blind", 100, "", False), (9, "blind", 200, "", False),
                        (6, "fold", 0, "", False), (9, "return", 100, "", False)],
                       blinds=Blinds(sb=100, bb=200), pots=[
        PotRecord(amount=200, eligible=[9], winners=[9], shares={9: 200})],
        finishing_stacks={6: 4900, 9: 5100}, starting_stacks={6: 5000, 9: 5000})
    hand = ohh_hand(record.public(), TournamentInfo(number="1", start=0.0))["ohh"]
    valid(OHH, {"ohh": hand})
    hand["rounds"][0]["actions"][0]["action"] = "Posts Big"  # no such action in OHH
    del hand["players"][0]["seat"]
    with pytest.raises(AssertionError) as refused:
        valid(OHH, {"ohh": hand})
    assert "ohh/rounds/0/actions/0/action" in str(refused.value)
    assert "ohh/players/0: \"seat\" is a required property" in str(refused.value)


def test_a_summary_validates_and_says_places_and_prizes() -> None:
    info = TournamentInfo(number="20261125", name="Turbo", start=1_794_990_000.0,
                          currency="EUR", buy_in=50, fee=0, initial_stack=10000, kind="STT",
                          round_seconds=900, flags=("Re-Entry",))
    results = Results(finishes=(Finish("ana", 1, 300), Finish("ben", 2, 150),
                                Finish("cem", 3, 0), Finish("dora", None)),
                      prize_pool=450, end=1_795_000_000.0)
    document = ots_document(info, results, "ben")
    valid(OTS, document)
    summary = document["ots"]
    assert (summary["hero_player_name"], summary["player_count"], summary["prize_pool"]) == (
        "ben", 4, 450)
    assert (summary["start_date_utc"], summary["end_date_utc"]) == (
        "2026-11-18T08:20:00Z", "2026-11-18T11:06:40Z")
    assert summary["tournament_finishes_and_winnings"] == [
        {"player_name": "ana", "finish_position": 1, "still_playing": False, "prize": 300,
         "ticket_value": 0},
        {"player_name": "ben", "finish_position": 2, "still_playing": False, "prize": 150,
         "ticket_value": 0},
        {"player_name": "cem", "finish_position": 3, "still_playing": False, "prize": 0,
         "ticket_value": 0},
        {"player_name": "dora", "still_playing": True}]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def tournament(tmp_path: Path, session_records: list[HandRecord]) -> tuple[Path, Path, list[str]]:
    """A table's records.jsonl (the session's first table) and the tournament's configuration,
    its structure and the standings it exported: the player with the most hands still in, the
    next second (and paid), every other placed."""
    records = [r for r in session_records if r.table == session_records[0].table][:40]
    source = tmp_path / "records.jsonl"
    source.write_text("".join(r.model_dump_json() + "\n" for r in records))
    # The most hands first: the soak's players go out and others take their seats.
    played = Counter(name for r in records for name in r.players.values())
    players = sorted(played, key=lambda n: (-played[n], n))
    (tmp_path / "structure.toml").write_text(
        'name = "Turbo"\nchips = [25, 100, 500]\n\n[[levels]]\nsb = 25\nbb = 50\nminutes = 15\n'
        '\n[[levels]]\nsb = 50\nbb = 100\nminutes = 15\n\n[entry]\nstack = 10000\nbuy_in = 50\n'
        'currency = "EUR"\nreentry = true\n')
    config = tmp_path / "tournament.toml"
    config.write_text(
        '[tournament]\nname = "Berliner Einzelmeisterschaft"\nstructure = "structure.toml"\n'
        'tables = ["1", "2"]\nexport = "standings"\n\n[mqtt]\nhost = "127.0.0.1"\n'
        'venue = "hall"\ncredentials = "credentials.json"\n')
    (tmp_path / "standings").mkdir()
    standings = [{"player": name, "place": None if k == 0 else k + 1,
                  "prize": 100 if k == 1 else 0,
                  "out_at": None if k == 0 else "2026-11-18T11:00:00Z"}
                 for k, name in enumerate(players)]
    (tmp_path / "standings" / "standings.json").write_text(json.dumps({
        "tournament": "Berliner Einzelmeisterschaft", "exported_at": "2026-11-18T12:00:00Z",
        "entries": len(players), "players": len(players), "prize_pool": 100,
        "currency": "EUR", "standings": standings}))
    return source, config, players


def test_a_players_own_hands_and_his_summary_through_the_command(
        tournament: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    source, config, players = tournament
    hero = players[1]
    out = tmp_path / "mine.ohh"
    code, _, err = run("hands", "export", str(source), "--format", "ohh", "--hero", hero,
                       "--tournament-config", str(config), "--out", str(out))
    assert code == 0, err
    records = [HandRecord.model_validate_json(line) for line in source.read_text().splitlines()]
    his = [r for r in records if hero in r.players.values() and r.status == "complete"]
    hands = read_ohh(out.read_text())
    assert len(hands) == len(his) >= 5
    first = min(r.started or 0.0 for r in records)
    for record, document in zip(his, hands, strict=True):
        valid(OHH, document)
        hand = document["ohh"]
        checked(record, hand, hero)
        assert hand["players"][hand["hero_player_id"]]["name"] == hero
        info = hand["tournament_info"]
        assert (info["name"], info["currency"], info["buyin_amount"], info["initial_stack"],
                info["type"], info["flags"], info["speed"]["round_time"]) == (
            "Berliner Einzelmeisterschaft", "EUR", 50, 10000, "MTT", ["Re-Entry"], 900)
        assert info["start_date_utc"] == hands[0]["ohh"]["tournament_info"]["start_date_utc"]
    summary = json.loads(out.with_suffix(".ots").read_text())
    valid(OTS, summary)
    ots = summary["ots"]
    assert ots["hero_player_name"] == hero and ots["player_count"] == len(players)
    assert ots["tournament_number"] == hands[0]["ohh"]["tournament_info"]["tournament_number"]
    assert ots["start_date_utc"] == hands[0]["ohh"]["tournament_info"]["start_date_utc"]
    assert ots["start_date_utc"] <= hands[0]["ohh"]["start_date_utc"]
    assert ots["tournament_finishes_and_winnings"][1] == {
        "player_name": hero, "finish_position": 2, "still_playing": False, "prize": 100,
        "ticket_value": 0}
    assert first > 0 and oct(out.stat().st_mode & 0o777) == oct(0o600)
    assert oct(out.with_suffix(".ots").stat().st_mode & 0o777) == oct(0o600)


def test_every_players_hands_and_summary_through_the_command(
        tournament: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    source, config, players = tournament
    directory = tmp_path / "players"
    code, _, err = run("hands", "export", str(source), "--format", "ohh", "--every-player",
                       "--out", str(directory), "--tournament-config", str(config))
    assert code == 0, err
    numbers = set()
    for name in players:
        hands = read_ohh((directory / f"{name}.ohh").read_text())
        for document in hands:
            valid(OHH, document)
            hand = document["ohh"]
            assert hand["players"][hand["hero_player_id"]]["name"] == name
            numbers.add(hand["tournament_info"]["tournament_number"])
        summary = json.loads((directory / f"{name}.ots").read_text())
        valid(OTS, summary)
        assert summary["ots"]["hero_player_name"] == name
        numbers.add(summary["ots"]["tournament_number"])
    assert len(numbers) == 1  # one tournament in every player's tracker


def test_the_public_export_without_a_configuration(
        tournament: tuple[Path, Path, list[str]]) -> None:
    """What the records know: the number and start from the first hand; no currency (XXX),
    buy-in or start stack; "Observed" hands, no summary."""
    source, config, _ = tournament
    code, text, err = run("hands", "export", str(source), "--format", "ohh", "--tournament",
                          "7")
    assert code == 0, err
    hands = read_ohh(text)
    for document in hands:
        valid(OHH, document)
        info = document["ohh"]["tournament_info"]
        assert (info["tournament_number"], info["name"], info["currency"],
                info["buyin_amount"]) == ("7", "Tournament 7", "XXX", None)
    code, _, err = run("hands", "export", str(source), "--format", "phh",
                       "--tournament-config", str(config))
    assert code == 2 and "--tournament-config" in err


def test_file_names_are_ascii_for_ohh() -> None:
    """The spec's storage format: file names of ASCII characters only."""
    from controller.cli.hands import _file_stem

    taken: set[str] = set()
    assert _file_stem("Jürgen", taken, ascii_only=True) == "Jurgen"
    assert _file_stem("Jurgen", taken, ascii_only=True) == "Jurgen-2"
    assert _file_stem("李 明", taken, ascii_only=True) == "player"  # nothing ASCII is left
    assert _file_stem("Jürgen", set()) == "Jürgen"  # the other formats keep the name
