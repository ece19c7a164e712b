"""Speed of any game of the lab, measured in one run: its engine, its PettingZoo env, the
arena over it, and PettingZoo's texas_holdem_no_limit_v6 as the outside reference.

    python benchmarks/game_speed.py --game money --players 4 --seconds 5 --repeat 3 --json

Each measurement is taken ``--repeat`` times, in turns, and medians are reported:

- ``engine_decisions_per_s``: the rules alone through the game's `gamecore.Game` (new_game,
  legal_actions, apply_action; uniformly random legal play with a seeded generator, no view,
  no observation);
- ``env_steps_per_s``: the generic PettingZoo AEC env over the game (`gameenv.aec.env`, with
  PettingZoo's standard wrappers) in the loop a user writes (``agent_iter`` / ``last`` /
  ``step``, random legal actions from the mask; the observation and mask are encoded at every
  step, and every ``step`` call counts, ``step(None)`` of finished agents included, as the
  peer script counts them);
- ``arena_decisions_per_s``: ``agents.arena.run_tournament`` of ``random`` players in this
  process over ``--games`` games (agents built per game, JSON rows, no log file), and
  ``arena_vs_engine``: its decisions/s over the engine's (the harness's overhead; the target
  for a game on the seam is at least 0.8);
- ``peer``: ``benchmarks/peers/holdem_speed.py`` at the same player count through
  ``run_peer`` (``null`` without the side venv of ``benchmarks/peers/setup_peers.sh``);
  ``ratio_vs_holdem``: the env's steps/s over the peer's (the target: at least 3).

Prints ONE JSON line (``--json PATH`` also writes it there, the form
``benchmarks/results_doc.py --add NAME PATH --command CMD`` stores).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamecore import game_names, load_game  # noqa: E402


def engine_speed(game, players: int, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    config = game.make_config(players)
    legal_of, apply, over = game.legal_actions, game.apply_action, game.is_over
    decisions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_game(config, rng.getrandbits(63))
        while not over(state):
            legal = legal_of(state)
            apply(state, legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"engine_decisions_per_s": decisions / elapsed, "engine_games_per_s": games / elapsed}


def env_speed(game, players: int, seconds: float, seed: int) -> dict:
    import numpy as np

    from gameenv.aec import env as make_env

    e = make_env(game, num_players=players)
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    e.reset(seed=seed)
    while time.perf_counter() < deadline:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            e.step(action)
            steps += 1
        games += 1
        e.reset()
    elapsed = time.perf_counter() - start
    return {"env_steps_per_s": steps / elapsed, "env_games_per_s": games / elapsed}


def arena_speed(game, players: int, games: int, seed: int) -> dict:
    from agents.arena import run_tournament

    entrants = ["random"] + [f"random@r{k}" for k in range(1, players)]
    start = time.perf_counter()
    res = run_tournament(entrants, game.make_config(players), games, seed=seed, game_name=game.name)
    elapsed = time.perf_counter() - start
    decisions = sum(r["decisions"] for r in res.rows)
    return {"arena_decisions_per_s": decisions / elapsed, "arena_games": len(res.rows)}


def peer_speed(players: int, seconds: float) -> dict | None:
    from benchmarks.peers.run_peer import run_peer

    return run_peer("holdem_speed.py", seconds, ["--players", str(players)])


def measure(args) -> dict:
    game = load_game(args.game)
    runs: list[dict] = []
    peers: list[dict] = []
    for r in range(args.repeat):
        one = engine_speed(game, args.players, args.seconds, args.seed + r)
        one |= env_speed(game, args.players, args.seconds, args.seed + r)
        one |= arena_speed(game, args.players, args.games, args.seed + r)
        runs.append(one)
        if not args.no_peer and (peer := peer_speed(args.players, args.seconds)) is not None:
            peers.append(peer)
        print(f"round {r + 1}: {json.dumps(one)}", file=sys.stderr)
    out = {
        "game": game.name,
        "env": game.env_name,
        "players": args.players,
        "seconds": args.seconds,
        "repeat": args.repeat,
    }
    for key in runs[0]:
        out[key] = statistics.median(run[key] for run in runs)
    out["arena_vs_engine"] = out["arena_decisions_per_s"] / out["engine_decisions_per_s"]
    out["peer"] = None
    if peers:
        peer_sps = statistics.median(p["steps_per_s"] for p in peers)
        out["peer"] = {"name": peers[0].get("peer"), "steps_per_s": peer_sps}
        out["ratio_vs_holdem"] = out["env_steps_per_s"] / peer_sps
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="money", choices=game_names())
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--games", type=int, default=100, help="arena games per round")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-peer", action="store_true", help="skip the holdem peer")
    ap.add_argument("--json", nargs="?", const="-", help="also write the JSON line to PATH")
    args = ap.parse_args()
    if args.players not in load_game(args.game).player_counts:
        ap.error(
            f"--players {args.players}: {args.game} is played by "
            f"{load_game(args.game).player_counts}"
        )
    out = measure(args)
    line = json.dumps(out)
    print(line)
    if args.json and args.json != "-":
        Path(args.json).write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
