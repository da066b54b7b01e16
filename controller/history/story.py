"""A finished hand told in the floor's words: the lines a table's story says while the hand is
played ("seat 1 raises to 300", "flop: Qs Jd 4h", "pot 1 (1,200): seat 2 1,200 with two
pair"), from its record, for the hands screen and anyone reading a record later. Never an
engine's word (``deal_board``, ``return``), never a hole card the record does not show. At a
table with a shot clock each timed action says how long the player took ("seat 1 calls 100
(after 45 s, 1 time extension)"), so the hand record shows it to whoever reads it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from controller.engine.records import ActionRecord, HandRecord
from controller.session.words import blinds_text, spaced


class StoryLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    rule: str | None = None
    kind: str = "action"  # hand_started, action, street, show, muck, payout, hand_over, floor
    player: str | None = None  # the player the line is about (the floor reads names)


def hand_story(record: HandRecord) -> list[StoryLine]:
    """The hand from its first line to its payouts; the floor's notes (irregularities and
    decisions, with their rules) last."""
    sb = f"small blind seat {record.sb}" if record.sb is not None else "dead small blind"
    lines = [StoryLine(kind="hand_started", rule="PVB 14(3)",
                       text=f"hand {record.hand}: button seat {record.button}, {sb}, big blind "
                            f"seat {record.bb}; {blinds_text(record.blinds)}")]
    for action in record.actions:
        line = _action_line(record, action)
        if line is not None:
            player = record.players.get(action.seat) if action.seat is not None else None
            update: dict[str, object] = {"player": player} if player else {}
            if action.time_used is not None:  # a table with a shot clock (docs/shot-clock.md)
                update["text"] = f"{line.text} {_time_taken(action)}"
            lines.append(line.model_copy(update=update) if update else line)
    if record.status == "complete":
        for k, pot in enumerate(record.pots, start=1):
            shares = ", ".join(f"seat {s} {chips:,}" for s, chips in pot.shares.items())
            hand_name = f" with {pot.winning_hand}" if pot.winning_hand else ""
            lines.append(StoryLine(kind="payout", rule="PVB 63",
                                   text=f"pot {k} ({pot.amount:,}): {shares}{hand_name}"))
    else:
        lines.append(StoryLine(kind="hand_over", rule="PVB 30" if record.status == "misdeal"
                               else "PVB 33",
                               text=f"hand {record.hand} is {record.status}: every bet goes "
                                    "back, the same button deals again"))
    lines += [StoryLine(kind="floor", text=i.text, rule=i.rule) for i in record.irregularities]
    return lines


def _action_line(record: HandRecord, a: ActionRecord) -> StoryLine | None:
    seat = f"seat {a.seat}"
    all_in = " (all-in)" if a.all_in else ""
    match a.action:
        case "ante":
            what = "big-blind ante" if record.blinds.bb_ante and a.seat == record.bb else "ante"
            return StoryLine(text=f"{seat} posts the {what} {a.amount:,}")
        case "blind":
            what = ("small blind" if a.seat == record.sb else "big blind" if a.seat == record.bb
                    else "a blind")
            return StoryLine(text=f"{seat} posts {'' if what == 'a blind' else 'the '}{what} "
                                  f"{a.amount:,}")
        case "fold":
            return StoryLine(text=f"{seat} folds")
        case "kill":
            return StoryLine(text=f"{seat}'s hand is dead")
        case "check":
            return StoryLine(text=f"{seat} checks")
        case "call":
            return StoryLine(text=f"{seat} calls {a.amount:,}{all_in}")
        case "bet":
            return StoryLine(text=f"{seat} bets {a.amount:,}{all_in}")
        case "raise":
            return StoryLine(text=f"{seat} raises to {a.amount:,}{all_in}")
        case "return":
            return StoryLine(text=f"the {a.amount:,} nobody called goes back to {seat}")
        case "deal_board":
            return StoryLine(kind="street", text=f"{a.street}: {spaced(a.cards)}")
        case "show":
            return StoryLine(kind="show", text=f"{seat} shows {spaced(a.cards)}")
        case "muck":
            return StoryLine(kind="muck", rule="PVB 56",
                             text=f"{seat} mucks: the hand gives up its claim to the pot")
    return None  # dealt cards (unknown unless shown: the show says them), the win (the pots)


def _time_taken(a: ActionRecord) -> str:
    """The shot clock's time on an action: how long the player took, and the extensions he
    used on it (the clock only tells: the floor rules on time, RULES C1)."""
    extensions = a.extensions_used or 0
    used = (f", {extensions} time extension{'' if extensions == 1 else 's'}"
            if extensions else "")
    return f"(after {a.time_used:g} s{used})"


__all__ = ["StoryLine", "hand_story"]
