"""Shared fixtures: where the shared sample hands are."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
PHH_DIR = SHARED / "phh"


@pytest.fixture(scope="session")
def phh_files() -> list[Path]:
    files = sorted(PHH_DIR.glob("*.phh"))
    # The samples live beside the repository (../shared), as on every developer machine and CI.
    assert len(files) == 41, f"expected the 41 shared PHH samples in {PHH_DIR}"
    return files
