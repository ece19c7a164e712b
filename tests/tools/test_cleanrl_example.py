"""examples/cleanrl_ppo.py: its arguments parse from the command line, its masked policy never
picks an illegal action, and a tiny run writes CleanRL's TensorBoard tags and prints a win
rate (the full budget's result is stated in its docstring)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import numpy as np
import pytest
from paths import REPO

torch = pytest.importorskip("torch")
pytest.importorskip("tyro")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

EXAMPLE = REPO / "examples" / "cleanrl_ppo.py"
RESULT = re.compile(
    r"win rate against greedy at 2 players: (\d\.\d{3}) \((\d+)/(\d+) games, "
    r"Wilson 95% (\d\.\d{3})-(\d\.\d{3}); chance 0\.500\)"
)
CLEANRL_TAGS = {
    "charts/episodic_return",
    "charts/episodic_length",
    "charts/learning_rate",
    "charts/SPS",
    "losses/value_loss",
    "losses/policy_loss",
    "losses/entropy",
    "losses/old_approx_kl",
    "losses/approx_kl",
    "losses/clipfrac",
    "losses/explained_variance",
}
TINY = [
    *("--total-timesteps", "512", "--num-envs", "2", "--num-steps", "128"),
    *("--num-minibatches", "2", "--hidden", "16", "--update-epochs", "1", "--eval-games", "2"),
]


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


def test_arguments_parse_from_the_command_line(ppo, capsys):
    argv = ["--total-timesteps", "8192", "--no-anneal-lr", "--margin-coef", "0.5"]
    args = ppo.parse_args([*argv, "--opponents", "random,greedy"])
    assert (args.total_timesteps, args.anneal_lr, args.margin_coef) == (8192, False, 0.5)
    assert args.opponents == "random,greedy" and args.eval_opponents == "greedy,speculator,random"
    assert (args.batch_size, args.minibatch_size, args.num_iterations) == (4096, 1024, 2)
    with pytest.raises(SystemExit) as e:
        ppo.parse_args(["--help"])
    help_text = capsys.readouterr().out
    assert e.value.code == 0
    assert "--total-timesteps" in help_text and "--no-eval-argmax" in help_text


def test_a_budget_below_one_rollout_is_refused(ppo, capsys):
    with pytest.raises(SystemExit) as e:
        ppo.parse_args(["--total-timesteps", "10"])
    assert e.value.code == 2 and "less than one rollout" in capsys.readouterr().err


def test_a_bad_opponent_spec_is_refused_with_the_flag_named(ppo, capsys):
    for flag in ("--opponents", "--eval-opponents"):
        with pytest.raises(SystemExit) as e:
            ppo.parse_args([flag, "greedy,nosuchbot"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and flag in err and "nosuchbot" in err


def test_each_game_draws_its_opponent_from_the_mix(ppo):
    env = ppo.make_env("lastwill_env:LastWill-v1", "greedy,random", seed=0)()
    draw, rng = env.unwrapped.opponents_fn, np.random.default_rng(0)
    drawn = [type(bot).__name__ for _ in range(40) for bot in draw(2, rng)]
    assert len(drawn) == 40 and len(set(drawn)) == 2, drawn
    assert env.unwrapped.illegal_action == "raise"  # an illegal action would stop the run


def test_the_mask_overrides_logits_that_favour_illegal_actions(ppo):
    agent = ppo.Agent(8, 20, hidden=16)
    with torch.no_grad():
        agent.actor[-1].bias[:] = 0.0
        agent.actor[-1].bias[:10] = 50.0  # the illegal half is by far the likeliest unmasked
    mask = torch.zeros(4096, 20, dtype=torch.bool)
    mask[:, 10:] = torch.rand(4096, 10) < 0.3
    mask[torch.arange(4096), 10 + torch.randint(10, (4096,))] = True  # at least one legal
    action, logprob, _, value = agent.get_action_and_value(torch.randn(4096, 8), mask)
    assert mask[torch.arange(4096), action].all()
    assert torch.isfinite(logprob).all() and value.shape == (4096, 1)
    assert (agent.masked_logits(torch.randn(3, 8), mask[:3])[~mask[:3]] == ppo.MASKED_LOGIT).all()


def test_the_final_margin_is_added_to_the_terminal_reward(ppo):
    env = ppo.make_env("lastwill_env:LastWill-v1", "random", seed=0, margin_coef=2.0)()
    obs, info = env.reset(seed=3)
    rng, done = np.random.default_rng(0), False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, _, info = env.step(action)
    totals, seat = info["result"]["totals"], info["seat"]
    game = 1.0 if info["winner"] == seat else -1.0
    assert reward == pytest.approx(game + 2.0 * (totals[1 - seat] - totals[seat]) / 100)
    assert info["episode"]["r"] == game  # the episode statistics keep the game's own return


def test_a_tiny_run_writes_cleanrl_tags_and_prints_the_win_rate(ppo, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rates = ppo.main([*TINY, "--eval-opponents", "greedy,random"])
    out = capsys.readouterr().out
    m = RESULT.search(out)
    assert m and float(m.group(1)) == rates["greedy"] and m.group(3) == "2"
    assert set(rates) == {"greedy", "random"} and "win rate against random" in out
    (run,) = (tmp_path / "runs").iterdir()
    events = event_accumulator.EventAccumulator(str(run))
    events.Reload()
    assert set(events.Tags()["scalars"]) >= CLEANRL_TAGS
    returns = {e.value for e in events.Scalars("charts/episodic_return")}
    assert returns and returns <= {-1.0, 1.0}
    assert [e.value for e in events.Scalars("charts/learning_rate")] == pytest.approx([1e-3, 5e-4])
    assert [e.step for e in events.Scalars("losses/approx_kl")] == [256, 512]
    assert [e.value for e in events.Scalars("eval/win_rate_vs_random")] == [rates["random"]]


def test_wilson_interval_holds_the_rate_and_stays_in_0_1(ppo):
    assert ppo.wilson(0, 10)[0] == 0.0 and ppo.wilson(10, 10)[1] == 1.0
    lo, hi = ppo.wilson(30, 100)
    assert 0.2 < lo < 0.3 < hi < 0.4


@pytest.mark.slow
def test_the_script_runs_briefly_from_the_command_line(tmp_path):
    cmd = [sys.executable, str(EXAMPLE), "--total-timesteps", "4096", "--eval-games", "10"]
    cmd += ["--eval-opponents", "greedy"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    m = RESULT.search(proc.stdout)
    assert m, proc.stdout
    assert m.group(3) == "10" and 0.0 <= float(m.group(4)) <= float(m.group(1))
    assert len(list((tmp_path / "runs").iterdir())) == 1
