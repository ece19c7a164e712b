"""Evaluation of a checkpoint during training: the learner against the fixed bot panel.

`evaluate` plays the panel (`agents.evaluate`) at each count of `eval_num_players`, on paired
validation deals (the same deal seeds at every evaluation; test deals are refused, since the
result chooses `best.*`), and sums the tables up as the run loop (`training.runloop`) records
them in `state.json`; `eval_scalars` turns that summary into TensorBoard scalars by sub-run
(`training.tblog`). Every trainer's run loop calls these, and so does expert iteration.

A run of a game other than Last Will is evaluated in its game (`game_name=`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.deals import VALIDATION, for_choosing
from agents.stats import fit_ratings
from gamecore import DEFAULT_GAME

from . import tblog
from .config import TrainConfig
from .progress import TrainProgress
from .seeds import evaluation_seed

__all__ = ["eval_scalars", "evaluate"]


def evaluate(
    checkpoint: Path,
    cfg: TrainConfig,
    step: int,
    out: Path | None = None,
    progress: TrainProgress | None = None,
    deals: str = VALIDATION,
) -> dict[str, Any]:
    """The panel evaluation of a checkpoint (`agents.evaluate`) at each count of
    `eval_num_players`: the learner vs `n-1` copies of each bot, plus a mixed table with
    `random` for the rating anchor. Paired deals (the same at every evaluation), seats rotated.
    `vs` holds the first count's tables, `by_players[n]` every
    count's (its tables, mean win rate and rating over that count's games);
    `mean_win_rate` is the first count's; `score` is the mean win rate over chance
    (n x win rate) across every table, which picks `best.*`; `rating` is over all the games.
    A rating (`rating`, `rating_se`, `rating_lo`, `rating_hi`) is the learner's
    `agents.stats.fit_ratings` (one Plackett-Luce fit on the Elo scale, `random` = 0, the
    bootstrap seeded by the evaluation's seed), None where it scored no game; it is logged,
    never used to choose. `out` (the games as JSONL) is replaced when it exists: a
    re-evaluation at the same step after a resume. It chooses `best.*`, so it plays validation
    deals (`agents.deals`); test deals are refused."""
    from agents.evaluate import evaluate as evaluate_panel

    for_choosing(deals, "training's evaluation")

    counts = cfg.eval_counts()
    me = f"ppo:{checkpoint}"
    if out is not None and out.exists():
        out.unlink()
    hooks = {}
    if progress is not None:
        what = ", ".join(cfg.eval_bots) + f" at {'/'.join(map(str, counts))} players"
        hooks = {
            "on_start": lambda total: progress.eval_start(step, total, what),
            "on_game": lambda row: progress.advance(),
        }
    ev = evaluate_panel(
        me,
        panel=cfg.eval_bots,
        num_players=counts,
        games=cfg.eval_games,
        seed=evaluation_seed(cfg.seed),
        deals=deals,
        anchor="random",
        workers=cfg.eval_workers,
        out=out,
        **hooks,
        # another game is named; Last Will's evaluation is the call it always was
        **({} if cfg.game == DEFAULT_GAME else {"game_name": cfg.game}),
    )
    result: dict[str, Any] = {"step": step, "vs": {}, "by_players": {}}
    result["errors"] = sum(1 for r in ev.rows if (r.get("error") or {}).get("player") == me)
    lifts: list[float] = []
    for n in counts:
        vs: dict[str, Any] = {}
        for table in ev.tables:
            if table.num_players != n or table.name == "mixed":
                continue
            s = ev.table_summary(table)
            vs[table.name[len("vs_") :]] = {
                "win_rate": s["win_rate"] or 0.0,
                "win_rate_lo": s["ci_lo"],
                "win_rate_hi": s["ci_hi"],
                "mean_rank": s["mean_rank"] or float(n),
                "games": s["games"],
            }
            lifts.append(vs[table.name[len("vs_") :]]["win_rate"] * n)
        result["by_players"][str(n)] = {
            "vs": vs,
            "mean_win_rate": sum(v["win_rate"] for v in vs.values()) / max(1, len(vs)),
            **_rating(ev.ratings[n], me),
        }
    first = result["by_players"][str(counts[0])]
    result["vs"] = first["vs"]
    result["mean_win_rate"] = first["mean_win_rate"]
    result["score"] = sum(lifts) / max(1, len(lifts))
    result.update(_rating(fit_ratings(ev.rows, anchor="random", seed=ev.seed), me))
    return result


RATING_KEYS = {"rating": "rating", "rating_se": "se", "rating_lo": "ci_lo", "rating_hi": "ci_hi"}
"""The result's rating keys and the `agents.stats.fit_ratings` entries they hold."""


def _rating(fit: dict[str, Any], me: str) -> dict[str, float | None]:
    """The learner's entry of an `agents.stats.fit_ratings` result under :data:`RATING_KEYS`
    (None without a scored game, or without the bootstrap)."""
    r = fit["ratings"].get(me, {})
    return {key: r.get(entry) for key, entry in RATING_KEYS.items()}


def eval_scalars(res: dict[str, Any], cfg: TrainConfig) -> dict[str, dict[str, float]]:
    """TensorBoard scalars of an evaluation by sub-run (`training.tblog.eval_scalars`):
    `eval/win_rate/<n>p`, ... in each bot's `vs_<bot>` sub-run, the means, score and ratings
    in the run itself (sub-run "")."""
    return tblog.eval_scalars(res, cfg.eval_counts())
