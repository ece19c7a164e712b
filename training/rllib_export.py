"""The RLlib backend's policies in the lab's checkpoint format.

`numpy_policy_from_state` reads the actor (and, when present, the critic) of a
`MaskedPPOTorchRLModule` state dict (`training.rllib_module`) as the lab's `NumpyPolicy`, the
layout `ppo:PATH` plays; `export_policy` writes the learner's current shared policy as a
checkpoint (`.npz` + `.json` sidecar, one fsynced unit, `training.checkpoint`), and
`export_rllib_checkpoint` exports the policy of an RLlib Algorithm checkpoint directory. A
policy is one game's (`gamecore.Game`): its sizes are checked against the game's, and its sidecar
records the game ("game") with its env name, version, action-table hash and sizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import CheckpointError, NumpyPolicy, save_policy
from gamecore import Game, load_game
from gamecore import __version__ as LAB_VERSION

from . import checkpoint as ckpt_io
from .config import TrainConfig

__all__ = ["MODULE_ID", "export_policy", "export_rllib_checkpoint", "numpy_policy_from_state"]

MODULE_ID = "shared"  # the one RLModule every seat plays


def _layers(state: dict[str, Any], prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
    idx = sorted(
        {
            int(k[len(prefix) :].split(".")[0])
            for k in state
            if k.startswith(prefix) and k.endswith(".weight")
        }
    )
    return [
        (np.asarray(state[f"{prefix}{i}.weight"]), np.asarray(state[f"{prefix}{i}.bias"]))
        for i in idx
    ]


def numpy_policy_from_state(
    state: dict[str, Any], activation: str, game: Game | None = None
) -> NumpyPolicy:
    """The actor of a `MaskedPPOTorchRLModule` state dict (arrays or tensors) as the lab's
    `NumpyPolicy` of ``game`` (None: Last Will): the actor encoder's linear layers (each
    followed by `activation`), then the linear policy head. That is the layout `agents.policy`
    plays (`ppo:PATH`). The critic (critic encoder, value head) comes along when the state has
    it. Layers of other sizes than the game's are a `CheckpointMismatchError`."""
    state = {k: (v.detach().cpu().numpy() if hasattr(v, "detach") else v) for k, v in state.items()}
    encoder = _layers(state, "encoder.actor_encoder.net.mlp.") or _layers(
        state, "encoder.encoder.net.mlp."
    )
    head = _layers(state, "pi.net.mlp.")
    if not encoder or len(head) != 1:
        raise CheckpointError(
            "cannot export this RLModule: expected an MLP actor encoder and a single linear "
            f"policy head (head_fcnet_hiddens=[]); found {len(encoder)} encoder and "
            f"{len(head)} head layers"
        )
    layers = encoder + head
    # the critic, when the state has it (a learner's state; an inference-only one has not)
    critic = _layers(state, "encoder.critic_encoder.net.mlp.") or (
        encoder if not _layers(state, "encoder.actor_encoder.net.mlp.") else []
    )
    value = critic + _layers(state, "vf.net.mlp.") if critic else []
    if value and len(value) != len(critic) + 1:
        value = []
    return NumpyPolicy(
        [w for w, _ in layers],
        [b for _, b in layers],
        activation,
        value_weights=[w for w, _ in value] or None,
        value_biases=[b for _, b in value] or None,
        game=game,
    )


def export_rllib_checkpoint(
    checkpoint_dir: str | Path,
    out: str | Path,
    activation: str = "tanh",
    extra=None,
    game: Game | str | None = None,
) -> Path:
    """Export the shared policy of an RLlib Algorithm checkpoint (`<run>/rllib`) of ``game``
    (a `Game` or a registry name; None: Last Will) to `out` (.npz + .json sidecar recording the
    game); returns the .npz path."""
    import pickle

    rules = game if isinstance(game, Game) else load_game(game)
    root = Path(checkpoint_dir) / "learner_group" / "learner" / "rl_module" / MODULE_ID
    files = sorted(root.glob("module_state.*")) if root.is_dir() else []
    if not files:
        raise CheckpointError(
            f"{checkpoint_dir} is not an RLlib checkpoint of this backend (no "
            f"learner_group/learner/rl_module/{MODULE_ID}/module_state.*)"
        )
    f = files[0]
    if f.suffix == ".pt":
        import torch

        state = torch.load(f, map_location="cpu", weights_only=False)
    else:
        with f.open("rb") as fh:
            state = pickle.load(fh)
    policy = numpy_policy_from_state(state, activation, rules)
    meta = {
        "lab_version": LAB_VERSION,
        "source": "rllib",
        "rllib_checkpoint": str(checkpoint_dir),
        **(extra or {}),
    }
    return save_policy(policy, out, extra=meta, game=rules)


def export_policy(algo: Any, path: Path, cfg: TrainConfig, step: int, kind: str) -> Path:
    """The learner's current shared policy, a policy of the run's game (`cfg.game`), as the
    checkpoint `path` (.npz + .json sidecar recording the game, written as one unit and
    fsynced, `training.checkpoint.save_checkpoint`); returns the .npz."""
    weights = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
    policy = numpy_policy_from_state(weights, cfg.activation, load_game(cfg.game))
    base = ckpt_io.checkpoint_base(path)
    meta = ckpt_io.checkpoint_meta(step, cfg.seed, cfg.to_dict(), kind=kind, source="rllib")
    ckpt_io.save_checkpoint(base, meta, {".npz": policy.write_npz})
    return base.with_name(base.name + ".npz")
