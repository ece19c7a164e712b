"""Speed of the Last Will environments against the engine under them and PettingZoo's
texas_holdem_no_limit_v6, all measured in the same run.

Measures, single process, for ``--seconds`` each, one after another:

- ``raw_steps_per_s``: ``lastwill_env.env.raw_env(num_players=N)`` (no wrappers) and
  ``steps_per_s``: the standard wrapped ``lastwill_env.env(num_players=N)``, each in the loop a
  user writes (``agent_iter()`` / ``last()`` / ``step()``), uniformly random legal actions drawn
  from ``obs["action_mask"]`` with a seeded numpy generator, reset after every game. The
  observation and the mask are encoded at every step. Every ``env.step`` call counts, including
  the ``step(None)`` calls for finished agents, exactly as the peer script counts them.
- ``single_seat_steps_per_s``: ``SingleSeatEnv(num_players=N)`` with random opponents, learner
  steps per second (random legal learner actions from ``action_masks()``), and
  ``single_seat_all_decisions_per_s`` (learner plus opponent decisions).
- ``engine_decisions_per_s``: the engine alone (``benchmarks/engine_speed.py``'s loop: random
  legal play, no observation, no mask). ``env_cost_vs_engine`` (and ``raw_cost_vs_engine``) is
  the time of one env action step over the time of one engine decision (goal: at most 2).
- ``peer``: ``benchmarks/peers/holdem_speed.py`` (4 players) through ``run_peer``; ``null``
  when the side venv is missing. ``ratio_vs_holdem`` = wrapped env / peer (target: at least 3
  at 4 players), ``raw_ratio_vs_holdem`` = raw env / peer; ``round_ratios_vs_holdem`` gives
  each round's wrapped env over the peer measured right after it.

``writer`` names the observation writer of the state path (``lastwill_env.sparse.WRITER``:
``compiled`` where the install built ``lastwill_env._cwriter``, else ``python``; the environment
variable ``LASTWILL_WRITER=python`` measures the Python one).

With ``--repeat R`` every measurement is taken R times, in turns, and medians are reported.
Prints ONE JSON line (``--json PATH`` also writes it to PATH, the form that
``python -m labreports.results_doc --add NAME PATH --command CMD`` stores) and a short summary on
stderr::

    python benchmarks/env_speed.py --players 4 --seconds 5 --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path


def measure_aec(players: int, seconds: float, seed: int, wrapped: bool = True) -> dict:
    """Steps per second of the AEC env in the standard loop (wrapped or raw)."""
    import numpy as np

    from lastwill_env.env import env as make_env
    from lastwill_env.env import raw_env

    rng = np.random.default_rng(seed)
    e = make_env(num_players=players) if wrapped else raw_env(num_players=players)
    steps = action_steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    e.reset(seed=seed)
    done = False
    while not done:
        for _agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                action_steps += 1
            e.step(action)
            steps += 1
            if time.perf_counter() >= deadline:
                done = True
                break
        else:
            games += 1
            e.reset()
    elapsed = time.perf_counter() - start
    prefix = "" if wrapped else "raw_"
    return {
        f"{prefix}steps_per_s": steps / elapsed,
        f"{prefix}action_steps_per_s": action_steps / elapsed,
        f"{prefix}games_per_s": games / elapsed,
    }


def measure_single_seat(players: int, seconds: float, seed: int) -> dict:
    import numpy as np

    from lastwill_env.single_seat import SingleSeatEnv

    rng = np.random.default_rng(seed)
    e = SingleSeatEnv(num_players=players)
    learner = decisions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    _, info = e.reset(seed=seed)
    decisions += info["opponent_decisions"]
    while time.perf_counter() < deadline:
        legal = np.flatnonzero(e.action_masks())
        _, _, term, trunc, info = e.step(int(legal[rng.integers(legal.size)]))
        learner += 1
        decisions += 1 + info["opponent_decisions"]
        if term or trunc:
            games += 1
            _, info = e.reset()
            decisions += info["opponent_decisions"]
    elapsed = time.perf_counter() - start
    return {
        "single_seat_steps_per_s": learner / elapsed,
        "single_seat_all_decisions_per_s": decisions / elapsed,
        "single_seat_games_per_s": games / elapsed,
    }


def measure_engine(players: int, seconds: float, seed: int) -> dict:
    """The engine alone: benchmarks/engine_speed.py's loop."""
    from engine_speed import run_once  # a neighbour: this script's folder is on the path

    return {"engine_decisions_per_s": run_once(players, seconds, seed)["decisions_per_s"]}


def one_round(args: argparse.Namespace) -> dict:
    """Every measurement once, one after another (never overlapping)."""
    r = measure_aec(args.players, args.seconds, args.seed, wrapped=False)
    r.update(measure_aec(args.players, args.seconds, args.seed, wrapped=True))
    r.update(measure_single_seat(args.players, args.seconds, args.seed))
    r.update(measure_engine(args.players, args.seconds, args.seed))
    return r


def _writer() -> str:
    """Which observation writer the state path used (`lastwill_env.sparse.WRITER`)."""
    from lastwill_env import sparse

    return sparse.WRITER


def summarize(args: argparse.Namespace, runs: list[dict], peers: list[dict]) -> dict:
    """The medians, the ratios and every run's headline figures."""
    out: dict = {
        "env": "lastwill_v1",
        "players": args.players,
        "seconds": args.seconds,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "writer": _writer(),
    }
    for key in runs[0]:
        out[key] = round(statistics.median(r[key] for r in runs), 1)
    out["all_steps_per_s"] = [round(r["steps_per_s"], 1) for r in runs]
    out["all_raw_steps_per_s"] = [round(r["raw_steps_per_s"], 1) for r in runs]
    out["all_engine_decisions_per_s"] = [round(r["engine_decisions_per_s"], 1) for r in runs]
    engine = out["engine_decisions_per_s"]
    out["env_cost_vs_engine"] = round(engine / out["action_steps_per_s"], 2)
    out["raw_cost_vs_engine"] = round(engine / out["raw_action_steps_per_s"], 2)
    out["peer"] = None
    out["ratio_vs_holdem"] = out["raw_ratio_vs_holdem"] = None
    if peers:
        peer_sps = statistics.median(p["steps_per_s"] for p in peers)
        out["peer"] = {
            "name": peers[0]["peer"],
            "players": peers[0]["players"],
            "steps_per_s": round(peer_sps, 1),
            "all_steps_per_s": [p["steps_per_s"] for p in peers],
        }
        out["ratio_vs_holdem"] = round(out["steps_per_s"] / peer_sps, 3)
        # each round's own pair (ours, then the peer right after): steadier on a busy machine
        pairs = zip(runs, peers, strict=False)
        out["round_ratios_vs_holdem"] = [
            round(r["steps_per_s"] / p["steps_per_s"], 3) for r, p in pairs
        ]
        out["raw_ratio_vs_holdem"] = round(out["raw_steps_per_s"] / peer_sps, 3)
        out["single_seat_ratio_vs_holdem"] = round(out["single_seat_steps_per_s"] / peer_sps, 3)
    return out


def summary_text(out: dict) -> str:
    peer = out["peer"]
    holdem = f"{peer['steps_per_s']:,.0f}" if peer else "not measured (no side venv)"
    lines = [
        f"{out['players']} players, median of {out['repeat']} x {out['seconds']:g} s",
        f"  raw_env()        {out['raw_steps_per_s']:>10,.0f} steps/s"
        f"  vs holdem {out['raw_ratio_vs_holdem']}x  vs engine {out['raw_cost_vs_engine']}x",
        f"  env() (wrapped)  {out['steps_per_s']:>10,.0f} steps/s"
        f"  vs holdem {out['ratio_vs_holdem']}x  vs engine {out['env_cost_vs_engine']}x",
        f"  SingleSeatEnv    {out['single_seat_steps_per_s']:>10,.0f} learner steps/s",
        f"  engine alone     {out['engine_decisions_per_s']:>10,.0f} decisions/s",
        f"  holdem (peer)    {holdem} steps/s",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from lastwill_env.engine.config import PLAYER_COUNTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=PLAYER_COUNTS)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print one JSON line (the default); with PATH also write it there",
    )
    parser.add_argument("--no-peer", action="store_true", help="skip the holdem peer")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1:
        parser.error("--seconds must be > 0 and --repeat >= 1")

    runs: list[dict] = []
    peers: list[dict] = []
    peer_missing = args.no_peer
    for _ in range(args.repeat):  # sequential: never overlap measurements
        runs.append(one_round(args))
        if not peer_missing:
            from peers.run_peer import run_peer  # benchmarks/peers/, beside this script

            p = run_peer("holdem_speed.py", args.seconds, ["--seed", str(args.seed)])
            if p is None:
                peer_missing = True
            else:
                peers.append(p)
    out = summarize(args, runs, peers)
    line = json.dumps(out)
    print(line, flush=True)
    if args.json not in (None, "-"):
        Path(args.json).write_text(line + "\n")
    print(summary_text(out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
