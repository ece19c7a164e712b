"""Golden game logs: seeded games replayed decision by decision against stored state hashes.

Any change to the rules engine that changes a game (a rule, an order of legal actions, the
random stream, the state layout) fails here at the first decision where the game differs.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from lastwill_env.engine import (
    GameState,
    IllegalActionError,
    apply_action,
    describe_action,
    legal_actions,
    make_config,
    new_game,
    results,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
PLAYER_COUNTS = (2, 3, 4, 5)
EXPECTED_OPTIONS = {
    2: {},
    3: {"starting_money": "will-shared"},
    4: {},
    5: {"starting_money": "will-each"},
}
HOW_TO_FIX = (
    "If the rules change was intended, regenerate the logs with "
    "`python tests/lastwill/golden/make_golden.py` and also bump the env version "
    "(`lastwill_env.ENV_VERSION`), since recorded games and trained policies no longer match."
)


def _hash(s: GameState, chars: int) -> str:
    text = json.dumps(s.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:chars]


def _load(n: int) -> dict:
    path = GOLDEN / f"game_{n}p.json"
    assert path.exists(), f"missing golden log {path}. {HOW_TO_FIX}"
    return json.loads(path.read_text())


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_golden_game_replays_exactly(n):
    g = _load(n)
    config = make_config(**g["config"])
    assert config.num_players == n
    assert config == make_config(n, **EXPECTED_OPTIONS[n])
    actions = g["actions"]
    hashes = g["state_hashes"]
    chars = len(hashes[0])
    assert len(hashes) == len(actions) + 1
    assert g["action_names"] == [describe_action(a) for a in actions], (
        f"{n}p: action names differ from the action table. {HOW_TO_FIX}"
    )

    s = new_game(config, g["seed"])
    policy = random.Random(g["policy_seed"])
    assert _hash(s, chars) == hashes[0], f"{n}p: the new game differs. {HOW_TO_FIX}"
    for i, a in enumerate(actions):
        where = f"{n}p golden game, decision {i} ({g['action_names'][i]})"
        legal = legal_actions(s)
        # the recorded policy still picks the same action (so the legal list is unchanged too)
        assert policy.choice(legal) == a, f"{where}: the legal actions changed. {HOW_TO_FIX}"
        try:
            apply_action(s, a)
        except IllegalActionError as e:
            raise AssertionError(f"{where}: no longer legal ({e}). {HOW_TO_FIX}") from None
        assert _hash(s, chars) == hashes[i + 1], f"{where}: the state differs. {HOW_TO_FIX}"
    assert s.is_over, f"{n}p: the golden game does not end after its actions. {HOW_TO_FIX}"
    got = json.loads(json.dumps(results(s)))
    assert got == g["results"], f"{n}p: the results differ. {HOW_TO_FIX}"
