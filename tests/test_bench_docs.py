"""docs/performance.md is `make bench`'s output, and README.md quotes the same figures (issue 37:
"benchmarks that stay honest"). No bench runs here: the checks read the two files and
bench/catalogue.py, the runner's list of benchmarks and its readers of their outputs."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench:summary -->", "<!-- /bench:summary -->"
ROW = re.compile(r"^\| (.+) \| (.+) \| (.+) \|$")


def catalogue() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_catalogue", ROOT / "bench" /
                                                  "catalogue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up by name)
    spec.loader.exec_module(module)
    return module


def block(text: str) -> str:
    assert text.count(BEGIN) == 1 and text.count(END) == 1, "one summary block, marked"
    return text[text.index(BEGIN):text.index(END) + len(END)]


def rows(summary: str) -> list[tuple[str, str, str]]:
    found = [(m[1], m[2], m[3]) for line in summary.splitlines() if (m := ROW.match(line))]
    return [row for row in found if row != ("figure", "this run", "reference or target")]


def outputs(document: str) -> dict[str, str]:
    """Each bench's output as the document shows it, by the runner's marker."""
    return dict(re.findall(r"<!-- bench:output (\w+) -->\n```text\n(.*?)\n```", document,
                           re.S))


def test_the_readme_quotes_exactly_the_summary_of_the_last_bench_run() -> None:
    readme = block((ROOT / "README.md").read_text())
    performance = block((ROOT / "docs" / "performance.md").read_text())
    assert readme == performance
    assert len(rows(performance)) >= 5


def test_every_summary_figure_is_read_from_an_output_the_document_shows() -> None:
    document = (ROOT / "docs" / "performance.md").read_text()
    shown = outputs(document)
    benches = catalogue().BENCHES
    expected = [row for bench in benches if bench.name in shown
                for row in bench.headlines(shown[bench.name])]
    assert rows(block(document)) == expected


def test_every_bench_the_runner_knows_has_its_script_and_its_section() -> None:
    document = (ROOT / "docs" / "performance.md").read_text()
    for bench in catalogue().BENCHES:
        assert (ROOT / "bench" / bench.script).is_file(), bench.script
        assert f"(`bench/{bench.script}`)" in document, f"no section for {bench.script}"


def test_no_figure_outside_the_outputs_in_the_explanations() -> None:
    """The fixed prose of each bench has no measured figure (a number with its unit): those come
    from the run. Names with digits in them (PN5180, ISO/IEC 14443) are not figures."""
    figure = re.compile(r"\d[\d,.]*\s*(ms|s|%|x|MB|KB|GiB|hands|events|tables|players)\b")
    for bench in catalogue().BENCHES:
        assert not figure.search(bench.about), f"{bench.name}: a figure in its explanation"
