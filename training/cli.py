"""The `lastwill` console script: the agents' commands (`arena`, `eval`, ...) plus
`lastwill train`.

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

from agents.cli import app, fail, note

from .config import TrainConfig
from .expert import cli as _expert_cli  # noqa: F401  (registers `lastwill expert`)
from .valuefit import cli as _valuefit_cli  # noqa: F401  (registers `lastwill value-fit`)

__all__ = ["app"]

# Help text and --help section of each setting; a setting missing here still gets a flag.
SETTINGS_HELP: dict[str, tuple[str, str]] = {
    "run_dir": ("Run", "run directory (runs/train/NAME)"),
    "total_steps": ("Run", "learner steps in total"),
    "seed": ("Run", "seed of the run"),
    "mode": ("Run", "single_seat (SB3, one learner seat per game) or all_seat"),
    "n_envs": ("Run", "env worker processes"),
    "vec_env": ("Run", "subproc (one process per env) or dummy (in-process)"),
    "n_games": ("Run", "all_seat: games stepped together (batched inference)"),
    "torch_threads": ("Run", "all_seat: torch threads (0: one per core)"),
    "init_policy": ("Run", "all_seat: start from this .npz policy or run directory ('' = fresh)"),
    "init_new_prior": ("Run", "init_policy over another prior: keep its weights over this prior"),
    "init_critic": ("Run", "init_policy: start the critic from its value weights too"),
    "critic_warmup": ("Run", "all_seat: first rollouts fit only the critic"),
    "exploiter_every": ("League", "all_seat: steps between exploiters (0 = none)"),
    "exploiter_steps": ("League", "learner steps of each exploiter"),
    "exploiter_games": ("League", "games that decide whether an exploiter joins the pool"),
    "exploiter_gate": ("League", "it joins when its win rate exceeds chance + this"),
    "progress": ("Run", "show progress bars"),
    "num_players": ("Game mix", "player counts of the game mix, e.g. 2,3,4,5"),
    "player_weights": ("Game mix", "weights of those counts, e.g. 1,1,2,1"),
    "reward": ("Game mix", "zero_sum or rank"),
    "shaping": ("Game mix", "potential-based shaping weight (0: off)"),
    "learning_rate": ("PPO", "Adam learning rate"),
    "n_steps": ("PPO", "rollout steps per env between updates"),
    "batch_size": ("PPO", "minibatch size (divides n_steps x n_envs)"),
    "n_epochs": ("PPO", "passes over each rollout"),
    "gamma": ("PPO", "discount"),
    "gae_lambda": ("PPO", "GAE lambda"),
    "clip_range": ("PPO", "PPO clip range"),
    "ent_coef": ("PPO", "entropy coefficient"),
    "vf_coef": ("PPO", "value-loss coefficient"),
    "net_arch": ("PPO", "hidden layer widths, e.g. 128,128"),
    "activation": ("PPO", "tanh or relu"),
    "bc_teacher": ("Warm start", "scripted bot to imitate first, e.g. planner ('' = off)"),
    "bc_games": ("Warm start", "teacher games to collect"),
    "bc_epochs": ("Warm start", "fitting passes over them"),
    "kickstart_teacher": ("Kickstarting", "bot whose choices the policy is pulled towards"),
    "kickstart_coef": ("Kickstarting", "weight of that cross-entropy term (0 = off)"),
    "kickstart_steps": ("Kickstarting", "steps over which it decays to 0 (0 = constant)"),
    "kickstart_players": ("Kickstarting", "player counts the teacher teaches ([] = all)"),
    "prior": ("Kickstarting", "bot whose own choice gets prior_weight added to its logit"),
    "prior_weight": ("Kickstarting", "logit bonus of the prior's choice (0 without a prior)"),
    "p_latest": ("Opponent pool", "chance of the latest weights per opponent seat"),
    "p_bots_min": ("Opponent pool", "chance of a scripted bot per opponent seat"),
    "p_bot_table": ("Opponent pool", "chance of a game against n-1 copies of one pool bot"),
    "p_bot_seat": ("Opponent pool", "chance of one pool bot against the learner in n-1 seats"),
    "bots": ("Opponent pool", "scripted bots of the pool, e.g. greedy,planner,random"),
    "pfsp": ("Opponent pool", "weight snapshots by x(1-x) of the win rate against them"),
    "snapshot_every": ("Opponent pool", "steps between pool snapshots"),
    "snapshot_window": ("Opponent pool", "recent snapshots kept in the pool"),
    "milestone_every": ("Opponent pool", "steps between milestone snapshots (kept for good)"),
    "eval_every": ("Evaluation", "steps between evaluations"),
    "eval_games": ("Evaluation", "evaluation games per bot and player count"),
    "eval_bots": ("Evaluation", "the evaluation panel, e.g. greedy,speculator,planner"),
    "eval_num_players": ("Evaluation", "evaluated player counts, e.g. 4 or 2,3,4,5"),
    "eval_workers": ("Evaluation", "evaluation worker processes"),
    "checkpoint_every": ("Evaluation", "steps between checkpoints"),
}


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


def _parameters() -> list[inspect.Parameter]:
    out = []
    for f in fields(TrainConfig):
        kind, elem = _kind(f.type)
        panel, text = SETTINGS_HELP.get(f.name, ("Other settings", "see training/config.py"))
        text = f"{text} \\[default: {_default(f)!s}]" if _default(f) != "" else text
        if kind == "scalar" and elem is bool:
            decl = f"{_flag(f.name)}/--no-{f.name.replace('_', '-')}"
            ann: Any = Annotated[bool | None, typer.Option(decl, help=text, rich_help_panel=panel)]
        elif kind == "scalar" and elem in (int, float):
            ann = Annotated[
                elem | None, typer.Option(_flag(f.name), help=text, rich_help_panel=panel)
            ]
        else:  # strings and lists: text, parsed below
            metavar = "TEXT" if kind == "scalar" else "A,B,..."
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
    "Self-play MaskablePPO with an opponent pool, evaluation against a bot panel, "
    "TensorBoard logs and checkpoints. Settings come from defaults, then --config "
    "(TOML: top level or a table named train), then these flags (every setting of "
    "training/config.py has one; lists are comma-separated). The run directory layout is "
    "described in docs/TRAINING.md (Checkpoints, resuming and the run directory)."
)


def train_cmd(**options: Any) -> None:
    from .config import TrainConfigError, load_config, read_config_file
    from .train import TrainError, resume_config, train

    config: Path | None = options.pop("config")
    resume: bool = options.pop("resume")
    force: bool = options.pop("force")
    backend: str = options.pop("backend")
    ray_address: str | None = options.pop("ray_address")
    env_runners: int | None = options.pop("env_runners")
    given = {k: v for k, v in options.items() if v is not None}
    overrides = {k: (_parse(k, v) if isinstance(v, str) else v) for k, v in given.items()}
    if backend not in ("lab", "rllib"):
        fail(f"--backend {backend!r} is not allowed; choose lab or rllib")
    if resume and force:
        fail(
            "--resume continues the run in --run-dir and --force starts a new one in its place; "
            "give one of them"
        )
    if backend == "rllib":
        from .rllib_backend import run_cli

        run_cli(config, overrides, resume, ray_address, env_runners, force)
        return
    if ray_address is not None or env_runners is not None:
        fail("--ray-address and --env-runners are settings of --backend rllib")
    try:
        if resume:
            if "run_dir" not in overrides:
                fail("--resume needs --run-dir (the run to continue)")
            # a resumed run keeps its settings: any other setting given (a flag or --config)
            # must equal the run's (training.rundir.resume_config names those that differ)
            given = read_config_file(config) if config is not None else {}
            given.update(overrides)
            given.setdefault("progress", True)
            cfg = resume_config(overrides["run_dir"], overrides.get("total_steps"), given=given)
            cfg.progress = given["progress"]
        else:
            cfg = load_config(config, **overrides)
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


def _rllib_parameters() -> list[inspect.Parameter]:
    """`--backend` and the RLlib backend's own flags (training.rllib_backend)."""
    panel = "Backend"
    specs = [
        (
            "backend",
            "lab",
            Annotated[
                str,
                typer.Option(
                    help="lab: the lab's trainer (--mode); rllib: RLlib PPO, one shared policy "
                    "over all seats, on Ray (pip install -e '.\\[ray]')",
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
                    help="rllib: Ray cluster address \\[default: $RAY_ADDRESS, else a local Ray]",
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
                    help="rllib: EnvRunner actors sampling in parallel \\[default: 1]",
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
                Path | None, typer.Option("--config", "-c", help="TOML file of training settings")
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
                    help="continue the run in --run-dir where it stopped, with its own settings "
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
                    help="start a new run in a --run-dir that holds one: the old run's files "
                    "(state, checkpoints, snapshots, best.*, evaluations, TensorBoard logs) are "
                    "removed first; other files are left alone",
                ),
            ],
        ),
        *_rllib_parameters(),
        *_parameters(),
    ]
)
app.command("train", help=TRAIN_HELP, context_settings={"max_content_width": 110})(train_cmd)


@app.command(
    "exploit",
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
    target: Annotated[str, typer.Option(help="the frozen target: ppo:PATH or a bot name")],
    num_players: Annotated[int, typer.Option("--num-players", "-n", help="2, 3, 4 or 5")] = 2,
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
    panel: Annotated[
        str,
        typer.Option(
            help="comma-separated players of the cheap bound, each one seat against N-1 "
            "targets ('none': no cheap bound); default greedy,speculator,planner,combiner,racer"
        ),
    ] = "",
    prior: Annotated[
        str,
        typer.Option(help="a bot the learner plays over (a start policy brings its own)"),
    ] = "",
    prior_weight: Annotated[float, typer.Option(help="logit bonus of the prior's choice")] = 0.0,
    torch_threads: Annotated[
        int,
        typer.Option(
            help="torch threads of the learner (0: one per core; 1, the default, leaves the "
            "other cores to other jobs)"
        ),
    ] = 1,
    learning_rate: Annotated[
        float | None, typer.Option(help="the learner's learning rate (default 3e-4)")
    ] = None,
    ent_coef: Annotated[
        float | None, typer.Option(help="the learner's entropy bonus (default 0.01)")
    ] = None,
    n_steps: Annotated[
        int | None, typer.Option(help="learner steps per rollout and environment (default 1024)")
    ] = None,
    critic_warmup: Annotated[
        int | None,
        typer.Option(help="rollouts that train only the critic before the actor (default 2)"),
    ] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="continue the interrupted exploit in --run-dir from its last checkpoint "
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
        )
    except (ExploitError, TrainConfigError, TrainError) as e:
        fail(str(e))
    for line in report_lines(rep):
        note(line)
    note(f"report: {Path(run) / 'exploit.json'}")
