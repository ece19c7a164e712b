"""A tiny expert-iteration configuration shared by the expert tests (seconds to run)."""

from __future__ import annotations

from pathlib import Path

from training.expert import ExpertConfig

REF = "agents/policies/reference.npz"


def tiny(run: Path, **over) -> ExpertConfig:
    """Two iterations at 2 players, one game of 4-simulation searches each."""
    base = dict(
        run_dir=str(run),
        init_policy=REF,
        iterations=2,
        games=1,
        sims=4,
        num_players=[2],
        player_weights=[1.0],
        epochs=1,
        batch_size=64,
        eval_games=2,
        eval_bots=["greedy"],
        eval_num_players=[2],
        eval_every=1,
        progress=False,
    )
    base.update(over)
    return ExpertConfig(**base)
