"""Time limits on outside agents: code the lab did not write gets a deadline for every call.

Lab bots are the built-in registry names (``random``, the bots, ``mc``, ``ppo:`` policies;
:func:`is_lab_spec`). Every other spec (``module:Class``, an entry point, a name registered at
run time) is *outside code*: :func:`build_agent` builds it under ``BUILD_FACTOR`` times the move
time limit (importing a module and loading weights may take a while) and wraps the agent in a
:class:`LimitedAgent`, whose ``act`` and ``observe`` run under the move time limit and whose
``reset`` under the build allowance. Lab bots are returned as they are: they pay nothing.

A call over its limit, or one that calls ``sys.exit`` (``SystemExit``), raises
:class:`AgentFault` naming the spec and the method; the agent is then *dropped*: every later
call raises :class:`AgentFault` at once, without running its code. A real Ctrl+C
(``KeyboardInterrupt``) is never caught here. What a harness does with a fault is its own rule:
the arena records the game as an error row (:mod:`agents.arena`); ``lastwill play`` and the
viewer's live games play the first legal action for that seat for the rest of the game.

How the deadline is kept (:func:`call_limited`): in the main thread of a process (the arena's
worker processes and Ray tasks, ``lastwill arena --workers 1``, ``lastwill eval``,
``lastwill play``), a ``SIGALRM`` timer interrupts the call, repeating until it returns, so a
sleeping or looping agent stops at once. Elsewhere (the viewer's request threads, or where a
timer is already set) the call runs in a helper thread that the caller stops waiting for at
the deadline; that thread is then asked to stop (an exception raised in it) but, being a
thread, cannot be forced to. A limit of ``0`` means none.
"""

from __future__ import annotations

import functools
import signal
import threading
from collections.abc import Callable
from typing import Any

from gamecore.options import check_number

from .base import BaseAgent
from .registry import PlayerSpecError, make_agent, resolve

DEFAULT_MOVE_TIME_LIMIT = 5.0
# Building an outside agent (import, construction) and its reset get this many move limits.
BUILD_FACTOR = 10
OPTION = "--move-time-limit"


class AgentFault(Exception):
    """An outside agent's call that ran over its time limit or tried to end the process (or
    a call to an agent dropped for such a fault)."""


class _Deadline(BaseException):
    """Raised inside an outside agent's call at its deadline (a BaseException, so that the
    agent's own ``except Exception`` does not swallow it)."""


def check_time_limit(value: Any, name: str = OPTION) -> float:
    """``value`` as a limit in seconds: a finite number >= 0 (0: no limit); otherwise a
    ``ValueError`` naming ``name`` and what is allowed (`gamecore.options.check_number`)."""
    allowed = "a finite number of seconds >= 0 (0 for no limit)"
    return check_number(name, value, 0, allowed=allowed)


def is_lab_spec(spec: str, game: Any = None) -> bool:
    """True for a built-in player of ``game`` (its bots, the shared players such as ``ppo:``
    policies): no time limit."""
    try:
        entry, _, _ = resolve(spec, game)
    except PlayerSpecError:
        return False
    return entry.origin == "built-in"


def _seconds(limit: float) -> str:
    return f"{limit:g} s"


def call_limited(limit: float, what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` under a deadline of ``limit`` seconds (0: none). Over the limit, or on
    ``sys.exit`` inside, an :class:`AgentFault` that names ``what``."""
    try:
        if not limit:
            return fn(*args)
        if _can_alarm():
            return _call_with_alarm(limit, what, fn, args)
        return _call_in_thread(limit, what, fn, args)
    except SystemExit as e:
        raise AgentFault(
            f"{what} called sys.exit({e.code!r}); an agent must return, not end the process"
        ) from None


def _over(limit: float, what: str) -> AgentFault:
    return AgentFault(
        f"{what} ran over the time limit of {_seconds(limit)} ({OPTION} SECONDS; 0 for none)"
    )


def _can_alarm() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0  # no one else's timer is running
    )


def _call_with_alarm(limit: float, what: str, fn: Callable[..., Any], args: tuple) -> Any:
    fired = [False]
    armed = [True]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            fired[0] = True
            raise _Deadline

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit, limit)  # repeats until the call returns
    try:
        result = fn(*args)
    except KeyboardInterrupt:
        raise
    except BaseException:
        if not fired[0]:
            raise
        result = None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if fired[0]:  # also when the agent caught the interrupt and returned late
        raise _over(limit, what)
    return result


def _call_in_thread(limit: float, what: str, fn: Callable[..., Any], args: tuple) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    worker = threading.Thread(target=target, name=f"agent {what}", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        _ask_to_stop(worker)
        raise _over(limit, what)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _ask_to_stop(worker: threading.Thread) -> None:
    """Raise :class:`_Deadline` in ``worker`` (CPython; it takes effect at its next bytecode)."""
    import ctypes

    set_async = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async is not None and worker.ident is not None:
        set_async(ctypes.c_ulong(worker.ident), ctypes.py_object(_Deadline))


class LimitedAgent:
    """An outside agent as the harness sees it: every call under a time limit, dropped after
    a fault (module docstring). ``agent`` is the wrapped agent, ``fault`` why it was dropped,
    ``reported`` whether a harness has said so."""

    def __init__(self, agent: Any, spec: str, limit: float) -> None:
        self.agent = agent
        self.spec = spec
        self.limit = limit
        self.name = getattr(agent, "name", spec)
        self.needs_view = getattr(agent, "needs_view", True)
        obs = getattr(type(agent), "observe", None)
        self.observes = obs is not None and obs is not BaseAgent.observe
        self.fault: str | None = None
        self.reported = False

    def _call(self, method: str, limit: float, *args: Any) -> Any:
        if self.fault is not None:
            raise AgentFault(self.fault)
        try:
            return call_limited(
                limit, f"agent {self.spec!r} in {method}", getattr(self.agent, method), *args
            )
        except AgentFault as e:
            self.fault = str(e)
            raise

    def act(self, view: Any, legal: list[int]) -> Any:
        return self._call("act", self.limit, view, legal)

    def reset(self, seed: int | None = None) -> None:
        self._call("reset", self.limit * BUILD_FACTOR, seed)

    def observe(self, event: dict[str, Any]) -> None:
        if self.observes:
            self._call("observe", self.limit, event)


def build_agent(
    spec: str, seed: int | None, limit: float = DEFAULT_MOVE_TIME_LIMIT, **options: Any
) -> Any:
    """``make_agent(spec, seed, **options)``; for outside code, built under ``BUILD_FACTOR *
    limit`` and returned as a :class:`LimitedAgent`. Raises ``PlayerSpecError`` or
    :class:`AgentFault`."""
    if is_lab_spec(spec, options.get("game")):
        return make_agent(spec, seed, **options)
    agent = call_limited(
        limit * BUILD_FACTOR,
        f"building agent {spec!r}",
        functools.partial(make_agent, spec, seed, **options),
    )
    return LimitedAgent(agent, spec, limit)
