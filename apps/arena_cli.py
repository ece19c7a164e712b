"""`lastwill arena`: a seeded tournament with seat rotation and paired deals (`agents.arena`),
logged as it plays, then rated and summarised (`agents.stats`): win rates, ratings, seats and
paired comparisons as a table, JSON or CSV on stdout; a plot and a CSV of the paired
comparisons when asked."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from agents.deals import DealsError, check_deals, describe
from agents.registry import legend
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT
from gamecore import DEFAULT_GAME, Game, load_game
from gamecore.plain import in_words

from .command import fail, help_default, note
from .options import (
    PLAYER_RANGE,
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

ARENA_HELP = (
    "Play a seeded tournament with seat rotation and paired deals; log and rate it.\n\n"
    "Every deal is played once per seating (paired deals), so card luck cancels between "
    "entrants. Prints win rates with Wilson 95% intervals beside the chance rate 1/N, mean "
    "ranks, per-seat win rates and ratings (a Plackett-Luce fit over all games, order-free, "
    "with bootstrap intervals) anchored at --anchor. "
    "Rows are appended to the JSONL log as games finish; --resume continues an interrupted log."
)


def _player_count(n: int, flag: str = "--num-players", game: Game | None = None) -> int:
    """``n`` when ``game`` (the default game: Last Will) is played by that many, else exit 2
    naming the counts it allows."""
    game = game or load_game()
    if type(n) is not int or n not in game.player_counts:
        fail(f"{flag}={n!r} is not allowed; choose {in_words(game.player_counts)}")
    return n


# the options of `lastwill arena` (one alias per option; the shared ones are in apps.options)
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
    from agents import arena as ar

    move_time_limit = checked_time_limit(move_time_limit)
    seed = checked_seed(seed)
    game = chosen_game(game_name)
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
    from agents import stats

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
    return entrants, game_config(game, n, starting_money, board)


def _check_arena_outputs(
    out: Path, resume: bool, plot: Path | None, paired_csv: Path | None, force: bool
) -> None:
    """Every destination is checked before the first game is played (exit 2 if one is not
    writable, or exists without --resume / --force)."""
    from agents.safeio import DestinationError, check_destination

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
    from agents import arena as ar

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
        self.progress, self.task_id = progress_bar("arena", quiet, total=total, errors=True)
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
    from agents import arena as ar

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
    from agents import stats

    summary = stats.summarize(result.rows)
    seats = stats.seat_stats(result.rows)
    ratings = stats.fit_ratings(result.rows, anchor=anchor or "random", seed=seed)
    paired = stats.paired_comparisons(result.rows, seed=seed)
    _print_summary(fmt, result, summary, seats, ratings, paired)
    note_shared_wins(result.rows)
    if plot is not None:
        _save_plot(plot, summary, f"{n}-player arena, {len(result.rows)} games", force, result.out)
    _save_paired(paired_csv, paired, fmt, force, result.out)
    note(
        f"log: {result.out} ({len(result.rows)} games, {result.played} played now, "
        f"{result.errors} errors, {result.elapsed:.1f}s, {describe(deals, seed)})"
    )


def _save_plot(path: Path, summary, title: str, force: bool, log: Path) -> None:
    """Write the win-rate plot to --plot."""
    from agents import stats
    from agents.safeio import write_with

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


def _print_summary(fmt: OutputFormat, result, summary, seats, ratings, paired=()) -> None:
    import json

    from agents.registry import display_name

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
            figure(s["win_rate"]),
            f"{s['ci_lo']:.3f}-{s['ci_hi']:.3f}",
            figure(s["chance"]),
            figure(s["mean_rank"], ".2f"),
            " ".join(figure(x, ".2f") for x in s["seat_win_rates"]),
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
            figure(s["win_rate"]),
            f"{s['ci_lo']:.3f}-{s['ci_hi']:.3f}",
            figure(s["chance"]),
        )
    console.print(st)
    if paired:
        _print_paired(console, paired)


def _ratings_table(ratings):
    """The ratings of :func:`agents.stats.fit_ratings` as a rich table, best first."""
    from rich.table import Table

    from agents.registry import display_name

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
            figure(r["rating"], ".1f"),
            figure(r["se"] if known else None, ".1f"),
            f"{r['ci_lo']:+.1f} to {r['ci_hi']:+.1f}" if known else "-",
            str(r["games"]),
        )
    return rt


def _print_paired(console, paired) -> None:
    """The paired comparisons of :func:`agents.stats.paired_comparisons` as a table; an
    interval not to be trusted (too few deals, no spread) is starred, its warning printed below."""
    from rich.markup import escape
    from rich.table import Table

    from agents.registry import display_name

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
    from agents.registry import display_name
    from agents.stats import MIN_DEALS

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

    from agents.safeio import write_with
    from agents.stats import PAIRED_COLUMNS, paired_table

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=PAIRED_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(paired_table(paired))

    write_with(path, write, overwrite=overwrite)
