"""Fixtures several test modules share: the real-browser tests' Chromium (`browser_util`)."""

from browser_util import browser  # noqa: F401 - the fixture, by its name
