"""The floor's password check answers an unknown name in the time a known one takes: it verifies
against a stand-in hash made with the same argon2id parameters (accounts.py)."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters

from controller.room.floor import accounts

pytestmark = pytest.mark.real_password_cost  # the real hasher and stand-in, not the cheap ones


def test_the_stand_in_for_an_unknown_name_costs_what_a_real_check_costs() -> None:
    assert extract_parameters(accounts._DUMMY) == extract_parameters(
        accounts._hasher.hash("any password at all"))


def test_an_unknown_name_is_refused_even_with_the_stand_ins_own_password() -> None:
    known = accounts.set_password(accounts.Accounts(users={}), "anna", "correct horse")
    assert accounts.check_password(known, "anna", "correct horse")
    assert not accounts.check_password(known, "anna", "wrong horse!")
    assert not accounts.check_password(known, "nobody", "no such user, no such password")
