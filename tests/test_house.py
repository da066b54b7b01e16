"""The house's rules that no linter keeps (CONTRIBUTING.md, docs/architecture.md): small modules,
the rooms' pure modules each in a purity contract, test support apart from the benchmarks and in
helper modules (never in a test module another imports), and the README's layout drawn from the
tree as it is."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MOST_LINES = 600
OURS = ("controller", "drivers", "firmware", "harness", "bench", "tests")

# The rooms' modules that may touch time, files, the network or randomness: their services and
# stores, what reads a person's files, and the offline commands. Every other module of a room
# is pure and belongs in its room's purity contract in pyproject.toml.
NOT_PURE = {
    "clock": {"config", "service", "store"},
    "tournament": {"balance_input", "config", "export", "offline", "service", "store"},
    "cash": {"config", "service", "store"},
}


def _modules(*roots: str) -> list[Path]:
    return sorted(p for root in roots for p in (ROOT / root).rglob("*.py")
                  if "__pycache__" not in p.parts)


def test_no_module_is_over_600_lines() -> None:
    """Split a long module by what its parts answer to (tests: by topic, moving tests whole)."""
    long = {str(p.relative_to(ROOT)): n for p in _modules(*OURS)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert long == {}


def test_the_benchmarks_and_their_harness_import_nothing_of_the_tests() -> None:
    """What both need is in harness/; a benchmark that imported tests/ would run their fixtures'
    code as its own (and break when a test moves)."""
    found = []
    for path in _modules("bench", "harness"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names
                      if n == "tests" or n.startswith("tests.")]
    assert found == []


def test_no_module_of_the_tests_imports_from_a_test_module() -> None:
    """A test module holds its tests; what several share (functions, classes, constants,
    fixtures) is in a helper module of their package (tests/room/floor/floor_helpers.py,
    tests/session/helpers.py), so that a test module moved, split or renamed breaks nobody's
    imports. Imports inside functions count too."""
    found = []
    for path in _modules("tests"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):  # (also `from . import test_x`)
                names = [node.module or "", *(f"{node.module or ''}.{a.name}" for a in node.names)]
            else:
                continue
            if any(part.startswith("test_") for n in names for part in n.split(".")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert found == [], ("move the shared piece into a helper module of the test package (e.g. "
                         "<topic>_helpers.py beside the test module) and import it from there: "
                         + "; ".join(found))


def test_every_pure_module_of_a_room_is_in_its_purity_contract() -> None:
    """A new module of the clock, the tournament or the cash floor is pure unless it is named
    here as not: the contract then keeps clocks, storage and randomness out of it too."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    pure = {m for c in contracts["contracts"] if c["type"] == "forbidden"
            and "random" in c["forbidden_modules"] for m in c["source_modules"]}
    left_out = []
    for room, impure in NOT_PURE.items():
        for path in sorted((ROOT / "controller" / "room" / room).glob("*.py")):
            name = path.stem
            if name != "__init__" and name not in impure and \
                    f"controller.room.{room}.{name}" not in pure:
                left_out.append(f"controller.room.{room}.{name}")
    assert left_out == []
    named = {f"controller.room.{room}.{name}" for room, names in NOT_PURE.items()
             for name in names}
    assert not named & pure, "a module named impure here is in a purity contract"
    assert all((ROOT / (m.replace(".", "/") + ".py")).exists() for m in named | pure
               if m.startswith("controller.room."))


def _layout() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Layout", 1)[1].split("```", 2)[1]


def test_the_readmes_layout_names_every_package_and_no_module_that_is_gone() -> None:
    layout = _layout()
    packages = sorted(str(p.parent.relative_to(ROOT)) for p in (ROOT / "controller").rglob(
        "__init__.py") if "__pycache__" not in p.parts and p.parent != ROOT / "controller")
    unnamed = [p for p in packages
               if f"{p}/" not in layout and f" {p.rsplit('/', 1)[1]}/" not in layout]
    assert unnamed == []
    files = {p.name for p in _modules(*OURS)}
    gone = sorted({name for name in re.findall(r"\b([a-z_0-9]+\.py)\b", layout)} - files)
    assert gone == []


def test_the_architecture_names_no_module_that_is_gone_and_docs_link_what_exists() -> None:
    files = {p.name for p in _modules(*OURS)}
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    gone = sorted(set(re.findall(r"`([a-z_0-9]+\.py)`", architecture)) - files)
    assert gone == []
    broken = []
    for doc in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
                ROOT / "CONTRIBUTING.md"]:
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", link) and not (doc.parent / link).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {link}")
    assert broken == []
