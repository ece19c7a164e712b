"""`lastwill eval`: one player against the bot panel at each player count (`agents.evaluate`),
logged as it plays, summarised in one table (win rate, mean rank and rating per table) as a
table, JSON or CSV on stdout."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from agents.deals import describe
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT
from gamecore import DEFAULT_GAME
from gamecore.options import ConfigError

from .command import fail, help_default, note
from .options import (
    BoardSpacesOpt,
    FormatOpt,
    GameOpt,
    MoveTimeLimitOpt,
    OutputFormat,
    QuietOpt,
    StartingMoneyOpt,
    WorkersOpt,
    checked_seed,
    checked_time_limit,
    chosen_game,
    game_config,
)
from .printing import figure, note_shared_wins, progress_bar

EVAL_HELP = (
    "Evaluate one player against the bot panel: at each player count, a table against copies "
    "of each panel bot and a mixed table of different bots, seats rotated over paired deals "
    "(every table at a count plays the same deals). Prints one summary table: win rate with "
    "its Wilson 95% interval beside the chance rate 1/N, mean rank and the player's rating "
    "(one Plackett-Luce fit over all games at that count, Elo scale, with its standard error; "
    "--anchor = 0). The games are logged as "
    "JSONL (--out) as they finish; --resume continues an interrupted log."
)


def _int_list_option(text: str, flag: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{flag} takes comma-separated integers, e.g. 2,3,4,5; got {text!r}")
    if not values:
        fail(f"{flag} needs at least one value, e.g. 4 or 2,3,4,5")
    return values


# the options of `lastwill eval` (one alias per option; the shared ones are in apps.options)
EvalSpecArg = Annotated[
    str,
    typer.Argument(
        help="The player to evaluate, e.g. ppo:agents/policies/reference.npz@ref or greedy"
    ),
]
EvalNumPlayersOpt = Annotated[
    str,
    typer.Option(
        "--num-players",
        "-n",
        metavar="<list>",
        show_default=False,
        help=help_default(
            "Player counts, comma-separated, e.g. 2,3,4,5", "4, the count training evaluates at"
        ),
    ),
]
EvalGamesOpt = Annotated[
    int,
    typer.Option("--games", "-g", help="Games per table, rounded up to whole seat rotations"),
]
PanelOpt = Annotated[
    str | None,
    typer.Option(
        "--panel",
        metavar="<list>",
        help=help_default("Comma-separated bot specs of the panel", "the lab's panel"),
    ),
]
EvalSeedOpt = Annotated[int, typer.Option("--seed", "-s", help="Seed of the deals")]
EvalDealsOpt = Annotated[
    str,
    typer.Option(
        "--deals",
        metavar="<validation|test>",
        help="Deal set: test (for reported figures) or validation (for choosing among "
        "players); see docs/RESULTS.md",
    ),
]
EvalAnchorOpt = Annotated[
    str | None,
    typer.Option(
        "--anchor",
        metavar="<spec>",
        help="Spec whose rating is 0; one outside the panel sits at the mixed "
        "tables \\[default: the first panel bot]",
    ),
]
MixedOpt = Annotated[bool, typer.Option("--mixed/--no-mixed", help="Play the mixed tables")]
EvalOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", "-o", help=help_default("JSONL log of the games", "runs/eval/<time>.jsonl")
    ),
]
EvalResumeOpt = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the log at --out (same options), playing only the missing games",
    ),
]
NoPlayOpt = Annotated[
    bool,
    typer.Option(
        "--no-play",
        help="Play nothing: summarise the games of the log at --out (same options; "
        "checked as --resume checks it, never written), e.g. of an evaluation still "
        "running; a table short of its games is named on stderr: not a result yet",
    ),
]


def eval_cmd(
    spec: EvalSpecArg,
    num_players: EvalNumPlayersOpt = "4",
    games: EvalGamesOpt = 400,
    panel: PanelOpt = None,
    seed: EvalSeedOpt = 0,
    deals: EvalDealsOpt = "test",
    anchor: EvalAnchorOpt = None,
    mixed: MixedOpt = True,
    workers: WorkersOpt = 1,
    out: EvalOutOpt = None,
    fmt: FormatOpt = OutputFormat.table,
    starting_money: StartingMoneyOpt = "70",
    board_spaces: BoardSpacesOpt = 5,
    quiet: QuietOpt = False,
    move_time_limit: MoveTimeLimitOpt = DEFAULT_MOVE_TIME_LIMIT,
    resume: EvalResumeOpt = False,
    no_play: NoPlayOpt = False,
    game_name: GameOpt = DEFAULT_GAME,
) -> None:
    from agents import arena as ar

    move_time_limit = checked_time_limit(move_time_limit)
    seed = checked_seed(seed)
    game = chosen_game(game_name)
    counts = _int_list_option(num_players, "--num-players")
    default_panel = list(game.default_panel)
    bots = default_panel if panel is None else [b.strip() for b in panel.split(",") if b.strip()]
    checked = game_config(game, max(game.player_counts), starting_money, board_spaces)
    sm = getattr(checked, "starting_money", 70)  # Last Will's option, parsed and checked
    _check_eval_out(out, resume, no_play)
    target = out if out is not None else ar.default_out_path("runs/eval")
    result = _run_eval(
        spec,
        bots,
        counts,
        quiet or no_play,
        games=games,
        seed=seed,
        deals=deals,
        mixed=mixed,
        anchor=anchor,
        workers=workers,
        starting_money=sm,
        board_spaces=board_spaces,
        out=target,
        move_time_limit=move_time_limit,
        resume=resume,
        play=not no_play,
        game_name=game.name,
    )
    _report_eval(result, fmt)


def _run_eval(spec: str, bots: list[str], counts: list[int], quiet: bool, **options):
    """Evaluate ``spec`` against the panel ``bots`` at the player ``counts`` (``options``: those
    of :func:`agents.evaluate.evaluate`) under a progress bar; an evaluation error exits 2."""
    from agents import evaluate as ev
    from agents.registry import PlayerSpecError

    progress, task_id = progress_bar("eval", quiet)
    try:
        # bad counts or an empty panel fail before any game
        ev.panel_tables(spec, bots, counts, game_name=options["game_name"])
        with progress, contextlib.redirect_stdout(sys.stderr):  # stdout is the summary's
            return ev.evaluate(
                spec,
                panel=bots,
                num_players=counts,
                on_start=lambda total: progress.update(task_id, total=total),
                on_game=lambda row: progress.update(task_id, advance=1),
                trusted=True,  # the specs were typed here (docs/TRUST.md)
                on_note=lambda text: note(f"note: {text}"),
                **options,
            )
    except (ev.EvalError, PlayerSpecError, ConfigError) as e:
        fail(str(e))


def _check_eval_out(out: Path | None, resume: bool, no_play: bool = False) -> None:
    """--out, --resume and --no-play agree: --resume needs a log, an existing log needs
    --resume (or --no-play, which reads it), --no-play needs a log that exists."""
    if resume and out is None:
        fail("--resume needs --out (the evaluation log to continue)")
    if no_play and (out is None or not out.is_file()):
        where = "no --out was given" if out is None else f"{out} is not a file"
        fail(f"--no-play reads the evaluation log at --out, and {where}")
    if out is not None and out.exists() and not (resume or no_play):
        fail(
            f"{out} already exists; refusing to overwrite it. Pass --resume to continue that "
            f"evaluation, or choose another --out."
        )


def _report_eval(result, fmt: OutputFormat) -> None:
    """The evaluation's summary on stdout in ``fmt``, then the log line on stderr."""
    import json

    from agents import evaluate as ev

    note_shared_wins(result.rows)

    if fmt is OutputFormat.json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    elif fmt is OutputFormat.csv:
        typer.echo(ev.summary_csv(result), nl=False)
    else:
        _print_eval(result)
    for row in result.summary():
        if row["planned"] is not None and row["logged"] < row["planned"]:
            note(
                f"partial: {row['num_players']}p {row['table']} holds {row['logged']} of its "
                f"{row['planned']} games; a table is a result only when it is complete"
            )
    note(
        f"log: {result.out} ({len(result.rows)} games, "
        f"{sum(1 for r in result.rows if r.get('error'))} errors, {result.elapsed:.1f}s, "
        f"{describe(result.deals, result.seed)})"
    )


def _print_eval(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from agents.registry import display_name

    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    t = Table(
        title=f"{display_name(result.spec)} against the panel: {len(result.rows)} games, "
        f"paired {describe(result.deals, result.seed)}, seats rotated",
        caption=_eval_rating_caption(result),
    )
    for col in ("players", "table", "games", "win rate", "95% CI", "chance", "mean rank"):
        t.add_column(col, justify="left" if col == "table" else "right")
    t.add_column("rating", justify="right")
    t.add_column("errors", justify="right")
    seen: set[int] = set()
    for row in result.summary():
        opp = [display_name(o) for o in row["opponents"]]
        name = (
            f"vs {len(opp)}x {opp[0]}"
            if row["table"].startswith("vs_")
            else "mixed: " + ", ".join(opp)
        )
        n = row["num_players"]
        rating = "" if n in seen else _eval_rating(row)
        seen.add(n)
        t.add_row(
            str(n),
            name,
            str(row["games"]),
            figure(row["win_rate"]),
            f"{row['ci_lo']:.3f}-{row['ci_hi']:.3f}",
            figure(row["chance"]),
            figure(row["mean_rank"], ".2f"),
            rating,
            str(row["errors"]),
        )
    console.print(t)


def _eval_rating(row) -> str:
    """The player's rating at a table's count with its standard error: `+48.7 ± 12.1`."""
    if row["rating"] is None:
        return "-"
    se = "" if row["rating_se"] is None else f" ± {row['rating_se']:.1f}"
    return f"{row['rating']:+.1f}{se}"


def _eval_rating_caption(result) -> str:
    """What the eval table's rating column is (`agents.stats.fit_ratings` at each count)."""
    from agents.registry import display_name

    fits = list(result.ratings.values())
    anchors = {r["anchor"] for r in fits}
    (anchor,) = anchors if len(anchors) == 1 else (None,)
    zero = f"{display_name(anchor)} = 0" if anchor else "mean 0 where the anchor has no game"
    resamples = fits[0]["resamples"] if fits else 0
    return (
        f"rating: one Plackett-Luce fit over all games at that player count (order-free, Elo "
        f"scale), {zero}; ±: standard error over {resamples} bootstrap resamples of the deals"
    )
