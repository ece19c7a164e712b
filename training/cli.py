"""The `lastwill` console script: the agents' commands (`arena`, ...) plus `lastwill train`.

The app itself is built in `agents.cli`; this top-layer module adds the training command, so
that `agents` never imports `training` (DESIGN.md's import arrows). torch and stable-baselines3
are imported only when `train` runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agents.cli import app, fail, note

__all__ = ["app"]


def _int_list(text: str | None, name: str) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"--{name} takes comma-separated integers, e.g. 2,3,4,5; got {text!r}")


def _float_list(text: str | None, name: str) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"--{name} takes comma-separated numbers, e.g. 1,1,2,1; got {text!r}")


@app.command(
    "train",
    help=(
        "Self-play MaskablePPO with an opponent pool, evaluation against a bot panel, "
        "TensorBoard logs and checkpoints. Settings come from defaults, then --config "
        "(TOML: top level or a table named train), then these flags. The run directory layout is "
        "described in the README (Training)."
    ),
)
def train_cmd(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="TOML file of training settings")
    ] = None,
    run_dir: Annotated[str | None, typer.Option(help="run directory (runs/train/NAME)")] = None,
    total_steps: Annotated[int | None, typer.Option(help="learner steps in total")] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the run")] = None,
    mode: Annotated[
        str | None,
        typer.Option(help="single_seat (SB3, one learner seat per game) or all_seat"),
    ] = None,
    n_envs: Annotated[int | None, typer.Option(help="env worker processes")] = None,
    num_players: Annotated[
        str | None, typer.Option(help="player counts of the game mix, e.g. 2,3,4,5")
    ] = None,
    player_weights: Annotated[
        str | None, typer.Option(help="weights of those counts, e.g. 1,1,2,1")
    ] = None,
    eval_every: Annotated[int | None, typer.Option(help="steps between evaluations")] = None,
    eval_games: Annotated[int | None, typer.Option(help="evaluation games per bot")] = None,
    checkpoint_every: Annotated[int | None, typer.Option(help="steps between checkpoints")] = None,
    snapshot_every: Annotated[int | None, typer.Option(help="steps between pool snapshots")] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="continue the run in --run-dir where it stopped")
    ] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    from .config import TrainConfigError, load_config
    from .train import TrainError, resume_config, train

    overrides = {
        "run_dir": run_dir,
        "total_steps": total_steps,
        "seed": seed,
        "mode": mode,
        "n_envs": n_envs,
        "num_players": _int_list(num_players, "num-players"),
        "player_weights": _float_list(player_weights, "player-weights"),
        "eval_every": eval_every,
        "eval_games": eval_games,
        "checkpoint_every": checkpoint_every,
        "snapshot_every": snapshot_every,
        "progress": progress,
    }
    try:
        if resume:
            if run_dir is None:
                fail("--resume needs --run-dir (the run to continue)")
            cfg = resume_config(run_dir, total_steps)
            cfg.progress = progress
        else:
            cfg = load_config(config, **overrides)
        state = train(cfg, resume=resume)
    except (TrainConfigError, TrainError) as e:
        fail(str(e))
    best = state.get("best")
    best_name = "best.npz" if cfg.mode == "all_seat" else "best.zip"
    note(
        f"run {cfg.run_dir}: {state['step']} steps, last checkpoint "
        f"{Path(cfg.run_dir) / state['checkpoint']}"
    )
    if best:
        note(
            f"best checkpoint: {Path(cfg.run_dir) / best_name} (step {best['step']}, "
            f"mean win rate vs panel {best['mean_win_rate']:.3f})"
        )


@app.command(
    "exploit",
    help=(
        "Exploitability: train a best response against a frozen target that holds every other "
        "seat (all-seat trainer), starting from the target's own weights when it is a policy. "
        "Ends with the best response's win rate against the target on fresh paired deals "
        "(Wilson 95% beside chance 1/N) and the cheap bound: each panel bot as one seat "
        "against N-1 copies of the target. Writes RUN_DIR/exploit.json and TensorBoard logs."
    ),
)
def exploit_cmd(
    target: Annotated[str, typer.Option(help="the frozen target: ppo:PATH or a bot name")],
    num_players: Annotated[int, typer.Option("--num-players", "-n", help="2 to 5")] = 2,
    steps: Annotated[int, typer.Option(help="best-response learner steps")] = 1_000_000,
    run_dir: Annotated[
        str | None, typer.Option(help="run directory (default runs/exploit/<time>)")
    ] = None,
    warm_start: Annotated[
        str,
        typer.Option(help="for a bot target: ppo:PATH to start from, or a bot to imitate first"),
    ] = "",
    seed: Annotated[int, typer.Option(help="seed")] = 0,
    eval_games: Annotated[int, typer.Option(help="games of each final table")] = 1000,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    import time

    from .config import TrainConfigError
    from .exploit import ExploitError, exploit, report_lines
    from .train import TrainError

    if eval_games < 1:
        fail(f"--eval-games={eval_games} is not allowed; use a positive integer")
    run = run_dir or f"runs/exploit/{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        rep = exploit(
            target,
            num_players,
            steps,
            run,
            warm_start=warm_start,
            seed=seed,
            eval_games=eval_games,
            progress=progress,
        )
    except (ExploitError, TrainConfigError, TrainError) as e:
        fail(str(e))
    for line in report_lines(rep):
        note(line)
    note(f"report: {Path(run) / 'exploit.json'}")
