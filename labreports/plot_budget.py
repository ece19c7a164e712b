"""Draw the from-scratch policies' strength against the CPU time of their training.

    python -m labreports.plot_budget docs/img/scratch_budget.png

Reads the result files `docs/results/scratch_*.json` (the section "From scratch: strength after
a CPU budget" of docs/RESULTS.md): each holds a checkpoint's tables (alone against n-1 copies of
each bot, test deals) and its "budget" (recipe, steps, CPU minutes). One panel per player count,
one line per recipe and bot, CPU-hours on a log scale, chance dashed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from labreports.results_doc import BUDGET_BOTS as BOTS
from labreports.results_doc import BUDGET_COUNTS as COUNTS
from labreports.results_doc import RESULTS


def points(docs: list[dict]) -> dict[tuple[str, int, str], list[tuple[float, float]]]:
    """(recipe, players, bot) -> [(CPU hours, win rate)], in order of CPU time."""
    out: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    for d in sorted(docs, key=lambda d: d["budget"]["cpu_minutes"]):
        recipe = d["budget"]["recipe"].split()[0]
        hours = d["budget"]["cpu_minutes"] / 60
        for t in d["output"]["tables"]:
            bot = t["table"].removeprefix("vs_")
            if t["num_players"] in COUNTS and bot in BOTS:
                out.setdefault((recipe, t["num_players"], bot), []).append((hours, t["win_rate"]))
    return out


def plot(docs: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, axes = plt.subplots(1, len(COUNTS), figsize=(10, 3.8), sharey=True)
    colours = dict(zip(BOTS, ("tab:green", "tab:blue", "tab:red", "tab:purple"), strict=True))
    styles = {}
    for (recipe, n, bot), xy in sorted(points(docs).items()):
        ax = axes[COUNTS.index(n)]
        style = styles.setdefault(recipe, ("-o", "--s", ":^")[len(styles) % 3])
        ax.plot(*zip(*xy, strict=True), style, color=colours[bot], ms=4, label=f"{recipe} vs {bot}")
    for ax, n in zip(axes, COUNTS, strict=True):
        ax.axhline(1 / n, color="grey", lw=1, ls="--")
        ax.set(xscale="log", ylim=(0, 1), xlabel="training CPU-hours (one core)")
        copies = "1 copy" if n == 2 else f"{n - 1} copies"
        ax.set_title(f"{n} players: alone vs {copies} of each bot", fontsize=10)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate, 1,000 test games")
    axes[-1].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=100, format="png", metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m labreports.plot_budget OUT.png", file=sys.stderr)
        return 2
    docs = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("scratch_*.json"))]
    if not docs:
        print(f"error: no scratch_*.json result in {RESULTS}", file=sys.stderr)
        return 2
    plot(docs, Path(argv[0]))
    print(f"wrote {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
