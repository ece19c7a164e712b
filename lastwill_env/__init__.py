"""Last Will for reinforcement learning: the rules engine (`lastwill_env.engine`) and, over it,
the PettingZoo environment.

The engine is standard library only: with no third-party package installed, the package and
the engine import and play. The environment names are loaded on first access (module
`__getattr__`):

- `env`, `raw_env`: the PettingZoo AEC env (`lastwill_env.env`, whose docstring is the env card);
- `SingleSeatEnv`: one learning seat against injected opponents (gymnasium);
- `describe`, `encode_observation`, `action_mask`, `OBS_SIZE`, `OBS_PIECES`: the encoding;
- `ACTION_TABLE_HASH`: sha256 of the printed action table plus the observation layout; store it
  with `ENV_NAME` in every checkpoint and refuse to load a mismatch.

Registration follows the libraries' own documented forms, with no import hook: importing this
package registers `LastWill-v1` with gymnasium where gymnasium is installed, so
`gymnasium.make("lastwill_env:LastWill-v1", num_players=2)` (gymnasium's `module:EnvId` form,
which imports this package) and `gymnasium.register_envs(lastwill_env)` work in any import
order. PettingZoo has no such form: importing the env module registers `lastwill_v1`
(`import lastwill_env.env`, then `pettingzoo.make("aec", "lastwill_v1")`), and so does importing
this package after PettingZoo. `register()` and `register_gymnasium()` do it by hand.

`__version__` is the lab's version (`gamecore.__version__`, the `lastwill-lab` package's);
`ENV_VERSION` is the environment's, bumped when recorded games and trained policies stop
matching.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from gamecore import __version__  # noqa: F401 - the lab's version, one home: gamecore

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

    if not any(
        spec.name == "lastwill" and spec.version == ENV_VERSION for spec in aec_registry.values()
    ):
        _register("aec", ENV_NAME, entry_point="lastwill_env.env:env")


def register_gymnasium() -> None:
    """Register `LastWill-v1` (entry point `lastwill_env.single_seat:SingleSeatEnv`,
    `illegal_action="penalize"` unless given) in gymnasium's registry; `gymnasium.make` passes
    its keyword arguments to `SingleSeatEnv`. Idempotent; imports gymnasium."""
    from gymnasium.envs.registration import register as _register
    from gymnasium.envs.registration import registry

    if GYM_ID not in registry:
        # penalize by default, so `check_env(gymnasium.make("LastWill-v1").unwrapped)` passes
        # as constructed; SingleSeatEnv itself and the PettingZoo env keep "raise"
        _register(
            id=GYM_ID,
            entry_point="lastwill_env.single_seat:SingleSeatEnv",
            kwargs={"illegal_action": "penalize"},
        )


def _register_on_import() -> None:
    """Register `LastWill-v1` with gymnasium where gymnasium is installed, so that
    `gymnasium.make("lastwill_env:LastWill-v1")` and `gymnasium.register_envs(lastwill_env)`
    work in any import order; and `lastwill_v1` with PettingZoo where it is already imported.
    A missing or broken library never breaks importing the engine."""
    import importlib.util

    if "gymnasium" in sys.modules or importlib.util.find_spec("gymnasium") is not None:
        with contextlib.suppress(Exception):
            register_gymnasium()
    if "pettingzoo" in sys.modules:
        with contextlib.suppress(Exception):
            register()


_register_on_import()
