"""Take the README's screenshot of `lastwill view` (docs/img/viewer.png) with headless Chromium.

    python docs/viewer_screenshot.py            # needs .[view,browser] and /usr/bin/chromium

It serves the shipped log on 127.0.0.1, opens game 0 at decision 230 as the policy's seat
sees it, and saves a palette PNG (to keep the file small).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.viewer import EXAMPLES_DIR
from agents.viewer.server import BackgroundServer, create_app

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/img/viewer.png"))
    ap.add_argument("--log", type=Path, default=EXAMPLES_DIR / "reference_vs_bots.jsonl")
    ap.add_argument("--fragment", default="log=1&game=0&k=230&seat=0")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1000)
    ap.add_argument("--colors", type=int, default=64, help="palette size of the PNG")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    app = create_app(args.log, save_dir="/tmp/lastwill-view-shot")
    with BackgroundServer(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto(f"{url}#{args.fragment}")
        page.wait_for_selector("[data-testid=policy-row]")
        page.wait_for_timeout(300)
        raw = args.out.with_suffix(".raw.png")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(raw))
        browser.close()

    from PIL import Image

    with Image.open(raw) as im:
        im.convert("RGB").quantize(colors=args.colors).save(args.out, optimize=True)
    raw.unlink()
    print(f"{args.out}: {args.out.stat().st_size // 1024} kB")


if __name__ == "__main__":
    main()
