"""The lab's scripts outside its packages (`benchmarks/`, `docs/`) loaded as modules, for tests."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from paths import REPO

ROOT = REPO


def load_script(relative: str) -> ModuleType:
    """The script at `relative` (to the repository root) as a module of its own name."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
