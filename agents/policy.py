"""The policy agent: plays a trained MaskablePPO checkpoint (`ppo:PATH` in the registry).

A checkpoint is the SB3 file `NAME.zip` with a JSON sidecar `NAME.json` (env name and version,
action-table hash, observation size, training configuration, seed, step) and, written beside
them by the trainer, `NAME.npz`: the policy network's weights as plain arrays. The agent plays
from the `.npz` with a small numpy forward pass (fast at batch size 1, no torch needed); given a
`.zip` without its `.npz`, it loads the model with sb3-contrib (importing torch only then) and
converts it. Actions are always masked to the legal set: deterministic (arg-max) by default, or
sampled (`ppo:PATH:sample`).

Loading a checkpoint made for another env version, action table or observation layout fails
with `CheckpointMismatchError`, which says what differs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from lastwill_env.encoding import OBS_SIZE, encode_observation
from lastwill_env.engine import NUM_ACTIONS, PlayerView

from .base import BaseAgent


class CheckpointError(ValueError):
    """A checkpoint that cannot be read."""


class CheckpointMismatchError(CheckpointError):
    """A checkpoint made for another env version, action table or observation layout."""


def env_signature() -> dict[str, Any]:
    """What a checkpoint must match to be played by this version of the lab."""
    import lastwill_env

    return {
        "env_name": lastwill_env.ENV_NAME,
        "env_version": lastwill_env.ENV_VERSION,
        "action_table_hash": lastwill_env.ACTION_TABLE_HASH,
        "num_actions": NUM_ACTIONS,
        "obs_size": OBS_SIZE,
    }


def sidecar_path(path: str | Path) -> Path:
    return Path(path).with_suffix(".json")


def read_sidecar(path: str | Path) -> dict[str, Any]:
    side = sidecar_path(path)
    try:
        return json.loads(side.read_text())
    except FileNotFoundError:
        raise CheckpointError(
            f"checkpoint {path} has no sidecar {side.name} (env version, action-table hash); "
            f"checkpoints are written by `lastwill train`"
        ) from None
    except (OSError, json.JSONDecodeError) as e:
        raise CheckpointError(f"cannot read checkpoint sidecar {side}: {e}") from e


def check_compatible(meta: dict[str, Any], where: str) -> None:
    """Raise CheckpointMismatchError naming every field that differs from this lab."""
    want = env_signature()
    diffs = [
        f"{k}: checkpoint has {meta.get(k)!r}, this lab has {v!r}"
        for k, v in want.items()
        if meta.get(k) != v
    ]
    if diffs:
        raise CheckpointMismatchError(
            f"checkpoint {where} was made for another environment; "
            + "; ".join(diffs)
            + ". Retrain with this version (lastwill train) or use the matching lab version."
        )


class NumpyPolicy:
    """The actor of an SB3 MlpPolicy as numpy arrays: hidden layers then the action layer."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str):
        if activation not in ("tanh", "relu"):
            raise CheckpointError(f"unsupported activation {activation!r}; known: tanh, relu")
        if len(weights) != len(biases) or not weights:
            raise CheckpointError("policy weights and biases do not match")
        if weights[0].shape[1] != OBS_SIZE or weights[-1].shape[0] != NUM_ACTIONS:
            raise CheckpointMismatchError(
                f"policy maps {weights[0].shape[1]} inputs to {weights[-1].shape[0]} actions; "
                f"this lab has {OBS_SIZE} observation entries and {NUM_ACTIONS} actions"
            )
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation

    @classmethod
    def from_sb3(cls, model: Any) -> NumpyPolicy:
        import torch.nn as nn

        policy = model.policy
        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        layers.append(policy.action_net)
        act = policy.activation_fn
        name = {nn.Tanh: "tanh", nn.ReLU: "relu"}.get(act, getattr(act, "__name__", str(act)))
        return cls(
            [m.weight.detach().cpu().numpy() for m in layers],
            [m.bias.detach().cpu().numpy() for m in layers],
            name,
        )

    def state(self) -> dict[str, Any]:
        """Picklable weights (to ship to env workers)."""
        return {"weights": self.weights, "biases": self.biases, "activation": self.activation}

    @classmethod
    def from_state(cls, st: dict[str, Any]) -> NumpyPolicy:
        return cls(st["weights"], st["biases"], st["activation"])

    def save_npz(self, path: str | Path) -> None:
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        path = Path(path)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez(tmp, activation=np.array(self.activation), **arrays)
        tmp.replace(path)

    @classmethod
    def load_npz(cls, path: str | Path) -> NumpyPolicy:
        try:
            with np.load(path, allow_pickle=False) as z:
                k = sum(1 for name in z.files if name.startswith("w"))
                return cls(
                    [z[f"w{i}"] for i in range(k)],
                    [z[f"b{i}"] for i in range(k)],
                    str(z["activation"]),
                )
        except (OSError, KeyError, ValueError) as e:
            if isinstance(e, CheckpointError):
                raise
            raise CheckpointError(f"cannot read policy weights {path}: {e}") from e

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs
        last = len(self.weights) - 1
        act = np.tanh if self.activation == "tanh" else (lambda v: np.maximum(v, 0.0))
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = w @ x + b
            if i < last:
                x = act(x)
        return x

    def logits_batch(self, obs: np.ndarray) -> np.ndarray:
        """Logits of a batch of observations, shape (B, OBS_SIZE) -> (B, NUM_ACTIONS)."""
        x = obs
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def choose(
        self, obs: np.ndarray, legal: list[int], deterministic: bool = True, rng: Any = None
    ) -> int:
        z = self.logits(obs)[legal]
        if deterministic or len(legal) == 1:
            return legal[int(np.argmax(z))]
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        u = rng.random() if rng is not None else np.random.random()
        return legal[min(int(np.searchsorted(np.cumsum(p), u, side="right")), len(legal) - 1)]


_CACHE: dict[tuple[str, float, bool], tuple[NumpyPolicy, dict[str, Any]]] = {}


def load_policy(path: str | Path, check: bool = True) -> tuple[NumpyPolicy, dict[str, Any]]:
    """Load a checkpoint (`.zip` or `.npz`, with its `.json` sidecar) as a NumpyPolicy.
    Cached per process by path and modification time (the arena builds agents per game)."""
    path = Path(path)
    try:
        key = (str(path.resolve()), path.stat().st_mtime, check)
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    out = _load_policy(path, check)
    if key is not None:
        _CACHE[key] = out
    return out


def _load_policy(path: Path, check: bool) -> tuple[NumpyPolicy, dict[str, Any]]:
    if not path.exists():
        raise CheckpointError(
            f"checkpoint {path} does not exist (expected a .zip or .npz written by "
            f"`lastwill train`, e.g. agents/policies/reference.npz)"
        )
    if path.suffix not in (".zip", ".npz"):
        raise CheckpointError(f"checkpoint {path} must be a .zip or .npz file")
    meta = read_sidecar(path)
    if check:
        check_compatible(meta, str(path))
    npz = path.with_suffix(".npz")
    if npz.exists():
        return NumpyPolicy.load_npz(npz), meta
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - a core dependency
        raise CheckpointError(f"reading {path} needs sb3-contrib: {e}") from e
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as e:  # noqa: BLE001 - any unreadable file is reported the same way
        raise CheckpointError(f"cannot load checkpoint {path}: {e}") from e
    return NumpyPolicy.from_sb3(model), meta


class PolicyAgent(BaseAgent):
    """Plays a trained checkpoint with masks; `mode` is `det` (arg-max) or `sample`."""

    name = "ppo"

    def __init__(self, path: str, mode: str = "det", seed: int | None = None) -> None:
        super().__init__(seed)
        if mode not in ("det", "sample"):
            raise ValueError(f"mode {mode!r} is not allowed; choose det or sample")
        self.path = path
        self.deterministic = mode == "det"
        self.policy, self.meta = load_policy(path)
        self._obs = np.zeros(OBS_SIZE, dtype=np.float32)

    def act(self, view: PlayerView, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        obs = encode_observation(view, self._obs)
        return self.policy.choose(obs, legal, self.deterministic, self.rng)
