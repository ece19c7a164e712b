"""The house rule: no function over 100 lines, counted from its ``def`` line to its last line
(decorators not counted; a method or a nested function is a function too).

A static AST scan of every ``.py`` file in the repository except those under ``tests/``,
hidden folders (``.git``, ``.venv``...), ``build/`` and ``runs/``. A function over the limit
fails the test, named by file, line and qualified name, unless :data:`ALLOWED` lists it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from paths import REPO

REPO_ROOT = REPO

MAX_LINES = 100

# Folders never scanned (matched against each part of a path relative to the repository).
EXCLUDED_DIRS = ("tests", "build", "runs")

# Functions still over the limit, as "path::qualified.name". The set only shrinks: a function
# leaves it when it is split, and nothing is added to it. Empty: every function keeps to it.
ALLOWED: frozenset[str] = frozenset()


def _scanned_files() -> Iterator[Path]:
    for path in sorted(REPO_ROOT.rglob("*.py")):
        parts = path.relative_to(REPO_ROOT).parts[:-1]
        if any(p.startswith(".") or p in EXCLUDED_DIRS for p in parts):
            continue
        yield path


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """Every function of ``tree`` with its qualified name (``Class.method``,
    ``outer.inner``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + node.name
            yield name, node
            yield from _functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")
        else:
            yield from _functions(node, prefix)


def _lengths() -> dict[str, tuple[int, int]]:
    """``path::qualified.name`` -> (its ``def`` line, its length in lines) for every function
    of the scanned files."""
    out: dict[str, tuple[int, int]] = {}
    for path in _scanned_files():
        rel = path.relative_to(REPO_ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for name, node in _functions(tree):
            length = node.end_lineno - node.lineno + 1
            key = f"{rel}::{name}"
            # a name defined twice (e.g. under if/else): keep the longer
            if key not in out or length > out[key][1]:
                out[key] = (node.lineno, length)
    return out


def test_no_function_over_the_limit():
    lengths = _lengths()
    assert lengths, "the scan found no function: is REPO_ROOT right?"
    too_long = [
        f"{key.split('::')[0]}:{line} {key.split('::')[1]} is {length} lines"
        for key, (line, length) in sorted(lengths.items())
        if length > MAX_LINES and key not in ALLOWED
    ]
    assert not too_long, (
        f"functions over {MAX_LINES} lines (from `def` to the last line); split them into "
        "well-named helpers:\n  " + "\n  ".join(too_long)
    )


def test_every_allowance_is_still_needed():
    """An allowance that names no function, or one now under the limit, is removed, so the
    function cannot grow back unnoticed."""
    lengths = _lengths()
    stale = [
        f"{key} ({'not found' if key not in lengths else f'{lengths[key][1]} lines'})"
        for key in sorted(ALLOWED)
        if key not in lengths or lengths[key][1] <= MAX_LINES
    ]
    assert not stale, (
        "remove from ALLOWED in tests/tools/test_function_length.py (no longer over the limit):\n  "
        + "\n  ".join(stale)
    )
