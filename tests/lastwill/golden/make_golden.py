"""Write the golden game logs `tests/lastwill/golden/game_{n}p.json`, one per player count.

Each log is a seeded game played by a seeded `random.Random` policy: the configuration, the
seed, the actions (and their readable names), a hash of the whole state after every decision
and the final results. `tests/lastwill/test_golden.py` replays them and compares exactly.

Regenerate (only after an intended rules change, and then also bump the env version):

    python tests/lastwill/golden/make_golden.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository root, for `python tests/lastwill/...`

from lastwill_env.engine import (  # noqa: E402
    GameState,
    apply_action,
    describe_action,
    legal_actions,
    make_config,
    new_game,
    results,
)

# player count -> (configuration options, game seed, policy seed)
GAMES: dict[int, tuple[dict, int, int]] = {
    2: ({}, 20202, 2),
    3: ({"starting_money": "will-shared"}, 30303, 3),
    4: ({}, 40404, 4),
    5: ({"starting_money": "will-each"}, 50505, 5),
}
HASH_CHARS = 16  # hex characters kept of each sha256


def state_hash(s: GameState) -> str:
    text = json.dumps(s.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_CHARS]


def golden_path(n: int) -> Path:
    return HERE / f"game_{n}p.json"


def play(n: int) -> dict:
    """The golden record of the game for n players, computed afresh."""
    options, seed, policy_seed = GAMES[n]
    config = make_config(n, **options)
    policy = random.Random(policy_seed)
    s = new_game(config, seed)
    hashes = [state_hash(s)]  # hashes[i] = state after i decisions
    while not s.is_over:
        apply_action(s, policy.choice(legal_actions(s)))
        hashes.append(state_hash(s))
    return {
        "about": "golden game log; regenerate with `python tests/lastwill/golden/make_golden.py`",
        "config": config.to_dict(),
        "seed": seed,
        "policy": f"random.Random({policy_seed}).choice(legal_actions(s)) at every decision",
        "policy_seed": policy_seed,
        "actions": list(s.history),
        "action_names": [describe_action(a) for a in s.history],
        "hash": f"sha256 of json.dumps(state.to_dict(), sort_keys=True, separators=(',', ':'))"
        f", first {HASH_CHARS} hex characters, before the first decision and after each one",
        "state_hashes": hashes,
        "results": results(s),
    }


def to_text(record: dict) -> str:
    """JSON with one key per line; lists of strings one item per line, other values compact."""
    lines = []
    for key, value in record.items():
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            items = ",\n".join(f"  {json.dumps(v)}" for v in value)
            text = f"[\n{items}\n ]"
        else:
            text = json.dumps(value)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    for n in GAMES:
        record = play(n)
        golden_path(n).write_text(to_text(record))
        print(f"wrote {golden_path(n)}: {len(record['actions'])} decisions")


if __name__ == "__main__":
    main()
