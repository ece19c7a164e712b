"""The `lastwill` console script: the agents' commands (`arena`, `eval`, ...) plus
`lastwill train`.

`--mode` chooses the trainer (`training.train`): all_seat (the default), single_seat, rllib or
expert. `--backend` is its earlier spelling, kept as a deprecated alias (`--backend rllib` is
`--mode rllib`; `--backend lab` the lab's trainers), with a note saying so. With `--mode
expert` the settings are expert iteration's (`training.expert.ExpertConfig`): its table of
`--config` (`[expert]`, or the top level) and the flags of the settings every trainer shares
(`--run-dir`, `--seed`, `--eval-games`, ...); `lastwill expert` has flags for all of them. A
resumed run (`--resume`) is continued by the trainer that made it, whatever the default.

The app itself is built in `agents.cli`; this top-layer module adds the training command, so
that `agents` never imports `training` (docs/DESIGN.md's import arrows). torch and
stable-baselines3 are imported only when `train` runs.

Every setting of `TrainConfig` has a flag, generated from the dataclass (`--learning-rate 1e-4`,
`--pfsp/--no-pfsp`, lists comma-separated: `--net-arch 256,256`), grouped in `--help` by the
sections below; a new field gets its flag without touching this file. Flags override the
`--config` file, which overrides the defaults.
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from agents.cli import PLAYER_RANGE, LabCommand, app, fail, help_default, note

from .config import CHOICES, MODES, TrainConfig
from .expert import cli as _expert_cli  # noqa: F401  (registers `lastwill expert`)
from .valuefit import cli as _valuefit_cli  # noqa: F401  (registers `lastwill value-fit`)

__all__ = ["app"]

# Help text and --help section of each setting; a setting missing here still gets a flag.
SETTINGS_HELP: dict[str, tuple[str, str]] = {
    "run_dir": ("Run", "Run directory (runs/train/NAME)"),
    "total_steps": ("Run", "Learner steps in total (--mode expert: iterations)"),
    "seed": ("Run", "Seed of the run"),
    "mode": (
        "Run",
        "Trainer: all_seat (the lab's PPO, every seat of the policy learns), single_seat "
        "(SB3 MaskablePPO, one learner seat per game), rllib (RLlib PPO, pip install -e "
        "'.\\[ray]') or expert (expert iteration: settings from --config's \\[expert] table "
        "and the shared flags; lastwill expert has flags for all of them)",
    ),
    "n_envs": ("Run", "Env worker processes"),
    "vec_env": ("Run", "Env workers: subproc (one process per env) or dummy (in-process)"),
    "n_games": ("Run", "With --mode all_seat: games stepped together (batched inference)"),
    "torch_threads": ("Run", "With --mode all_seat or expert: torch threads (0: one per core)"),
    "init_policy": ("Run", "With --mode all_seat: start from this .npz policy or run directory"),
    "init_new_prior": ("Run", "With --init-policy over another prior: keep its weights over it"),
    "init_critic": ("Run", "With --init-policy: start the critic from its value weights too"),
    "critic_warmup": ("Run", "With --mode all_seat: first rollouts fit only the critic"),
    "exploiter_every": ("League", "With --mode all_seat: steps between exploiters (0 = none)"),
    "exploiter_steps": ("League", "Learner steps of each exploiter"),
    "exploiter_games": ("League", "Games that decide whether an exploiter joins the pool"),
    "exploiter_gate": ("League", "An exploiter joins when its win rate exceeds chance + this"),
    "progress": ("Run", "Show progress bars"),
    "num_players": ("Game mix", "Player counts of the game mix, e.g. 2,3,4,5"),
    "player_weights": ("Game mix", "Weights of those counts, e.g. 1,1,2,1"),
    "reward": ("Game mix", "Reward: zero_sum or rank"),
    "shaping": ("Game mix", "Potential-based shaping weight (0: off)"),
    "learning_rate": ("PPO", "Adam learning rate"),
    "n_steps": ("PPO", "Rollout steps per env between updates"),
    "batch_size": ("PPO", "Minibatch size (divides n_steps x n_envs)"),
    "n_epochs": ("PPO", "Passes over each rollout"),
    "gamma": ("PPO", "Discount"),
    "gae_lambda": ("PPO", "GAE lambda"),
    "clip_range": ("PPO", "PPO clip range"),
    "ent_coef": ("PPO", "Entropy coefficient"),
    "vf_coef": ("PPO", "Value-loss coefficient"),
    "net_arch": ("PPO", "Hidden layer widths, e.g. 128,128"),
    "activation": ("PPO", "Activation of the hidden layers: tanh or relu"),
    "bc_teacher": ("Warm start", "Scripted bot to imitate first, e.g. planner"),
    "bc_games": ("Warm start", "Teacher games to collect"),
    "bc_epochs": ("Warm start", "Fitting passes over them"),
    "kickstart_teacher": ("Kickstarting", "Bot whose choices the policy is pulled towards"),
    "kickstart_coef": ("Kickstarting", "Weight of that cross-entropy term (0 = off)"),
    "kickstart_steps": ("Kickstarting", "Steps over which it decays to 0 (0 = constant)"),
    "kickstart_players": ("Kickstarting", "Player counts the teacher teaches"),
    "prior": ("Kickstarting", "Bot whose own choice gets --prior-weight added to its logit"),
    "prior_weight": ("Kickstarting", "Logit bonus of the prior's choice (0 without a prior)"),
    "p_latest": ("Opponent pool", "Chance of the latest weights per opponent seat"),
    "p_bots_min": ("Opponent pool", "Chance of a scripted bot per opponent seat"),
    "p_bot_table": ("Opponent pool", "Chance of a game against n-1 copies of one pool bot"),
    "p_bot_seat": ("Opponent pool", "Chance of one pool bot against the learner in n-1 seats"),
    "bots": ("Opponent pool", "Scripted bots of the pool, e.g. greedy,planner,random"),
    "pfsp": ("Opponent pool", "Weight snapshots by x(1-x) of the win rate against them"),
    "snapshot_every": ("Opponent pool", "Steps between pool snapshots"),
    "snapshot_window": ("Opponent pool", "Recent snapshots kept in the pool"),
    "milestone_every": ("Opponent pool", "Steps between milestone snapshots (kept for good)"),
    "eval_every": ("Evaluation", "Steps between evaluations (0: only at the start and the end)"),
    "eval_games": ("Evaluation", "Evaluation games per bot and player count"),
    "eval_bots": ("Evaluation", "The evaluation panel, e.g. greedy,speculator,planner"),
    "eval_num_players": ("Evaluation", "Evaluated player counts, e.g. 4 or 2,3,4,5"),
    "eval_workers": ("Evaluation", "Evaluation worker processes"),
    "checkpoint_every": ("Evaluation", "Steps between checkpoints"),
}
# the metavar of a text setting that is not a free text (lists show <list>)
METAVARS = {
    **{name: "<" + "|".join(words) + ">" for name, words in CHOICES.items()},
    "mode": "<" + "|".join(MODES) + ">",
    "run_dir": "<path>",
    "init_policy": "<path>",
    "bc_teacher": "<spec>",
    "kickstart_teacher": "<spec>",
    "prior": "<spec>",
}
# what an empty default ('' or []) stands for, and why a default is what it is
DEFAULT_TEXT = {"init_policy": "none, a fresh network", "kickstart_players": "all"}
DEFAULT_WHY = {"num_players": "every count"}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _kind(tp: Any) -> tuple[str, type]:
    """("scalar" | "list" | "one_or_list", element type) of a field's annotation."""
    if isinstance(tp, str):
        tp = eval(tp, vars(typing), {})  # noqa: S307 - the dataclass's own annotations
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        scalar = [a for a in args if typing.get_origin(a) is None]
        lists = [a for a in args if typing.get_origin(a) is list]
        if scalar and lists:
            return "one_or_list", scalar[0]
    if origin is list:
        return "list", typing.get_args(tp)[0]
    return "scalar", tp


def _default(f) -> Any:
    value = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
    if isinstance(value, list):
        return ",".join(str(x) for x in value)
    return value


def _shown_default(f) -> str:
    """A setting's default as `--help` shows it: a flag by its name (`pfsp`, `no-pfsp`)."""
    value = _default(f)
    if isinstance(value, bool):
        return ("" if value else "no-") + f.name.replace("_", "-")
    if value == "":
        return DEFAULT_TEXT.get(f.name, "none")
    why = DEFAULT_WHY.get(f.name)
    return f"{value}, {why}" if why else str(value)


def _parameters() -> list[inspect.Parameter]:
    out = []
    for f in fields(TrainConfig):
        kind, elem = _kind(f.type)
        panel, text = SETTINGS_HELP.get(f.name, ("Other settings", "See training/config.py"))
        text = help_default(text, _shown_default(f))
        if kind == "scalar" and elem is bool:
            decl = f"{_flag(f.name)}/--no-{f.name.replace('_', '-')}"
            ann: Any = Annotated[bool | None, typer.Option(decl, help=text, rich_help_panel=panel)]
        elif kind == "scalar" and elem in (int, float):
            ann = Annotated[
                elem | None, typer.Option(_flag(f.name), help=text, rich_help_panel=panel)
            ]
        else:  # strings and lists: text, parsed below
            metavar = METAVARS.get(f.name, "<text>") if kind == "scalar" else "<list>"
            ann = Annotated[
                str | None,
                typer.Option(_flag(f.name), help=text, rich_help_panel=panel, metavar=metavar),
            ]
        out.append(
            inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ann)
        )
    return out


def _parse(name: str, text: str) -> Any:
    f = next(x for x in fields(TrainConfig) if x.name == name)
    kind, elem = _kind(f.type)
    if kind == "scalar":
        return text
    items = [x.strip() for x in text.split(",") if x.strip()]
    if elem is str:
        return items
    try:
        values = [elem(x) for x in items]
    except ValueError:
        example = "2,3,4,5" if elem is int else "1,1,2,1"
        fail(
            f"{_flag(name)} takes comma-separated {'integers' if elem is int else 'numbers'}, "
            f"e.g. {example}; got {text!r}"
        )
    if kind == "one_or_list" and len(values) == 1:
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
        from .rllib_backend import run_cli

        run_cli(config, {**overrides, **({} if resume else {"mode": "rllib"})}, resume,
                rllib_flags["ray_address"], rllib_flags["env_runners"], force)  # fmt: skip
    else:
        _train_lab(mode, config, overrides, resume, force)


def _chosen_mode(
    flag: str | None, backend: str | None, config: Path | None, resume: bool, overrides: dict
) -> str:
    """The trainer: `--mode`, or the deprecated `--backend` (with a note), or the `--config`
    file's, or (resuming) the run's own, else the default (all_seat). Given two ways that
    disagree, or one other than the resumed run's, it is refused by name."""
    from .config import TrainConfigError
    from .train import TrainError, resumed_mode

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
    from .config import read_config_file

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

    from .config import TrainConfigError, load_config, read_config_file
    from .train import TrainError, resume_config, train

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
    from .expert.cli import run_expert, settings
    from .expert.config import ExpertConfig

    if "total_steps" in overrides:  # the run loop's steps are its iterations
        overrides["iterations"] = overrides.pop("total_steps")
    unknown = sorted(set(overrides) - set(ExpertConfig.names()))
    if unknown:
        flags = ", ".join(_flag(k) for k in unknown)
        fail(
            f"{flags}: not a setting of expert iteration (--mode expert); its settings are in "
            "`lastwill expert --help`"
        )
    run_expert(settings(config, dict(overrides), resume), resume, force)


def _rllib_parameters() -> list[inspect.Parameter]:
    """The RLlib trainer's own flags (training.rllib_backend), and `--backend`, the deprecated
    spelling of `--mode rllib`."""
    panel = "RLlib (--mode rllib)"
    specs = [
        (
            "backend",
            None,
            Annotated[
                str | None,
                typer.Option(
                    metavar="<lab|rllib>",
                    help=help_default(
                        "Deprecated: the trainer is --mode. --backend rllib is --mode rllib, "
                        "--backend lab one of the lab's modes (all_seat or single_seat)",
                        "none, --mode chooses",
                    ),
                    rich_help_panel=panel,
                ),
            ],
        ),
        (
            "ray_address",
            None,
            Annotated[
                str | None,
                typer.Option(
                    metavar="<text>",
                    help=help_default(
                        "With --mode rllib: the Ray cluster's address",
                        "$RAY_ADDRESS, else a local Ray",
                    ),
                    rich_help_panel=panel,
                ),
            ],
        ),
        (
            "env_runners",
            None,
            Annotated[
                int | None,
                typer.Option(
                    help=help_default(
                        "With --mode rllib: EnvRunner actors sampling in parallel", 1
                    ),
                    rich_help_panel=panel,
                ),
            ],
        ),
    ]
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=ann)
        for name, d, ann in specs
    ]


train_cmd.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            "config",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[
                Path | None,
                typer.Option(
                    "--config", "-c", help=help_default("TOML file of training settings", "none")
                ),
            ],
        ),
        inspect.Parameter(
            "resume",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[
                bool,
                typer.Option(
                    "--resume",
                    help="Continue the run in --run-dir where it stopped, with its own settings "
                    "(--total-steps extends it; any other setting that differs is refused)",
                ),
            ],
        ),
        inspect.Parameter(
            "force",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[
                bool,
                typer.Option(
                    "--force",
                    help="Start a new run in a --run-dir that holds one: the old run's files "
                    "(state, checkpoints, snapshots, best.*, evaluations, TensorBoard logs) are "
                    "removed first; other files are left alone",
                ),
            ],
        ),
        *_rllib_parameters(),
        *_parameters(),
    ]
)
app.command("train", cls=LabCommand, help=TRAIN_HELP, context_settings={"max_content_width": 110})(
    train_cmd
)


@app.command(
    "exploit",
    cls=LabCommand,
    help=(
        "Exploitability: train a best response against a frozen target that holds every other "
        "seat (all-seat trainer), starting from the target's own weights when it is a policy. "
        "Ends with the best response's win rate against the target on fresh paired deals "
        "(Wilson 95% beside chance 1/N) and the cheap bound: each panel bot as one seat "
        "against N-1 copies of the target. Writes RUN_DIR/exploit.json and TensorBoard logs; "
        "--resume continues an interrupted exploit from its last checkpoint."
    ),
)
def exploit_cmd(
    target: Annotated[
        str, typer.Option(metavar="<spec>", help="The frozen target: ppo:PATH or a bot name")
    ],
    num_players: Annotated[
        int,
        typer.Option(
            "--num-players",
            "-n",
            show_default=False,
            help=help_default(
                f"Seats, {PLAYER_RANGE}: the learner and N-1 copies of the target",
                "2, head to head: the cheapest best response to train",
            ),
        ),
    ] = 2,
    steps: Annotated[int, typer.Option(help="Best-response learner steps")] = 1_000_000,
    run_dir: Annotated[
        str | None,
        typer.Option(metavar="<path>", help=help_default("Run directory", "runs/exploit/<time>")),
    ] = None,
    warm_start: Annotated[
        str,
        typer.Option(
            metavar="<spec>",
            help=help_default(
                "For a bot target: ppo:PATH to start from, or a bot to imitate first",
                "none, a fresh network",
            ),
        ),
    ] = "",
    seed: Annotated[int, typer.Option(help="Seed of the run")] = 0,
    eval_games: Annotated[int, typer.Option(help="Games of each final table")] = 1000,
    panel: Annotated[
        str,
        typer.Option(
            metavar="<list>",
            help=help_default(
                "Comma-separated players of the cheap bound, each one seat against N-1 "
                "targets ('none': no cheap bound)",
                "greedy,speculator,planner,combiner,racer",
            ),
        ),
    ] = "",
    prior: Annotated[
        str,
        typer.Option(
            metavar="<spec>",
            help=help_default(
                "A bot the learner plays over (a start policy brings its own)", "none"
            ),
        ),
    ] = "",
    prior_weight: Annotated[float, typer.Option(help="Logit bonus of the prior's choice")] = 0.0,
    torch_threads: Annotated[
        int,
        typer.Option(
            help="Torch threads of the learner (0: one per core; 1 leaves the other cores to "
            "other jobs)"
        ),
    ] = 1,
    learning_rate: Annotated[
        float | None, typer.Option(help=help_default("The learner's learning rate", "3e-4"))
    ] = None,
    ent_coef: Annotated[
        float | None, typer.Option(help=help_default("The learner's entropy bonus", 0.01))
    ] = None,
    n_steps: Annotated[
        int | None,
        typer.Option(help=help_default("Learner steps per rollout and environment", 1024)),
    ] = None,
    critic_warmup: Annotated[
        int | None,
        typer.Option(help=help_default("Rollouts that train only the critic before the actor", 2)),
    ] = None,
    game: Annotated[
        str,
        typer.Option(
            metavar="<text>",
            help="The game played (an installed game, e.g. lastwill or money); the panel's "
            "default is then its own",
        ),
    ] = "lastwill",
    progress: Annotated[bool, typer.Option(help="Show a progress bar")] = True,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the interrupted exploit in --run-dir from its last checkpoint "
            "(give the same options as the first run)",
        ),
    ] = False,
) -> None:
    import time

    from .config import TrainConfigError
    from .exploit import ExploitError, exploit, report_lines
    from .rundir import TrainError

    if eval_games < 1:
        fail(f"--eval-games={eval_games} is not allowed; use a positive integer")
    bots = None
    if panel.strip().lower() == "none":
        bots = []
    elif panel.strip():
        bots = [b.strip() for b in panel.split(",") if b.strip()]
        if not bots:
            fail(f"--panel={panel!r} names no player; give player specs, or 'none'")
    if resume and run_dir is None:
        fail("--resume needs --run-dir (the exploit to continue)")
    run = run_dir or f"runs/exploit/{time.strftime('%Y%m%d-%H%M%S')}"
    learner = {
        "learning_rate": learning_rate,
        "ent_coef": ent_coef,
        "n_steps": n_steps,
        "critic_warmup": critic_warmup,
    }
    given_learner = {k: v for k, v in learner.items() if v is not None}  # the rest: defaults
    try:
        rep = exploit(
            target,
            num_players,
            steps,
            run,
            warm_start=warm_start,
            seed=seed,
            eval_games=eval_games,
            panel=bots,
            progress=progress,
            prior=prior,
            prior_weight=prior_weight,
            overrides={"torch_threads": torch_threads, **given_learner},
            resume=resume,
            game=game,
        )
    except (ExploitError, TrainConfigError, TrainError) as e:
        fail(str(e))
    for line in report_lines(rep):
        note(line)
    note(f"report: {Path(run) / 'exploit.json'}")
