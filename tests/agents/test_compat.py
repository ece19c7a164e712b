"""agents.compat: a v0 policy carried over to env v1 plays exactly as before."""

import json

import numpy as np
import pytest

from agents import compat
from agents.policy import CheckpointError, NumpyPolicy, load_policy
from lastwill_env.encoding import OBS_SIZE, piece_slices
from lastwill_env.engine import NUM_ACTIONS, PHASE_NAMES
from lastwill_env.engine.actions import USE_OPTION


def _v0_policy(seed=0, hidden=16):
    rng = np.random.default_rng(seed)
    pol = NumpyPolicy.__new__(NumpyPolicy)
    pol.weights = [
        rng.normal(size=(hidden, compat.V0_OBS_SIZE)).astype(np.float32),
        rng.normal(size=(hidden, hidden)).astype(np.float32),
        rng.normal(size=(compat.V0_NUM_ACTIONS, hidden)).astype(np.float32),
    ]
    pol.biases = [
        rng.normal(size=hidden).astype(np.float32),
        rng.normal(size=hidden).astype(np.float32),
        rng.normal(size=compat.V0_NUM_ACTIONS).astype(np.float32),
    ]
    pol.activation = "tanh"
    return pol


def _logits(pol, x):
    out = x
    for i, (w, b) in enumerate(zip(pol.weights, pol.biases, strict=True)):
        out = w @ out + b
        if i < len(pol.weights) - 1:
            out = np.tanh(out)
    return out


def test_layout_maps_every_v0_entry_to_a_distinct_v1_entry():
    cols = compat.v0_column_map()
    assert cols.size == compat.V0_OBS_SIZE == len(set(cols.tolist()))
    new = set(range(OBS_SIZE)) - set(cols.tolist())
    sl = piece_slices()
    expected = {sl["phase"].start + PHASE_NAMES.index("choose a use option")}
    for name in compat.V1_NEW_PIECES:
        expected |= set(range(sl[name].start, sl[name].stop))
    assert new == expected


def test_converted_policy_gives_the_v0_logits_and_ignores_the_new_pieces():
    old = _v0_policy()
    new = compat.convert_v0_policy(old)
    rng = np.random.default_rng(1)
    cols = compat.v0_column_map()
    for _ in range(5):
        x = rng.normal(size=OBS_SIZE).astype(np.float32)
        z = new.logits(x)
        np.testing.assert_allclose(
            z[: compat.V0_NUM_ACTIONS], _logits(old, x[cols]), rtol=1e-4, atol=1e-4
        )  # float32 sums in another order
        y = x.copy()
        for name in compat.V1_NEW_PIECES:
            y[piece_slices()[name]] = rng.normal(size=140)
        np.testing.assert_allclose(new.logits(y), z, atol=1e-4)


def test_converted_policy_picks_the_deepest_legal_use_option():
    new = compat.convert_v0_policy(_v0_policy())
    x = np.zeros(OBS_SIZE, dtype=np.float32)
    legal = [USE_OPTION[0], USE_OPTION[1], USE_OPTION[2]]
    assert new.choose(x, legal) == USE_OPTION[2]
    assert new.choose(x, legal[:2]) == USE_OPTION[1]


def test_convert_file_writes_a_loadable_v1_checkpoint_and_never_overwrites(tmp_path):
    src = tmp_path / "old.npz"
    old = _v0_policy()
    arrays = {f"w{i}": w for i, w in enumerate(old.weights)}
    arrays.update({f"b{i}": b for i, b in enumerate(old.biases)})
    np.savez(src, activation=np.array("tanh"), **arrays)
    meta = {"env_name": "lastwill_v0", "env_version": 0, "step": 7, "config": {}}
    src.with_suffix(".json").write_text(json.dumps(meta))
    dst = tmp_path / "new.npz"
    assert compat.main(["convert-v0", str(src), str(dst)]) == 0
    pol, m = load_policy(dst)
    assert pol.weights[0].shape == (16, OBS_SIZE) and pol.weights[-1].shape[0] == NUM_ACTIONS
    assert m["converted_from"]["env_version"] == 0 and m["step"] == 7
    before = dst.read_bytes()
    assert compat.main(["convert-v0", str(src), str(dst)]) == 2
    assert dst.read_bytes() == before
    with pytest.raises(CheckpointError, match="not 0"):
        compat.convert_v0_file(dst, tmp_path / "again.npz")
