"""The reader protocols by name: their decoders and line speeds."""

from __future__ import annotations

from typing import Literal

from drivers.hf_reader import Pt1Decoder
from drivers.rdm6300 import Rdm6300Decoder

Protocol = Literal["rdm6300", "pt1"]
DEFAULT_BAUD: dict[str, int] = {"rdm6300": 9600, "pt1": 115200}


def make_decoder(protocol: str) -> Rdm6300Decoder | Pt1Decoder:
    return Rdm6300Decoder() if protocol == "rdm6300" else Pt1Decoder()
