"""The registry of player specs: short strings that name an agent and its parameters.

Grammar: `name` or `name:arg[:arg...]`, each `arg` either `key=value` (a keyword parameter)
or a bare value (a positional parameter, e.g. the checkpoint path of `ppo:PATH`), optionally
followed by a display name `@label` (letters, digits, `_ . + -`): `ppo:runs/x/best.npz@best`.
The label names the entrant in tables and plots (:func:`display_name`); the agent is built from
the spec without it, and two entrants that differ only in their labels are separate entrants.
A list of players on the command line is comma-separated:
`random,greedy,greedy:eps=0.1,ppo:runs/x.zip@x`. `legend()` is the text printed by
`lastwill arena --help`.

Where names come from, in this order (an earlier source wins a name):

1. the built-in agents: the game's own scripted bots (`gamecore.Game.bots`, Last Will's by
   default) and the players every game shares (`random`, `mc`, `mcts`, `ppo`), which are
   built with ``game=`` the game being played;
2. `register(name, factory, summary)` at run time;
3. installed packages, through the entry-point group `lastwill.agents` (`ENTRY_POINT_GROUP`):
   in a package's `pyproject.toml`, `[project.entry-points."lastwill.agents"]` with
   `myagent = "mypkg.agent:MyAgent"`; loaded on first use;
4. no registration at all: `module.path:ClassName[:key=value...]` imports `module.path`
   (from `sys.path`, with the current directory added at its end) and calls `ClassName` with
   the spec's parameters, plus `seed=` when it takes one. Only where the user named it
   (docs/TRUST.md): the command line grants the specs typed there (:func:`trusting`), the
   Python API those of a call with ``trusted=True``; a spec from a request, a saved game, a log
   or a checkpoint file is refused before anything is imported. Even when granted, the
   attribute must be a class with `act` and `reset` before it is called.

Whatever a factory builds must have `act(view, legal)` and `reset(seed)` (subclass
`agents.base.BaseAgent`). Worker processes and Ray tasks rebuild agents from their specs:
`worker_setup(specs)` is what a parent sends them (the import roots of modules and entry points,
the names registered at run time, and the grants of `agents.trust` those specs use),
`apply_worker_setup(setup)` installs it in a worker.

Priors. A policy over a prior bot (`agents.policy.NumpyPolicy`) gets its bot, the bot's
behaviour fingerprint and the check of the bot's name from `PRIORS`, this registry's
`agents.priors.PriorSource`: the ``ppo`` and ``mcts`` players are handed it when they are
built, and it is installed as the default source for policies made or read without one.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from gamecore import Game, load_game
from gamecore.options import shown

from . import priors, trust
from .base import Agent, RandomAgent
from .behaviour import spec_fingerprint

ENTRY_POINT_GROUP = "lastwill.agents"
SPEC_CHARS = 200  # a longer spec is shown by its ends in an error message
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class PlayerSpecError(ValueError):
    """A player spec that names no registered agent or passes bad parameters."""


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[..., Agent]
    summary: str
    params: str = ""  # e.g. "eps=FLOAT (default 0.0)"
    origin: str = "registered"  # "built-in", "registered" or "entry point"
    takes_game: bool = False  # a shared player: built with game=the game being played


_REGISTRY: dict[str, Entry] = {}  # the shared players, and those registered or installed
_GAME_BOTS: dict[str, dict[str, Entry]] = {}  # each game's scripted bots, by game name


def game_of(game: Game | str | None) -> Game:
    """The game an argument names: a `gamecore.Game`, a registry name, or None (Last Will)."""
    return game if isinstance(game, Game) else load_game(game)


def _bots(game: Game) -> dict[str, Entry]:
    """``game``'s scripted bots as registry entries (built once per game)."""
    bots = _GAME_BOTS.get(game.name)
    if bots is None:
        bots = {
            name: Entry(name, bot.factory, bot.summary, bot.params, origin="built-in")
            for name, bot in game.bots().items()
        }
        _GAME_BOTS[game.name] = bots
    return bots


def register(name: str, factory: Callable[..., Agent], summary: str, params: str = "") -> None:
    """Register `name` for this process. Worker processes and Ray tasks started by
    `agents.arena.run_tournament` receive the names its entrants use (the factory must then
    be picklable: a module-level class or function)."""
    _REGISTRY[name] = Entry(name, factory, summary, params)


def _table(game: Game | str | None = None) -> dict[str, Entry]:
    """Every player of ``game`` by name: its bots, then the shared and registered ones."""
    _load_builtin()
    return {**_REGISTRY, **_bots(game_of(game))}


def names(game: Game | str | None = None) -> list[str]:
    return sorted(_table(game))


def entries(game: Game | str | None = None) -> list[Entry]:
    """Every player of ``game`` (Last Will by default), by name."""
    table = _table(game)
    return [table[n] for n in sorted(table)]


def _coerce(value: str):
    """A spec's value as an int, a float or a bool where it reads as one, else its text. A
    number too large for a float (``1e400``, or more digits than Python reads) stays text, so
    the option's check names it as typed rather than as ``inf``."""
    try:
        return int(value)
    except ValueError:
        pass
    try:
        number = float(value)
    except ValueError:
        pass
    else:
        named = any(word in value.lower() for word in ("inf", "nan"))
        return number if math.isfinite(number) or named else value
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


_LABEL = re.compile(r"@([A-Za-z0-9_.+-]*)$")


def split_label(spec: str) -> tuple[str, str | None]:
    """``(spec without its display name, label or None)``: ``"greedy@g" -> ("greedy", "g")``."""
    text = spec.strip()
    m = _LABEL.search(text)
    if m is None:
        return text, None
    if not m.group(1):
        raise PlayerSpecError(f"empty display name after '@' in player spec {spec!r}")
    return text[: m.start()], m.group(1)


def display_name(spec: str) -> str:
    """The name an entrant is shown by: its ``@label``, or the spec itself."""
    try:
        base, label = split_label(spec)
    except PlayerSpecError:
        return spec
    return label or base


def _label_moved(spec: str) -> str | None:
    """A hint for a spec with an ``@label`` before its last ``:`` part (``ppo:reference@x:net``):
    the display name goes last (``ppo:reference:net@x``); ``None`` when there is none."""
    parts = spec.strip().split(":")
    for i, part in enumerate(parts[:-1]):
        m = _LABEL.search(part)
        if m and m.group(1) and "@" not in part[: m.start()]:
            fixed = ":".join([*parts[:i], part[: m.start()], *parts[i + 1 :]]) + m.group(0)
            return f"the display name {m.group(0)!r} goes last: {fixed!r}"
    return None


def parse_spec(spec: str) -> tuple[str, list, dict]:
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError(f"empty player spec {spec!r}; known players: {', '.join(names())}")
    base, _ = split_label(spec)
    if not base:
        raise PlayerSpecError(f"player spec {spec!r} names no player before its '@label'")
    name, *args = base.split(":")
    if "@" in name and args:  # no player's name holds '@': a label put before the options
        hint = _label_moved(spec) or "a display name @label goes last, after every option"
        raise PlayerSpecError(f"player spec {spec!r}: {hint}")
    if name == "ppo" and args:  # a checkpoint path may itself contain ':'
        args = [":".join(args)]
    pos, kw = [], {}
    for a in args:
        if "=" in a and name != "ppo":
            k, v = a.split("=", 1)
            kw[k] = _coerce(v)
        else:
            pos.append(a)
    return name, pos, kw


class ImportFactory:
    """A factory named by its import path `module.path:attr` (picklable as that text);
    imports on first call. A `guarded` factory (a `module:Class` spec) imports only a target
    granted in `agents.trust`, and calls only an agent class."""

    def __init__(self, target: str, spec: str | None = None, guarded: bool = False) -> None:
        self.target = target
        self.spec = spec or target
        self.guarded = guarded
        self._obj: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"target": self.target, "spec": self.spec, "guarded": self.guarded, "_obj": None}

    def load(self) -> Any:
        if self._obj is None:
            if self.guarded and not trust.allows_import(self.target):
                raise PlayerSpecError(_untrusted_message(self.spec, self.target))
            module, _, attr = self.target.partition(":")
            obj = import_object(module, attr, self.spec)
            if self.guarded:
                _check_agent_class(obj, self.spec, self.target)
            self._obj = obj
        return self._obj

    def __call__(self, *args: Any, seed: int | None = None, **kwargs: Any) -> Any:
        obj = self.load()
        if _takes_seed(obj):
            return obj(*args, seed=seed, **kwargs)
        return obj(*args, **kwargs)

    def __repr__(self) -> str:
        return f"ImportFactory({self.target!r})"


def _untrusted_message(spec: str, target: str) -> str:
    return (
        f"player spec {spec!r} would import {target}, and a module.path:ClassName spec is "
        f"imported only as a player typed for lastwill arena, eval or play (or passed with "
        f"trusted=True in the Python API); one from a request, a saved game, a log, a "
        f"checkpoint file or a training run is never imported (docs/TRUST.md). Players "
        f"allowed here: {', '.join(names())} (ppo:PATH for a .npz policy), or install the "
        f"agent's package with a {ENTRY_POINT_GROUP} entry point"
    )


def missing_agent_methods(obj: Any) -> list[str]:
    """The methods of the agent protocol (`act`, `reset`) that ``obj`` (a class or an agent)
    lacks or cannot call."""
    return [m for m in ("act", "reset") if not callable(getattr(obj, m, None))]


def _check_agent_class(obj: Any, spec: str, target: str) -> None:
    """A `module:Class` spec names a class with `act` and `reset` (checked before any call)."""
    if not inspect.isclass(obj):
        raise PlayerSpecError(
            f"player spec {spec!r}: {target} is a {type(obj).__name__}, not a class, so it is "
            f"not called; a module.path:ClassName spec names an agent class with "
            f"act(view, legal) and reset(seed) (subclass agents.base.BaseAgent)"
        )
    missing = missing_agent_methods(obj)
    if missing:
        raise PlayerSpecError(
            f"player spec {spec!r}: class {target} is not an agent: it has no "
            f"{' and no '.join(missing)}(...), so it is not built (an agent needs "
            f"act(view, legal) and reset(seed); subclass agents.base.BaseAgent)"
        )


def _takes_seed(obj: Any) -> bool:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(
        p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()
    )


def _add_cwd_to_path() -> None:
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)


def import_object(module: str, attr: str, spec: str | None = None) -> Any:
    """`module.attr` (attr may be dotted), imported from sys.path with the current directory
    at its end; a clear `PlayerSpecError` names what failed."""
    spec = spec or f"{module}:{attr}"
    _add_cwd_to_path()
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (module == e.name or module.startswith(e.name + ".")):
            raise PlayerSpecError(
                f"player spec {spec!r}: no module named {e.name!r} (a module:Class spec "
                f"imports from the current directory {os.getcwd()} and sys.path)"
            ) from e
        raise PlayerSpecError(
            f"player spec {spec!r}: importing {module!r} failed: {type(e).__name__}: {e}"
        ) from e
    except Exception as e:  # noqa: BLE001 - whatever the module raises while importing
        raise PlayerSpecError(
            f"player spec {spec!r}: importing {module!r} failed: {type(e).__name__}: {e}"
        ) from e
    except SystemExit as e:  # sys.exit at import: an error naming the spec, not an exit
        raise PlayerSpecError(
            f"player spec {spec!r}: importing {module!r} called sys.exit({e.code!r}); an "
            f"agent module must not end the process"
        ) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PlayerSpecError(
                f"player spec {spec!r}: module {module!r} has no attribute {attr!r}"
            ) from None
    if not callable(obj):
        raise PlayerSpecError(f"player spec {spec!r}: {module}:{attr} is not a class or a function")
    return obj


def _import_spec(name: str, pos: list) -> bool:
    return bool(pos) and bool(_DOTTED.match(name)) and bool(_DOTTED.match(str(pos[0])))


def resolve(spec: str, game: Game | str | None = None) -> tuple[Entry, list, dict]:
    """The registry entry a spec uses in ``game`` (a `module:Class` spec gets an unregistered
    one), with the spec's positional and keyword parameters. Builds nothing."""
    name, pos, kw = parse_spec(spec)
    entry = _table(game).get(name)
    if entry is None and _import_spec(name, pos):
        target = f"{name}:{pos[0]}"
        factory = ImportFactory(target, spec.strip(), guarded=True)
        entry = Entry(target, factory, "imported", origin="import")
        pos = pos[1:]
    if entry is None:
        raise PlayerSpecError(
            f"unknown player {name!r} in spec {spec!r}; valid players:\n{legend(game)}\n"
            f"  or module.path:ClassName[:key=value...] to import an agent class"
        )
    return entry, pos, kw


def import_target(spec: str) -> str | None:
    """The `module.path:attr` a `module:Class` spec would import (``None`` for a registered
    name); raises `PlayerSpecError` for a spec that names nothing."""
    entry, _, _ = resolve(spec)
    factory = entry.factory
    return factory.target if isinstance(factory, ImportFactory) and factory.guarded else None


PPO_OPTIONS = ("sample", "det", "net")


def ppo_options(arg: str) -> tuple[str, str, bool]:
    """``(checkpoint path, mode, alone)`` of the argument of a ``ppo:PATH[:sample|:det][:net]``
    spec, its options in any order after the path: the mode is ``det`` (arg-max, the default)
    or ``sample``; ``:net`` plays the network alone, without the prior bot a residual policy
    was trained over (`agents.policy.without_prior`)."""
    path, mode, alone = arg, "", False
    while True:
        head, sep, opt = path.rpartition(":")
        if not sep or not head or opt not in PPO_OPTIONS:
            break
        if (opt == "net" and alone) or (opt != "net" and mode):
            raise PlayerSpecError(
                f"ppo:{arg}: options repeat; give at most one of :sample or :det, and :net at "
                f"most once"
            )
        alone, mode = (True, mode) if opt == "net" else (alone, opt)
        path = head
    return path, mode or "det", alone


def ppo_path(arg: str) -> tuple[str, str]:
    """``(checkpoint path, mode)`` of the argument of a ``ppo:PATH[:sample|:det][:net]`` spec."""
    path, mode, _ = ppo_options(arg)
    return path, mode


def spec_grants(specs: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(import targets, .zip checkpoints)`` that `specs` name: what :func:`trusting` grants.
    A spec that names nothing grants nothing (building it reports the error)."""
    imports: list[str] = []
    pickles: list[str] = []
    for spec in specs:
        try:
            target = import_target(spec)
            name, pos, _ = parse_spec(spec)
            path = ppo_path(str(pos[0]))[0] if name == "ppo" and pos and pos[0] else ""
        except PlayerSpecError:
            continue
        if target is not None:
            imports.append(target)
        elif path.endswith((".zip", ".npz")):
            pickles.append(path[:-4] + ".zip")
    return imports, pickles


@contextmanager
def trusting(specs: Iterable[str]) -> Iterator[None]:
    """While the block runs, the `module:Class` specs among `specs` may import their class and
    their ``ppo:`` checkpoints may load from a ``.zip`` (docs/TRUST.md). For the specs the
    user typed, never for specs read from a request or a file."""
    imports, pickles = spec_grants(specs)
    with trust.granted(imports, pickles):
        yield


def make_agent(
    spec: str,
    seed: int | None = None,
    *,
    trusted: bool = False,
    game: Game | str | None = None,
) -> Agent:
    """Build the agent a spec names for ``game`` (Last Will by default); a clear error lists
    the valid choices. ``trusted``: the spec is the caller's own (typed by the user), so a
    `module:Class` spec may import its class and a ``ppo:`` checkpoint may load from a
    ``.zip``; otherwise only what the process has granted (:func:`trusting`) may."""
    if trusted:
        with trusting([spec]):
            return make_agent(spec, seed, game=game)
    entry, pos, kw = resolve(spec, game)
    if isinstance(entry.factory, ImportFactory):
        entry.factory.load()  # import errors are reported as they are
    if entry.takes_game and game is not None:
        kw = {**kw, "game": game_of(game)}
    try:
        agent = entry.factory(*pos, seed=seed, **kw)
    except PlayerSpecError:
        raise
    except (TypeError, ValueError, OSError) as e:
        hint = _label_moved(spec)
        raise PlayerSpecError(
            f"bad parameters in player spec {shown(spec, SPEC_CHARS)}: {e}"
            f"{f'; {hint}' if hint else ''}; {entry.name} takes: "
            f"{entry.params or 'no parameters'}"
        ) from e
    except SystemExit as e:  # sys.exit in a constructor: an error naming the spec
        raise PlayerSpecError(
            f"player spec {spec!r}: building the agent called sys.exit({e.code!r}); an agent "
            f"must not end the process"
        ) from None
    missing = missing_agent_methods(agent)
    if missing:
        raise PlayerSpecError(
            f"player spec {spec!r} built {type(agent).__name__!r}, which is not an agent: it "
            f"has no {' and no '.join(missing)}(...) (an agent needs act(view, legal) and "
            f"reset(seed); subclass agents.base.BaseAgent)"
        )
    try:
        agent.name = display_name(spec)
    except AttributeError as e:
        raise PlayerSpecError(
            f"player spec {spec!r}: the agent's name attribute cannot be set ({e})"
        ) from e
    return agent


# ---------------------------------------------------------------------------------------------
# The prior bots of residual policies


class RegistryPriors:
    """The `agents.priors.PriorSource` of this registry: a prior is a registered bot (a
    policy file never names code to import, docs/TRUST.md), built with seed 0; its
    fingerprint is `agents.behaviour.spec_fingerprint` of the bot this registry builds."""

    def check(self, prior: str) -> None:
        try:
            target = import_target(prior)
        except PlayerSpecError:
            return  # an unknown name is reported when the prior is first asked
        if target is not None:
            raise priors.PriorError(
                f"would import {target}; a prior read from a policy file must be a "
                f"registered bot such as racer (a file never names code to import, "
                f"docs/TRUST.md)"
            )

    def bot(self, prior: str) -> Agent:
        self.check(prior)
        try:
            return make_agent(prior, seed=0)
        except PlayerSpecError as e:
            raise priors.PriorError(str(e)) from None

    def fingerprint(self, prior: str) -> str:
        self.check(prior)
        try:
            return spec_fingerprint(prior, make_agent)
        except PlayerSpecError as e:
            raise priors.PriorError(str(e)) from None


PRIORS = RegistryPriors()
priors.use_default(PRIORS)


# ---------------------------------------------------------------------------------------------
# What worker processes need to rebuild the same agents


@dataclass(frozen=True)
class WorkerSetup:
    """Sent by a parent to its workers: `paths` to put on `sys.path` (import roots of the
    modules that specs and entry points name), and `entries` registered at run time or
    found through entry points (re-registered as they are in the parent)."""

    paths: tuple[str, ...] = ()
    entries: tuple[Entry, ...] = field(default_factory=tuple)
    imports: tuple[str, ...] = ()  # import targets granted in the parent (agents.trust)
    pickles: tuple[str, ...] = ()  # .zip checkpoints granted in the parent

    def __bool__(self) -> bool:
        return bool(self.paths or self.entries or self.imports or self.pickles)


def _import_root(module: str) -> str | None:
    top = sys.modules.get(module.split(".")[0])
    spec = getattr(top, "__spec__", None)
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return os.path.dirname(os.path.abspath(locations[0]))
    if spec.origin and spec.origin.endswith(".py"):
        return os.path.dirname(os.path.abspath(spec.origin))
    return None


def worker_setup(specs: Iterable[str], game: Game | str | None = None) -> WorkerSetup:
    """What workers need to build `specs` as this process does (call after building them):
    only the grants of `agents.trust` that this process holds now travel with them."""
    specs = list(specs)
    paths: dict[str, None] = {}
    entries: dict[str, Entry] = {}
    for spec in specs:
        entry, _, _ = resolve(spec, game)
        if isinstance(entry.factory, ImportFactory):
            root = _import_root(entry.factory.target.partition(":")[0])
            if root is not None:
                paths.setdefault(root, None)
        if entry.origin in ("registered", "entry point"):
            entries[entry.name] = entry
    imports, pickles = spec_grants(specs)
    return WorkerSetup(
        tuple(paths),
        tuple(entries.values()),
        tuple(dict.fromkeys(t for t in imports if trust.allows_import(t))),
        tuple(dict.fromkeys(trust.pickle_key(p) for p in pickles if trust.allows_pickle(p))),
    )


def _install(setup: WorkerSetup) -> None:
    for p in setup.paths:
        if p not in sys.path:
            sys.path.append(p)
    _load_builtin()
    for e in setup.entries:
        _REGISTRY[e.name] = e


def apply_worker_setup(setup: WorkerSetup | None) -> None:
    """Install a parent's `WorkerSetup` in this process (idempotent), its grants for the
    rest of the process's life (a worker process of one run)."""
    if not setup:
        return
    _install(setup)
    trust.grant(setup.imports, setup.pickles)


@contextmanager
def worker_setup_applied(setup: WorkerSetup | None) -> Iterator[None]:
    """Install a parent's `WorkerSetup` with its grants held while the block runs (one batch
    of games in a process that may serve other runs, such as a Ray worker)."""
    if not setup:
        yield
        return
    _install(setup)
    with trust.granted(setup.imports, setup.pickles):
        yield


def legend(game: Game | str | None = None) -> str:
    lines = []
    for e in entries(game):
        extra = f"  [{e.params}]" if e.params else ""
        lines.append(f"  {e.name:<12} {e.summary}{extra}")
    return "\n".join(lines)


def _load_entry_points() -> None:
    """Register the names of installed packages' `lastwill.agents` entry points (loaded on
    first use). A name already taken (a built-in, or registered) keeps its meaning."""
    from importlib.metadata import entry_points

    try:
        eps = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - broken metadata must not break the registry
        return
    for ep in eps:
        if ep.name in _REGISTRY:
            continue
        dist = getattr(getattr(ep, "dist", None), "name", None)
        summary = f"from {dist} ({ep.value})" if dist else f"entry point {ep.value}"
        _REGISTRY[ep.name] = Entry(
            ep.name, ImportFactory(ep.value, ep.name), summary, origin="entry point"
        )


_loaded = False
_BUILTIN_NAMES = ("random", "mc", "mcts", "ppo")  # shared by every game


def _load_builtin() -> None:
    """Register the built-in agents (imported lazily so the registry stays cheap)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    register("random", lambda seed=None: RandomAgent(seed), "uniformly random legal actions")
    from .search import MCAgent

    register(
        "mc",
        MCAgent,
        "flat Monte-Carlo search over determinized states",
        "rollouts=INT (default 4 per candidate), cands=INT (default 6), policy=greedy|random",
    )
    register(
        "mcts",
        _mcts_agent,
        "determinized PUCT search over a policy's priors and critic (agents/mcts.py)",
        "policy=NAME or PATH of a .npz with its critic (required, e.g. policy=reference); "
        "sims=INT simulations per decision (1-1000000; 64 when ms is not given); ms=FLOAT "
        "milliseconds per decision (whichever of the two ends first); c_puct=FLOAT (default "
        "1.5); ptemp=FLOAT (prior temperature, 0.01-100, default 1: the priors P ** (1/ptemp)); "
        "temp=FLOAT (0, the default, plays the most visited move); noise=FLOAT (0-1, "
        "Dirichlet noise mixed into the root's priors, 0 by default), alpha=FLOAT (its "
        "concentration, 0.3) and sure=FLOAT (0.01-1; a decision whose top prior is at least "
        "this is played without a search; 1, the default, searches every decision)",
    )
    register(
        "ppo",
        _ppo_agent,
        "a trained policy checkpoint of any of the lab's trainers (all-seat PPO, SB3 "
        "MaskablePPO, RLlib, expert iteration; a .zip without its .npz loads only when typed "
        "on the command line: it is a pickle)",
        "NAME (reference; ref_v1 ... ref_v7 and others in a checkout, policies/INDEX.md) or PATH "
        "to a .zip/.npz checkpoint with its .json sidecar; append :sample to sample instead of "
        "arg-max, :net to play the network without its prior bot, e.g. ppo:reference",
    )
    for name in _BUILTIN_NAMES:
        _REGISTRY[name] = replace(_REGISTRY[name], origin="built-in", takes_game=name != "random")
    _load_entry_points()


def _ppo_agent(path: str = "", seed: int | None = None, game: Game | None = None):
    """`ppo:PATH[:sample|:det][:net]`; loaded policies are cached per process by path."""
    from .policy import PolicyAgent

    if not path:
        raise PlayerSpecError(
            "ppo needs a policy: ppo:NAME or ppo:PATH (e.g. ppo:reference, ppo:run/best.npz)"
        )
    path, mode, alone = ppo_options(path)
    extra = {} if game is None else {"game": game}
    return PolicyAgent(path, mode=mode, seed=seed, prior_bots=PRIORS, alone=alone, **extra)


def _mcts_agent(*args: Any, seed: int | None = None, **kwargs: Any):
    """`mcts:policy=PATH[:sims=N][:ms=T][:c_puct=F][:ptemp=F][:temp=F][:noise=F][:alpha=F]
    [:sure=F]` (agents/mcts.py)."""
    from .mcts import MCTSAgent

    return MCTSAgent(*args, seed=seed, prior_bots=PRIORS, **kwargs)
