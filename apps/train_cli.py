"""`lastwill train`: self-play training by the trainer `--mode` names (`training.train`):
all_seat (the default), single_seat, rllib or expert. `--backend` is its earlier spelling, kept
as a deprecated alias (`--backend rllib` is `--mode rllib`; `--backend lab` the lab's
trainers), with a note saying so. With `--mode expert` the settings are expert iteration's
(`training.expert.ExpertConfig`): its table of `--config` (`[expert]`, or the top level) and the
flags of the settings every trainer shares (`--run-dir`, `--seed`, `--eval-games`, ...);
`lastwill expert` has flags for all of them. A resumed run (`--resume`) is continued by the
trainer that made it, whatever the default. torch and stable-baselines3 are imported only when
the command runs.

Every setting of `TrainConfig` has a flag, generated from the dataclass (`apps.configflags`:
`--learning-rate 1e-4`, `--pfsp/--no-pfsp`, lists comma-separated: `--net-arch 256,256`),
grouped in `--help` by the sections of `TRAIN_FLAGS`; a new field gets its flag without
touching this file. Flags override the `--config` file, which overrides the defaults.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer

from training.config import CHOICES, MODES, TrainConfig

from .command import fail, help_default, note
from .configflags import Flag, flag_name, keyword, kind, setting_options, with_parameters, words

# Help text, --help section and metavar of each setting; a setting missing here still gets a
# flag (`OTHER`).
TRAIN_FLAGS: dict[str, Flag] = {
    "run_dir": Flag("Run directory (runs/train/NAME)", "Run", metavar="<path>"),
    "total_steps": Flag("Learner steps in total (--mode expert: iterations)", "Run"),
    "seed": Flag("Seed of the run", "Run"),
    "mode": Flag(
        "Trainer: all_seat (the lab's PPO, every seat of the policy learns), single_seat "
        "(SB3 MaskablePPO, one learner seat per game), rllib (RLlib PPO, pip install -e "
        "'.\\[ray]') or expert (expert iteration: settings from --config's \\[expert] table "
        "and the shared flags; lastwill expert has flags for all of them)",
        "Run",
        metavar=words(MODES),
    ),
    "n_envs": Flag("Env worker processes", "Run"),
    "vec_env": Flag(
        "Env workers: subproc (one process per env) or dummy (in-process)",
        "Run",
        metavar=words(CHOICES["vec_env"]),
    ),
    "n_games": Flag("With --mode all_seat: games stepped together (batched inference)", "Run"),
    "torch_threads": Flag("With --mode all_seat or expert: torch threads (0: one per core)", "Run"),
    "init_policy": Flag(
        "With --mode all_seat: start from this .npz policy or run directory",
        "Run",
        metavar="<path>",
        default="none, a fresh network",
    ),
    "init_new_prior": Flag(
        "With --init-policy over another prior: keep its weights over it", "Run"
    ),
    "init_critic": Flag("With --init-policy: start the critic from its value weights too", "Run"),
    "critic_warmup": Flag("With --mode all_seat: first rollouts fit only the critic", "Run"),
    "exploiter_every": Flag("With --mode all_seat: steps between exploiters (0 = none)", "League"),
    "exploiter_steps": Flag("Learner steps of each exploiter", "League"),
    "exploiter_games": Flag("Games that decide whether an exploiter joins the pool", "League"),
    "exploiter_gate": Flag("An exploiter joins when its win rate exceeds chance + this", "League"),
    "progress": Flag("Show progress bars", "Run"),
    "num_players": Flag(
        "Player counts of the game mix, e.g. 2,3,4,5", "Game mix", default="every count"
    ),
    "player_weights": Flag("Weights of those counts, e.g. 1,1,2,1", "Game mix"),
    "reward": Flag("Reward: zero_sum or rank", "Game mix", metavar=words(CHOICES["reward"])),
    "shaping": Flag("Potential-based shaping weight (0: off)", "Game mix"),
    "learning_rate": Flag("Adam learning rate", "PPO"),
    "n_steps": Flag("Rollout steps per env between updates", "PPO"),
    "batch_size": Flag("Minibatch size (divides n_steps x n_envs)", "PPO"),
    "n_epochs": Flag("Passes over each rollout", "PPO"),
    "gamma": Flag("Discount", "PPO"),
    "gae_lambda": Flag("GAE lambda", "PPO"),
    "clip_range": Flag("PPO clip range", "PPO"),
    "ent_coef": Flag("Entropy coefficient", "PPO"),
    "vf_coef": Flag("Value-loss coefficient", "PPO"),
    "net_arch": Flag("Hidden layer widths, e.g. 128,128", "PPO"),
    "activation": Flag(
        "Activation of the hidden layers: tanh or relu", "PPO", metavar=words(CHOICES["activation"])
    ),
    "bc_teacher": Flag(
        "Scripted bot to imitate first, e.g. planner", "Warm start", metavar="<spec>"
    ),
    "bc_games": Flag("Teacher games to collect", "Warm start"),
    "bc_epochs": Flag("Fitting passes over them", "Warm start"),
    "kickstart_teacher": Flag(
        "Bot whose choices the policy is pulled towards", "Kickstarting", metavar="<spec>"
    ),
    "kickstart_coef": Flag("Weight of that cross-entropy term (0 = off)", "Kickstarting"),
    "kickstart_steps": Flag("Steps over which it decays to 0 (0 = constant)", "Kickstarting"),
    "kickstart_players": Flag("Player counts the teacher teaches", "Kickstarting", default="all"),
    "prior": Flag(
        "Bot whose own choice gets --prior-weight added to its logit",
        "Kickstarting",
        metavar="<spec>",
    ),
    "prior_weight": Flag("Logit bonus of the prior's choice (0 without a prior)", "Kickstarting"),
    "p_latest": Flag("Chance of the latest weights per opponent seat", "Opponent pool"),
    "p_bots_min": Flag("Chance of a scripted bot per opponent seat", "Opponent pool"),
    "p_bot_table": Flag("Chance of a game against n-1 copies of one pool bot", "Opponent pool"),
    "p_bot_seat": Flag("Chance of one pool bot against the learner in n-1 seats", "Opponent pool"),
    "bots": Flag("Scripted bots of the pool, e.g. greedy,planner,random", "Opponent pool"),
    "pfsp": Flag("Weight snapshots by x(1-x) of the win rate against them", "Opponent pool"),
    "snapshot_every": Flag("Steps between pool snapshots", "Opponent pool"),
    "snapshot_window": Flag("Recent snapshots kept in the pool", "Opponent pool"),
    "milestone_every": Flag("Steps between milestone snapshots (kept for good)", "Opponent pool"),
    "eval_every": Flag(
        "Steps between evaluations (0: only at the start and the end)", "Evaluation"
    ),
    "eval_games": Flag("Evaluation games per bot and player count", "Evaluation"),
    "eval_bots": Flag("The evaluation panel, e.g. greedy,speculator,planner", "Evaluation"),
    "eval_num_players": Flag("Evaluated player counts, e.g. 4 or 2,3,4,5", "Evaluation"),
    "eval_workers": Flag("Evaluation worker processes", "Evaluation"),
    "checkpoint_every": Flag("Steps between checkpoints", "Evaluation"),
}
OTHER = Flag("See training/config.py", "Other settings")


def _parse(name: str, text: str) -> Any:
    f = next(x for x in fields(TrainConfig) if x.name == name)
    shape, elem = kind(f.type)
    if shape == "scalar":
        return text
    items = [x.strip() for x in text.split(",") if x.strip()]
    if elem is str:
        return items
    try:
        values = [elem(x) for x in items]
    except ValueError:
        example = "2,3,4,5" if elem is int else "1,1,2,1"
        fail(
            f"{flag_name(name)} takes comma-separated {'integers' if elem is int else 'numbers'}, "
            f"e.g. {example}; got {text!r}"
        )
    if shape == "one_or_list" and len(values) == 1:
        return values[0]
    return values


TRAIN_HELP = (
    "Self-play training by the trainer --mode names: the lab's all-seat PPO (the default), SB3 "
    "MaskablePPO on one seat, RLlib PPO, or expert iteration; each evaluates against a bot "
    "panel and writes TensorBoard logs and checkpoints. Settings come from defaults, then "
    "--config (TOML: top level or a table named train; expert iteration's: expert), then "
    "these flags (every setting of training/config.py has one; lists are comma-separated). "
    "The run directory layout is described in docs/TRAINING.md (Checkpoints, resuming and the "
    "run directory)."
)
BACKEND_NOTE = (
    "note: --backend is deprecated; the trainer is chosen by --mode (--backend rllib is "
    "--mode rllib, --backend lab one of the lab's modes: all_seat, the default, or single_seat)"
)


def train_cmd(**options: Any) -> None:
    config: Path | None = options.pop("config")
    resume: bool = options.pop("resume")
    force: bool = options.pop("force")
    backend: str | None = options.pop("backend")
    rllib_flags = {
        "ray_address": options.pop("ray_address"),
        "env_runners": options.pop("env_runners"),
    }
    given = {k: v for k, v in options.items() if v is not None}
    overrides = {k: (_parse(k, v) if isinstance(v, str) else v) for k, v in given.items()}
    if resume and force:
        fail(
            "--resume continues the run in --run-dir and --force starts a new one in its place; "
            "give one of them"
        )
    if resume and "run_dir" not in overrides:
        fail("--resume needs --run-dir (the run to continue)")
    mode = _chosen_mode(overrides.pop("mode", None), backend, config, resume, overrides)
    if mode != "rllib" and any(v is not None for v in rllib_flags.values()):
        fail("--ray-address and --env-runners are settings of --mode rllib")
    if mode == "expert":
        _train_expert(config, overrides, resume, force)
    elif mode == "rllib":
        _train_rllib(config, {**overrides, **({} if resume else {"mode": "rllib"})}, resume,
                     rllib_flags["ray_address"], rllib_flags["env_runners"], force)  # fmt: skip
    else:
        _train_lab(mode, config, overrides, resume, force)


def _chosen_mode(
    flag: str | None, backend: str | None, config: Path | None, resume: bool, overrides: dict
) -> str:
    """The trainer: `--mode`, or the deprecated `--backend` (with a note), or the `--config`
    file's, or (resuming) the run's own, else the default (all_seat). Given two ways that
    disagree, or one other than the resumed run's, it is refused by name."""
    from training.config import TrainConfigError
    from training.train import TrainError, resumed_mode

    if flag is not None and flag not in MODES:
        fail(f"--mode {flag!r} is not allowed; choose {', '.join(MODES)}")
    if backend is not None:
        note(BACKEND_NOTE)
        if backend not in ("lab", "rllib"):
            fail(f"--backend {backend!r} is not allowed; choose lab or rllib (better: --mode)")
        if flag is not None and (backend == "rllib") != (flag == "rllib"):
            fail(f"--backend {backend} and --mode {flag} name different trainers; give --mode")
        flag = "rllib" if backend == "rllib" else flag
    try:
        asked = flag or _file_mode(config)
        if resume:
            have = resumed_mode(overrides["run_dir"])
            if (asked or have) != have or (backend == "lab" and have == "rllib"):
                fail(
                    f"{overrides['run_dir']} holds a run of mode {have}; resume it with "
                    f"--mode {have}, or leave --mode out"
                )
            return have
    except (TrainConfigError, TrainError) as e:
        fail(str(e))
    if backend == "lab" and asked == "rllib":
        fail("--backend lab names the lab's trainers, and the --config file says mode = rllib")
    return asked or TrainConfig.mode


def _file_mode(config: Path | None) -> str | None:
    """The mode a `--config` file names: its `mode` (top level or `[train]`), or "expert"
    for a file of expert iteration's settings (an `[expert]` table)."""
    from training.config import read_config_file

    if config is None:
        return None
    data = read_config_file(config)
    if isinstance(data.get("mode"), str):
        return str(data["mode"])
    return "expert" if isinstance(data.get("expert"), dict) else None


def _train_lab(
    mode: str, config: Path | None, overrides: dict[str, Any], resume: bool, force: bool
) -> None:
    """A run of the lab's trainers (all_seat, single_seat): settings, training, the last
    notes."""
    from dataclasses import replace

    from training.config import TrainConfigError, load_config, read_config_file
    from training.train import TrainError, resume_config, train

    try:
        if resume:
            # a resumed run keeps its settings: any other setting given (a flag or --config)
            # must equal the run's (training.rundir.resume_config names those that differ)
            given = read_config_file(config) if config is not None else {}
            given.update(overrides)
            given.pop("mode", None)  # the run's own (`_chosen_mode`)
            given.setdefault("progress", True)
            cfg = resume_config(overrides["run_dir"], overrides.get("total_steps"), given=given)
            cfg.progress = given["progress"]
            if cfg.mode != mode:  # a run whose settings predate its mode's name
                cfg = replace(cfg, mode=mode)
        else:
            cfg = load_config(config, **{**overrides, "mode": mode})
        state = train(cfg, resume=resume, notify=note, force=force)
    except (TrainConfigError, TrainError) as e:
        fail(str(e))
    best = state.get("best")
    note(
        f"run {cfg.run_dir}: {state['step']} steps, last checkpoint "
        f"{Path(cfg.run_dir) / state['checkpoint']}"
    )
    best_name = "best.npz" if cfg.mode == "all_seat" else "best.zip"
    if best:
        note(
            f"best checkpoint: {Path(cfg.run_dir) / best_name} (step {best['step']}, "
            f"mean win rate vs panel {best['mean_win_rate']:.3f})"
        )


def _train_expert(
    config: Path | None, overrides: dict[str, Any], resume: bool, force: bool
) -> None:
    """`--mode expert`: expert iteration with the settings of `--config` (its `[expert]`
    table, or the top level) and the flags of the settings every trainer shares
    (`--total-steps`: its iterations)."""
    from training.expert.config import ExpertConfig

    from .expert_cli import run_expert, settings

    if "total_steps" in overrides:  # the run loop's steps are its iterations
        overrides["iterations"] = overrides.pop("total_steps")
    unknown = sorted(set(overrides) - set(ExpertConfig.names()))
    if unknown:
        flags = ", ".join(flag_name(k) for k in unknown)
        fail(
            f"{flags}: not a setting of expert iteration (--mode expert); its settings are in "
            "`lastwill expert --help`"
        )
    run_expert(settings(config, dict(overrides), resume), resume, force)


def _train_rllib(
    config: Path | None,
    overrides: dict[str, Any],
    resume: bool,
    ray_address: str | None,
    env_runners: int | None,
    force: bool = False,
) -> None:
    """`--mode rllib` (`training.rllib_backend`): settings, training, the last notes."""
    from agents.policy import CheckpointError
    from training.config import TrainConfigError
    from training.rllib_backend import (
        RLlibBackendError,
        load_settings,
        resume_settings,
        train_rllib,
    )
    from training.rundir import TrainError

    rllib_given = {"ray_address": ray_address, "env_runners": env_runners}
    try:
        if resume:
            cfg, settings = resume_settings(config, overrides, rllib_given)
        else:
            cfg, settings = load_settings(config, overrides, rllib_given)
        state = train_rllib(cfg, settings, resume, note, force)
    except (TrainConfigError, RLlibBackendError, CheckpointError, TrainError) as e:
        fail(str(e))
    run_dir = Path(cfg.run_dir)
    note(
        f"run {run_dir}: {state['step']} env steps in {state['seconds']}s "
        f"({state['samples_per_s']} samples/s), last checkpoint {run_dir / state['checkpoint']}"
    )
    best = state.get("best")
    if best:
        note(
            f"best checkpoint: {run_dir / 'best.npz'} (step {best['step']}, mean win rate vs "
            f"panel {best['mean_win_rate']:.3f})"
        )


RLLIB_PANEL = "RLlib (--mode rllib)"
# the flags of the run itself, then the RLlib trainer's own (training.rllib_backend) and
# `--backend`, the deprecated spelling of `--mode rllib`; then one per setting
RUN_PARAMETERS = [
    keyword(
        "config",
        Annotated[
            Path | None,
            typer.Option(
                "--config", "-c", help=help_default("TOML file of training settings", "none")
            ),
        ],
    ),
    keyword(
        "resume",
        Annotated[
            bool,
            typer.Option(
                "--resume",
                help="Continue the run in --run-dir where it stopped, with its own settings "
                "(--total-steps extends it; any other setting that differs is refused)",
            ),
        ],
        default=False,
    ),
    keyword(
        "force",
        Annotated[
            bool,
            typer.Option(
                "--force",
                help="Start a new run in a --run-dir that holds one: the old run's files "
                "(state, checkpoints, snapshots, best.*, evaluations, TensorBoard logs) are "
                "removed first; other files are left alone",
            ),
        ],
        default=False,
    ),
    keyword(
        "backend",
        Annotated[
            str | None,
            typer.Option(
                metavar="<lab|rllib>",
                help=help_default(
                    "Deprecated: the trainer is --mode. --backend rllib is --mode rllib, "
                    "--backend lab one of the lab's modes (all_seat or single_seat)",
                    "none, --mode chooses",
                ),
                rich_help_panel=RLLIB_PANEL,
            ),
        ],
    ),
    keyword(
        "ray_address",
        Annotated[
            str | None,
            typer.Option(
                metavar="<text>",
                help=help_default(
                    "With --mode rllib: the Ray cluster's address",
                    "$RAY_ADDRESS, else a local Ray",
                ),
                rich_help_panel=RLLIB_PANEL,
            ),
        ],
    ),
    keyword(
        "env_runners",
        Annotated[
            int | None,
            typer.Option(
                help=help_default("With --mode rllib: EnvRunner actors sampling in parallel", 1),
                rich_help_panel=RLLIB_PANEL,
            ),
        ],
    ),
]
with_parameters(
    train_cmd,
    [
        *RUN_PARAMETERS,
        *setting_options(TrainConfig, TRAIN_FLAGS, [f.name for f in fields(TrainConfig)], OTHER),
    ],
)
