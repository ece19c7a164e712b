"""`MaskedPPOTorchRLModule`: RLlib's default PPO torch module with action masking.

For observations `{"observations": Box, "action_mask": Box(0, 1)}` (`gameenv.rllib`, or a
game's own env of that form, `Game.rllib_env_class`): the encoders and heads are built for the
`observations` space alone (an MLP actor encoder, an MLP critic encoder and linear heads, as
RLlib's `DefaultPPOTorchRLModule` builds them), and
`log(action_mask)`, clamped at the float minimum, is added to the action logits in inference,
exploration and training, so illegal actions are never sampled and carry no probability in the
PPO loss. It follows RLlib's action-masking example module (`ray.rllib.examples.rl_modules.
classes.action_masking_rlm`), on the non-deprecated base class and without changing the batch
it is given. Imports Ray and torch.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

__all__ = ["MaskedPPOTorchRLModule"]


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default module over `{"observations", "action_mask"}`; see the module docstring."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            "observations",
            "action_mask",
        }:
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                f"'observations' and 'action_mask'; got {observation_space}"
            )
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()  # networks for the 'observations' space
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = dict(batch)
            batch[Columns.OBS] = obs["observations"]
            return obs["action_mask"], batch
        return batch["action_mask"], batch

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
