"""Shared inputs of the viewer tests: a tiny policy checkpoint with a critic, and a log."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from paths import REPO

from agents.arena import run_tournament
from agents.policy import NumpyPolicy, env_signature
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import NUM_ACTIONS, GameConfig

EXAMPLE_LOG = REPO / "apps" / "viewer" / "examples" / "reference_vs_bots.jsonl"


def make_checkpoint(folder: Path, seed: int = 0, hidden: int = 16, critic: bool = True) -> Path:
    """A small random-weight checkpoint (`.npz` + sidecar) that this lab accepts."""
    rng = np.random.default_rng(seed)
    w = [rng.normal(0, 0.05, (hidden, OBS_SIZE)), rng.normal(0, 0.5, (NUM_ACTIONS, hidden))]
    b = [rng.normal(0, 0.1, hidden), rng.normal(0, 0.1, NUM_ACTIONS)]
    vw = [rng.normal(0, 0.05, (hidden, OBS_SIZE)), rng.normal(0, 0.5, (1, hidden))]
    vb = [rng.normal(0, 0.1, hidden), rng.normal(0, 0.1, 1)]
    pol = NumpyPolicy(w, b, "tanh", vw if critic else None, vb if critic else None)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("tiny.npz" if critic else "tiny_actor.npz")
    pol.save_npz(path)
    meta = {**env_signature(), "step": 1234, "config": {"reward": "zero_sum", "shaping": 0.0}}
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def make_policy_log(folder: Path) -> tuple[Path, Path]:
    """A 3-game, 3-player arena log with the tiny policy at one seat: (log, checkpoint)."""
    ckpt = make_checkpoint(folder)
    out = folder / "policy_log.jsonl"
    run_tournament(
        [f"ppo:{ckpt}", "greedy", "planner"], GameConfig(num_players=3), 3, seed=2, out=out
    )
    return out, ckpt
