"""Safe file output for every file the lab writes (game records, logs, plots, run files,
checkpoints).

Three habits, used by `lastwill play`, `lastwill arena` and `lastwill train`:

- **Check first.** :func:`check_destination` (a file) and :func:`check_directory` (a run
  directory) are called before any game is played or any training starts: the destination
  must not be a directory (or, for a run directory, a file), its nearest existing parent must
  be a writable directory, and an existing file is refused unless the user asked to replace it
  (``--force``) or to continue it (``--resume``).
- **Write whole files atomically.** :func:`write_bytes`, :func:`write_text`, :func:`write_json`,
  :func:`write_with` (a callback that writes a temporary path, e.g. ``np.savez`` or SB3's
  ``model.save``) and :func:`open_atomic` write to a temporary name in the same directory,
  flush and fsync it, then rename it into place (``os.replace``). With ``overwrite=False`` the
  rename refuses an existing file (a hard link, which fails if the name exists), so a file that
  appeared meanwhile is never replaced. A reader sees the old file or the new one, never a part.
- **Leave nothing behind.** A temporary name is ``.STEM.tmp-PID-XXXXXX.SUFFIX`` beside its
  destination (:func:`temp_path`; PID is the writing process). A write that is killed leaves
  that file; :func:`remove_leftover_temps` (called when a run, or the log of an arena or an
  evaluation, starts again) removes the ones whose writer is no longer running, and only names
  of that form.
- **Bundles change together.** A checkpoint is several files (``NAME.zip``, ``NAME.npz``) and a
  JSON sidecar ``NAME.json``. :func:`write_bundle` writes the companions first and the sidecar
  last; the sidecar records each companion's size and sha256 under ``"files"``, and
  :func:`verify_bundle` (called on every load) refuses a companion that does not match it: a
  copy interrupted between two renames is reported, never played or trained on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any


class DestinationError(ValueError):
    """A place the lab cannot or must not write to; the message says why and what to do."""


class BundleError(ValueError):
    """A file bundle (checkpoint) whose companions do not match its sidecar."""


# ---------------------------------------------------------------------------------------------
# Checking a destination before the work starts


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _writable_dir(d: Path) -> bool:
    """True when files can be created in directory `d` (asked of the file system itself)."""
    if not os.access(d, os.W_OK | os.X_OK):
        return False
    try:
        fd, probe = tempfile.mkstemp(prefix=".lastwill-probe-", dir=d)
    except OSError:
        return False
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return True


def _check_parent(path: Path, what: str) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    base = _nearest_existing(parent)
    if not base.is_dir():
        raise DestinationError(
            f"cannot write the {what} {path}: {base} is a file, not a directory; "
            f"choose a path in a directory"
        )
    if not _writable_dir(base):
        raise DestinationError(
            f"cannot write the {what} {path}: the directory {base} is not writable; "
            f"choose another place"
        )


def check_destination(
    path: str | os.PathLike,
    what: str = "output file",
    *,
    exists_ok: bool = False,
    hint: str = "pass --force to replace it, or choose another name",
) -> Path:
    """Refuse a file destination that cannot be written, before any work is done.

    `path` must not be a directory; the nearest existing parent must be a writable directory
    (missing directories are created when the file is written); an existing file is refused
    unless `exists_ok` (the caller was told to replace or continue it). `hint` ends the
    refusal of an existing file.
    """
    path = Path(path)
    if path.is_dir():
        raise DestinationError(
            f"the {what} {path} is a directory; give a file name (e.g. {path / 'out.json'})"
        )
    if path.exists() or path.is_symlink():
        if not exists_ok:
            raise DestinationError(f"{path} already exists; refusing to overwrite it ({hint})")
        if not path.is_file():
            raise DestinationError(f"the {what} {path} exists and is not a regular file")
    _check_parent(path, what)
    return path


def check_directory(path: str | os.PathLike, what: str = "run directory") -> Path:
    """Refuse a directory destination that is a file or cannot be created or written."""
    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise DestinationError(
                f"the {what} {path} is a file, not a directory; choose another path"
            )
        if not _writable_dir(path):
            raise DestinationError(f"the {what} {path} is not writable; choose another path")
        return path
    _check_parent(path, what)
    return path


# ---------------------------------------------------------------------------------------------
# Atomic writes


def temp_path(path: Path) -> Path:
    """A fresh hidden name beside `path`, keeping its suffix (np.savez and SB3 add theirs)."""
    return path.with_name(f".{path.stem}.tmp-{os.getpid()}-{secrets.token_hex(3)}{path.suffix}")


# what temp_path makes: "." + stem + ".tmp-" + writer PID + "-" + 6 hex digits + suffix
_TEMP_NAME = re.compile(r"\.(?P<stem>.+)\.tmp-(?P<pid>[0-9]+)-[0-9a-f]{6}(?P<suffix>\.[^.]*)?")


def temp_owner(name: str) -> tuple[str, int, str] | None:
    """``(stem, writer PID, suffix)`` of a file name made by :func:`temp_path`, else None."""
    m = _TEMP_NAME.fullmatch(name)
    if m is None:
        return None
    return m["stem"], int(m["pid"]), m["suffix"] or ""


def pid_alive(pid: int) -> bool:
    """True unless process `pid` is known to have ended (asked of the system; where it cannot
    be asked, a process counts as running)."""
    if pid <= 0 or os.name != "posix":
        return pid > 0
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, owned by someone else
        return True
    return True


def remove_leftover_temps(
    directory: str | os.PathLike,
    *,
    of: str | os.PathLike | None = None,
    recursive: bool = False,
) -> list[Path]:
    """Remove the temporary files that interrupted writes left in `directory` (and, with
    `recursive`, its subdirectories); return their paths.

    Only regular files whose name :func:`temp_path` makes are removed, and only when the
    process that wrote them (the PID in the name) is not this one and is no longer running:
    another writer's temporary file in progress is left alone. With `of`, only the temporary
    files of that destination (same directory, stem and suffix) are considered."""
    directory = Path(directory)
    want = None if of is None else (Path(of).stem, Path(of).suffix)
    if not directory.is_dir():
        return []
    walk = os.walk(directory) if recursive else [(str(directory), [], os.listdir(directory))]
    removed = []
    for root, _dirs, names in walk:
        for name in names:
            owner = temp_owner(name)
            if owner is None or (want is not None and (owner[0], owner[2]) != want):
                continue
            if owner[1] == os.getpid() or pid_alive(owner[1]):
                continue
            path = Path(root) / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    path.unlink()
                    removed.append(path)
            except OSError:
                continue  # gone meanwhile, or not ours to remove
    return removed


def fsync_dir(d: Path) -> None:
    """Make a rename in `d` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(p: Path) -> None:
    with open(p, "rb+") as f:
        os.fsync(f.fileno())


def _commit(tmp: Path, path: Path, overwrite: bool) -> None:
    if overwrite:
        os.replace(tmp, path)
    else:
        try:
            os.link(tmp, path)  # fails if `path` exists: never replaces a file
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links
            if path.exists():
                raise FileExistsError(f"{path} already exists") from None
            os.replace(tmp, path)
        else:
            os.unlink(tmp)
    fsync_dir(path.parent)


def write_with(
    path: str | os.PathLike, writer: Callable[[Path], Any], *, overwrite: bool = True
) -> Path:
    """`writer(tmp)` writes the whole file to a temporary path; it is fsynced and renamed to
    `path`. With `overwrite=False` an existing `path` raises FileExistsError (and is kept)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        writer(tmp)
        if not tmp.exists():
            raise OSError(f"the writer did not create {tmp}")
        _fsync_file(tmp)
        _commit(tmp, path, overwrite)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return path


def write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = True) -> Path:
    return write_with(path, lambda t: t.write_bytes(data), overwrite=overwrite)


def write_text(path: str | os.PathLike, text: str, *, overwrite: bool = True) -> Path:
    return write_bytes(path, text.encode("utf-8"), overwrite=overwrite)


def write_json(
    path: str | os.PathLike, data: Any, *, overwrite: bool = True, indent: int | None = 1
) -> Path:
    return write_text(path, json.dumps(data, indent=indent) + "\n", overwrite=overwrite)


@contextlib.contextmanager
def open_atomic(
    path: str | os.PathLike, mode: str = "w", *, overwrite: bool = True
) -> Iterator[IO[Any]]:
    """A file object on a temporary name; renamed to `path` when the block ends cleanly, and
    removed (with `path` untouched) when it raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        kw = {} if "b" in mode else {"encoding": "utf-8"}
        with open(tmp, mode, **kw) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        _commit(tmp, path, overwrite)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def fallback_path(path: str | os.PathLike, root: str | os.PathLike | None = None) -> Path:
    """A new file name for output whose own destination failed: in `root` (default: the
    system's temporary directory), named after `path` and the time, never an existing file."""
    path = Path(path)
    root = Path(root) if root is not None else Path(tempfile.gettempdir())
    stamp = time.strftime("%Y%m%d-%H%M%S")
    cand = root / f"lastwill-{path.stem}-{stamp}{path.suffix}"
    k = 1
    while cand.exists():
        cand = root / f"lastwill-{path.stem}-{stamp}-{k}{path.suffix}"
        k += 1
    return cand


# ---------------------------------------------------------------------------------------------
# Bundles: companions + a sidecar manifest written last


def file_digest(path: str | os.PathLike) -> dict[str, Any]:
    h = hashlib.sha256()
    n = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            n += len(block)
    return {"bytes": n, "sha256": h.hexdigest()}


def bundle_base(path: str | os.PathLike) -> Path:
    """`run/best.zip`, `run/best.npz`, `run/best.json` and `run/best` all name `run/best`."""
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".zip", ".npz", ".pt", ".json") else p


def write_bundle(
    base: str | os.PathLike,
    writers: Mapping[str, Callable[[Path], Any]],
    meta: Mapping[str, Any],
) -> Path:
    """Write the companions `base + suffix` (each through `write_with`), then the sidecar
    `base.json` = `meta` plus `"files": {suffix: {"bytes", "sha256"}}`, last. Returns the
    sidecar's path."""
    base = bundle_base(base)
    files: dict[str, Any] = {}
    for suffix, writer in writers.items():
        target = base.with_name(base.name + suffix)
        write_with(target, writer)
        files[suffix] = file_digest(target)
    sidecar = base.with_name(base.name + ".json")
    write_json(sidecar, {**meta, "files": files})
    return sidecar


def verify_bundle(base: str | os.PathLike, meta: Mapping[str, Any]) -> None:
    """Every companion that `meta["files"]` lists and that is present must match its recorded
    size and sha256 (a companion left out on purpose, such as the `.zip` of a shipped `.npz`
    policy, may be absent). A sidecar without `"files"` (written before manifests) passes."""
    base = bundle_base(base)
    files = meta.get("files")
    if files is None:
        return
    if not isinstance(files, dict):
        raise BundleError(f"{base}.json: 'files' must map suffixes to digests")
    for suffix, want in files.items():
        target = base.with_name(base.name + str(suffix))
        if not target.exists():
            continue
        if not isinstance(want, dict) or "sha256" not in want:
            raise BundleError(f"{base}.json: the entry for {suffix} has no sha256")
        got = file_digest(target)
        if got != {"bytes": want.get("bytes"), "sha256": want["sha256"]}:
            raise BundleError(
                f"{target} does not match its sidecar {base.name}.json (recorded "
                f"{want.get('bytes')} bytes, sha256 {str(want['sha256'])[:12]}..., found "
                f"{got['bytes']} bytes, sha256 {got['sha256'][:12]}...): the checkpoint was "
                f"damaged or replaced part-way; use another checkpoint"
            )
