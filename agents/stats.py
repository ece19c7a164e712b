"""Tournament statistics over arena match-log rows (see :mod:`agents.arena`).

Pure functions over the JSONL rows of a match log; nothing here plays games.

- :func:`wilson_interval`: Wilson score interval of a win rate. With ``n == 0`` there is no
  information and it returns ``(0.0, 1.0)`` (documented choice, not an error).
- :func:`summarize`: per entrant spec: games, wins, win rate with its Wilson 95% interval beside
  the chance rate 1/N, mean rank, per-seat win rates, and errors caused.
- :func:`seat_stats`: per seat (all specs together): how much the seat itself is worth.
- :func:`openskill_ratings`: OpenSkill Plackett-Luce ratings fitted over the whole log.
- :func:`paired_comparison`: is entrant A better than B on the same deals? The difference in
  win rate (or mean rank) with a paired bootstrap interval over deals, McNemar's exact test for
  two-player games, and the verdict in words; :func:`paired_comparisons` for every pair. Below
  :data:`MIN_DEALS` deals, or when every deal gave the same difference, the result carries a
  ``warning``: the bootstrap interval is then too narrow to trust. :func:`paired_table` flattens
  the results into CSV-ready rows.
- :func:`to_frame`: rows (game rows, or the dicts of :func:`summarize`) as a pandas DataFrame
  (pandas is the optional extra ``frames``: ``pip install -e ".[frames]"``).

Counting conventions:

- A spec seated twice at one table counts as two seat-games (one per seat); each seat wins
  or not on its own. The chance rate of a seat-game is 1/N, so "win rate vs chance" stays fair.
- Error rows (a bot crashed or played an illegal move) have no ranks: they count for nobody's
  games, wins or ratings; ``errors`` counts them against the spec that caused them.
- Ratings: one rating per distinct spec. Each seat is a team of one holding its spec's current
  rating; after ``model.rate`` a spec seated several times at one table takes the **average**
  of its seats' new ``mu`` and ``sigma`` (so a self-play game moves it only by the net result).
  Games are processed in game-index order. Ratings are anchored by shifting every ``mu`` so the
  anchor spec (default ``random``; a display name ``@label`` names its entrant too) has ordinal
  (mu - 3 sigma) 0; without the anchor in the log, nothing is shifted and ``anchor`` is reported
  as ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .registry import display_name


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


def anchor_spec(anchor: str, specs: Iterable[str]) -> str | None:
    """The spec among `specs` that `anchor` names: the spec itself, or the one spec whose
    display name it is; None when it names none of them."""
    specs = list(dict.fromkeys(specs))
    if anchor in specs:
        return anchor
    named = [spec for spec in specs if display_name(spec) == anchor]
    return named[0] if len(named) == 1 else None


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
    if anchor is not None:
        anchor = anchor_spec(anchor, ratings) or anchor
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
    names = [_short(display_name(s["spec"])) for s in entries]
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


def _short(name: str, width: int = 28) -> str:
    """A long spec (a checkpoint path) shortened for a chart axis: its head and its tail."""
    if len(name) <= width:
        return name
    keep = width - 3
    return name[: keep // 3] + "..." + name[-(keep - keep // 3) :]


# ---------------------------------------------------------------------------------------------
# Paired comparison of two entrants over the same deals


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs: twice the smaller
    tail of Binomial(b + c, 1/2), at most 1. ``b == c == 0`` gives 1.0 (no evidence)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / (1 << n))


_METRICS = ("win_rate", "mean_rank")

MIN_DEALS = 30
"""Fewest deals whose paired bootstrap interval is trusted without a warning."""


def _seat_scores(row: dict[str, Any], spec: str, metric: str) -> list[float]:
    seats = [i for i, s in enumerate(row["seating"]) if s == spec]
    if metric == "win_rate":
        return [1.0 if row["winner"] == i else 0.0 for i in seats]
    return [float(row["ranks"][i]) for i in seats]


def _deal_key(row: dict[str, Any]) -> Any:
    return row.get("deal_seed", row.get("deal"))


def paired_comparison(
    rows: Iterable[dict[str, Any]],
    a: str,
    b: str,
    *,
    rows_b: Iterable[dict[str, Any]] | None = None,
    metric: str = "win_rate",
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Compare entrants ``a`` and ``b`` on the same deals.

    One log (``rows_b`` is None): the games where both sit (an arena table). Two logs: ``rows``
    holds ``a``'s games and ``rows_b`` ``b``'s, played on the same schedule (the same seed and
    opponents, ``b`` in ``a``'s place); game ``g`` of one is paired with game ``g`` of the other
    when their deal seeds match.

    The unit is the deal: per deal, each entrant's mean over its seat-games there (a win is 1,
    or the rank with ``metric="mean_rank"``); ``diff`` is the mean over deals of ``a - b``, and
    the interval the percentile interval of ``resamples`` paired bootstrap resamples of the
    deals (seeded, so the same rows give the same interval). Error rows are left out.

    McNemar's exact test is added where its pairs are independent: two-player games of one log
    (on each deal the game with ``a`` in seat 0 is paired with the game with ``b`` in seat 0,
    so the discordant pairs are the deals one entrant won in both seatings), and the paired
    games of two logs.

    Returns ``a``, ``b``, ``metric``, ``deals``, ``games``, ``a_value``, ``b_value``, ``diff``,
    ``ci_lo``, ``ci_hi``, ``level``, ``resamples``, ``seed``, ``better`` (the better entrant
    when the interval excludes 0, else None), ``mcnemar`` (``{"a_only", "b_only", "p"}`` or
    None), ``warning`` (None, or why the interval is not to be trusted: fewer than
    :data:`MIN_DEALS` deals, or every deal gave the same difference, so the resamples cannot
    vary) and ``verdict`` (a sentence, ending with the warning when there is one).
    """
    if metric not in _METRICS:
        raise ValueError(f"metric={metric!r} is not allowed; choose one of {list(_METRICS)}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level!r} must be between 0 and 1")
    if a == b and rows_b is None:
        raise ValueError(f"compare two different entrants, not {a!r} with itself")
    per_deal: dict[Any, list[list[float]]] = {}  # deal -> [a scores, b scores]
    pairs: list[tuple[bool, bool]] = []  # McNemar pairs (a won, b won)
    games = 0
    if rows_b is None:
        mine = [r for r in game_rows(rows) if _ok(r) and a in r["seating"] and b in r["seating"]]
        two = bool(mine) and all(len(r["seating"]) == 2 for r in mine)
        by_deal: dict[Any, list[dict[str, Any]]] = {}
        for r in mine:
            games += 1
            d = per_deal.setdefault(_deal_key(r), [[], []])
            d[0] += _seat_scores(r, a, metric)
            d[1] += _seat_scores(r, b, metric)
            by_deal.setdefault(_deal_key(r), []).append(r)
        if two:
            for deal_games in by_deal.values():
                first_a = [r for r in deal_games if r["seating"][0] == a]
                first_b = [r for r in deal_games if r["seating"][0] == b]
                if first_a and first_b:
                    pairs.append((first_a[0]["winner"] == 0, first_b[0]["winner"] == 0))
    else:
        other = {r.get("game"): r for r in game_rows(rows_b)}
        for r in game_rows(rows):
            q = other.get(r.get("game"))
            if q is None or _deal_key(q) != _deal_key(r) or not (_ok(r) and _ok(q)):
                continue
            if a not in r["seating"] or b not in q["seating"]:
                continue
            games += 1
            d = per_deal.setdefault(_deal_key(r), [[], []])
            d[0] += _seat_scores(r, a, metric)
            d[1] += _seat_scores(q, b, metric)
            won_a = any(r["winner"] == i for i, s in enumerate(r["seating"]) if s == a)
            won_b = any(q["winner"] == i for i, s in enumerate(q["seating"]) if s == b)
            pairs.append((won_a, won_b))
    diffs = [sum(x) / len(x) - sum(y) / len(y) for x, y in per_deal.values() if x and y]
    out: dict[str, Any] = {
        "a": a,
        "b": b,
        "metric": metric,
        "deals": len(diffs),
        "games": games,
        "level": level,
        "resamples": resamples,
        "seed": seed,
    }
    if not diffs:
        out.update(a_value=None, b_value=None, diff=None, ci_lo=None, ci_hi=None, better=None)
        out["mcnemar"] = None
        out["warning"] = None
        out["verdict"] = f"no games where both {a} and {b} were scored"
        return out
    a_vals = [sum(x) / len(x) for x, y in per_deal.values() if x and y]
    out["a_value"] = sum(a_vals) / len(a_vals)
    out["b_value"] = out["a_value"] - sum(diffs) / len(diffs)
    out["diff"] = sum(diffs) / len(diffs)
    out["ci_lo"], out["ci_hi"] = _bootstrap(diffs, level, resamples, seed)
    lower_is_better = metric == "mean_rank"
    better = None
    if out["ci_lo"] > 0:
        better = b if lower_is_better else a
    elif out["ci_hi"] < 0:
        better = a if lower_is_better else b
    out["better"] = better
    if pairs:
        a_only = sum(1 for x, y in pairs if x and not y)
        b_only = sum(1 for x, y in pairs if y and not x)
        out["mcnemar"] = {"a_only": a_only, "b_only": b_only, "p": mcnemar_exact(a_only, b_only)}
    else:
        out["mcnemar"] = None
    out["warning"] = _small_sample_warning(diffs, metric)
    out["verdict"] = _verdict(out)
    return out


def _small_sample_warning(diffs: list[float], metric: str) -> str | None:
    """Why a paired bootstrap interval over these per-deal differences is not to be trusted,
    or None: too few deals, or no spread between them (every resample has the same mean)."""
    reasons = []
    if len(diffs) < MIN_DEALS:
        reasons.append(
            f"only {len(diffs)} deals (fewer than {MIN_DEALS}): the bootstrap interval is too "
            f"narrow to trust; play more deals"
        )
    if len(set(diffs)) == 1:
        d = diffs[0]
        shown = f"{100 * d:+.1f} points" if metric == "win_rate" else f"{d:+.2f} in rank"
        reasons.append(
            f"every deal gave the same difference ({shown}), so the interval has no width and "
            f"says nothing about other deals"
        )
    return "; ".join(reasons) or None


def _bootstrap(diffs: list[float], level: float, resamples: int, seed: int) -> tuple[float, float]:
    """Percentile interval of the mean of ``diffs`` over deal resamples (numpy, seeded)."""
    import numpy as np

    x = np.asarray(diffs, dtype=float)
    if len(x) == 1 or resamples < 1:
        return float(x.mean()), float(x.mean())
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // len(x))  # bounded memory for long logs
    for i in range(0, resamples, chunk):
        k = min(chunk, resamples - i)
        means[i : i + k] = x[rng.integers(0, len(x), size=(k, len(x)))].mean(axis=1)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _verdict(r: dict[str, Any]) -> str:
    a, b = display_name(r["a"]), display_name(r["b"])
    pct = f"{r['level']:.0%}"
    if r["metric"] == "win_rate":
        diff = f"{100 * r['diff']:+.1f} points of win rate"
        ci = f"{pct} CI {100 * r['ci_lo']:+.1f} to {100 * r['ci_hi']:+.1f}"
    else:
        diff = f"{r['diff']:+.2f} in mean rank"
        ci = f"{pct} CI {r['ci_lo']:+.2f} to {r['ci_hi']:+.2f}"
    basis = f"paired bootstrap over {r['deals']} deals"
    if r["better"] is None:
        text = f"no clear difference between {a} and {b}: {diff} ({ci}, {basis}; it includes 0)"
    else:
        winner = display_name(r["better"])
        loser = b if r["better"] == r["a"] else a
        text = (
            f"{winner} is better than {loser} on the same deals: {a} - {b} = {diff} ({ci}, {basis})"
        )
    m = r["mcnemar"]
    if m is not None:
        text += (
            f"; McNemar exact p = {m['p']:.3g} ({m['a_only']} pairs won by {a} only, "
            f"{m['b_only']} by {b} only)"
        )
    if r.get("warning"):
        text += f"; warning: {r['warning']}"
    return text


def paired_comparisons(
    rows: Iterable[dict[str, Any]], metric: str = "win_rate", **kwargs: Any
) -> list[dict[str, Any]]:
    """:func:`paired_comparison` for every pair of distinct entrants of one log, in order of
    first appearance."""
    rows = game_rows(rows)
    specs = list(dict.fromkeys(spec for r in rows for spec in r["seating"]))
    return [
        paired_comparison(rows, a, b, metric=metric, **kwargs)
        for i, a in enumerate(specs)
        for b in specs[i + 1 :]
    ]


PAIRED_COLUMNS = (
    "a",
    "b",
    "a_name",
    "b_name",
    "metric",
    "deals",
    "games",
    "a_value",
    "b_value",
    "diff",
    "ci_lo",
    "ci_hi",
    "level",
    "better",
    "mcnemar_a_only",
    "mcnemar_b_only",
    "mcnemar_p",
    "warning",
    "verdict",
)
"""Columns of :func:`paired_table`, in order."""


def paired_table(paired: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results of :func:`paired_comparison` as flat rows with the keys of
    :data:`PAIRED_COLUMNS` (the McNemar test spread over three columns, None where there is
    none; display names beside the specs): one CSV or DataFrame row per pair."""
    out = []
    for r in paired:
        m = r.get("mcnemar") or {}
        row = {key: r.get(key) for key in PAIRED_COLUMNS}
        row.update(
            a_name=display_name(r["a"]),
            b_name=display_name(r["b"]),
            mcnemar_a_only=m.get("a_only"),
            mcnemar_b_only=m.get("b_only"),
            mcnemar_p=m.get("p"),
        )
        out.append(row)
    return out


# ---------------------------------------------------------------------------------------------
# DataFrames (optional: pandas)


def _pandas():
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError(
            'to_frame needs pandas, the optional extra "frames": pip install -e ".[frames]"'
        ) from e
    return pd


def to_frame(rows: Iterable[dict[str, Any]]):
    """Rows as a pandas DataFrame.

    Game rows of an arena log (header lines are dropped) become one row per seat-game: ``game``,
    ``deal``, ``deal_seed``, ``table`` (when the rows carry one), ``num_players``, ``seat``,
    ``spec``, ``name`` (the display name), ``won``, ``rank``, ``money``, ``property_value``,
    ``total``, ``rounds``, ``decisions``, ``error`` (the error message of an error row, whose
    ``won`` and ``rank`` are missing). Any other dicts (the output of :func:`summarize`,
    :func:`seat_stats`, :func:`paired_comparisons`) become one DataFrame row each.
    """
    pd = _pandas()
    rows = [r for r in rows if r.get("type") != "header"]
    if not rows or not all("seating" in r and "winner" in r for r in rows):
        return pd.DataFrame(rows)

    def at(r: dict[str, Any], key: str, seat: int) -> Any:
        values = r.get(key)
        return values[seat] if ok and values is not None else None

    out = []
    for r in game_rows(rows):
        ok = _ok(r)
        err = r.get("error") or {}
        for seat, spec in enumerate(r["seating"]):
            out.append(
                {
                    "game": r.get("game"),
                    "deal": r.get("deal"),
                    "deal_seed": r.get("deal_seed"),
                    **({"table": r["table"]} if "table" in r else {}),
                    "num_players": len(r["seating"]),
                    "seat": seat,
                    "spec": spec,
                    "name": display_name(spec),
                    "won": (r["winner"] == seat) if ok else None,
                    "rank": r["ranks"][seat] if ok else None,
                    "money": at(r, "money", seat),
                    "property_value": at(r, "property_value", seat),
                    "total": at(r, "totals", seat),
                    "rounds": r.get("rounds"),
                    "decisions": r.get("decisions"),
                    "error": err.get("message"),
                }
            )
    frame = pd.DataFrame(out)
    for col in ("won",):
        frame[col] = frame[col].astype("boolean")
    for col in ("rank", "money", "property_value", "total"):
        frame[col] = frame[col].astype("Int64")
    return frame
