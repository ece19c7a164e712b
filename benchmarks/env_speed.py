"""Speed of the Last Will environments, with PettingZoo's texas_holdem_no_limit_v6 as the peer.

Measures, single process, for ``--seconds`` each:

- ``steps_per_s``: the fully wrapped ``lastwill_env.env(num_players=N)`` in the loop a user
  writes (``agent_iter()`` / ``last()`` / ``step()``), uniformly random legal actions drawn from
  ``obs["action_mask"]`` with a seeded numpy generator, reset after every game. The observation
  and the mask are encoded at every step. Every ``env.step`` call counts, including the
  ``step(None)`` calls for finished agents, exactly as the peer script counts them.
- ``single_seat_steps_per_s``: ``SingleSeatEnv(num_players=N)`` with random opponents, learner
  steps per second (random legal learner actions from ``action_masks()``), and
  ``single_seat_all_decisions_per_s`` (learner plus opponent decisions).
- ``peer``: ``benchmarks/peers/holdem_speed.py`` (4 players) run in the same invocation via
  ``run_peer``; ``null`` when the side venv is missing. ``ratio_vs_holdem`` = ours / peer.

With ``--repeat R`` every measurement is taken R times, sequentially, and medians are reported.
Prints ONE JSON line::

    python benchmarks/env_speed.py --players 4 --seconds 10 --json --repeat 3
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def measure_aec(players: int, seconds: float, seed: int) -> dict:
    import numpy as np

    from lastwill_env import env as make_env

    rng = np.random.default_rng(seed)
    e = make_env(num_players=players)
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
    return {
        "steps_per_s": steps / elapsed,
        "action_steps_per_s": action_steps / elapsed,
        "games_per_s": games / elapsed,
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON line (default)")
    parser.add_argument("--no-peer", action="store_true", help="skip the holdem peer")
    args = parser.parse_args(argv)

    runs: list[dict] = []
    peers: list[dict] = []
    peer_missing = args.no_peer
    for _ in range(args.repeat):  # sequential: never overlap measurements
        r = measure_aec(args.players, args.seconds, args.seed)
        r.update(measure_single_seat(args.players, args.seconds, args.seed))
        runs.append(r)
        if not peer_missing:
            from benchmarks.peers.run_peer import run_peer

            p = run_peer("holdem_speed.py", args.seconds, ["--seed", str(args.seed)])
            if p is None:
                peer_missing = True
            else:
                peers.append(p)

    out: dict = {
        "env": "lastwill_v1",
        "players": args.players,
        "seconds": args.seconds,
        "repeat": args.repeat,
        "python": platform.python_version(),
    }
    for key in runs[0]:
        out[key] = round(statistics.median(r[key] for r in runs), 1)
    out["all_steps_per_s"] = [round(r["steps_per_s"], 1) for r in runs]
    if peers:
        peer_sps = statistics.median(p["steps_per_s"] for p in peers)
        out["peer"] = {
            "name": peers[0]["peer"],
            "players": peers[0]["players"],
            "steps_per_s": round(peer_sps, 1),
            "all_steps_per_s": [p["steps_per_s"] for p in peers],
        }
        out["ratio_vs_holdem"] = round(out["steps_per_s"] / peer_sps, 3)
        out["single_seat_ratio_vs_holdem"] = round(out["single_seat_steps_per_s"] / peer_sps, 3)
    else:
        out["peer"] = None
        out["ratio_vs_holdem"] = None
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
