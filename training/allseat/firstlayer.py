"""The all-seat network's first layer: a linear map of the sparse observation.

A batch of observations comes as torch (indices, values, offsets) (`batch.sparse_batch`); the
layer's output row b is the sum of `values[k] * weight[indices[k]]` over the pairs of bag b,
which is `embedding_bag` in mode "sum" with the values as per-sample weights. The forward pass
is that call wherever the layer runs. Where a gradient is taken, the weight's gradient is written
by the compiled kernel `training.allseat._bagrad` (about a quarter of the cost of `embedding_bag`'s
own backward, which sorts the indices first: docs/EXPERIMENTS.md, "Speed"). Both give the same
gradient up to the order of the float additions; the kernel's is exactly torch's `index_add_`
of the products in pair order, the same on every machine.

`KERNEL` says which backward runs: "compiled", or "torch" where the kernel was not built (no C
compiler at install time) or `LASTWILL_BAG_GRAD=torch` is set.
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F

from gamecore.buildcheck import COMPILED, load_compiled

CHOICES = COMPILED["LASTWILL_BAG_GRAD"].choices


def _load():
    choice = os.environ.get("LASTWILL_BAG_GRAD", "auto")
    return load_compiled("LASTWILL_BAG_GRAD", choice, CHOICES, "torch", "training.allseat._bagrad")


_KERNEL = _load()
KERNEL = "compiled" if _KERNEL is not None else "torch"


class _SparseLinear(torch.autograd.Function):
    """`embedding_bag` forward; the weight's gradient from the compiled kernel (the indices,
    values and offsets are data: they get no gradient)."""

    @staticmethod
    def forward(ctx, weight, idx, vals, offsets):
        ctx.save_for_backward(idx, vals, offsets)
        ctx.shape = weight.shape
        return F.embedding_bag(idx, weight, offsets, mode="sum", per_sample_weights=vals)

    @staticmethod
    def backward(ctx, grad_out):
        idx, vals, offsets = ctx.saved_tensors
        grad = torch.zeros(ctx.shape, dtype=torch.float32)
        arrays = [t.contiguous().numpy() for t in (idx, offsets, vals, grad_out)]
        _KERNEL.grad(*arrays, grad.numpy())
        return grad, None, None, None


def sparse_linear(weight, idx, vals, offsets):
    """The layer's output (bags x width) for `weight` (rows x width) and a sparse batch."""
    fast = (
        _KERNEL is not None
        and torch.is_grad_enabled()
        and weight.requires_grad
        and not vals.requires_grad
        and weight.device.type == "cpu"
        and weight.dtype == vals.dtype == torch.float32
        and idx.dtype == offsets.dtype == torch.int64
    )
    if not fast:
        return F.embedding_bag(idx, weight, offsets, mode="sum", per_sample_weights=vals)
    return _SparseLinear.apply(weight, idx, vals, offsets)
