"""The settings of a value fit (`lastwill value-fit`, `training.valuefit.run.run_value_fit`),
checked when made: a bad value is a `ValueFitError` that names the flag, the value and what is
allowed.

`ValueFitConfig` holds the checkpoint to write and the policy whose critic it fits, the games
to learn from (new self-play games: `players`, `games`, `sample_rate`, `explore`, `workers`,
`save_games`; or saved ones: `games_from`) and the fit's own settings (`epochs`,
`learning_rate`, `batch_size`, `holdout`, `seed`). Made, it checks the game, the fit's
settings, the workers and the output path; the settings of the games are checked when the fit
reads them (`saved`, `playing`), after the policy has loaded, so that of several bad values the
same one is named as it always was. A setting of playing left out (None) is `PLAY_DEFAULTS`',
and one given with `games_from` is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamecore import DEFAULT_GAME, Game, GameNotFound, game_names, load_game
from gamecore.plain import in_words, is_int, is_number


class ValueFitError(RuntimeError):
    """Settings, inputs or an output path that a value fit cannot use."""


def rules(game: object) -> Game:
    """The game called `game`; a `ValueFitError` naming the installed games otherwise."""
    try:
        if isinstance(game, str):
            return load_game(game)
    except GameNotFound:
        pass
    raise ValueFitError(f"game={game!r} is not allowed; choose one of {', '.join(game_names())}")


# (setting, lowest, highest, lowest allowed itself); `holdout` is below 1 too
RANGES = {
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
# the settings of playing new games left out: "players" None is every player count of the game
PLAY_DEFAULTS: dict[str, Any] = {"players": None, "games": 2000, "sample_rate": 0.1, "explore": 0.1}
FIT = ("epochs", "learning_rate", "batch_size", "holdout", "seed")  # the fit's own settings


@dataclass
class ValueFitConfig:
    """A value fit's settings (module docstring)."""

    out: Path  # the checkpoint to write (.npz; never replaced)
    policy: str = "reference"  # a policy's name or a .npz, with a critic
    game: str = DEFAULT_GAME
    players: str | None = None  # comma-separated player counts of the games to play
    games: int | None = None  # self-play games per player count
    sample_rate: float | None = None  # share of decisions whose every seat is recorded
    explore: float | None = None  # share of moves drawn from the policy, not its arg-max
    workers: int = 1  # self-play processes (the same games)
    games_from: str | None = None  # comma-separated saved games to learn from instead
    save_games: Path | None = None  # where to save the played games too (.npz; never replaced)
    epochs: int = 4
    learning_rate: float = 3e-4
    batch_size: int = 1024
    holdout: float = 0.1  # share of the games held out
    seed: int = 0  # of the games, the hold-out and the fit

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if self.save_games is not None:
            self.save_games = Path(self.save_games)
        rules(self.game)
        for name in (*FIT, "workers"):
            _check(name, getattr(self, name))
        _new_file(self.out, "--out")

    @property
    def rules(self) -> Game:
        """The game played."""
        return rules(self.game)

    def fit_settings(self) -> dict[str, Any]:
        """The fit's own settings (`FIT`), as `value_fit` takes them."""
        return {name: getattr(self, name) for name in FIT}

    def saved(self) -> list[Path]:
        """The saved games to learn from (`games_from`); a `ValueFitError` for a setting of
        playing given with them."""
        play = {k: getattr(self, k) for k in PLAY_DEFAULTS}
        given = [f"--{k.replace('_', '-')}" for k, v in play.items() if v is not None]
        if given or self.save_games is not None:
            raise ValueFitError(
                f"--games-from learns from saved games; {', '.join(given or ['--save-games'])}"
                f" belong(s) to playing new ones: give one or the other"
            )
        return [Path(p) for p in str(self.games_from).split(",") if p]

    def playing(self, game: Game) -> tuple[dict[str, Any], list[int]]:
        """The settings of playing new games of `game`, those left out filled (`players` the
        text of the counts, every count of the game by default), checked, and the player
        counts."""
        given = {k: getattr(self, k) for k in PLAY_DEFAULTS}
        play = {k: PLAY_DEFAULTS[k] if v is None else v for k, v in given.items()}
        if play["players"] is None:
            play["players"] = ",".join(str(k) for k in game.player_counts)
        for name in ("games", "sample_rate", "explore"):
            _check(name, play[name])
        counts = _counts(str(play["players"]), game)
        if self.save_games is not None:
            _new_file(self.save_games, "--save-games")
        return play, counts


def _check(name: str, value: Any) -> None:
    """A `ValueFitError` unless the setting `name` is a number in its range (`RANGES`)."""
    lo, hi, closed = RANGES[name]
    ok = is_number(value) and (value >= lo if closed else value > lo) and value <= hi
    if name == "holdout":
        ok = is_number(value) and 0.0 < value < 1.0
    if not ok:
        low = f"at least {lo}" if closed else f"above {lo}"
        high = "below 1" if name == "holdout" else f"at most {hi}"
        raise ValueFitError(f"--{name.replace('_', '-')} {value}: give a value {low} and {high}")


def _counts(text: str, game: Game) -> list[int]:
    """The distinct player counts of `game` that `text` lists (comma-separated)."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    allowed = game.player_counts
    if not counts or not all(is_int(n) and n in allowed for n in counts):
        counts = []
    if not counts or len(set(counts)) < len(counts):
        raise ValueFitError(
            f"--players {text!r}: give distinct player counts, each {in_words(allowed)}"
        )
    return counts


def _new_file(path: Path, what: str) -> Path:
    """`path` if it ends in .npz and does not exist (the option `what` names it)."""
    if path.suffix != ".npz":
        raise ValueFitError(f"{what} {path}: give a path ending in .npz")
    if path.exists():
        raise ValueFitError(f"{what} {path} exists; choose a new path")
    return path
