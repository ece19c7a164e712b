"""Policies of earlier env versions, carried over to this one by exact weight surgery.

Env v1 (docs/RULES.md §4.4 use options and the §10 record of offer cards in hands) kept every v0
observation piece with its meaning, added new pieces (``using_card``, ``known_hand0..4``), added
one decision kind ("choose a use option") to the phase one-hot and appended four ``use_option``
rows to the action table. So a v0 policy network becomes a v1 network that plays exactly as
before wherever v0 had the same decision:

- first layer: each v0 input column moves to the column of the same piece (and, for the phase
  one-hot, of the same phase name) in the v1 layout; the new inputs get zero weights, so the
  policy ignores them, as it never saw them;
- last layer: the v0 action rows keep their indices; the new ``use_option`` rows get zero
  weights and biases rising with the option's depth, so at a use-option decision (where only
  those rows are legal) the policy picks the deepest filled option it may pay, which is what v0's
  engine always charged.

``python -m agents.compat convert-v0 IN.npz OUT.npz`` writes the v1 weights and a v1 sidecar
(which records the v0 sidecar under ``converted_from``). The first shipped reference was
converted this way into ``policies/ref_v1.npz``. The layout tables (observation pieces, phase
names, action table) are Last Will's, read through its game (`LastWillGame.layout_tables`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from gamecore import load_game

from .policy import CheckpointError, NumpyPolicy, env_signature, read_sidecar
from .safeio import write_bundle

V0_OBS_SIZE = 3444
V0_NUM_ACTIONS = 528
V1_NEW_PIECES = ("using_card",) + tuple(f"known_hand{r}" for r in range(5))
OPTION_BIAS = 10.0  # per option depth: arg-max and sampling both pick the deepest legal option
_NEW_PHASE = "choose a use option"  # the decision kind v1 added


def _lastwill() -> Any:
    """Last Will's game: this module carries over Last Will's own policies only."""
    return load_game("lastwill")


def _tables() -> dict[str, Any]:
    return _lastwill().layout_tables


def v0_phase_names() -> tuple[str, ...]:
    """The phase names of env v0, in order (v1's without the use-option decision)."""
    return tuple(p for p in _tables()["phase_names"] if p != _NEW_PHASE)


def __getattr__(name: str) -> Any:
    if name == "V0_PHASE_NAMES":  # the constant of earlier versions, now read on first use
        return v0_phase_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def v0_layout() -> list[tuple[str, int]]:
    """(name, size) of the v0 observation pieces, in order."""
    out = []
    phases = len(v0_phase_names())
    for name, size, _ in _tables()["obs_pieces"]:
        if name in V1_NEW_PIECES:
            continue
        out.append((name, phases if name == "phase" else size))
    return out


def v0_column_map() -> np.ndarray:
    """For each v0 observation index, its index in this version's observation."""
    tables = _tables()
    phase_names = tables["phase_names"]
    new_off: dict[str, int] = {}
    o = 0
    for name, size, _ in tables["obs_pieces"]:
        new_off[name] = o
        o += size
    cols = []
    for name, size in v0_layout():
        if name == "phase":
            cols.extend(new_off[name] + phase_names.index(p) for p in v0_phase_names())
        else:
            cols.extend(range(new_off[name], new_off[name] + size))
    out = np.asarray(cols, dtype=np.int64)
    if out.size != V0_OBS_SIZE:  # pragma: no cover - guards the layout bookkeeping
        raise AssertionError(f"v0 layout has {out.size} entries, expected {V0_OBS_SIZE}")
    return out


def convert_v0_policy(policy: NumpyPolicy) -> NumpyPolicy:
    """The v1 network that plays as the v0 `policy` (see the module docstring)."""
    w0, wl = policy.weights[0], policy.weights[-1]
    if w0.shape[1] != V0_OBS_SIZE or wl.shape[0] != V0_NUM_ACTIONS:
        raise CheckpointError(
            f"not a v0 policy: it maps {w0.shape[1]} inputs to {wl.shape[0]} actions "
            f"(v0 has {V0_OBS_SIZE} and {V0_NUM_ACTIONS})"
        )
    game = _lastwill()
    action_table = game.layout_tables["action_table"]
    first = np.zeros((w0.shape[0], game.obs_size), dtype=np.float32)
    first[:, v0_column_map()] = w0
    last = np.zeros((game.num_actions, wl.shape[1]), dtype=np.float32)
    last[:V0_NUM_ACTIONS] = wl
    bias = np.zeros(game.num_actions, dtype=np.float32)
    bias[:V0_NUM_ACTIONS] = policy.biases[-1]
    for i in range(V0_NUM_ACTIONS, game.num_actions):
        kind, arg = action_table[i]
        if kind != "use_option":  # pragma: no cover - v1 appended only use_option rows
            raise AssertionError(f"unexpected v1 action row {i}: {kind}")
        bias[i] = OPTION_BIAS * arg
    weights = [first, *policy.weights[1:-1], last]
    if len(policy.weights) == 1:
        raise CheckpointError("a policy needs at least one hidden layer to be converted")
    biases = [*policy.biases[:-1], bias]
    return NumpyPolicy(weights, biases, policy.activation, game=game)


def _load_v0(path: Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    meta = read_sidecar(path)
    if meta.get("env_version") != 0:
        raise CheckpointError(
            f"{path} is for env version {meta.get('env_version')!r}, not 0; nothing to convert"
        )
    try:
        with np.load(path, allow_pickle=False) as z:
            k = sum(1 for name in z.files if name.startswith("w"))
            weights = [np.asarray(z[f"w{i}"], dtype=np.float32) for i in range(k)]
            biases = [np.asarray(z[f"b{i}"], dtype=np.float32) for i in range(k)]
            act = str(z["activation"])
    except Exception as e:  # noqa: BLE001 - empty, truncated or foreign files alike
        raise CheckpointError(
            f"cannot read policy weights {path}: {type(e).__name__}: {e or 'no data'}"
        ) from None
    pol = NumpyPolicy.__new__(NumpyPolicy)  # skip the v1 shape check of __init__
    pol.weights, pol.biases, pol.activation = weights, biases, act
    return pol, meta


def convert_v0_file(src: str | Path, dst: str | Path, force: bool = False) -> Path:
    """Convert a v0 `.npz` (+ its `.json` sidecar) into a v1 `.npz` + sidecar at `dst`."""
    src, dst = Path(src), Path(dst)
    if dst.suffix != ".npz":
        raise CheckpointError(f"destination {dst} must end in .npz")
    side = dst.with_suffix(".json")
    for p in (dst, side):
        if p.exists() and not force:
            raise CheckpointError(f"{p} exists; pass force=True (--force) to replace it")
    old, meta = _load_v0(src)
    new = convert_v0_policy(old)
    out_meta = {k: v for k, v in meta.items() if k != "files"}  # digests of the v0 files
    signature = env_signature(_lastwill())
    out_meta.update(signature, game="lastwill")
    out_meta["converted_from"] = {k: meta[k] for k in signature if k in meta}
    out_meta["converted_by"] = "agents.compat.convert_v0_policy"
    write_bundle(dst, {".npz": new.write_npz}, out_meta)  # the sidecar last, with the digest
    return dst


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    force = "--force" in args
    args = [a for a in args if a != "--force"]
    if len(args) != 3 or args[0] != "convert-v0":
        print("usage: python -m agents.compat convert-v0 IN.npz OUT.npz [--force]", file=sys.stderr)
        return 2
    try:
        out = convert_v0_file(args[1], args[2], force=force)
    except CheckpointError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
