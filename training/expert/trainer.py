"""Expert iteration as a trainer of the run loop (`training.runloop.Trainer`), and its front
door `expert` (`training.train.train` calls it for `mode = "expert"`).

An iteration is a step: `train` plays the iteration's self-play games, saves their samples and
updates the network (`training.expert.loop`), then hands the step to the run loop, which
saves the checkpoint (every iteration: the next one's search plays it), evaluates when due,
keeps `best.*` and writes the state. The files are named by iteration (`step_name = "iter"`:
`checkpoints/iter_K.*`, `eval/iter_K.jsonl`). A collecting run (`epochs = 0`) never changes its
network: its one checkpoint is the start's (`checkpoint_step` names step 0 at every step), so
it is evaluated at the start only.

Beside the run loop's entries the state keeps `iteration` (the last finished one) and
`history`, one row per iteration: its samples and their cost, the search's disagreement with
the network and the entropy of its targets, the update's losses, and the evaluation's scores
(`eval/win_rate/<n>p`, `eval/score`), which TensorBoard (`tb/`) also gets at the iteration's
step (`expert/<name>` and the `eval/` tags as they are).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.safeio import write_json

from ..progress import TrainProgress
from ..rundir import STATE, TrainError
from ..runlock import run_lock
from ..runloop import RunLoop
from ..runloop import run as run_loop
from .config import ExpertConfig
from .learn import target_stats
from .loop import (
    ExpertError,
    _check_start,
    _collecting,
    _from_start,
    _line,
    _load_learner,
    _save,
    _save_samples,
    _update,
    self_play,
    start_policy,
    upgrade_state,
)

__all__ = ["ExpertTrainer", "eval_scores", "expert"]


def eval_scores(result: dict[str, Any]) -> dict[str, float]:
    """An evaluation's scores as expert iteration records them: the mean win rate at each
    count and the score."""
    scores = {
        f"eval/win_rate/{n}p": float(v["mean_win_rate"]) for n, v in result["by_players"].items()
    }
    scores["eval/score"] = float(result["score"])
    return scores


class ExpertTrainer:
    """Expert iteration's hooks of the run loop (module docstring)."""

    label = "expert iteration"
    checkpoint_suffix = ".npz"
    suffix = ".pt"  # the learner state that --resume reads
    step_name = "iter"
    uses_pool = False  # every seat plays the search over the current network
    league_rng = None

    def __init__(self, cfg: ExpertConfig, notify: Callable[[str], None] | None = None) -> None:
        self.cfg = cfg
        self.run_dir = Path(cfg.run_dir)
        self.notify = notify
        self.model: Any = None
        self.opt: Any = None
        self.tcfg: Any = None
        self.writer: Any = None
        self.loop: RunLoop | None = None

    def settings(self) -> dict[str, Any]:
        return {}

    def checkpoint_step(self, step: int) -> int:
        """A collecting run's learner is the start's at every step."""
        return 0 if _collecting(self.cfg) else step

    def build(self, loop: RunLoop, checkpoint: Path | None) -> None:
        """The network: the start policy's, with a resumed run's learner state over it."""
        import torch

        from training.allseat import make_optimizer

        self.loop = loop
        cfg = self.cfg
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        if loop.force and (self.run_dir / "samples").is_dir():  # the replaced run's samples
            shutil.rmtree(self.run_dir / "samples")
            loop.say(f"note: --force: removed {self.run_dir / 'samples'} of the earlier run")
        _, self.tcfg = start_policy(cfg)
        self.model = _from_start(cfg, self.tcfg)
        self.opt = make_optimizer(self.model, self.tcfg)
        if checkpoint is not None and loop.step > 0 and not _collecting(cfg):
            _load_learner(checkpoint, self.model, self.opt)
        self.model.eval()
        loop.state.setdefault("iteration", loop.step)
        loop.state.setdefault("history", [])

    def warm_start(self, progress: TrainProgress) -> dict[str, Any]:
        return {}  # expert iteration has no warm start (`ExpertConfig.bc_teacher` is "")

    def train(self, loop: RunLoop) -> int:
        """The iterations after the run's last one, each a step of the run loop."""
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.run_dir / "tb"))
        step = loop.step
        loop.begin(step)
        for it in range(step + 1, self.cfg.iterations + 1):
            row = self._iteration(it)
            loop.state["iteration"] = it
            loop.state["history"].append(row)
            loop.after_update(it, it - 1)
            self.writer.flush()
            self._say(_line(row))
            step = it
        loop.end(step)
        return step

    def _iteration(self, it: int) -> dict[str, Any]:
        """Iteration `it`'s self-play, samples and update; its row (also on TensorBoard)."""
        cfg = self.cfg
        data, speed = self_play(cfg, self.run_dir, it)
        _save_samples(self.run_dir, it, data, cfg)
        taught = target_stats(data)
        fitted: dict[str, float] = {}
        if not _collecting(cfg):
            fitted = _update(cfg, self.run_dir, it, self.model, self.opt, self.tcfg)
        row = {"iteration": it, **speed, **taught, **fitted}
        for k, v in row.items():
            if k != "iteration" and isinstance(v, (int, float)):
                self.writer.add_scalar(f"expert/{k}", v, it)
        return row

    def on_evaluation(self, step: int, result: dict[str, Any]) -> None:
        """The evaluation's scores on TensorBoard and in its iteration's row; a new best also
        names its iteration."""
        scores = eval_scores(result)
        for k, v in scores.items():
            self.writer.add_scalar(k, v, step)
        assert self.loop is not None
        rows = [r for r in self.loop.state["history"] if r.get("iteration") == step]
        if rows:
            rows[-1].update(scores)
        best = self.loop.state.get("best")
        if best is not None and best.get("step") == step:  # as expert iteration named it
            best["iteration"] = step

    def save(self, path: Path, step: int, kind: str) -> None:
        """The network of iteration `step` as the checkpoint `path` (its sidecar names the
        trainer, the iteration and the settings)."""
        _save(path, step, self.model, self.opt, self.tcfg, self.cfg)

    def set_pool(self, registry: Any) -> None:
        pass

    def finish(self, loop: RunLoop) -> None:
        pass

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def _say(self, text: str) -> None:
        """A line per iteration: above the progress bar, or to `notify` without one."""
        assert self.loop is not None
        if self.loop.progress.enabled:
            self.loop.progress.note(text)
        elif self.notify is not None:
            self.notify(text)


# -- the run ---------------------------------------------------------------------------------


def expert(
    cfg: ExpertConfig,
    resume: bool = False,
    notify: Callable[[str], None] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run (or with `resume`, continue; with `force`, start in place of the run there) expert
    iteration in `cfg.run_dir` through the run loop (`training.expert.loop`); returns the run's
    state. A refusal is an `ExpertError` (or an `ExpertConfigError` for the start policy)."""
    run = Path(cfg.run_dir)
    try:
        st = _check_start(run, cfg, resume)  # refused before the directory is made or locked
        if st is not None and "step" not in st:  # a run from before the run loop
            with run_lock(run, notify):
                write_json(run / STATE, upgrade_state(run, st, cfg))
            if notify is not None:
                notify(f"note: {run / STATE} rewritten in the run loop's form (the same run)")
        return run_loop(cfg, ExpertTrainer(cfg, notify), resume, notify, force)
    except ExpertError:
        raise
    except TrainError as e:
        raise ExpertError(str(e)) from None
