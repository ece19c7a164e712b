"""Money! (Reiner Knizia, Gryphon Games 2009 edition): the lab's second game.

`money_env.engine` is its rules engine, standard library only (docs/games/MONEY.md).
`money_env.lab.MoneyGame` binds it to the lab's seam (`gamecore.Game`, registry name
``money``), `money_env.bots` holds its scripted bots (standard library only) and
`money_env.encoding` its observation encoder (numpy). The package, the engine, the binding and
the bots import with the standard library alone; the names below that need numpy load on first
access (module `__getattr__`):

- `env`, `raw_env`: Money!'s PettingZoo AEC env (`money_env.env`, whose docstring is the env
  card; the binding hands it to the harness, `MoneyGame.aec_env`);
- `encode_observation`, `OBS_SIZE`, `OBS_PIECES`, `obs_layout_text`: the encoding;
- `ACTION_TABLE_HASH`: sha256 of the printed action table plus the observation layout; store it
  with `ENV_NAME` in every checkpoint and refuse to load a mismatch.

`ENV_VERSION` is bumped when recorded games and trained policies stop matching.

Importing the env module registers `money_v0` with PettingZoo (`import money_env.env`, then
`pettingzoo.make("aec", "money_v0")`), and so does importing this package after PettingZoo;
`register()` does it by hand.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

ENV_NAME = "money_v0"
ENV_VERSION = 0

_LAZY: dict[str, tuple[str, str | None]] = {
    # the submodule itself: it is callable (`env(**kwargs)` is the wrapped-env factory)
    "env": ("money_env.env", None),
    "raw_env": ("money_env.env", "raw_env"),
    "encode_observation": ("money_env.encoding", "encode_observation"),
    "OBS_SIZE": ("money_env.encoding", "OBS_SIZE"),
    "OBS_PIECES": ("money_env.encoding", "OBS_PIECES"),
    "obs_layout_text": ("money_env.encoding", "obs_layout_text"),
    "MoneyGame": ("money_env.lab", "MoneyGame"),
}

__all__ = ["ENV_NAME", "ENV_VERSION", "ACTION_TABLE_HASH", "register", *_LAZY]


def _action_table_hash() -> str:
    import hashlib

    from .encoding import obs_layout_text
    from .engine.actions import action_table_text

    text = f"{ENV_NAME}\n{action_table_text()}\n--- observation ---\n{obs_layout_text()}\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def __getattr__(name: str) -> Any:
    if name == "ACTION_TABLE_HASH":
        value = _action_table_hash()
    elif name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
    else:
        raise AttributeError(f"module 'money_env' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def register() -> None:
    """Register `money_v0` (entry point `money_env.env:env`) in PettingZoo's AEC registry.
    Idempotent; imports PettingZoo."""
    from pettingzoo.env_registry.registration import aec_registry
    from pettingzoo.env_registry.registration import register as _register

    name = ENV_NAME.rsplit("_v", 1)[0]
    if not any(spec.name == name and spec.version == ENV_VERSION for spec in aec_registry.values()):
        _register("aec", ENV_NAME, entry_point="money_env.env:env")


def _register_on_import() -> None:
    """Register `money_v0` with PettingZoo where it is already imported; a missing or broken
    PettingZoo never breaks importing the engine."""
    if "pettingzoo" in sys.modules:
        with contextlib.suppress(Exception):
            register()


_register_on_import()
