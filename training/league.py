"""The league of an all-seat run (`exploiter_every`): main exploiters, AlphaStar's league in
small.

Every `exploiter_every` steps the run loop (`training.runloop`) asks the league for a best
response to the current policy: `train_exploiter` trains one (`training.exploit`, started from
the current weights and trained only against them, at a player count drawn from the run's mix)
in `<run>/exploiters/<id>/`, and `admit` lets it into the opponent pool (`pool.json`, kind
"exploiter", kept for good) when its win rate against the policy on fresh deals exceeds chance
by `exploiter_gate`. In the pool an exploiter is drawn by PFSP-hard weights
(`training.pool.PoolRegistry.weights`): the more it beats the learner, the more often it sits
at the table, until the learner has answered it.

The front door (`training.train`) hands `LEAGUE` to the run loop; an exploit run (a best
response itself) trains without one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import TrainConfig
from .exploit import exploit
from .pool import PoolRegistry, SnapshotInfo
from .rundir import rel
from .seating import draw_player_count
from .seeds import exploiter_seed

__all__ = ["LEAGUE", "League", "train_exploiter"]


def train_exploiter(run: Path, main: Path, cfg: TrainConfig, step: int, rng) -> dict[str, Any]:
    """A main exploiter: a best response to the policy `main` (a checkpoint of the run `run` at
    `step`), started from its weights and trained only against it, at a player count drawn
    with `rng` from the run's mix; it joins the pool when its win rate against `main` on fresh
    deals is above chance by `exploiter_gate` ("joined")."""
    n = draw_player_count(rng, cfg)
    ex_id = f"exploiter_{step}_{n}p"
    rep = exploit(
        f"ppo:{main}",
        n,
        cfg.exploiter_steps,
        run / "exploiters" / ex_id,
        seed=exploiter_seed(cfg.seed, step),
        eval_games=cfg.exploiter_games,
        train_eval_games=max(cfg.exploiter_games // 4, 8),
        panel=[],
        progress=False,
        overrides={
            "n_games": cfg.n_games,
            "n_steps": cfg.n_steps,
            "n_envs": cfg.n_envs,
            "batch_size": cfg.batch_size,
            "n_epochs": cfg.n_epochs,
            "learning_rate": cfg.learning_rate,
            "ent_coef": cfg.ent_coef,
            "torch_threads": cfg.torch_threads,
        },
    )
    br = rep["best_response"]
    final = Path(br["checkpoint"])
    return {
        "id": ex_id,
        "step": step,
        "num_players": n,
        "win_rate": br["win_rate"],
        "wilson_95": br["wilson_95"],
        "chance": br["chance"],
        "joined": (br["win_rate"] or 0.0) > br["chance"] + cfg.exploiter_gate,
        "checkpoint": rel(final, run),
    }


class League:
    """What the run loop asks of a league (`training.runloop.League`)."""

    def train_exploiter(
        self, run: Path, main: Path, cfg: TrainConfig, step: int, rng
    ) -> dict[str, Any]:
        return train_exploiter(run, main, cfg, step, rng)

    def admit(self, registry: PoolRegistry, info: dict[str, Any]) -> bool:
        """Put the exploiter `info` into the pool when it beat the policy; True if it joined."""
        if not info["joined"]:
            return False
        registry.add(
            SnapshotInfo(
                info["id"], info["checkpoint"], info["step"], milestone=True, kind="exploiter"
            )
        )
        return True


LEAGUE = League()
