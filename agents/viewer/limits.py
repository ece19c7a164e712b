"""The bounds on what the viewer reads: request bodies, JSON nesting, paths and echoed text.

A request body is at most :data:`MAX_BODY` bytes; a JSON document (a body, a game file or a
line of an arena log) is nested at most :data:`MAX_DEPTH` levels deep (a game record needs
four); a path a client names is at most :data:`MAX_PATH` characters. Text a client sent is
echoed in an error message only up to :data:`ECHO` characters (:func:`shown`).
"""

from __future__ import annotations

from typing import Any

from .. import gamelog

MAX_BODY = 1 << 20
MAX_DEPTH = gamelog.MAX_DEPTH
MAX_PATH = 4096
ECHO = 120

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
