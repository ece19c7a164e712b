"""What this process may run because the user named it: the trust grants of docs/TRUST.md.

Two kinds of names run code when they are used, and so are refused unless granted here:

- an import target ``module.path:Class`` of a player spec (importing a module runs it);
- a ``.zip`` checkpoint of a ``ppo:PATH`` spec without its ``.npz`` (an SB3 file is a pickle,
  and unpickling runs code).

A grant lasts while its :func:`granted` block runs (nested blocks add up). The command line
grants exactly the targets and files of the specs the user typed; the Python API grants the
specs of a call that passes ``trusted=True``; worker processes and Ray tasks receive the grants
of their parent (``agents.registry.WorkerSetup``) and keep them for their lifetime
(:func:`grant`). Nothing a request, a saved game, a log or a sidecar names is ever granted, so
those never import a module and never unpickle a file. The names registered with the registry
(built-ins, ``register()``, installed entry points) need no grant.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_IMPORTS: Counter[str] = Counter()  # "module.path:attr" targets the user named
_PICKLES: Counter[str] = Counter()  # real paths of .zip checkpoints the user named


def pickle_key(path: str | os.PathLike) -> str:
    """The name a checkpoint file is granted under: its real absolute path."""
    return os.path.realpath(os.fspath(path))


def grant(imports: Iterable[str] = (), pickles: Iterable[str] = ()) -> None:
    """Grant import targets and checkpoint files for the rest of this process's life (a
    worker that received its parent's grants)."""
    with _LOCK:
        _IMPORTS.update(imports)
        _PICKLES.update(pickle_key(p) for p in pickles)


@contextmanager
def granted(imports: Iterable[str] = (), pickles: Iterable[str] = ()) -> Iterator[None]:
    """Grant import targets and checkpoint files while the block runs."""
    imports = list(imports)
    pickles = [pickle_key(p) for p in pickles]
    with _LOCK:
        _IMPORTS.update(imports)
        _PICKLES.update(pickles)
    try:
        yield
    finally:
        with _LOCK:
            _IMPORTS.subtract(imports)
            _PICKLES.subtract(pickles)
            for counter in (_IMPORTS, _PICKLES):
                for key in [k for k, v in counter.items() if v <= 0]:
                    del counter[key]


def allows_import(target: str) -> bool:
    """Whether the import target ``module.path:attr`` is granted now."""
    with _LOCK:
        return _IMPORTS[target] > 0


def allows_pickle(path: str | os.PathLike) -> bool:
    """Whether the checkpoint file ``path`` may be unpickled now."""
    key = pickle_key(path)
    with _LOCK:
        return _PICKLES[key] > 0


def current() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(import targets, checkpoint files)`` granted now (what a worker is sent)."""
    with _LOCK:
        return tuple(k for k, v in _IMPORTS.items() if v > 0), tuple(
            k for k, v in _PICKLES.items() if v > 0
        )
