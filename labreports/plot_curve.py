"""Draw a training run's evaluation curve from its scalars export, as the README shows it.

    python -m labreports.plot_curve notebooks/data/quick_run_scalars.json docs/img/quick_curve.png

The export is `labreports.export_scalars`'s (format `lastwill-scalars/1`). One line per
evaluated bot and player count (`vs_<bot>/eval/win_rate/<n>p`) with its Wilson 95% band
(`..._lo`, `..._hi`), and chance (1/n) dashed. Exit code 2 on an unreadable or foreign file.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_TAG = re.compile(r"^vs_(?P<bot>[^/]+)/eval/win_rate/(?P<n>[2-5])p$")


def curves(doc: dict) -> list[tuple[str, int, list, list, list, list]]:
    """(bot, players, steps, win rates, lows, highs) for every evaluated table."""
    scalars = doc["scalars"]
    out = []
    for tag in sorted(scalars):
        m = _TAG.match(tag)
        if m is None:
            continue
        lo = dict(map(tuple, scalars.get(tag.replace("/win_rate/", "/win_rate_lo/"), [])))
        hi = dict(map(tuple, scalars.get(tag.replace("/win_rate/", "/win_rate_hi/"), [])))
        steps = [s for s, _ in scalars[tag]]
        rates = [v for _, v in scalars[tag]]
        lows = [lo.get(s, v) for s, v in scalars[tag]]
        highs = [hi.get(s, v) for s, v in scalars[tag]]
        out.append((m["bot"], int(m["n"]), steps, rates, lows, highs))
    return out


def plot(doc: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    counts = set()
    for bot, n, steps, rates, lows, highs in curves(doc):
        k = [s / 1000 for s in steps]
        label = bot if len({c[1] for c in curves(doc)}) == 1 else f"{bot}, {n}p"
        (line,) = ax.plot(k, rates, marker="o", ms=3, label=f"vs {label}")
        ax.fill_between(k, lows, highs, color=line.get_color(), alpha=0.15)
        counts.add(n)
    for n in sorted(counts):
        ax.axhline(1 / n, color="grey", ls="--", lw=1, label=f"chance ({n}p)")
    ax.set(xlabel="learner steps (thousands)", ylabel="win rate", ylim=(0, 1))
    ax.set_title(f"{doc.get('run', 'run')}: win rate on validation deals, Wilson 95% bands")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100, format="png", metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m labreports.plot_curve EXPORT.json OUT.png", file=sys.stderr)
        return 2
    src, out = Path(argv[0]), Path(argv[1])
    try:
        doc = json.loads(src.read_text())
        if not isinstance(doc, dict) or doc.get("format") != "lastwill-scalars/1":
            raise ValueError("not a lastwill-scalars/1 export (labreports.export_scalars)")
        if not curves(doc):
            raise ValueError("it holds no vs_<bot>/eval/win_rate/<n>p curve")
    except (OSError, ValueError) as e:
        print(f"error: {src}: {e}", file=sys.stderr)
        return 2
    plot(doc, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
