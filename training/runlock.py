"""The lock of a run directory: one trainer at a time writes a run.

:func:`run_lock` holds ``RUN/trainer.lock`` while a trainer (`lastwill train`, any backend, and
`lastwill exploit`) works in ``RUN``. The file records the holder (PID, host, start time,
command line) and is locked with ``fcntl.flock``, which the system releases when the holder
ends, however it ends. So:

- a second trainer on the same directory is refused with a :class:`~training.rundir.TrainError`
  naming the holder's PID (``lastwill train`` exits 2);
- a lock file left by a trainer that was killed (its lock released by the system) is stale: it
  is taken over, and the caller is told whose it was;
- the holding process may enter the lock again (`exploit` trains through `train`);
- the file is removed when the block ends.

Once the lock is held, the temporary files that killed writes left in the run directory are
removed (:func:`agents.safeio.remove_leftover_temps`), and the caller is told which.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agents.safeio import pid_alive, remove_leftover_temps

from .rundir import TrainError

try:
    import fcntl
except ImportError:  # no flock on this system: the lock file alone (O_EXCL) marks the holder
    fcntl = None  # type: ignore[assignment]

LOCK = "trainer.lock"
_HELD: dict[str, int] = {}  # run directories this process holds, and how many times


def _holder(fd: int) -> dict[str, Any]:
    """What a lock file records (empty when it is new, damaged or unreadable)."""
    try:
        data = os.pread(fd, 4096, 0)
        info = json.loads(data) if data.strip() else {}
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def _describe(info: dict[str, Any]) -> str:
    where = f" on {info['host']}" if info.get("host") else ""
    since = f", started {info['started']}" if info.get("started") else ""
    return f"PID {info.get('pid', '?')}{where}{since}"


def _refuse(run: Path, path: Path, info: dict[str, Any]) -> TrainError:
    return TrainError(
        f"{run} is in use by another trainer ({_describe(info)}; lock file {path}); wait for "
        f"it to end, or stop that process, or choose another --run-dir"
    )


def _open_locked(run: Path, path: Path) -> tuple[int, dict[str, Any]]:
    """The lock file's descriptor, locked by this process, and what it recorded before."""
    stale: dict[str, Any] = {}
    for _ in range(10):  # a holder removing its file between our open and lock: try again
        if fcntl is None:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                with open(path, "rb") as f:
                    info = _holder(f.fileno())
                pid = info.get("pid")
                if not isinstance(pid, int) or pid_alive(pid):
                    raise _refuse(run, path, info) from None
                stale = info
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                continue
            return fd, stale
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            info = _holder(fd)
            os.close(fd)
            raise _refuse(run, path, info) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd, _holder(fd)
        os.close(fd)
    raise TrainError(f"cannot take the lock {path}: it keeps being replaced; try again")


def _acquire(run: Path, say: Callable[[str], None]) -> int:
    path = run / LOCK
    try:
        fd, old = _open_locked(run, path)
    except OSError as e:
        raise TrainError(f"cannot create the lock {path}: {e}") from None
    if old:
        say(
            f"note: took over the stale lock of {run} ({_describe(old)}, no longer running; "
            f"its run was interrupted)"
        )
    info = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": sys.argv,
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
    os.fsync(fd)
    return fd


@contextlib.contextmanager
def run_lock(run: str | os.PathLike, notify: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of run directory `run` (made if missing) for the block (module
    docstring); `notify` gets the notes (a stale lock taken over, leftover files removed)."""
    run = Path(run)
    say = notify or (lambda text: print(text, file=sys.stderr))
    key = os.path.realpath(run)
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    run.mkdir(parents=True, exist_ok=True)
    fd = _acquire(run, say)
    _HELD[key] = 1
    try:
        removed = remove_leftover_temps(run, recursive=True)
        if removed:
            names = ", ".join(str(p.relative_to(run)) for p in removed[:5])
            more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
            say(
                f"note: removed {len(removed)} temporary file(s) left by interrupted writes "
                f"in {run}: {names}{more}"
            )
        yield
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):
            os.unlink(run / LOCK)
        os.close(fd)
