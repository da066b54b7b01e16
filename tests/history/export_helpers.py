"""The export tests' checks of a written hand: OHH's schemas and chips, PokerKit's PHH stacks."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema_rs
from pokerkit import HandHistory
from pokerkit.state import CheckingOrCalling, CompletionBettingOrRaisingTo, Folding

from controller.engine.records import HandRecord

DATA = Path(__file__).parent.parent / "data" / "ohh"
OHH = jsonschema_rs.Draft202012Validator(json.loads((DATA / "ohh-1.4.7.schema.json").read_text()))
OTS = jsonschema_rs.Draft202012Validator(json.loads((DATA / "ots-1.1.5.schema.json").read_text()))
PUTS_IN = {"Post SB", "Post BB", "Post Ante", "Post Dead", "Post Extra Blind", "Straddle",
           "Call", "Bet", "Raise"}


def valid(validator: jsonschema_rs.Draft202012Validator, document: Any) -> None:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.instance_path)))
    assert not errors, [f"{'/'.join(map(str, e.instance_path))}: {e.message}"
                        for e in errors[:5]]


def settle(hand: dict[str, Any]) -> dict[int, int]:
    """Each player's chips after the hand, as a reader of the file counts them: what his
    actions put in, the uncalled part of the largest bet back (live chips only: an ante is
    dead), his wins. Checks on the way that the pots hold what was put in, and no more."""
    put: Counter[int] = Counter()
    live: Counter[int] = Counter()
    for round_ in hand["rounds"]:
        for action in round_["actions"]:
            if action["action"] in PUTS_IN:
                put[action["player_id"]] += action["amount"]
                if action["action"] != "Post Ante":
                    live[action["player_id"]] += action["amount"]
    ranked = live.most_common()
    back = ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else 0) if ranked else 0
    pots = hand["pots"]
    assert sum(put.values()) - back == sum(p["amount"] for p in pots)
    won: Counter[int] = Counter()
    for pot in pots:
        assert sum(w["win_amount"] for w in pot["player_wins"]) + pot["rake"] == pot["amount"]
        for w in pot["player_wins"]:
            won[w["player_id"]] += w["win_amount"]
    stacks = {}
    for player in hand["players"]:
        k = player["id"]
        stacks[player["seat"]] = (player["starting_stack"] - put[k] + won[k]
                                  + (back if ranked and ranked[0][0] == k else 0))
    return stacks


def cards_in(hand: dict[str, Any]) -> dict[int, list[str]]:
    """Each seat's cards the file shows (dealt or shown)."""
    seat = {p["id"]: p["seat"] for p in hand["players"]}
    out: dict[int, list[str]] = {}
    for round_ in hand["rounds"]:
        for action in round_["actions"]:
            if action.get("cards"):
                out.setdefault(seat[action["player_id"]], []).extend(action["cards"])
    return out


def checked(record: HandRecord, hand: dict[str, Any], hero: str | None) -> None:
    """Valid, the chips add up, and no card the view does not hold: a seat's cards only where
    he tabled them or is the hero (``"--full"``: the full record, every seat's)."""
    valid(OHH, {"ohh": hand})
    assert settle(hand) == record.finishing_stacks
    assert sum(record.starting_stacks.values()) == (
        sum(record.finishing_stacks.values()) + sum(p["rake"] for p in hand["pots"]))
    tabled = record.tabled()
    for seat, cards in cards_in(hand).items():
        own = record.players[seat] == hero
        assert seat in tabled or own or hero == "--full", (record.hand, seat)
        assert set(cards) <= set(_split(record.hole_cards[seat]))
    shows = [a for r in hand["rounds"] for a in r["actions"] if a["action"] == "Shows Cards"]
    assert all(r["street"] == "Showdown" for r in hand["rounds"]
               if any(a["action"] in ("Shows Cards", "Mucks Cards") for a in r["actions"]))
    assert len(shows) == len(tabled)


def _split(text: str) -> list[str]:
    return [text[k:k + 2] for k in range(0, len(text), 2)]


PLAYER_ACTIONS = (Folding, CheckingOrCalling, CompletionBettingOrRaisingTo)


def pokerkit_stacks(text: str) -> list[int]:
    """PokerKit's own reading of the file (HandHistory, as its documentation shows), and the
    proof that it applied every player action the file holds rather than repairing the hand."""
    history = HandHistory.loads(text)
    with warnings.catch_warnings():
        # PokerKit's cash-game mode warns at a fold with nothing to call; the rules make such a
        # fold binding (PVB 38(1)) and the record has it.
        warnings.simplefilter("ignore", UserWarning)
        state = list(history)[-1]
    applied = sum(isinstance(op, PLAYER_ACTIONS) for op in state.operations)
    written = sum(a.split()[1] in ("f", "cc", "cbr") for a in history.actions if a[0] == "p")
    assert applied == written, "PokerKit repaired the hand: an action was not where it belongs"
    return [int(s) for s in state.stacks]


def split_as_pokerkit_does(record: HandRecord) -> list[int]:
    """The record's finishing stacks with every pot shared as PokerKit shares it: pots left with
    the same players (those who win something) merged, the remainder to the first winner in the
    file's order."""
    order = list(record.starting_stacks)
    stacks = dict(record.finishing_stacks)
    survivors = {w for pot in record.pots for w in pot.winners}
    merged: list[tuple[frozenset[int], int, list[int]]] = []
    for pot in record.pots:
        for seat, chips in pot.shares.items():
            stacks[seat] -= chips
        players = frozenset(pot.eligible) & survivors
        if merged and merged[-1][0] == players:
            merged[-1] = (players, merged[-1][1] + pot.amount, merged[-1][2])
        else:
            merged.append((players, pot.amount, sorted(pot.winners, key=order.index)))
    for _, amount, winners in merged:
        share, odd = divmod(amount, len(winners))
        for seat in winners:
            stacks[seat] += share
        stacks[winners[0]] += odd
    return [stacks[s] for s in order]
