"""`lastwill value-fit`: a policy's critic fitted to predict the game's result, from self-play
games of the policy (or games saved by an earlier fit), written as a checkpoint of its own with
the same actor (`training.valuefit.run`). `--game` names the game (Last Will by default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gamecore import DEFAULT_GAME, Game, game_names
from gamecore.plain import in_words, is_int

from .command import fail, help_default, note

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


def _counts(text: str, game: Game) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    allowed = game.player_counts
    if not counts or not all(is_int(n) and n in allowed for n in counts):
        counts = []
    if not counts or len(set(counts)) < len(counts):
        fail(f"--players {text!r}: give distinct player counts, each {in_words(allowed)}")
    return counts


def _new_file(path: Path, what: str) -> Path:
    if path.suffix != ".npz":
        fail(f"{what} {path}: give a path ending in .npz")
    if path.exists():
        fail(f"{what} {path} exists; choose a new path")
    return path


# "players": None is every player count of the game (2,3,4,5 for Last Will)
PLAY_DEFAULTS = {"players": None, "games": 2000, "sample_rate": 0.1, "explore": 0.1}


def _play_help(text: str, name: str) -> str:
    value = PLAY_DEFAULTS[name]
    return help_default(text, "every count of the game" if value is None else value)


VALUE_FIT_HELP = (
    "Fit a policy's critic to predict the game's result (for the search's leaves), from "
    "self-play games of the policy; the actor stays as it is."
)


def value_fit_cmd(
    out: Annotated[Path, typer.Option(help="The checkpoint to write (.npz; never replaced)")],
    policy: Annotated[
        str,
        typer.Option(
            metavar="<path>", help="The policy whose critic to fit (a policy's name or a .npz)"
        ),
    ] = "reference",
    game: Annotated[
        str,
        typer.Option(metavar="<text>", help=f"The game played: {', '.join(game_names())}"),
    ] = DEFAULT_GAME,
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
    from training.valuefit import games as G
    from training.valuefit.run import ValueFitError, check_policy, rules, value_fit

    settings = {
        "epochs": epochs,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "holdout": holdout,
        "seed": seed,
    }
    try:
        played = rules(game)
    except ValueFitError as e:
        fail(str(e))
    for name, value in settings.items():
        _check(name, value)
    _check("workers", workers)
    _new_file(out, "--out")
    play = {"players": players, "games": games, "sample_rate": sample_rate, "explore": explore}
    try:
        check_policy(policy, game)
        data, sources = _rows(policy, played, play, games_from, save_games, (workers, seed))
        report = value_fit(policy, out, data, settings, sources, note, game=game)
    except (ValueFitError, G.GamesError) as e:
        fail(str(e))
    for when in ("start", "fitted"):
        cal = report["held_out"][when]
        text = ", ".join(f"{n}p {c['brier_skill']}" for n, c in cal.items())
        note(f"held-out Brier skill of the {when} critic: {text}")
    note(f"wrote {out} (best pass {report['best_pass']} of {epochs})")


def _rows(
    policy: str,
    game: Game,
    play: dict[str, Any],
    games_from: str | None,
    save_games: Path | None,
    how: tuple[int, int],
):
    """The rows to learn from, and where they came from: the saved games `games_from`, or new
    self-play games of `policy` (`how`: the worker processes and the seed)."""
    from training.valuefit import games as G

    if games_from:
        given = [f"--{k.replace('_', '-')}" for k, v in play.items() if v is not None]
        if given or save_games is not None:
            fail(
                f"--games-from learns from saved games; {', '.join(given or ['--save-games'])}"
                f" belong(s) to playing new ones: give one or the other"
            )
        data, saved = G.load([Path(p) for p in games_from.split(",") if p], game)
        return data, {"from": saved}
    filled = {k: PLAY_DEFAULTS[k] if v is None else v for k, v in play.items()}
    if filled["players"] is None:
        filled["players"] = ",".join(str(k) for k in game.player_counts)
    return _play(policy, filled, how[0], save_games, how[1], game)


def _play(
    policy: str,
    play: dict[str, Any],
    workers: int,
    save_games: Path | None,
    seed: int,
    game: Game,
):
    """The rows of new self-play games of `game` and how they were played (saved when
    asked)."""
    from training.valuefit import games as G
    from training.valuefit.run import game_list, record

    for name in ("games", "sample_rate", "explore"):
        _check(name, play[name])
    counts = _counts(str(play["players"]), game)
    if save_games is not None:
        _new_file(save_games, "--save-games")
    items = game_list(counts, play["games"], seed)
    note(f"playing {len(items)} games of {policy} at {play['players']} players")
    data = record(policy, items, play["sample_rate"], play["explore"], workers, note, game.name)
    sources = {"policy": policy, **play, "players": counts, "seed": seed}
    if save_games is not None:
        G.save(save_games, data, sources, game)
        note(f"saved the games' rows to {save_games}")
    return data, sources
