"""Expert iteration's samples files (`samples/iter_K.npz`), checked whenever they are read.

A file holds the arrays of `selfplay.pack`, each one-dimensional: per searched decision `n`,
`seat`, `obs_len`, `legal_len`, `prior`, `net_choice` and `result`; and, laid end to end, the
observations' indices and values (`obs_idx`, `obs_val`, `obs_len` entries per decision) and the
legal actions with their policy targets (`legal`, `visits`, `legal_len` entries per decision).
`read_sample_file` reads one without pickles and refuses, with a `SampleFileError` naming the
file, the array and what is allowed, anything else: an array missing or unknown, of another
shape or kind, lengths that do not add up, and values out of range (a player count and a seat
of that game, indices inside the observation and the action table, each listed once per
decision, finite numbers, non-negative policy targets summing to more than 0 and at most
`MAX_TARGET_SUM`, results from -1 to 1). The arrays come back in `pack`'s dtypes.

`sample_iterations` lists the iterations a samples folder holds: its files named `iter_K.npz`,
K an iteration number without leading zeros. Any other name there is not a samples file and is
ignored.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import NUM_ACTIONS
from lastwill_env.engine.config import PLAYER_COUNTS, allowed_counts

from .config import MAX_SIMS

# the arrays of a samples file (`selfplay.pack`), in its order, with their dtypes
DTYPES = {
    "n": np.int64,
    "seat": np.int64,
    "obs_len": np.int64,
    "obs_idx": np.int64,
    "obs_val": np.float32,
    "legal_len": np.int64,
    "legal": np.int64,
    "visits": np.float32,
    "prior": np.int64,
    "net_choice": np.int64,
    "result": np.float32,
}
PER_SAMPLE = ("n", "seat", "obs_len", "legal_len", "prior", "net_choice", "result")
MAX_TARGET_SUM = MAX_SIMS  # the visits of one search sum to at most its simulations
SAMPLE_NAME = re.compile(r"iter_([1-9][0-9]*)\.npz", re.ASCII)
_INT64_MAX = np.iinfo(np.int64).max
_UNREADABLE = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


class SampleFileError(ValueError):
    """A samples file that is not one; the message names the file and what is wrong."""


def sample_iterations(folder: Path) -> list[int]:
    """The iterations whose samples `folder` holds (files named `iter_K.npz`), in order."""
    if not folder.is_dir():
        return []
    found = (SAMPLE_NAME.fullmatch(p.name) for p in folder.iterdir() if p.is_file())
    return sorted(int(m.group(1)) for m in found if m)


def read_sample_file(path: str | Path) -> dict[str, np.ndarray]:
    """The checked arrays of the samples file `path` (module docstring)."""
    path = Path(path)
    return check_samples(_load(path), path)


def _load(path: Path) -> dict[str, np.ndarray]:
    if not path.exists():
        raise SampleFileError(f"samples file {path} does not exist")
    try:
        f = np.load(path, allow_pickle=False)
    except _UNREADABLE as e:
        raise _unreadable(path, e) from None
    if not isinstance(f, np.lib.npyio.NpzFile):
        raise SampleFileError(f"samples file {path} holds one array, not a .npz of samples")
    with f:
        _check_names(path, list(f.files))
        out = {}
        for name in f.files:
            try:
                out[name] = f[name]
            except _UNREADABLE as e:
                raise _unreadable(path, e, name) from None
    return out


def _unreadable(path: Path, e: BaseException, name: str = "") -> SampleFileError:
    where = f" (array {name})" if name else ""
    return SampleFileError(
        f"samples file {path} cannot be read as a .npz of samples{where}: {type(e).__name__}: {e}"
    )


def _check_names(path: Path, names: list[str]) -> None:
    missing = [k for k in DTYPES if k not in names]
    unknown = sorted(set(names) - set(DTYPES))
    holds = f"a samples file holds {', '.join(DTYPES)}"
    if missing:
        raise SampleFileError(f"samples file {path} has no array(s) {missing}; {holds}")
    if unknown:
        raise SampleFileError(f"samples file {path} holds unknown array(s) {unknown}; {holds}")


def check_samples(raw: dict[str, np.ndarray], path: Path) -> dict[str, np.ndarray]:
    """`raw` (a samples file's arrays) checked and in `pack`'s dtypes; `SampleFileError`
    naming `path` otherwise."""
    _check_names(path, list(raw))
    data = {k: _typed(path, k, np.asarray(raw[k])) for k in DTYPES}
    _check_lengths(path, data)
    _check_per_sample(path, data)
    _check_observations(path, data)
    _check_actions(path, data)
    return data


def _fail(path: Path, text: str) -> SampleFileError:
    return SampleFileError(f"samples file {path}: {text}")


def _typed(path: Path, name: str, a: np.ndarray) -> np.ndarray:
    """`a` in its dtype, once it is one-dimensional, of the right kind and representable."""
    if a.ndim != 1:
        raise _fail(path, f"{name} is not one-dimensional (shape {a.shape})")
    want = DTYPES[name]
    if want is np.int64:
        if a.dtype.kind not in "iu":
            raise _fail(path, f"{name} holds {a.dtype}, not integers")
        if a.dtype.kind == "u" and a.size and int(a.max()) > _INT64_MAX:
            j = int(np.argmax(a > _INT64_MAX))
            raise _fail(
                path, f"{name} holds {int(a[j])} (entry {j}), beyond any index; {_ALLOWED[name]}"
            )
        return a.astype(np.int64)
    if a.dtype.kind not in "iuf":
        raise _fail(path, f"{name} holds {a.dtype}, not numbers")
    with np.errstate(over="ignore"):
        out = a.astype(np.float32)
    bad = ~np.isfinite(out)
    if bad.any():
        j = int(np.argmax(bad))
        raise _fail(path, f"{name} holds {a[j]!r} (entry {j}), not finite as a float32 number")
    return out


_ALLOWED = {
    "n": f"use a player count, {allowed_counts()}",
    "seat": "use 0 to n - 1 (a seat of the sample's game)",
    "obs_len": f"use 0 to {OBS_SIZE} (the entries of an observation)",
    "obs_idx": f"use 0 to {OBS_SIZE - 1} (an entry of the observation)",
    "legal_len": f"use 2 to {NUM_ACTIONS} (a searched decision has a choice)",
    "legal": f"use 0 to {NUM_ACTIONS - 1} (an action of the action table)",
    "prior": f"use -1 (no prior) or 0 to {NUM_ACTIONS - 1} (the prior bot's action)",
    "net_choice": f"use 0 to {NUM_ACTIONS - 1} (the network's action)",
    "result": "use -1 to 1 (the seat's zero_sum result)",
    "visits": "visit counts and policy targets are non-negative",
}


def _outside(path: Path, name: str, a: np.ndarray, ok: np.ndarray, owner=None) -> None:
    """Refuse the first entry of `a` where `ok` is false, naming its sample."""
    if ok.all():
        return
    j = int(np.argmax(~ok))
    sample = j if owner is None else int(owner[j])
    raise _fail(path, f"{name} holds {a[j].item()!r} (sample {sample}); {_ALLOWED[name]}")


def _check_lengths(path: Path, data: dict[str, np.ndarray]) -> None:
    count = len(data["n"])
    for name in PER_SAMPLE:
        if len(data[name]) != count:
            raise _fail(
                path, f"{name} has {len(data[name])} entries, but n has {count} (one per sample)"
            )
    for lens, sizes, top in (
        ("obs_len", ("obs_idx", "obs_val"), OBS_SIZE),
        ("legal_len", ("legal", "visits"), NUM_ACTIONS),
    ):
        low = 0 if lens == "obs_len" else 2
        _outside(path, lens, data[lens], (data[lens] >= low) & (data[lens] <= top))
        total = int(data[lens].sum())
        for name in sizes:
            if len(data[name]) != total:
                raise _fail(
                    path, f"{name} has {len(data[name])} entries, but {lens} sums to {total}"
                )


def _check_per_sample(path: Path, data: dict[str, np.ndarray]) -> None:
    n, seat = data["n"], data["seat"]
    _outside(path, "n", n, np.isin(n, PLAYER_COUNTS))
    _outside(path, "seat", seat, (seat >= 0) & (seat < n))
    prior, net = data["prior"], data["net_choice"]
    _outside(path, "prior", prior, (prior >= -1) & (prior < NUM_ACTIONS))
    _outside(path, "net_choice", net, (net >= 0) & (net < NUM_ACTIONS))
    result = data["result"]
    _outside(path, "result", result, (result >= -1) & (result <= 1))


def _owners(lens: np.ndarray) -> np.ndarray:
    """The sample of every entry of an array laid out by `lens`."""
    return np.repeat(np.arange(len(lens)), lens)


def _check_once(path: Path, name: str, a: np.ndarray, owner: np.ndarray, size: int) -> None:
    """Refuse a value listed twice within one sample."""
    key = owner * size + a
    order = np.argsort(key, kind="stable")
    twice = np.flatnonzero(key[order][1:] == key[order][:-1])
    if twice.size:
        j = int(order[twice[0]])
        raise _fail(
            path,
            f"{name} lists {int(a[j])} twice (sample {int(owner[j])}); each "
            "sample lists an entry once",
        )


def _check_observations(path: Path, data: dict[str, np.ndarray]) -> None:
    idx, owner = data["obs_idx"], _owners(data["obs_len"])
    _outside(path, "obs_idx", idx, (idx >= 0) & (idx < OBS_SIZE), owner)
    _check_once(path, "obs_idx", idx, owner, OBS_SIZE)


def _check_actions(path: Path, data: dict[str, np.ndarray]) -> None:
    legal, visits, owner = data["legal"], data["visits"], _owners(data["legal_len"])
    _outside(path, "legal", legal, (legal >= 0) & (legal < NUM_ACTIONS), owner)
    _check_once(path, "legal", legal, owner, NUM_ACTIONS)
    _outside(path, "visits", visits, visits >= 0, owner)
    sums = np.bincount(owner, weights=visits.astype(np.float64), minlength=len(data["n"]))
    bad = ~((sums > 0) & (sums <= MAX_TARGET_SUM))
    if bad.any():
        r = int(np.argmax(bad))
        raise _fail(
            path,
            f"the visits of sample {r} sum to {sums[r]:g}; each sample's policy "
            f"targets sum to more than 0 and at most {MAX_TARGET_SUM}",
        )
