"""The arena: seeded tournaments between player specs, logged one JSONL row per game.

Match runner. :func:`play_game` is pure and picklable (a top-level function of plain
arguments): it builds the agents from their specs with :func:`agents.registry.make_agent`, plays
one game and returns its row. A bot that raises, or returns an illegal action, turns the game
into an *error row* (``"error": {"seat", "player", "message"}``, no ranks) instead of raising.
:func:`run_tournament` first builds every entrant spec once in this process
(:func:`prepare_players`), so a spec that cannot be built is an :class:`ArenaError` before any
game; worker processes (``workers``) and Ray tasks (``use_ray``) receive the registry setup
they need to build the same agents (``agents.registry.worker_setup``). Games with an outside
agent that the lab imports (a ``module:Class`` spec or an entry point; :func:`in_own_process`)
are played in a worker process even with one worker, so an agent that ends its process
(``os._exit``) costs only its game, an error row, and never the command. What agents print in
a worker process goes to its stderr (a worker's stdout is its parent's, which may carry the
summary, as ``lastwill arena -f json`` does).

Views. An agent's ``act(view, legal)`` gets the seat's
:class:`~lastwill_env.engine.PlayerView`. An agent that declares ``needs_view = False`` (such as
``random``) gets ``None`` instead: building a view costs a few engine steps, and the same
convention holds for opponents in the single-seat environment.

Events. If an agent overrides ``observe``, it receives ``{"type": "action", "seat": s,
"action": a}`` for every other seat's action (``s`` relative to the observer, as in views) and
``{"type": "game_over", "results": ...}`` (the observer's view of the results) at the end.
Another seat's ``keep`` decision (which starting cards it keeps, hidden by docs/RULES.md §10)
arrives with ``"action": None``.

Schedule (:class:`Schedule`). The entrants are exactly ``num_players`` specs. Seatings are the
distinct cyclic rotations of the entrants over the seats (or, with ``all_seatings``, all
distinct permutations). Paired deals: deal ``d`` has one deal seed derived from the tournament
seed and the schedule's deal set (``deals``: ``"validation"``, the default, for choosing, or
``"test"`` for reporting; :mod:`agents.deals`), and every seating plays that same deal seed, so
card luck cancels between entrants.
Game ``g`` is deal ``g // S``, seating ``g % S`` (``S`` seatings). The requested number of games
is rounded up to a multiple of ``S``.

Log. The first line is ``{"type": "header", ...}`` (entrants, num_players, seed, deals, config,
seatings); then one row per game, written in game order and flushed as games finish. The log
is append-only: written rows are never rewritten. Resuming (:func:`load_for_resume`) accepts
only a log whose first line is this tournament's header and whose line ``k + 2`` holds game
``k`` of the schedule, replaying every row's actions to check its recorded result; a damaged,
edited, duplicated, missing or out-of-order row is an error naming its line (the file is left
untouched). Only a torn last line (an interrupted write) is dropped, and that is said. With
``out=None``, :func:`run_tournament` plays in memory and writes nothing (for notebooks and
other callers that keep the rows themselves); the ``lastwill arena`` command always logs.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from gamecore import DEFAULT_GAME, SILENT, Game, load_game
from gamecore.agent import overrides_observe
from gamecore.game import DECISION_FACTOR
from gamecore.options import check_seed_option

from .deals import VALIDATION, check_deals, derive_seed
from .deals import deal_seed as deal_seed_of
from .gamelog import scan_jsonl
from .registry import (
    PlayerSpecError,
    WorkerSetup,
    apply_worker_setup,
    resolve,
    trusting,
    worker_setup,
    worker_setup_applied,
)
from .safeio import remove_leftover_temps
from .timelimit import (
    DEFAULT_MOVE_TIME_LIMIT,
    AgentFault,
    build_agent,
    check_time_limit,
    is_lab_spec,
)
from .workers import surviving_map

LOG_VERSION = 1
# DECISION_FACTOR (gamecore.game): a runaway guard far above the game's declared bound; a game
# past it becomes an error row.
# Header keys that must match for --resume (the number of games may grow).
HEADER_KEYS = (
    "version",
    "game",
    "entrants",
    "num_players",
    "seed",
    "deals",
    "config",
    "all_seatings",
)
# What a header without the key means (logs written before the key existed)
HEADER_DEFAULTS = {"game": DEFAULT_GAME}


class ArenaError(Exception):
    """A problem with a tournament request or its log; the message says what to do."""


# ---------------------------------------------------------------------------------------------
# One game


def _blank_row(
    specs: list[str],
    config: dict[str, Any],
    deal_seed: int,
    agent_seeds: list[int],
    game: int,
    deal: int | None,
    seating_index: int | None,
    fields: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """A log row before its game is played: no results, no actions, no error; ``fields`` are
    the game's own result fields (`Game.result_fields`), after the ranks."""
    row = {
        "game": game,
        "deal": deal,
        "deal_seed": deal_seed,
        "seating_index": seating_index,
        "seating": specs,
        "num_players": len(specs),
        "config": config,
        "agent_seeds": agent_seeds,
        "winner": None,
        "winner_spec": None,
        "ranks": None,
    }
    row.update(dict.fromkeys(load_game().result_fields if fields is None else fields))
    row.update(decisions=0, error=None, actions=[])
    return row


def play_game(
    specs: list[str] | tuple[str, ...],
    config: Any,
    deal_seed: int,
    agent_seeds: list[int] | tuple[int, ...] | None = None,
    *,
    game: int = 0,
    deal: int | None = None,
    seating_index: int | None = None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    game_name: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """Play one game of ``game_name`` (a `gamecore` registry name; ``game`` is the game's
    index in its tournament); return its log row (module docstring). Never raises for a bot's
    fault.

    Outside agents (every spec that is not a lab bot) play under ``move_time_limit`` seconds
    per call (0: none; :mod:`agents.timelimit`): a call over it, or one that calls
    ``sys.exit``, makes the game an error row naming the seat's spec."""
    rules = load_game(game_name)
    if isinstance(config, dict):
        config = rules.config_from_dict(config)
    n = config.num_players
    specs = list(specs)
    if len(specs) != n:
        raise ValueError(f"{len(specs)} player specs for a {n}-player game")
    if agent_seeds is None:
        agent_seeds = [derive_seed(deal_seed, "agent", seat) for seat in range(n)]
    agent_seeds = [int(s) for s in agent_seeds]
    fields = rules.result_fields
    row = _blank_row(
        specs, config.to_dict(), deal_seed, agent_seeds, game, deal, seating_index, fields
    )

    def fail(seat: int | None, message: str, state: Any = None) -> dict[str, Any]:
        row["error"] = {
            "seat": seat,
            "player": specs[seat] if seat is not None else None,
            "message": message,
        }
        if state is not None:
            row["actions"] = rules.history(state)
            row["decisions"] = len(row["actions"])
            row.update(rules.row_fields(state))
        return row

    named = None if game_name == DEFAULT_GAME else rules
    try:
        agents = _build_agents(specs, agent_seeds, move_time_limit, named)
    except _SeatFault as f:
        return fail(f.seat, f.message)
    state = rules.new_game(config, deal_seed)
    try:
        decisions = _play_out(rules, state, agents)
    except _SeatFault as f:
        return fail(f.seat, f.message, state)
    row.update(_result_entries(rules, state, specs), decisions=decisions)
    row["actions"] = rules.history(state)
    return row


def _result_entries(rules: Game, state: Any, specs: Sequence[str]) -> dict[str, Any]:
    """A finished game's winner (``None`` when first place is shared), its ranks (1 = best;
    tied seats share a rank) and the game's own result fields, in the row's order."""
    ranks = rules.ranks(state)
    first = [s for s, r in enumerate(ranks) if r == 1]
    winner = first[0] if len(first) == 1 else None
    return {
        "winner": winner,
        "winner_spec": specs[winner] if winner is not None else None,
        "ranks": ranks,
        **rules.row_fields(state),
    }


class _SeatFault(Exception):
    """A game that ends as an error row: the seat at fault (None: the game itself) and why."""

    def __init__(self, seat: int | None, message: str) -> None:
        super().__init__(message)
        self.seat = seat
        self.message = message


def _build_agents(
    specs: list[str], agent_seeds: list[int], move_time_limit: float, game: Game | None = None
) -> list:
    """One reset agent per seat (players of ``game``, None: the default game); one that
    cannot be built is a :class:`_SeatFault`."""
    options = {} if game is None else {"game": game}
    agents = []
    for seat, spec in enumerate(specs):
        try:
            agent = build_agent(spec, agent_seeds[seat], move_time_limit, **options)
            agent.reset(agent_seeds[seat])
        except AgentFault as e:
            raise _SeatFault(seat, f"could not build the agent: {e}") from None
        except Exception as e:  # noqa: BLE001 - a bot's fault becomes an error row
            raise _SeatFault(seat, f"could not build the agent: {type(e).__name__}: {e}") from None
        agents.append(agent)
    return agents


def _observe(seat: int, observe, event: dict[str, Any]) -> None:
    """Tell one agent an event; its fault is a :class:`_SeatFault`."""
    try:
        observe(event)
    except AgentFault as e:
        raise _SeatFault(seat, str(e)) from None
    except Exception as e:  # noqa: BLE001
        raise _SeatFault(seat, f"agent crashed in observe: {type(e).__name__}: {e}") from None


def _play_out(rules: Game, state: Any, agents: list) -> int:
    """Play ``state`` to its end with one agent per seat (the agents that watch are told each
    move as the game shows it, `Game.public_action`, and the results); the number of
    decisions. A fault is a :class:`_SeatFault`."""
    n = len(agents)
    observers = [(s, a.observe) for s, a in enumerate(agents) if overrides_observe(a)]
    acts = [a.act for a in agents]
    wants = [getattr(a, "needs_view", True) for a in agents]
    limit = DECISION_FACTOR * rules.max_decisions
    fast = rules.fast_functions()  # the game's plain functions, bound once (Game.fast_functions)
    legal_of, apply, view_of = fast["legal_actions"], fast["apply_action"], fast["player_view"]
    over, to_act, public = fast["is_over"], fast["current_player"], rules.public_action
    decisions = 0
    while not over(state):
        seat = to_act(state)
        legal = legal_of(state)
        try:
            action = acts[seat](view_of(state, seat) if wants[seat] else None, legal)
        except AgentFault as e:
            raise _SeatFault(seat, str(e)) from None
        except Exception as e:  # noqa: BLE001 - a bot's fault becomes an error row
            raise _SeatFault(seat, f"agent crashed in act: {type(e).__name__}: {e}") from None
        try:
            apply(state, action)
        except Exception as e:  # noqa: BLE001 - an illegal action, or an unusable value
            raise _SeatFault(seat, f"illegal action: {e}") from None
        decisions += 1
        if observers:
            shown = public(int(action))
            if shown is not SILENT:
                for s, observe in observers:
                    if s != seat:
                        event = {"type": "action", "seat": (seat - s) % n, "action": shown}
                        _observe(s, observe, event)
        if decisions > limit:
            raise _SeatFault(None, f"game exceeded {limit} decisions")
    for s, observe in observers:
        _observe(s, observe, {"type": "game_over", "results": rules.seat_results(state, s)})
    return decisions


def replay_row(row: dict[str, Any], game_name: str = DEFAULT_GAME) -> Any:
    """Rebuild the final state (or, for an error row, the state before the failure) of a row
    of ``game_name`` (the log header's ``game``)."""
    rules = load_game(game_name)
    return rules.replay(rules.config_from_dict(row["config"]), row["deal_seed"], row["actions"])


# ---------------------------------------------------------------------------------------------
# The schedule


@dataclass(frozen=True)
class GameTask:
    game: int
    deal: int
    deal_seed: int
    seating_index: int
    seating: tuple[str, ...]
    config: dict[str, Any]
    agent_seeds: tuple[int, ...]
    game_name: str = DEFAULT_GAME  # the game played (gamecore registry name)


def run_task(task: GameTask, move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT) -> dict[str, Any]:
    """Worker entry point (picklable, spawn-safe)."""
    return play_game(
        task.seating,
        task.config,
        task.deal_seed,
        task.agent_seeds,
        game=task.game,
        deal=task.deal,
        seating_index=task.seating_index,
        move_time_limit=move_time_limit,
        game_name=task.game_name,
    )


def run_tasks(
    tasks: list[GameTask],
    setup: WorkerSetup | None = None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> list[dict[str, Any]]:
    """A batch of games (one Ray task or one worker chunk), after installing the parent's
    registry setup (`agents.registry.worker_setup`) in this process, its grants for this
    batch only. What the agents print goes to stderr (module docstring)."""
    with worker_setup_applied(setup), contextlib.redirect_stdout(sys.stderr):
        return [run_task(t, move_time_limit) for t in tasks]


def in_own_process(specs: Iterable[str], game: str | None = None) -> bool:
    """Whether games of `specs` are played in a worker process even with one worker: one of
    them is code the lab imports (a ``module:Class`` spec or an entry point's agent), which
    may end its process; in a worker that costs only its game (`agents.workers`). A name
    registered at run time keeps the whole tournament in this process, as before: its
    factory need not pickle, so it cannot be sent to a worker."""
    origins = set()
    for spec in set(specs):
        try:
            entry, _, _ = resolve(spec, game)
        except PlayerSpecError:
            continue
        origins.add(entry.origin)
    return "registered" not in origins and bool(origins & {"import", "entry point"})


def lost_row(task: GameTask, why: str) -> dict[str, Any]:
    """The error row of a game whose worker process died (or left) while playing it: the
    outside agents at its table are named (lab bots are not suspected; at a table of lab
    bots only, the workers themselves are failing, and that is an `ArenaError`)."""
    row = _blank_row(
        list(task.seating),
        task.config,
        task.deal_seed,
        list(task.agent_seeds),
        task.game,
        task.deal,
        task.seating_index,
        load_game(task.game_name).result_fields,
    )
    named = None if task.game_name == DEFAULT_GAME else task.game_name
    outside = [(s, spec) for s, spec in enumerate(task.seating) if not is_lab_spec(spec, named)]
    if not outside:
        raise ArenaError(
            f"a worker process died while playing game {task.game}, where every seat is a lab "
            f"bot ({why}): worker processes cannot run here (out of memory?); try --workers 1"
        )
    named = ", ".join(f"{spec} (seat {s})" for s, spec in outside)
    distinct = {spec for _, spec in outside}
    only = len(outside) == 1
    row["error"] = {
        "seat": outside[0][0] if only else None,
        "player": distinct.pop() if len(distinct) == 1 else None,
        "message": f"the game was lost: {why}; the outside agents at this table: {named}",
    }
    return row


@dataclass(frozen=True)
class Schedule:
    entrants: tuple[str, ...]
    config: Any  # the game's config (``Game.make_config``)
    seed: int = 0
    all_seatings: bool = False
    deals: str = VALIDATION  # the deal set (agents.deals): "validation" or "test"
    game_name: str = DEFAULT_GAME  # the game played (gamecore registry name)

    def __post_init__(self) -> None:
        try:
            check_deals(self.deals)
            check_seed_option("seed", self.seed)  # the bootstrap of the paired tables seeds numpy
        except ValueError as e:  # DealsError, ConfigError
            raise ArenaError(str(e)) from None
        n = self.config.num_players
        if len(self.entrants) != n:
            raise ArenaError(
                f"{len(self.entrants)} entrants ({', '.join(self.entrants)}) for "
                f"{n}-player games: give exactly {n} player specs (repeat a spec to seat it "
                f"more than once), or set --num-players {len(self.entrants)}"
            )

    @property
    def seatings(self) -> list[tuple[str, ...]]:
        e = tuple(self.entrants)
        if self.all_seatings:
            candidates: Iterable[tuple[str, ...]] = itertools.permutations(e)
        else:
            candidates = (e[r:] + e[:r] for r in range(len(e)))
        seen: dict[tuple[str, ...], None] = {}
        for s in candidates:
            seen.setdefault(tuple(s), None)
        return list(seen)

    def num_games(self, requested: int) -> int:
        """``requested`` rounded up to a multiple of the number of seatings."""
        s = len(self.seatings)
        return max(1, -(-requested // s)) * s

    def deal_seed(self, deal: int) -> int:
        return deal_seed_of(self.seed, self.deals, deal)

    def task(self, game: int, seatings: list[tuple[str, ...]] | None = None) -> GameTask:
        seatings = seatings or self.seatings
        deal, si = divmod(game, len(seatings))
        n = self.config.num_players
        return GameTask(
            game=game,
            deal=deal,
            deal_seed=self.deal_seed(deal),
            seating_index=si,
            seating=seatings[si],
            config=self.config.to_dict(),
            agent_seeds=tuple(
                derive_seed(self.seed, self.deals, "agent", game, seat) for seat in range(n)
            ),
            game_name=self.game_name,
        )

    def tasks(self, games: int, start: int = 0) -> ScheduleTasks:
        """Games ``start`` to the end of a ``games``-game schedule, made as they are read."""
        return ScheduleTasks(self, start, self.num_games(games))

    def header(self, games: int) -> dict[str, Any]:
        return {
            "type": "header",
            "version": LOG_VERSION,
            "game": self.game_name,
            "entrants": list(self.entrants),
            "num_players": self.config.num_players,
            "seed": self.seed,
            "deals": self.deals,
            "config": self.config.to_dict(),
            "all_seatings": self.all_seatings,
            "seatings": [list(s) for s in self.seatings],
            "games": self.num_games(games),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }


class ScheduleTasks(Sequence[GameTask]):
    """Games ``start .. stop - 1`` of a schedule as a sequence whose tasks are made when read:
    a schedule of any length costs no memory until it is played (`play_in_order`)."""

    def __init__(self, sched: Schedule, start: int, stop: int) -> None:
        self.sched, self.start, self.stop = sched, start, max(start, stop)
        self._seatings = sched.seatings

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, i: int) -> GameTask: ...
    @overload
    def __getitem__(self, i: slice) -> list[GameTask]: ...
    def __getitem__(self, i: int | slice) -> GameTask | list[GameTask]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(f"game {i} is outside these {len(self)} games")
        return self.sched.task(self.start + i % len(self), self._seatings)

    def __iter__(self) -> Iterator[GameTask]:
        for g in range(self.start, self.stop):
            yield self.sched.task(g, self._seatings)

    def skip(self, k: int) -> ScheduleTasks:
        """These games without the first ``k``."""
        return ScheduleTasks(self.sched, min(self.start + k, self.stop), self.stop)


# ---------------------------------------------------------------------------------------------
# The log


def read_log(path: str | os.PathLike) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int]:
    """``(header, rows, good_bytes)``. A truncated last line (a crash mid-write) is dropped;
    ``good_bytes`` is where the intact part ends. A bad line elsewhere is an :class:`ArenaError`.
    """
    scan = scan_jsonl(Path(path).read_bytes(), path, error=ArenaError)  # agents.gamelog
    return scan.header, scan.rows, scan.good_bytes


def _check_header(path: Path, found: dict[str, Any] | None, wanted: dict[str, Any]) -> None:
    if found is None:
        raise ArenaError(
            f"{path} has no arena header line; it is not an arena log. Choose another --out."
        )
    check_same_header(path, found, wanted, HEADER_KEYS, "tournament")


def check_same_header(
    path: Path | str, found: dict[str, Any], wanted: dict[str, Any], keys: Iterable[str], what: str
) -> None:
    """An :class:`ArenaError` naming every key of ``keys`` where a log's header differs from
    this run's (``what``: "tournament", "evaluation")."""
    diffs = [
        f"{k}: log has {found.get(k, HEADER_DEFAULTS.get(k))!r}, this run has {wanted[k]!r}"
        for k in keys
        if found.get(k, HEADER_DEFAULTS.get(k)) != wanted[k]
    ]
    if diffs:
        raise ArenaError(
            f"cannot resume {path}: it records a different {what} ("
            + "; ".join(diffs)
            + "). Use the same options as the original run, or choose another --out."
        )


def _row_key(row: dict[str, Any]) -> tuple:
    return (row.get("game"), row.get("deal_seed"), tuple(row.get("seating") or ()))


def default_out_path(root: str | os.PathLike = "runs/arena", suffix: str = ".jsonl") -> Path:
    """`root/<date-time><suffix>`, numbered so an existing file is never reused."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(root) / f"{stamp}{suffix}"
    k = 1
    while path.exists():
        path = Path(root) / f"{stamp}-{k}{suffix}"
        k += 1
    return path


# ---------------------------------------------------------------------------------------------
# Running a tournament


@dataclass
class TournamentResult:
    out: Path | None  # None: played in memory, nothing written
    header: dict[str, Any]
    rows: list[dict[str, Any]]  # the whole log, in game order
    requested: int
    total: int  # after rounding up to whole rounds of seatings
    played: int  # games played by this call
    resumed: int  # games found in the log
    seatings: int
    elapsed: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return sum(1 for r in self.rows if r.get("error") is not None)


def _results_local(
    tasks: list[GameTask], move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT
) -> Iterator[dict[str, Any]]:
    for t in tasks:
        yield run_task(t, move_time_limit)


def results_pool(
    tasks: list[GameTask],
    workers: int,
    setup: WorkerSetup | None = None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index in tasks, row)`` as games finish in ``workers`` spawned processes; a game
    whose worker dies is a :func:`lost_row` and the others play on (`agents.workers`)."""
    chunk = max(1, min(8, len(tasks) // (workers * 8)))
    return surviving_map(
        functools.partial(run_tasks, setup=setup, move_time_limit=move_time_limit),
        tasks,
        workers,
        chunk,
        lost_row,
        initializer=apply_worker_setup,
        initargs=(setup,),
    )


def _results_pool(
    tasks: list[GameTask],
    workers: int,
    setup: WorkerSetup | None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> Iterator[dict[str, Any]]:
    for _, row in results_pool(tasks, workers, setup, move_time_limit):
        yield row


def _import_ray():
    try:
        import ray
    except ImportError as e:
        raise ArenaError(
            "--ray needs Ray, which is not installed: pip install -e '.[ray]' "
            "(or drop --ray and use --workers N)"
        ) from e
    return ray


def connect_ray(address: str | None = None) -> bool:
    """Make sure this process is connected to Ray: the Ray it is already connected to, else
    `address` (or `RAY_ADDRESS`), else a new local Ray, with usage telemetry off unless the
    user set `RAY_USAGE_STATS_ENABLED` (`agents.raystart`). True when this call started or
    joined it (the caller then shuts it down)."""
    from .raystart import init_ray

    ray = _import_ray()
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or None
    try:
        init_ray(ray, address=address, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # noqa: BLE001 - ConnectionError, ValueError, ...
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise ArenaError(f"cannot start or reach {where}: {type(e).__name__}: {e}") from e
    return True


def _results_ray(
    tasks: list[GameTask],
    workers: int,
    setup: WorkerSetup | None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> Iterator[dict[str, Any]]:
    """Games as Ray tasks in batches (this process is connected to Ray: `connect_ray`). A
    batch whose worker dies is played again one game per task; a game whose worker dies
    alone is a :func:`lost_row`."""
    ray = _import_ray()
    cpus = int(ray.cluster_resources().get("CPU", max(workers, 1)))
    chunk = max(1, min(16, len(tasks) // (max(cpus, 1) * 8)))
    remote = ray.remote(run_tasks).options(max_retries=0)
    setup_ref = ray.put(setup)

    def submit(batch: list[GameTask]) -> Any:
        ref = remote.remote(batch, setup_ref, move_time_limit)
        pending[ref] = batch
        return ref

    pending: dict[Any, list[GameTask]] = {}
    for i in range(0, len(tasks), chunk):
        submit(tasks[i : i + chunk])
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                batch = pending.pop(ref)
                try:
                    rows = ray.get(ref)
                except ray.exceptions.WorkerCrashedError:
                    if len(batch) > 1:
                        for t in batch:
                            submit([t])
                        continue
                    rows = [lost_row(batch[0], "its Ray worker process died")]
                except ray.exceptions.RayError as e:
                    raise ArenaError(f"a Ray task failed: {e}") from e
                yield from rows
    finally:
        for ref in pending:  # stop what is left when the run stops early
            ray.cancel(ref)


# games handed to the workers at a time: a schedule is read a segment at a time, never whole
SEGMENT = 4096


def play_in_order(
    tasks: Iterable[GameTask],
    workers: int = 1,
    setup: WorkerSetup | None = None,
    use_ray: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> Iterator[dict[str, Any]]:
    """The rows of `tasks`, in their order, played in this process, on `workers` worker
    processes or as Ray tasks. `tasks` is read :data:`SEGMENT` games at a time, so memory stays
    flat however long the schedule; results that finish out of order wait in a reorder buffer
    of at most one segment."""
    it = iter(tasks)
    while segment := list(itertools.islice(it, SEGMENT)):
        yield from _play_segment(segment, workers, setup, use_ray, move_time_limit)


def _play_segment(
    segment: list[GameTask],
    workers: int,
    setup: WorkerSetup | None,
    use_ray: bool,
    move_time_limit: float,
) -> Iterator[dict[str, Any]]:
    source: Iterator[tuple[int, dict[str, Any]]]
    if use_ray:
        where = {(t.game, t.seating): i for i, t in enumerate(segment)}
        rows = _results_ray(segment, workers, setup, move_time_limit)
        source = ((where[(r["game"], tuple(r["seating"]))], r) for r in rows)
    elif (workers > 1 and len(segment) > 1) or (
        setup and in_own_process(s for t in segment for s in t.seating)
    ):
        source = results_pool(segment, workers, setup, move_time_limit)
    else:
        source = enumerate(_results_local(segment, move_time_limit))
    buffer: dict[int, dict[str, Any]] = {}
    nxt = 0
    try:
        for i, row in source:
            buffer[i] = row
            while nxt in buffer:
                yield buffer.pop(nxt)
                nxt += 1
    finally:
        close = getattr(source, "close", None)
        if close is not None:  # stop the workers when the run stops early
            close()


def prepare_players(
    entrants: Iterable[str],
    send: str | None = None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    game: str | None = None,
) -> WorkerSetup | None:
    """Build every distinct spec once, here, before any game: a spec that cannot be built
    (within the build allowance of `agents.timelimit`, for outside code) is an `ArenaError`
    naming it. With `send`, return what worker processes need to build the
    same agents, checked to be picklable for `send="pool"` (spawned processes: pickle) or
    `send="ray"` (Ray tasks: cloudpickle, which also takes locally defined classes)."""
    specs = list(dict.fromkeys(entrants))
    options = {} if game is None else {"game": load_game(game)}
    for spec in specs:
        try:
            agent = build_agent(spec, 0, move_time_limit, **options)
            agent.reset(0)
        except (PlayerSpecError, AgentFault) as e:
            raise ArenaError(str(e)) from e
        except Exception as e:  # noqa: BLE001 - any failure is reported before the first game
            raise ArenaError(
                f"player spec {spec!r} cannot be built: {type(e).__name__}: {e}"
            ) from e
    if not send:
        return None
    setup = worker_setup(specs, game)
    if setup:
        if send == "ray":
            from ray import cloudpickle as pickle
        else:
            import pickle
        try:
            pickle.dumps(setup)
        except Exception as e:  # noqa: BLE001 - PicklingError, AttributeError, TypeError
            names = ", ".join(en.name for en in setup.entries)
            raise ArenaError(
                f"the players registered at run time ({names}) cannot be sent to worker "
                f"processes: {type(e).__name__}: {e}. Register a module-level class or "
                f"function (not a lambda), use a module.path:ClassName spec, or --workers 1"
            ) from e
    return setup


def _row_problem(row: dict[str, Any], task: GameTask) -> str | None:
    """What is wrong with a logged row for `task`, or None. The row's actions are replayed:
    they must be legal from its deal and, for a finished game, reproduce its results."""
    for key, want in (
        ("deal", task.deal),
        ("deal_seed", task.deal_seed),
        ("seating_index", task.seating_index),
        ("seating", list(task.seating)),
        ("num_players", len(task.seating)),
        ("config", task.config),
        ("agent_seeds", list(task.agent_seeds)),
    ):
        if row.get(key) != want:
            return (
                f"its {key} is {row.get(key)!r} but game {task.game} of this schedule has {want!r}"
            )
    actions = row.get("actions")
    if not isinstance(actions, list) or any(type(a) is not int for a in actions):
        return "its actions are not a list of action indices"
    if row.get("decisions") != len(actions):
        return f"it records {row.get('decisions')!r} decisions but holds {len(actions)} actions"
    rules = load_game(task.game_name)
    try:
        state = rules.replay(rules.config_from_dict(task.config), task.deal_seed, actions)
    except Exception as e:  # noqa: BLE001 - an illegal action, or a value the rules refuse
        return f"its actions do not replay ({str(e)[:160]})"
    error = row.get("error")
    if error is not None:
        if not isinstance(error, dict) or set(error) != {"seat", "player", "message"}:
            return "its error entry is not {seat, player, message}"
        if row.get("winner") is not None or row.get("ranks") is not None:
            return "it is an error row but records a winner or ranks"
        return None
    if not rules.is_over(state):
        return f"its {len(actions)} actions stop before the end of the game (cut short?)"
    want = _result_entries(rules, state, task.seating)
    for key, value in want.items():
        if row.get(key) != value:
            return f"its {key} is {row.get(key)!r} but its actions give {value!r} (edited?)"
    return None


def load_for_resume(
    path: str | os.PathLike, sched: Schedule, games: int
) -> tuple[dict[str, Any] | None, dict[int, dict[str, Any]], int, list[str]]:
    """Check a log before ``--resume`` appends to it; return ``(header, rows by game,
    good_bytes, notes)``. Nothing is written here.

    An empty file starts afresh. Otherwise line 1 must be this tournament's header and line
    ``k + 2`` must hold game ``k`` of the schedule (deal seed, seating, agent seeds, config)
    with actions that replay to its recorded result. Any other line (damaged, edited,
    duplicated, missing or out of order) is an :class:`ArenaError` naming its line number. A
    torn last line (an interrupted write, without its newline) is dropped and said so in the
    notes; its game is played again.
    """
    path = Path(path)
    seatings = sched.seatings

    def check(header: dict[str, Any], not_log: str) -> None:
        _check_header(path, header, sched.header(games))
        if ([tuple(x) for x in header.get("seatings") or []] or seatings) != seatings:
            raise ArenaError(f"{path}: line 1: its seatings differ from this schedule's; {not_log}")

    header, rows, good, notes = read_for_resume(
        path, check, lambda k: (sched.task(k, seatings), {})
    )
    return header, dict(enumerate(rows)), good, notes


def read_for_resume(
    path: str | os.PathLike,
    check_header: Callable[[dict[str, Any], str], None],
    expect: Callable[[int], tuple[GameTask, dict[str, Any]] | None],
    command: str = "lastwill arena",
    kind: str = "arena log",
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int, list[str]]:
    """The checks of :func:`load_for_resume` for any log of arena rows (`lastwill arena`,
    `lastwill eval`): ``(header, rows, good_bytes, notes)``. ``check_header(header, not_log)``
    raises an :class:`ArenaError` for a header of another run; ``expect(k)`` is the task
    the ``k``-th row must hold and the other entries it must have (``None``: the schedule
    has no ``k``-th game)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ArenaError(f"cannot read {path}: {e}") from None
    if not data:
        return None, [], 0, [f"{path} is empty: starting the log afresh"]
    lines = data.split(b"\n")
    not_log = (
        f"--resume continues only a log written by `{command}`; choose another --out "
        "(the file was left untouched)"
    )
    if len(lines) == 1:
        raise ArenaError(f"{path}: line 1 is not a complete {kind} header; {not_log}")
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise ArenaError(f"{path}: line 1 is not an {kind} header; {not_log}")
    check_header(header, not_log)
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    pos = len(lines[0]) + 1
    for i, raw in enumerate(lines[1:], start=2):
        if i == len(lines):
            if raw:
                notes.append(
                    f"dropped the torn last line {i} of {path} ({len(raw)} bytes, an "
                    f"interrupted write); its game is played again"
                )
            break
        rows.append(_resumed_row(f"{path}: line {i}", raw, expect(len(rows))))
        pos += len(raw) + 1
    return header, rows, pos, notes


def _resumed_row(
    where: str, raw: bytes, expected: tuple[GameTask, dict[str, Any]] | None
) -> dict[str, Any]:
    """One logged row, checked to be the game the schedule has at its place."""
    try:
        row = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise ArenaError(f"{where} is not a JSON object ({e}); the log is damaged") from None
    if not isinstance(row, dict):
        raise ArenaError(f"{where} is not a JSON object; the log is damaged")
    if expected is None:
        raise ArenaError(f"{where} is past the last game of this schedule; the log is damaged")
    task, entries = expected
    g = task.game
    got = row.get("game")
    if type(got) is not int or got < 0:
        raise ArenaError(f"{where} has no valid game index ({got!r}); expected game {g}")
    if got < g:
        raise ArenaError(
            f"{where} holds game {got} again (a duplicated or out-of-order row); expected game {g}"
        )
    if got > g:
        raise ArenaError(
            f"{where} holds game {got} but game {g} is missing before it (rows must "
            f"hold games 0, 1, 2, ... in order)"
        )
    for key, want in entries.items():
        if row.get(key) != want:
            raise ArenaError(
                f"{where} (game {g}): its {key} is {row.get(key)!r} but this schedule has "
                f"{want!r} there; the log is damaged"
            )
    problem = _row_problem(row, task)
    if problem:
        raise ArenaError(f"{where} (game {g}): {problem}; the log is damaged")
    return row


def run_tournament(
    entrants: list[str] | tuple[str, ...],
    config: Any,
    games: int,
    *,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    workers: int = 1,
    use_ray: bool = False,
    ray_address: str | None = None,
    all_seatings: bool = False,
    deals: str = VALIDATION,
    on_start: Callable[[int, int], None] | None = None,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
    game_name: str = DEFAULT_GAME,
) -> TournamentResult:
    """Plan, play (skipping logged games when resuming) and log a tournament of
    ``game_name`` (a `gamecore` registry name; ``config`` is that game's config).

    ``out`` is the JSONL log; ``None`` plays in memory and writes nothing (``resume`` then has
    nothing to continue and is refused). Every entrant spec is built once before the first game
    (`prepare_players`): one that cannot be built is an `ArenaError`, and nothing is played or
    written. With `use_ray`, games run as Ray tasks on the Ray this process is connected to, or
    on `ray_address` / `RAY_ADDRESS`, or on a local Ray started for the run.
    ``on_start(total, already_done)``, ``on_game(row)`` and ``on_note(text)`` are progress
    hooks. The log is append-only: rows are flushed as games finish and fsynced at the end; an
    existing log is only appended to after :func:`load_for_resume` accepted it.
    ``trusted``: the entrants are the caller's own (typed by the user), so `module:Class`
    specs among them may import their classes and their ``ppo:`` `.zip` files may load
    (`agents.registry.trusting`, docs/TRUST.md); otherwise only registered names and `.npz`
    policies play.
    ``move_time_limit``: seconds per call for every outside agent (0: none); a game whose
    outside agent runs over it, calls ``sys.exit`` or kills its worker process is an error
    row, and the tournament goes on (:mod:`agents.timelimit`, :mod:`agents.workers`).
    """
    try:
        move_time_limit = check_time_limit(move_time_limit)
    except ValueError as e:
        raise ArenaError(str(e)) from None
    if games < 1:
        raise ArenaError(f"--games must be at least 1, got {games}")
    if workers < 1:
        raise ArenaError(f"--workers must be at least 1, got {workers}")
    if out is None and resume:
        raise ArenaError("resume needs the log to continue: pass out=PATH (--out PATH)")
    sched = Schedule(tuple(entrants), config, seed, all_seatings, deals, game_name)
    if use_ray:
        _import_ray()
    named = None if game_name == DEFAULT_GAME else game_name
    own = in_own_process(entrants, named)
    send = "ray" if use_ray else "pool" if workers > 1 or own else None
    with trusting(entrants if trusted else ()):
        setup = prepare_players(entrants, send, move_time_limit, named)
        ray_started = False
        try:
            if use_ray:
                ray_started = connect_ray(ray_address)
            return _run(
                sched,
                games,
                setup,
                out,
                resume,
                workers,
                use_ray,
                on_start,
                on_game,
                on_note,
                move_time_limit,
            )
        finally:
            if ray_started:
                _import_ray().shutdown()


def _run(
    sched: Schedule,
    games: int,
    setup: WorkerSetup | None,
    out: str | os.PathLike | None,
    resume: bool,
    workers: int,
    use_ray: bool,
    on_start: Callable[[int, int], None] | None,
    on_game: Callable[[dict[str, Any]], None] | None,
    on_note: Callable[[str], None] | None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> TournamentResult:
    header = sched.header(games)
    path = Path(out) if out is not None else None
    if path is not None and path.is_dir():
        raise ArenaError(f"--out {path} is a directory; give a log file name (.jsonl)")
    done: dict[int, dict[str, Any]] = {}
    good = None
    if path is not None:  # what killed writes of this log left (agents.safeio)
        for left in remove_leftover_temps(path.parent, of=path):
            if on_note is not None:
                on_note(f"removed {left}, a temporary file left by an interrupted write")
    if path is not None and path.exists():
        if not resume:
            raise ArenaError(
                f"{path} already exists; refusing to overwrite it. Pass --resume to continue "
                f"that tournament, or choose another --out."
            )
        found, done, good, notes = load_for_resume(path, sched, games)
        if found is not None:
            header = found
        for text in notes:
            if on_note is not None:
                on_note(text)
    total = sched.num_games(games)
    todo = sched.tasks(games, start=len(done))  # the logged games are the first len(done)
    resumed = len(done)
    if on_start is not None:
        on_start(total, sum(1 for g in done if g < total))

    t0 = time.perf_counter()
    played = 0
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if good is not None and good != path.stat().st_size:
            with open(path, "r+b") as f:  # drop the torn last line before appending
                f.truncate(good)
    # a new log is created exclusively: a file that appeared meanwhile is never replaced
    mode = "a" if good is not None else "x"
    with open(path, mode, encoding="utf-8") if path is not None else _NoLog() as f:
        if f.tell() == 0:
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            f.flush()
        # rows come in game order (play_in_order), each written and flushed as it comes
        source = play_in_order(todo, workers, setup, use_ray, move_time_limit)
        try:
            for row in source:
                if on_game is not None:
                    on_game(row)
                f.write(json.dumps(row, separators=(",", ":")) + "\n")
                f.flush()
                done[row["game"]] = row
                played += 1
        finally:
            source.close()
        if path is not None:
            os.fsync(f.fileno())
    elapsed = time.perf_counter() - t0
    rows = [done[g] for g in sorted(done)]
    return TournamentResult(
        out=path,
        header=header,
        rows=rows,
        requested=games,
        total=total,
        played=played,
        resumed=resumed,
        seatings=len(sched.seatings),
        elapsed=elapsed,
    )


class _NoLog:
    """Stands in for the log file of an in-memory tournament: it keeps nothing."""

    def __enter__(self) -> _NoLog:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def tell(self) -> int:
        return 1  # never "empty": no header is written

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


def run_task_row_stub(task: GameTask) -> dict[str, Any]:
    """The identifying fields a row for ``task`` must carry (for resume checks)."""
    return {"game": task.game, "deal_seed": task.deal_seed, "seating": list(task.seating)}
