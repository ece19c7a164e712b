"""Sparse observations for the all-seat trainer: one seat's observation as (indices, values),
and a list of them as the torch (indices, values, offsets) that the network's `EmbeddingBag`
reads. The rollout writes the rows; the rollout's forward passes and the PPO update batch them.
"""

from __future__ import annotations

import numpy as np
import torch

from lastwill_env.encoding import encode_state_sparse


def sparse_obs(state, seat: int, buf: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The seat's observation (docs/RULES.md §10) as (indices, values): `encode_state_sparse`,
    written straight from the state, unsorted (the `EmbeddingBag` sums over the pairs in any
    order; `buf` is not used any more)."""
    return encode_state_sparse(state, seat, ordered=False)


def sparse_batch(rows: list[tuple[np.ndarray, np.ndarray]]):
    """torch (indices, values, offsets) of a list of sparse observations."""
    lens = [len(i) for i, _ in rows]
    offsets = np.zeros(len(rows), dtype=np.int64)
    if len(rows) > 1:
        np.cumsum(lens[:-1], out=offsets[1:])
    idx = np.concatenate([i for i, _ in rows]) if rows else np.zeros(0, np.int64)
    vals = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
    return (
        torch.as_tensor(idx, dtype=torch.int64),
        torch.as_tensor(vals, dtype=torch.float32),
        torch.as_tensor(offsets),
    )
