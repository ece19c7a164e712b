"""The same seed gives byte-identical checkpoints: two short all-seat runs with one seed, in two
run directories, write the same `.npz` policies and `.pt` learner states byte for byte (their
sidecars differ only in the run directory and the time). That other seeds give other weights is
`tests/training/test_allseat.py`'s `test_same_seed_same_weights`."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

pytest.importorskip("torch")

from training.config import TrainConfig  # noqa: E402
from training.train import train  # noqa: E402


def _run(run_dir: Path, seed: int) -> dict[str, str]:
    """A tiny all-seat run; the sha256 of every checkpoint file it wrote, by relative path."""
    cfg = TrainConfig(
        mode="all_seat",
        run_dir=str(run_dir),
        seed=seed,
        num_players=[3],
        player_weights=[1.0],
        net_arch=[16, 16],
        n_games=4,
        n_steps=300,
        n_envs=1,
        batch_size=128,
        n_epochs=2,
        total_steps=2000,
        p_latest=0.6,
        p_bots_min=0.2,
        bots=["greedy", "random"],
        eval_bots=["greedy"],
        eval_games=3,
        eval_every=700,
        checkpoint_every=700,
        snapshot_every=700,
        progress=False,
        torch_threads=1,
    )
    train(cfg)
    return {
        str(p.relative_to(run_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run_dir.rglob("*"))
        if p.suffix in (".npz", ".pt")
    }


def test_same_seed_gives_byte_identical_checkpoints(tmp_path: Path):
    first = _run(tmp_path / "a", seed=11)
    second = _run(tmp_path / "b", seed=11)
    checkpoints = [k for k in first if k.startswith("checkpoints/") and k.endswith(".npz")]
    assert len(checkpoints) >= 2, first  # several checkpoints along the run, not only the last
    assert {k for k in first if k.endswith(".pt")}, "the learner state is compared too"
    assert len({first[k] for k in checkpoints}) == len(checkpoints)  # the weights moved
    assert second == first
