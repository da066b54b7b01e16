"""Players' names the tables can tell apart (PVB 13): a name with characters nobody sees is
refused, a name is kept in its NFKC form, and a name that looks like a registered one (another
case, Cyrillic or Greek look-alike letters) is that player's: refused at registration, found by
`unregister` ("ben" is Ben)."""

from __future__ import annotations

import pytest

from controller.room.tournament.draw import Refused
from controller.room.tournament.names import invisible, normalised, same_name, skeleton
from tests.room.tournament.tournament_room import BREAKS, SimRoom, settings


def test_the_skeleton_of_a_name_is_what_a_display_shows() -> None:
    assert skeleton("Anna") == skeleton("\u0410nna") == skeleton("ANNA") == "anna"  # Cyrillic А
    assert skeleton("\u0412en") == skeleton("ben")  # Cyrillic В, capital only
    assert skeleton("\u039f\u03bfla") == skeleton("Oola")  # Greek Ο and ο
    assert skeleton("\uff22\uff45\uff4e") == "ben"  # full-width, NFKC
    assert skeleton("Anna  Maria") == skeleton("anna maria")
    assert skeleton("Анна") != skeleton("Anna")  # н is no Latin letter: told apart
    assert skeleton("José") != skeleton("Jose")  # an accent shows
    assert normalised(" \uff22en ") == "Ben"
    assert same_name("ANNA", {"Ben": 1, "Anna": 2}) == "Anna"
    assert same_name("Cem", {"Ben": 1}) is None


def test_characters_nobody_sees_are_named() -> None:
    assert invisible("Anna\u200b") == ["U+200B ZERO WIDTH SPACE"]
    assert invisible("An\u200dna\u202e") == ["U+200D ZERO WIDTH JOINER",
                                              "U+202E RIGHT-TO-LEFT OVERRIDE"]
    assert invisible("An\u3164na") == ["U+3164 HANGUL FILLER"]
    assert invisible("Anna\x07") == ["U+0007 a control character"]
    assert invisible("Anna\nBerger") == ["U+000A a control character"]  # (a line break)
    assert invisible("Jürgen Müller-Łukasz") == []


@pytest.mark.parametrize("name", ["Anna\u200b", "\u200bAnna", "An\u00adna", "Anna\ufeff",
                                  "Anna\u2028"])
def test_pvb_13_a_name_with_invisible_characters_is_refused(name: str) -> None:
    room = SimRoom(settings())
    with pytest.raises(Refused) as refused:
        room.command("register", name=name)
    assert "characters nobody sees" in refused.value.reason
    assert refused.value.rule == "PVB 13" and not room.core.ledger.players


@pytest.mark.parametrize("name", ["\u0410nna", "ANNA", "anna", "\u0391nna", "Anna ",
                                  "\uff21nna"])
def test_pvb_13_a_name_the_tables_cannot_tell_from_a_registered_one_is_refused(
        name: str) -> None:
    room = SimRoom(settings())
    room.command("register", name="Anna")
    with pytest.raises(Refused) as refused:
        room.command("register", name=name)
    assert "Anna is registered already" in refused.value.reason
    assert list(room.core.ledger.players) == ["Anna"]


def test_pvb_13_unregister_finds_the_player_whatever_the_case() -> None:
    room = SimRoom(settings())
    room.command("register", name="Ben")
    room.command("register", name="Cem")
    said = room.command("unregister", name="ben")
    assert said.startswith("Ben is no longer registered")
    assert list(room.core.ledger.players) == ["Cem"]
    with pytest.raises(Refused) as refused:
        room.command("unregister", name="ben")
    assert "ben is not registered" in refused.value.reason
    said = room.command("register", name="\uff24ora")  # kept as NFKC
    assert list(room.core.ledger.players) == ["Cem", "Dora"]


def test_pvb_13_every_command_finds_the_registered_player_whatever_the_case() -> None:
    """reenter, undo_bust, move_done, add_on and rebuy find "gus" as Gus, as register and
    unregister do, and answer with the name as registered."""
    room = SimRoom(settings(tables=2, seats=6, structure=BREAKS))
    for name in ("Anna", "Ben", "Cem", "Dora", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"):
        room.command("register", name=name)
    room.command("draw", seed=5)
    room.knock_out("Gus")
    said = room.command("reenter", name="gus")
    assert said.startswith("Gus enters again (entry 2)"), said
    room.knock_out("Fay")
    said = room.command("undo_bust", player="fay", stack=5_000)
    assert said.startswith("Fay's elimination"), said
    said = room.command("move_done", player="FAY")
    assert said.startswith("Fay's chips are counted"), said
    said = room.command("rebuy", player="\u0430nna")  # a Cyrillic а
    assert said.startswith("Anna takes the rebuy"), said
    with pytest.raises(Refused, match="the add-on is taken at the break after level 2"):
        room.command("add_on", player="anna")  # found: refused for the time, not the name
    with pytest.raises(Refused, match="nobody is not registered"):
        room.command("undo_bust", player="nobody")
