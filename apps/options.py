"""The options several `lastwill` commands share, one spelling of each flag and its help, and
their checks (a bad value exits with code 2): the seed, the move time limit of outside agents,
the game and its config options, the workers, the summary format; and the legend of player
specs under the help of the commands that take them (:class:`LegendCommand`)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from agents.registry import legend
from gamecore import Game, GameNotFound, game_names, load_game
from gamecore.options import ConfigError

from .command import LabCommand, fail


def _limit_help(outcome: str) -> str:
    return (
        "Seconds an outside agent (a module:Class spec, an entry point or a registered name; "
        "not the lab's bots nor ppo: policies) may take per move, and 10x that to be built; "
        f"one over it, or calling sys.exit, {outcome} (0: no limit)"
    )


def _player_range(game: Game) -> str:
    """A game's player counts in a --help line: ``2-5``."""
    return f"{min(game.player_counts)}-{max(game.player_counts)}"


PLAYER_RANGE = _player_range(load_game())  # the player counts in a --help line (Last Will's)
MOVE_TIME_LIMIT_HELP = _limit_help("makes its game an error row")
LIVE_TIME_LIMIT_HELP = _limit_help(
    "is dropped and its seat plays the first legal action for the rest of the game"
)


def checked_seed(value: int) -> int:
    """``--seed`` checked: an integer from 0 to 2**64 - 1, else exit 2."""
    from gamecore.options import check_seed_option

    try:
        return check_seed_option("--seed", value)
    except ConfigError as e:
        fail(str(e))


def checked_time_limit(value: float) -> float:
    """``--move-time-limit`` checked: a finite number of seconds >= 0, else exit 2."""
    from agents.timelimit import check_time_limit

    try:
        return check_time_limit(value)
    except ValueError as e:
        fail(str(e))


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def legend_epilog() -> str:
    """The legend of player specs under a command's help."""
    try:
        text = legend()
    except Exception as e:  # noqa: BLE001 - help must still print
        text = f"  (the player registry failed to load: {type(e).__name__}: {e})"
    from rich.markup import escape

    head = (
        "Player specs (name or name:key=value, comma-separated in --players; "
        "module.path:ClassName[:key=value] imports an agent class; installed packages add "
        "names through the lastwill.agents entry-point group):"
    )
    return head + "\n\n" + escape(text)


class LegendCommand(LabCommand):
    """Builds the player-spec legend when help is shown (the registry may grow meanwhile)."""

    def format_help(self, ctx, formatter) -> None:
        self.epilog = legend_epilog()
        super().format_help(ctx, formatter)


# options shared by several commands (one spelling of each flag and its help)
StartingMoneyOpt = Annotated[
    str,
    typer.Option(
        "--starting-money",
        metavar="<70|will-shared|will-each>",
        help="Starting money: 70, or a will card drawn for all players (will-shared) or by "
        "each (will-each)",
    ),
]
BoardSpacesOpt = Annotated[int, typer.Option("--board-spaces", help="Board card spaces")]
WorkersOpt = Annotated[
    int,
    typer.Option(
        "--workers",
        "-w",
        help="Worker processes (1: in this process, but a module:Class or entry-point agent "
        "still plays in one worker process)",
    ),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Summary format on stdout")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar")]
MoveTimeLimitOpt = Annotated[float, typer.Option("--move-time-limit", help=MOVE_TIME_LIMIT_HELP)]


def parsed_starting_money(text: str) -> int | str:
    """``--starting-money`` as GameConfig takes it: digits become an int, names stay text."""
    return int(text) if text.strip().isdigit() else text


GameOpt = Annotated[
    str,
    typer.Option(
        "--game",
        metavar="<text>",
        help="The game to play: an installed game, e.g. lastwill",
    ),
]


def chosen_game(name: str) -> Game:
    """The game ``--game`` names, or exit 2 naming the installed ones."""
    try:
        return load_game(name)
    except GameNotFound:
        fail(f"--game {name!r} is not an installed game; choose one of {', '.join(game_names())}")


def game_config(game: Game, n: int, starting_money: str, board_spaces: int):
    """The config of an ``n``-player game of ``game`` with the options given (exit 2 on an
    option the game does not take, or a value it refuses)."""
    given = {"starting_money": parsed_starting_money(starting_money), "board_spaces": board_spaces}
    defaults = {"starting_money": 70, "board_spaces": 5}
    options = {k: v for k, v in given.items() if k in game.config_options}
    foreign = [k for k, v in given.items() if k not in options and v != defaults[k]]
    if foreign:
        flags = " and ".join("--" + k.replace("_", "-") for k in foreign)
        fail(f"{flags}: {game.title} takes no such option (Last Will's, docs/RULES.md §9)")
    try:
        return game.make_config(n, **options)
    except ValueError as e:
        fail(str(e))
