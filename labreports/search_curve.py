"""The search's budget curve: the win rate of `mcts` over the reference policy as the number
of simulations per decision grows.

For each budget B of `--sims` (default 16,64,256,1024), on paired validation deals (seats
rotated, the same deals for every table, `agents.evaluate.play_tables`):

- at 2 players, `mcts:policy=POLICY:sims=B` head to head against `ppo:POLICY`;
- at 4 players, the searcher alone against three copies of `ppo:POLICY`.

`--ptemp F` and `--sure F` pass the search's prior temperature and its sure-prior threshold
(`mcts:...:ptemp=F:sure=F`, agents/mcts.py) to every searcher.

Each line gives the searcher's win rate with its Wilson 95% interval and the chance level
(the searcher plays the policy it searches over, so chance is what no gain from search
gives). Validation deals, because choosing a budget is screening; report figures on test
deals (`--deals test`). `--json` prints one JSON object. `--out PATH` logs every game as it
finishes (JSONL: a header with the settings, then one arena row per game, each with its
`table` and deal), so two screens on the same deals can be paired game by game; an existing
file is refused before any game is played. `--resume` continues such a log, interrupted, with
the same options (its header and every game it holds are checked, as `lastwill eval --resume`
checks them), playing only the games it lacks; the result is over all of them.

    python -m labreports.search_curve --games 200 --sims 16,64,256,1024 --workers 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)
from agents.evaluate import EvalError, Table, log_header, play_logged
from agents.registry import PlayerSpecError, make_agent
from agents.stats import summarize
from labreports.text import rate_text
from lastwill_env.engine.config import allowed_counts, is_player_count


def tables(
    policy: str,
    budgets: list[int],
    counts: list[int],
    c_puct: float,
    ptemp: float = 1.0,
    sure: float = 1.0,
) -> list[Table]:
    """One table per budget and player count: the searcher first, then n-1 references."""
    out = []
    for b in budgets:
        spec = f"mcts:policy={policy}:sims={b}:c_puct={c_puct}"
        if ptemp != 1.0:
            spec += f":ptemp={ptemp}"
        if sure != 1.0:
            spec += f":sure={sure}"
        for n in counts:
            out.append(Table(f"sims{b}", n, (spec, *[f"ppo:{policy}"] * (n - 1))))
    return out


def table_line(table: Table, rows: list[dict]) -> dict:
    """The searcher's figures at one table."""
    mine = [r for r in rows if r["table"] == table.name and r["num_players"] == table.num_players]
    e = next(x for x in summarize(mine) if x["spec"] == table.entrants[0])
    return {
        "num_players": table.num_players,
        "sims": int(table.name[4:]),
        "games": e["games"],
        "wins": e["wins"],
        "win_rate": e["win_rate"],
        "ci_lo": e["ci_lo"],
        "ci_hi": e["ci_hi"],
        "chance": 1.0 / table.num_players,
        "errors": sum(1 for r in mine if r.get("error") is not None),
    }


def header(args: argparse.Namespace, ts: list[Table]) -> dict:
    """The first line of a `--out` log: what was played, on which deals."""
    return log_header(
        "search_curve",
        ts,
        policy=args.policy,
        c_puct=args.c_puct,
        ptemp=args.ptemp,
        sure=args.sure,
        seed=args.seed,
        deals=args.deals,
        games_per_table=args.games,
    )


def int_list(text: str, what: str) -> list[int]:
    """The comma-separated integers of option `what` (ValueError naming it when there are none
    or one is not an integer)."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{what} {text!r}: give comma-separated integers") from None
    if not values:
        raise ValueError(f"{what} is empty")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--policy", default="agents/policies/reference.npz")
    ap.add_argument("--sims", default="16,64,256,1024", help="budgets, comma-separated")
    ap.add_argument("--players", default="2,4", help="player counts, comma-separated")
    ap.add_argument("--games", type=int, default=100, help="games per table")
    ap.add_argument("--c-puct", type=float, default=1.5)
    ap.add_argument("--ptemp", type=float, default=1.0, help="the search's prior temperature")
    ap.add_argument(
        "--sure", type=float, default=1.0, help="play a top prior this sure without a search"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deals", default="validation", choices=("validation", "test"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", default=None, help="log every game to this new JSONL file")
    ap.add_argument(
        "--resume", action="store_true", help="continue the --out log of the same screen"
    )
    args = ap.parse_args(argv)
    try:
        budgets = int_list(args.sims, "--sims")
        counts = int_list(args.players, "--players")
    except ValueError as e:
        ap.error(str(e))
    if not all(is_player_count(n) for n in counts) or len(set(counts)) != len(counts):
        ap.error(
            f"--players {args.players!r}: distinct player counts, each one of {allowed_counts()}"
        )
    if args.games < 1 or args.workers < 1:
        ap.error("--games and --workers must be at least 1")
    if args.resume and args.out is None:
        ap.error("--resume needs --out, the log to continue")
    ts = tables(args.policy, budgets, counts, args.c_puct, args.ptemp, args.sure)
    t0 = time.perf_counter()
    try:
        for spec in dict.fromkeys(s for t in ts for s in t.entrants):
            make_agent(spec, 0)
        rows = play_logged(
            ts,
            args.games,
            args.out,
            header(args, ts),
            on_note=lambda text: print(text, file=sys.stderr),
            resume=args.resume,
            seed=args.seed,
            deals=args.deals,
            workers=args.workers,
        )
    except (PlayerSpecError, EvalError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lines = [table_line(t, rows) for t in ts]
    if args.json:
        result = {
            "policy": args.policy,
            "c_puct": args.c_puct,
            "ptemp": args.ptemp,
            "sure": args.sure,
            "seed": args.seed,
            "deals": args.deals,
            "tables": lines,
        }
        print(json.dumps({**result, "seconds": round(time.perf_counter() - t0, 1)}))
        return 0
    for x in lines:
        print(
            f"{x['num_players']}p sims={x['sims']:<6} {x['wins']:>4}/{x['games']:<4} "
            f"{rate_text(x)} chance {100 * x['chance']:.0f}%"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
