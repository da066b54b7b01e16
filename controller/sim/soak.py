"""The soak: thousands of simulated hands at full speed, counting the alerts the floor would see.

The simulated dealer (`controller.sim.dealer`) plays through `DirectHands`: every move
becomes the event the drivers would give for it (a card read, a card gone, a chip zone settled
on its chips, a key), handed straight to the table's session in virtual time. The session is the
one a Pi runs; only the serial lines and the waiting are left out, so ten thousand hands take
a minute, not a day.

A perfect dealer must give no alert. A faulty one (``faults``) makes one mistake now and then,
each of a kind a real dealer makes; each must give exactly one alert naming its hand and rule,
and nothing else (`SoakReport`).

With ``cash``, tables 2, 6, 10, ... (no-limit hold'em) and 3, 7, 11, ... (pot-limit Omaha) are
cash tables under the casino's cash-game rules (the CG): fixed blinds, straddles before the
cards, a bomb pot, flip or double board now and then, and run it twice after an all-in
(controller/sim/cash.py).
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from controller.engine.records import HandRecord
from controller.engine.straddles import StraddleKind
from controller.engine.table_play import Level
from controller.events import (
    CardEvent,
    ChipsEvent,
    CommandEvent,
    GoneEvent,
    KeyEvent,
    LevelEvent,
    SeatEvent,
    ShuffleEvent,
    TableEvent,
    TickEvent,
)
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, TableState
from controller.sim.dealer import PLAYERS, SimulatedDealer
from controller.sim.hands import Chip, DealerStuck, Felt, Key

START = 1_800_000_000.0  # virtual wall time of the first event (2027)
SETTLE = 0.4  # the chip readers' settle time (RULES R9)
TICK = 0.5

Fault = Literal["short_call", "extra_in_pot", "wrong_change", "wrong_seat"]
FAULTS: tuple[Fault, ...] = ("short_call", "extra_in_pot", "wrong_change", "wrong_seat")


class DirectHands:
    """The dealer's moves as the drivers' events, straight into a session, in virtual time."""

    def __init__(self, session: TableSession, on_event: Callable[[PublicEvent], None],
                 on_record: Callable[[HandRecord], None] | None = None) -> None:
        self.session = session
        self.now = START
        self._felt = Felt()
        self._on_event = on_event
        self._on_record = on_record
        self._last_tick = START
        self._settling: dict[str, float] = {}  # chip zone -> when it has stayed still long enough
        self._state: TableState | None = None

    @property
    def state(self) -> TableState:
        """The table's public state after the last event (computed when the dealer looks: most
        events, the ticks among them, are followed by another before he does)."""
        if self._state is None:
            self._state = self.session.state()
        return self._state

    @property
    def felt(self) -> Felt:
        return self._felt

    def reads_cards_in(self, zone: str) -> bool:
        return True  # (the soak's tables read every zone)

    def feed(self, event: TableEvent) -> None:
        step = self.session.handle(event)
        if step.error is not None:
            raise RuntimeError(f"the session could not apply a {event.type}: {step.error}")
        for public in step.events:
            self._on_event(public)
        if self._on_record is not None:
            for record in step.sealed:
                self._on_record(record)
        self._state = None

    def _advance(self, seconds: float) -> None:
        """Time passes: the table's ticks, and every chip zone that has stayed still for the
        readers' settle time is read (RULES R9), in the order they settle."""
        end = self.now + seconds
        while True:
            tick = self._last_tick + TICK if self.session.wants_ticks() else math.inf
            zone, settles = min(self._settling.items(), key=lambda z: z[1],
                                default=(None, math.inf))
            if min(tick, settles) > end:
                break
            if zone is not None and settles <= tick:
                self.now = max(self.now, settles)
                del self._settling[zone]
                held = sorted(self._felt.chips.get(zone, []), key=lambda c: c[0])
                self.feed(ChipsEvent(zone=zone, chips=sorted((v for _, v in held), reverse=True),
                                     uids=[u for u, _ in held], ts=self.now))
            else:
                self._last_tick = tick
                self.now = max(self.now, tick)
                self.feed(TickEvent(now=self.now, ts=self.now))
        self.now = end
        if not self.session.wants_ticks():
            self._last_tick = end

    def card_on(self, zone: str, card: str) -> None:
        self._felt.cards.setdefault(zone, []).append(card)
        self._advance(0.02)
        self.feed(CardEvent(zone=zone, card=card, ts=self.now))

    def card_off(self, zone: str, card: str) -> None:
        self._felt.cards[zone].remove(card)
        self._advance(0.02)
        self.feed(GoneEvent(zone=zone, card=card, ts=self.now))

    def _moved(self, zone: str) -> None:
        """Chips moved in a zone: its reader reads it once it has stayed still for the settle
        time, as the drivers' settler does; a move within that time is the same motion (the
        hand goes on meanwhile, as the dealer's does on the real readers)."""
        self._settling[zone] = self.now + SETTLE

    def chips_in(self, zone: str, chips: list[Chip]) -> None:
        self._felt.chips.setdefault(zone, []).extend(chips)
        self._moved(zone)

    def chips_out(self, zone: str, chips: list[Chip]) -> None:
        for chip in chips:
            self._felt.chips[zone].remove(chip)
        self._moved(zone)

    def swap(self, zone: str, out: list[Chip], chips: list[Chip]) -> None:
        for chip in out:
            self._felt.chips[zone].remove(chip)
        self._felt.chips[zone].extend(chips)
        self._moved(zone)

    def press(self, key: Key) -> None:
        self._advance(0.12)
        self.feed(ShuffleEvent(ts=self.now) if key == "shuffle" else
                  KeyEvent(key=key, ts=self.now))

    def submit(self, event: TableEvent) -> None:
        self.feed(event.model_copy(update={"ts": self.now}))

    def pause(self, seconds: float) -> None:
        self._advance(seconds)

    def wait(self, test: Callable[[TableState], bool], timeout: float = 10.0) -> TableState:
        waited = 0.0
        while not test(self.state):  # nothing else moves: only time (a clock call) can help
            if waited >= timeout:
                raise DealerStuck(f"the table did not reach the expected state (last: "
                                  f"{self.state.waiting_for})")
            self._advance(TICK)
            waited += TICK
        return self.state

    def last(self) -> TableState | None:
        return self.state


class Alarm(BaseModel):
    """Something the floor display raises (controller/room/floor/model.py's rule)."""

    table: str
    hand: int
    kind: str
    rule: str | None
    text: str
    status: str | None = None  # a hand's end: misdeal or void


class Injected(BaseModel):
    table: str
    hand: int
    fault: str
    healed: bool = Field(default=False, description="The player's next chips made up for it "
                         "before anything was wrong in the pot: the table may rightly say nothing")


class SoakReport(BaseModel):
    tables: int
    hands: int = 0
    actions: int = 0
    all_ins: int = 0
    side_pots: int = 0
    split_pots: int = 0
    showdowns: int = 0
    plo_hands: int = 0
    misdeals_called: int = 0
    time_calls: int = 0
    level_changes: int = 0
    cash_hands: int = 0
    plo_cash_hands: int = Field(default=0, description="Cash hands of pot-limit Omaha")
    straddled: int = Field(default=0, description="Cash hands with a straddle (CG Straddle)")
    variant_hands: int = Field(default=0, description="Bomb pots, flips and double boards")
    run_twice: int = Field(default=0, description="Hands run twice (CG Run It Twice)")
    alarms: list[Alarm] = Field(default_factory=list)
    refused: list[Alarm] = Field(default_factory=list)
    stalls: list[str] = Field(default_factory=list)
    injected: list[Injected] = Field(default_factory=list)
    expected: list[Injected] = Field(default_factory=list, description="The floor's misdeals")
    unexplained: list[Alarm] = Field(default_factory=list, description="Alarms no fault explains")
    missed: list[Injected] = Field(default_factory=list, description="Faults without their alarm")
    healed: int = Field(default=0, description="Faults the player's next chips made up for")
    seconds: float = 0.0

    @property
    def false_alarms(self) -> int:
        return len(self.unexplained) + len(self.refused) + len(self.stalls)

    def summary(self) -> str:
        return (f"{self.tables} tables, {self.hands:,} hands ({self.showdowns:,} showdowns, "
                f"{self.all_ins:,} all-ins, {self.side_pots:,} side pots, {self.split_pots:,} "
                f"split pots, {self.plo_hands:,} Omaha hands, {self.misdeals_called} misdeals "
                f"called, {self.time_calls} time calls, {self.level_changes} level changes"
                f"{self._cash_words()}): "
                f"{len(self.alarms)} alerts (the floor's own misdeals among them), "
                f"{len(self.injected)} faults injected ({self.healed} made up for by the "
                f"player's next chips), "
                f"{len(self.unexplained)} alerts no fault explains, {len(self.missed)} faults "
                f"without their alert, {len(self.refused)} refusals, {len(self.stalls)} stalls "
                f"in {self.seconds:.1f} s")


    def _cash_words(self) -> str:
        if not self.cash_hands:
            return ""
        return (f"; {self.cash_hands:,} cash hands ({self.plo_cash_hands:,} pot-limit Omaha): "
                f"{self.straddled:,} straddled, "
                f"{self.variant_hands:,} bomb pots, flips and double boards, {self.run_twice:,} "
                "run twice")


# The cash book's profile (cg-cash) with the first button on seat 1: the soak draws no cards
# for it (B1). ``game``: NT (no-limit hold'em) or PO (pot-limit Omaha), each its own cash game.
CASH_PROFILE = """name = "soak-cash-{game}"
game = "{game}"
cash = true
button_start = "seat-1"
odd_chip_unit = "small-blind"
showdown_fallback = "last-aggressor"
same_colour_chips_full_raise = false
at_seat = "all-cards"
straddles = ["live", "button", "mississippi"]
run_it_twice_min_pot = 500
"""


def cash_profile(game: Literal["NT", "PO"]) -> str:
    """The soak's cash profile for ``game`` (the CG's rules; the straddles a table may open
    with, run it twice from a pot of 500)."""
    return CASH_PROFILE.format(game=game)


STRADDLE_CHOICES: list[list[StraddleKind]] = [
    ["live", "button", "mississippi"], ["live"], ["button"], ["mississippi"],
    ["button", "mississippi"]]


def random_levels(rng: random.Random) -> list[Level]:
    """A structure as a director might write one: blinds rising by about a half, antes for every
    player, a big-blind ante or none, and colour-ups that take the smallest chips away."""
    ante_kind = rng.choice(["none", "ante", "bb_ante"])
    sb, levels, smallest = rng.choice([25, 50, 100]), [], rng.choice([1, 5, 25])
    for number in range(1, 9):
        bb = sb * 2
        ante = {"none": 0, "ante": max(smallest, bb // 10 // smallest * smallest),
                "bb_ante": 0}[ante_kind]
        levels.append(Level(level=number, sb=sb, bb=bb, ante=ante,
                            bb_ante=bb if ante_kind == "bb_ante" else 0,
                            smallest_chip=smallest))
        sb = sb * 3 // 2 // 25 * 25 or sb * 2
        if number % 3 == 0 and smallest < 25 and rng.random() < 0.6:  # a colour-up
            smallest = {1: 5, 5: 25}[smallest]
    return levels


@dataclass
class SoakTable:
    """One simulated table of the soak."""

    number: int
    rng: random.Random
    report: SoakReport
    faults: float
    omaha: bool
    profile_dir: Path
    on_record: Callable[[HandRecord], None] | None = None
    levels: list[Level] = field(default_factory=list)
    seats: int = 0
    cash: bool = False

    def __post_init__(self) -> None:
        self.table = str(self.number)
        self.seats = self.rng.randint(2, 10)
        self.levels = random_levels(self.rng)
        profile = "pvb-2020"
        straddles: list[StraddleKind] = []
        if self.cash:  # the CG: fixed blinds, no antes, the table opened with straddles
            # (pot-limit Omaha beside no-limit hold'em)
            game: Literal["NT", "PO"] = "PO" if self.omaha else "NT"
            path = self.profile_dir / f"cash-{game}.toml"
            path.write_text(cash_profile(game), encoding="utf-8")
            profile = str(path)
            sb = self.rng.choice([25, 50])
            self.levels = [Level(sb=sb, bb=2 * sb, smallest_chip=sb)]
            straddles = self.rng.choice(STRADDLE_CHOICES)
        elif self.omaha:
            path = self.profile_dir / "omaha.toml"
            path.write_text('name = "soak-omaha"\ngame = "PO"\n', encoding="utf-8")
            profile = str(path)
        first = self.levels[0]
        self.session = TableSession(SessionConfig(table_id=self.table, profile=profile,
                                                  seats=self.seats, level=first,
                                                  check_burns=True, straddles=straddles))
        self.last_showdown = 0
        self.hands = DirectHands(self.session, self._event, self.on_record)
        chips = {f"05{k:012X}": value for k, value in enumerate(
            v for v, count in CHIP_CASE.items() for _ in range(count))}
        self.dealer = FaultyDealer(self.hands, chips, self.seats, self.rng,
                                   hole_cards=4 if self.omaha else 2,
                                   faults=self.faults, report=self.report, table=self.table)
        self.dealer.cash = self.cash
        self.level_index = 0
        self.names = iter(f"{PLAYERS[k % len(PLAYERS)]}-{k}" for k in range(10**6))

    def _event(self, event: PublicEvent) -> None:
        floor_sees = (event.kind == "alert" or (event.kind == "hand_over" and
                      event.data.get("status") in ("misdeal", "void")))
        alarm = Alarm(table=self.table, hand=event.hand, kind=event.kind, rule=event.rule,
                      text=event.text, status=event.data.get("status"))
        if event.kind == "refused":
            self.report.refused.append(alarm)
        elif floor_sees:
            self.report.alarms.append(alarm)
        elif event.kind == "action":
            self.report.actions += 1
            self.report.all_ins += "all-in" in event.text
        elif event.kind == "showdown" and event.hand != self.last_showdown:
            self.last_showdown = event.hand  # hands that reached a showdown
            self.report.showdowns += 1

    def _seat_players(self) -> None:
        """Empty seats and busted players filled with new players and random stacks, so that
        short stacks, all-ins and side pots come often."""
        state = self.hands.state
        bb = self.levels[self.level_index].bb
        # The chips at the table stay within what the chip case holds, as in a tournament.
        room = CASE_TOTAL // 2 - sum(v.stack for v in state.seats.values())
        if sum(1 for v in state.seats.values() if v.stack) < 2 and room < self.seats * bb * 20:
            for seat in state.seats:  # the winner takes his chips home: a new game begins
                self.hands.submit(SeatEvent(seat=seat, player=None))
            state, room = self.hands.state, CASE_TOTAL // 2
        for seat in range(1, self.seats + 1):
            view = state.seats.get(seat)
            if view is None or view.stack == 0:
                stack = self.rng.choice([bb * self.rng.randint(2, 12),
                                         bb * self.rng.randint(20, 120)])
                stack = min(stack, room // self.seats // bb * bb)
                if stack < bb:
                    continue
                room -= stack
                self.hands.submit(SeatEvent(seat=seat, player=next(self.names), stack=stack))

    def _between_hands(self, played: int) -> None:
        if played and played % self.rng.randint(6, 14) == 0 and \
                self.level_index + 1 < len(self.levels):
            self.level_index += 1
            level = self.levels[self.level_index]
            self.hands.submit(LevelEvent(level=level.level, sb=level.sb, bb=level.bb,
                                         ante=level.ante, bb_ante=level.bb_ante,
                                         smallest_chip=level.smallest_chip))
            self.report.level_changes += 1
        self._seat_players()

    def play(self, hands: int) -> None:
        for played in range(hands):
            self._between_hands(played)
            try:
                self.dealer.play_hand()
            except DealerStuck as exc:
                state = self.hands.state
                self.report.stalls.append(
                    f"table {self.table}, hand {state.hand} ({state.stage}"
                    f"{' on the ' + state.street if state.street else ''}): {exc}")
                self._end_stuck_hand()
            self.report.hands += 1
            self.report.plo_hands += self.omaha
            record = self.session.pending_record
            if record is not None:
                self.report.side_pots += max(0, len(record.pots) - 1)
                self.report.split_pots += sum(1 for p in record.pots if len(p.winners) > 1)
            if record is not None and self.cash:
                self.report.cash_hands += 1
                self.report.plo_cash_hands += self.omaha
                self.report.straddled += bool(record.straddles)
                self.report.variant_hands += bool(record.variant or record.double_board)
                self.report.run_twice += bool(record.run_twice)
        last = self.session.pending_record  # the table closes: its last hand is sealed too
        if self.on_record is not None and last is not None:
            self.on_record(last)

    def _end_stuck_hand(self) -> None:
        """What the floor does with a hand the dealer cannot go on with: kill it."""
        self.hands.submit(CommandEvent(name="void", args={"reason": "soak: stuck"},
                                       by="floor:soak"))
        self.dealer.dealt_hand = None
        self.dealer.clear_felt()


MISDEAL_CHANCE = 0.01
TIME_CHANCE = 0.005
CHIP_CASE = {25000: 200, 5000: 200, 1000: 200, 500: 80, 100: 200, 25: 120, 5: 80, 1: 80}
CASE_TOTAL = sum(value * count for value, count in CHIP_CASE.items())


class FaultyDealer(SimulatedDealer):
    """The simulated dealer, who now and then (``faults``: the chance per hand) makes one
    mistake a real dealer makes, and says which (``report.injected``)."""

    def __init__(self, hands: DirectHands, chip_case: dict[str, int], seats: int,
                 rng: random.Random, hole_cards: int, faults: float, report: SoakReport,
                 table: str) -> None:
        super().__init__(hands, chip_case, seats, rng, hole_cards=hole_cards, all_in=0.1)
        self.direct = hands
        self.faults = faults
        self.report = report
        self.table = table
        self.fault_this_hand: Fault | None = None

    def play_hand(self) -> None:
        self.fault_this_hand = (self.rng.choice(FAULTS) if self.faults and
                                self.rng.random() < self.faults else None)
        super().play_hand()

    def clear_felt(self) -> None:
        self._clear_felt()

    def _fault(self, fault: Fault) -> bool:
        """Whether to make this mistake now (once a hand, the one drawn for it)."""
        if self.fault_this_hand != fault:
            return False
        self.fault_this_hand = None
        state = self.direct.state
        self.report.injected.append(Injected(table=self.table, hand=state.hand, fault=fault))
        return True

    def _healed(self, zone: str) -> None:
        last = self.report.injected[-1] if self.report.injected else None
        if last is not None and last.table == self.table and last.hand == self.direct.state.hand:
            last.healed = True

    def _smallest_free(self) -> int:
        return min(v for v, uids in self.free.items() if uids)

    def _act_with_faults(self, state: TableState) -> None:
        seat = state.actor
        doubt = f"seat {seat}:"
        chip = self._smallest_free() if self.reads_chips else 0
        view = state.seats[seat] if seat is not None else None
        if (seat is not None and view is not None and self.reads_chips and state.to_call
                and state.to_call > chip and view.stack > state.to_call
                and not state.waiting_for.startswith(doubt) and self._fault("short_call")):
            self.felt.street = state.street  # a call, one chip short
            self._push(f"seat:{seat}", self._pick(state.to_call - chip))
            self.shorted[f"seat:{seat}"] = chip
            return
        super()._act(state)

    def _sweep(self, state: TableState) -> None:
        super()._sweep(state)
        if (self.reads_chips and self._in_zone("pot") and state.stage not in ("over", "waiting")
                and self._fault("extra_in_pot")):
            self._push("pot", self._pick(self._smallest_free()))
            # The chip lies in the pot; a dealer who pushed the pot away before the reader could
            # see it settle would have left nothing anyone can see.
            self.direct.pause(SETTLE + 0.05)

    def _make_change(self, state: TableState) -> None:
        if not self.reads_chips or self.fault_this_hand != "wrong_change":
            return super()._make_change(state)
        for seat_no, view in state.seats.items():
            zone = f"seat:{seat_no}"
            held = sum(v for _, v in self._in_zone(zone))
            due = view.bet + self.felt.antes.get(zone, 0)
            chip = self._smallest_free()
            if held > due > chip and seat_no != state.actor and view.in_hand and \
                    self._fault("wrong_change"):
                self.felt.change_due.pop(zone, None)
                held_chips = list(self._in_zone(zone))
                self._to_case(held_chips)
                self.direct.swap(zone, held_chips, self._pick(due - chip))  # too much back
                self.shorted[zone] = chip
                return
        return None

    def _deal_hole_cards(self, state: TableState) -> None:
        self._deal_with_faults(state)
        if self.rng.random() < MISDEAL_CHANCE and self.direct.state.stage == "betting":
            # The floor calls a misdeal before any action (PVB 30): expected, no false alert.
            self.report.misdeals_called += 1
            self.report.expected.append(Injected(table=self.table, hand=state.hand,
                                                 fault="misdeal"))
            self.direct.submit(CommandEvent(name="misdeal", args={"reason": "soak"},
                                            by="floor:soak"))

    def _act(self, state: TableState) -> None:
        if state.actor is not None and state.clock is None and self.rng.random() < TIME_CHANCE:
            self.report.time_calls += 1  # the floor calls the clock; the player acts in time
            self.direct.submit(CommandEvent(name="time", by="floor:soak"))
            self.direct.pause(self.rng.uniform(1, 40))
        self._act_with_faults(self.direct.state if state.clock is None else state)

    def _deal_with_faults(self, state: TableState) -> None:
        dealt = [s for s, v in sorted(state.seats.items()) if v.in_hand]
        if len(dealt) > 2 and self._fault("wrong_seat"):
            order = [s for s in dealt if s > (state.button or 0)] + \
                [s for s in dealt if s <= (state.button or 0)]
            self._place(f"seat:{order[1]}", self.stub.pop())  # the first card, one seat on
        super()._deal_hole_cards(state)


def soak(tables: int = 4, hands: int = 250, seed: int = 1, faults: float = 0.0,
         progress: Callable[[str], None] | None = None,
         records: Callable[[HandRecord], None] | None = None, cash: bool = False) -> SoakReport:
    """``tables`` simulated tables, ``hands`` hands each (a quarter of the tables play Omaha;
    with ``cash`` two more quarters are the CG's cash tables, hold'em and pot-limit Omaha);
    the report counts what the
    floor would have seen. ``records`` receives every sealed hand record, full (hole cards and
    all), in the order the tables sealed them."""
    started = time.perf_counter()
    report = SoakReport(tables=tables)
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(1, tables + 1):
            table = SoakTable(number, random.Random(seed * 1000 + number), report, faults,
                              omaha=number % 4 == 0 or (cash and number % 4 == 3),
                              profile_dir=Path(tmp), on_record=records,
                              cash=cash and number % 4 in (2, 3))
            table.play(hands)
            if progress is not None:
                progress(f"table {number}: {hands} hands, {len(report.alarms)} alerts so far")
    report.seconds = time.perf_counter() - started
    _explain(report)
    return report


def _explain(report: SoakReport) -> None:
    """Each injected fault must have exactly one alarm in its hand; no other alarm is allowed."""
    faults = {(f.table, f.hand): f for f in report.injected}
    called = {(f.table, f.hand) for f in report.expected}
    by_hand: dict[tuple[str, int], list[Alarm]] = {}
    for alarm in report.alarms:
        by_hand.setdefault((alarm.table, alarm.hand), []).append(alarm)
    for key, alarms in by_hand.items():
        if key in called:  # the floor's own misdeal, told as such
            alarms = [a for a in alarms if a.status != "misdeal"]
        if not alarms or (key in faults and len(alarms) == 1):
            continue
        report.unexplained += alarms
    report.missed = [f for key, f in faults.items() if key not in by_hand and not f.healed]
    report.healed = sum(1 for f in report.injected if f.healed)


__all__ = ["FAULTS", "DirectHands", "SoakReport", "soak"]
