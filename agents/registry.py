"""The registry of player specs: short strings that name an agent and its parameters.

Grammar: `name` or `name:arg[:arg...]`, each `arg` either `key=value` (a keyword parameter)
or a bare value (a positional parameter, e.g. the checkpoint path of `ppo:PATH`), optionally
followed by a display name `@label` (letters, digits, `_ . + -`): `ppo:runs/x/best.npz@best`.
The label names the entrant in tables and plots (:func:`display_name`); the agent is built from
the spec without it, and two entrants that differ only in their labels are separate entrants.
A list of players on the command line is comma-separated:
`random,greedy,greedy:eps=0.1,ppo:runs/x.zip@x`. `legend()` is the text printed by
`lastwill arena --help`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .base import Agent, RandomAgent


class PlayerSpecError(ValueError):
    """A player spec that names no registered agent or passes bad parameters."""


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[..., Agent]
    summary: str
    params: str = ""  # e.g. "eps=FLOAT (default 0.0)"


_REGISTRY: dict[str, Entry] = {}


def register(name: str, factory: Callable[..., Agent], summary: str, params: str = "") -> None:
    _REGISTRY[name] = Entry(name, factory, summary, params)


def names() -> list[str]:
    return sorted(_REGISTRY)


def entries() -> list[Entry]:
    """Every registered player, by name."""
    _load_builtin()
    return [_REGISTRY[n] for n in names()]


def _coerce(value: str):
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
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


def parse_spec(spec: str) -> tuple[str, list, dict]:
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError(f"empty player spec {spec!r}; known players: {', '.join(names())}")
    base, _ = split_label(spec)
    if not base:
        raise PlayerSpecError(f"player spec {spec!r} names no player before its '@label'")
    name, *args = base.split(":")
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


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent a spec names; a clear error lists the valid choices."""
    _load_builtin()
    name, pos, kw = parse_spec(spec)
    entry = _REGISTRY.get(name)
    if entry is None:
        raise PlayerSpecError(
            f"unknown player {name!r} in spec {spec!r}; valid players:\n{legend()}"
        )
    try:
        agent = entry.factory(*pos, seed=seed, **kw)
    except PlayerSpecError:
        raise
    except (TypeError, ValueError, OSError) as e:
        raise PlayerSpecError(
            f"bad parameters in player spec {spec!r}: {e}; {entry.name} takes: "
            f"{entry.params or 'no parameters'}"
        ) from e
    agent.name = display_name(spec)
    return agent


def legend() -> str:
    _load_builtin()
    lines = []
    for n in names():
        e = _REGISTRY[n]
        extra = f"  [{e.params}]" if e.params else ""
        lines.append(f"  {n:<12} {e.summary}{extra}")
    return "\n".join(lines)


_loaded = False


def _load_builtin() -> None:
    """Register the built-in agents (imported lazily so the registry stays cheap)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    register("random", lambda seed=None: RandomAgent(seed), "uniformly random legal actions")
    from .bots import CombinerBot, GreedyBot, PlannerBot, RacerBot, SpeculatorBot
    from .search import MCAgent

    eps = "eps=FLOAT (default 0.0: chance of a random legal action)"
    register("greedy", GreedyBot, "greedy spender: most £ burned per action now", eps)
    register("speculator", SpeculatorBot, "property speculator: dear houses, sold cheap", eps)
    register("planner", PlannerBot, "plans by hand needs, sells out into debt at the end", eps)
    register("combiner", CombinerBot, "companion combiner: slots and add-ons", eps)
    register("racer", RacerBot, "racer: owns nothing, spends fastest, ends the game in debt", eps)
    register(
        "mc",
        MCAgent,
        "flat Monte-Carlo search over determinized states",
        "rollouts=INT (default 4 per candidate), cands=INT (default 6), policy=greedy|random",
    )
    register(
        "ppo",
        _ppo_agent,
        "a trained MaskablePPO checkpoint (torch is imported only for a .zip without its .npz)",
        "PATH to a .zip/.npz checkpoint with its .json sidecar; append :sample to sample "
        "instead of arg-max, e.g. ppo:agents/policies/reference.npz",
    )


def _ppo_agent(path: str = "", seed: int | None = None):
    """`ppo:PATH[:sample|:det]`; loaded policies are cached per process by path."""
    from .policy import PolicyAgent

    if not path:
        raise PlayerSpecError("ppo needs a checkpoint path: ppo:PATH (e.g. ppo:run/best.zip)")
    mode = "det"
    for suffix in (":sample", ":det"):
        if path.endswith(suffix):
            path, mode = path[: -len(suffix)], suffix[1:]
    return PolicyAgent(path, mode=mode, seed=seed)
