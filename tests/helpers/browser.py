"""Headless Chromium for the ``agentmem serve`` browser tests (no tests here): Debian's
``chromium`` driven by Playwright for Python (its driver ships in the wheel; no browser is
downloaded), a page's accessibility checked by axe-core (``axe-playwright-python``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = (
    os.environ.get("AGENTMEM_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def need_browser() -> None:
    """Skip (locally) or fail (under CI, ``$CI`` set) when Chromium or Playwright is missing:
    CI must not skip the browser tests silently (``.ci/run`` installs them)."""
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"chromium ({CHROMIUM}; apt-get install chromium chromium-driver)")
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright / axe-playwright-python (pip install -e '.[test]')")
    if not missing:
        return
    why = "browser tests need " + " and ".join(missing)
    if os.environ.get("CI"):
        pytest.fail(why + " — CI must run them (.ci/run installs chromium)")
    pytest.skip(why)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (a fresh profile; no network but the loopback pages)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on ``page`` (id: help, first target)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = []
    for violation in results.response.get("violations", []):
        if violation.get("impact") in ("serious", "critical"):
            targets = [n.get("target") for n in violation.get("nodes", [])][:2]
            found.append(
                f"{violation['id']} ({violation['impact']}): {violation['help']} {targets}"
            )
    return found
