"""`lastwill replay` and `lastwill play`: a recorded game stepped through in the terminal
(`apps.replay`), and a game played there against bots or policies: Last Will's table
(`apps.play`), any other installed game through its own text (`apps.tableplay`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT
from gamecore import DEFAULT_GAME, Game

from .command import LabCommand, fail, help_default
from .options import (
    LIVE_TIME_LIMIT_HELP,
    PLAYER_RANGE,
    BoardSpacesOpt,
    GameOpt,
    StartingMoneyOpt,
    checked_seed,
    checked_time_limit,
    chosen_game,
    legend_epilog,
    parsed_starting_money,
)

REPLAY_HELP = (
    "Step through a recorded game: a row of an arena JSONL log (--game N) or a game file "
    "written by `lastwill play`. Every decision is named; --seat S shows only what that seat "
    "may see (its own hand, never the others'), --table shows every hand. Without --step the "
    "whole game is printed compactly (one line per decision), then the last picture of the "
    "table and the results."
)


def replay(
    path: Annotated[
        Path, typer.Argument(help="Arena log (.jsonl) or a `lastwill play` game file (.json)")
    ],
    game: Annotated[
        int | None,
        typer.Option(
            "--game",
            "-g",
            help=help_default(
                "Game index in an arena log (its `game` field)", "the log's only game"
            ),
        ),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat",
            "-s",
            help=help_default("Show the game as this seat sees it (0-based)", "every hand"),
        ),
    ] = None,
    table: Annotated[
        bool, typer.Option("--table", help="Show the whole table, every hand (the default)")
    ] = False,
    round_: Annotated[
        int | None,
        typer.Option(
            "--round",
            "-r",
            help=help_default("Start at the first decision of round R", "the game's start"),
        ),
    ] = None,
    step: Annotated[
        bool,
        typer.Option(
            "--step/--no-step",
            "--interactive",
            "-i",
            help="Page through the decisions, one per Enter (c: to the end, q: quit)",
        ),
    ] = False,
) -> None:
    from .replay import ReplayError, load_record, page, replay_text

    if seat is not None and table:
        fail("choose one view: --seat S (one seat) or --table (every hand), not both")
    try:
        record = load_record(path, game)
        if step:
            page(record, seat=seat, from_round=round_, inp=sys.stdin, out=sys.stdout)
        else:
            typer.echo(replay_text(record, seat=seat, from_round=round_))
    except ReplayError as e:
        fail(str(e))


PLAY_HELP = (
    "Play a game in the terminal against bots or checkpoints. You see only your own hand and "
    "what your seat may know; your legal actions are numbered, with each card's text, and pass "
    "comes last. At the prompt: a number, `card NAME` (a card's text), `save PATH` (resume "
    "later with --load PATH; `save --force PATH` replaces a file), `show`, `help` or `quit`. "
    "The finished game is written to --out as a record that `lastwill replay` reads; an "
    "existing file is refused before the game unless --force is given. With --game another "
    "installed game (e.g. money): its picture of your seat, what changed since your last "
    "decision and numbered moves; at the prompt a number, h or ? (help) or q (quit: the record "
    "is still written, marked unfinished)."
)
PLAY_OPPONENTS = "greedy,planner,combiner"  # Last Will's; another game: its default panel


class PlayLegendCommand(LabCommand):
    """The player-spec legend under `lastwill play --help`."""

    def format_help(self, ctx, formatter) -> None:
        self.epilog = legend_epilog().replace("in --players", "in --opponents")
        super().format_help(ctx, formatter)


def play(
    seat: Annotated[int, typer.Option("--seat", help="Your seat, 0-based (0 starts)")] = 0,
    opponents: Annotated[
        str,
        typer.Option(
            "--opponents",
            "-p",
            metavar="<list>",
            help=help_default(
                "Comma-separated specs of the other seats in seat order (one spec fills "
                "every seat), e.g. greedy,planner,ppo:PATH",
                f"{PLAY_OPPONENTS}; another game: its default panel",
            ),
        ),
    ] = "",
    num_players: Annotated[
        int | None,
        typer.Option(
            "--num-players",
            "-n",
            help=help_default(
                f"Seats, {PLAYER_RANGE} (another game: its own counts)",
                "one per --opponents spec, plus yours",
            ),
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", help=help_default("Deal seed", "random"))
    ] = None,
    starting_money: StartingMoneyOpt = "70",
    board_spaces: BoardSpacesOpt = 5,
    load: Annotated[
        Path | None,
        typer.Option(
            "--load",
            help=help_default(
                "Resume a game saved with `save PATH` (ignores the setup)", "a new game"
            ),
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help=help_default("Game record", "runs/play/<time>.json")),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out file")] = False,
    move_time_limit: Annotated[
        float, typer.Option("--move-time-limit", help=LIVE_TIME_LIMIT_HELP)
    ] = DEFAULT_MOVE_TIME_LIMIT,
    game_name: GameOpt = DEFAULT_GAME,
) -> None:
    from agents.safeio import DestinationError, check_destination

    from . import play as pl

    rules = chosen_game(game_name)
    if rules.name != DEFAULT_GAME:  # apps.tableplay; Last Will keeps apps.play
        setup = (seat, num_players, seed, starting_money, board_spaces, load, move_time_limit)
        _play_table(rules, opponents, setup, out, force)
        return
    opponents = opponents or PLAY_OPPONENTS
    try:
        if load is not None:
            game = pl.load_game(load, move_time_limit=checked_time_limit(move_time_limit))
        else:
            game = pl.new_play(
                opponents.split(","),
                human_seat=seat,
                num_players=num_players,
                seed=seed,
                starting_money=parsed_starting_money(starting_money),
                board_spaces=board_spaces,
                trusted=True,  # typed here; a --load file's seats are data (docs/TRUST.md)
                move_time_limit=checked_time_limit(move_time_limit),
            )
    except pl.PlayError as e:
        fail(str(e))
    target = out if out is not None else pl.default_out_path()
    try:  # before the game: a record that cannot be written is refused now, not at the end
        check_destination(target, "game record", exists_ok=force)
    except DestinationError as e:
        fail(str(e))
    outcome = pl.run(game, sys.stdin, sys.stdout, out_path=target, overwrite=force)
    if not outcome.finished:
        raise typer.Exit(0)


def _table_options(rules: Game, starting_money: str, board_spaces: int) -> dict:
    """The config options of `lastwill play` that ``rules`` takes; exit 2 on one it does not
    take given a value other than its default."""
    given = {"starting_money": parsed_starting_money(starting_money), "board_spaces": board_spaces}
    defaults = {"starting_money": 70, "board_spaces": 5}
    options = {k: v for k, v in given.items() if k in rules.config_options}
    foreign = [k for k, v in given.items() if k not in options and v != defaults[k]]
    if foreign:
        flags = " and ".join("--" + k.replace("_", "-") for k in foreign)
        fail(f"{flags}: {rules.title} takes no such option (Last Will's, docs/RULES.md §9)")
    return options


def _play_table(rules: Game, opponents: str, setup: tuple, out: Path | None, force: bool) -> None:
    """`lastwill play --game NAME` for a game other than Last Will (`apps.tableplay`);
    ``setup``: the options seat, num_players, seed, starting_money, board_spaces, load and
    move_time_limit as given."""
    from agents.safeio import DestinationError, check_destination

    from . import tableplay as tp

    seat, num_players, seed, starting_money, board_spaces, load, limit = setup
    if load is not None:
        fail(f"--load resumes Last Will games only; {rules.title} games are not saved midway")
    try:
        table = tp.new_table(
            rules,
            (opponents or ",".join(rules.default_panel)).split(","),
            human_seat=seat,
            num_players=num_players,
            seed=None if seed is None else checked_seed(seed),
            options=_table_options(rules, starting_money, board_spaces),
            trusted=True,  # typed here (docs/TRUST.md)
            move_time_limit=checked_time_limit(limit),
        )
    except tp.TablePlayError as e:
        fail(str(e))
    target = out if out is not None else tp.default_out_path()
    try:  # before the game: a record that cannot be written is refused now, not at the end
        check_destination(target, "game record", exists_ok=force)
    except DestinationError as e:
        fail(str(e))
    tp.run(table, sys.stdin, sys.stdout, out_path=target, overwrite=force)
