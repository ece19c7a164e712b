"""Outside agents that misbehave, for the time-limit and dead-worker tests (`module:Class`
specs such as ``unruly_agents:Sleeper``; pytest puts this folder on sys.path: ``pythonpath`` in
pyproject.toml).

Each plays legally until its fault: ``after`` is the number of its own decisions it plays
first (0: the fault is its first decision) in each game."""

from __future__ import annotations

import contextlib
import os
import sys
import time

from agents.base import BaseAgent

NAP = 10.0  # far beyond any limit the tests set: a test that waits for it has failed


class _Unruly(BaseAgent):
    """``parity`` (0 or 1): misbehave only in games whose agent seed has that parity."""

    def __init__(self, seed=None, after=0, parity=None):
        super().__init__(seed)
        self.after = int(after)
        self.parity = parity
        self.seed = seed
        self.moves = 0

    def reset(self, seed=None):
        super().reset(seed)
        self.seed = seed
        self.moves = 0

    def act(self, view, legal):
        self.moves += 1
        quiet = self.parity is not None and (self.seed or 0) % 2 != int(self.parity)
        if self.moves > self.after and not quiet:
            self.fault()
        return legal[0]

    def fault(self) -> None:
        raise NotImplementedError


class Sleeper(_Unruly):
    """Sleeps far past any limit in act."""

    needs_view = False

    def fault(self) -> None:
        time.sleep(NAP)


class Swallower(_Unruly):
    """Sleeps in act, catches whatever interrupts the sleep (even the deadline's) and then
    returns a legal action, late."""

    needs_view = False

    def fault(self) -> None:
        with contextlib.suppress(BaseException):  # the point of this agent
            time.sleep(NAP)


class Exiter(_Unruly):
    """Calls sys.exit(3) in act."""

    needs_view = False

    def fault(self) -> None:
        sys.exit(3)


class Killer(_Unruly):
    """Ends its process at once in act, as a segfault or an out-of-memory kill would."""

    needs_view = False

    def fault(self) -> None:
        os._exit(1)


class SlowReset(BaseAgent):
    """Sleeps in reset (the harness calls it before every game)."""

    needs_view = False

    def reset(self, seed=None):
        time.sleep(NAP)

    def act(self, view, legal):
        return legal[0]


class ExitInReset(BaseAgent):
    """Calls sys.exit(4) in reset."""

    needs_view = False

    def reset(self, seed=None):
        sys.exit(4)

    def act(self, view, legal):
        return legal[0]


class SlowObserver(BaseAgent):
    """Plays legally but sleeps when told of another seat's action."""

    needs_view = False

    def act(self, view, legal):
        return legal[0]

    def observe(self, event):
        if event.get("type") == "action":
            time.sleep(NAP)


class Talker(BaseAgent):
    """Plays legally and prints a line on stdout when built, reset and at every move."""

    needs_view = False

    def __init__(self, seed=None):
        super().__init__(seed)
        print("Talker: built")

    def reset(self, seed=None):
        super().reset(seed)
        print("Talker: a new game")

    def act(self, view, legal):
        print(f"Talker: I play {legal[0]}")
        return legal[0]
