"""The hand of docs/hands.md's tracker text, as records the export tests build by hand: seats 4
(the button), 6 (small blind), 9 (big blind) and 2, table 3's hand 17 at level 5 (100/200,
ante 25)."""

from __future__ import annotations

from controller.engine.records import ActionRecord, Blinds, HandRecord

Action = tuple[int | None, str, int, str, bool]  # seat, action, amount, cards, all-in


def record_of(actions: list[Action], **fields: object) -> HandRecord:
    """The hand's record with these preflop ``actions`` (``fields`` replace the defaults)."""
    document: dict[str, object] = {
        "table": "3", "hand": 17, "game": "NT", "level": 5,
        "blinds": Blinds(sb=100, bb=200, ante=25), "button": 4, "sb": 6, "bb": 9,
        "started": 1_795_000_000.0,
        "players": {6: "ben", 9: "cem", 2: "dora", 4: "ana"},
        "starting_stacks": {6: 5000, 9: 150, 2: 900, 4: 8000},
        "hole_cards": {6: "AsAd", 9: "KsKd", 2: "QsQd", 4: "7c2d"},
        "board": "", "pots": [], "finishing_stacks": {6: 5000, 9: 150, 2: 900, 4: 8000},
        "actions": [ActionRecord(street="preflop", seat=s, action=k, amount=n, cards=c,
                                 all_in=a) for s, k, n, c, a in actions],
    }
    document.update(fields)
    return HandRecord.model_validate(document)


# All-ins and a side pot: cem's big blind all-in for 125, dora all-in for 875, ana folds, ben
# raises to 2,000 and takes back 1,125 uncalled; three hands tabled.
SIDE_POTS: list[Action] = [
    (6, "ante", 25, "", False), (9, "ante", 25, "", False), (2, "ante", 25, "", False),
    (4, "ante", 25, "", False), (6, "blind", 100, "", False), (9, "blind", 125, "", True),
    (6, "deal_hole", 0, "AsAd", False), (9, "deal_hole", 0, "KsKd", False),
    (2, "deal_hole", 0, "QsQd", False), (4, "deal_hole", 0, "7c2d", False),
    (2, "raise", 875, "", True), (4, "fold", 0, "", False), (6, "raise", 2000, "", False),
    (6, "return", 1125, "", False),
    (6, "show", 0, "AsAd", False), (9, "show", 0, "KsKd", False), (2, "show", 0, "QsQd", False),
    (None, "deal_board", 0, "2c7h9d", False), (None, "deal_board", 0, "Jc", False),
    (None, "deal_board", 0, "3s", False),
]
