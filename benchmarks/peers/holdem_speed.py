"""Speed of PettingZoo's texas_holdem_no_limit_v6 (peer reference point).

Runs the fully wrapped default AEC env, ``texas_holdem_no_limit_v6.env(
num_players=4)`` (TerminateIllegal + AssertOutOfBounds + OrderEnforcing
wrappers over the rlcard engine), with uniformly random *legal* actions (drawn
among ``action_mask == 1`` with a seeded ``numpy.random.Generator``), in the
standard ``agent_iter()`` / ``last()`` / ``step()`` loop, resetting after every
hand, until ``--seconds`` of wall time have elapsed.  Prints ONE JSON line:

    {"peer": "texas_holdem_no_limit_v6", "players": 4, "steps": ...,
     "steps_per_s": ..., "action_steps": ..., "action_steps_per_s": ..., ...}

``steps`` counts EVERY ``env.step`` call, including the ``env.step(None)``
calls PettingZoo requires for agents that are already done at the end of a
hand; ``action_steps`` counts only the calls with a real (non-None) action.
The env is seeded once with ``reset(seed=--seed)``; later resets continue the
engine's RNG stream, so a run is reproducible for a given seed.

Must run with the side-venv python (see setup_peers.sh); not a lab dependency.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import time

# pygame (pulled in by pettingzoo.classic) prints a banner to stdout on import;
# keep stdout to the single JSON line.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)

    import warnings

    import numpy as np

    # gymnasium warns (stderr) about float64 Box bounds cast to float32.
    warnings.filterwarnings("ignore", message=".*precision lowered.*")
    from pettingzoo.classic import texas_holdem_no_limit_v6

    rng = np.random.default_rng(args.seed)
    env = texas_holdem_no_limit_v6.env(num_players=args.players)

    steps = action_steps = hands = 0
    start = time.perf_counter()
    deadline = start + args.seconds
    env.reset(seed=args.seed)
    done = False
    while not done:
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                action_steps += 1
            env.step(action)
            steps += 1
            if time.perf_counter() >= deadline:
                done = True
                break
        else:  # agent_iter exhausted: every agent is done -> hand over
            hands += 1
            env.reset()
    elapsed = time.perf_counter() - start
    env.close()

    print(
        json.dumps(
            {
                "peer": "texas_holdem_no_limit_v6",
                "version": importlib.metadata.version("pettingzoo"),
                "rlcard_version": importlib.metadata.version("rlcard"),
                "players": args.players,
                "steps": steps,
                "action_steps": action_steps,
                "hands": hands,
                "seconds": round(elapsed, 4),
                "steps_per_s": round(steps / elapsed, 1),
                "action_steps_per_s": round(action_steps / elapsed, 1),
                "hands_per_s": round(hands / elapsed, 2),
                "seed": args.seed,
                "python": sys.version.split()[0],
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
