"""examples/cleanrl_ppo.py: its arguments, its masked policy, and a tiny run that trains,
evaluates and prints a win rate (the full budget's result is stated in its docstring)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cleanrl_ppo.py"
RESULT = re.compile(
    r"win rate against greedy at 2 players: (\d\.\d{3}) \((\d+)/(\d+) games, "
    r"Wilson 95% (\d\.\d{3})-(\d\.\d{3}); chance 0\.500\)"
)


@pytest.fixture(scope="module")
def ppo():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cleanrl_ppo"] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["cleanrl_ppo"]


def test_arguments_are_flags_and_a_budget_below_one_rollout_is_refused(ppo, capsys):
    args = ppo.parse_args(["--total-steps", "4096", "--no-anneal-lr", "--teacher", ""])
    assert args.total_steps == 4096 and args.anneal_lr is False and args.teacher == ""
    with pytest.raises(SystemExit) as e:
        ppo.parse_args(["--total-steps", "10"])
    assert e.value.code == 2 and "less than one rollout" in capsys.readouterr().err


def test_a_bad_opponent_spec_is_refused_with_the_flag_named(ppo, capsys):
    for flag in ("--opponents", "--eval-opponent", "--teacher"):
        with pytest.raises(SystemExit) as e:
            ppo.parse_args([flag, "greedy,nosuchbot"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and flag in err and "nosuchbot" in err


def test_each_game_draws_its_opponent_from_the_mix(ppo):
    env = ppo.make_env(ppo.Args(opponents="greedy,random"), seed=0)
    draw, rng = env.unwrapped.opponents_fn, np.random.default_rng(0)
    drawn = [type(bot).__name__ for _ in range(40) for bot in draw(2, rng)]
    assert len(drawn) == 40 and len(set(drawn)) == 2, drawn
    env = ppo.make_env(ppo.Args(), seed=0, opponents="greedy")
    assert {type(b).__name__ for _ in range(10) for b in env.unwrapped.opponents_fn(2, rng)} == {
        type(ppo.make_agent("greedy", seed=0)).__name__
    }


def test_the_policy_samples_only_legal_actions(ppo):
    env = ppo.make_env(ppo.Args(), seed=0)
    obs, info = env.reset(seed=0)
    agent = ppo.Agent(obs.shape[0], env.action_space.n, 16)
    x = torch.as_tensor(obs).repeat(64, 1)
    mask = torch.as_tensor(info["action_mask"], dtype=torch.bool).repeat(64, 1)
    action, logprob, _, value, logits = agent.get_action_and_value(x, mask)
    assert mask[0, action].all() and value.shape == (64,)
    assert (logits[~mask] <= -1e7).all() and torch.isfinite(logprob).all()
    teacher = ppo.make_agent("greedy", seed=0)
    assert info["action_mask"][ppo.teacher_choice(teacher, env)] == 1


def test_wilson_interval_holds_the_rate_and_stays_in_0_1(ppo):
    assert ppo.wilson(0, 10)[0] == 0.0 and ppo.wilson(10, 10)[1] == 1.0
    lo, hi = ppo.wilson(30, 100)
    assert 0.2 < lo < 0.3 < hi < 0.4


def test_a_few_steps_train_evaluate_and_print_the_win_rate(ppo, capsys):
    tiny = "--total-steps 64 --num-envs 2 --num-steps 32 --num-minibatches 2 --eval-games 2"
    rate = ppo.main([*tiny.split(), "--hidden", "16", "--update-epochs", "1"])
    out = capsys.readouterr().out
    m = RESULT.search(out)
    assert m, out
    assert float(m.group(1)) == rate and m.group(3) == "2" and "step       64" in out


@pytest.mark.slow
def test_the_script_runs_briefly_from_the_command_line():
    cmd = [sys.executable, str(EXAMPLE), "--total-steps", "4096", "--eval-games", "10"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True).stdout
    m = RESULT.search(out)
    assert m, out
    assert m.group(3) == "10" and 0.0 <= float(m.group(4)) <= float(m.group(1))
