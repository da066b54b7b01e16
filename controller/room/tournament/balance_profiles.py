"""The books' ways of balancing tables (controller/room/tournament/balance.py), named in a module
of their own so that the command line lists them without importing the rules (and pydantic)."""

from __future__ import annotations

from typing import Literal

BalanceProfile = Literal["pvb-2020", "apsa-2010"]
PROFILES: tuple[BalanceProfile, ...] = ("pvb-2020", "apsa-2010")
