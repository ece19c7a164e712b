"""`lastwill expert`: expert iteration from the command line (`training.expert.loop`); `lastwill
train --mode expert` runs it too (`settings`, `run_expert`), with the flags of the settings
every trainer shares.

Settings come from the defaults of `ExpertConfig`, then a TOML file (`--config`, top level or
an `[expert]` table), then the flags given. `--resume` continues the run in `--run-dir` with its
own settings (only `--iterations` may grow); `--force` starts a new run in place of the one
there (its files removed, as `lastwill train --force` does). `--game` names the game played
(Last Will by default); `lastwill expert-fit` fits on the run's own game.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from agents.cli import LabCommand, app, fail, help_default, note
from gamecore import game_names

from .config import MAX_ITERATIONS, ExpertConfig, ExpertConfigError

RUNS = "the run's"  # expert-fit: a setting not given is the run's own


def _help(text: str, name: str, why: str = "") -> str:
    """`text` with `ExpertConfig`'s default of setting `name` (and why it is that)."""
    f = next(f for f in fields(ExpertConfig) if f.name == name)
    value = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
    if value is None:  # a default that the game fills in (`ExpertConfig.__post_init__`)
        return help_default(text, why)
    if isinstance(value, list):
        value = ",".join(str(x) for x in value)
    return help_default(text, f"{value}, {why}" if why else value)


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
        from .loop import ExpertError, _read_state

        try:
            data.update(_read_state(Path(run_dir))["config"])
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


@app.command("expert", cls=LabCommand, help=EXPERT_HELP)
def expert_cmd(
    run_dir: Annotated[
        str | None, typer.Option(metavar="<path>", help=_help("Run directory", "run_dir"))
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            metavar="<text>",
            help=_help(f"The game played: {', '.join(game_names())}", "game"),
        ),
    ] = None,
    init_policy: Annotated[
        str | None,
        typer.Option(
            metavar="<path>",
            help=_help("Start network: a policy .npz with its critic", "init_policy"),
        ),
    ] = None,
    iterations: Annotated[
        int | None, typer.Option(help=_help("Iterations to run in all", "iterations"))
    ] = None,
    games: Annotated[
        int | None, typer.Option(help=_help("Self-play games per iteration", "games"))
    ] = None,
    sims: Annotated[
        int | None, typer.Option(help=_help("Search simulations per decision", "sims"))
    ] = None,
    full_share: Annotated[
        float | None,
        typer.Option(
            help=_help(
                "Share of decisions searched in full and kept as samples (0.01-1)", "full_share"
            )
        ),
    ] = None,
    fast_sims: Annotated[
        int | None,
        typer.Option(help=_help("Simulations of the other decisions' cheap searches", "fast_sims")),
    ] = None,
    full_below: Annotated[
        float | None,
        typer.Option(
            help=_help(
                "Search in full only where the network's top move is less likely than this "
                "(0.01-1; 1 = everywhere); the surer decisions get the cheap search",
                "full_below",
            )
        ),
    ] = None,
    policy_target: Annotated[
        str | None,
        typer.Option(
            metavar="<visits|completed_q>",
            help=_help(
                "What the network learns at a searched decision: visits (the visit counts) "
                "or completed_q (the policy improved by the search's completed Q-values)",
                "policy_target",
            ),
        ),
    ] = None,
    noise: Annotated[
        float | None,
        typer.Option(help=_help("Dirichlet noise in the root's priors (0-1; 0 = none)", "noise")),
    ] = None,
    alpha: Annotated[
        float | None, typer.Option(help=_help("The noise's concentration", "alpha"))
    ] = None,
    anchor_coef: Annotated[
        float | None,
        typer.Option(
            help=_help("Weight of KL(start network || network) in the update", "anchor_coef")
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help=_help("Self-play processes (the same samples with any number)", "workers")
        ),
    ] = None,
    num_players: Annotated[
        str | None,
        typer.Option(
            metavar="<list>",
            help=_help(
                "Player counts of the self-play games, e.g. 2,3,4,5", "num_players", "every count"
            ),
        ),
    ] = None,
    eval_bots: Annotated[
        str | None,
        typer.Option(metavar="<list>", help=_help("Evaluation panel, e.g. sprinter", "eval_bots")),
    ] = None,
    eval_num_players: Annotated[
        str | None,
        typer.Option(
            metavar="<list>",
            help=_help("Evaluation counts, e.g. 2,4", "eval_num_players", "the fewest: 2"),
        ),
    ] = None,
    eval_games: Annotated[
        int | None, typer.Option(help=_help("Games per evaluation table", "eval_games"))
    ] = None,
    eval_every: Annotated[
        int | None, typer.Option(help=_help("Iterations between evaluations", "eval_every"))
    ] = None,
    seed: Annotated[int | None, typer.Option(help=_help("Seed of the run", "seed"))] = None,
    config: Annotated[
        Path | None, typer.Option(help=help_default("TOML file of settings", "none"))
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue the run in --run-dir")] = False,
    force: Annotated[
        bool,
        typer.Option(
            help="Start a new run in a --run-dir that holds one (the old run's files removed)"
        ),
    ] = False,
) -> None:
    flags = {
        "run_dir": run_dir,
        "game": game,
        "init_policy": init_policy,
        "iterations": iterations,
        "games": games,
        "sims": sims,
        "full_share": full_share,
        "fast_sims": fast_sims,
        "full_below": full_below,
        "policy_target": policy_target,
        "noise": noise,
        "alpha": alpha,
        "workers": workers,
        "anchor_coef": anchor_coef,
        "num_players": num_players,
        "eval_bots": eval_bots,
        "eval_num_players": eval_num_players,
        "eval_games": eval_games,
        "eval_every": eval_every,
        "seed": seed,
    }
    run_expert(settings(config, flags, resume), resume, force)


def run_expert(cfg: ExpertConfig, resume: bool, force: bool = False) -> None:
    """Run expert iteration with `cfg` (a refusal exits with code 2), and say where its best
    network is."""
    from .loop import ExpertError
    from .trainer import expert

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


@app.command("expert-fit", cls=LabCommand, help=EXPERT_FIT_HELP)
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
    from .refit import RefitError, refit

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
