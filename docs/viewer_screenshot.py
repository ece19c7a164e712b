"""Take the README's screenshot of `lastwill view` (docs/img/viewer.png) with headless Chromium.

    python docs/viewer_screenshot.py            # needs .[view,browser] and /usr/bin/chromium

It serves the shipped log on 127.0.0.1 and opens game 0 as the policy's seat sees it, at the
first decision of that seat in an action turn of round 2 or later with a real choice (at least
three legal actions) where its policy gives a value. It saves a palette PNG (to keep the file
small) and beside it ``viewer.json``: the digests of the log and of the page it was made from,
the decision and the PNG's digest. ``tests/apps/test_viewer_screenshot.py`` fails when the page or
the log changed since (run this script again and commit both files).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from apps.viewer import EXAMPLES_DIR, STATIC_DIR

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
OUT = Path(__file__).resolve().parent / "img" / "viewer.png"
LOG = EXAMPLES_DIR / "reference_vs_bots.jsonl"
PAGE_FILES = ("index.html", "app.js", "style.css")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def page_digest() -> str:
    """One digest of the page's files (what the browser runs)."""
    h = hashlib.sha256()
    for name in PAGE_FILES:
        h.update(name.encode() + b"\0" + (STATIC_DIR / name).read_bytes() + b"\0")
    return h.hexdigest()


def sidecar_path(png: Path) -> Path:
    return png.with_suffix(".json")


def pick_decision(log: Path, game: int = 0) -> tuple[int, int]:
    """``(seat, k)``: the first ``ppo:`` seat of ``game`` and its first decision in an action
    turn of round 2 or later with at least three legal actions where the policy gives a
    value."""
    from agents.gamelog import read_game_file
    from apps.viewer.core import GameReplay, analyse, is_policy
    from lastwill_env.engine import legal_actions
    from lastwill_env.engine.game import TURN_PHASE

    rep = GameReplay.build(read_game_file(log).pick(game))
    seats = [s for s, spec in enumerate(rep.specs) if is_policy(spec)]
    if not seats:
        raise SystemExit(f"{log} game {game} has no ppo: seat to show")
    seat = seats[0]
    for k, who in enumerate(rep.seats):
        st = rep.states[k]
        choice = who == seat and st.round >= 2 and st.phase == TURN_PHASE
        if not choice or len(legal_actions(st)) < 3:
            continue
        if analyse(rep, k, seat, log_dir=log.parent)["estimate"] is not None:
            return seat, k
    raise SystemExit(f"{log} game {game}: no decision of seat {seat} with a value")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--log", type=Path, default=LOG)
    ap.add_argument("--game", type=int, default=0)
    ap.add_argument("--fragment", default=None, help="the page's #fragment (default: picked)")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1100)
    ap.add_argument("--colors", type=int, default=64, help="palette size of the PNG")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    from apps.viewer.server import BackgroundServer, create_app

    seat, k = pick_decision(args.log, args.game)
    fragment = args.fragment or f"log=1&game={args.game}&seat={seat}&d={k + 1}"
    app = create_app(args.log, save_dir="/tmp/lastwill-view-shot")
    raw = args.out.with_suffix(".raw.png")
    with BackgroundServer(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto(f"{url}#{fragment}")
        page.wait_for_selector("[data-testid=policy-row]")
        page.wait_for_selector("[data-testid=value-chart] polyline")
        page.wait_for_timeout(300)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(raw))
        browser.close()

    from PIL import Image

    with Image.open(raw) as im:
        im.convert("RGB").quantize(colors=args.colors).save(args.out, optimize=True)
    raw.unlink()
    side = {
        "log": args.log.name,
        "log_sha256": sha256(args.log),
        "page_sha256": page_digest(),
        "fragment": fragment,
        "decision": k + 1,
        "seat": seat,
        "png_sha256": sha256(args.out),
    }
    sidecar_path(args.out).write_text(json.dumps(side, indent=1) + "\n")
    print(f"{args.out}: {args.out.stat().st_size // 1024} kB, decision {k + 1} of seat {seat}")


if __name__ == "__main__":
    main()
