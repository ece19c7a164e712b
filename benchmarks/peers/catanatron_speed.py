"""Speed of the catanatron engine (peer reference point).

Plays complete games of catanatron 3.2.1 with 4 ``RandomPlayer``s, single
process, until ``--seconds`` of wall time have elapsed (the game running at
the deadline is finished and counted), then prints ONE JSON line:

    {"peer": "catanatron", "version": ..., "players": 4, "games": ...,
     "decisions": ..., "seconds": ..., "decisions_per_s": ..., "games_per_s": ...}

A decision is one action taken by a player, i.e. one ``Game.play_tick``;
catanatron 3.2.1 logs every applied action in ``game.state.actions`` (there is
no ``action_records`` in this version), so decisions = sum of
``len(game.state.actions)`` over games.  Games are played with the engine's own
``Game.play()`` loop (which includes its TURNS_LIMIT=1000 truncation and its
two state copies per game).

Must run with the side-venv python (see setup_peers.sh); not a lab dependency.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--games",
        type=int,
        default=0,
        help="play exactly this many games instead (ignores --seconds)",
    )
    args = parser.parse_args(argv)

    from catanatron.game import Game
    from catanatron.models.player import Color, RandomPlayer

    colors = [Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE]
    games = decisions = truncated = 0

    start = time.perf_counter()
    deadline = start + args.seconds
    while True:
        players = [RandomPlayer(c) for c in colors]
        # Game() seeds the global `random` module (used by RandomPlayer, the
        # dice, the map shuffle) with this seed; it treats a falsy seed as
        # "pick one at random", so keep it >= 1.
        game_seed = args.seed * 1_000_003 + games + 1
        game = Game(players, seed=game_seed)
        winner = game.play()
        games += 1
        decisions += len(game.state.actions)
        if winner is None:
            truncated += 1
        if args.games:
            if games >= args.games:
                break
        elif time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start

    print(
        json.dumps(
            {
                "peer": "catanatron",
                "version": importlib.metadata.version("catanatron"),
                "players": len(colors),
                "games": games,
                "decisions": decisions,
                "seconds": round(elapsed, 4),
                "decisions_per_s": round(decisions / elapsed, 1),
                "games_per_s": round(games / elapsed, 3),
                "truncated_games": truncated,
                "seed": args.seed,
                "python": sys.version.split()[0],
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
