"""Evaluate one player against the bot panel (`lastwill eval SPEC`, training's evaluation).

For every chosen player count ``n`` the player sits at one table against ``n - 1`` copies of
each panel bot (table ``vs_<bot>``) and at one mixed table with ``n - 1`` different panel bots
(table ``mixed``; with an ``anchor`` that is not a panel bot, the mixed table's last seat is the
anchor, so the ratings can be pinned to it). Every table is an arena schedule
(:class:`agents.arena.Schedule`): seats rotated and **paired deals**, and every table at a
count uses the same deal seeds, so card luck cancels across seatings and across tables. The
deals are test deals unless told otherwise (:mod:`agents.deals`): `lastwill eval` reports, and
only training's evaluations, which choose ``best.*``, play validation deals.

Per table: games, wins, the win rate with its Wilson 95% interval beside the chance rate 1/n,
and the mean rank of the player (:func:`agents.stats.summarize`). Per count: the lab's ratings
over all that count's games (:func:`agents.stats.fit_ratings`: one Plackett-Luce fit, whatever
the games' order, on the Elo scale, with a bootstrap over deals seeded by the evaluation's
seed), the anchor pinned to 0 (by default the first panel bot). :func:`evaluate` returns
an :class:`Evaluation` (``rows`` holds every game, tagged with ``table``), writes the games as
a JSONL log when given ``out``, and :meth:`Evaluation.summary` is one row per table for tables,
JSON and CSV.

Log. A header line, then one row per game in play order, each written and flushed as its game
ends (:class:`agents.rowlog.RowLog`): a stopped evaluation keeps every finished game, and when
the destination cannot be written the rows go on in a fallback file whose path is reported.
``resume`` continues a log with the checks of ``lastwill arena --resume``
(:func:`agents.arena.read_for_resume`): the header must be this evaluation's, line ``k + 2``
must hold its ``k``-th game with actions that replay to the recorded result, and only the
missing games are played. The tables' schedules are read as they are played (never built
whole), so a huge number of games costs no memory before it is played.

:data:`PANEL` is the default panel: one list, so a new bot joins every evaluation by being
added there (and to the registry).
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gamecore import DEFAULT_GAME, load_game
from gamecore.plain import in_words

from .arena import (
    ArenaError,
    GameTask,
    Schedule,
    ScheduleTasks,
    check_same_header,
    in_own_process,
    play_in_order,
    read_for_resume,
)
from .deals import TEST, check_deals, describe
from .registry import (
    WorkerSetup,
    display_name,
    split_label,
    trusting,
    worker_setup,
)
from .rowlog import RowLog
from .safeio import DestinationError, check_destination, remove_leftover_temps
from .stats import fit_ratings, summarize
from .timelimit import DEFAULT_MOVE_TIME_LIMIT, AgentFault, build_agent, check_time_limit

# The bot panel of `lastwill eval`, the bot ladder and the training evaluation's defaults.
PANEL: tuple[str, ...] = ("greedy", "speculator", "planner", "combiner", "racer")


class EvalError(ValueError):
    """An evaluation that cannot run; the message says what was wrong and what is allowed."""


@dataclass(frozen=True)
class Table:
    name: str  # "vs_<bot>" or "mixed"
    num_players: int
    entrants: tuple[str, ...]  # the evaluated player first

    @property
    def key(self) -> str:
        return f"{self.num_players}p/{self.name}"


def panel_tables(
    spec: str,
    panel: Sequence[str] = PANEL,
    num_players: Iterable[int] = (4,),
    mixed: bool = True,
    anchor: str | None = None,
    game_name: str = DEFAULT_GAME,
) -> list[Table]:
    """The tables of one evaluation of ``game_name`` (module docstring), in play order."""
    panel = list(panel)
    if not panel:
        raise EvalError("the panel is empty: name at least one bot, e.g. greedy")
    check_names(spec, panel)
    counts = list(num_players)
    allowed = load_game(game_name).player_counts
    if not counts or not all(type(n) is int and n in allowed for n in counts):
        raise EvalError(
            f"num_players={counts} is not allowed; give player counts, each one of "
            f"{in_words(allowed)}"
        )
    if len(set(counts)) != len(counts):
        raise EvalError(f"player counts must be distinct, got {counts}")
    out = []
    for n in counts:
        for bot in panel:
            out.append(Table(f"vs_{bot}", n, (spec, *[bot] * (n - 1))))
        if not mixed:
            continue
        if anchor is not None and anchor not in panel:
            others = (panel + [anchor] * n)[: n - 2] + [anchor]
        elif n >= 3:
            others = [panel[i % len(panel)] for i in range(n - 1)]
        else:
            continue  # two players: a mixed table would repeat vs_<first bot>
        out.append(Table("mixed", n, (spec, *others)))
    return out


def _check_panel(panel: Sequence[str]) -> dict[str, str]:
    """The panel's entries by display name, each named once (`EvalError` otherwise)."""
    seen: dict[str, str] = {}
    for bot in panel:
        name = display_name(bot)
        other = seen.setdefault(name, bot)
        if other == bot and panel.count(bot) > 1:
            raise EvalError(
                f"the panel lists {bot!r} twice; list each bot once (each bot has one table)"
            )
        if other != bot:
            raise EvalError(
                f"the panel's {other!r} and {bot!r} are both shown as {name!r}; list each bot "
                f"once, each under its own display name"
            )
    return seen


def check_names(spec: str, panel: Sequence[str], anchor: str | None = None) -> None:
    """The player, the panel's bots and the anchor can be told apart in the rows and the
    tables: no bot listed twice, no two display names alike, and the player's display name
    none of theirs (an anchor may be a panel bot). An `EvalError` says which collide."""
    others = _check_panel(panel)
    if spec in panel or spec == anchor:
        raise EvalError(
            f"the evaluated player {spec!r} is also in the panel (or the anchor), so its games "
            f"could not be told apart from its copies'; give it a display name, e.g. "
            f"{spec}@me"
        )
    named = {name: f"the panel's {bot!r}" for name, bot in others.items()}
    if anchor is not None:
        named.setdefault(display_name(anchor), f"the anchor {anchor!r}")
    name = display_name(spec)
    if name in named:
        raise EvalError(
            f"the evaluated player {spec!r} is shown as {name!r}, as is {named[name]}, so their "
            f"games could not be told apart; give it another display name, e.g. "
            f"{split_label(spec)[0]}@me"
        )


@dataclass
class Evaluation:
    spec: str
    tables: list[Table]
    rows: list[dict[str, Any]]  # every game, with "table" ("vs_greedy", "mixed") added
    seed: int
    anchor: str | None
    elapsed: float = 0.0
    deals: str = TEST  # the deal set (agents.deals) every table played
    out: Path | None = None
    ratings: dict[int, dict[str, Any]] = field(default_factory=dict)  # per player count
    planned: dict[str, int] = field(default_factory=dict)  # games scheduled per Table.key

    @property
    def complete(self) -> bool:
        """Every table holds all its scheduled games (an evaluation read with ``play=False``
        from a log still being written does not)."""
        return all(len(self.table_rows(t)) >= self.planned.get(t.key, 0) for t in self.tables)

    def table_rows(self, table: Table) -> list[dict[str, Any]]:
        return [
            r
            for r in self.rows
            if r["table"] == table.name and r["num_players"] == table.num_players
        ]

    def table_summary(self, table: Table) -> dict[str, Any]:
        """The player's line at one table."""
        rows = self.table_rows(table)
        entries = {e["spec"]: e for e in summarize(rows)}
        me = entries.get(self.spec) or {
            "games": 0,
            "wins": 0,
            "win_rate": None,
            "ci_lo": 0.0,
            "ci_hi": 1.0,
            "chance": 1.0 / table.num_players,
            "mean_rank": None,
        }
        rated = self.ratings.get(table.num_players, {}).get("ratings", {}).get(self.spec, {})
        return {
            "num_players": table.num_players,
            "table": table.name,
            "opponents": list(table.entrants[1:]),
            "games": me["games"],
            "wins": me["wins"],
            "win_rate": me["win_rate"],
            "ci_lo": me["ci_lo"],
            "ci_hi": me["ci_hi"],
            "chance": me["chance"] if me["chance"] is not None else 1.0 / table.num_players,
            "mean_rank": me["mean_rank"],
            "errors": sum(1 for r in rows if r.get("error") is not None),
            "rating": rated.get("rating"),  # the player's, at this count (fit_ratings)
            "rating_se": rated.get("se"),
            "rating_lo": rated.get("ci_lo"),
            "rating_hi": rated.get("ci_hi"),
            "logged": len(rows),  # the table's games in the log, error rows included
            "planned": self.planned.get(table.key),
        }

    def summary(self) -> list[dict[str, Any]]:
        """One row per table, in play order."""
        return [self.table_summary(t) for t in self.tables]

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "name": display_name(self.spec),
            "seed": self.seed,
            "deals": self.deals,
            "deal_set": describe(self.deals, self.seed),
            "anchor": self.anchor,
            "games": len(self.rows),
            "complete": self.complete,
            "errors": sum(1 for r in self.rows if r.get("error") is not None),
            "elapsed": round(self.elapsed, 2),
            "log": str(self.out) if self.out is not None else None,
            "tables": self.summary(),
            "ratings": {str(n): r for n, r in self.ratings.items()},
        }


def _worker_setup(specs: Iterable[str], game: str | None = None) -> WorkerSetup:
    """What the worker processes need to build what this process builds (its registered
    names, import roots and grants, `agents.registry.worker_setup`), checked to pickle."""
    import pickle

    setup = worker_setup(dict.fromkeys(specs), game)
    try:
        pickle.dumps(setup)
    except Exception as e:  # noqa: BLE001 - PicklingError, AttributeError, TypeError
        raise EvalError(
            f"the players registered at run time cannot be sent to worker processes: "
            f"{type(e).__name__}: {e}; register a module-level class or function, or use "
            f"workers=1"
        ) from e
    return setup


def _results(
    tasks: Iterable[GameTask],
    workers: int,
    specs: Sequence[str],
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    game_name: str = DEFAULT_GAME,
) -> Iterator[dict[str, Any]]:
    """The rows of ``tasks`` in their order (`agents.arena.play_in_order`: read a segment at a
    time); with workers, or an outside agent the lab imports (`agents.arena.in_own_process`),
    a game whose worker process dies is an error row."""
    named = None if game_name == DEFAULT_GAME else game_name
    own = workers > 1 or in_own_process(specs, named)
    setup = _worker_setup(specs, named) if own else None
    try:
        yield from play_in_order(tasks, workers, setup, False, move_time_limit)
    except ArenaError as e:
        raise EvalError(str(e)) from None


def table_schedules(
    tables: Sequence[Table],
    games: int,
    seed: int = 0,
    deals: str = TEST,
    starting_money: int | str = 70,
    board_spaces: int = 5,
    game_name: str = DEFAULT_GAME,
) -> list[tuple[Table, ScheduleTasks]]:
    """Every table with its games (``games`` rounded up to whole seat rotations), in play
    order; the games are made as they are read. ``starting_money`` and ``board_spaces`` are
    Last Will's options (docs/RULES.md §9); another game takes none."""
    rules = load_game(game_name)
    options: dict[str, Any] = {}
    if game_name == DEFAULT_GAME:
        options = {"starting_money": starting_money, "board_spaces": board_spaces}
    elif (starting_money, board_spaces) != (70, 5):
        raise EvalError(
            f"starting_money and board_spaces are Last Will's options; {rules.title} takes "
            f"neither (leave them at 70 and 5)"
        )
    out = []
    for table in tables:
        config = rules.make_config(table.num_players, **options)
        try:
            sched = Schedule(table.entrants, config, seed, deals=deals, game_name=game_name)
        except ArenaError as e:  # an unknown deal set
            raise EvalError(str(e)) from None
        out.append((table, sched.tasks(games)))
    return out


def _from(
    schedules: list[tuple[Table, ScheduleTasks]], skip: int
) -> Iterator[tuple[Table, GameTask]]:
    """``(table, task)`` of every game after the first ``skip``, in play order."""
    for table, tasks in schedules:
        if skip >= len(tasks):
            skip -= len(tasks)
            continue
        yield from ((table, t) for t in tasks.skip(skip))
        skip = 0


def _check_play(games: int, workers: int, deals: str) -> None:
    """The options of :func:`play_tables` that no table checks (`EvalError` naming a bad one)."""
    try:
        check_deals(deals)
    except ValueError as e:
        raise EvalError(str(e)) from None
    if games < 1:
        raise EvalError(f"games must be at least 1 per table, got {games}")
    if workers < 1:
        raise EvalError(f"workers must be at least 1, got {workers}")


def play_tables(
    tables: Sequence[Table],
    games: int,
    *,
    seed: int = 0,
    deals: str = TEST,
    workers: int = 1,
    starting_money: int | str = 70,
    board_spaces: int = 5,
    on_start: Callable[[int], None] | None = None,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    skip: int = 0,
    game_name: str = DEFAULT_GAME,
) -> list[dict[str, Any]]:
    """Play ``games`` per table (rounded up to whole seat rotations) on the arena schedule of
    each table, every table with the same ``seed`` and deal set ``deals`` (paired deals; test
    deals unless told otherwise, :mod:`agents.deals`); rows in table order, each tagged with
    ``table``. ``trusted``: the tables' specs are the caller's own (`agents.registry.trusting`,
    docs/TRUST.md). ``skip``: the first games already played (a resumed log) are left out;
    ``on_start`` gets the number of games to play."""
    _check_play(games, workers, deals)
    schedules = table_schedules(tables, games, seed, deals, starting_money, board_spaces, game_name)
    if on_start is not None:
        on_start(sum(len(tasks) for _, tasks in schedules) - skip)
    specs = list(dict.fromkeys(s for table in tables for s in table.entrants))
    names: deque[str] = deque()  # the table of each game read but not yet played

    def feed() -> Iterator[GameTask]:
        for table, task in _from(schedules, skip):
            names.append(table.name)
            yield task

    rows = []
    with trusting(specs if trusted else ()):
        for row in _results(feed(), workers, specs, move_time_limit, game_name):
            row["table"] = names.popleft()
            rows.append(row)
            if on_game is not None:
                on_game(row)
    return rows


def log_header(kind: str, tables: Sequence[Table], **fields: Any) -> dict[str, Any]:
    """The first line of a game log that a script writes with :func:`play_logged`: what made
    it (``kind`` and ``fields``: the policy, the seed, the deal set...) and its tables."""
    return {
        "type": "header",
        "kind": kind,
        **fields,
        "tables": [
            {"name": t.name, "num_players": t.num_players, "entrants": list(t.entrants)}
            for t in tables
        ],
    }


def play_logged(
    tables: Sequence[Table],
    games: int,
    out: str | os.PathLike | None,
    header: dict[str, Any],
    *,
    on_note: Callable[[str], None] | None = None,
    resume: bool = False,
    **play: Any,
) -> list[dict[str, Any]]:
    """:func:`play_tables` (``play`` its options), each game also written to a new game log at
    ``out`` as it ends, ``header`` first (:class:`agents.rowlog.RowLog`; ``on_note`` is told
    when the log moves to a fallback file or drops a torn line). The destination is checked
    before any game: an existing file or a directory is refused (`EvalError`). With
    ``resume``, an existing log is continued instead: its header must equal ``header`` (every
    entry) and each of its games must be the one the schedule plays there, as ``lastwill eval
    --resume`` checks them; the games it holds are returned with the new ones, which are
    appended. No log when ``out`` is None."""
    if out is None:
        if resume:
            raise EvalError("resume needs the log to continue: pass out=PATH (--out PATH)")
        return play_tables(tables, games, **play)
    if "on_game" in play or "skip" in play:
        raise TypeError("play_logged writes each game itself; it takes no on_game or skip")
    say = on_note or (lambda text: None)
    _check_play(games, play.get("workers", 1), play.get("deals", TEST))
    schedule = {
        k: play[k]
        for k in ("seed", "deals", "starting_money", "board_spaces", "game_name")
        if k in play
    }
    schedules = table_schedules(tables, games, **schedule)
    header = json.loads(json.dumps(header))  # as a resumed log's header reads back
    keys = tuple(k for k in header if k != "type")
    done, good = _check_log(
        Path(out), resume, header, schedules, say, keys, str(header.get("kind")), "game log"
    )
    try:
        log = RowLog(out, header, rows=done, good=good, on_note=say)
    except DestinationError as e:
        raise EvalError(str(e)) from None
    try:
        return done + play_tables(tables, games, on_game=log.write, skip=len(done), **play)
    finally:
        log.close()


def evaluate(
    spec: str,
    *,
    panel: Sequence[str] | None = None,
    num_players: Iterable[int] = (4,),
    games: int = 400,
    seed: int = 0,
    deals: str = TEST,
    mixed: bool = True,
    anchor: str | None = None,
    workers: int = 1,
    starting_money: int | str = 70,
    board_spaces: int = 5,
    out: str | os.PathLike | None = None,
    on_start: Callable[[int], None] | None = None,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    resume: bool = False,
    on_note: Callable[[str], None] | None = None,
    play: bool = True,
    game_name: str = DEFAULT_GAME,
) -> Evaluation:
    """Play the evaluation of ``spec`` (module docstring); ``games`` per table, rounded up to
    whole seat rotations, on the deal set ``deals`` (test deals by default: an evaluation
    reports; training's evaluations choose, and pass validation deals). ``anchor`` defaults to
    the first panel bot. ``out`` (a new file, or with ``resume`` the log to continue) gets the
    games as JSONL as they finish (module docstring, "Log"); ``on_start(games_to_play)``,
    ``on_game(row)`` and ``on_note(text)`` (a torn line dropped, a fallback file) report
    progress.

    The player must differ from every panel bot and the anchor (give it a display name,
    ``greedy@me``, to evaluate a panel bot), or its games could not be told apart.
    ``trusted``: the specs are the caller's own (typed by the user), so `module:Class` specs
    may import and ``ppo:`` `.zip` files may load (docs/TRUST.md).
    ``move_time_limit``: seconds per call for every outside agent (0: none); a game where one
    runs over it, calls ``sys.exit`` or kills its worker process is an error row
    (:mod:`agents.timelimit`).
    ``play=False``: play no game and build no player; read the log at ``out`` (checked as
    ``resume`` checks it, never written to) and summarise the games it holds, so a log still
    being played can be looked at; :attr:`Evaluation.complete` says whether it is whole.
    ``game_name``: the game played (a `gamecore` registry name); ``panel`` defaults to its
    `Game.default_panel` (Last Will's is :data:`PANEL`)."""
    try:
        move_time_limit = check_time_limit(move_time_limit)
    except ValueError as e:
        raise EvalError(str(e)) from None
    rules = load_game(game_name)
    panel = list(rules.default_panel if panel is None else panel)
    named = {} if game_name == DEFAULT_GAME else {"game": rules}
    _check_players(spec, panel, anchor, mixed, play, move_time_limit, trusted, named)
    anchor = anchor if anchor is not None else (panel[0] if panel else None)
    tables = panel_tables(spec, panel, num_players, mixed, anchor, game_name)
    out_path = Path(out) if out is not None else None
    if out_path is None and resume:
        raise EvalError("resume needs the log to continue: pass out=PATH (--out PATH)")
    say = on_note or (lambda text: None)
    deal = {
        "deals": deals,
        "starting_money": starting_money,
        "board_spaces": board_spaces,
        "game_name": game_name,
    }
    header = _header(spec, panel, seed, deals, anchor, games, tables, game_name)
    if not play:
        return _read_evaluation(spec, tables, out_path, header, seed, games, say, **deal)
    done, log, schedules = _open_log(out_path, resume, header, tables, games, seed, say, deal)
    t0 = time.perf_counter()
    rows = done + _play_into_log(
        log,
        on_game,
        tables,
        games,
        seed=seed,
        deals=deals,
        workers=workers,
        starting_money=starting_money,
        board_spaces=board_spaces,
        on_start=on_start,
        trusted=trusted,
        move_time_limit=move_time_limit,
        skip=len(done),
        game_name=game_name,
    )
    if schedules is None:  # no log: made now, after play_tables has checked the options
        schedules = table_schedules(tables, games, **deal, seed=seed)
    result = _evaluation(spec, tables, rows, seed, anchor, deals, schedules)
    result.elapsed = time.perf_counter() - t0
    result.out = log.out if log is not None else None
    return result


def _check_players(
    spec: str,
    panel: list[str],
    anchor: str | None,
    mixed: bool,
    play: bool,
    move_time_limit: float,
    trusted: bool,
    named: dict[str, Any],
) -> None:
    """The names of :func:`evaluate` checked, the anchor sure to play, and (when it plays)
    every player built once, so a bad spec fails before any game (:class:`EvalError`)."""
    check_names(spec, panel, anchor)
    if anchor is not None and anchor not in panel and not mixed:
        raise EvalError(
            f"the anchor {anchor!r} would play no game: it is not in the panel "
            f"({', '.join(panel)}) and the mixed tables, where it would sit, are off; add it "
            f"to the panel or play the mixed tables"
        )
    for s in dict.fromkeys([spec, *panel, *([anchor] if anchor else [])]) if play else ():
        try:  # a bad spec fails here, before any game
            build_agent(s, 0, move_time_limit, trusted=trusted, **named).reset(0)
        except AgentFault as e:
            raise EvalError(str(e)) from None


def _open_log(
    out_path: Path | None,
    resume: bool,
    header: dict[str, Any],
    tables: list[Table],
    games: int,
    seed: int,
    say: Callable[[str], None],
    deal: dict[str, Any],
) -> tuple[list[dict[str, Any]], RowLog | None, list[tuple[Table, ScheduleTasks]] | None]:
    """The rows already in the log at ``out_path``, the log opened to append to, and the
    tables' schedules; ``([], None, None)`` without a log. Checked before any game: never
    over a file, nor into a dir."""
    if out_path is None:
        return [], None, None
    schedules = table_schedules(tables, games, **deal, seed=seed)
    done, good = _check_log(out_path, resume, header, schedules, say)
    try:
        log = RowLog(out_path, header, rows=done, good=good, on_note=say)
    except DestinationError as e:
        raise EvalError(str(e)) from None
    return done, log, schedules


def _play_into_log(
    log: RowLog | None,
    on_game: Callable[[dict[str, Any]], None] | None,
    tables: list[Table],
    games: int,
    **play: Any,
) -> list[dict[str, Any]]:
    """:func:`play_tables` (``play``: its options), each game written to ``log`` then given to
    ``on_game``; the log is closed at the end (a log that cannot be written: EvalError)."""

    def logged(row: dict[str, Any]) -> None:
        if log is not None:
            log.write(row)
        if on_game is not None:
            on_game(row)

    try:
        return play_tables(tables, games, on_game=logged, **play)
    except DestinationError as e:
        raise EvalError(str(e)) from None
    finally:
        if log is not None:
            log.close()


def _evaluation(
    spec: str,
    tables: list[Table],
    rows: list[dict[str, Any]],
    seed: int,
    anchor: str | None,
    deals: str,
    schedules: list[tuple[Table, ScheduleTasks]],
) -> Evaluation:
    """The evaluation of ``rows``: its ratings per player count and its planned games."""
    result = Evaluation(spec, tables, rows, seed, anchor, deals=deals)
    result.planned = {table.key: len(tasks) for table, tasks in schedules}
    for n in dict.fromkeys(t.num_players for t in tables):
        result.ratings[n] = fit_ratings(
            [r for r in rows if r["num_players"] == n], anchor=anchor, seed=seed
        )
    return result


def _read_evaluation(
    spec: str,
    tables: list[Table],
    out: Path | None,
    header: dict[str, Any],
    seed: int,
    games: int,
    say: Callable[[str], None],
    **deal: Any,
) -> Evaluation:
    """:func:`evaluate` with ``play=False``: the games of the log at ``out`` that ``tables``
    would have played (``deal``: the deal set and the game options), checked as a resume checks
    them; nothing is built, played or written (not even the temporary files an interrupted
    write left, which a running writer may own)."""
    if out is None or not out.is_file():
        where = "no log was given" if out is None else f"{out} is not a file"
        raise EvalError(
            f"reading an evaluation without playing needs its log: {where}; pass the --out "
            f"of the evaluation to read"
        )
    if games < 1:
        raise EvalError(f"games must be at least 1 per table, got {games}")
    schedules = table_schedules(tables, games, seed, **deal)
    rows, _ = _read_log(out, header, schedules, say)
    result = _evaluation(spec, tables, rows, seed, header["anchor"], deal["deals"], schedules)
    result.out = out
    return result


# header entries that must match for --resume (a header without "game" is Last Will's)
EVAL_HEADER_KEYS = (
    "kind",
    "game",
    "spec",
    "panel",
    "seed",
    "deals",
    "anchor",
    "games_per_table",
    "tables",
)


def _header(
    spec: str,
    panel: list[str],
    seed: int,
    deals: str,
    anchor: str | None,
    games: int,
    tables: Sequence[Table],
    game_name: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """The first line of an evaluation log."""
    return {
        "type": "header",
        "kind": "eval",
        "game": game_name,
        "spec": spec,
        "panel": panel,
        "seed": seed,
        "deals": deals,
        "anchor": anchor,
        "games_per_table": games,
        "tables": [
            {"num_players": t.num_players, "table": t.name, "entrants": list(t.entrants)}
            for t in tables
        ],
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _check_log(
    path: Path,
    resume: bool,
    header: dict[str, Any],
    schedules: list[tuple[Table, ScheduleTasks]],
    say: Callable[[str], None],
    keys: Sequence[str] = EVAL_HEADER_KEYS,
    command: str = "lastwill eval",
    what: str = "evaluation log",
) -> tuple[list[dict[str, Any]], int | None]:
    """Before any game: the destination is checked (an existing file only with ``resume``),
    temporary files that killed writes of it left are removed, and a log to resume is read
    and verified (its header's ``keys`` against ``header``; ``command`` wrote it). Returns
    ``(rows already logged, size of its intact part or None)``."""
    try:
        check_destination(
            path,
            what,
            exists_ok=resume,
            hint=f"pass --resume to continue that {what}, or choose another --out",
        )
    except DestinationError as e:
        raise EvalError(str(e)) from None
    for left in remove_leftover_temps(path.parent, of=path):
        say(f"removed {left}, a temporary file left by an interrupted write of {path}")
    if not (resume and path.exists()):
        return [], None
    return _read_log(path, header, schedules, say, keys, command, what)


def _read_log(
    path: Path,
    header: dict[str, Any],
    schedules: list[tuple[Table, ScheduleTasks]],
    say: Callable[[str], None],
    keys: Sequence[str] = EVAL_HEADER_KEYS,
    command: str = "lastwill eval",
    what: str = "evaluation log",
) -> tuple[list[dict[str, Any]], int | None]:
    """The games of the log at ``path``, each checked against ``schedules`` (its header's
    ``keys`` against ``header``); reads only. Returns ``(rows, size of its intact part)``."""
    counts = [len(tasks) for _, tasks in schedules]
    ends = list(itertools.accumulate(counts))

    def expect(k: int) -> tuple[GameTask, dict[str, Any]] | None:
        i = bisect.bisect_right(ends, k)
        if i >= len(schedules):
            return None
        table, tasks = schedules[i]
        return tasks[k - ends[i] + counts[i]], {"table": table.name}

    def check(found: dict[str, Any], not_log: str) -> None:
        check_same_header(path, found, header, keys, what)

    try:
        _, rows, good, notes = read_for_resume(path, check, expect, command, what)
    except ArenaError as e:
        raise EvalError(str(e)) from None
    for text in notes:
        say(text)
    return rows, good


CSV_COLUMNS = (
    "num_players",
    "table",
    "opponents",
    "games",
    "wins",
    "win_rate",
    "ci_lo",
    "ci_hi",
    "chance",
    "mean_rank",
    "rating",
    "rating_se",
    "rating_lo",
    "rating_hi",
    "errors",
    "logged",
    "planned",
)


def summary_csv(result: Evaluation) -> str:
    """The summary as CSV (opponents joined by '+')."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["spec", *CSV_COLUMNS])
    for row in result.summary():
        w.writerow(
            [result.spec] + ["+".join(row[c]) if c == "opponents" else row[c] for c in CSV_COLUMNS]
        )
    return buf.getvalue()
