"""The public view of the session: the state every screen shows, what the table waits for,
the LEDs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.hand import STREET_NAMES, Options, Stage, betting_of
from controller.engine.records import PotRecord
from controller.session.cards import board_street_name
from controller.session.outputs import ClockView, Leds, TableState
from controller.session.parts import Core
from controller.session.words import BURN_FIRST, card_text_list

if TYPE_CHECKING:
    from controller.engine.hand import Hand
    from controller.engine.records import HandRecord
    from controller.session.cash import CashGame
    from controller.session.hold_commands import HoldCommands
    from controller.session.model import HandTrack
    from controller.session.shot_clock import ShotClock
    from controller.session.stacks import StackCommands
    from controller.session.time_calls import TimeCalls


class ViewCore(Core, Protocol):
    """What the public view reads of the core beyond every part's view: the seats' presence,
    counts and penalties, the devices, the record not yet sealed, the showdown's order, and
    what the other parts show (the holds, the clocks, the colour-up, the cash game)."""

    @property
    def absent(self) -> set[int]: ...

    @property
    def counted(self) -> dict[int, bool]: ...

    @property
    def devices(self) -> dict[str, str]: ...

    @property
    def pending_record(self) -> HandRecord | None: ...

    @property
    def table_holds(self) -> HoldCommands: ...

    @property
    def time_calls(self) -> TimeCalls: ...

    @property
    def shots(self) -> ShotClock: ...

    @property
    def stacks(self) -> StackCommands: ...

    @property
    def cash(self) -> CashGame: ...

    def _contenders(self, hand: Hand) -> list[int]: ...

    def _next_to_show(self) -> int | None: ...


class PublicView:
    """What the table shows: never a hole card that was not tabled. It keeps no state of its
    own and changes nothing: it reads the core and the other parts."""

    def __init__(self, core: ViewCore) -> None:
        self.core = core

    def snapshot_fields(self) -> dict[str, Any]:
        return {}

    # ---------------------------------------------------------------- the public view

    def state(self) -> TableState:
        """The public state: no hole card that was not tabled."""
        table = self.core.table
        hand = table.hand
        track = self.core.track
        level = table.level if hand is None else table.hand_level
        p = table.positions
        live = hand is not None and hand.stage is not Stage.OVER and track is not None
        sitting_out = table.sitting_out() if live else {}
        dealt: dict[int, dict[str, Any]] = {}  # what the hand says of each seat dealt in
        if hand is not None and p is not None:
            for k, seat in enumerate(p.dealt):
                dealt[seat] = {
                    "bet": hand.bets[k] if live else 0, "in_hand": live,
                    "folded": hand.folded[k], "all_in": hand.all_in[k],
                    "cards": len([c for c in hand.hole[k] if c is not None]) or (
                        len(track.seat_cards.get(seat, [])) if track else 0),
                    "shown": card_text_list(hand.hole[k]) if hand.shown[k] else None,
                    "zone": sum(track.zone.get(seat, [])) if track and live else 0,
                }
                if live:
                    dealt[seat]["stack"] = hand.stacks[k]
        holds, played = self.core.table_holds.holds, self.core.table_holds.hand_round
        # Each seat's fields as plain data, validated once with the whole state (in
        # pydantic-core: a model built per seat cost a sixth of the state; issue 37).
        seats = {seat: {"player": s.player, "stack": s.stack, "absent": seat in self.core.absent,
                        "penalty": self.core.time_calls.penalties.get(s.player, 0),
                        "counted": self.core.counted.get(seat),
                        "sits_out": sitting_out.get(seat), **dealt.get(seat, {})}
                 for seat, s in sorted(table.seats.items())}
        stage: Any = "waiting"
        street = None
        pots: list[dict[str, Any]] = []  # (PotView's fields: validated with the state)
        actor = to_call = low = high = options = None
        order: list[int] = []
        if hand is not None and p is not None:
            stage = hand.stage.value
            street = STREET_NAMES[hand.street]
            if live:
                pots = [{"amount": pot.amount, "eligible": [p.dealt[i] for i in pot.eligible]}
                        for pot in hand.pots()]
                options = hand.options()
                if options is not None:
                    actor = p.dealt[options.player]
                    to_call, low, high = options.to_call, options.min_raise_to, options.max_raise_to
                if hand.stage is Stage.SHOWDOWN:
                    order = self.core._contenders(hand)
        return TableState(
            table=table.table_id, hand=table.hand_number, stage=stage, street=street,
            level=level.level,
            blinds={"sb": level.sb, "bb": level.bb, "ante": level.ante, "bb_ante": level.bb_ante},
            pending_level=table.pending_level.level if table.pending_level else None,
            button=p.button if p else None, sb=p.sb if p and p.sb_live else None,
            bb=p.bb if p else None, seats=seats, seat_count=table.seat_count,
            board=card_text_list(hand.board) if hand else "", pots=pots, actor=actor,
            to_call=to_call, min_raise_to=low, max_raise_to=high, showdown_order=order,
            waiting_for=self._waiting_for(options), hold=holds.summary(), holds=dict(holds.reasons),
            released_round=holds.released_round, played_round=played,
            round=played if live else holds.released_round,
            alerts=[i.text for i in track.irregularities] if live and track else [],
            floor_called=bool(track and track.floor_called and live),
            clock=self._clock_view() if live else None, shot_clock=self.core.shots.view(),
            pot_zone=track.pot_zone if track and live else None,
            devices=dict(self.core.devices), colour_up=self.core.stacks.colour_up,
            stack_refs=list(self.core.stacks.stack_refs),
            **self.core.cash.view(live), **self._cash_table_view(),
        )

    def _cash_table_view(self) -> dict[str, Any]:
        """What the floor shows of a cash table beside the CG fields of `_cash_view`: its game
        and kind of limit (CG Limits), the pots run twice (CG Run It Twice: agreed pot by
        pot), and the hand's pots as settled, board by board; none of it at a tournament's
        table, whose state reads as before. No card: a pot's result names seats, chips and
        the winning hand's name (tabled to win it)."""
        profile = self.core.profile
        if not profile.cash:
            return {}
        hand = self.core.table.hand
        runs = hand.boards.pot_runs if hand is not None and hand.boards.runs else frozenset()
        record = self.core.pending_record
        results: list[PotRecord] = []
        if hand is not None and hand.stage is Stage.OVER and record is not None and \
                record.hand == self.core.table.hand_number and record.status == "complete":
            results = list(record.pots)
        return {"game": profile.game, "betting": betting_of(profile.game, profile.betting),
                "run_twice": sorted(k + 1 for k in runs), "results": results}

    def _clock_view(self) -> ClockView | None:
        call = self.core.track.clock if self.core.track else None
        if call is None:
            return None
        return ClockView(seat=call.seat, seconds=call.seconds, remaining=call.remaining,
                         rule=call.rule)

    def _waiting_for(self, options: Options | None = None) -> str:
        """What the table waits for, in words; ``options``: the actor's, when the caller has
        them already."""
        hand = self.core._hand()
        if hand is None:
            return self._between_hands_words() + self._race_words()
        track = self.core.track
        assert track is not None
        if hand.stage is Stage.BETTING:
            if options is None:
                options = hand.options()
            assert options is not None
            seat = self.core.table.seat_of(options.player)
            if track.doubt is not None and track.doubt[0] == seat:
                return f"seat {seat}: {track.doubt[1].question}"
            if seat in track.announced:
                return f"seat {seat} announced a {track.announced[seat]}: the chips or the amount"
            clock = ""
            if track.clock is not None and track.clock.remaining is not None:
                clock = f" (time: {track.clock.remaining} s)"
            words = f"{options.to_call:,} to call" if options.to_call else "check or bet"
            if options.min_raise_to is not None:
                words += f", raise to at least {options.min_raise_to:,}"
            return f"seat {seat} to act: {words}{clock}"
        if hand.stage is Stage.DEALING:
            return (self._burn_first(track) + "deal the "
                    + board_street_name(hand, *hand.next_board_street())
                    + self.core.cash.run_twice_offer())
        shower = self.core._next_to_show()
        if shower is not None:
            return f"seat {shower} shows (or mucks)"
        return "the floor awards the pot (cards were not read)"

    def _burn_first(self, track: HandTrack) -> str:
        """PVB 35(2): where the table reads burn cards, the burn comes before each street (an
        extra card that became the next burn card counts as it, PVB 34, 35(1))."""
        if (self.core.config.check_burns and not track.board_buffer and not track.burns
                and not track.preset_burn):
            return BURN_FIRST
        return ""

    def _between_hands_words(self) -> str:
        held = self.core.table_holds.holds.first()
        if held is not None:
            kind, reason = held
            if kind == "break":
                return f"the break: wait for the clock ({reason})"
            if kind == "floor":
                return f"the floor holds the table: wait for the floor ({reason})"
            return f"hand-for-hand: wait for the tournament director ({reason})"
        if self.core.pending_record is not None:
            return "push the pots, then press shuffle for the next hand"
        return "press shuffle to start a hand"

    def _race_words(self) -> str:
        up = self.core.stacks.colour_up
        if up is None or not up.open or not up.contested:
            return ""
        won = ", ".join(map(str, up.winners())) or "none yet"
        return (f"; the chip race: {up.race_chips} chip(s) of {up.unit:,} among seats "
                f"{', '.join(map(str, sorted(up.race)))}; read with a chip: {won} "
                "(APSA 2.1.18)")

    def leds(self) -> Leds:
        live = self.core._hand() is not None and self.core.track is not None
        return Leds(hand_for_hand=not self.core.table_holds.holds.may_shuffle and not live,
                    clock=bool(live and self.core.track and self.core.track.clock),
                    irregularity=bool(live and self.core.track and self.core.track.irregularities),
                    shot_clock=self.core.shots.led())

    def chips_on_table(self) -> int:
        """Every chip at the table: stacks plus the pot of the hand running. Constant except
        for players sitting down or leaving and stacks changed between hands by the tournament
        or the floor (chips bought, a colour-up) (docs/design.md "Reliability")."""
        table = self.core.table
        hand = table.hand
        total = sum(s.stack for s in table.seats.values())
        if hand is not None and hand.stage is not Stage.OVER and table.positions is not None:
            dealt = table.positions.dealt
            total -= sum(table.seats[s].stack for s in dealt if s in table.seats)
            total += hand.chips_in_play()
        return total
