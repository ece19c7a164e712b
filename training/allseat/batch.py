"""Sparse observations for the all-seat trainer: one seat's observation as (indices, values),
and a list of them as the torch (indices, values, offsets) that the network's `EmbeddingBag`
reads. The rollout writes the rows; the rollout's forward passes batch them with `sparse_batch`,
the PPO update gathers its minibatches from one `SparseRows` of the whole buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from gamecore import load_game


def sparse_obs(
    state, seat: int, buf: np.ndarray | None = None, game: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """The seat's observation as (indices, values): the game's `encode_state_sparse` (the
    default game when `game` is None; Last Will's observation is docs/RULES.md §10), written
    straight from the state, unsorted (the `EmbeddingBag` sums over the pairs in any order;
    `buf` is not used any more)."""
    game = load_game() if game is None else game
    return game.encode_state_sparse(state, seat, ordered=False)


def segment_starts(lens: np.ndarray) -> np.ndarray:
    """Where each of consecutive segments of lengths `lens` starts (int64)."""
    out = np.zeros(len(lens), dtype=np.int64)
    if len(lens) > 1:
        np.cumsum(lens[:-1], out=out[1:])
    return out


def gather_segments(
    starts: np.ndarray, lens: np.ndarray, sel: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The positions, in flat arrays of segments, of the segments `sel` one after another, and
    where each of them starts among those positions."""
    n = lens[sel]
    at = segment_starts(n)
    return np.arange(int(n.sum()), dtype=np.int64) + np.repeat(starts[sel] - at, n), at


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


class SparseRows:
    """A list of sparse observations held as one concatenation, so that a minibatch of them is
    gathered with a few numpy calls instead of a loop over its rows: `batch(sel)` is
    `sparse_batch([rows[j] for j in sel])`, the same tensors."""

    def __init__(self, rows: list[tuple[np.ndarray, np.ndarray]]):
        lens = np.fromiter((len(i) for i, _ in rows), dtype=np.int64, count=len(rows))
        idx = np.concatenate([i for i, _ in rows]) if rows else np.zeros(0, np.int64)
        vals = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
        self._hold(idx, vals, lens)

    @classmethod
    def from_flat(cls, idx: np.ndarray, vals: np.ndarray, lens: np.ndarray) -> SparseRows:
        """Rows already concatenated: every row's indices in `idx` and values in `vals`, one
        after another, row i `lens[i]` pairs long (expert iteration's packed samples)."""
        lens = np.asarray(lens, dtype=np.int64)
        if len(idx) != len(vals) or int(lens.sum()) != len(idx) or (lens < 0).any():
            raise ValueError(
                f"{len(idx)} indices and {len(vals)} values do not make rows of lengths "
                f"summing to {int(lens.sum())}"
            )
        rows = cls.__new__(cls)
        rows._hold(idx, vals, lens)
        return rows

    def _hold(self, idx: np.ndarray, vals: np.ndarray, lens: np.ndarray) -> None:
        self.lens = lens
        self.starts = segment_starts(lens)
        self.idx = np.asarray(idx).astype(np.int64, copy=False)
        self.vals = np.asarray(vals).astype(np.float32, copy=False)

    def __len__(self) -> int:
        return len(self.lens)

    def batch(self, sel: np.ndarray):
        """torch (indices, values, offsets) of the rows `sel` (positions, in that order)."""
        pos, offsets = gather_segments(self.starts, self.lens, sel)
        return (
            torch.from_numpy(self.idx[pos]),
            torch.from_numpy(self.vals[pos]),
            torch.from_numpy(offsets),
        )
