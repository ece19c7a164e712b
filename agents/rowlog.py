"""A JSONL log written as it grows, that loses no row: :class:`RowLog` (`lastwill eval`'s log).

The first line is a header; then one row per line, each flushed as it is written, so a run
that is stopped keeps every row it finished. A new log is created exclusively (a file that
appeared meanwhile is never replaced); a resumed log is cut back to its intact part (a torn
last line is dropped) and appended to.

When the destination cannot be written, at the start (the file appeared meanwhile, its folder
became unwritable) or later (a full disk, a lost mount, the file or its folder deleted while
the log is open, which writes would not notice), the log moves to a fallback file
(:func:`agents.safeio.fallback_path`: beside the destination, else in the system's temporary
directory) that holds the header and every row so far, and ``on_note`` is told its path.
Only when no fallback can be written either is a :class:`~agents.safeio.DestinationError`
raised, naming every place tried.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from .safeio import DestinationError, fallback_path


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


class RowLog:
    """The log at `path` (module docstring). `rows` are the rows already in the file and
    `good` the size of its intact part, when it is resumed (``None``: a new file)."""

    def __init__(
        self,
        path: str | os.PathLike,
        header: dict[str, Any],
        *,
        rows: Iterable[dict[str, Any]] = (),
        good: int | None = None,
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.header = header
        self.rows = list(rows)
        self.note = on_note or (lambda text: None)
        self.fallback: Path | None = None
        self._f: IO[str] | None = None
        try:
            self._f = self._open(good)
        except OSError as e:
            self._move(e)

    @property
    def out(self) -> Path:
        """Where the rows are: the destination, or the fallback file it moved to."""
        return self.fallback or self.path

    def _open(self, good: int | None) -> IO[str]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if good is None:
            # "x": never over a file that appeared meanwhile; open for the log's life
            f = open(self.path, "x", encoding="utf-8")  # noqa: SIM115
        else:
            if good != self.path.stat().st_size:
                with open(self.path, "r+b") as raw:  # drop the torn last line
                    raw.truncate(good)
            f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        if f.tell() == 0:
            f.write(_line(self.header))
            f.flush()
        return f

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and flush it (moving to the fallback file if that fails)."""
        if self._f is None:
            raise ValueError(f"the log {self.out} is closed")
        self.rows.append(row)
        try:
            self._f.write(_line(row))
            self._f.flush()
            self._check_linked(self._f)
        except OSError as e:
            self._move(e)

    def _check_linked(self, f: IO[str]) -> None:
        """Raise when the open file `f` has no name left (it, or its folder, was deleted): what
        is written to it would be lost when it is closed."""
        if os.fstat(f.fileno()).st_nlink == 0:
            raise FileNotFoundError(errno.ENOENT, f"{self.out} was deleted while it was written")

    def _move(self, error: OSError) -> None:
        """Continue in a fallback file that gets the header and every row so far."""
        if self._f is not None:
            with contextlib.suppress(OSError):
                self._f.close()
            self._f = None
        tried = []
        for root in (self.path.parent, None):
            cand = fallback_path(self.path, root)
            try:
                f = open(cand, "x", encoding="utf-8")  # noqa: SIM115
            except OSError as e:
                tried.append(f"{cand} ({e})")
                continue
            try:
                f.write(_line(self.header))
                f.writelines(_line(r) for r in self.rows)
                f.flush()
            except OSError as e:
                with contextlib.suppress(OSError):
                    f.close()
                tried.append(f"{cand} ({e})")
                continue
            self._f, self.fallback = f, cand
            self.note(
                f"cannot write the log {self.path} ({type(error).__name__}: {error}); its "
                f"{len(self.rows)} games so far and the rest go to {cand}"
            )
            return
        raise DestinationError(
            f"cannot write the log {self.path} ({error}), nor a fallback file: " + "; ".join(tried)
        )

    def close(self) -> None:
        """Flush, fsync and close the file."""
        if self._f is None:
            return
        try:
            self._check_linked(self._f)
        except OSError as e:
            self._move(e)
        f, self._f = self._f, None
        try:
            f.flush()
            os.fsync(f.fileno())
        except OSError as e:  # the last rows did not reach the disk: all go to a fallback
            self._move(e)
            self.close()
        finally:
            with contextlib.suppress(OSError):
                f.close()

    def __enter__(self) -> RowLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
