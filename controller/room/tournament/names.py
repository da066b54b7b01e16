"""Players' names the tables can tell apart (PVB 13: a player is known at his seat by his name),
pure.

A name is refused when it holds characters nobody sees: format characters (Unicode category
Cf: zero-width spaces and joiners, direction marks), controls, line and paragraph separators,
unassigned and private-use code points, and the blank fillers that render as nothing. What is
left is kept in its NFKC form (a full-width "Ｂｅｎ" is "Ben").

Two names are the same player's when their **skeletons** are equal: NFKC, the Cyrillic and
Greek letters that look like Latin ones replaced by them, case folded (registration ignores
case: "ben" is Ben), runs of spaces made one. "Аnna" with a Cyrillic А is Anna.

The look-alike table is a short excerpt of the Unicode Consortium's confusables data (Unicode
Technical Standard #39, "Unicode Security Mechanisms", confusables.txt, mappings of Cyrillic
and Greek letters to Latin ones), chosen for names: the letters whose glyph a table's display
shows as the Latin one. A library carrying the whole data (confusable-homoglyphs) was
considered: it detects confusable characters rather than giving a skeleton two names can be
compared by, and names need only these few dozen letters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import TypeVar

# Characters that are no category C but show nothing (UTS #39 and the Unicode Standard's
# "default ignorable" blank fillers): Hangul fillers, the braille blank, the Mongolian vowel
# separator, the combining grapheme joiner.
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f")
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

# Capitals before case folding (a Cyrillic В folds to в, which looks like no Latin letter).
UPPER = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Һ": "H", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "I",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
})
LOWER = str.maketrans({
    # Cyrillic
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ɑ": "a",
    # Greek
    "α": "a", "ο": "o", "ν": "v", "ρ": "p", "ι": "i", "υ": "u", "ϲ": "c", "ϳ": "j",
    # Latin letters without a dot or with another form
    "ı": "i", "ȷ": "j",
})


def invisible(name: str) -> list[str]:
    """The characters of ``name`` nobody sees, as U+XXXX with their Unicode names."""
    found = []
    for char in name:
        if char in BLANK or unicodedata.category(char) in REFUSED_CATEGORIES:
            # (a control character has no Unicode name: a line break or tab pasted in)
            label = unicodedata.name(char, "") or (
                "a control character" if unicodedata.category(char) == "Cc" else "unnamed")
            found.append(f"U+{ord(char):04X} {label}")
    return found


def normalised(name: str) -> str:
    """The name as it is kept and shown: NFKC, spaces at either end dropped."""
    return unicodedata.normalize("NFKC", name).strip()


def skeleton(name: str) -> str:
    """What a table's display makes of the name, for comparing: equal skeletons are names
    nobody can tell apart."""
    text = normalised(name).translate(UPPER).casefold().translate(LOWER)
    return " ".join(text.split())


T = TypeVar("T")


def same_name(name: str, known: Mapping[str, T]) -> str | None:
    """The known name (a key of ``known``) that ``name`` cannot be told apart from."""
    wanted = skeleton(name)
    return next((key for key in known if skeleton(key) == wanted), None)


def registered_as(name: str, known: Mapping[str, T]) -> str:
    """The name as registered: ``name`` itself, else the one it cannot be told apart from
    ("ben" finds Ben), else ``name`` (the caller says it is not registered)."""
    if name in known:
        return name
    return same_name(name, known) or name


__all__ = ["invisible", "normalised", "registered_as", "same_name", "skeleton"]
