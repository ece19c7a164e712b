"""Search speed: where the time of the search player `mcts` (agents/mcts.py) goes.

    python benchmarks/search_speed.py --players 2,4 --decisions 10 --sims 64 --repeat 3 [--json]

At each player count, one game of the searcher (seat 0) against sprinters, played until the
searcher has made `--decisions` decisions that have more than one legal action, each with the
given budget. Prints per count: simulations per second, engine decisions applied per
simulation, network calls per simulation, milliseconds per decision, the shares of the
decision time spent in the engine (determinizing, legal actions, applying moves), the encoder,
the network and the prior bot (the rest is the tree's own bookkeeping), and the search's engine
decisions per second of engine time against the raw engine's (random legal play, timed as in
benchmarks/engine_speed.py, for `--engine-seconds`); the search's engine time includes the
determinization of every simulation, so the ratio counts that cost too.

With `--repeat R` the whole measurement (the same game, the same seed, so the same work) is
made R times and every figure is the median of its R values; the ratio of each run is taken
against the raw engine timed in that run, so a slow moment of the machine slows both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from agents.mcts import MCTSAgent  # noqa: E402
from agents.registry import PlayerSpecError, make_agent  # noqa: E402
from lastwill_env import sparse  # noqa: E402
from lastwill_env.engine import (  # noqa: E402
    GameConfig,
    apply_action,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.config import allowed_counts, is_player_count  # noqa: E402
from lastwill_env.engine.game import GAME_OVER  # noqa: E402
from lastwill_env.engine.view import VIEW  # noqa: E402


def raw_engine_rate(players: int, seconds: float, seed: int) -> float:
    """Decisions per second of random legal play (legal actions and apply, nothing else)."""
    rng = random.Random(seed)
    cfg = GameConfig(num_players=players)
    decisions, games = 0, 0
    t0 = time.perf_counter()
    while True:
        s = new_game(cfg, seed + games)
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            apply_action(s, legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
        if time.perf_counter() - t0 >= seconds:
            return decisions / (time.perf_counter() - t0)


def measure(spec: str, players: int, decisions: int, seed: int) -> dict:
    """The searcher's totals over `decisions` searched decisions of one game at `players`."""
    agent = make_agent(spec, seed=seed)
    if not isinstance(agent, MCTSAgent):
        raise PlayerSpecError(f"{spec!r} is not an mcts player")
    bots = [make_agent("sprinter", seed=seed + p) for p in range(1, players)]
    s = new_game(players, seed)
    while s.phase != GAME_OVER and agent.totals["decisions"] < decisions:
        legal = legal_actions(s)
        if len(legal) == 1:
            a = legal[0]
        elif s.cur == 0:
            a = agent.act(player_view(s, 0), legal)
        else:
            a = bots[s.cur - 1].act(player_view(s, s.cur), legal)
        apply_action(s, a)
    return dict(agent.totals)


def summary(t: dict, raw_rate: float) -> dict:
    """The figures of one player count from the searcher's totals."""
    sims, sec = t["sims"], t["seconds"]
    engine_rate = t["steps"] / t["t_engine"] if t["t_engine"] else 0.0
    return {
        "decisions": int(t["decisions"]),
        "sims_per_s": sims / sec,
        "engine_steps_per_sim": t["steps"] / sims,
        "net_calls_per_sim": t["calls"] / sims,
        "ms_per_decision": 1000 * sec / t["decisions"],
        "share_engine": t["t_engine"] / sec,
        "share_encoder": t["t_encode"] / sec,
        "share_network": t["t_net"] / sec,
        "share_prior_bot": t["t_prior"] / sec,
        "search_engine_steps_per_s": engine_rate,
        "raw_engine_steps_per_s": raw_rate,
        "engine_ratio": engine_rate / raw_rate,
    }


def median_summary(runs: list[dict]) -> dict:
    """Every figure's median over the runs' summaries (`decisions` is the same in each)."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def measure_count(spec: str, players: int, args) -> dict:
    """The median summary of `args.repeat` runs at one player count."""
    runs = []
    for _ in range(args.repeat):
        totals = measure(spec, players, args.decisions, args.seed)
        runs.append(summary(totals, raw_engine_rate(players, args.engine_seconds, args.seed)))
    return median_summary(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--policy", default="agents/policies/reference.npz")
    ap.add_argument("--players", default="2,4", help="comma-separated player counts")
    ap.add_argument("--decisions", type=int, default=10, help="searched decisions per count")
    ap.add_argument("--sims", type=int, default=64)
    ap.add_argument("--ms", type=float, default=None, help="milliseconds per decision")
    ap.add_argument("--engine-seconds", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs; each figure is their median")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        counts = [int(x) for x in args.players.split(",")]
    except ValueError:
        ap.error(f"--players {args.players!r}: give comma-separated integers, e.g. 2,4")
    if not all(is_player_count(n) for n in counts):
        ap.error(f"--players {args.players!r}: player counts are {allowed_counts()}")
    if args.decisions < 1 or args.engine_seconds <= 0 or args.repeat < 1:
        ap.error("--decisions and --repeat must be at least 1 and --engine-seconds above 0")
    spec = f"mcts:policy={args.policy}:sims={args.sims}"
    if args.ms is not None:
        spec += f":ms={args.ms}"
    out = {}
    try:
        for n in counts:
            out[f"{n}p"] = measure_count(spec, n, args)
    except PlayerSpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(
            json.dumps(
                {"spec": spec, "writer": sparse.WRITER, "view": VIEW, "repeat": args.repeat, **out}
            )
        )
        return 0
    print(
        f"{spec} (observation writer: {sparse.WRITER}, seat view: {VIEW}; "
        f"medians of {args.repeat} runs)"
    )
    for key, row in out.items():
        print(f"{key}: " + ", ".join(f"{k}={v:.3g}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
