"""The front door of training: `train(cfg)` picks the trainer that `cfg.mode` names and runs it
in the shared run loop (`training.runloop`).

- `all_seat` (the default, and the shipped recipes'): the lab's all-seat PPO
  (`training.allseat.loop`), with the league's exploiters (`training.league`) when
  `exploiter_every` is set;
- `single_seat`: sb3-contrib MaskablePPO on the single-seat env (`training.sb3`);
- `rllib`: RLlib PPO, one shared policy over all seats (`training.rllib_backend`; its own
  settings, the `[rllib]` table and the Ray flags, come through `train_rllib`);
- `expert`: expert iteration (`training.expert`), whose settings are an `ExpertConfig`.

`lastwill train --mode M` chooses the same way (`--backend rllib`, its earlier spelling, is
`--mode rllib`), and a resumed run is continued by the trainer that made it (`resumed_mode`).
`evaluate` (`training.evaluation`), `resume_config` and `TrainError` (`training.rundir`) are
re-exported here for callers of the old paths.

What a run of the lab's trainers does and leaves (expert iteration's: `training.expert.loop`):

With `bc_teacher` set, a fresh run first imitates that scripted bot (`training.bc`); its fit
is recorded in state.json under "bc". One policy plays every player count (`num_players` with
`player_weights`); the learner's seat is drawn per game. Opponents come from the pool
(`training.pool`): the latest weights, frozen snapshots (PFSP) and a floor of scripted bots.
At the start (step 0, before the first update), every `eval_every` steps and at the last step
the current policy plays the fixed bot panel (`agents.evaluate`, at each of
`eval_num_players`) on paired deals (the same deal seeds at every evaluation), and TensorBoard
gets, at the learner's global step (`training.tblog`):

- in each bot's sub-run `tb/PPO_1/vs_<bot>/`: `eval/win_rate/<n>p` with `eval/win_rate_lo/<n>p`
  and `eval/win_rate_hi/<n>p` (Wilson 95%), `eval/mean_rank/<n>p` (tables of the learner and
  `n - 1` copies of the bot), and the chance rates under the same tags in `tb/PPO_1/chance/`,
  so each bot has its own colour on one chart,
- in the run: `eval/mean_win_rate/<n>p`, `eval/score`, `rating/elo` (the learner's rating over
  the evaluation games: one Plackett-Luce fit on the Elo scale, `agents.stats.fit_ratings`,
  anchored to `random`) and `rating/elo/<n>p`,
- `selfplay/pool_size`, `selfplay/snapshots`, `rollout/invalid_action_rate` (0 with masking),
  `time/sps`, `time/opponent_share` (share of env time spent in opponent decisions),
- the warm start's fit as the text `bc/fit` at step 0,
- besides SB3's own (`rollout/ep_rew_mean`, `train/*`, ...). The "Custom Scalars" tab shows
  the win rates against every bot on one chart with the chance line, and with their 95%
  intervals; the settings are in the "HParams" (with `eval/mean_win_rate/<n>p` per count as
  metrics) and "Text" tabs.

Run directory (`run_dir`):

    config.json            the resolved configuration
    trainer.lock           held while a trainer runs here (training.runlock; removed at its end)
    state.json             step, last checkpoint, best, schedule (what --resume reads)
    pool.json              the snapshot registry (ids, checkpoint paths, head-to-head record)
                           (paths in both are relative to the run directory)
    tb/PPO_1/              TensorBoard event files (vs_<bot>/, chance/: the evaluation's)
    checkpoints/step_N.{zip,json,npz}   model, sidecar, numpy policy weights
    snapshots/step_N.{zip,json,npz}     frozen pool members (also valid `ppo:PATH` players)
    best.{zip,json,npz}    the best checkpoint by mean win rate against the panel
    eval/step_N.jsonl      the evaluation games (arena rows)

Every file is written to a temporary name, fsynced and renamed (`agents.safeio`); a checkpoint
and its companions change as one unit (`training.checkpoint`), and the run directory is
checked and read with validation (`training.rundir`). A run directory that holds a run is
refused for a new run unless `force` (`--force`: the old run's files are removed); a run
stopped at any moment is continued by `resume` (`--resume`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .allseat.loop import train_all_seat
from .config import RunConfig
from .evaluation import eval_scalars, evaluate
from .league import LEAGUE
from .rundir import STATE, TrainError, load_state, resume_config
from .runloop import run_mode
from .sb3 import train_single_seat

__all__ = ["TrainError", "eval_scalars", "evaluate", "resume_config", "resumed_mode", "train"]


def train(
    cfg: RunConfig,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run a new training run, or with `resume` continue the one in `cfg.run_dir` (build `cfg`
    with `resume_config`), or with `force` start a new one in place of the run there; returns
    the final state dict. The trainer is the one `cfg.mode` names (module docstring). The run
    directory and, on resume, its state, pool and checkpoint are checked before anything
    starts; `notify` gets notes (a repaired `best.*`, a stale lock taken over), printed to
    stderr by default. The run directory is locked for the run (`training.runlock`): a second
    trainer on it is refused."""
    if cfg.mode == "expert":
        from .expert.trainer import expert

        return expert(cfg, resume, notify, force)  # type: ignore[arg-type]
    if cfg.mode == "rllib":
        from .rllib_backend import RLlibSettings, train_rllib

        return train_rllib(cfg, RLlibSettings(), resume, notify, force)  # type: ignore[arg-type]
    if cfg.mode == "all_seat":
        return train_all_seat(cfg, resume, notify, force, LEAGUE)  # type: ignore[arg-type]
    return train_single_seat(cfg, resume, notify, force)  # type: ignore[arg-type]


def resumed_mode(run_dir: str | Path) -> str:
    """The trainer (`mode`) that made the run in `run_dir` (`training.runloop.run_mode`); an
    expert-iteration state from before the run loop is read as well. A state that cannot be
    read is the `TrainError` of `training.rundir.load_state`."""
    try:
        raw = json.loads((Path(run_dir) / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raw = None
    if isinstance(raw, dict) and "iteration" in raw:
        return "expert"
    return run_mode(load_state(run_dir))
