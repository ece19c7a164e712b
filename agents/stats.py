"""Tournament statistics over arena match-log rows (see :mod:`agents.arena`).

Pure functions over the JSONL rows of a match log; nothing here plays games.

- :func:`wilson_interval`: Wilson score interval of a win rate. With ``n == 0`` there is no
  information and it returns ``(0.0, 1.0)`` (documented choice, not an error).
- :func:`summarize`: per entrant spec: games, wins, win rate with its Wilson 95% interval beside
  the chance rate 1/N, mean rank, per-seat win rates, and errors caused.
- :func:`seat_stats`: per seat (all specs together): how much the seat itself is worth.
- :func:`fit_ratings`: order-free ratings, one Plackett-Luce maximum-likelihood fit over every
  game's ranking, on the Elo scale, with a bootstrap over deals for their uncertainty: the
  lab's one rating (the arena's, `lastwill eval`'s, the bot ladder's, and training's
  ``rating/elo``).
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
- Shared first places (a game whose rules leave a tie, such as Money!'s): a first place
  shared by ``k`` seats is ``1/k`` of a win for each (`gamecore.win_shares`), so every game
  hands out one win and win rates stay fractions of games; such a row has ``"winner": None``
  and its ranks say who shared. Wins are then fractional counts, and the Wilson interval reads
  them as they are. A game with a single winner counts as before.
- Error rows (a bot crashed or played an illegal move) have no ranks: they count for nobody's
  games, wins or ratings; ``errors`` counts them against the spec that caused them.
- Ratings: one rating per distinct spec; the anchor (default ``random``; a display name
  ``@label`` names its entrant too) is pinned to 0, and ``anchor`` is reported as ``None`` when
  it has no scored game in the log.
- :func:`fit_ratings`: each game's ranking is a Plackett-Luce ranking of its seats, best first
  (each place chosen from the seats still unplaced with chances proportional to their
  strengths); a spec seated several times at one table has one strength for all its seats;
  tied seats are placed together from the same remaining seats (Breslow). The log-strengths
  maximise the likelihood of all the games at once, so their order does not matter, with a
  weak prior (one win and one loss per spec against a fixed player of strength 1) that keeps
  a spec that won every game finite. A rating is ``400 * log10(strength)``: ``d`` points
  apart, the better of two wins a 2-player game with chance ``1 / (1 + 10 ** (-d / 400))``.
  Without the anchor the ratings are centred (mean 0). ``se`` and the interval come from
  resampling deals (all the games of a deal together), seeded: the same rows give the same
  ratings and intervals. Unlike ratings updated game by game, whose last games weigh most (so
  a 57% winner whose wins came first can end below its opponent), nothing depends on the
  games' order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from gamecore.results import win_shares

from .registry import display_name


def seat_win(row: dict[str, Any], seat: int) -> int | float:
    """``seat``'s win in a scored row: 1 or 0, or ``1/k`` of a first place shared by ``k``."""
    winner = row["winner"]
    if winner is not None:
        return int(winner == seat)
    return win_shares(row["ranks"])[seat]


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
            won = seat_win(row, seat)
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
            wins[seat] += seat_win(row, seat)
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


# ---------------------------------------------------------------------------------------------
# Order-free ratings: a batch Plackett-Luce fit over every game's ranking

RATING_SCALE = 400 / math.log(10)
"""Rating points per unit of log-strength: the Elo scale, so ``d`` points mean a 2-player win
chance of ``1 / (1 + 10 ** (-d / 400))`` (57% is about 49 points)."""

RATING_RESAMPLES = 200
"""Deal resamples of the ratings' bootstrap by default."""

_FIT_TOL = 1e-10  # largest change of a log-strength at which the fit stops
_FIT_MAX_ITER = 200


def _stages(seating: list[str], ranks: list[int]) -> list[tuple[tuple, tuple]]:
    """A ranking as Plackett-Luce choices: for each rank, best first, the seats still in (the
    risk set) and the seats placed there (more than one when tied), each as sorted ``(spec,
    seats)`` pairs. A stage whose risk set holds one spec tells nothing and is left out."""
    out = []
    for r in sorted(set(ranks)):
        risk = Counter(s for s, x in zip(seating, ranks, strict=True) if x >= r)
        if len(risk) < 2:
            continue
        chosen = Counter(s for s, x in zip(seating, ranks, strict=True) if x == r)
        out.append((tuple(sorted(risk.items())), tuple(sorted(chosen.items()))))
    return out


def _rating_data(rows: Iterable[dict[str, Any]]):
    """What the fit needs: the scored seat-games of every spec seated in the log, and per deal
    the count of each choice (:func:`_stages`)."""
    games: dict[str, int] = {}
    units: dict[str, Counter] = {}
    for i, row in enumerate(game_rows(rows)):
        for spec in row["seating"]:
            games.setdefault(spec, 0)
        if not _ok(row):
            continue
        for spec in row["seating"]:
            games[spec] += 1
        key = _deal_key(row)
        unit = repr(key) if key is not None else f"game {row.get('game', i)}"
        units.setdefault(unit, Counter()).update(_stages(row["seating"], list(row["ranks"])))
    return games, units


def _rating_arrays(specs: list[str], units: dict[str, Counter]):
    """The choices as arrays: ``m`` and ``c`` (choice x spec: seats in the risk set, seats
    placed) and ``counts`` (deal x choice: how often), in sorted order so that the float sums
    do not depend on the order of the games."""
    import numpy as np

    col = {s: j for j, s in enumerate(specs)}
    kinds = sorted({k for c in units.values() for k in c})
    m = np.zeros((len(kinds), len(specs)))
    c = np.zeros((len(kinds), len(specs)))
    for i, (risk, chosen) in enumerate(kinds):
        for spec, n in risk:
            m[i, col[spec]] = n
        for spec, n in chosen:
            c[i, col[spec]] = n
    at = {k: i for i, k in enumerate(kinds)}
    counts = np.zeros((len(units), len(kinds)))
    for u, unit in enumerate(sorted(units)):
        for k, n in units[unit].items():
            counts[u, at[k]] = n
    return m, c, counts


def _pl_loglik(m, c, k, w, theta):
    """Per row of ``theta``: the penalised log-likelihood (:func:`_pl_fit`) and, for each
    choice, the chance of each spec's seats (choice x spec)."""
    import numpy as np

    top = theta.max(axis=1, keepdims=True)
    a = np.exp(theta - top)
    total = a @ m.T  # row x choice: the risk set's strength (scaled by exp(top))
    ll = (w * (theta @ c.T - k * (np.log(total) + top))).sum(axis=1)
    ll += (theta - 2.0 * np.logaddexp(0.0, theta)).sum(axis=1)
    return ll, m[None] * a[:, None, :] / total[:, :, None]


def _pl_fit(m, c, w, start):
    """Log-strengths maximising the Plackett-Luce likelihood of the choices weighted by ``w``
    (one row of weights per fit; ties as Breslow: the tied seats are chosen together from the
    same risk set), from the log-strengths ``start``. Each spec is also credited one win and
    one loss against a fixed player of log-strength 0: a weak prior that keeps a player that
    won every game finite and makes the likelihood strictly concave, so Newton's method with
    step halving (each step must not lower it) finds its one maximum."""
    import numpy as np

    k = c.sum(axis=1)
    wk = w * k
    theta = np.array(start, dtype=float)
    eye = np.eye(theta.shape[1])
    ll, pi = _pl_loglik(m, c, k, w, theta)
    for _ in range(_FIT_MAX_ITER):
        sig = 0.5 * (1.0 + np.tanh(theta / 2))  # the prior's win chance
        share = np.einsum("bp,bpe->be", wk, pi)
        grad = w @ c - share + 1.0 - 2.0 * sig
        info = np.einsum("bp,bpe,bpf->bef", -wk, pi, pi)
        info += eye * (share + 2.0 * sig * (1.0 - sig))[:, None, :]
        step = np.linalg.solve(info, grad[..., None])[..., 0]
        t = np.ones((len(theta), 1))
        for _ in range(60):
            new_ll, new_pi = _pl_loglik(m, c, k, w, theta + t * step)
            worse = new_ll < ll - 1e-12 * np.abs(ll)
            if not worse.any():
                break
            t[worse] /= 2
        theta = theta + t * step
        ll, pi = new_ll, new_pi
        if np.abs(t * step).max() < _FIT_TOL:
            break
    return theta


def _anchored(theta, at: int | None):
    """Log-strengths on the rating scale, pinned so the anchor (a column) is 0, else centred."""
    r = RATING_SCALE * theta
    base = r[..., at] if at is not None else r.mean(axis=-1)
    return r - base[..., None]


def fit_ratings(
    rows: Iterable[dict[str, Any]],
    anchor: str | None = "random",
    *,
    resamples: int = RATING_RESAMPLES,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Order-free ratings: one Plackett-Luce fit over every game's full ranking (module
    docstring: conventions), on the Elo scale (:data:`RATING_SCALE`).

    The same games in any order give the same ratings. Uncertainty: ``resamples`` bootstrap
    resamples of the deals (the games of a deal go together, as in :func:`paired_comparison`),
    seeded by ``seed``, each fitted again: ``se`` is their standard deviation and ``ci_lo`` /
    ``ci_hi`` their percentile interval at ``level``, all relative to the anchor (whose ``se``
    is 0) or, without one, to the mean. With ``resamples=0`` or fewer than two deals they are
    None.

    Returns ``{"model", "scale", "anchor" (spec or None), "deals", "level", "resamples",
    "seed", "ratings": {spec: {"rating", "se", "ci_lo", "ci_hi", "games"}}}``, best first; a
    spec with no scored game has ``rating`` None and comes last.
    """
    import numpy as np

    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level!r} must be between 0 and 1")
    games, units = _rating_data(rows)
    specs = sorted(s for s, n in games.items() if n)
    used = anchor_spec(anchor, specs) if anchor is not None else None
    at = specs.index(used) if used is not None else None
    table: dict[str, dict[str, Any]] = {
        s: {"rating": None, "se": None, "ci_lo": None, "ci_hi": None, "games": games[s]}
        for s in games
    }
    if specs:
        m, c, counts = _rating_arrays(specs, units)
        theta = _pl_fit(m, c, counts.sum(axis=0)[None, :], np.zeros((1, len(specs))))
        rating = _anchored(theta, at)[0]
        spread = _rating_bootstrap(m, c, counts, theta, at, resamples, level, seed)
        for j, s in enumerate(specs):
            table[s]["rating"] = float(rating[j])
            if spread is not None:
                se, lo, hi = (float(x) for x in spread[:, j])
                table[s].update(se=se, ci_lo=lo, ci_hi=hi)
    ordered = sorted(
        table.items(), key=lambda kv: (kv[1]["rating"] is None, -(kv[1]["rating"] or 0), kv[0])
    )
    return {
        "model": "Plackett-Luce maximum likelihood (order-free)",
        "scale": "Elo",
        "anchor": used,
        "deals": len(units),
        "level": level,
        "resamples": resamples,
        "seed": seed,
        "ratings": dict(ordered),
    }


def _rating_bootstrap(m, c, counts, theta, at, resamples: int, level: float, seed: int):
    """Rows ``se``, ``ci_lo``, ``ci_hi`` (per spec) of the ratings over deal resamples, or None
    with fewer than two deals or no resamples."""
    import numpy as np

    deals = counts.shape[0]
    if deals < 2 or resamples < 1:
        return None
    rng = np.random.default_rng(seed)
    fits = []
    chunk = max(1, 2_000_000 // deals)  # bounded memory for long logs
    for i in range(0, resamples, chunk):
        draws = rng.multinomial(deals, np.full(deals, 1.0 / deals), size=min(chunk, resamples - i))
        w = draws @ counts
        fits.append(_anchored(_pl_fit(m, c, w, np.repeat(theta, len(w), axis=0)), at))
    r = np.concatenate(fits)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(r, [alpha, 1.0 - alpha], axis=0)
    se = r.std(axis=0, ddof=1) if len(r) > 1 else np.zeros(r.shape[1])
    return np.stack([se, lo, hi])


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
        return [float(seat_win(row, i)) for i in seats]
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
    if rows_b is None:
        per_deal, pairs, games = _pair_one_log(rows, a, b, metric)
    else:
        per_deal, pairs, games = _pair_two_logs(rows, rows_b, a, b, metric)
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
    out["better"] = _better(out["ci_lo"], out["ci_hi"], a, b, metric)
    out["mcnemar"] = _mcnemar(pairs)
    out["warning"] = _small_sample_warning(diffs, metric)
    out["verdict"] = _verdict(out)
    return out


_PerDeal = dict[Any, list[list[float]]]  # deal -> [a's scores, b's scores]
_Pairs = list[tuple[bool, bool]]  # McNemar pairs (a won, b won)


def _pair_one_log(
    rows: Iterable[dict[str, Any]], a: str, b: str, metric: str
) -> tuple[_PerDeal, _Pairs, int]:
    """:func:`paired_comparison` of one log: the per-deal scores of ``a`` and ``b`` over the
    games where both sit, the McNemar pairs (two-player games only: on each deal, the game
    with ``a`` in seat 0 beside the game with ``b`` in seat 0) and the number of games."""
    per_deal: _PerDeal = {}
    pairs: _Pairs = []
    games = 0
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
                pairs.append((seat_win(first_a[0], 0) == 1, seat_win(first_b[0], 0) == 1))
    return per_deal, pairs, games


def _pair_two_logs(
    rows: Iterable[dict[str, Any]], rows_b: Iterable[dict[str, Any]], a: str, b: str, metric: str
) -> tuple[_PerDeal, _Pairs, int]:
    """:func:`paired_comparison` of two logs: game ``g`` of ``rows`` (``a``'s) paired with game
    ``g`` of ``rows_b`` (``b``'s) when their deal seeds match; the per-deal scores, the
    McNemar pairs (one per paired game) and the number of paired games."""
    per_deal: _PerDeal = {}
    pairs: _Pairs = []
    games = 0
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
        won_a = any(seat_win(r, i) == 1 for i, s in enumerate(r["seating"]) if s == a)
        won_b = any(seat_win(q, i) == 1 for i, s in enumerate(q["seating"]) if s == b)
        pairs.append((won_a, won_b))
    return per_deal, pairs, games


def _better(ci_lo: float, ci_hi: float, a: str, b: str, metric: str) -> str | None:
    """The better entrant when the interval of ``a - b`` excludes 0 (lower is better for
    ``mean_rank``), else None."""
    lower_is_better = metric == "mean_rank"
    if ci_lo > 0:
        return b if lower_is_better else a
    if ci_hi < 0:
        return a if lower_is_better else b
    return None


def _mcnemar(pairs: _Pairs) -> dict[str, Any] | None:
    """McNemar's exact test over the (a won, b won) ``pairs``, or None without pairs."""
    if not pairs:
        return None
    a_only = sum(1 for x, y in pairs if x and not y)
    b_only = sum(1 for x, y in pairs if y and not x)
    return {"a_only": a_only, "b_only": b_only, "p": mcnemar_exact(a_only, b_only)}


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
    ``spec``, ``name`` (the display name), ``won`` (first place, alone or shared), ``rank``,
    ``money``, ``property_value``, ``total`` (Last Will's; empty for another game), ``rounds``,
    ``decisions``, ``error`` (the error message of an error row, whose ``won`` and ``rank`` are
    missing). Any other dicts (the output of :func:`summarize`,
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
                    "won": (r["ranks"][seat] == 1) if ok else None,  # a shared first too
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
