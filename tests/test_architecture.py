"""Enforce the import arrows of ``docs/DESIGN.md`` ("Layers, and which way the arrows point").

A static AST scan of every ``.py`` file in the repository (tests, hidden folders, virtual
environments and build output excluded). Rules:

1. ``lastwill_env/engine/**`` imports only the standard library and ``lastwill_env.engine``.
2. ``lastwill_env/**`` never imports ``agents`` or ``training``.
3. ``agents/**`` never imports ``training``.
4. Nothing imports ``training`` except ``training`` itself (tests are not scanned).
5. Only ``agents/policy*.py`` and ``training/**`` import torch / stable_baselines3 /
   sb3_contrib at import time. Elsewhere they must be imported lazily (inside a function) or
   only under ``if TYPE_CHECKING:``.

Rules 1-4 count every import, lazy ones included: a lazy import is still a dependency.
Dynamic imports (``importlib.import_module("...")``) are not seen by this scan.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# Folders never scanned (matched against each path part).
EXCLUDED_DIR_PATTERNS = (
    ".*",  # .git, .venv, .ci, caches
    "venv*",
    "tests",
    "build",
    "dist",
    "runs",
    "__pycache__",
    "*.egg-info",
    "node_modules",
)

HEAVY_PACKAGES = frozenset({"torch", "stable_baselines3", "sb3_contrib"})

# (module, rule) pairs accepted on purpose. Each entry needs a reason in the comment beside it.
ALLOWED_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset(
    {
        # the training-speed benchmark measures the trainers themselves
        ("benchmarks.train_speed", "nobody-imports-training"),
    }
)

STDLIB = frozenset(sys.stdlib_module_names)


def _is_within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _is_type_checking_test(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "TYPE_CHECKING") or (
        isinstance(node, ast.Attribute) and node.attr == "TYPE_CHECKING"
    )


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """Absolute name of the module a ``from ... import`` statement reads from."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    drop = node.level - 1
    if drop > len(package) or (drop == len(package) and not node.module):
        raise ValueError(f"{module}: relative import beyond the top-level package")
    base = package[: len(package) - drop]
    return ".".join(base + ([node.module] if node.module else []))


def iter_imports(
    tree: ast.Module, module: str, is_package: bool
) -> Iterator[tuple[int, str, bool]]:
    """Yield ``(line, imported name, runs at import time)`` for every import in ``tree``.

    ``from x import a`` yields ``x.a`` (``a`` may be a submodule or an attribute; both are
    inside ``x`` for the purpose of these rules); ``from x import *`` yields ``x``.
    """

    def walk(nodes: list[ast.stmt] | list[ast.AST], import_time: bool) -> Iterator:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield node.lineno, alias.name, import_time
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(node, module, is_package)
                for alias in node.names:
                    name = source if alias.name == "*" else f"{source}.{alias.name}"
                    yield node.lineno, name, import_time
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(list(ast.iter_child_nodes(node)), False)
            elif isinstance(node, ast.If) and _is_type_checking_test(node.test):
                yield from walk(node.body, False)
                yield from walk(node.orelse, import_time)
            else:
                # Class bodies, try/with/if blocks at module level run at import time.
                yield from walk(list(ast.iter_child_nodes(node)), import_time)

    yield from walk(tree.body, True)


def check_source(module: str, source: str, is_package: bool = False) -> list[str]:
    """Return one message per import-arrow violation in ``source`` (module ``module``)."""
    tree = ast.parse(source, filename=module)
    problems: list[str] = []

    def report(line: int, rule: str, text: str) -> None:
        if (module, rule) not in ALLOWED_EXCEPTIONS:
            problems.append(f"{module}:{line}: [{rule}] {text}")

    parts = module.split(".")
    in_training = _is_within(module, "training")
    # training code, the policy loaders, and the single-file training example (a script that is
    # torch from its first line, as CleanRL's are) may import torch at import time
    heavy_allowed = (
        in_training
        or (len(parts) == 2 and parts[0] == "agents" and fnmatch(parts[1], "policy*"))
        or module == "examples.cleanrl_ppo"
    )
    for line, name, import_time in iter_imports(tree, module, is_package):
        top = name.split(".")[0]
        if _is_within(module, "lastwill_env.engine") and not (
            top in STDLIB or _is_within(name, "lastwill_env.engine")
        ):
            report(
                line,
                "engine-stdlib-only",
                f"imports {name!r}; the engine may import only the standard library "
                "and lastwill_env.engine",
            )
        if _is_within(module, "lastwill_env") and top in {"agents", "training"}:
            report(line, "env-no-upward", f"imports {name!r}; lastwill_env never imports {top}")
        if _is_within(module, "agents") and top == "training":
            report(line, "agents-no-training", f"imports {name!r}; agents never imports training")
        elif top == "training" and not in_training:
            report(line, "nobody-imports-training", f"imports {name!r}; nothing imports training")
        if top in HEAVY_PACKAGES and import_time and not heavy_allowed:
            report(
                line,
                "heavy-lazy",
                f"imports {top!r} at import time; outside agents/policy*.py, training/ and "
                "examples/cleanrl_ppo.py "
                "import it inside a function (or under TYPE_CHECKING)",
            )
    return problems


def _excluded(path: Path) -> bool:
    return any(
        fnmatch(part, pattern) for part in path.parts[:-1] for pattern in EXCLUDED_DIR_PATTERNS
    )


def repo_modules(root: Path = REPO_ROOT) -> Iterator[tuple[str, Path, bool]]:
    """Yield ``(module name, path, is package __init__)`` for each scanned file."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if _excluded(rel):
            continue
        is_package = rel.name == "__init__.py"
        parts = list(rel.parent.parts) if is_package else [*rel.parent.parts, rel.stem]
        if parts:
            yield ".".join(parts), path, is_package


# --- the real tree -----------------------------------------------------------------------


def test_repository_follows_import_arrows() -> None:
    scanned = list(repo_modules())
    assert scanned, f"no Python files found under {REPO_ROOT}"
    problems = [
        problem
        for module, path, is_package in scanned
        for problem in check_source(module, path.read_text(encoding="utf-8"), is_package)
    ]
    assert not problems, "import arrows broken (see docs/DESIGN.md):\n" + "\n".join(problems)


# --- the checker itself can fail --------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "source", "rule"),
    [
        ("lastwill_env.engine.state", "import numpy as np\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "from lastwill_env import env\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "from ..env import raw_env\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "def f():\n    import gymnasium\n", "engine-stdlib-only"),
        ("lastwill_env.env", "from agents.bots import RandomBot\n", "env-no-upward"),
        ("lastwill_env.encoding", "import training.selfplay\n", "env-no-upward"),
        ("agents.arena", "from training import pool\n", "agents-no-training"),
        ("agents.arena", "def f():\n    import training\n", "agents-no-training"),
        ("benchmarks.bench_env", "import training\n", "nobody-imports-training"),
        ("agents.arena", "import torch\n", "heavy-lazy"),
        (
            "lastwill_env.env",
            "try:\n    import sb3_contrib\nexcept ImportError:\n    pass\n",
            "heavy-lazy",
        ),
        ("agents.bots", "class A:\n    from stable_baselines3 import PPO\n", "heavy-lazy"),
        ("agents.policies.net", "import torch.nn\n", "heavy-lazy"),
    ],
)
def test_checker_reports_violation(module: str, source: str, rule: str) -> None:
    problems = check_source(module, source)
    assert any(f"[{rule}]" in p for p in problems), problems


@pytest.mark.parametrize(
    ("module", "source", "is_package"),
    [
        (
            "lastwill_env.engine.state",
            "import random, json\nfrom dataclasses import field\n",
            False,
        ),
        ("lastwill_env.engine.state", "from __future__ import annotations\n", False),
        ("lastwill_env.engine.actions", "from .state import GameState\n", False),
        ("lastwill_env.engine", "from . import state\nfrom .state import GameState\n", True),
        ("lastwill_env.engine.rules", "from lastwill_env.engine.cards import Card\n", False),
        ("lastwill_env.env", "import numpy\nfrom lastwill_env.engine import new_game\n", False),
        ("agents.arena", "from lastwill_env.engine import player_view\n", False),
        ("agents.policy", "import torch\nfrom sb3_contrib import MaskablePPO\n", False),
        ("agents.policy_agent", "import torch\n", False),
        ("agents.arena", "def load():\n    import torch\n    return torch\n", False),
        (
            "agents.arena",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n",
            False,
        ),
        (
            "training.selfplay",
            "import torch\nfrom agents.policy import PolicyAgent\nfrom training.pool import Pool\n",
            False,
        ),
        ("training", "from .selfplay import train\n", True),
    ],
)
def test_checker_accepts_allowed(module: str, source: str, is_package: bool) -> None:
    assert check_source(module, source, is_package) == []


def test_relative_import_beyond_top_level_is_an_error() -> None:
    with pytest.raises(ValueError, match="beyond the top-level"):
        check_source("agents.arena", "from ... import x\n")


def test_scan_maps_paths_to_modules_and_skips_excluded(tmp_path: Path) -> None:
    engine = tmp_path / "lastwill_env" / "engine"
    engine.mkdir(parents=True)
    (engine / "__init__.py").write_text("from .state import GameState\n")
    (engine / "state.py").write_text("import numpy\n")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "x.py").write_text("import training\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("import training\n")

    found = {module: is_package for module, _, is_package in repo_modules(tmp_path)}
    assert found == {"lastwill_env.engine": True, "lastwill_env.engine.state": False}
    problems = [
        p
        for module, path, is_package in repo_modules(tmp_path)
        for p in check_source(module, path.read_text(), is_package)
    ]
    assert problems == [
        "lastwill_env.engine.state:1: [engine-stdlib-only] imports 'numpy'; the engine may "
        "import only the standard library and lastwill_env.engine"
    ]
