"""The test process's one Chromium (tests/browsers.py) serves page after page, and a test
between them that runs an event loop of its own in the main thread (`asyncio.run`) is not
refused for Playwright's: a whole pytest run, since only the order of tests on one process
shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

TESTS = '''
import asyncio


def test_a_page(browser):
    page = browser.new_page()
    page.set_content("<p id=says>one</p>")
    assert page.inner_text("#says") == "one"


def test_then_a_loop_of_its_own():
    assert asyncio.run(asyncio.sleep(0, result="own")) == "own"


def test_and_a_page_again_in_the_same_browser(browser):
    page = browser.new_page()
    page.set_content("<p id=says>two</p>")
    assert page.inner_text("#says") == "two"
    assert len(browser.contexts) == 1  # the first test's page was closed at its end
'''


def test_pages_and_a_loop_of_its_own_in_one_process(pytester: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    pytester.makepyfile(test_order=TESTS)
    result = pytester.runpytest_subprocess("-p", "tests.browsers", "-p", "no:cacheprovider",
                                           "-p", "no:xdist")
    result.assert_outcomes(passed=3)
