"""What one player's own page shows (`player_pages.py`), built from what the floor already holds:
the tournament's retained state (his seat, a move under way, his place, the payouts), the
table's public state (his stack as the table reads it), the clock's state, and his sealed hands.

Pure (no I/O). What it is given decides what a phone can ever receive, so it takes only public
things and the player's own cards of sealed hands: no table's seat map, no other player's
stack, no live hand's card of anyone, never another player's hidden card.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.records import HandRecord
from controller.mqtt.messages import ClockState, Payout
from controller.room.floor.model import TableView
from controller.room.tournament.view import PublishedState


class ShownCards(BaseModel):
    model_config = ConfigDict(frozen=True)

    player: str
    cards: str


class PlayerHand(BaseModel):
    """One sealed hand he played: his cards, the cards tabled, the board, what he won or lost."""

    model_config = ConfigDict(frozen=True)

    id: str
    table: str
    hand: int
    started: float | None = None
    status: str
    board: str = ""
    cards: str | None = Field(default=None, description="His own hole cards: from the "
                              "recorder's sealed record, or his tabled ones; None if neither")
    shown: list[ShownCards] = Field(default_factory=list, description="The other players' "
                                    "tabled cards, the only public ones")
    result: int | None = Field(default=None, description="His chips after the hand less "
                               "before it")


class PlayerShotClock(BaseModel):
    """His own turn's shot clock (docs/shot-clock.md), for his phone to count down: nothing of
    another seat's turn. ``since`` is on the room clock's time."""

    model_config = ConfigDict(frozen=True)

    his_turn: bool = Field(description="The action is on him and his clock runs or is held")
    remaining: float = Field(default=0, description="Seconds left at ``since``")
    since: float | None = None
    running: bool = False
    extension: bool = Field(default=False, description="Counting down a time extension")
    out: bool = Field(default=False, description="His time and extensions are gone: the floor "
                      "rules (nothing is folded)")
    extensions: int | None = Field(default=None, description="The time extensions he has left")


class PlayerPage(BaseModel):
    """Everything his page shows (a snapshot, then the same whenever it changes)."""

    model_config = ConfigDict(frozen=True)

    player: str
    tournament: str | None = None
    status: str | None = Field(default=None, description="The tournament's: registration, "
                               "running, finished")
    table: str | None = None
    seat: int | None = None
    moving: str | None = Field(default=None, description="leaving or arriving: go to table/seat")
    moving_from: str | None = Field(default=None, description="The table he leaves, on a move")
    stack: int | None = None
    stack_read: bool = Field(default=False, description="The stack is what his table reads "
                             "now (else the tournament's last count)")
    clock: ClockState | None = None
    clock_online: bool | None = None
    players_left: int | None = None
    entries: int | None = None
    prize_pool: int | None = None
    currency: str | None = None
    payouts: list[Payout] = Field(default_factory=list)
    place: int | None = Field(default=None, description="His place, once he is out")
    last: int | None = Field(default=None, description="The worst of a shared place")
    prize: int = 0
    winner: str | None = None
    hands: list[PlayerHand] = Field(default_factory=list, description="His latest sealed "
                                    "hands, newest first")
    own_cards: bool = Field(default=False, description="The floor reads the recorder's "
                            "sealed records: his own hole cards show")
    shot_clock: PlayerShotClock | None = Field(default=None, description="His table's shot "
                                               "clock as it concerns him; None: none there")


def player_page(player: str, *, tournament: PublishedState | None,
                tables: dict[str, TableView], clock: ClockState | None,
                clock_online: bool | None, hands: list[PlayerHand], own_cards: bool
                ) -> PlayerPage:
    page: dict[str, object] = {"player": player, "clock": clock, "clock_online": clock_online,
                               "hands": hands, "own_cards": own_cards}
    table: str | None = None
    seat: int | None = None
    if tournament is not None:
        page.update(tournament=tournament.name, status=tournament.status,
                    players_left=tournament.players_left, entries=tournament.entries,
                    prize_pool=tournament.prize_pool, currency=tournament.currency,
                    payouts=tournament.payouts, winner=tournament.winner)
        line = next((s for s in tournament.seats if s.player == player), None)
        if line is not None:
            table, seat = line.table, line.seat
            page.update(stack=line.stack, moving=line.moving)
            if line.moving is not None:
                move = next((m for m in reversed(tournament.moves) if m.player == player
                             and m.status == line.moving), None)
                if move is not None and move.source is not None:
                    page["moving_from"] = move.source.table
        standing = next((s for s in tournament.standings if s.player == player), None)
        if standing is not None and standing.place is not None:
            page.update(place=standing.place, last=standing.last, prize=standing.prize)
    if table is None and "place" not in page:  # no tournament (or not in it): where he sits
        for each in tables.values():
            found = next((n for n, s in (each.state.seats.items() if each.state else [])
                          if s.player == player), None)
            if found is not None:
                table, seat = each.table, found
                break
    view = tables.get(table) if table is not None else None
    if view is not None and view.state is not None and seat is not None and \
            page.get("moving") is None:
        here = view.state.seats.get(seat)
        if here is not None and here.player == player:
            page.update(stack=here.stack, stack_read=True,
                        shot_clock=_his_shot_clock(view, seat))
    page.update(table=table, seat=seat)
    return PlayerPage.model_validate(page)


def _his_shot_clock(view: TableView, seat: int) -> PlayerShotClock | None:
    """His seat's part of the table's shot clock: his own turn's time and his extensions
    left (the table's instant moved onto the room clock, as the floor's table view does)."""
    shot = view.state.shot_clock if view.state is not None else None
    if shot is None:
        return None
    extensions = shot.extensions.get(seat)
    if shot.seat != seat:
        return PlayerShotClock(his_turn=False, extensions=extensions)
    since = None if shot.since is None else shot.since + (view.clock_offset or 0.0)
    return PlayerShotClock(his_turn=True, remaining=shot.remaining, since=since,
                           running=shot.running, extension=shot.extension, out=shot.out,
                           extensions=extensions)


def player_hand(hand_id: str, record: HandRecord, player: str, own: str | None
                ) -> PlayerHand | None:
    """His part of a sealed public ``record`` (``own``: his cards from the recorder's record of
    the same hand). None if he did not play it."""
    seat = next((s for s, name in record.players.items() if name == player), None)
    if seat is None:
        return None
    tabled = record.tabled()
    shown = [ShownCards(player=record.players.get(s, f"seat {s}"), cards=cards)
             for s, cards in sorted(record.hole_cards.items())
             if s in tabled and s != seat and cards]
    mine = own or (record.hole_cards.get(seat) if seat in tabled else None) or None
    before, after = record.starting_stacks.get(seat), record.finishing_stacks.get(seat)
    return PlayerHand(id=hand_id, table=record.table, hand=record.hand, started=record.started,
                      status=record.status, board=record.board, cards=mine, shown=shown,
                      result=None if before is None or after is None else after - before)


__all__ = ["PlayerHand", "PlayerPage", "PlayerShotClock", "ShownCards", "player_hand",
           "player_page"]
