"""The files ``lastwill view`` serves: what it was started with, and nothing a client names
outside it.

A :class:`Roots` holds the files given on the command line and the folders whose ``.json`` and
``.jsonl`` files may be opened (the folders given on the command line, the save folder of live
games and the shipped examples). A client names a file by a path inside them (absolute, or
relative to one of the folders) that the folder's listing could show: at most four folder
levels down, with no folder or file name starting with '.'. Every other path, and a path that
leads out through a symbolic link or ``..``, is answered exactly like a file that does not
exist, so an answer never tells whether something outside exists.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .core import ViewError
from .limits import MAX_PATH, shown

SUFFIXES = (".json", ".jsonl")
LIST_LIMIT = 500  # files listed for the page
WALK_LIMIT = 5000  # folder entries looked at when listing
WALK_DEPTH = 4  # folder levels below a served folder that are listed


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(path))))


class Roots:
    """The files (``files``) and the folders (``folders``) whose game files the viewer
    serves; paths are kept with every symbolic link resolved."""

    def __init__(self, files: Iterable[str | Path] = (), folders: Iterable[str | Path] = ()):
        self.files: list[Path] = []
        self.folders: list[Path] = []
        for f in files:
            self.add_file(f)
        for d in folders:
            self.add_folder(d)

    def add_file(self, path: str | Path) -> Path:
        p = _real(path)
        if p not in self.files:
            self.files.append(p)
        return p

    def add_folder(self, path: str | Path) -> Path:
        p = _real(path)
        if p not in self.folders:
            self.folders.append(p)
        return p

    def admits(self, real: Path) -> bool:
        """Whether the (already resolved) path ``real`` is one the viewer serves: a file it was
        given, or a file the listing could show (:func:`listed_under`)."""
        if real in self.files:
            return True
        if real.suffix not in SUFFIXES:
            return False
        return any(listed_under(real, d) for d in self.folders)

    def described(self) -> list[str]:
        return [str(f) for f in self.files] + [f"{d}{os.sep}" for d in self.folders]

    def _refuse(self, name: Any) -> ViewError:
        return ViewError(
            f"{shown(name)} is not a log or game file this viewer serves: it opens the files it "
            f"was started with and the .json and .jsonl files under its folders (listed in "
            f"'allowed'; start `lastwill view` with another file or folder to open others)",
            status=404,
            allowed=self.described(),
        )

    def find(self, name: Any) -> Path:
        """The served file ``name`` names (absolute, relative to a served folder, or relative
        to the working directory); a :class:`ViewError` (404) with one message for a path that
        is missing, outside the served folders or not a file."""
        if not isinstance(name, str) or not name.strip():
            raise ViewError("name the file as a non-empty string path", allowed=self.described())
        if len(name) > MAX_PATH or "\x00" in name:
            raise ViewError(
                f"a path of {len(name)} characters (or with a NUL character) is not a file "
                f"name; paths are at most {MAX_PATH} characters",
                allowed=self.described(),
            )
        given = Path(name.strip()).expanduser()
        tried = [given] if given.is_absolute() else [d / given for d in self.folders] + [given]
        for candidate in tried:
            try:
                real = _real(candidate)
                if self.admits(real) and real.is_file():
                    return real
            except (OSError, ValueError):
                continue
        raise self._refuse(name)

    def listing(self) -> list[dict[str, str]]:
        """The served files that exist (the given files, then each folder's ``.json`` and
        ``.jsonl`` files a few levels down), at most :data:`LIST_LIMIT` of them."""
        out: list[dict[str, str]] = []
        seen: set[Path] = set()

        def add(p: Path, folder: str) -> None:
            if p not in seen and len(out) < LIST_LIMIT:
                seen.add(p)
                out.append({"path": str(p), "name": p.name, "folder": folder})

        for f in self.files:
            if f.is_file():
                add(f, str(f.parent))
        for d in self.folders:
            for p in _walk(d):
                add(p, str(d))
        return out


def listed_under(real: Path, folder: Path) -> bool:
    """Whether ``real`` lies under ``folder`` where :func:`_walk` looks: at most
    :data:`WALK_DEPTH` folder levels down, no folder or file name starting with '.'."""
    if not real.is_relative_to(folder) or real == folder:
        return False
    parts = real.relative_to(folder).parts
    return len(parts) <= WALK_DEPTH + 1 and not any(p.startswith(".") for p in parts)


def _walk(folder: Path) -> list[Path]:
    """The ``.json``/``.jsonl`` files under ``folder`` (no hidden folders, no links out, at
    most :data:`WALK_DEPTH` levels and :data:`WALK_LIMIT` entries looked at), sorted."""
    found: list[Path] = []
    seen = 0
    for top, dirs, names in os.walk(folder):
        level = len(Path(top).relative_to(folder).parts)
        dirs[:] = sorted(x for x in dirs if not x.startswith(".")) if level < WALK_DEPTH else []
        for n in sorted(names):
            seen += 1
            if seen > WALK_LIMIT:
                return found
            p = Path(top) / n
            if p.suffix in SUFFIXES and not n.startswith(".") and not p.is_symlink():
                found.append(p)
    return found
