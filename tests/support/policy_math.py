"""A policy file's forward pass written out in the tests, independent of `agents.policy`."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def npz_logits(npz: Path, obs: np.ndarray) -> np.ndarray:
    """The actor's logits, computed here from the file's arrays (tanh between layers)."""
    with np.load(npz) as z:
        k = sum(1 for name in z.files if name.startswith("w"))
        ws, bs = [z[f"w{i}"] for i in range(k)], [z[f"b{i}"] for i in range(k)]
    x = obs.astype(np.float64)
    for i, (w, b) in enumerate(zip(ws, bs, strict=True)):
        x = w @ x + b
        if i < k - 1:
            x = np.tanh(x)
    return x
