"""labreports.checkpoint_league: a run's checkpoints against each other (does self-play
cycle?), on the tiny game, and its cycle finder."""

from __future__ import annotations

import json

import numpy as np
import tinygame  # noqa: E402

from agents.policy import NumpyPolicy, save_policy  # noqa: E402
from labreports import checkpoint_league as league  # noqa: E402


def _policy(game, seed: int) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    w = [
        rng.normal(size=(8, game.obs_size)).astype(np.float32),
        rng.normal(size=(game.num_actions, 8)).astype(np.float32),
    ]
    b = [
        rng.normal(size=8).astype(np.float32),
        rng.normal(size=game.num_actions).astype(np.float32),
    ]
    return NumpyPolicy(w, b, "tanh", game=game)


def test_every_pair_of_checkpoints_is_compared_on_shared_deals(tmp_path, capsys):
    tally = tinygame.install()
    paths = [
        str(save_policy(_policy(tally, s), tmp_path / f"step_{1000 * (s + 1)}.npz"))
        for s in range(3)
    ]
    args = [*paths, "--game", "tally", "--players", "2", "--games", "6", "--seed", "3", "--json"]
    assert league.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["step"] for c in out["checkpoints"]] == [1000, 2000, 3000]
    assert out["game"] == "tally" and out["deals"] == "validation" and len(out["pairs"]) == 3
    first = out["checkpoints"][0]["spec"]
    assert out["ratings"]["ratings"][first]["rating"] == 0.0  # the first one is the anchor
    assert {p["deals"] for p in out["pairs"]} == {3}  # 6 games of 2 seatings: 3 deals a pair


def test_a_loop_of_three_clear_wins_is_a_cycle_and_a_chain_is_not():
    def beat(a, b):
        return {"a": a, "b": b, "better": a}

    loop = [beat("x", "y"), beat("y", "z"), beat("z", "x")]
    assert league.cycles(loop, ["x", "y", "z"]) == [["x", "y", "z"]]
    chain = [beat("x", "y"), beat("y", "z"), beat("x", "z")]
    assert league.cycles(chain, ["x", "y", "z"]) == []
    unclear = [beat("x", "y"), beat("y", "z"), {"a": "z", "b": "x", "better": None}]
    assert league.cycles(unclear, ["x", "y", "z"]) == []
