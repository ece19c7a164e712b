"""Reading a file the user named (a run's state, a config, a saved game, a checkpoint's
sidecar): one ladder of errors, each a one-line message that names the file and what is wrong.

The ladder, in the order it is met:

- the file does not exist, or is a directory: ``missing_hint`` (what to do) follows;
- it cannot be read (no permission, an I/O error): the system's reason;
- it is not UTF-8 text, it is empty, it is nested too deeply, or its content does not parse
  (JSON by default, any ``parse`` that raises ``ValueError``): ``damaged_hint`` follows.

Each caller keeps its own exception class (``error=``), so a command still reports its error
the way it always has (exit code 2 on the CLI). Writing files is :mod:`agents.safeio`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


class ReadError(ValueError):
    """A file that cannot be read as asked; the message names it and what is wrong."""


def _subject(path: Path, what: str) -> str:
    return f"{what} {path}" if what else str(path)


def _with(message: str, hint: str) -> str:
    return f"{message}; {hint}" if hint else message


def read_text(
    path: str | Path,
    what: str = "",
    *,
    error: Callable[[str], Exception] = ReadError,
    missing_hint: str = "",
    damaged_hint: str = "",
) -> str:
    """The UTF-8 text of ``path``; otherwise ``error(message)``. ``what`` names the file in
    the message ("config file"); the hints follow the messages of their cases (module
    docstring)."""
    path = Path(path)
    subject = _subject(path, what)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(_with(f"{subject} does not exist", missing_hint)) from None
    except IsADirectoryError:
        raise error(_with(f"{subject} is a directory, not a file", missing_hint)) from None
    except OSError as e:
        if path.is_dir():  # some systems refuse to open a directory with another error
            raise error(_with(f"{subject} is a directory, not a file", missing_hint)) from None
        raise error(f"cannot read {subject}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        reason = f"byte 0x{e.object[e.start]:02x} at position {e.start}"
        raise error(_with(f"{subject} is not UTF-8 text ({reason})", damaged_hint)) from None


def read_data(
    path: str | Path,
    what: str = "",
    *,
    parse: Callable[[str], Any] = json.loads,
    form: str = "JSON",
    error: Callable[[str], Exception] = ReadError,
    missing_hint: str = "",
    damaged_hint: str = "",
) -> Any:
    """``parse`` of the text of ``path`` (:func:`read_text`); a parse that fails is reported as
    the file being empty, nested too deeply or not valid ``form``."""
    text = read_text(path, what, error=error, missing_hint=missing_hint, damaged_hint=damaged_hint)
    subject = _subject(Path(path), what)
    try:
        return parse(text)
    except RecursionError:
        raise error(_with(f"{subject} is nested too deeply to read", damaged_hint)) from None
    except ValueError as e:
        if not text.strip():
            raise error(_with(f"{subject} is empty", damaged_hint)) from None
        raise error(_with(f"{subject} is not valid {form} ({e})", damaged_hint)) from None


def read_json(path: str | Path, what: str = "", **options: Any) -> Any:
    """The JSON value in ``path`` (:func:`read_data` with ``json.loads``)."""
    return read_data(path, what, parse=json.loads, form="JSON", **options)
