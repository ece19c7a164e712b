"""The viewer's picture in the docs (docs/img/viewer.png) is made by docs/viewer_screenshot.py
from the current page and the shipped log: its sidecar docs/img/viewer.json records the digests
it was made from, and this test fails when the page, the log or the picture changed since."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from lab_scripts import load_script
from viewer_util import EXAMPLE_LOG, REPO

IMG = REPO / "docs" / "img" / "viewer.png"
REMAKE = "run `python docs/viewer_screenshot.py` and commit docs/img/viewer.png and viewer.json"


def _script():
    return load_script("docs/viewer_screenshot.py")


def _sidecar() -> dict:
    shot = _script()
    assert shot.OUT == IMG
    side = shot.sidecar_path(IMG)
    assert IMG.is_file() and side.is_file(), REMAKE
    return json.loads(side.read_text())


def test_the_picture_is_of_the_current_page_and_log() -> None:
    shot = _script()
    side = _sidecar()
    assert side["log"] == EXAMPLE_LOG.name and shot.LOG == EXAMPLE_LOG
    assert side["log_sha256"] == hashlib.sha256(EXAMPLE_LOG.read_bytes()).hexdigest(), (
        f"the shipped log changed since the picture was taken: {REMAKE}"
    )
    assert side["page_sha256"] == shot.page_digest(), (
        f"the page (apps/viewer/static) changed since the picture was taken: {REMAKE}"
    )
    assert side["png_sha256"] == hashlib.sha256(IMG.read_bytes()).hexdigest(), (
        f"docs/img/viewer.png is not the picture its sidecar describes: {REMAKE}"
    )


def test_the_picture_shows_a_policy_decision_with_a_value() -> None:
    side = _sidecar()
    seat, k = _script().pick_decision(EXAMPLE_LOG, 0)
    assert (side["seat"], side["decision"]) == (seat, k + 1)
    assert side["fragment"] == f"log=1&game=0&seat={seat}&d={k + 1}"


def test_the_docs_link_the_picture() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    linked = [p for p in pages if "img/viewer.png" in p.read_text(encoding="utf-8")]
    assert linked, "no page of the docs shows docs/img/viewer.png"
    for p in linked:
        assert (p.parent / _link(p)).resolve() == IMG.resolve(), p


def _link(page: Path) -> str:
    m = re.search(r"\(([^)\s]*img/viewer\.png)\)", page.read_text(encoding="utf-8"))
    assert m, f"{page} names img/viewer.png outside a Markdown link"
    return m.group(1)
