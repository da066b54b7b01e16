"""Poker Hand History (PHH, phh-std 0.0.2) import and replay for `NT` and `PO`.

A PHH file lists players from the first seat left of the button, the button last. In heads-up the
antes and blinds are read reversed (player 1, the big blind, posts ``blinds[1]``), as the standard
and PokerKit do. Amounts with decimals (online hands in dollars) are replayed in the file's
smallest decimal unit and printed back in the file's unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any, cast

import rtoml

from controller.engine.cards import parse_cards
from controller.engine.hand import HOLE_CARDS, Hand, PlainPlayer, PlainSetup, Stage, Street
from controller.errors import NotYourTurn, PhhError

Number = int | float
_NUMBER = (int, float)


class PhhHand:
    """The fields of a PHH file this project uses, checked; the file's other fields are kept in
    ``extra`` but not interpreted.

    Checked by hand rather than by a pydantic model: the replay reads a thousand files in a
    process whose start-up is part of the benchmark, and pydantic's import and validation cost
    more than the replay of a hand (issue 37). TOML gives the types; a field of the wrong type is
    refused as ``PHH field name: what it should be``. ``_odd_chip_unit`` (user-defined,
    phh-std) is the chip split pots are shared in (RULES S2), as pokertable's export writes it.
    """

    __slots__ = (
        "actions",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "decimal_actions",
        "decimal_amounts",
        "event",
        "extra",
        "finishing_stacks",
        "hand",
        "level",
        "min_bet",
        "odd_chip_unit",
        "players",
        "seats",
        "starting_stacks",
        "table",
        "variant",
    )

    def __init__(self, data: Mapping[str, Any]) -> None:
        get = data.get
        self.variant: str = _required(data, "variant", str, "text")
        self.antes, ante_decimals = _numbers(data, "antes")
        self.blinds_or_straddles, blind_decimals = _numbers(data, "blinds_or_straddles")
        self.min_bet: Number = _required(data, "min_bet", _NUMBER, "a number")
        self.starting_stacks, stack_decimals = _numbers(data, "starting_stacks")
        # Whether an amount of the set-up has decimals (a float), found by the type checks
        # themselves: most files are whole chips, which the replay then takes as they are.
        self.decimal_amounts = (ante_decimals or blind_decimals or stack_decimals
                                or self.min_bet.__class__ is float)
        actions = _required(data, "actions", list, "a list of actions")
        try:  # (one join in C: a loop over the actions cost a replay's hand a microsecond)
            joined = "".join(actions)
        except TypeError:
            for k, action in enumerate(actions):
                if type(action) is not str:
                    raise PhhError(f"PHH field actions.{k}: should be text") from None
            raise
        self.actions: list[str] = actions
        # Whether an action may name an amount with decimals (online hands in dollars); most
        # files are whole chips, and their replay then never looks at each action for it.
        self.decimal_actions = "." in joined
        # The optional fields, each checked only when the file has it (a file of the bench's
        # kind has one or two of them: the checks are per-file cost).
        self.ante_trimming_status: bool = False if get("ante_trimming_status") is None else (
            _optional(data, "ante_trimming_status", bool, "true or false", False))
        self.finishing_stacks: list[Number] | None = (
            None if get("finishing_stacks") is None else _numbers(data, "finishing_stacks")[0])
        self.players: list[str] | None = None if get("players") is None else (
            _listed(data, "players", str, "text"))
        self.seats: list[int] | None = None if get("seats") is None else (
            _listed(data, "seats", int, "a whole number"))
        self.hand: int | str | None = None if get("hand") is None else (
            _optional(data, "hand", (int, str), "a number or text"))
        self.table: int | str | None = None if get("table") is None else (
            _optional(data, "table", (int, str), "a number or text"))
        self.event: str | None = None if get("event") is None else (
            _optional(data, "event", str, "text"))
        self.level: int | None = None if get("level") is None else (
            _optional(data, "level", int, "a whole number"))
        unit: int = 1 if get("_odd_chip_unit") is None else (
            _optional(data, "_odd_chip_unit", int, "a whole number", 1))
        if unit <= 0:
            raise PhhError("PHH field _odd_chip_unit: should be greater than 0")
        self.odd_chip_unit = unit
        self.extra: dict[str, Any] = {} if data.keys() <= _KNOWN else {
            k: v for k, v in data.items() if k not in _KNOWN}


_KNOWN = frozenset(PhhHand.__slots__) - {"odd_chip_unit", "extra", "decimal_actions",
                                          "decimal_amounts"} | {
    "_odd_chip_unit"}


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """isinstance, except that true and false are not numbers here (TOML keeps them apart)."""
    return isinstance(value, kind) and (value.__class__ is not bool or kind is bool)


def _required(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...],
              wanted: str) -> Any:
    try:
        value = data[name]
    except KeyError:
        raise PhhError(f"PHH field {name}: missing") from None
    if value.__class__ is kind:
        return value  # (exactly the type asked for: the common case, without a call)
    if not _is(value, kind):
        raise PhhError(f"PHH field {name}: should be {wanted}")
    return value


def _optional(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], wanted: str,
              default: Any = None) -> Any:
    value = data.get(name)
    if value is None:
        return default
    if not _is(value, kind):
        raise PhhError(f"PHH field {name}: should be {wanted}")
    return value


def _listed(data: Mapping[str, Any], name: str, kind: type, wanted: str) -> Any:
    values = _optional(data, name, list, f"a list of {wanted}")
    if values is not None:
        for k, value in enumerate(values):
            if not _is(value, kind):
                raise PhhError(f"PHH field {name}.{k}: should be {wanted}")
    return values


def _numbers(data: Mapping[str, Any], name: str) -> tuple[list[Number], bool]:
    """The list of numbers, and whether one of them has decimals (is a float)."""
    values = _required(data, name, list, "a list of numbers")
    kinds = set(map(type, values))
    if kinds <= _NUMBER_TYPES:  # (one test in C, not a loop: per-file cost)
        return values, float in kinds
    for k, value in enumerate(values):
        if value.__class__ is not int and value.__class__ is not float:  # (not bool)
            raise PhhError(f"PHH field {name}.{k}: should be a number")
    return values, float in kinds


_NUMBER_TYPES = frozenset((int, float))  # exactly: true and false are no numbers here


def _toml(text: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = rtoml.loads(text)
    except rtoml.TomlParsingError as exc:
        raise PhhError(f"not a TOML file: {exc}") from exc
    return data


def _hand(data: dict[str, Any], where: str = "") -> PhhHand:
    try:
        return PhhHand(data)
    except PhhError as exc:
        if where:
            exc.args = (f"{where}{exc}",)
        raise


def parse_phh(text: str) -> PhhHand:
    return _hand(_toml(text))


def parse_phhs(text: str) -> list[tuple[str | None, PhhHand]]:
    """The hands of a file: one PHH hand (key None), or a ``.phhs`` document of numbered
    tables, each a hand (PokerKit's `loads_all`; `pokertable hands export --format phh`)."""
    data = _toml(text)
    if data and "variant" not in data and all(  # ("variant": one hand, without looking on)
            key.isdigit() and isinstance(value, dict) for key, value in data.items()):
        return [(key, _hand(value, f"hand [{key}]: ")) for key, value in data.items()]
    return [(None, _hand(data))]


def _decimals(value: Number) -> int:
    if value.__class__ is int:
        return 0
    text = repr(value)
    if "e" in text or "E" in text:  # 1e-05: Decimal says how many places
        from decimal import Decimal  # (only for amounts with decimals: not at start-up)

        exponent = Decimal(text).normalize().as_tuple().exponent
        return max(0, -exponent) if isinstance(exponent, int) else 0
    return len(text.partition(".")[2].rstrip("0"))


def _chips(value: Number | str, scale: int) -> int:
    """An amount in the file's unit as whole chips of the replay unit, exactly."""
    if value.__class__ is int:
        return value * scale
    if value.__class__ is str and value.isdigit():
        return int(value) * scale  # whole chips written in an action: the common case
    from decimal import Decimal  # (only for amounts with decimals: not at start-up)

    try:
        exact = Decimal(value if isinstance(value, str) else repr(value)) * scale
        if not exact.is_finite():
            raise PhhError(f"{value!r} is not an amount")
        if exact != exact.to_integral_value():
            raise PhhError(f"amount {value} is finer than the file's smallest unit")
        return int(exact)
    except (ArithmeticError, ValueError) as exc:  # not a number at all, inf, nan
        if isinstance(exc, PhhError):
            raise
        raise PhhError(f"{value!r} is not an amount") from None


# Enum members as globals: a lookup through the enum's metaclass costs eight times more.
_DEALING, _SHOWDOWN, _OVER, _PREFLOP = Stage.DEALING, Stage.SHOWDOWN, Stage.OVER, Street.PREFLOP

# "p1" -> 0 ... "p10" -> 9: the common names looked up, not parsed (`Replay._player` says what
# is wrong with any other).
_PLAYER_INDEX = {f"p{k + 1}": k for k in range(10)}
_LABELS = tuple(_PLAYER_INDEX)
# The names of a hand of n players, n = 0 ... 10: _PLAYERS_OF[n]["p3"] == 2.
_PLAYERS_OF = tuple({label: k for k, label in enumerate(_LABELS[:n])} for n in range(11))
_new_tuple = tuple.__new__

# The cards of an action's text, as read before: a replay reads the same few thousand texts
# (hole cards, turns and rivers) again and again. Tuples, so that no reader can change them;
# bounded, so that a long process does not grow it for ever.
_CARDS_READ: dict[str, tuple[int | None, ...]] = {}
_CARDS_KEPT = 20_000


def _read_cards(text: str) -> tuple[int | None, ...]:
    cards = tuple(parse_cards(text))
    if len(_CARDS_READ) < _CARDS_KEPT:
        _CARDS_READ[text] = cards
    return cards


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
        places = self._action_decimals() if phh.decimal_actions else 0
        whole = not phh.decimal_amounts  # (most files: whole chips, no Decimal)
        if not whole:
            for value in (*phh.antes, *phh.blinds_or_straddles, *phh.starting_stacks,
                          phh.min_bet):
                if value.__class__ is float:
                    places = max(places, _decimals(value))
        self.scale = scale = 10 ** places
        if whole and scale == 1:
            # (every amount an int, as just checked)
            antes = cast("list[int]", list(phh.antes))
            blinds = cast("list[int]", list(phh.blinds_or_straddles))
            stacks = cast("list[int]", phh.starting_stacks)
            min_bet = cast(int, phh.min_bet)
        else:
            antes = [_chips(a, scale) for a in phh.antes]
            blinds = [_chips(b, scale) for b in phh.blinds_or_straddles]
            stacks = [_chips(s, scale) for s in phh.starting_stacks]
            min_bet = _chips(phh.min_bet, scale)
        if n == 2:  # heads-up lists read reversed (phh-std)
            antes.reverse()
            blinds.reverse()
        # What HandSetup would refuse, said here: the set-up is built unvalidated (PlainSetup).
        posted: list[int] = []
        for k in range(n) if min(stacks) <= 0 or min(antes) < 0 or min(blinds) < 0 else ():
            if stacks[k] <= 0:
                raise PhhError(f"the hand cannot be set up: p{k + 1} has no chips "
                               f"(starting stack {phh.starting_stacks[k]})")
            if antes[k] < 0 or blinds[k] < 0:
                if antes[k] < 0:
                    raise PhhError(f"the hand cannot be set up: p{k + 1} owes a negative ante "
                                   "or blind")
                # PokerKit's "post bet": a blind posted to come in without waiting for the
                # button, live, moving nobody's turn (our export's for CG Blinds, a seat change)
                blinds[k] = -blinds[k]
                posted.append(k)
        if min_bet <= 0:
            raise PhhError(f"the hand cannot be set up: min_bet {phh.min_bet} is not a bet")
        setup = PlainSetup(
            game="PO" if phh.variant == "PO" else "NT",
            # (PlainPlayer(label, stack, ante, blind) without its Python-level __new__)
            players=tuple(map(_new_tuple, repeat(PlainPlayer),
                              zip(_LABELS[:n], stacks, antes, blinds, strict=True))),
            min_bet=min_bet,
            dead_antes=not phh.ante_trimming_status,
            posted=tuple(posted),
            odd_chip_unit=phh.odd_chip_unit * scale,
        )
        self.hand = Hand(setup)
        self._players = _PLAYERS_OF[n]  # "p1" ... its players' names (others: `_player`)

    def _action_decimals(self) -> int:
        """The most decimals an amount of the actions has (asked only of a file whose actions
        have a "." at all: most are whole chips)."""
        places = 0
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
        """The file's actions, then the showdown's settlement: the hand at its end."""
        self._play(self.phh.actions)
        hand = self.hand
        if hand.stage is _SHOWDOWN:
            hand.settle()
        elif hand.stage is not _OVER:
            raise PhhError(
                f"the actions end before the hand is over ({hand.stage.value} on the "
                f"{hand.street.name.lower()})"
            )
        return hand

    def apply(self, action: str) -> None:
        """One action, as `run` plays each (a hand built action by action)."""
        self._play((action,), numbered=False)

    def _play(self, actions: Sequence[str], numbered: bool = True) -> None:
        """Actions in one loop: each one's shape (two, three or four words) tried most
        frequent first, then its verb. (One function for the whole loop: a call for each
        action was a tenth of the replay's own time, next to the engine's.) A refusal names
        the action and its number in the file."""
        hand, players, lenient = self.hand, self._players, self.infer_omitted_folds
        number, action = 0, ""
        try:
            for action in actions:
                number += 1
                parts = (action.split("#", 1)[0] if "#" in action else action).split()
                size = len(parts)
                if size == 2:  # a player's fold, check or call, or muck
                    who, verb = parts
                    i = players.get(who)
                    if i is None:
                        if who == "d":
                            raise PhhError(f"unsupported dealer action {action!r}")
                        i = self._player(who)  # (raises: names nobody here)
                    if lenient and verb in ("f", "cc", "cbr"):
                        self._fold_skipped_players(i)
                    if verb == "cc":
                        if (hand.stage is _DEALING and hand.street is _PREFLOP
                                and not hand.folded[i] and not hand.all_in[i]):
                            # The preflop round closed without him: nobody else could bet
                            # any more. PokerKit still gives a blind his option
                            # (pokertable's export writes it).
                            continue
                        hand.check_or_call(i)
                        continue
                    if verb == "f":
                        hand.fold(i)
                        continue
                    if verb == "sm":  # phh-std: showdown without cards is a muck
                        hand.muck(i)
                        continue
                elif size == 4:  # the dealer's hole cards: d dh p3 AsKd
                    if parts[0] == "d" and parts[1] == "dh":
                        j = players.get(parts[2])
                        if j is None:
                            j = self._player(parts[2])
                        hand.deal_hole(j, _CARDS_READ.get(parts[3]) or _read_cards(parts[3]))
                        continue
                    if parts[0] == "d":
                        raise PhhError(f"unsupported dealer action {action!r}")
                    if parts[0] not in players:
                        self._player(parts[0])  # (says first when it names nobody, as ever)
                elif size == 3:  # a bet or raise, a show, or the dealer's board cards
                    who, verb, what = parts
                    if who == "d":
                        if verb != "db":
                            raise PhhError(f"unsupported dealer action {action!r}")
                        cards = _CARDS_READ.get(what) or _read_cards(what)
                        if None in cards:
                            raise PhhError("board cards must be known")
                        hand.deal_board(cards)  # type: ignore[arg-type]  # (no None: checked)
                        continue
                    i = players.get(who)
                    if i is None:
                        i = self._player(who)
                    if verb == "cbr":
                        if lenient:
                            self._fold_skipped_players(i)
                        amount = _chips(what, self.scale)
                        # (what a call reaches is never over the current bet: a raise, the
                        # common case, skips the question)
                        owed = hand.to_call(i) if (amount <= hand.current_bet
                                                   and hand.actor == i) else 0
                        if owed and amount == hand.bets[i] + owed:
                            # Exactly what a call reaches: a caller bringing a short big
                            # blind up to the full blind (RULES R4), which engines that match
                            # only the posted blind (PokerKit) read as completing the bet;
                            # pokertable's export writes it so.
                            hand.check_or_call(i)
                        else:
                            hand.bet_or_raise_to(i, amount)
                        continue
                    if verb == "sm":
                        if what == "-":  # phh-std: show the cards dealt
                            hand.show(i, list(hand.hole[i]) or [None] * HOLE_CARDS[hand.game])
                        else:
                            hand.show(i, list(_CARDS_READ.get(what) or _read_cards(what)))
                        continue
                elif size > 4:
                    if parts[0] == "d":
                        raise PhhError(f"unsupported dealer action {action!r}")
                    if parts[0] not in players:
                        self._player(parts[0])  # (says first when it names nobody, as ever)
                raise PhhError(f"cannot read action {action!r}")
        except ValueError as exc:  # RuleViolation, PhhError: say which action
            if numbered:
                exc.args = (f"action {number} {action!r}: {exc}",)
            raise

    def finishing_stacks(self) -> list[int] | list[float]:
        stacks = self.hand.stacks
        if self.scale == 1:
            return list(stacks)
        from decimal import Decimal

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
