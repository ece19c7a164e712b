"""The bounds on what the viewer reads: request bodies, JSON nesting, paths and echoed text.

A request body is at most :data:`MAX_BODY` bytes; a JSON document (a body, a game file or a
line of an arena log) is nested at most :data:`MAX_DEPTH` levels deep (a game record needs
four); a path a client names is at most :data:`MAX_PATH` characters. Text a client sent is
echoed in an error message only up to :data:`ECHO` characters (:func:`shown`).
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY = 1 << 20
MAX_DEPTH = 64
MAX_PATH = 4096
ECHO = 120


def shown(text: Any, limit: int = ECHO) -> str:
    """``repr(text)``, cut to about ``limit`` characters (a long value is never echoed whole)."""
    r = repr(text)
    if len(r) <= limit:
        return r
    return f"{r[:limit]}... ({len(r)} characters)"


class TooDeep(ValueError):
    """A JSON document nested deeper than the bound."""


def depth(obj: Any) -> int:
    """How deep ``obj`` nests lists and dicts (a scalar: 0), counted without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((c, level + 1) for c in children)
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH, strict: bool = False) -> Any:
    """``json.loads(text)``, refusing a document nested deeper than ``max_depth``; raises
    ``ValueError`` with ``json``'s own message, or :class:`TooDeep`. With ``strict`` the
    non-standard constants ``NaN`` and ``Infinity`` are refused too."""
    try:
        obj = json.loads(text, parse_constant=_refuse_constant if strict else None)
    except RecursionError:
        raise TooDeep(f"it is nested deeper than {max_depth} levels") from None
    if depth(obj) > max_depth:
        raise TooDeep(f"it is nested deeper than {max_depth} levels")
    return obj


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
