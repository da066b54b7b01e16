"""What a table reads from disk before it opens a port or connects: the venue CA and its login
(``[mqtt]``), each reader's deck and chip set. `pokertable table` reads them first, before it
writes anything; `pokertable table --check` reads the same through these functions and opens
nothing. Each mistake is a `ConfigError` of one line naming the field, the file and the fix."""

from __future__ import annotations

from controller.errors import ConfigError
from controller.mqtt.client import Login, check_ca, load_login
from controller.table.config import ReaderSection, TableConfig
from drivers.registry import ChipSet, Deck, load_chips, load_deck, unreadable_tags


def mqtt_login(config: TableConfig) -> Login | None:
    """The table's login from ``[mqtt] credentials``, the venue CA read first (as paho will read
    it); None without ``[mqtt]``."""
    if config.mqtt is None:
        return None
    m = config.mqtt
    try:
        check_ca(m)
    except ConfigError as exc:
        raise ConfigError(f"mqtt.ca: {exc}") from None
    client = m.client or f"table-{config.table.id}"
    try:
        return load_login(m.credentials, client)
    except ConfigError as exc:
        named = "mqtt.client" if m.client else "table-<table.id>"
        raise ConfigError(
            f"mqtt.credentials: {exc}; or, on a Pi installed from a bundle, `sudo pokertable "
            f"install table --bundle` with this table's bundle writes its login (the login it "
            f"looks for, {client!r}, is {named})") from None


def read_registries(reader: ReaderSection, *, required: bool = False
                    ) -> tuple[Deck | None, ChipSet | None]:
    """The reader's deck and chip set from the files the configuration names, each refused in
    one line when it cannot be read, or when the reader's chip cannot read its tags
    (registered on another kind of reader, the table would wait for ever for cards it cannot
    see). ``required``: a real table's start, where a reader of cards without a deck (or of
    chips without a chip set) is refused too: it would read every card as foreign (RULES I4),
    every hand void."""
    where = f"readers.{reader.name}"
    field = "deck" if reader.reads == "cards" else "chips"
    if required and getattr(reader, field) is None:
        kind, folder = ("deck", "decks") if field == "deck" else ("chip set", "chips")
        raise ConfigError(
            f"{where}.{field}: missing: this reader knows its {reader.reads} only by the "
            f"registered {kind}, and would read every one as foreign: `pokertable {field} "
            f"register` writes it, then name it here ({field} = \"{folder}/house.json\")")
    try:
        deck = load_deck(reader.deck) if reader.deck else None
    except ConfigError as exc:
        raise ConfigError(f"{where}.deck: {exc}") from None
    try:
        chips = load_chips(reader.chips) if reader.chips else None
    except ConfigError as exc:
        raise ConfigError(f"{where}.chips: {exc}") from None
    for path, held, field in ((reader.deck, deck, "deck"), (reader.chips, chips, "chips")):
        why = unreadable_tags(reader.protocol, held) if held is not None else None
        if why is not None:
            # (a deck two readers share, each reading another kind of tag, cannot be
            # registered again on one without losing the other: a file of its own for this one)
            folder = "decks" if field == "deck" else "chips"
            raise ConfigError(
                f"{where}.{field}: {path}: {why}; give this reader a {field} of its own, "
                f"registered on it: pokertable {field} register --reader {reader.name} --out "
                f"{folder}/{reader.name}.json, then {field} = \"{folder}/{reader.name}.json\"")
    return deck, chips


def check_files(config: TableConfig, *, simulate: bool = False) -> None:
    """Everything a start of this configuration reads from disk before it opens a port, read
    as the start reads it (`pokertable table --check`). ``simulate``: as ``--simulate`` starts,
    which deals a demo deck (and chips) in memory where the configuration names a missing one."""
    mqtt_login(config)
    for reader in config.readers:
        if simulate:
            reader = existing_registries(reader)
        read_registries(reader, required=not simulate)


def existing_registries(reader: ReaderSection) -> ReaderSection:
    """The reader with only the deck and chip files that are there (a simulation stands in
    demo ones for the others)."""
    return reader.model_copy(update={
        "deck": reader.deck if reader.deck and reader.deck.exists() else None,
        "chips": reader.chips if reader.chips and reader.chips.exists() else None})
