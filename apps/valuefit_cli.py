"""`lastwill value-fit`: a policy's critic fitted to predict the game's result, from self-play
games of the policy (or games saved by an earlier fit), written as a checkpoint of its own with
the same actor (`training.valuefit.run`). `--game` names the game (Last Will by default).

Its options are the settings of `ValueFitConfig` (`training.valuefit.config`, which checks
them), generated from the dataclass by `apps.configflags` with the help of `VALUE_FIT_FLAGS`."""

from __future__ import annotations

from typing import Any

from gamecore import game_names
from training.valuefit.config import PLAY_DEFAULTS, ValueFitConfig, ValueFitError

from .command import fail, note
from .configflags import Flag, setting_options, with_parameters

VALUE_FIT_HELP = (
    "Fit a policy's critic to predict the game's result (for the search's leaves), from "
    "self-play games of the policy; the actor stays as it is."
)

# The settings `lastwill value-fit` has flags for, in the order of its --help, each with its
# help (the default is `ValueFitConfig`'s, a setting of playing's `PLAY_DEFAULTS`'; `shown`:
# typer shows it)
VALUE_FIT_FLAGS: dict[str, Flag] = {
    "out": Flag("The checkpoint to write (.npz; never replaced)"),
    "policy": Flag(
        "The policy whose critic to fit (a policy's name or a .npz)", metavar="<path>", shown=True
    ),
    "game": Flag(f"The game played: {', '.join(game_names())}", metavar="<text>", shown=True),
    "players": Flag(
        "Player counts of the games", metavar="<list>", default="every count of the game"
    ),
    "games": Flag("Self-play games per player count", default=str(PLAY_DEFAULTS["games"])),
    "sample_rate": Flag(
        "Share of decisions whose every seat is recorded",
        default=str(PLAY_DEFAULTS["sample_rate"]),
    ),
    "explore": Flag(
        "Share of moves drawn from the policy, not its arg-max",
        default=str(PLAY_DEFAULTS["explore"]),
    ),
    "workers": Flag("Self-play processes (the same games)", shown=True),
    "games_from": Flag(
        "Saved games to learn from instead of playing (a,b.npz)",
        metavar="<list>",
        default="none, play new games",
    ),
    "save_games": Flag("Also save the played games here (.npz; never replaced)"),
    "epochs": Flag("Passes over the games", shown=True),
    "learning_rate": Flag("Adam's step size", shown=True),
    "batch_size": Flag("Rows per minibatch", shown=True),
    "holdout": Flag("Share of the games held out (0-1)", shown=True),
    "seed": Flag("Seed of the games, the hold-out and the fit", shown=True),
}


def value_fit_cmd(**options: Any) -> None:
    from training.valuefit import games as G
    from training.valuefit.run import run_value_fit

    try:
        cfg = ValueFitConfig(**{k: v for k, v in options.items() if v is not None})
        report = run_value_fit(cfg, note)
    except (ValueFitError, G.GamesError) as e:
        fail(str(e))
    for when in ("start", "fitted"):
        cal = report["held_out"][when]
        text = ", ".join(f"{n}p {c['brier_skill']}" for n, c in cal.items())
        note(f"held-out Brier skill of the {when} critic: {text}")
    note(f"wrote {cfg.out} (best pass {report['best_pass']} of {cfg.epochs})")


with_parameters(value_fit_cmd, setting_options(ValueFitConfig, VALUE_FIT_FLAGS))
