"""The bounds on what the viewer reads: request bodies, JSON nesting, paths and echoed text.

A request body is at most :data:`MAX_BODY` bytes; a JSON document (a body, a game file or a
line of an arena log) is nested at most :data:`MAX_DEPTH` levels deep (a game record needs
four); a path a client names is at most :data:`MAX_PATH` characters. Text a client sent is
echoed in an error message only up to :data:`ECHO` characters (:func:`shown`).

A live game's built-in search players think at most :data:`SEARCH_BUDGETS` per move (checked
by :func:`over_budget` before a game is dealt or resumed): a request cannot make a bot think
for minutes.
"""

from __future__ import annotations

import re
from typing import Any

from agents import gamelog

MAX_BODY = 1 << 20
# the name a live game is saved under (in the save folder: no folders)
SAVE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
MAX_DEPTH = gamelog.MAX_DEPTH
MAX_PATH = 4096
ECHO = 120

# The most a built-in search player of a live game may spend on one move, by registry name:
# mcts simulations and milliseconds (agents/mcts.py: each one given must be within its limit),
# mc rollouts per candidate and candidates (agents/search.py). About two seconds a move on one
# core at most; the defaults (64 simulations; 4 rollouts of 6 candidates) are well within.
SEARCH_BUDGETS: dict[str, dict[str, int]] = {
    "mcts": {"sims": 2000, "ms": 2000},
    "mc": {"rollouts": 16, "cands": 8},
}

# JSON nested at most MAX_DEPTH levels: the same bound for request bodies and for the logs and
# game files the viewer reads (agents.gamelog reads those)
TooDeep = gamelog.TooDeep
depth = gamelog.depth
loads = gamelog.loads


def shown(text: Any, limit: int = ECHO) -> str:
    """``repr(text)``, cut to about ``limit`` characters (a long value is never echoed whole)."""
    r = repr(text)
    if len(r) <= limit:
        return r
    return f"{r[:limit]}... ({len(r)} characters)"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def over_budget(name: str, agent: Any) -> str | None:
    """What ``agent``, a built-in search player of registry ``name``, would spend on a move
    beyond :data:`SEARCH_BUDGETS` (``"ms=600000"``), or ``None`` when it is within them. The
    agent's own settings are read, so a budget given by any name or position counts."""
    caps = SEARCH_BUDGETS.get(name, {})
    over = [
        f"{key}={_number(value)}"
        for key, cap in caps.items()
        if (value := getattr(agent, key, None)) is not None and not value <= cap
    ]
    return ", ".join(over) or None
