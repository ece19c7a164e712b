"""`SingleSeatEnv`: gymnasium checks, opponents, rewards, and MaskablePPO smoke runs."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from lastwill_env.encoding import OBS_SIZE, action_mask
from lastwill_env.engine import NUM_ACTIONS, ConfigError, IllegalActionError
from lastwill_env.single_seat import RandomOpponent, SingleSeatEnv


def _play(env, rng, seed=None):
    obs, info = env.reset(seed=seed)
    total_opp = info["opponent_decisions"]
    steps = 0
    while True:
        m = env.action_masks()
        assert m.dtype == bool and m.any()
        np.testing.assert_array_equal(info["action_mask"], m.astype(np.int8))
        a = int(rng.choice(np.flatnonzero(m)))
        obs, rew, term, trunc, info = env.step(a)
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        steps += 1
        total_opp += info["opponent_decisions"]
        if term:
            return rew, info, steps, total_opp
        assert rew == 0.0 and not trunc


def test_check_env():
    # check_env steps with unmasked random actions, which are almost always illegal: with the
    # default illegal_action="raise" that raises by design, so it checks the penalize variant
    # (same spaces, reset and seeding; an illegal action ends the episode).
    env = SingleSeatEnv(num_players=(2, 3, 4, 5), illegal_action="penalize")
    check_env(env, skip_render_check=True)
    env = SingleSeatEnv(num_players=(2, 3, 4, 5))
    with pytest.raises(IllegalActionError):
        check_env(env, skip_render_check=True)


def test_random_games_rewards_and_info():
    rng = np.random.default_rng(0)
    env = SingleSeatEnv(num_players=(2, 3, 4, 5), player_weights=(1, 1, 1, 1))
    seen_n, seen_seat = set(), set()
    for g in range(12):
        rew, info, steps, opp = _play(env, rng, seed=g)
        n = info["num_players"]
        seen_n.add(n)
        seen_seat.add((n, info["seat"]))
        assert info["rank"] == info["ranks"][info["seat"]]
        assert rew == (1.0 if info["rank"] == 1 else pytest.approx(-1 / (n - 1)))
        assert (info["winner"] == info["seat"]) == (rew == 1.0)
        assert not env.action_masks().any()
        assert steps > 0 and opp > 0
    assert seen_n == {2, 3, 4, 5}
    assert len(seen_seat) > 4


def test_rank_reward_and_weights():
    rng = np.random.default_rng(1)
    env = SingleSeatEnv(num_players=(2, 5), player_weights=(0, 1), reward="rank")
    for g in range(3):
        rew, info, *_ = _play(env, rng, seed=g)
        assert info["num_players"] == 5
        assert rew == pytest.approx((5 - info["rank"]) / 4 * 2 - 1)


def test_seeded_reset_is_reproducible():
    a = SingleSeatEnv()
    b = SingleSeatEnv()
    oa, ia = a.reset(seed=5)
    ob, ib = b.reset(seed=5)
    np.testing.assert_array_equal(oa, ob)
    assert (ia["num_players"], ia["seat"]) == (ib["num_players"], ib["seat"])
    assert a.game.to_dict() == b.game.to_dict()


def test_injected_opponents_callable_object_and_factory():
    calls = {"fn": 0, "obj": 0, "factory": 0}

    def fn(view, legal, seat):
        calls["fn"] += 1
        assert view.to_act == 0 and seat != env.seat  # the view is the opponent's own
        return legal[0]

    class Bot:
        def act(self, view, legal):
            calls["obj"] += 1
            return legal[-1]

    env = SingleSeatEnv(opponents=[fn, Bot()], num_players=3)
    rng = np.random.default_rng(2)
    _play(env, rng, seed=0)
    assert calls["fn"] > 0 and calls["obj"] > 0

    def factory(n, rng):
        calls["factory"] += 1
        return [RandomOpponent(rng) for _ in range(n - 1)]

    env = SingleSeatEnv(opponents_fn=factory, num_players=4)
    _play(env, rng, seed=1)
    _play(env, rng, seed=2)
    assert calls["factory"] == 2


def test_illegal_learner_action():
    env = SingleSeatEnv(num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(illegal)
    env = SingleSeatEnv(num_players=2, illegal_action="penalize", illegal_penalty=-3.0)
    env.reset(seed=0)
    _, rew, term, _, info = env.step(illegal)
    assert term and rew == -3.0 and info["illegal_action"] == illegal
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_options_are_validated():
    with pytest.raises(ConfigError, match="num_players"):
        SingleSeatEnv(num_players=(2, 6))
    with pytest.raises(ConfigError, match="player_weights"):
        SingleSeatEnv(num_players=(2, 3), player_weights=(1,))
    with pytest.raises(ConfigError, match="opponents"):
        SingleSeatEnv(opponents=[RandomOpponent()], num_players=4)
    with pytest.raises(ConfigError, match="board_spaces"):
        SingleSeatEnv(board_spaces=0)


def test_spaces_and_mask():
    env = SingleSeatEnv(num_players=3, render_mode="ansi")
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(
        env.action_masks(), action_mask(env.game.legal_actions()).astype(bool)
    )
    assert "legal:" in env.render()


def test_maskable_ppo_learns_without_illegal_actions():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = SingleSeatEnv(num_players=(2, 3, 4, 5))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)  # an illegal action would raise IllegalActionError
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]


def test_maskable_ppo_subproc_vec_env():  # about 7 s here, so not marked slow
    pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([lambda: SingleSeatEnv(num_players=(2, 4)) for _ in range(2)])
    try:
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(128)
        masks = vec.env_method("action_masks")
        assert len(masks) == 2 and all(m.any() for m in masks)
    finally:
        vec.close()
