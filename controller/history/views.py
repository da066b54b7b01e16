"""Who may see which hole cards in a hand leaving the room (docs/design.md "Secrets"): everyone
sees the cards tabled at the showdown (`HandRecord.public`); a player also sees his own."""

from __future__ import annotations

from controller.engine.records import HandRecord


def seat_of(record: HandRecord, player: str) -> int | None:
    """The seat ``player`` played this hand from, or None if he was not dealt in."""
    for seat, name in record.players.items():
        if name == player:
            return seat
    return None


def hero_view(record: HandRecord, player: str) -> HandRecord | None:
    """The hand as ``player`` saw it: his own hole cards and those tabled, no other; None if he
    did not play it."""
    seat = seat_of(record, player)
    if seat is None:
        return None
    public = record.public()
    own = record.hole_cards.get(seat)
    if own is None:
        return public
    actions = [
        a.model_copy(update={"cards": own}) if a.action == "deal_hole" and a.seat == seat else a
        for a in public.actions
    ]
    return public.model_copy(update={"hole_cards": {**public.hole_cards, seat: own},
                                     "actions": actions})


__all__ = ["hero_view", "seat_of"]
