"""`lastwill value-fit`: a policy's critic fitted to predict the game's result, from self-play
games of the policy (or games saved by an earlier fit), written as a checkpoint of its own with
the same actor (`training.valuefit.run`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from agents.cli import LabCommand, app, fail, help_default, note
from lastwill_env.engine.config import allowed_counts, is_player_count

# (setting, lowest, highest, lowest allowed itself)
_RANGES = {
    "games": (1, 10_000_000, True),
    "sample_rate": (0.0, 1.0, False),
    "explore": (0.0, 1.0, True),
    "workers": (1, 1024, True),
    "epochs": (1, 1000, True),
    "learning_rate": (0.0, 1.0, False),
    "batch_size": (1, 10_000_000, True),
    "holdout": (0.0, 1.0, False),
    "seed": (0, 2**63 - 1, True),
}


def _check(name: str, value: Any) -> None:
    lo, hi, closed = _RANGES[name]
    ok = (value >= lo if closed else value > lo) and value <= hi
    if name == "holdout":
        ok = 0.0 < value < 1.0
    if not ok:
        low = f"at least {lo}" if closed else f"above {lo}"
        high = "below 1" if name == "holdout" else f"at most {hi}"
        fail(f"--{name.replace('_', '-')} {value}: give a value {low} and {high}")


def _counts(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or not all(is_player_count(n) for n in counts) or len(set(counts)) < len(counts):
        fail(f"--players {text!r}: give distinct player counts, each {allowed_counts()}")
    return counts


def _new_file(path: Path, what: str) -> Path:
    if path.suffix != ".npz":
        fail(f"{what} {path}: give a path ending in .npz")
    if path.exists():
        fail(f"{what} {path} exists; choose a new path")
    return path


PLAY_DEFAULTS = {"players": "2,3,4,5", "games": 2000, "sample_rate": 0.1, "explore": 0.1}


def _play_help(text: str, name: str) -> str:
    return help_default(text, PLAY_DEFAULTS[name])


VALUE_FIT_HELP = (
    "Fit a policy's critic to predict the game's result (for the search's leaves), from "
    "self-play games of the policy; the actor stays as it is."
)


@app.command("value-fit", cls=LabCommand, help=VALUE_FIT_HELP)
def value_fit_cmd(
    out: Annotated[Path, typer.Option(help="The checkpoint to write (.npz; never replaced)")],
    policy: Annotated[
        str,
        typer.Option(
            metavar="<path>", help="The policy whose critic to fit (a policy's name or a .npz)"
        ),
    ] = "reference",
    players: Annotated[
        str | None,
        typer.Option(metavar="<list>", help=_play_help("Player counts of the games", "players")),
    ] = None,
    games: Annotated[
        int | None, typer.Option(help=_play_help("Self-play games per player count", "games"))
    ] = None,
    sample_rate: Annotated[
        float | None,
        typer.Option(
            help=_play_help("Share of decisions whose every seat is recorded", "sample_rate")
        ),
    ] = None,
    explore: Annotated[
        float | None,
        typer.Option(
            help=_play_help("Share of moves drawn from the policy, not its arg-max", "explore")
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Self-play processes (the same games)")] = 1,
    games_from: Annotated[
        str | None,
        typer.Option(
            metavar="<list>",
            help=help_default(
                "Saved games to learn from instead of playing (a,b.npz)", "none, play new games"
            ),
        ),
    ] = None,
    save_games: Annotated[
        Path | None,
        typer.Option(
            help=help_default("Also save the played games here (.npz; never replaced)", "none")
        ),
    ] = None,
    epochs: Annotated[int, typer.Option(help="Passes over the games")] = 4,
    learning_rate: Annotated[float, typer.Option(help="Adam's step size")] = 3e-4,
    batch_size: Annotated[int, typer.Option(help="Rows per minibatch")] = 1024,
    holdout: Annotated[float, typer.Option(help="Share of the games held out (0-1)")] = 0.1,
    seed: Annotated[int, typer.Option(help="Seed of the games, the hold-out and the fit")] = 0,
) -> None:
    from . import games as G
    from .run import ValueFitError, check_policy, value_fit

    settings = {
        "epochs": epochs,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "holdout": holdout,
        "seed": seed,
    }
    for name, value in settings.items():
        _check(name, value)
    _check("workers", workers)
    _new_file(out, "--out")
    play = {"players": players, "games": games, "sample_rate": sample_rate, "explore": explore}
    try:
        check_policy(policy)
        if games_from:
            given = [f"--{k.replace('_', '-')}" for k, v in play.items() if v is not None]
            if given or save_games is not None:
                fail(
                    f"--games-from learns from saved games; {', '.join(given or ['--save-games'])}"
                    f" belong(s) to playing new ones: give one or the other"
                )
            data, saved = G.load([Path(p) for p in games_from.split(",") if p])
            sources: dict[str, Any] = {"from": saved}
        else:
            filled = {k: PLAY_DEFAULTS[k] if v is None else v for k, v in play.items()}
            data, sources = _play(policy, filled, workers, save_games, seed)
        report = value_fit(policy, out, data, settings, sources, note)
    except (ValueFitError, G.GamesError) as e:
        fail(str(e))
    for when in ("start", "fitted"):
        cal = report["held_out"][when]
        text = ", ".join(f"{n}p {c['brier_skill']}" for n, c in cal.items())
        note(f"held-out Brier skill of the {when} critic: {text}")
    note(f"wrote {out} (best pass {report['best_pass']} of {epochs})")


def _play(policy: str, play: dict[str, Any], workers: int, save_games: Path | None, seed: int):
    """The rows of new self-play games and how they were played (saved when asked)."""
    from . import games as G
    from .run import game_list, record

    for name in ("games", "sample_rate", "explore"):
        _check(name, play[name])
    counts = _counts(str(play["players"]))
    if save_games is not None:
        _new_file(save_games, "--save-games")
    items = game_list(counts, play["games"], seed)
    note(f"playing {len(items)} games of {policy} at {play['players']} players")
    data = record(policy, items, play["sample_rate"], play["explore"], workers, note)
    sources = {"policy": policy, **play, "players": counts, "seed": seed}
    if save_games is not None:
        G.save(save_games, data, sources)
        note(f"saved the games' rows to {save_games}")
    return data, sources
