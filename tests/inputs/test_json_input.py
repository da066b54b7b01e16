"""JSON from outside (controller/inputs/json_input.py): bounded, and refused with a reason,
never a RecursionError, a hang or a number the services cannot hold."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.inputs.json_input import MAX_DEPTH, BadJson, depth, loads_bounded

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False, width=32),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)


@given(VALUES)
def test_what_our_services_send_reads_back_as_it_was(value: object) -> None:
    assert loads_bounded(json.dumps(value)) == value


@pytest.mark.parametrize(("payload", "reason"), [
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "levels deep"),
    (b'{"stack": ' + b"9" * 31 + b"}", "a number of 31 digits"),
    (b'{"at": 1e999}', "out of range"),
    (b'{"at": NaN}', "NaN is not a number"),
    (b'{"at": -Infinity}', "-Infinity is not a number"),
    (b'{"seat": "\xff"}', "not UTF-8"),
    (b"   ", "empty"),
    (b'{"seat": 3', "not JSON"),
])
def test_hostile_payloads_are_refused_with_the_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(BadJson, match=reason):
        loads_bounded(payload)


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps({"note": "[[[[" * 100, "escaped": "\\\"[{"})
    assert depth(text.encode()) == 1
    assert loads_bounded(text)["note"].startswith("[[[[")


def test_the_deepest_allowed_payload_still_reads() -> None:
    payload = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert depth(payload.encode()) == MAX_DEPTH
    assert loads_bounded(payload) is not None
