"""Last Will for reinforcement learning: the rules engine (`lastwill_env.engine`) and, over it,
the PettingZoo environment.

Importing this package stays light (standard library only; the engine works without numpy).
The environment names are loaded on first access (module `__getattr__`):

- `env`, `raw_env`: the PettingZoo AEC env (`lastwill_env.env`, whose docstring is the env card);
- `SingleSeatEnv`: one learning seat against injected opponents (gymnasium);
- `describe`, `encode_observation`, `action_mask`, `OBS_SIZE`, `OBS_PIECES`: the encoding;
- `ACTION_TABLE_HASH`: sha256 of the printed action table plus the observation layout; store it
  with `ENV_NAME` in every checkpoint and refuse to load a mismatch.

Registration with PettingZoo's registry (`pettingzoo.make("aec", "lastwill_v1", ...)`) and
gymnasium's (`gymnasium.make("LastWill-v1", num_players=2, opponents=[...])`, the single-seat
env with `SingleSeatEnv`'s parameters) happens without importing either here: one already
imported is registered now, otherwise a small import hook registers the moment it is imported.

`__version__` is the lab's version (the `lastwill-lab` package's, which pyproject.toml reads
from here); `ENV_VERSION` is the environment's, bumped when recorded games and trained policies
stop matching.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

__version__ = "0.2.0"  # the lab's version, one home: pyproject.toml reads it from here
ENV_NAME = "lastwill_v1"
ENV_VERSION = 1
GYM_ID = "LastWill-v1"  # gymnasium id of the single-seat env

_LAZY: dict[str, tuple[str, str | None]] = {
    # the submodule itself: it is callable (`env(**kwargs)` is the wrapped-env factory)
    "env": ("lastwill_env.env", None),
    "raw_env": ("lastwill_env.env", "raw_env"),
    "describe_action": ("lastwill_env.engine.actions", "describe_action"),
    "SingleSeatEnv": ("lastwill_env.single_seat", "SingleSeatEnv"),
    "describe": ("lastwill_env.encoding", "describe"),
    "encode_observation": ("lastwill_env.encoding", "encode_observation"),
    "action_mask": ("lastwill_env.encoding", "action_mask"),
    "OBS_SIZE": ("lastwill_env.encoding", "OBS_SIZE"),
    "OBS_PIECES": ("lastwill_env.encoding", "OBS_PIECES"),
}

__all__ = [
    "ENV_NAME",
    "ENV_VERSION",
    "GYM_ID",
    "ACTION_TABLE_HASH",
    "register",
    "register_gymnasium",
    *_LAZY,
]


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
        raise AttributeError(f"module 'lastwill_env' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def register() -> None:
    """Register `lastwill_v1` (entry point `lastwill_env.env:env`) in PettingZoo's AEC
    registry. Idempotent; imports PettingZoo."""
    from pettingzoo.env_registry.registration import aec_registry
    from pettingzoo.env_registry.registration import register as _register

    if not any(spec.name == "lastwill" and spec.version == 0 for spec in aec_registry.values()):
        _register("aec", ENV_NAME, entry_point="lastwill_env.env:env")


def register_gymnasium() -> None:
    """Register `LastWill-v1` (entry point `lastwill_env.single_seat:SingleSeatEnv`) in
    gymnasium's registry; `gymnasium.make` passes its keyword arguments to `SingleSeatEnv`.
    Idempotent; imports gymnasium."""
    from gymnasium.envs.registration import register as _register
    from gymnasium.envs.registration import registry

    if GYM_ID not in registry:
        _register(id=GYM_ID, entry_point="lastwill_env.single_seat:SingleSeatEnv")


class _RegisterOnImport:
    """A meta-path finder that runs `pending[name]()` right after the module `name` finishes
    importing (once per name), and leaves `sys.meta_path` when none is pending."""

    def __init__(self, pending: dict[str, Any]) -> None:
        self.pending = pending

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        import importlib.util

        if fullname not in self.pending:
            return None
        registrar = self.pending.pop(fullname)
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # this finder no longer answers for it
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module):  # type: ignore[no-untyped-def]
            original(module)
            with contextlib.suppress(Exception):  # a broken registry must not break the import
                registrar()

        loader.exec_module = exec_module
        return spec


def _install_registration_hooks() -> None:
    pending: dict[str, Any] = {}
    for name, registrar in (("pettingzoo", register), ("gymnasium", register_gymnasium)):
        if name in sys.modules:
            # a broken PettingZoo or gymnasium must not break importing the engine
            with contextlib.suppress(Exception):
                registrar()
        else:
            pending[name] = registrar
    if pending:
        sys.meta_path.insert(0, _RegisterOnImport(pending))


_install_registration_hooks()
