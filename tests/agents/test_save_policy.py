"""`agents.policy.save_policy`: a MaskablePPO model trained on `SingleSeatEnv` (docs/ENV.md's
snippet) becomes a `ppo:PATH` player; a `.zip` without a sidecar says how to make one."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from agents import arena as ar  # noqa: E402
from agents.policy import (  # noqa: E402
    CheckpointError,
    CheckpointMismatchError,
    NumpyPolicy,
    env_signature,
    load_policy,
    save_policy,
)
from agents.registry import PlayerSpecError, make_agent  # noqa: E402
from lastwill_env.encoding import encode_state  # noqa: E402
from lastwill_env.engine import GameConfig, new_game  # noqa: E402
from lastwill_env.single_seat import RandomOpponent, SingleSeatEnv  # noqa: E402


@pytest.fixture(scope="module")
def model():
    def opponents_fn(num_players, rng):
        return [RandomOpponent(rng) for _ in range(num_players - 1)]

    e = SingleSeatEnv(opponents_fn=opponents_fn, num_players=(2, 3), reward="zero_sum")
    return MaskablePPO(
        "MlpPolicy", e, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu"
    ).learn(32)


def test_save_policy_writes_what_ppo_path_plays(model, tmp_path):
    npz = save_policy(model, tmp_path / "mine.npz", extra={"note": "from docs/ENV.md"})
    assert npz == tmp_path / "mine.npz"
    meta = json.loads((tmp_path / "mine.json").read_text())
    assert {k: meta[k] for k in env_signature()} == env_signature()
    assert meta["note"] == "from docs/ENV.md"
    policy, _ = load_policy(npz)
    s = new_game(GameConfig(3), 4)
    obs = encode_state(s, s.cur)
    assert np.allclose(policy.logits(obs), NumpyPolicy.from_sb3(model).logits(obs), atol=1e-6)
    res = ar.run_tournament(
        [f"ppo:{npz}", "random", "greedy"], GameConfig(3), 3, seed=2, out=tmp_path / "a.jsonl"
    )
    assert res.errors == 0 and len(res.rows) == 3


def test_a_zip_without_sidecar_says_how_to_make_one(model, tmp_path):
    zip_path = tmp_path / "my.zip"
    model.save(str(zip_path))
    with pytest.raises(CheckpointError, match="save_policy") as e:
        load_policy(zip_path)
    assert "my.npz" in str(e.value) and "MaskablePPO.load" in str(e.value)
    with pytest.raises(PlayerSpecError, match="save_policy"):
        make_agent(f"ppo:{zip_path}")
    # doing what the message says makes the same spec playable
    save_policy(MaskablePPO.load(str(zip_path), device="cpu"), zip_path)
    assert (tmp_path / "my.json").exists() and (tmp_path / "my.npz").exists()
    assert zip_path.exists()  # the model file itself is left as it was
    make_agent(f"ppo:{zip_path}", seed=1)
    make_agent(f"ppo:{tmp_path / 'my.npz'}", seed=1)


def test_save_policy_refuses_a_model_for_other_spaces(tmp_path):
    other = SimpleNamespace(
        observation_space=spaces.Box(-1, 1, (4,)), action_space=spaces.Discrete(2)
    )
    with pytest.raises(CheckpointMismatchError, match="this lab's spaces"):
        save_policy(other, tmp_path / "x.npz")
    with pytest.raises(CheckpointError, match=r"\.npz or \.zip"):
        save_policy(other, tmp_path / "x.pt")
    assert not list(tmp_path.iterdir())


def test_save_policy_takes_the_all_seat_trainers_model(tmp_path):
    from training.allseat import build_model
    from training.config import TrainConfig

    model = build_model(TrainConfig(mode="all_seat", net_arch=[16, 16]), seed=0)
    npz = save_policy(model, tmp_path / "allseat")
    policy, meta = load_policy(npz)
    assert meta["obs_size"] == env_signature()["obs_size"]
    s = new_game(GameConfig(4), 2)
    obs = encode_state(s, s.cur)
    assert np.allclose(policy.logits(obs), model.actor_numpy().logits(obs), atol=1e-6)
    make_agent(f"ppo:{npz}", seed=0)
