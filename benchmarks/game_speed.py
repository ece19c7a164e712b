"""Speed of any game of the lab, measured in one run: its engine, its PettingZoo env, the
arena over it, and PettingZoo's texas_holdem_no_limit_v6 as the outside reference.

    python benchmarks/game_speed.py --game money --players 4 --seconds 5 --repeat 3 --json

Each measurement is taken ``--repeat`` times, in turns, and medians are reported:

- ``engine_decisions_per_s``: the rules alone through the game's `gamecore.Game` (new_game,
  legal_actions, apply_action; uniformly random legal play with a seeded generator, no view,
  no observation);
- ``env_steps_per_s``: the game's PettingZoo AEC env, wrapped (`gameenv.aec.game_env`: the
  game's own where it has one, `Game.aec_env`, as Money!'s `money_env.env`; else the generic
  `gameenv.aec.env`; ``env_kind`` says which) in the loop a user writes (``agent_iter`` /
  ``last`` / ``step``, random legal actions from the mask; the observation and mask of the
  agent to act are read at every step, and every ``step`` call counts, ``step(None)`` of
  finished agents included, as the peer script counts them);
- ``generic_env_steps_per_s``: the same loop over the generic env (`gameenv.aec.env`, with
  PettingZoo's standard wrappers), measured beside the game's own env (the same figure as
  ``env_steps_per_s`` for a game without one), and ``own_vs_generic``: the one over the other;
- ``arena_decisions_per_s``: ``agents.arena.run_tournament`` of ``random`` players in this
  process over ``--games`` games (agents built per game, JSON rows, no log file), and
  ``arena_vs_engine``: its decisions/s over the engine's (the harness's overhead; the target
  for a game on the seam is at least 0.8);
- ``peer``: ``benchmarks/peers/holdem_speed.py`` at the same player count through
  ``run_peer`` (``null`` without the side venv of ``benchmarks/peers/setup_peers.sh``);
  ``ratio_vs_holdem``: the env's steps/s over the peer's (the target: at least 3), and
  ``generic_ratio_vs_holdem`` the generic env's; ``round_ratios_vs_holdem``: each round's own
  pair (the env, then the peer right after it), steadier on a busy machine. ``all_*`` list
  every round's figure.

Prints ONE JSON line (``--json PATH`` also writes it there, the form
``python -m labreports.results_doc --add NAME PATH --command CMD`` stores).
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


def env_speed(game, players: int, seconds: float, seed: int, generic: bool = False) -> dict:
    """The AEC loop over the game's env (`gameenv.aec.game_env`), or over the generic one."""
    import numpy as np

    from gameenv.aec import env as generic_env
    from gameenv.aec import game_env

    e = (generic_env if generic else game_env)(game, num_players=players)
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
    prefix = "generic_" if generic else ""
    return {
        f"{prefix}env_steps_per_s": steps / elapsed,
        f"{prefix}env_games_per_s": games / elapsed,
    }


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


def has_own_env(game) -> bool:
    """Whether the game gives its own AEC env (`Game.aec_env`)."""
    return game.aec_env(num_players=min(game.player_counts)) is not None


def one_round(game, args, seed: int) -> dict:
    """Every measurement of the lab once, one after another (never overlapping): the engine,
    the game's env, the generic env (where the game has its own), the arena."""
    one = engine_speed(game, args.players, args.seconds, seed)
    one |= env_speed(game, args.players, args.seconds, seed)
    if has_own_env(game):
        one |= env_speed(game, args.players, args.seconds, seed, generic=True)
    else:
        one |= {f"generic_{k}": v for k, v in list(one.items()) if k.startswith("env_")}
    one |= arena_speed(game, args.players, args.games, seed)
    return one


def measure(args) -> dict:
    game = load_game(args.game)
    runs: list[dict] = []
    peers: list[dict] = []
    for r in range(args.repeat):
        one = one_round(game, args, args.seed + r)
        runs.append(one)
        if not args.no_peer and (peer := peer_speed(args.players, args.seconds)) is not None:
            peers.append(peer)
            one["peer_steps_per_s"] = peer["steps_per_s"]
        print(f"round {r + 1}: {json.dumps(one)}", file=sys.stderr)
    return summarize(game, args, runs, peers)


def summarize(game, args, runs: list[dict], peers: list[dict]) -> dict:
    """The medians of the rounds, the ratios and every round's headline figures."""
    out = {
        "game": game.name,
        "env": game.env_name,
        "env_kind": "own" if has_own_env(game) else "generic",
        "players": args.players,
        "seconds": args.seconds,
        "repeat": args.repeat,
    }
    for key in runs[0]:
        if key != "peer_steps_per_s":
            out[key] = statistics.median(run[key] for run in runs)
    out["arena_vs_engine"] = out["arena_decisions_per_s"] / out["engine_decisions_per_s"]
    out["own_vs_generic"] = out["env_steps_per_s"] / out["generic_env_steps_per_s"]
    for key in ("env_steps_per_s", "generic_env_steps_per_s", "engine_decisions_per_s"):
        out[f"all_{key}"] = [round(run[key], 1) for run in runs]
    out["peer"] = None
    if peers:
        peer_sps = statistics.median(p["steps_per_s"] for p in peers)
        out["peer"] = {
            "name": peers[0].get("peer"),
            "steps_per_s": peer_sps,
            "all_steps_per_s": [p["steps_per_s"] for p in peers],
        }
        out["ratio_vs_holdem"] = out["env_steps_per_s"] / peer_sps
        out["generic_ratio_vs_holdem"] = out["generic_env_steps_per_s"] / peer_sps
        pairs = [(run, run["peer_steps_per_s"]) for run in runs if "peer_steps_per_s" in run]
        out["round_ratios_vs_holdem"] = [round(run["env_steps_per_s"] / p, 3) for run, p in pairs]
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
