"""Write the Money! golden games `tests/money/golden/games.json`.

Each entry is a seeded game played by a seeded `random.Random` policy (a uniform choice among
the legal actions at every decision): the player count, the deal seed, the policy seed, the
actions, a hash of the final state and the final scores and ranks.
`tests/money/test_money_golden.py` replays them and compares exactly.

Regenerate only after an intended rules change:

    python tests/money/golden/make_golden.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository root

from money_env.engine import (  # noqa: E402
    GameState,
    apply_action,
    is_over,
    legal_actions,
    new_game,
    results,
)

# (player count, deal seed, policy seed)
GAMES = [(3, 303, 3), (4, 404, 4), (5, 505, 5), (5, 2**64 - 1, 6)]
PATH = HERE / "games.json"


def state_hash(s: GameState) -> str:
    text = json.dumps(s.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play(n: int, seed: int, policy_seed: int) -> dict:
    policy = random.Random(policy_seed)
    s = new_game(n, seed)
    while not is_over(s):
        apply_action(s, policy.choice(legal_actions(s)))
    res = results(s)
    return {
        "num_players": n,
        "seed": seed,
        "policy_seed": policy_seed,
        "actions": s.history,
        "rounds": s.round,
        "final_state_sha256_16": state_hash(s),
        "scores": [r["score"] for r in res],
        "ranks": [r["rank"] for r in res],
    }


def main() -> None:
    games = [play(*g) for g in GAMES]
    about = "golden Money! games; regenerate with `python tests/money/golden/make_golden.py`"
    lines = [json.dumps(g, separators=(",", ":")) for g in games]
    PATH.write_text(
        '{"about": ' + json.dumps(about) + ',\n "games": [\n  ' + ",\n  ".join(lines) + "\n ]}\n"
    )


if __name__ == "__main__":
    main()
