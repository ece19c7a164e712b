"""`lastwill expert` and `lastwill expert-fit`: expert iteration from the command line
(`training.expert.loop`), and a run's start network fitted again on its saved search samples
(`training.expert.refit`). `lastwill train --mode expert` runs expert iteration too
(`settings`, `run_expert`), with the flags of the settings every trainer shares.

Settings come from the defaults of `ExpertConfig`, then a TOML file (`--config`, top level or
an `[expert]` table), then the flags given (`EXPERT_FLAGS`, generated from the dataclass by
`apps.configflags`). `--resume` continues the run in `--run-dir` with its own settings (only
`--iterations` may grow); `--force` starts a new run in place of the one there (its files
removed, as `lastwill train --force` does). `--game` names the game played (Last Will by
default); `lastwill expert-fit` fits on the run's own game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gamecore import game_names
from training.expert.config import MAX_ITERATIONS, ExpertConfig, ExpertConfigError

from .command import fail, help_default, note
from .configflags import Flag, keyword, setting_options, with_parameters

RUNS = "the run's"  # expert-fit: a setting not given is the run's own


def _read_toml(path: Path) -> dict[str, Any]:
    """The settings of a TOML file (top level or an `[expert]` table), not yet validated."""
    from training.config import TrainConfigError, read_config_file

    try:
        data = read_config_file(path)
    except TrainConfigError as e:
        fail(str(e))
    data = data.get("expert", data)
    if not isinstance(data, dict):
        fail(f"config file {path}: [expert] must be a table of settings")
    return dict(data)


def _ints(name: str, text: str, spans: bool = False, most: int | None = None) -> list[int]:
    """The comma-separated integers of option `name`; with `spans`, `A-B` stands for A to B;
    with `most`, each from 1 to `most` (checked before a span is spelt out)."""
    flag = f"--{name.replace('_', '-')} {text!r} is not allowed"
    out: list[int] = []
    try:
        for part in (x.strip() for x in text.split(",")):
            lo, dash, hi = part.partition("-") if spans else (part, "", "")
            if dash and lo.strip() and int(lo) <= int(hi):
                _within(flag, [int(lo), int(hi)], most)
                out.extend(range(int(lo), int(hi) + 1))
            elif part:
                out.append(int(part))
    except ValueError:
        allowed = "comma-separated integers" + (" or spans such as 1-40" if spans else "")
        fail(f"{flag}; give {allowed}")
    _within(flag, out, most)
    return out


def _within(flag: str, numbers: list[int], most: int | None) -> None:
    if most is not None and any(not 1 <= k <= most for k in numbers):
        fail(f"{flag}; give numbers from 1 to {most}")


def settings(config: Path | None, flags: dict[str, Any], resume: bool) -> ExpertConfig:
    """Defaults, then (resuming) the run's own settings, then the TOML file, then `flags`
    (texts of lists parsed here); a bad one exits with code 2."""
    data: dict[str, Any] = {}
    run_dir = flags.get("run_dir")
    if resume:
        if run_dir is None:
            fail("--resume needs --run-dir (the run to continue)")
        from training.expert.loop import ExpertError, read_state

        try:
            data.update(read_state(Path(run_dir))["config"])
        except ExpertError as e:
            fail(str(e))
    if config is not None:
        data.update(_read_toml(config))
    for key in ("num_players", "eval_num_players"):
        if isinstance(flags.get(key), str):
            flags[key] = _ints(key, flags[key])
    if isinstance(flags.get("eval_bots"), str):
        flags["eval_bots"] = [b for b in flags["eval_bots"].split(",") if b]
    data.update({k: v for k, v in flags.items() if v is not None})
    if "num_players" in flags and flags["num_players"] is not None and "player_weights" not in data:
        data["player_weights"] = [1.0] * len(flags["num_players"])
    try:
        return ExpertConfig.from_dict(data)
    except ExpertConfigError as e:
        fail(str(e))


EXPERT_HELP = (
    "Expert iteration: the search plays itself over the network, the network learns the "
    "search's choices and results, and goes back into the search."
)
EXPERT_FIT_HELP = (
    "Fit the run's start network again on its saved search samples, with other settings, "
    "without new self-play; the run's own settings fill what is not given."
)


# The settings `lastwill expert` has flags for, in the order of its --help, each with its help
# (the default is `ExpertConfig`'s)
EXPERT_FLAGS: dict[str, Flag] = {
    "run_dir": Flag("Run directory", metavar="<path>"),
    "game": Flag(f"The game played: {', '.join(game_names())}", metavar="<text>"),
    "init_policy": Flag("Start network: a policy .npz with its critic", metavar="<path>"),
    "iterations": Flag("Iterations to run in all"),
    "games": Flag("Self-play games per iteration"),
    "sims": Flag("Search simulations per decision"),
    "full_share": Flag("Share of decisions searched in full and kept as samples (0.01-1)"),
    "fast_sims": Flag("Simulations of the other decisions' cheap searches"),
    "full_below": Flag(
        "Search in full only where the network's top move is less likely than this "
        "(0.01-1; 1 = everywhere); the surer decisions get the cheap search"
    ),
    "policy_target": Flag(
        "What the network learns at a searched decision: visits (the visit counts) "
        "or completed_q (the policy improved by the search's completed Q-values)",
        metavar="<visits|completed_q>",
    ),
    "noise": Flag("Dirichlet noise in the root's priors (0-1; 0 = none)"),
    "alpha": Flag("The noise's concentration"),
    "anchor_coef": Flag("Weight of KL(start network || network) in the update"),
    "workers": Flag("Self-play processes (the same samples with any number)"),
    "num_players": Flag(
        "Player counts of the self-play games, e.g. 2,3,4,5", default="every count"
    ),
    "eval_bots": Flag("Evaluation panel, e.g. sprinter"),
    "eval_num_players": Flag("Evaluation counts, e.g. 2,4", default="the fewest: 2"),
    "eval_games": Flag("Games per evaluation table"),
    "eval_every": Flag("Iterations between evaluations"),
    "seed": Flag("Seed of the run"),
}
# the options of the run itself, after the settings'
RUN_PARAMETERS = [
    keyword(
        "config",
        Annotated[Path | None, typer.Option(help=help_default("TOML file of settings", "none"))],
    ),
    keyword(
        "resume",
        Annotated[bool, typer.Option(help="Continue the run in --run-dir")],
        default=False,
    ),
    keyword(
        "force",
        Annotated[
            bool,
            typer.Option(
                help="Start a new run in a --run-dir that holds one (the old run's files removed)"
            ),
        ],
        default=False,
    ),
]


def expert_cmd(**options: Any) -> None:
    config: Path | None = options.pop("config")
    resume: bool = options.pop("resume")
    force: bool = options.pop("force")
    run_expert(settings(config, options, resume), resume, force)


with_parameters(expert_cmd, [*setting_options(ExpertConfig, EXPERT_FLAGS), *RUN_PARAMETERS])


def run_expert(cfg: ExpertConfig, resume: bool, force: bool = False) -> None:
    """Run expert iteration with `cfg` (a refusal exits with code 2), and say where its best
    network is."""
    from training.expert.loop import ExpertError
    from training.expert.trainer import expert

    if resume and force:
        fail(
            "--resume continues the run in --run-dir and --force starts a new one in its place; "
            "give one of them"
        )
    try:
        st = expert(cfg, resume=resume, notify=note, force=force)
    except (ExpertError, ExpertConfigError) as e:
        fail(str(e))
    best = st.get("best") or {}
    note(
        f"run {cfg.run_dir}: {st['iteration']} iterations; best network "
        f"{Path(cfg.run_dir) / 'best.npz'} (iteration {best.get('step')}, score "
        f"{best.get('score')})"
    )


def expert_fit_cmd(
    run_dir: Annotated[
        str,
        typer.Option(metavar="<path>", help="The expert-iteration run whose samples to learn"),
    ],
    samples: Annotated[
        str,
        typer.Option(
            metavar="<list>", help="Iterations whose samples to learn, e.g. 1,2,3 or 1-40"
        ),
    ],
    out: Annotated[Path, typer.Option(help="The checkpoint to write (.npz; never replaced)")],
    target: Annotated[
        str,
        typer.Option(
            metavar="<visits|best>",
            help="What the network learns: visits (the visit distribution) or best (its most "
            "visited move)",
        ),
    ] = "visits",
    learning_rate: Annotated[
        float | None, typer.Option(help=help_default("Adam's step size", RUNS))
    ] = None,
    epochs: Annotated[
        int | None, typer.Option(help=help_default("Passes over the samples", RUNS))
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option(help=help_default("Samples per minibatch", RUNS))
    ] = None,
    anchor_coef: Annotated[
        float | None,
        typer.Option(help=help_default("Weight of KL(start network || network)", RUNS)),
    ] = None,
    vf_coef: Annotated[
        float | None, typer.Option(help=help_default("Weight of the critic's loss", RUNS))
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help=help_default("Seed of the network and the batches", RUNS))
    ] = None,
) -> None:
    from training.expert.refit import RefitError, refit

    settings = {
        "learning_rate": learning_rate,
        "epochs": epochs,
        "batch_size": batch_size,
        "anchor_coef": anchor_coef,
        "vf_coef": vf_coef,
        "seed": seed,
    }
    try:
        iterations = _ints("samples", samples, spans=True, most=MAX_ITERATIONS)
        losses = refit(Path(run_dir), iterations, out, target, **settings)
    except RefitError as e:
        fail(str(e))
    shown = ", ".join(f"{k} {v:.4g}" for k, v in losses.items())
    note(f"wrote {out} ({shown})")
