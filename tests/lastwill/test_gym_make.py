"""`gymnasium.make("LastWill-v1", ...)`: the single-seat env registered by gymnasium's own
mechanisms (the `lastwill_env:LastWill-v1` id, the env module's import), and gymnasium's env
checker on the env as registered (`illegal_action="penalize"` by default for the id)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_check_env_passes_as_registered_and_the_class_default_raises():
    env = gym.make("LastWill-v1", num_players=2)
    assert env.unwrapped.illegal_action == "penalize"
    check_env(env.unwrapped, skip_render_check=True)
    check_env(gym.make("LastWill-v1", num_players=(2, 3)).unwrapped, skip_render_check=True)
    with pytest.raises(IllegalActionError):
        check_env(SingleSeatEnv(num_players=2), skip_render_check=True)
    with pytest.raises(IllegalActionError):
        check_env(gym.make("LastWill-v1", illegal_action="raise").unwrapped)


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.strip()


def test_module_colon_id_registers_in_a_fresh_interpreter():
    code = (
        "import gymnasium as gym; e = gym.make('lastwill_env:LastWill-v1', num_players=3); "
        "print(type(e.unwrapped).__name__, e.unwrapped.num_players)"
    )
    assert _run(code) == "SingleSeatEnv 3"


@pytest.mark.parametrize(
    "imports",
    [
        "import gymnasium as gym; import lastwill_env",
        "import lastwill_env; import gymnasium as gym",
        "import lastwill_env.engine, agents; import gymnasium as gym",
    ],
)
def test_registered_in_any_import_order_and_once(imports):
    code = (
        f"{imports}; gym.register_envs(lastwill_env); lastwill_env.register_gymnasium(); "
        "a = gym.make('lastwill_env:LastWill-v1'); b = gym.make('LastWill-v1', num_players=4); "
        "print(sum(k == 'LastWill-v1' for k in gym.envs.registry), "
        "a.unwrapped.num_players, b.unwrapped.num_players)"
    )
    assert _run(code) == "1 2 4"


def test_importing_the_package_installs_no_import_hook():
    # a meta-path finder put there by the package recursed in an install without the editable
    # path hook: `python -S` (no site) reproduces it with `import decimal`
    code = (
        "import sys; n = len(sys.meta_path); sys.path.insert(0, '.'); import lastwill_env; "
        "import decimal, lastwill_env.engine; print(len(sys.meta_path) == n)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(lastwill_env.__file__).resolve().parent.parent,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"


def test_gymnasium_first_registers_on_importing_the_package():
    gym_first = "import gymnasium, lastwill_env; print('LastWill-v1' in gymnasium.envs.registry)"
    assert _run(gym_first) == "True"
