"""The real-browser tests' Chromium: Debian's, driven by Playwright (never Playwright's own
download). Skipped, with the reason, when /usr/bin/chromium or playwright is missing, unless
``LASTWILL_BROWSER_TESTS=require`` (set by .ci/run), which turns the skip into a failure.
tests/conftest.py offers its ``browser`` fixture to every test module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("LASTWILL_BROWSER_TESTS") == "require":
        pytest.fail(f"{reason} (LASTWILL_BROWSER_TESTS=require)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is absent: apt-get install chromium (as .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed: pip install -e '.[browser]'")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
