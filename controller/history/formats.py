"""The formats hands leave the room in: a module of its own so that the command line can list
them without importing the exporters (and with them the engine and pydantic)."""

from __future__ import annotations

from typing import Literal

Format = Literal["json", "phh", "stars", "ohh"]
FORMATS: tuple[Format, ...] = ("json", "phh", "stars", "ohh")
