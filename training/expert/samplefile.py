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

A file also records its game: `game`, the game's registry name as a 0-d text array (a file
without it holds Last Will's samples, as every file did before games were named). The reader
is told the game it expects (`gamecore.Game`, Last Will by default) and refuses a file of
another; the ranges above are that game's (`player_counts`, `obs_size`, `num_actions`).

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

from agents.mcts import MAX_SIMS
from gamecore import DEFAULT_GAME, Game, load_game
from gamecore.plain import in_words

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
GAME_KEY = "game"  # the game's name, beside the arrays (module docstring)
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


def read_sample_file(path: str | Path, game: Game | str | None = None) -> dict[str, np.ndarray]:
    """The checked arrays of the samples file `path`, a file of `game`'s samples (Last Will's
    by default; module docstring)."""
    path = Path(path)
    return check_samples(_load(path), path, game)


def game_entry(game: Game) -> dict[str, np.ndarray]:
    """What a samples file of `game` holds beside `pack`'s arrays: its game's name."""
    return {GAME_KEY: np.array(game.name)}


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
    unknown = sorted(set(names) - set(DTYPES) - {GAME_KEY})
    holds = f"a samples file holds {', '.join(DTYPES)} (and its {GAME_KEY})"
    if missing:
        raise SampleFileError(f"samples file {path} has no array(s) {missing}; {holds}")
    if unknown:
        raise SampleFileError(f"samples file {path} holds unknown array(s) {unknown}; {holds}")


def check_samples(
    raw: dict[str, np.ndarray], path: Path, game: Game | str | None = None
) -> dict[str, np.ndarray]:
    """`raw` (a samples file's arrays) checked as samples of `game` (Last Will's by default)
    and in `pack`'s dtypes, without the game's name; `SampleFileError` naming `path`
    otherwise."""
    game = game if isinstance(game, Game) else load_game(game)
    _check_names(path, list(raw))
    _check_game(path, raw.get(GAME_KEY), game)
    lim = _Limits(game)
    data = {k: _typed(path, k, np.asarray(raw[k]), lim) for k in DTYPES}
    _check_lengths(path, data, lim)
    _check_per_sample(path, data, lim)
    _check_observations(path, data, lim)
    _check_actions(path, data, lim)
    return data


def _check_game(path: Path, entry: np.ndarray | None, game: Game) -> None:
    """The file's game (none recorded: Last Will) is `game`."""
    if entry is None:
        name = DEFAULT_GAME
    else:
        a = np.asarray(entry)
        if a.ndim != 0 or a.dtype.kind != "U":
            raise _fail(path, f"{GAME_KEY} holds {a!r}, not a game's name")
        name = str(a)
    if name != game.name:
        raise _fail(
            path,
            f"it holds samples of the game {name!r}, not of {game.name!r}; a run learns "
            f"the samples of its own game only",
        )


def _fail(path: Path, text: str) -> SampleFileError:
    return SampleFileError(f"samples file {path}: {text}")


def _typed(path: Path, name: str, a: np.ndarray, lim: _Limits) -> np.ndarray:
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
                path, f"{name} holds {int(a[j])} (entry {j}), beyond any index; {lim.allowed[name]}"
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


class _Limits:
    """A game's ranges of a samples file, and what each array allows in words."""

    def __init__(self, game: Game):
        obs, acts = self.obs_size, self.num_actions = game.obs_size, game.num_actions
        self.counts = tuple(game.player_counts)
        self.allowed = {
            "n": f"use a player count, {in_words(self.counts)}",
            "seat": "use 0 to n - 1 (a seat of the sample's game)",
            "obs_len": f"use 0 to {obs} (the entries of an observation)",
            "obs_idx": f"use 0 to {obs - 1} (an entry of the observation)",
            "legal_len": f"use 2 to {acts} (a searched decision has a choice)",
            "legal": f"use 0 to {acts - 1} (an action of the action table)",
            "prior": f"use -1 (no prior) or 0 to {acts - 1} (the prior bot's action)",
            "net_choice": f"use 0 to {acts - 1} (the network's action)",
            "result": "use -1 to 1 (the seat's zero_sum result)",
            "visits": "visit counts and policy targets are non-negative",
        }


def _outside(
    path: Path, name: str, a: np.ndarray, ok: np.ndarray, lim: _Limits, owner=None
) -> None:
    """Refuse the first entry of `a` where `ok` is false, naming its sample."""
    if ok.all():
        return
    j = int(np.argmax(~ok))
    sample = j if owner is None else int(owner[j])
    raise _fail(path, f"{name} holds {a[j].item()!r} (sample {sample}); {lim.allowed[name]}")


def _check_lengths(path: Path, data: dict[str, np.ndarray], lim: _Limits) -> None:
    count = len(data["n"])
    for name in PER_SAMPLE:
        if len(data[name]) != count:
            raise _fail(
                path, f"{name} has {len(data[name])} entries, but n has {count} (one per sample)"
            )
    for lens, sizes, top in (
        ("obs_len", ("obs_idx", "obs_val"), lim.obs_size),
        ("legal_len", ("legal", "visits"), lim.num_actions),
    ):
        low = 0 if lens == "obs_len" else 2
        _outside(path, lens, data[lens], (data[lens] >= low) & (data[lens] <= top), lim)
        total = int(data[lens].sum())
        for name in sizes:
            if len(data[name]) != total:
                raise _fail(
                    path, f"{name} has {len(data[name])} entries, but {lens} sums to {total}"
                )


def _check_per_sample(path: Path, data: dict[str, np.ndarray], lim: _Limits) -> None:
    n, seat, acts = data["n"], data["seat"], lim.num_actions
    _outside(path, "n", n, np.isin(n, lim.counts), lim)
    _outside(path, "seat", seat, (seat >= 0) & (seat < n), lim)
    prior, net = data["prior"], data["net_choice"]
    _outside(path, "prior", prior, (prior >= -1) & (prior < acts), lim)
    _outside(path, "net_choice", net, (net >= 0) & (net < acts), lim)
    result = data["result"]
    _outside(path, "result", result, (result >= -1) & (result <= 1), lim)


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


def _check_observations(path: Path, data: dict[str, np.ndarray], lim: _Limits) -> None:
    idx, owner = data["obs_idx"], _owners(data["obs_len"])
    _outside(path, "obs_idx", idx, (idx >= 0) & (idx < lim.obs_size), lim, owner)
    _check_once(path, "obs_idx", idx, owner, lim.obs_size)


def _check_actions(path: Path, data: dict[str, np.ndarray], lim: _Limits) -> None:
    legal, visits, owner = data["legal"], data["visits"], _owners(data["legal_len"])
    _outside(path, "legal", legal, (legal >= 0) & (legal < lim.num_actions), lim, owner)
    _check_once(path, "legal", legal, owner, lim.num_actions)
    _outside(path, "visits", visits, visits >= 0, lim, owner)
    sums = np.bincount(owner, weights=visits.astype(np.float64), minlength=len(data["n"]))
    bad = ~((sums > 0) & (sums <= MAX_TARGET_SUM))
    if bad.any():
        r = int(np.argmax(bad))
        raise _fail(
            path,
            f"the visits of sample {r} sum to {sums[r]:g}; each sample's policy "
            f"targets sum to more than 0 and at most {MAX_TARGET_SUM}",
        )
