"""`gymnasium.make("LastWill-v1", ...)`: the single-seat env registered on `import lastwill_env`,
and gymnasium's env checker with the documented setting (`illegal_action="penalize"`)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import lastwill_env
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import ConfigError, IllegalActionError
from lastwill_env.single_seat import SingleSeatEnv


def test_make_reset_and_step_through_gymnasium():
    env = gym.make(lastwill_env.GYM_ID, num_players=2, illegal_action="penalize")
    assert isinstance(env.unwrapped, SingleSeatEnv)
    assert env.unwrapped.player_counts == (2,) and env.unwrapped.illegal_action == "penalize"
    obs, info = env.reset(seed=3)
    assert obs.shape == (OBS_SIZE,) and info["num_players"] == 2
    legal = np.flatnonzero(info["action_mask"])
    assert legal.size > 0
    obs, reward, terminated, truncated, info = env.step(int(legal[0]))
    assert obs.shape == (OBS_SIZE,) and not truncated
    assert reward == 0.0 or terminated


def test_make_passes_opponents_and_refuses_bad_options():
    calls = []

    def first_legal(view, legal, seat):
        calls.append(seat)
        return legal[0]

    env = gym.make("LastWill-v1", num_players=3, opponents=[first_legal, first_legal])
    env.reset(seed=0)
    assert set(calls) <= {0, 1, 2} and env.unwrapped.num_players == 3
    with pytest.raises(ConfigError, match="num_players"):
        gym.make("LastWill-v1", num_players=7)


def test_check_env_passes_with_penalize_and_the_default_raises():
    env = gym.make("LastWill-v1", num_players=(2, 3), illegal_action="penalize")
    check_env(env.unwrapped, skip_render_check=True)
    with pytest.raises(IllegalActionError):
        check_env(gym.make("LastWill-v1", num_players=2).unwrapped, skip_render_check=True)


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.strip()


def test_registered_whichever_is_imported_first_and_only_once():
    # gymnasium first, lastwill_env after; and lastwill_env first, gymnasium (via pettingzoo)
    # after: both register LastWill-v1 once, and importing lastwill_env alone imports neither
    gym_first = "import gymnasium, lastwill_env; print('LastWill-v1' in gymnasium.envs.registry)"
    assert _run(gym_first) == "True"
    env_first = (
        "import sys, lastwill_env; light = 'gymnasium' not in sys.modules; import pettingzoo; "
        "import gymnasium; lastwill_env.register_gymnasium(); "
        "print(light, sum(k == 'LastWill-v1' for k in gymnasium.envs.registry))"
    )
    assert _run(env_first) == "True 1"
