"""Command-line entry point: the ``lastwill`` console script.

One Typer :data:`app`; each subcommand is a function decorated with ``@app.command()`` in its
own section below (``arena`` today; ``replay``, ``play``, ``train`` are added the same way).
Conventions for subcommands: user errors go through :func:`fail` (a one-line message on stderr,
exit code 2, no traceback); heavy imports (the arena, matplotlib, torch) happen
inside the command function, so ``import agents.cli`` stays cheap and torch-free.
"""

from __future__ import annotations

import contextlib
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from gamecore import DEFAULT_GAME, Game, GameNotFound, game_names, load_game
from gamecore.options import ConfigError
from gamecore.plain import in_words

from .deals import DealsError, check_deals, describe
from .registry import legend
from .timelimit import DEFAULT_MOVE_TIME_LIMIT


class _HelpConvention:
    """The help convention of every `lastwill` command (docs/DEVELOPMENT.md, Command-line
    help), where typer's own choice differs: a flag, --help included, shows no metavar, and
    --help's text ends without a period."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if getattr(param, "is_flag", False):
                param.metavar = ""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar, option.help = "", "Show this message and exit"
        return option


class LabCommand(_HelpConvention, TyperCommand):
    """A `lastwill` subcommand (``@app.command(cls=LabCommand)``)."""


class LabGroup(_HelpConvention, TyperGroup):
    """The `lastwill` command itself."""


def help_default(text: str, default: object) -> str:
    """``text`` with a default written at its end, for an option whose parameter default
    (``None``, ``''``) stands for another value or for what happens without it."""
    if isinstance(default, (list, tuple)):
        default = ",".join(str(x) for x in default)
    return f"{text} \\[default: {default}]"


app = typer.Typer(
    name="lastwill",
    help="Last Will RL lab: play bots against each other, train and evaluate agents.",
    no_args_is_help=True,
    add_completion=False,
    cls=LabGroup,
)


def version_text() -> str:
    """`lastwill-lab X.Y.Z (env lastwill_vN, N actions; ...)`: the lab's version
    (`gamecore.__version__`, which the package's metadata is built from) and each installed
    game's env."""
    import gamecore

    envs = []
    for name in game_names():
        try:
            g = load_game(name)
        except Exception as e:  # noqa: BLE001 - a broken game must not hide the version
            envs.append(f"{name} cannot be loaded: {type(e).__name__}: {e}")
            continue
        envs.append(f"env {g.env_name}, {g.num_actions} actions")
    return f"lastwill-lab {gamecore.__version__} ({'; '.join(envs)})"


def _version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the lab's version and its env version, then exit",
            callback=_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Last Will RL lab: play bots against each other, train and evaluate agents."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code`` (2: bad usage/input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def note(message: str) -> None:
    typer.echo(message, err=True)


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


def _seed(value: int) -> int:
    """``--seed`` checked: an integer from 0 to 2**64 - 1, else exit 2."""
    from gamecore.options import check_seed_option

    try:
        return check_seed_option("--seed", value)
    except ConfigError as e:
        fail(str(e))


def _move_time_limit(value: float) -> float:
    """``--move-time-limit`` checked: a finite number of seconds >= 0, else exit 2."""
    from .timelimit import check_time_limit

    try:
        return check_time_limit(value)
    except ValueError as e:
        fail(str(e))


# ---------------------------------------------------------------------------------------------
# lastwill arena


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def _arena_epilog() -> str:
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


class _LegendCommand(LabCommand):
    """Builds the player-spec legend when help is shown (the registry may grow meanwhile)."""

    def format_help(self, ctx, formatter) -> None:
        self.epilog = _arena_epilog()
        super().format_help(ctx, formatter)


ARENA_HELP = (
    "Play a seeded tournament with seat rotation and paired deals; log and rate it.\n\n"
    "Every deal is played once per seating (paired deals), so card luck cancels between "
    "entrants. Prints win rates with Wilson 95% intervals beside the chance rate 1/N, mean "
    "ranks, per-seat win rates and ratings (a Plackett-Luce fit over all games, order-free, "
    "with bootstrap intervals) anchored at --anchor. "
    "Rows are appended to the JSONL log as games finish; --resume continues an interrupted log."
)


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


def _starting_money(text: str) -> int | str:
    """``--starting-money`` as GameConfig takes it: digits become an int, names stay text."""
    return int(text) if text.strip().isdigit() else text


def _player_count(n: int, flag: str = "--num-players", game: Game | None = None) -> int:
    """``n`` when ``game`` (the default game: Last Will) is played by that many, else exit 2
    naming the counts it allows."""
    game = game or load_game()
    if type(n) is not int or n not in game.player_counts:
        fail(f"{flag}={n!r} is not allowed; choose {in_words(game.player_counts)}")
    return n


GameOpt = Annotated[
    str,
    typer.Option(
        "--game",
        metavar="<text>",
        help="The game to play: an installed game, e.g. lastwill",
    ),
]


def _game(name: str) -> Game:
    """The game ``--game`` names, or exit 2 naming the installed ones."""
    try:
        return load_game(name)
    except GameNotFound:
        fail(f"--game {name!r} is not an installed game; choose one of {', '.join(game_names())}")


def _game_config(game: Game, n: int, starting_money: str, board_spaces: int):
    """The config of an ``n``-player game of ``game`` with the options given (exit 2 on an
    option the game does not take, or a value it refuses)."""
    given = {"starting_money": _starting_money(starting_money), "board_spaces": board_spaces}
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


# the options of `lastwill arena` (one alias per option; the shared ones are above)
ArenaPlayersOpt = Annotated[
    str,
    typer.Option(
        "--players",
        "-p",
        metavar="<list>",
        help="Comma-separated entrant specs, exactly --num-players of them "
        "(repeat a spec to seat it twice), e.g. random,random,random,random",
    ),
]
ArenaNumPlayersOpt = Annotated[
    int | None,
    typer.Option(
        "--num-players",
        "-n",
        help=help_default(f"Seats per table, {PLAYER_RANGE}", "one per --players spec"),
    ),
]
ArenaGamesOpt = Annotated[
    int,
    typer.Option("--games", "-g", help="Total games, rounded up to a multiple of the seatings"),
]
ArenaSeedOpt = Annotated[int, typer.Option("--seed", "-s", help="Tournament seed")]
ArenaDealsOpt = Annotated[
    str,
    typer.Option(
        "--deals",
        metavar="<validation|test>",
        help="Deal set: validation (for screening and tuning) or test (for reported "
        "figures; never choose on it); see docs/RESULTS.md",
    ),
]
AllSeatingsOpt = Annotated[
    bool,
    typer.Option("--all-seatings", help="Every distinct permutation of seats, not just rotations"),
]
RayOpt = Annotated[
    bool, typer.Option("--ray", help="Fan games out as Ray tasks (pip install -e '.\\[ray]')")
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="<text>",
        help=help_default(
            "With --ray: the Ray cluster to run on (host:port printed by `ray start --head`)",
            "$RAY_ADDRESS, else a local Ray",
        ),
    ),
]
ArenaOutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help=help_default("JSONL match log", "runs/arena/<time>.jsonl")),
]
ArenaResumeOpt = Annotated[
    bool,
    typer.Option("--resume", help="Continue the log at --out, skipping recorded games"),
]
PlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", help=help_default("Write a PNG of win rates with 95% CIs", "no plot")),
]
PairedCsvOpt = Annotated[
    Path | None,
    typer.Option(
        "--paired-csv",
        help=help_default(
            "Write the paired comparisons (every pair of entrants on the same deals) as a "
            "CSV file, one row per pair: pandas.read_csv(PATH)",
            "no file",
        ),
    ),
]
ArenaForceOpt = Annotated[
    bool,
    typer.Option("--force", help="Replace an existing --plot image or --paired-csv file"),
]
ArenaAnchorOpt = Annotated[
    str | None,
    typer.Option(
        "--anchor",
        metavar="<spec>",
        help=help_default(
            "Entrant (spec or display name) whose rating is pinned to 0",
            "random, when it plays",
        ),
    ),
]


@app.command(cls=_LegendCommand, help=ARENA_HELP, context_settings={"max_content_width": 100})
def arena(
    players: ArenaPlayersOpt,
    num_players: ArenaNumPlayersOpt = None,
    games: ArenaGamesOpt = 100,
    seed: ArenaSeedOpt = 0,
    deals: ArenaDealsOpt = "validation",
    all_seatings: AllSeatingsOpt = False,
    workers: WorkersOpt = 1,
    use_ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    out: ArenaOutOpt = None,
    resume: ArenaResumeOpt = False,
    fmt: FormatOpt = OutputFormat.table,
    plot: PlotOpt = None,
    paired_csv: PairedCsvOpt = None,
    force: ArenaForceOpt = False,
    anchor: ArenaAnchorOpt = None,
    starting_money: StartingMoneyOpt = "70",
    board_spaces: BoardSpacesOpt = 5,
    quiet: QuietOpt = False,
    move_time_limit: MoveTimeLimitOpt = DEFAULT_MOVE_TIME_LIMIT,
    game_name: GameOpt = DEFAULT_GAME,
) -> None:
    from . import arena as ar

    move_time_limit = _move_time_limit(move_time_limit)
    seed = _seed(seed)
    game = _game(game_name)
    entrants, config = _arena_entrants(
        players, num_players, anchor, starting_money, board_spaces, game
    )
    if out is None:
        out = ar.default_out_path()
    _check_arena_outputs(out, resume, plot, paired_csv, force)
    total = _arena_games(entrants, config, seed, all_seatings, deals, games, game.name)
    if ray_address and not use_ray:
        fail("--ray-address names a Ray cluster for --ray; add --ray (or drop --ray-address)")
    result = _run_tournament(
        entrants,
        config,
        games,
        total,
        quiet,
        seed=seed,
        out=out,
        resume=resume,
        workers=workers,
        use_ray=use_ray,
        ray_address=ray_address,
        all_seatings=all_seatings,
        deals=deals,
        move_time_limit=move_time_limit,
        game_name=game.name,
    )
    _report_arena(result, fmt, seed, deals, anchor, plot, paired_csv, force, config.num_players)


def _arena_entrants(
    players: str,
    num_players: int | None,
    anchor: str | None,
    starting_money: str,
    board: int,
    game: Game | None = None,
):
    """The entrants of ``--players`` and the game config, checked (exit 2 on bad input)."""
    from . import stats

    game = game or load_game()
    entrants = [p.strip() for p in players.split(",")]
    if any(not p for p in entrants):
        fail(f"empty player spec in --players {players!r}; valid players:\n{legend(game)}")
    n = _player_count(len(entrants) if num_players is None else num_players, game=game)
    if len(entrants) != n:
        fail(
            f"--players lists {len(entrants)} entrants but --num-players is {n}: give exactly "
            f"{n} specs (repeat a spec to seat it more than once)"
        )
    if anchor is not None and stats.anchor_spec(anchor, entrants) is None:
        fail(
            f"--anchor {anchor!r} is not an entrant; name one of the --players specs: "
            f"{', '.join(dict.fromkeys(entrants))}"
        )
    return entrants, _game_config(game, n, starting_money, board)


def _check_arena_outputs(
    out: Path, resume: bool, plot: Path | None, paired_csv: Path | None, force: bool
) -> None:
    """Every destination is checked before the first game is played (exit 2 if one is not
    writable, or exists without --resume / --force)."""
    from .safeio import DestinationError, check_destination

    try:
        check_destination(
            out,
            "arena log",
            exists_ok=resume,
            hint="pass --resume to continue that tournament, or choose another --out",
        )
        if plot is not None:
            check_destination(
                plot,
                "plot",
                exists_ok=force,
                hint="pass --force to replace it, or choose another --plot",
            )
        if paired_csv is not None:
            check_destination(
                paired_csv,
                "paired CSV",
                exists_ok=force,
                hint="pass --force to replace it, or choose another --paired-csv",
            )
    except DestinationError as e:
        fail(str(e))


def _arena_games(
    entrants, config, seed: int, all_seatings: bool, deals: str, games: int, game_name: str
) -> int:
    """The tournament's number of games: ``games`` rounded up to whole seatings (noted)."""
    from . import arena as ar

    try:
        check_deals(deals)
    except DealsError as e:
        fail(f"--deals: {e}")
    sched = ar.Schedule(tuple(entrants), config, seed, all_seatings, deals, game_name)
    total = sched.num_games(games)
    if total != games:
        s = len(sched.seatings)
        note(
            f"note: --games {games} rounded up to {total} "
            f"({total // s} paired deals x {s} seatings)"
        )
    return total


class _ArenaProgress:
    """The arena's progress bar on stderr, with its count of error rows; shown once the
    players are built and the log is checked (errors come first)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.progress, self.task_id = _progress_bar("arena", quiet, total=total, errors=True)
        self.errors = 0

    def on_start(self, total: int, already: int) -> None:
        self.progress.start()
        self.progress.update(self.task_id, total=total, completed=already)
        if already:
            note(f"resuming: {already} of {total} games already in the log")

    def on_game(self, row: dict) -> None:
        if row.get("error") is not None:
            self.errors += 1
        self.progress.update(self.task_id, advance=1, errors=self.errors)

    def stop(self) -> None:
        self.progress.stop()


def _run_tournament(entrants, config, games: int, total: int, quiet: bool, **options):
    """Play the tournament (``options``: those of :func:`agents.arena.run_tournament`) under a
    progress bar; an arena error exits 2."""
    from . import arena as ar

    progress = _ArenaProgress(total, quiet)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # agents' prints: stdout is the summary's
            result = ar.run_tournament(
                entrants,
                config,
                games,
                on_start=progress.on_start,
                on_game=progress.on_game,
                on_note=lambda text: note(f"note: {text}"),
                trusted=True,  # the entrants were typed here (docs/TRUST.md)
                **options,
            )
    except ar.ArenaError as e:
        progress.stop()
        fail(str(e))
    progress.stop()
    return result


def _report_arena(result, fmt, seed, deals, anchor, plot, paired_csv, force, n: int) -> None:
    """The tournament's summary on stdout, the plot and the paired CSV if asked, the log line."""
    from . import stats

    summary = stats.summarize(result.rows)
    seats = stats.seat_stats(result.rows)
    ratings = stats.fit_ratings(result.rows, anchor=anchor or "random", seed=seed)
    paired = stats.paired_comparisons(result.rows, seed=seed)
    _print_summary(fmt, result, summary, seats, ratings, paired)
    _note_shared_wins(result.rows)
    if plot is not None:
        _save_plot(plot, summary, f"{n}-player arena, {len(result.rows)} games", force, result.out)
    _save_paired(paired_csv, paired, fmt, force, result.out)
    note(
        f"log: {result.out} ({len(result.rows)} games, {result.played} played now, "
        f"{result.errors} errors, {result.elapsed:.1f}s, {describe(deals, seed)})"
    )


def _save_plot(path: Path, summary, title: str, force: bool, log: Path) -> None:
    """Write the win-rate plot to --plot."""
    from . import stats
    from .safeio import write_with

    try:
        write_with(
            path,
            lambda tmp: stats.plot_win_rates(summary, str(tmp), title=title),
            overwrite=force,
        )
    except OSError as e:
        fail(f"cannot write the plot {path}: {e} (the log {log} is complete)")
    note(f"plot: {path}")


def _save_paired(path: Path | None, paired, fmt: OutputFormat, force: bool, log: Path) -> None:
    """Write the arena's paired comparisons to --paired-csv, or say where they are not."""
    if path is None:
        if fmt is OutputFormat.csv and paired:
            note("note: the paired comparisons are not in this CSV; --paired-csv PATH writes them")
        return
    try:
        write_paired_csv(path, paired, overwrite=force)
    except OSError as e:
        fail(f"cannot write the paired CSV {path}: {e} (the log {log} is complete)")
    note(f"paired comparisons: {path}")


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None else format(x, spec)


def _print_summary(fmt: OutputFormat, result, summary, seats, ratings, paired=()) -> None:
    import json

    from .registry import display_name

    rated = ratings["ratings"]
    if fmt is OutputFormat.json:
        doc = {
            "log": str(result.out),
            "header": result.header,
            "games": len(result.rows),
            "errors": result.errors,
            "entrants": [{**s, "name": display_name(s["spec"])} for s in summary],
            "seats": seats,
            "ratings": ratings,
            "paired": list(paired),
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    if fmt is OutputFormat.csv:
        import csv

        n = max((len(s["seat_win_rates"]) for s in summary), default=0)
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(
            ["spec", "name", "games", "wins", "win_rate", "ci_lo", "ci_hi", "chance", "mean_rank"]
            + [f"seat{i}_win_rate" for i in range(n)]
            + ["errors", "rating", "rating_se", "rating_lo", "rating_hi"]
        )
        for s in summary:
            r = rated.get(s["spec"], {})
            w.writerow(
                [s["spec"], display_name(s["spec"]), s["games"], s["wins"], s["win_rate"]]
                + [s["ci_lo"], s["ci_hi"]]
                + [s["chance"], s["mean_rank"]]
                + [
                    s["seat_win_rates"][i] if i < len(s["seat_win_rates"]) else None
                    for i in range(n)
                ]
                + [s["errors"], r.get("rating"), r.get("se"), r.get("ci_lo"), r.get("ci_hi")]
            )
        sys.stdout.flush()
        return

    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # piped: no 80-column squeeze
        console = Console(width=160)
    t = Table(title=f"Arena: {len(result.rows)} games, {result.seatings} seating(s), paired deals")
    for col in ("player", "games", "wins", "win rate", "95% CI", "chance", "mean rank"):
        t.add_column(col, justify="left" if col == "player" else "right")
    t.add_column("win rate by seat", justify="left")
    t.add_column("errors", justify="right")
    for s in summary:
        t.add_row(
            display_name(s["spec"]),
            str(s["games"]),
            str(s["wins"]),
            _fmt(s["win_rate"]),
            f"{s['ci_lo']:.3f}-{s['ci_hi']:.3f}",
            _fmt(s["chance"]),
            _fmt(s["mean_rank"], ".2f"),
            " ".join(_fmt(x, ".2f") for x in s["seat_win_rates"]),
            str(s["errors"]),
        )
    console.print(t)
    console.print(_ratings_table(ratings))
    st = Table(title="Seats (all players)")
    for col in ("seat", "games", "win rate", "95% CI", "chance"):
        st.add_column(col, justify="right")
    for s in seats:
        st.add_row(
            str(s["seat"]),
            str(s["games"]),
            _fmt(s["win_rate"]),
            f"{s['ci_lo']:.3f}-{s['ci_hi']:.3f}",
            _fmt(s["chance"]),
        )
    console.print(st)
    if paired:
        _print_paired(console, paired)


def _ratings_table(ratings):
    """The ratings of :func:`agents.stats.fit_ratings` as a rich table, best first."""
    from rich.table import Table

    from .registry import display_name

    anchor = ratings["anchor"]
    rt = Table(
        title="Ratings (Plackett-Luce fit, order-free, Elo scale; "
        + (f"anchor: {display_name(anchor)} = 0)" if anchor else "no anchor: mean 0)"),
        caption=f"±: standard error; CI: percentile interval; over {ratings['resamples']} "
        f"bootstrap resamples of the {ratings['deals']} deals",
    )
    for col in ("player", "rating", "±", f"{ratings['level']:.0%} CI", "games"):
        rt.add_column(col, justify="left" if col == "player" else "right")
    for spec, r in ratings["ratings"].items():
        known = r["se"] is not None and spec != anchor
        rt.add_row(
            display_name(spec),
            _fmt(r["rating"], ".1f"),
            _fmt(r["se"] if known else None, ".1f"),
            f"{r['ci_lo']:+.1f} to {r['ci_hi']:+.1f}" if known else "-",
            str(r["games"]),
        )
    return rt


def _print_paired(console, paired) -> None:
    """The paired comparisons of :func:`agents.stats.paired_comparisons` as a table; an
    interval not to be trusted (too few deals, no spread) is starred, its warning printed below."""
    from rich.markup import escape
    from rich.table import Table

    from .registry import display_name

    pt = Table(title="Paired comparisons on the same deals (win rate A - B)")
    for col in ("A", "B", "deals", "A - B", "95% CI", "McNemar p", "verdict"):
        pt.add_column(col, justify="left" if col in ("A", "B", "verdict") else "right")
    for r in paired:
        if r["diff"] is None:
            continue
        m = r["mcnemar"]
        better = r["better"]
        a, b = display_name(r["a"]), display_name(r["b"])
        star = " *" if r.get("warning") else ""
        pt.add_row(
            a,
            b,
            str(r["deals"]),
            f"{100 * r['diff']:+.1f} pts",
            f"{100 * r['ci_lo']:+.1f} to {100 * r['ci_hi']:+.1f}{star}",
            "-" if m is None else f"{m['p']:.3g}",
            f"{display_name(better)} better" if better else "no clear difference",
        )
    console.print(pt)
    for line in paired_footnotes(paired):
        console.print(escape(line))


def paired_footnotes(paired) -> list[str]:
    """The starred intervals' warnings, said once each: one line for the pairs with too few
    deals, one naming the pairs whose every deal gave the same difference."""
    from .registry import display_name
    from .stats import MIN_DEALS

    rows = [r for r in paired if r["diff"] is not None and r.get("warning")]
    few = [r for r in rows if r["deals"] < MIN_DEALS]
    flat = [r for r in rows if "same difference" in r["warning"]]
    lines = []
    if few:
        counts = sorted({r["deals"] for r in few})
        shown = "/".join(map(str, counts))
        m = len(paired)
        who = f"{len(few)} of {m} pairs" if len(few) < m else "the pair" if m == 1 else "all pairs"
        lines.append(
            f"* {who} played {shown} deals, fewer than {MIN_DEALS}: the starred intervals are "
            f"too narrow to trust; play more games"
        )
    if flat:
        names = ", ".join(f"{display_name(r['a'])} vs {display_name(r['b'])}" for r in flat)
        where = "in any pair" if len(flat) == len(paired) > 1 else f"({names})"
        lines.append(f"* no spread {where}: every deal gave the same difference")
    return lines


def write_paired_csv(path: Path, paired, *, overwrite: bool) -> None:
    """The paired comparisons as a CSV file: a header row of
    :data:`agents.stats.PAIRED_COLUMNS`, then one row per pair (written whole, then renamed)."""
    import csv

    from .safeio import write_with
    from .stats import PAIRED_COLUMNS, paired_table

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=PAIRED_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(paired_table(paired))

    write_with(path, write, overwrite=overwrite)


# ---------------------------------------------------------------------------------------------
# lastwill eval

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


# the options of `lastwill eval` (one alias per option; the shared ones are above)
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


@app.command(
    "eval", cls=_LegendCommand, help=EVAL_HELP, context_settings={"max_content_width": 100}
)
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
    from . import arena as ar

    move_time_limit = _move_time_limit(move_time_limit)
    seed = _seed(seed)
    game = _game(game_name)
    counts = _int_list_option(num_players, "--num-players")
    default_panel = list(game.default_panel)
    bots = default_panel if panel is None else [b.strip() for b in panel.split(",") if b.strip()]
    checked = _game_config(game, max(game.player_counts), starting_money, board_spaces)
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
    from . import evaluate as ev
    from .registry import PlayerSpecError

    progress, task_id = _progress_bar("eval", quiet)
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


def _note_shared_wins(rows) -> None:
    """Say on stderr how the tables counted games that ended with a shared first place."""
    shared = sum(1 for r in rows if r.get("ranks") and r["ranks"].count(1) > 1)
    if shared:
        games = "game" if shared == 1 else "games"
        note(
            f"note: {shared} {games} ended with a shared first place; each of its k winners "
            f"counts 1/k of a win in the win rates (agents.stats)"
        )


def _report_eval(result, fmt: OutputFormat) -> None:
    """The evaluation's summary on stdout in ``fmt``, then the log line on stderr."""
    import json

    from . import evaluate as ev

    _note_shared_wins(result.rows)

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


def _progress_bar(label: str, quiet: bool, *, total: int | None = None, errors: bool = False):
    """A rich progress bar of games on stderr and its task; ``errors``: a column that shows the
    task's ``errors`` field."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn(f"[bold]{label}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    if errors:
        columns.append(TextColumn("{task.fields[errors]} errors"))
    progress = Progress(*columns, console=Console(stderr=True), disable=quiet, transient=False)
    fields = {"errors": 0} if errors else {}
    return progress, progress.add_task(label, total=total, **fields)


def _print_eval(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from .registry import display_name

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
            _fmt(row["win_rate"]),
            f"{row['ci_lo']:.3f}-{row['ci_hi']:.3f}",
            _fmt(row["chance"]),
            _fmt(row["mean_rank"], ".2f"),
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
    from .registry import display_name

    fits = list(result.ratings.values())
    anchors = {r["anchor"] for r in fits}
    (anchor,) = anchors if len(anchors) == 1 else (None,)
    zero = f"{display_name(anchor)} = 0" if anchor else "mean 0 where the anchor has no game"
    resamples = fits[0]["resamples"] if fits else 0
    return (
        f"rating: one Plackett-Luce fit over all games at that player count (order-free, Elo "
        f"scale), {zero}; ±: standard error over {resamples} bootstrap resamples of the deals"
    )


# ---------------------------------------------------------------------------------------------
# lastwill replay

REPLAY_HELP = (
    "Step through a recorded game: a row of an arena JSONL log (--game N) or a game file "
    "written by `lastwill play`. Every decision is named; --seat S shows only what that seat "
    "may see (its own hand, never the others'), --table shows every hand. Without --step the "
    "whole game is printed compactly (one line per decision), then the last picture of the "
    "table and the results."
)


@app.command(cls=LabCommand, help=REPLAY_HELP, context_settings={"max_content_width": 100})
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


# ---------------------------------------------------------------------------------------------
# lastwill play

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


class _PlayLegendCommand(LabCommand):
    """The player-spec legend under `lastwill play --help`."""

    def format_help(self, ctx, formatter) -> None:
        self.epilog = _arena_epilog().replace("in --players", "in --opponents")
        super().format_help(ctx, formatter)


@app.command(cls=_PlayLegendCommand, help=PLAY_HELP, context_settings={"max_content_width": 100})
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
    from . import play as pl
    from .safeio import DestinationError, check_destination

    rules = _game(game_name)
    if rules.name != DEFAULT_GAME:  # agents.tableplay; Last Will keeps agents.play
        setup = (seat, num_players, seed, starting_money, board_spaces, load, move_time_limit)
        _play_table(rules, opponents, setup, out, force)
        return
    opponents = opponents or PLAY_OPPONENTS
    try:
        if load is not None:
            game = pl.load_game(load, move_time_limit=_move_time_limit(move_time_limit))
        else:
            game = pl.new_play(
                opponents.split(","),
                human_seat=seat,
                num_players=num_players,
                seed=seed,
                starting_money=_starting_money(starting_money),
                board_spaces=board_spaces,
                trusted=True,  # typed here; a --load file's seats are data (docs/TRUST.md)
                move_time_limit=_move_time_limit(move_time_limit),
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
    given = {"starting_money": _starting_money(starting_money), "board_spaces": board_spaces}
    defaults = {"starting_money": 70, "board_spaces": 5}
    options = {k: v for k, v in given.items() if k in rules.config_options}
    foreign = [k for k, v in given.items() if k not in options and v != defaults[k]]
    if foreign:
        flags = " and ".join("--" + k.replace("_", "-") for k in foreign)
        fail(f"{flags}: {rules.title} takes no such option (Last Will's, docs/RULES.md §9)")
    return options


def _play_table(rules: Game, opponents: str, setup: tuple, out: Path | None, force: bool) -> None:
    """`lastwill play --game NAME` for a game other than Last Will (`agents.tableplay`);
    ``setup``: the options seat, num_players, seed, starting_money, board_spaces, load and
    move_time_limit as given."""
    from . import tableplay as tp
    from .safeio import DestinationError, check_destination

    seat, num_players, seed, starting_money, board_spaces, load, limit = setup
    if load is not None:
        fail(f"--load resumes Last Will games only; {rules.title} games are not saved midway")
    try:
        table = tp.new_table(
            rules,
            (opponents or ",".join(rules.default_panel)).split(","),
            human_seat=seat,
            num_players=num_players,
            seed=None if seed is None else _seed(seed),
            options=_table_options(rules, starting_money, board_spaces),
            trusted=True,  # typed here (docs/TRUST.md)
            move_time_limit=_move_time_limit(limit),
        )
    except tp.TablePlayError as e:
        fail(str(e))
    target = out if out is not None else tp.default_out_path()
    try:  # before the game: a record that cannot be written is refused now, not at the end
        check_destination(target, "game record", exists_ok=force)
    except DestinationError as e:
        fail(str(e))
    tp.run(table, sys.stdin, sys.stdout, out_path=target, overwrite=force)


# ---------------------------------------------------------------------------------------------
# lastwill view

VIEW_HELP = (
    "Open arena logs and play records in the browser, and play live games there. A local web "
    "app (served on 127.0.0.1 by default; every file it uses ships with the lab): the game "
    "list of a log with filters by entrant; each game as a table picture (one seat's view or "
    "every hand), stepped decision by decision; money of every seat as a chart; for a "
    "ppo:PATH seat, the policy's top actions and value estimate at each of its decisions; and "
    "live play against bots and policies, saved like `lastwill play`. It serves only the files "
    "and folders named here, its --save-dir and the shipped examples, and only to a browser "
    "that holds the session token in the URL it prints. Needs the view extra: "
    "pip install -e '.\\[view]'."
)


@app.command(cls=LabCommand, help=VIEW_HELP, context_settings={"max_content_width": 100})
def view(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Arena logs (.jsonl) or game files (.json) to open, and folders whose logs "
            "and game files may be opened from the page",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="<text>", help="Address to listen on (127.0.0.1: this machine only)"
        ),
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a --host that other machines can reach (the session token is then the "
            "only guard)",
        ),
    ] = False,
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free port)")
    ] = 8765,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Do not open a browser window")
    ] = False,
    save_dir: Annotated[
        Path, typer.Option("--save-dir", help="Folder for the records of live games")
    ] = Path("runs/play"),
    move_time_limit: Annotated[
        float, typer.Option("--move-time-limit", help=LIVE_TIME_LIMIT_HELP)
    ] = DEFAULT_MOVE_TIME_LIMIT,
) -> None:
    if not 0 <= port <= 65535:
        fail(f"--port must be from 0 to 65535, got {port}")
    try:
        from .viewer.server import serve
    except ImportError as e:
        fail(
            f"lastwill view needs the view extra ({e.name or e} is not installed): "
            f"pip install -e '.[view]'"
        )
    from .viewer.core import ViewError
    from .viewer.guard import is_loopback
    from .viewer.server import check_host

    def ready(url: str) -> None:
        note(f"lastwill view: serving {url} (Ctrl+C stops)")

    try:
        check_host(host, allow_remote)
        if not is_loopback(host):
            note(
                f"warning: --host {host} --allow-remote: other machines can reach the viewer; "
                f"anyone holding the URL's token can read the served logs and run bots"
            )
        serve(
            paths or None,
            host=host,
            port=port,
            open_browser=not no_browser,
            save_dir=save_dir,
            on_ready=ready,
            allow_remote=allow_remote,
            move_time_limit=_move_time_limit(move_time_limit),
        )
    except ViewError as e:
        fail(str(e))
    except KeyboardInterrupt:  # pragma: no cover - interactive
        pass


if __name__ == "__main__":  # pragma: no cover
    app()
