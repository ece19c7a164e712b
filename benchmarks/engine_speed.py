"""Engine speed: random legal play in one process.

    python benchmarks/engine_speed.py --players 4 --seconds 10 --json [--repeat 3] [--peer]

Prints one JSON line with `games_per_s`, `decisions_per_s`, `decisions_per_game` and
`clone_us` (median over `--repeat` runs). With `--peer`, catanatron 3.2.1's engine with 4
random players is measured in the same run (side environment, see benchmarks/peers/) and
`ratio_vs_catanatron` is added. `--json PATH` also writes the line to PATH (the form
`python -m labreports.results_doc --add NAME PATH --command CMD` stores).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from lastwill_env.engine import GameConfig, apply_action, legal_actions, new_game
from lastwill_env.engine.config import PLAYER_COUNTS
from lastwill_env.engine.game import GAME_OVER


def run_once(players: int, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    cfg = GameConfig(num_players=players)
    games = decisions = 0
    game_seed = seed * 1_000_003
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        s = new_game(cfg, game_seed + games)
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            apply_action(s, legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - t0
    # clone cost on mid-game states
    samples = []
    s = new_game(cfg, seed)
    while s.phase != GAME_OVER:
        samples.append(s.clone())
        legal = legal_actions(s)
        apply_action(s, legal[rng.randrange(len(legal))])
    k = 0
    t1 = time.perf_counter()
    while time.perf_counter() - t1 < min(1.0, seconds / 5):
        for st in samples:
            st.clone()
        k += len(samples)
    clone_us = (time.perf_counter() - t1) / k * 1e6
    return {
        "games": games,
        "decisions": decisions,
        "seconds": elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_game": decisions / games,
        "clone_us": clone_us,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--players", type=int, default=4, choices=PLAYER_COUNTS)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print one JSON line; with PATH also write it there",
    )
    ap.add_argument("--peer", action="store_true", help="also measure catanatron (same run)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1:
        ap.error("--seconds must be > 0 and --repeat >= 1")
    runs = []
    peers = []
    for i in range(args.repeat):
        runs.append(run_once(args.players, args.seconds, args.seed + i))
        if args.peer:
            from peers.run_peer import run_peer  # benchmarks/peers/, beside this script

            peer = run_peer("catanatron_speed.py", args.seconds, ["--seed", str(args.seed + i)])
            if peer is not None:
                peers.append(peer)
    out = {
        "bench": "engine_speed",
        "players": args.players,
        "seconds_per_run": args.seconds,
        "repeat": args.repeat,
    }
    for key in ("games_per_s", "decisions_per_s", "decisions_per_game", "clone_us"):
        out[key] = round(statistics.median(r[key] for r in runs), 2)
    out["runs_decisions_per_s"] = [round(r["decisions_per_s"], 1) for r in runs]
    if args.peer:
        if peers:
            peer_dps = statistics.median(p["decisions_per_s"] for p in peers)
            out["peer"] = {
                "name": "catanatron",
                "version": peers[0].get("version"),
                "players": 4,
                "decisions_per_s": round(peer_dps, 1),
            }
            out["ratio_vs_catanatron"] = round(out["decisions_per_s"] / peer_dps, 2)
        else:
            out["peer"] = None
    if args.json:
        print(json.dumps(out))
        if args.json != "-":
            Path(args.json).write_text(json.dumps(out) + "\n")
    else:
        for k, v in out.items():
            print(f"{k:>22}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
