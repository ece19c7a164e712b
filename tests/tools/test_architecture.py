"""Enforce the import arrows of ``docs/DESIGN.md`` ("Layers, and which way the arrows point").

A static AST scan of every ``.py`` file in the repository (tests, hidden folders, virtual
environments and build output excluded). Rules:

1. A game's engine (``lastwill_env/engine/**``, ``money_env/engine/**``) imports only the
   standard library, itself and gamecore's shared checks; ``gamecore/**`` imports only the
   standard library and itself at import time (numpy inside a function, for the default
   encoders) and nothing of the lab.
2. A game package (``lastwill_env/**``, ``money_env/**``) never imports ``agents``,
   ``training`` or another game. It may import ``gameenv``, the env machinery below the games
   (its own envs are built on it), which never imports a game (rule 8).
3. ``agents/**`` never imports ``training``.
4. Nothing imports ``training`` except ``training`` itself, the applications (``apps``) and
   the tools of rule 10 (tests are not scanned).
5. Only ``agents/policy*.py`` and ``training/**`` import torch / stable_baselines3 /
   sb3_contrib at import time. Elsewhere they must be imported lazily (inside a function) or
   only under ``if TYPE_CHECKING:``.
6. ``agents/`` in three layers (the lists below, one line each): the foundation imports only
   the foundation; the players and bots never import the match harness; the match harness sits
   on top. Every module of ``agents/`` belongs to exactly one layer.
8. The harness (``agents``, ``training``, ``gameenv``) and the applications (``apps``) never
   import a game package: they take a `gamecore.Game`. The modules of ``GAME_SPECIFIC`` (one
   game's applications) are the exceptions, each with its reason.
9. ``apps/**`` is the top layer, the applications: nothing of ``gamecore``, the games,
   ``gameenv``, ``agents`` or ``training`` imports ``apps``.
10. The tools stand beside the applications: the report tools (``labreports/**``) and the
    speed scripts (``benchmarks/**``) may import any layer, ``apps`` included, and nothing of
    the lab (``gamecore``, the games, ``gameenv``, ``agents``, ``training``, ``apps``) imports
    them.
7. No import cycles anywhere in the repository: the module -> module graph of every scanned
   file's imports has no strongly connected component of more than one module. Imports under
   ``if TYPE_CHECKING:`` never run and are left out of this graph (type hints may name a
   class of a module that imports this one).

Rules 1-4, 6, 7, 9 and 10 count every import, lazy ones included: a lazy import is still a
dependency. Dynamic imports (``importlib.import_module("...")``) are not seen by this scan.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from paths import REPO

REPO_ROOT = REPO

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

# The layers of agents/ (rule 6), lowest first; ``*`` matches the modules of a package.
AGENT_LAYERS: dict[str, tuple[str, ...]] = {
    "foundation": (
        "agents",  # the package's docstring
        "agents.base",  # the agent protocol
        "agents.trust",  # what the user named: the grants of docs/TRUST.md
        "agents.safeio",  # writing files safely
        "agents.readfile",  # reading a named file: one ladder of errors
        "agents.residual",  # the prior bonus
        "agents.priors",  # the PriorSource a residual policy is handed
        "agents.deals",  # deal seeds (the harness's deals, the fingerprint games' seats)
    ),
    "players": (
        "agents.search",  # the flat Monte-Carlo player
        "agents.policy",  # the network math and the checkpoint files; the ppo player
        "agents.compat",  # policies of earlier env versions
        "agents.leafeval",  # the network's answers at a search node
        "agents.mcts",  # the search player
        "agents.winchance",  # a value estimate read as a chance of winning
        "agents.behaviour",  # the fingerprint games (handed a builder)
        "agents.registry",  # player specs -> players, the prior bots of policies
        "agents.policyfiles",  # policies by name: the shipped reference, the checkout's
        "agents.fingerprint",  # a spec's fingerprint, built through the registry
        "agents.timelimit",  # outside players under a time limit
    ),
    "harness": (
        "agents.arena",  # seeded tournaments, one log row per game
        "agents.evaluate",  # lastwill eval's tables
        "agents.stats",  # ratings and paired tables
        "agents.gamelog",  # the one reader of game logs
        "agents.workers",  # worker processes of a tournament
        "agents.rowlog",  # append-only row logs
        "agents.scalars",  # a training run's scalars
        "agents.raystart",  # starting Ray for a tournament
    ),
}
# what each layer may not import (rule 6)
LAYER_FORBIDS: dict[str, tuple[str, ...]] = {
    "foundation": ("players", "harness"),
    "players": ("harness",),
    "harness": (),
}

# Import cycles accepted on purpose (rule 7), each a sorted tuple of its modules with a reason.
ALLOWED_CYCLES: frozenset[tuple[str, ...]] = frozenset(set())

# (module, rule) pairs accepted on purpose. Each entry needs a reason in the comment beside it.
ALLOWED_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()

STDLIB = frozenset(sys.stdlib_module_names)

# One package per game (docs/DESIGN.md, "The game seam"): each imports the standard library,
# third-party libraries, gamecore and itself; its engine only the standard library, itself and
# gamecore's shared checks.
GAME_PACKAGES = frozenset({"lastwill_env", "money_env"})
SEAM_BASE_MODULES = ("gamecore.plain", "gamecore.options", "gamecore.seeds", "gamecore.buildcheck")
# The harness and the applications: these packages take a gamecore.Game and import no game
# package (rule 8)
GENERIC_PACKAGES = ("agents", "training", "gameenv", "apps")
# Modules of those packages that are one game's on purpose, each with its reason
GAME_SPECIFIC: dict[str, str] = {
    "apps.play": "terminal play draws Last Will's table",
    "apps.replay": "a logged Last Will game as text, with Last Will's pictures",
    "apps.viewer.*": "the web viewer draws Last Will's table",
}
# The applications, on top (rule 9), and the packages below them, which never import them
APPS = "apps"
BELOW_APPS = ("gamecore", "gameenv", *sorted(GAME_PACKAGES), "agents", "training")
# The tools beside the applications (rule 10): nothing of the lab imports them
TOOLS = ("labreports", "benchmarks")


def _game_of(module: str) -> str | None:
    """The game package ``module`` belongs to, or None."""
    top = module.split(".")[0]
    return top if top in GAME_PACKAGES else None


def _is_generic(module: str) -> bool:
    """A module of the harness (rule 8) that is not listed as one game's."""
    return any(_is_within(module, p) for p in GENERIC_PACKAGES) and not any(
        fnmatch(module, pattern) for pattern in GAME_SPECIFIC
    )


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
    game = _game_of(module)
    for line, name, import_time in iter_imports(tree, module, is_package):
        top = name.split(".")[0]
        if (
            game
            and _is_within(module, f"{game}.engine")
            and not (
                top in STDLIB
                or _is_within(name, f"{game}.engine")
                or any(_is_within(name, m) for m in SEAM_BASE_MODULES)
            )
        ):
            report(
                line,
                "engine-stdlib-only",
                f"imports {name!r}; the engine may import only the standard library, "
                f"{game}.engine and gamecore's checks ({', '.join(SEAM_BASE_MODULES)})",
            )
        lab = top in GAME_PACKAGES or top in GENERIC_PACKAGES
        outside = top not in STDLIB and top != "gamecore"
        if _is_within(module, "gamecore") and (lab or (import_time and outside)):
            report(
                line,
                "gamecore-stdlib-only",
                f"imports {name!r}; gamecore imports the standard library and itself (numpy "
                f"only inside a function, for a default encoder) and nothing of the lab",
            )
        if game and top in {"agents", "training"}:
            report(line, "env-no-upward", f"imports {name!r}; {game} never imports {top}")
        if game and top in GAME_PACKAGES and top != game:
            report(line, "game-alone", f"imports {name!r}; a game never imports another game")
        if top in GAME_PACKAGES and _is_generic(module):
            report(
                line,
                "no-game-in-harness",
                f"imports {name!r}; the harness and the applications take a gamecore.Game "
                f"and never import a game package (or list the module in GAME_SPECIFIC with "
                f"its reason)",
            )
        if _is_within(module, "agents") and top == "training":
            report(line, "agents-no-training", f"imports {name!r}; agents never imports training")
        elif top == "training" and not (
            in_training or any(_is_within(module, p) for p in (APPS, *TOOLS))
        ):
            report(
                line,
                "nobody-imports-training",
                f"imports {name!r}; nothing but the applications (apps) and the tools "
                f"({', '.join(TOOLS)}) imports training",
            )
        if top == APPS and any(_is_within(module, p) for p in BELOW_APPS):
            report(
                line,
                "apps-on-top",
                f"imports {name!r}; apps is the top layer, which {parts[0]} never imports",
            )
        if top in TOOLS and any(_is_within(module, p) for p in (*BELOW_APPS, APPS)):
            report(
                line,
                "tools-on-top",
                f"imports {name!r}; the report tools and speed scripts sit on top, and "
                f"{parts[0]} never imports them",
            )
        if top in HEAVY_PACKAGES and import_time and not heavy_allowed:
            report(
                line,
                "heavy-lazy",
                f"imports {top!r} at import time; outside agents/policy*.py, training/ and "
                "examples/cleanrl_ppo.py "
                "import it inside a function (or under TYPE_CHECKING)",
            )
    return problems


def agent_layer(module: str) -> str | None:
    """The layer of an ``agents`` module (rule 6), ``None`` when no list names it."""
    for layer, patterns in AGENT_LAYERS.items():
        if any(fnmatch(module, pattern) for pattern in patterns):
            return layer
    return None


def check_layers(module: str, source: str, is_package: bool = False) -> list[str]:
    """Rule 6 for one module of ``agents``: one message per import of a forbidden layer."""
    layer = agent_layer(module)
    if layer is None:
        return []
    problems = []
    for line, name, _ in iter_imports(ast.parse(source, filename=module), module, is_package):
        if not _is_within(name, "agents"):
            continue
        # ``from agents.x import y``: y may be an attribute; the module is the longest prefix
        target = next(
            (
                layer_of
                for prefix in _prefixes(name)
                if (layer_of := agent_layer(prefix)) is not None
            ),
            None,
        )
        if target in LAYER_FORBIDS[layer]:
            problems.append(
                f"{module}:{line}: [agents-layers] imports {name!r} ({target}); the {layer} "
                f"layer never imports the {' or '.join(LAYER_FORBIDS[layer])} layer"
            )
    return problems


def _prefixes(name: str) -> Iterator[str]:
    """``a.b.c``, ``a.b``, ``a``: the longest first."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        yield ".".join(parts[:k])


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the scanned modules it imports (lazy imports included), from ``{module:
    (source, is_package)}``. ``from x import a`` counts as importing ``x.a`` when that is a
    module, else ``x``."""
    graph: dict[str, set[str]] = {m: set() for m in sources}
    for module, (source, is_package) in sources.items():
        tree = _without_type_checking(ast.parse(source, filename=module))
        for _, name, _ in iter_imports(tree, module, is_package):
            target = next((p for p in _prefixes(name) if p in sources), None)
            if target is not None and target != module:
                graph[module].add(target)
    return graph


class _DropTypeChecking(ast.NodeTransformer):
    def visit_If(self, node: ast.If) -> Any:
        if _is_type_checking_test(node.test):
            return [self.visit(n) for n in node.orelse]
        return self.generic_visit(node)


def _without_type_checking(tree: ast.Module) -> ast.Module:
    """``tree`` without the bodies of ``if TYPE_CHECKING:`` blocks (imports that never run)."""
    return _DropTypeChecking().visit(tree)


def import_cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative), each sorted; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[tuple[str, ...]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


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


def test_the_applications_are_scanned_and_on_top() -> None:
    """Rule 9 has something to hold: the applications are scanned, and what sits below them
    is every other package of the lab."""
    scanned = {m for m, _, _ in repo_modules()}
    assert {"apps", "apps.cli", "apps.console", "apps.viewer.server"} <= scanned
    lab = {m.split(".")[0] for m in scanned if m.split(".")[0] in (*GENERIC_PACKAGES, "gamecore")}
    assert lab | GAME_PACKAGES == {APPS, *BELOW_APPS}, lab


def test_every_agents_module_has_a_layer_and_keeps_to_it() -> None:
    scanned = [(m, p, pk) for m, p, pk in repo_modules() if _is_within(m, "agents")]
    assert len(scanned) > 20, scanned
    unplaced = [m for m, _, _ in scanned if agent_layer(m) is None]
    assert not unplaced, f"modules of agents/ in no layer (add each to AGENT_LAYERS): {unplaced}"
    problems = [
        problem
        for module, path, is_package in scanned
        for problem in check_layers(module, path.read_text(encoding="utf-8"), is_package)
    ]
    assert not problems, "agents/ layers broken:\n" + "\n".join(problems)


def extension_modules(root: Path = REPO_ROOT) -> Iterator[str]:
    """The compiled modules (a C source next to the package's Python files, such as
    lastwill_env/_cwriter.c): they import no Python module of the repository."""
    for path in sorted(root.rglob("*.c")):
        rel = path.relative_to(root)
        if not _excluded(rel) and (root / rel.parent / "__init__.py").exists():
            yield ".".join([*rel.parent.parts, rel.stem])


def test_no_import_cycles_in_the_repository() -> None:
    sources = {m: (p.read_text(encoding="utf-8"), pk) for m, p, pk in repo_modules()}
    compiled = list(extension_modules())
    assert "lastwill_env._cwriter" in compiled, compiled
    sources.update({m: ("", False) for m in compiled})  # leaves of the graph
    cycles = [c for c in import_cycles(import_graph(sources)) if c not in ALLOWED_CYCLES]
    assert not cycles, "import cycles (lazy imports included):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_state_checks_name_the_rules_nowhere_not_even_for_types() -> None:
    """`engine/validate.py` is handed the rules (`Rules`) and types the state with a protocol
    of its own (docs/DESIGN.md), so it imports `engine/game.py` nowhere, not even under
    ``if TYPE_CHECKING:`` (where rule 7 would let a cycle pass)."""
    module = "lastwill_env.engine.validate"
    source = (REPO_ROOT / "lastwill_env" / "engine" / "validate.py").read_text(encoding="utf-8")
    names = [name for _, name, _ in iter_imports(ast.parse(source), module, False)]
    assert names and not [n for n in names if _is_within(n, "lastwill_env.engine.game")], names


# --- the checker itself can fail --------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "source", "rule"),
    [
        ("lastwill_env.engine.state", "import numpy as np\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "from lastwill_env import env\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "from ..env import raw_env\n", "engine-stdlib-only"),
        ("lastwill_env.engine.state", "def f():\n    import gymnasium\n", "engine-stdlib-only"),
        ("lastwill_env.env", "from agents.base import RandomAgent\n", "env-no-upward"),
        ("lastwill_env.bots.racer", "from agents.search import MCAgent\n", "env-no-upward"),
        ("money_env.lab", "def f():\n    import training\n", "env-no-upward"),
        ("lastwill_env.engine.game", "from money_env.engine import cards\n", "engine-stdlib-only"),
        ("money_env.engine.game", "from gamecore.agent import BaseAgent\n", "engine-stdlib-only"),
        ("money_env.lab", "from lastwill_env.engine import GameState\n", "game-alone"),
        ("gamecore.game", "import numpy\n", "gamecore-stdlib-only"),
        (
            "gamecore.registry",
            "from lastwill_env.lab import LastWillGame\n",
            "gamecore-stdlib-only",
        ),
        ("agents.arena", "from lastwill_env.engine import GameState\n", "no-game-in-harness"),
        ("training.allseat.rollout", "def f():\n    import money_env\n", "no-game-in-harness"),
        ("gameenv.aec", "from lastwill_env import encoding\n", "no-game-in-harness"),
        ("lastwill_env.encoding", "import training.selfplay\n", "env-no-upward"),
        ("agents.arena", "from training import pool\n", "agents-no-training"),
        ("agents.arena", "def f():\n    import training\n", "agents-no-training"),
        ("docs.viewer_screenshot", "import training\n", "nobody-imports-training"),
        ("agents.arena", "import torch\n", "heavy-lazy"),
        (
            "lastwill_env.env",
            "try:\n    import sb3_contrib\nexcept ImportError:\n    pass\n",
            "heavy-lazy",
        ),
        ("lastwill_env.bots", "class A:\n    from stable_baselines3 import PPO\n", "heavy-lazy"),
        ("agents.policies.net", "import torch.nn\n", "heavy-lazy"),
        ("apps.arena_cli", "import torch\n", "heavy-lazy"),
        ("agents.arena", "from apps.viewer.core import ViewError\n", "apps-on-top"),
        ("agents.search", "def f():\n    from apps.cli import app\n", "apps-on-top"),
        ("training.train", "def f():\n    from apps.command import fail\n", "apps-on-top"),
        ("training.expert.loop", "from ...apps import console\n", "apps-on-top"),
        ("gameenv.aec", "import apps\n", "apps-on-top"),
        ("lastwill_env.env", "from apps import play\n", "apps-on-top"),
        ("money_env.engine.game", "import apps.replay\n", "apps-on-top"),
        ("gamecore.registry", "def f():\n    from apps.cli import app\n", "apps-on-top"),
        ("apps.arena_cli", "from labreports.text import pct\n", "tools-on-top"),
        ("agents.stats", "def f():\n    import labreports.paired_logs\n", "tools-on-top"),
        ("training.train", "from benchmarks import train_speed\n", "tools-on-top"),
        ("apps.train_cli", "from money_env.lab import MoneyGame\n", "no-game-in-harness"),
        ("apps.tableplay", "def f():\n    import lastwill_env\n", "no-game-in-harness"),
        ("agents.replay", "from lastwill_env.engine import player_view\n", "no-game-in-harness"),
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
        ("money_env.env", "from gameenv.wrappers import OrderEnforcing\n", False),
        ("lastwill_env.env", "from gameenv import check_players\n", False),
        ("agents.arena", "from gamecore import load_game\n", False),
        ("apps.play", "from lastwill_env.engine import player_view\n", False),
        ("apps.viewer.core", "from lastwill_env.engine import player_view\n", False),
        (
            "apps.train_cli",
            "from training.config import TrainConfig\nfrom agents.arena import Schedule\n"
            "from gamecore import load_game\nfrom gameenv import aec\n",
            False,
        ),
        ("apps.cli", "from .arena_cli import arena\nfrom . import train_cli\n", False),
        ("apps.console", "def main():\n    from apps.cli import app\n", False),
        ("labreports.sure_share", "from apps.replay import iter_steps\n", False),
        ("labreports.plot_budget", "from labreports import results_doc\nimport training\n", False),
        ("benchmarks.arena_speed", "from agents.arena import run_tournament\n", False),
        ("apps.train_cli", "def f():\n    import torch\n", False),
        ("lastwill_env.engine.game", "from gamecore.plain import is_int\n", False),
        ("money_env.lab", "from gamecore import Game\nfrom .engine import new_game\n", False),
        ("gamecore.game", "from .results import terminal_rewards\n", False),
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


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("agents.policy", "from .arena import play_game\n"),  # a player uses the harness
        ("agents.search", "def f():\n    from agents.arena import play_game\n"),  # lazily
        ("agents.trust", "from .stats import wilson\n"),  # the foundation, the harness
        ("agents.base", "from .registry import make_agent\n"),  # the foundation, a player
        ("agents.registry", "from agents import evaluate\n"),
    ],
)
def test_layer_checker_reports_violation(module: str, source: str) -> None:
    problems = check_layers(module, source)
    assert len(problems) == 1 and "[agents-layers]" in problems[0], problems


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("agents.evaluate", "from .arena import run_tournament\nfrom .stats import fit_ratings\n"),
        ("agents.arena", "from .registry import make_agent\nfrom .base import BaseAgent\n"),
        ("agents.policy", "from .priors import PriorSource\nfrom gamecore import Game\n"),
        ("agents.gamelog", "from .base import BaseAgent\nfrom .deals import derive_seed\n"),
    ],
)
def test_layer_checker_accepts_allowed(module: str, source: str) -> None:
    assert check_layers(module, source) == []


def test_every_layer_list_names_distinct_modules() -> None:
    listed = [p for patterns in AGENT_LAYERS.values() for p in patterns]
    assert len(listed) == len(set(listed)), listed
    assert agent_layer("agents.search") == "players"
    assert agent_layer("agents.gamelog") == "harness"
    assert set(AGENT_LAYERS) == {"foundation", "players", "harness"}
    assert agent_layer("agents.viewer.files") is None  # the applications are apps/'s
    assert agent_layer("agents.nosuchmodule") is None


def test_cycle_finder_finds_cycles_lazy_ones_included() -> None:
    sources = {
        "p": ("", True),
        "p.a": ("def f():\n    import p.b\n", False),  # a lazy import
        "p.b": ("from p.c import x\n", False),
        "p.c": ("from .a import y\n", False),
        "p.d": ("from p import a\n", False),  # into the cycle, not part of it
        "p.e": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.f import F\n",
            False,
        ),
        "p.f": ("import p.e\n", False),  # p.e's import of p.f never runs: no cycle
    }
    graph = import_graph(sources)
    assert graph["p.d"] == {"p.a"} and graph["p.e"] == set()
    assert import_cycles(graph) == [("p.a", "p.b", "p.c")]
    assert import_cycles({"x": {"y"}, "y": {"x"}, "z": {"z"}}) == [("x", "y")]
    assert import_cycles({"x": {"y"}, "y": set()}) == []


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
        "import only the standard library, lastwill_env.engine and gamecore's checks "
        "(gamecore.plain, gamecore.options, gamecore.seeds, gamecore.buildcheck)"
    ]
