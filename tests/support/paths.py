"""Where the tests find the repository: its root, whichever folder of `tests/` a test is in."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
