"""`pokertable demo`: simulated players at one table, hand after hand, narrated.

The shuffle and the players' choices are random (seeded); the engine that judges them is the real
one. Hole cards are only printed once tabled, as the floor display will do.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import TextIO

from controller.engine.cards import card_text, cards_text
from controller.engine.evaluate import holdem_strength, omaha_strength
from controller.engine.hand import HOLE_CARDS, Hand, Stage
from controller.engine.profiles import RuleProfile, load_profile
from controller.engine.records import HandRecord
from controller.engine.table_play import Level, SetLevel, SitDown, Table

NAMES = ["Anna", "Ben", "Cem", "Dora", "Emil", "Fatma", "Gero", "Hanna", "Ilse", "Jonas"]
LEVELS = [
    Level(level=1, sb=50, bb=100, smallest_chip=25),
    Level(level=2, sb=100, bb=200, bb_ante=200, smallest_chip=25),
    Level(level=3, sb=200, bb=400, bb_ante=400, smallest_chip=100),
    Level(level=4, sb=300, bb=600, bb_ante=600, smallest_chip=100),
]


class SimulatedPlayer:
    """Plays by rough hand strength with some randomness: enough to produce every situation."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, hand: Hand) -> tuple[str, int]:
        options = hand.options()
        assert options is not None
        i = options.player
        strength = self._strength(hand, i)
        roll = self.rng.random()
        if options.min_raise_to is not None and roll < strength * 0.3:
            assert options.max_raise_to is not None
            pot = hand.pot_total()
            wanted = hand.current_bet + max(options.min_raise_to - hand.current_bet, pot // 2)
            if roll < 0.01:
                wanted = options.max_raise_to  # all-in, or the pot in pot-limit
            return "raise", max(options.min_raise_to, min(wanted, options.max_raise_to))
        if options.to_call == 0:
            return "check", 0
        affordable = options.to_call <= hand.stacks[i] // 4 or strength > 0.85
        if (roll < 0.2 + strength * 0.7 and affordable) or options.to_call <= hand.stacks[i] // 30:
            return "call", 0
        return "fold", 0

    @staticmethod
    def _strength(hand: Hand, i: int) -> float:
        hole = [c for c in hand.hole[i] if c is not None]
        if len(hand.board) < 3:
            ranks = sorted((c >> 2 for c in hole), reverse=True)
            pair = 0.3 if len(set(ranks)) < len(ranks) else 0.0
            return min(1.0, ranks[0] / 14 * 0.6 + pair + 0.1)
        evaluate = omaha_strength if hand.game == "PO" else holdem_strength
        if hand.game == "PO" and len(hand.board) < 5:
            return 0.5
        return evaluate(hole, hand.board) / 7462


def run_demo(
    hands: int = 6, players: int = 6, seed: int = 7, game: str = "NT",
    out: TextIO | None = None, hardware: bool = False,
) -> int:
    out = out or sys.stdout
    rng = random.Random(seed)
    base = load_profile("pvb-2020")
    profile = RuleProfile(**{**base.model_dump(), "game": game})
    table = Table(table_id="1", profile=profile, level=LEVELS[0])
    players = max(2, min(players, 10))
    for seat in range(1, players + 1):
        table.apply(SitDown(seat=seat, player=NAMES[seat - 1], stack=rng.choice(
            [8_000, 10_000, 12_000])))
    say = out.write
    say(f"pokertable demo: table 1, {players} simulated players, {game}, profile {base.name}\n")
    if hardware:
        from controller.demo.demo_hardware import run_hardware_demo

        run_hardware_demo(players, seed, out)
        say("\n-- the hand engine, hand after hand --\n")
    bot = SimulatedPlayer(rng)
    for number in range(1, hands + 1):
        if len(table.seats) < 2:
            say("\nOne player has all the chips: the table is finished.\n")
            break
        if number > 1 and (number - 1) % 3 == 0 and (number - 1) // 3 < len(LEVELS):
            level = LEVELS[(number - 1) // 3]
            table.apply(SetLevel(level=level))
            say(f"\n[clock] level {level.level}: {level.sb}/{level.bb}"
                f"{f' big-blind ante {level.bb_ante}' if level.bb_ante else ''} "
                "(applies from the next shuffle, PVB 14)\n")
        record = _play_one(table, bot, rng, game, say)
        _narrate_result(record, table, say)
    say("\nChip counts: " + ", ".join(
        f"seat {seat} {state.player} {state.stack:,}" for seat, state in sorted(
            table.seats.items())) + "\n")
    if hardware:
        run_table_demo(seed, out)
    return 0


def run_table_demo(seed: int, out: TextIO, hands: int = 2) -> None:
    """The table service itself, as `pokertable table --simulate` runs it: shuffle press on mock
    GPIO, cards and chips read from simulated PT1 readers on ptys (every bet is chips pushed
    into a betting zone), a simulated dealer, the journal."""
    import tempfile
    from pathlib import Path

    from controller.table.config import load_table_config
    from controller.table.runner import run_table

    out.write("\n-- the table service on simulated hardware (pokertable table --simulate): "
              "public events only, hole cards stay secret until tabled --\n")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "table.toml"
        config.write_text('[table]\nid = "demo"\njournal = "journal.db"\noutput = "out"\n')
        run_table(load_table_config(config), simulate=True, hands=hands, echo=out, seed=seed)


def _play_one(
    table: Table, bot: SimulatedPlayer, rng: random.Random, game: str,
    write: Callable[[str], object],
) -> HandRecord:
    table.apply({"op": "start_hand"})
    hand = table.hand
    p = table.positions
    assert hand is not None and p is not None
    level = table.level
    sb = f"seat {p.sb}" if p.sb_live and p.sb != p.button else (
        "the button" if p.sb_live else "dead")
    write(f"\n== Hand {table.hand_number} (level {level.level}, {level.sb}/{level.bb}) "
          f"button seat {p.button}, small blind {sb}, big blind seat {p.bb}\n")
    deck = list(range(52))
    rng.shuffle(deck)
    per = HOLE_CARDS[game]
    for seat in p.dealt:
        table.apply({"op": "deal_hole", "seat": seat, "cards": cards_text(
            [deck.pop() for _ in range(per)])})
    write(f"   {len(p.dealt)} players dealt in; hole cards stay secret until tabled\n")
    while hand.stage is not Stage.OVER:
        if hand.stage is Stage.BETTING:
            seat = table.seat_of(hand.actor or 0)
            name = table.seats[seat].player
            move, amount = bot.decide(hand)
            before = hand.log[-1] if hand.log else None
            if move == "raise":
                table.apply({"op": "bet_or_raise", "seat": seat, "to": amount})
            else:
                table.apply({"op": move, "seat": seat})
            act = next(a for a in hand.log[hand.log.index(before) + 1 if before else 0:]
                       if a.kind in ("fold", "check", "call", "bet", "raise"))
            words = {"fold": "folds", "check": "checks", "call": f"calls {act.amount:,}",
                     "bet": f"bets {act.amount:,}", "raise": f"raises to {act.amount:,}"}
            write(f"   seat {seat} {name} {words[act.kind]}"
                  f"{' and is all-in' if act.all_in else ''}\n")
        elif hand.stage is Stage.DEALING:
            count = 3 if not hand.board else 1
            cards = [deck.pop() for _ in range(count)]
            table.apply({"op": "deal_board", "cards": cards_text(cards)})
            street = {3: "Flop", 4: "Turn", 5: "River"}[len(hand.board)]
            write(f"   {street}: {' '.join(card_text(c) for c in hand.board)}"
                  f"   (pot {hand.pot_total():,})\n")
            if hand.all_in_showdown() and not any(hand.shown):
                for i in hand.live:
                    table.apply({"op": "show", "seat": table.seat_of(i)})
                write("   all-in and no more betting: every hand is turned face up (PVB 54)\n")
        else:
            order = hand.showdown_order()
            if not any(hand.shown):
                first = table.seat_of(order[0])
                write(f"   Showdown: seat {first} shows first (PVB 55)\n")
            for i in order:
                if not hand.shown[i]:
                    table.apply({"op": "show", "seat": table.seat_of(i)})
            record = table.apply({"op": "settle"})
            assert record is not None
            return record
    return table.records[-1]


def _narrate_result(record: HandRecord, table: Table, write: Callable[[str], object]) -> None:
    shown = {a.seat: a.cards for a in record.actions if a.action == "show" and a.seat is not None}
    for seat, cards in shown.items():
        write(f"   seat {seat} {record.players[seat]} tables "
              f"{' '.join(cards[k:k + 2] for k in range(0, len(cards), 2))}\n")
    for k, pot in enumerate(record.pots):
        name = "main pot" if k == 0 else f"side pot {k}"
        winners = ", ".join(f"seat {s} {record.players[s]} {chips:,}"
                            for s, chips in pot.shares.items())
        how = f" with {pot.winning_hand}" if pot.winning_hand else " (uncontested)"
        write(f"   {name} {pot.amount:,}: {winners}{how}\n")
    for number, player in table.eliminated:
        if number == record.hand:
            write(f"   {player} is eliminated\n")
