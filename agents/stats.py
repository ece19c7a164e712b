"""Tournament statistics over arena match-log rows (see :mod:`agents.arena`).

Pure functions over the JSONL rows of a match log; nothing here plays games.

- :func:`wilson_interval`: Wilson score interval of a win rate. With ``n == 0`` there is no
  information and it returns ``(0.0, 1.0)`` (documented choice, not an error).
- :func:`summarize`: per entrant spec: games, wins, win rate with its Wilson 95% interval beside
  the chance rate 1/N, mean rank, per-seat win rates, and errors caused.
- :func:`seat_stats`: per seat (all specs together): how much the seat itself is worth.
- :func:`openskill_ratings`: OpenSkill Plackett-Luce ratings fitted over the whole log.

Counting conventions:

- A spec seated twice at one table counts as two seat-games (one per seat); each seat wins
  or not on its own. The chance rate of a seat-game is 1/N, so "win rate vs chance" stays fair.
- Error rows (a bot crashed or played an illegal move) have no ranks: they count for nobody's
  games, wins or ratings; ``errors`` counts them against the spec that caused them.
- Ratings: one rating per distinct spec. Each seat is a team of one holding its spec's current
  rating; after ``model.rate`` a spec seated several times at one table takes the **average**
  of its seats' new ``mu`` and ``sigma`` (so a self-play game moves it only by the net result).
  Games are processed in game-index order. Ratings are anchored by shifting every ``mu`` so the
  anchor spec (default ``random``) has ordinal (mu - 3 sigma) 0; without the anchor in the log,
  nothing is shifted and ``anchor`` is reported as ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``wins`` successes out of ``n`` (z=1.96: 95%).

    ``n == 0`` returns ``(0.0, 1.0)``: no games, no information.
    """
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def game_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game rows of a log (header lines dropped), sorted by game index."""
    out = [r for r in rows if r.get("type", "game") == "game"]
    out.sort(key=lambda r: r.get("game", 0))
    return out


def _ok(row: dict[str, Any]) -> bool:
    return row.get("error") is None and row.get("ranks") is not None


def summarize(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One dict per distinct spec, in order of first appearance in the log."""
    stats: dict[str, dict[str, Any]] = {}

    def entry(spec: str, n: int) -> dict[str, Any]:
        e = stats.get(spec)
        if e is None:
            e = stats[spec] = {
                "spec": spec,
                "games": 0,
                "wins": 0,
                "_chance": 0.0,
                "_rank": 0,
                "_seat_games": [0] * n,
                "_seat_wins": [0] * n,
                "errors": 0,
            }
        if len(e["_seat_games"]) < n:
            grow = n - len(e["_seat_games"])
            e["_seat_games"] += [0] * grow
            e["_seat_wins"] += [0] * grow
        return e

    for row in game_rows(rows):
        seating = row["seating"]
        n = len(seating)
        for spec in seating:
            entry(spec, n)
        if not _ok(row):
            err = row.get("error") or {}
            if err.get("player") in stats:
                stats[err["player"]]["errors"] += 1
            continue
        for seat, spec in enumerate(seating):
            e = stats[spec]
            won = row["winner"] == seat
            e["games"] += 1
            e["wins"] += won
            e["_chance"] += 1.0 / n
            e["_rank"] += row["ranks"][seat]
            e["_seat_games"][seat] += 1
            e["_seat_wins"][seat] += won

    out = []
    for e in stats.values():
        g = e["games"]
        lo, hi = wilson_interval(e["wins"], g)
        out.append(
            {
                "spec": e["spec"],
                "games": g,
                "wins": e["wins"],
                "win_rate": e["wins"] / g if g else None,
                "ci_lo": lo,
                "ci_hi": hi,
                "chance": e["_chance"] / g if g else None,
                "mean_rank": e["_rank"] / g if g else None,
                "seat_games": e["_seat_games"],
                "seat_win_rates": [
                    (w / sg if sg else None)
                    for w, sg in zip(e["_seat_wins"], e["_seat_games"], strict=True)
                ],
                "errors": e["errors"],
            }
        )
    return out


def seat_stats(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Win rate of each seat over all valid games (seat 0 = first seat of the seating)."""
    games: list[int] = []
    wins: list[int] = []
    chance: list[float] = []
    for row in game_rows(rows):
        if not _ok(row):
            continue
        n = len(row["seating"])
        while len(games) < n:
            games.append(0)
            wins.append(0)
            chance.append(0.0)
        for seat in range(n):
            games[seat] += 1
            chance[seat] += 1.0 / n
        wins[row["winner"]] += 1
    out = []
    for seat, (g, w) in enumerate(zip(games, wins, strict=True)):
        lo, hi = wilson_interval(w, g)
        out.append(
            {
                "seat": seat,
                "games": g,
                "wins": w,
                "win_rate": w / g if g else None,
                "ci_lo": lo,
                "ci_hi": hi,
                "chance": chance[seat] / g if g else None,
            }
        )
    return out


def openskill_ratings(
    rows: Iterable[dict[str, Any]], anchor: str | None = "random"
) -> dict[str, Any]:
    """Plackett-Luce ratings over the whole log (module docstring: conventions).

    Returns ``{"model": "PlackettLuce", "anchor": spec or None, "shift": float,
    "ratings": {spec: {"mu", "sigma", "ordinal", "games"}}}`` with ``mu`` and ``ordinal``
    already shifted, sorted by ordinal (best first).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for row in game_rows(rows):
        for spec in row["seating"]:
            if spec not in ratings:
                ratings[spec] = model.rating(name=spec)
                counts[spec] = 0
        if not _ok(row):
            continue
        seating = row["seating"]
        teams = [[ratings[spec]] for spec in seating]
        new = model.rate(teams, ranks=list(row["ranks"]))
        acc: dict[str, list[tuple[float, float]]] = {}
        for spec, team in zip(seating, new, strict=True):
            acc.setdefault(spec, []).append((team[0].mu, team[0].sigma))
        for spec, vals in acc.items():
            r = ratings[spec]
            r.mu = sum(v[0] for v in vals) / len(vals)
            r.sigma = sum(v[1] for v in vals) / len(vals)
            counts[spec] += len(vals)
    shift = 0.0
    used_anchor = None
    if anchor is not None and anchor in ratings:
        shift = -ratings[anchor].ordinal()
        used_anchor = anchor
    table = {
        spec: {
            "mu": r.mu + shift,
            "sigma": r.sigma,
            "ordinal": r.ordinal() + shift,
            "games": counts[spec],
        }
        for spec, r in ratings.items()
    }
    ordered = dict(sorted(table.items(), key=lambda kv: -kv[1]["ordinal"]))
    return {"model": "PlackettLuce", "anchor": used_anchor, "shift": shift, "ratings": ordered}


def plot_win_rates(summary: list[dict[str, Any]], path: str, title: str | None = None) -> None:
    """Bar chart of win rates with Wilson 95% interval bars and the chance line (PNG, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = [s for s in summary if s["games"]]
    names = [s["spec"] for s in entries]
    rates = [s["win_rate"] for s in entries]
    lo = [s["win_rate"] - s["ci_lo"] for s in entries]
    hi = [s["ci_hi"] - s["win_rate"] for s in entries]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(names) + 2), 4))
    try:
        xs = list(range(len(names)))
        ax.bar(xs, rates, color="tab:blue", alpha=0.7)
        ax.errorbar(xs, rates, yerr=[lo, hi], fmt="none", ecolor="black", capsize=5)
        chances = sorted({round(s["chance"], 6) for s in entries})
        for c in chances:
            ax.axhline(c, color="tab:red", linestyle="--", label=f"chance 1/N = {c:.3f}")
        ax.set_xticks(xs, names, rotation=20, ha="right")
        ax.set_ylabel("win rate (Wilson 95% CI)")
        ax.set_ylim(0, 1)
        ax.set_title(title or "Arena win rates")
        if chances:
            ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(path, dpi=100, format="png")
    finally:
        plt.close(fig)
