"""Poker Hand History (PHH, phh-std 0.0.2) import and replay for `NT` and `PO`.

A PHH file lists players from the first seat left of the button, the button last. In heads-up the
antes and blinds are read reversed (player 1, the big blind, posts ``blinds[1]``), as the standard
and PokerKit do. Amounts with decimals (online hands in dollars) are replayed in the file's
smallest decimal unit and printed back in the file's unit.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import rtoml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.engine.cards import parse_cards
from controller.engine.hand import HOLE_CARDS, Hand, HandSetup, PlayerSetup, Stage, Street
from controller.errors import NotYourTurn, PhhError, first_error

Number = int | float


class PhhHand(BaseModel):
    """The fields of a PHH file this project uses; other fields are kept but not interpreted."""

    model_config = ConfigDict(extra="allow")

    variant: str
    antes: list[Number]
    blinds_or_straddles: list[Number]
    min_bet: Number
    starting_stacks: list[Number]
    actions: list[str]
    ante_trimming_status: bool = False
    finishing_stacks: list[Number] | None = None
    players: list[str] | None = None
    seats: list[int] | None = None
    hand: int | str | None = None
    table: int | str | None = None
    event: str | None = None
    level: int | None = Field(default=None)
    odd_chip_unit: int = Field(default=1, gt=0, alias="_odd_chip_unit",
                               description="User-defined (phh-std): the chip split pots are "
                               "shared in (RULES S2), as pokertable's export writes it")


def _toml(text: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = rtoml.loads(text)
    except rtoml.TomlParsingError as exc:
        raise PhhError(f"not a TOML file: {exc}") from exc
    return data


def _hand(data: dict[str, Any], where: str = "") -> PhhHand:
    try:
        return PhhHand.model_validate(data)
    except ValidationError as exc:
        raise PhhError(f"{where}PHH field {first_error(exc, '')}") from exc


def parse_phh(text: str) -> PhhHand:
    return _hand(_toml(text))


def parse_phhs(text: str) -> list[tuple[str | None, PhhHand]]:
    """The hands of a file: one PHH hand (key None), or a ``.phhs`` document of numbered
    tables, each a hand (PokerKit's `loads_all`; `pokertable hands export --format phh`)."""
    data = _toml(text)
    if data and all(key.isdigit() and isinstance(value, dict) for key, value in data.items()):
        return [(key, _hand(value, f"hand [{key}]: ")) for key, value in data.items()]
    return [(None, _hand(data))]


def _decimals(value: Number) -> int:
    if isinstance(value, int):
        return 0
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _chips(value: Number | str, scale: int) -> int:
    """An amount in the file's unit as whole chips of the replay unit, exactly."""
    if isinstance(value, int):
        return value * scale
    exact = Decimal(value if isinstance(value, str) else repr(value)) * scale
    if exact != exact.to_integral_value():
        raise PhhError(f"amount {value} is finer than the file's smallest unit")
    return int(exact)


class Replay:
    """A PHH hand played through the engine. ``hand`` is the engine state at the end."""

    def __init__(self, phh: PhhHand, infer_omitted_folds: bool = False) -> None:
        if phh.variant not in ("NT", "PO"):
            raise PhhError(f"variant {phh.variant!r} is not supported (only NT and PO)")
        n = len(phh.starting_stacks)
        if not (len(phh.antes) == len(phh.blinds_or_straddles) == n):
            raise PhhError("antes, blinds_or_straddles and starting_stacks differ in length")
        if not 2 <= n <= 10:
            raise PhhError(f"{n} players: a table seats 2 to 10")
        self.phh = phh
        self.infer_omitted_folds = infer_omitted_folds
        self.inferred_folds: list[str] = []
        self.scale = 10 ** max(self._action_decimals(), *(
            _decimals(v) for v in (
                *phh.antes, *phh.blinds_or_straddles, *phh.starting_stacks, phh.min_bet
            )
        ))
        scale = self.scale
        antes = [_chips(a, scale) for a in phh.antes]
        blinds = [_chips(b, scale) for b in phh.blinds_or_straddles]
        if n == 2:  # heads-up lists read reversed (phh-std)
            antes.reverse()
            blinds.reverse()
        try:
            setup = HandSetup(
                game="PO" if phh.variant == "PO" else "NT",
                players=[
                    PlayerSetup(label=f"p{k + 1}", stack=_chips(s, scale), ante=a, blind=b)
                    for k, (s, a, b) in enumerate(
                        zip(phh.starting_stacks, antes, blinds, strict=True)
                    )
                ],
                min_bet=_chips(phh.min_bet, scale),
                dead_antes=not phh.ante_trimming_status,
                odd_chip_unit=phh.odd_chip_unit * scale,
            )
        except ValidationError as exc:
            raise PhhError(f"the hand cannot be set up: {exc.errors()[0]['msg']}") from exc
        self.hand = Hand(setup)

    def _action_decimals(self) -> int:
        places = 0
        if not any("." in action for action in self.phh.actions):
            return 0  # the common case: whole chips
        for action in self.phh.actions:
            parts = action.split("#", 1)[0].split()
            if len(parts) == 3 and parts[1] == "cbr" and "." in parts[2]:
                places = max(places, len(parts[2].split(".", 1)[1].rstrip("0")))
        return places

    def _player(self, token: str) -> int:
        if not token.startswith("p") or not token[1:].isdigit():
            raise PhhError(f"{token!r} names no player")
        i = int(token[1:]) - 1
        if not 0 <= i < self.hand.n:
            raise PhhError(f"{token!r}: the hand has {self.hand.n} players")
        return i

    def apply(self, action: str) -> None:
        parts = action.split("#", 1)[0].split()
        hand = self.hand
        if len(parts) >= 2 and parts[0] == "d":
            if parts[1] == "dh" and len(parts) == 4:
                hand.deal_hole(self._player(parts[2]), parse_cards(parts[3]))
                return
            if parts[1] == "db" and len(parts) == 3:
                cards = parse_cards(parts[2])
                if any(c is None for c in cards):
                    raise PhhError("board cards must be known")
                hand.deal_board([c for c in cards if c is not None])
                return
            raise PhhError(f"unsupported dealer action {action!r}")
        if len(parts) >= 2:
            i = self._player(parts[0])
            verb = parts[1]
            if self.infer_omitted_folds and verb in ("f", "cc", "cbr"):
                self._fold_skipped_players(i)
            if verb == "f" and len(parts) == 2:
                hand.fold(i)
                return
            if verb == "cc" and len(parts) == 2:
                if (hand.stage is Stage.DEALING and hand.street is Street.PREFLOP
                        and not hand.folded[i] and not hand.all_in[i]):
                    # The preflop round closed without him: nobody else could bet any more.
                    # PokerKit still gives a blind his option (pokertable's export writes it).
                    return
                hand.check_or_call(i)
                return
            if verb == "cbr" and len(parts) == 3:
                amount = _chips(parts[2], self.scale)
                owed = hand.to_call(i) if hand.actor == i else 0
                if owed and amount == hand.bets[i] + owed:
                    # Exactly what a call reaches: a caller bringing a short big blind up to the
                    # full blind (RULES R4), which engines that match only the posted blind
                    # (PokerKit) read as completing the bet; pokertable's export writes it so.
                    hand.check_or_call(i)
                else:
                    hand.bet_or_raise_to(i, amount)
                return
            if verb == "sm" and len(parts) in (2, 3):
                if len(parts) == 2:  # phh-std: showdown without cards is a muck
                    hand.muck(i)
                elif parts[2] == "-":  # phh-std: show the cards dealt
                    hand.show(i, list(hand.hole[i]) or [None] * HOLE_CARDS[hand.game])
                else:
                    hand.show(i, parse_cards(parts[2]))
                return
        raise PhhError(f"cannot read action {action!r}")

    def _fold_skipped_players(self, i: int) -> None:
        """Transcripts of televised hands leave out folds. With ``infer_omitted_folds``, players
        skipped before ``i`` who face a bet are taken to have folded; one who could check is
        not, so that action stays out of turn."""
        hand = self.hand
        while (
            hand.stage is Stage.BETTING and hand.actor is not None and hand.actor != i
            and not hand.folded[i] and hand.to_call(hand.actor) > 0
        ):
            self.inferred_folds.append(hand.labels[hand.actor])
            hand.fold(hand.actor)

    def run(self) -> Hand:
        for number, action in enumerate(self.phh.actions, start=1):
            try:
                self.apply(action)
            except ValueError as exc:  # RuleViolation, PhhError: say which action
                exc.args = (f"action {number} {action!r}: {exc}",)
                raise
        hand = self.hand
        if hand.stage is Stage.SHOWDOWN:
            hand.settle()
        elif hand.stage is not Stage.OVER:
            raise PhhError(
                f"the actions end before the hand is over ({hand.stage.value} on the "
                f"{hand.street.name.lower()})"
            )
        return hand

    def finishing_stacks(self) -> list[int] | list[float]:
        stacks = self.hand.stacks
        if self.scale == 1:
            return list(stacks)
        return [float(Decimal(s) / self.scale) for s in stacks]


def replay_text(text: str) -> Replay:
    """Replay a PHH file under the rules.

    If the rules refuse it only because players who faced a bet were skipped, it is replayed
    again with those players folded, and that result is accepted only when the file's own
    ``finishing_stacks`` confirm it (``Replay.inferred_folds`` names them). Otherwise the
    out-of-turn refusal stands.
    """
    return replay_phh(parse_phh(text))


def replay_phh(phh: PhhHand) -> Replay:
    """`replay_text` of a parsed hand."""
    replay = Replay(phh)
    try:
        replay.run()
    except NotYourTurn:
        lenient = _replay_with_omitted_folds(phh)
        if lenient is None:
            raise
        return lenient
    return replay


def _replay_with_omitted_folds(phh: PhhHand) -> Replay | None:
    """The lenient replay, if it succeeds and the file's own result confirms it."""
    if phh.finishing_stacks is None:
        return None
    lenient = Replay(phh, infer_omitted_folds=True)
    try:
        lenient.run()
    except ValueError:
        return None
    recorded = [float(v) if lenient.scale > 1 else v for v in phh.finishing_stacks]
    return lenient if lenient.finishing_stacks() == recorded else None
