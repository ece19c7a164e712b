"""How many of a player's decisions `mcts:...:sure=F` would search: the share of the decisions
of recorded games where a policy's top move has probability below F.

    python -m labreports.sure_share docs/results/games/mcts256vf_4p_ref_test.jsonl \\
        [--policy agents/policies/reference.npz] [--player SPEC] [--games 60] \\
        [--bins 0.7,0.8,0.9] [--json]

The search player with `sure=F` (agents/mcts.py) plays a decision whose top prior is F or
more at once, without a search. This replays the games of a log (an arena or evaluation JSONL
log; `--games` keeps its first rows) and, at every decision of the seats that `--player`
holds (default: the evaluated player the log's header names) with more than one legal action,
reads the policy's top-move probability (its prior bot's bonus included, the residual rule:
the priors a search starts from). Printed: the decisions read and, for each bin edge F, the
share of them below F, that is the share `sure=F` would search; the mean simulations a
decision then costs is that share times `sims`.

The player's spec is only compared with the games' seatings, never built: the policy read is
the one `--policy` names. Reads only; no game is played. A log that cannot be read, or that
seats no such player, is an error (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import sys

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)

# isort: split
import numpy as np

from agents.gamelog import GameLogError, read_game_file
from agents.policy import CheckpointError, load_policy
from agents.registry import PRIORS
from apps.replay import ReplayError, iter_steps
from lastwill_env.encoding import encode_observation_sparse
from lastwill_env.engine import legal_actions, player_view


def top_probability(pol, view, legal: list[int]) -> float:
    """The policy's top-move probability over `legal` at `view` (the residual rule applied)."""
    probs, _ = pol.evaluate(encode_observation_sparse(view), legal, view)
    return float(probs.max())


def tops(pol, rows: list[dict], player: str) -> np.ndarray:
    """The top-move probabilities at every decision of `player`'s seats with a choice."""
    out = []
    for row in rows:
        seats = {i for i, s in enumerate(row["seating"]) if s == player}
        for step in iter_steps(row, copy=False):
            if step.seat not in seats:
                continue
            legal = sorted(legal_actions(step.state))
            if len(legal) > 1:
                out.append(top_probability(pol, player_view(step.state, step.seat), legal))
    return np.asarray(out)


def shares(top: np.ndarray, edges: list[float]) -> list[dict]:
    return [{"sure": f, "share_searched": float((top < f).mean())} for f in edges]


def _read(path: str, games: int) -> tuple[dict, list[dict]]:
    """The header and the first `games` finished games of a log, every row checked
    (`agents.gamelog.read_game_file`)."""
    try:
        log = read_game_file(path)
    except GameLogError as e:
        raise ValueError(f"{path}: cannot be read as a game log ({e})") from None
    return log.header or {}, [r for r in log.rows if r.get("error") is None][:games]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", help="an arena or evaluation JSONL log")
    ap.add_argument("--policy", default="agents/policies/reference.npz")
    ap.add_argument("--player", default=None, help="default: the log header's evaluated spec")
    ap.add_argument("--games", type=int, default=60, help="the log's first N games")
    ap.add_argument("--bins", default="0.7,0.8,0.9", help="values of sure, in (0, 1]")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        edges = sorted(float(x) for x in args.bins.split(","))
    except ValueError:
        ap.error(f"--bins takes comma-separated numbers, got {args.bins!r}")
    if not edges or not all(0.0 < f <= 1.0 for f in edges):
        ap.error(f"--bins: every value must lie in (0, 1], got {args.bins!r}")
    if args.games < 1:
        ap.error(f"--games must be at least 1, got {args.games}")
    try:
        header, rows = _read(args.log, args.games)
        player = args.player or header.get("spec")
        if not isinstance(player, str) or not any(player in r["seating"] for r in rows):
            seen = sorted({s for r in rows for s in r["seating"]})
            what = f"no player {player!r}" if player else "no evaluated player in its header"
            raise ValueError(
                f"{args.log} names {what} in its first {args.games} games; name one of "
                f"its seatings' specs with --player: {', '.join(seen) or 'none'}"
            )
        pol, _ = load_policy(args.policy, prior_bots=PRIORS)  # the lab's bots, as `ppo:` has
        top = tops(pol, rows, player)
        if not len(top):
            raise ValueError(f"{player!r} has no decision with a choice in these games")
    except (ValueError, OSError, CheckpointError, ReplayError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = {
        "log": args.log,
        "player": player,
        "policy": args.policy,
        "games": len(rows),
        "decisions": len(top),
        "mean_top": float(top.mean()),
        "shares": shares(top, edges),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['decisions']} decisions of {player} in {out['games']} games of {args.log}")
    for s in out["shares"]:
        print(f"  sure={s['sure']}: searches {s['share_searched']:.3f} of them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
