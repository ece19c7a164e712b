"""Ray: arena tournaments as Ray tasks, the RLlib multi-agent env, and RLlib PPO training with
its checkpoint exported to the lab's format and played in the arena.

Marked `ray`: deselected by the default suite; `.ci/run` installs the `ray` extra and runs
`python -m pytest -m ray`. Every test starts a small local Ray (2 CPUs, no dashboard) and
shuts it down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip(
    "ray", reason="Ray is not installed: pip install -e '.[ray]' (CI installs it)"
)
pytest.importorskip("ray.rllib", reason="RLlib is not installed: pip install -e '.[ray]'")

from typer.testing import CliRunner  # noqa: E402

from agents import arena as ar  # noqa: E402
from agents import registry  # noqa: E402
from agents.base import BaseAgent  # noqa: E402
from agents.policy import load_policy  # noqa: E402
from lastwill_env.encoding import OBS_SIZE, terminal_rewards  # noqa: E402
from lastwill_env.engine import NUM_ACTIONS, GameConfig, IllegalActionError, new_game  # noqa: E402
from lastwill_env.engine.config import ConfigError  # noqa: E402

pytestmark = pytest.mark.ray

CFG4 = GameConfig(num_players=4)

AGENT_SRC = '''
from agents.base import BaseAgent


class LowAgent(BaseAgent):
    """The lowest-numbered legal action, or a random one with chance eps."""

    def __init__(self, seed=None, eps=0.0):
        super().__init__(seed)
        self.eps = float(eps)

    def act(self, view, legal):
        if self.eps and self.rng.random() < self.eps:
            return self.rng.choice(legal)
        return min(legal)
'''


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():  # pragma: no cover - a Ray left by another module
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _lines(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head.pop("created")
    return [head] + [json.loads(x) for x in lines[1:]]


# -- arena on Ray --------------------------------------------------------------------------


def test_ray_tournament_gives_the_rows_of_one_process_with_custom_agents(
    local_ray, tmp_path, monkeypatch
):
    (tmp_path / "lw_ray_agents.py").write_text(AGENT_SRC)
    monkeypatch.chdir(tmp_path)  # the module is found through the current directory
    monkeypatch.setattr(sys, "path", list(sys.path))
    registry._load_builtin()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    class Closure(BaseAgent):  # registered at run time, defined here: Ray pickles it by value
        def act(self, view, legal):
            return legal[len(legal) // 2]

    registry.register("_mid", Closure, "test only: the middle legal action")
    entrants = ["lw_ray_agents:LowAgent:eps=0.2", "_mid", "greedy", "random"]
    one = ar.run_tournament(entrants, CFG4, 8, seed=3, out=tmp_path / "w1.jsonl", trusted=True)
    on_ray = ar.run_tournament(
        entrants, CFG4, 8, seed=3, out=tmp_path / "ray.jsonl", use_ray=True, trusted=True
    )
    assert one.errors == 0 and on_ray.errors == 0
    assert _lines(one.out) == _lines(on_ray.out)
    assert ray.is_initialized()  # the test's Ray is left running for the test to stop


def test_arena_cli_on_a_named_ray_cluster(local_ray, tmp_path):
    """`--ray-address` and `RAY_ADDRESS` connect a new driver to a running Ray (here the
    test's local one, as `ray start --head` would give on a cluster head)."""
    (tmp_path / "lw_ray_cli_agents.py").write_text(AGENT_SRC)
    address = ray.get_runtime_context().gcs_address
    players = "lw_ray_cli_agents:LowAgent,random"
    lastwill = str(Path(sys.executable).parent / "lastwill")
    base = [lastwill, "arena", "-q", "-p", players, "-g", "4"]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    one = subprocess.run(
        [*base, "-o", "w1.jsonl"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert one.returncode == 0, one.stderr
    flag = subprocess.run(
        [*base, "--ray", "--ray-address", address, "-o", "flag.jsonl"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert flag.returncode == 0, flag.stderr
    by_env = subprocess.run(
        [*base, "--ray", "-o", "env.jsonl"],
        cwd=tmp_path,
        env={**env, "RAY_ADDRESS": address},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert by_env.returncode == 0, by_env.stderr
    want = _lines(tmp_path / "w1.jsonl")
    assert _lines(tmp_path / "flag.jsonl") == want and _lines(tmp_path / "env.jsonl") == want


# -- the RLlib env -------------------------------------------------------------------------


def test_rllib_env_turns_masks_and_terminal_rewards():
    from lastwill_env.rllib import LastWillMultiAgentEnv

    env = LastWillMultiAgentEnv({"num_players": [3, 4], "seed": 5, "reward": "rank"})
    space = env.observation_spaces["player_0"]
    rng = np.random.default_rng(0)
    for _ in range(2):
        obs, infos = env.reset()
        n = len(env.agents)
        assert n in (3, 4) and env.agents == [f"player_{i}" for i in range(n)]
        actions = []
        done = False
        while not done:
            assert len(obs) == 1  # only the seat that must decide
            (agent,) = obs
            seat = int(agent.split("_")[1])
            assert seat == env.game.cur
            o = obs[agent]
            assert space.contains(o) and o["observations"].shape == (OBS_SIZE,)
            legal = np.flatnonzero(o["action_mask"])
            assert sorted(legal.tolist()) == sorted(env.game.legal_actions())
            a = int(rng.choice(legal))
            actions.append(a)
            obs, rew, term, trunc, infos = env.step({agent: a})
            done = term["__all__"]
            assert not trunc["__all__"]
        # the end: every seat observes, is terminated and gets its terminal reward
        assert set(obs) == set(rew) == set(env.agents)
        assert all(term[a] for a in env.agents)
        ranks = env.game.results["ranks"]
        assert [rew[a] for a in env.agents] == terminal_rewards(ranks, "rank")
        assert [infos[a]["rank"] for a in env.agents] == ranks
        assert all(not o["action_mask"].any() for o in obs.values())
    with pytest.raises(ConfigError, match="not allowed"):
        LastWillMultiAgentEnv({"num_players": 7})
    with pytest.raises(ConfigError, match="unknown|not allowed|allowed"):
        LastWillMultiAgentEnv({"no_such_option": 1})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    with pytest.raises(IllegalActionError):
        env.step({agent: NUM_ACTIONS + 5})


def test_masked_module_export_matches_the_numpy_forward():
    import gymnasium as gym
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from lastwill_env.encoding import encode_state
    from lastwill_env.rllib import observation_space
    from training.rllib_export import numpy_policy_from_state
    from training.rllib_module import MaskedPPOTorchRLModule

    torch.manual_seed(0)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=observation_space(),
        action_space=gym.spaces.Discrete(NUM_ACTIONS),
        model_config={
            "fcnet_hiddens": [32, 16],
            "fcnet_activation": "tanh",
            "vf_share_layers": False,
            "head_fcnet_hiddens": [],
        },
    ).build()
    npol = numpy_policy_from_state(module.state_dict(), "tanh")
    assert [w.shape for w in npol.weights] == [(32, OBS_SIZE), (16, 32), (NUM_ACTIONS, 16)]
    s = new_game(CFG4, 11)
    obs = encode_state(s, s.cur)
    legal = s.legal_actions()
    mask = np.zeros(NUM_ACTIONS, dtype=np.float32)
    mask[legal] = 1.0
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(obs[None]),
            "action_mask": torch.from_numpy(mask[None]),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
    want = npol.logits(obs)
    assert np.allclose(logits[legal], want[legal], atol=1e-5)
    illegal = np.setdiff1d(np.arange(NUM_ACTIONS), legal)
    assert (logits[illegal] < -1e30).all()  # masked: never sampled
    assert int(np.argmax(logits)) == npol.choose(obs, legal)
    # the critic comes along: the module's value estimate, from the numpy forward pass
    with torch.no_grad():
        v = module.compute_values(batch)[0].item()
    assert npol.value(obs) == pytest.approx(v, abs=1e-5)


# -- RLlib training ------------------------------------------------------------------------


def test_rllib_training_exports_a_checkpoint_the_lab_plays(local_ray, tmp_path):
    """A tiny `lastwill train --backend rllib` (2 iterations of 200 env steps) on the test's
    Ray; its exported checkpoint plays a 4-game arena, the evaluation and the opponent pool."""
    from apps.cli import app
    from training.pool import OpponentPool
    from training.rllib_export import export_rllib_checkpoint

    cfg = tmp_path / "tiny.toml"
    cfg.write_text(
        "[train]\ntotal_steps = 400\nn_steps = 200\nn_envs = 1\nbatch_size = 100\n"
        "n_epochs = 1\neval_every = 400\neval_games = 4\neval_bots = ['greedy']\n"
        "checkpoint_every = 400\nnet_arch = [64, 64]\nprogress = false\n"
        "[rllib]\nenv_runners = 1\n"
    )
    run = tmp_path / "run"
    runner = CliRunner()
    res = runner.invoke(
        app, ["train", "--backend", "rllib", "--config", str(cfg), "--run-dir", str(run)]
    )
    assert res.exit_code == 0, res.output
    state = json.loads((run / "state.json").read_text())
    assert state["backend"] == "rllib" and state["step"] >= 400
    ckpt = run / state["checkpoint"]
    assert ckpt.suffix == ".npz" and ckpt.with_suffix(".json").exists()
    policy, meta = load_policy(ckpt)  # the env signature matches this lab
    assert meta["source"] == "rllib" and [w.shape[0] for w in policy.weights] == [
        64,
        64,
        NUM_ACTIONS,
    ]
    # evaluation ran on the exported checkpoint (train.evaluate, unchanged)
    assert state["evals"] and state["evals"][0]["vs"]["greedy"]["games"] >= 4
    assert (run / "best.npz").exists() and (run / "eval" / f"step_{state['step']}.jsonl").exists()
    # a 4-game arena with the checkpoint
    out = tmp_path / "arena.jsonl"
    arena = runner.invoke(
        app,
        ["arena", "-q", "-p", f"ppo:{ckpt},random,greedy,planner", "-g", "4", "-o", str(out)],
    )
    assert arena.exit_code == 0, arena.output
    rows = _lines(out)[1:]
    assert len(rows) == 4 and all(r["error"] is None for r in rows)
    # the opponent pool of the lab's trainer takes it as a bot and as a snapshot
    pool = OpponentPool([f"ppo:{ckpt}"], p_latest=0.0, p_bots_min=1.0, seed=1)
    pool.set_snapshots({"rllib": str(ckpt)}, {"rllib": 1.0})
    assert len(pool.draw(4)) == 3
    # RLlib's own checkpoint exports to the same weights
    again = export_rllib_checkpoint(run / "rllib", tmp_path / "again.npz")
    p2, _ = load_policy(again)
    assert all(np.array_equal(a, b) for a, b in zip(p2.weights, policy.weights, strict=True))
    # an existing run is refused
    again_run = runner.invoke(
        app, ["train", "--backend", "rllib", "--config", str(cfg), "--run-dir", str(run)]
    )
    assert again_run.exit_code == 2 and "already holds a run" in again_run.output


def test_rllib_runs_keep_the_best_rule_and_resume(local_ray, tmp_path):
    """The RLlib backend goes through the lab's run loop: `best.*` is promoted as one verified
    unit, an interrupted run's `--resume` continues from RLlib's checkpoint beside the one
    state.json names, and a resume of it by another trainer is refused by name."""
    from apps.cli import app
    from training.checkpoint import load_checkpoint

    cfg = tmp_path / "tiny.toml"
    cfg.write_text(
        "[train]\ntotal_steps = 200\nn_steps = 200\nn_envs = 1\nbatch_size = 100\n"
        "n_epochs = 1\neval_every = 200\neval_games = 2\neval_bots = ['greedy']\n"
        "checkpoint_every = 200\nnet_arch = [16]\nprogress = false\n"
        "[rllib]\nenv_runners = 0\n"
    )
    run = tmp_path / "run"
    runner = CliRunner()
    base = ["train", "--backend", "rllib", "--config", str(cfg), "--run-dir", str(run)]
    res = runner.invoke(app, base)
    assert res.exit_code == 0, res.output
    first = json.loads((run / "state.json").read_text())
    meta = load_checkpoint(run / "best.npz", check=False)  # the companions match the sidecar
    assert meta["promoted_from"] == Path(first["best"]["checkpoint"]).stem
    assert (run / first["checkpoint"]).with_suffix(".rllib").is_dir()
    # --resume with a larger budget continues where it stopped
    res = runner.invoke(app, [*base, "--resume", "--total-steps", "400"])
    assert res.exit_code == 0, res.output
    state = json.loads((run / "state.json").read_text())
    assert state["step"] >= 400 and state["step"] > first["step"]
    assert [e["step"] for e in state["evals"]][: len(first["evals"])] == [
        e["step"] for e in first["evals"]
    ]
    # the RLlib checkpoint the state names is kept, and at most the one before it
    kept = {p.name for p in (run / "checkpoints").glob("*.rllib")}
    assert Path(state["checkpoint"]).with_suffix(".rllib").name in kept and len(kept) <= 2
    lab = runner.invoke(app, ["train", "--run-dir", str(run), "--resume", "--mode", "all_seat"])
    assert lab.exit_code == 2 and "--mode rllib" in lab.output
