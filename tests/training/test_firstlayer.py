"""The all-seat network's first layer (`training.allseat.firstlayer`).

Its forward pass is `embedding_bag`'s, bit for bit. Where the compiled kernel was built, the
weight gradient it writes is exactly torch's `index_add_` of the products in pair order and
agrees with `embedding_bag`'s own backward up to float rounding, over batches of real sparse
observations at 2-5 players (empty bags too); the whole network's gradients agree the same way
with either backward; bad input raises a clear error and leaves the output untouched.
Everywhere: `LASTWILL_BAG_GRAD` takes only its allowed values.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from lastwill_env.encoding import OBS_SIZE, encode_state_sparse  # noqa: E402
from lastwill_env.engine import make_config, new_game  # noqa: E402
from lastwill_env.engine.config import PLAYER_COUNTS  # noqa: E402
from training.allseat import firstlayer  # noqa: E402
from training.allseat.batch import sparse_batch  # noqa: E402

compiled = pytest.mark.skipif(
    firstlayer.KERNEL != "compiled", reason="training.allseat._bagrad was not built"
)
F = torch.nn.functional


def _rows(n: int, count: int, seed: int) -> list:
    """Sparse observations of the deciding seat over uniformly random games."""
    rows, rnd, g = [], random.Random(seed), 0
    while len(rows) < count:
        s = new_game(make_config(n), seed + g)
        g += 1
        while not s.is_over and len(rows) < count:
            rows.append(encode_state_sparse(s, s.cur, ordered=False))
            s.apply_action(rnd.choice(s.legal_actions()))
    return rows


def _batch(n: int, count: int, seed: int, empty: int = 0):
    rows = _rows(n, count, seed)
    for k in range(empty):  # bags without a pair: an observation of zeros
        rows.insert(3 * k, (np.zeros(0, np.int64), np.zeros(0, np.float32)))
    return sparse_batch(rows)


def _weight(width: int = 24, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(OBS_SIZE, width, generator=g).requires_grad_(True)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_forward_pass_is_embedding_bags(n):
    idx, vals, offsets = _batch(n, 200, 10 + n, empty=2)
    w = _weight()
    bag = torch.nn.EmbeddingBag(OBS_SIZE, 24, mode="sum")
    with torch.no_grad():
        bag.weight.copy_(w)
    out = firstlayer.sparse_linear(w, idx, vals, offsets)
    assert out.requires_grad and out.shape == (len(offsets), 24)
    assert torch.equal(out, bag(idx, offsets, per_sample_weights=vals))
    with torch.no_grad():  # no gradient taken: embedding_bag itself
        assert torch.equal(firstlayer.sparse_linear(w, idx, vals, offsets), out)


@compiled
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_compiled_gradient_is_index_add_and_embedding_bags(n):
    idx, vals, offsets = _batch(n, 300, 20 + n, empty=3)
    w = _weight(40, n)
    g = torch.randn(len(offsets), 40, generator=torch.Generator().manual_seed(n))
    firstlayer.sparse_linear(w, idx, vals, offsets).backward(g)
    ours = w.grad.clone()
    lens = torch.diff(torch.cat([offsets, torch.tensor([len(idx)])]))
    bag_of_pair = torch.repeat_interleave(torch.arange(len(offsets)), lens)
    exact = torch.zeros_like(ours).index_add_(0, idx, vals[:, None] * g[bag_of_pair])
    assert torch.equal(ours, exact)
    w.grad = None
    F.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=vals).backward(g)
    assert torch.allclose(ours, w.grad, rtol=1e-5, atol=1e-5)
    assert int((ours != 0).any(dim=1).sum()) == len(torch.unique(idx))


@compiled
def test_the_networks_gradients_agree_with_either_backward(monkeypatch):
    from training.allseat import build_model
    from training.config import TrainConfig

    cfg = TrainConfig(mode="all_seat", net_arch=[32, 32])
    idx, vals, offsets = _batch(4, 256, 5)
    rng = np.random.default_rng(0)
    masks = torch.as_tensor(rng.random((len(offsets), 532)) < 0.1)
    masks[:, 0] = True
    acts = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks.numpy()])

    def grads():
        model = build_model(cfg, 3)
        values, logp, ent = model.evaluate(idx, vals, offsets, masks, acts)
        (values.square().mean() - logp.mean() - 0.01 * ent.mean()).backward()
        return {k: p.grad.clone() for k, p in model.named_parameters()}

    ours = grads()
    monkeypatch.setattr(firstlayer, "_KERNEL", None)
    theirs = grads()
    assert ours.keys() == theirs.keys()
    for k in ours:
        assert torch.allclose(ours[k], theirs[k], rtol=1e-4, atol=1e-6), k
    assert not torch.equal(ours["first.weight"], torch.zeros_like(ours["first.weight"]))


def _kernel_args(nnz=6, bags=3, rows=10, width=4):
    idx = np.arange(nnz, dtype=np.int64) % rows
    offsets = np.array([0, 2, 4][:bags], dtype=np.int64)
    vals = np.ones(nnz, dtype=np.float32)
    g = np.ones((bags, width), dtype=np.float32)
    out = np.zeros((rows, width), dtype=np.float32)
    return [idx, offsets, vals, g, out]


@compiled
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a[0].__setitem__(2, 10), r"indices\[2\] = 10 is not a row of out \(0-9\)"),
        (lambda a: a[0].__setitem__(0, -1), r"indices\[0\] = -1 is not a row of out"),
        (lambda a: a[1].__setitem__(0, 1), r"offsets\[0\] = 1: offsets start at 0"),
        (lambda a: a[1].__setitem__(2, 1), r"offsets\[2\] = 1: offsets start at 0"),
        (lambda a: a[1].__setitem__(2, 7), r"offsets\[2\] = 7: .* at most 6"),
        (lambda a: a.__setitem__(0, a[0].astype(np.int32)), "indices must be a C-contiguous"),
        (lambda a: a.__setitem__(2, a[2].astype(np.float64)), "values must be a C-contiguous"),
        (lambda a: a.__setitem__(2, a[2][:5]), "values has 5 entries, indices 6"),
        (lambda a: a.__setitem__(3, a[3][:2]), "grad_out is 2 x 4 and out 10 x 4"),
        (lambda a: a.__setitem__(3, np.ones((3, 5), np.float32)), "grad_out is 3 x 5"),
        (lambda a: a.__setitem__(3, np.ones((4, 3), np.float32).T), "grad_out must be a C-"),
        (lambda a: a.__setitem__(4, a[4][:, :2]), "out must be a C-contiguous"),
    ],
)
def test_bad_kernel_input_raises_and_writes_nothing(change, message):
    args = _kernel_args()
    change(args)
    out = args[4]
    before = out.copy()
    with pytest.raises(ValueError, match=message):
        firstlayer._KERNEL.grad(*args)
    assert np.array_equal(out, before)


@compiled
def test_the_kernel_adds_into_its_output():
    args = _kernel_args()
    args[4][:] = 1.0
    firstlayer._KERNEL.grad(*args)
    # pairs 0-1 in bag 0, 2-3 in bag 1, 4-5 in bag 2: rows 0-5 get one product each
    assert args[4][:6].tolist() == [[2.0] * 4] * 6
    assert args[4][6:].tolist() == [[1.0] * 4] * 4
    read_only = np.zeros((10, 4), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="out must be a C-contiguous writable 2-d float32"):
        firstlayer._KERNEL.grad(*args[:4], read_only)


def _kernel_in_fresh_process(value: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LASTWILL_BAG_GRAD": value}
    code = "from training.allseat import firstlayer; print(firstlayer.KERNEL)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )


def test_lastwill_bag_grad_takes_only_its_allowed_values():
    bad = _kernel_in_fresh_process("fast")
    assert bad.returncode != 0
    assert "LASTWILL_BAG_GRAD='fast': allowed values are auto, torch, compiled" in bad.stderr
    ok = _kernel_in_fresh_process("torch")
    assert ok.returncode == 0 and ok.stdout.strip() == "torch"
