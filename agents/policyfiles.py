"""Policies by name: ``ppo:reference``, ``ppo:ref_v5``, and the paths they stand for.

A policy argument (of ``ppo:ARG``, ``mcts:policy=ARG``, `agents.policy.load_policy`) is a
*name* when it is one word without a folder or a file suffix; anything else is a path, used as
it is. Names resolve to files of the lab only, so they are as trusted as the lab's code
(docs/TRUST.md; the viewer serves them too):

- ``reference`` is the policy shipped inside the package (`SHIPPED`, ``agents/policies/``): it
  plays from any directory, wherever the lab is installed;
- the earlier policies (``ref_v1`` ... ``ref_v6``) live in ``policies/`` of a source checkout
  (`CHECKOUT`, with ``policies/INDEX.md`` and ``index.json``): an editable install finds
  them; an installed wheel has the reference only, and naming another says so.

Paths written before the earlier policies left the package: ``agents/policies/reference.npz``
(relative to any directory) still finds the shipped file; ``agents/policies/ref_v5.npz`` and
the like, when no such file exists, fail with a message naming the new form ``ppo:ref_v5``.
Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

SHIPPED = Path(__file__).resolve().parent / "policies"  # inside the package
CHECKOUT = Path(__file__).resolve().parents[1] / "policies"  # beside it, in a source checkout
SHIPPED_NAMES = ("reference",)

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_OLD_DIR = ("agents", "policies")


class PolicyNameError(ValueError):
    """A policy name (or an old spelled-out path) that names no policy of this lab."""


def is_name(arg: str) -> bool:
    """Whether a policy argument is a name (one word: no folder, no suffix) rather than a path."""
    return bool(_NAME.fullmatch(arg))


def checkout_names() -> list[str]:
    """The names of the earlier policies found in the checkout's ``policies/`` (none when the
    lab is installed without its checkout)."""
    if not CHECKOUT.is_dir():
        return []
    return sorted(p.stem for p in CHECKOUT.glob("*.npz") if is_name(p.stem))


def known_names(game: str | None = None) -> list[str]:
    """Every name that resolves here: the shipped ones, then the checkout's; with ``game``,
    only the policies of that game (their sidecar's ``"game"``; none: Last Will)."""
    names = [*SHIPPED_NAMES, *(n for n in checkout_names() if n not in SHIPPED_NAMES)]
    return names if game is None else [n for n in names if game_of_name(n) == game]


def game_of_name(name: str) -> str:
    """The game a named policy plays, from its sidecar (a sidecar without ``"game"``, or none
    that reads as a JSON object: Last Will's, whose policies predate the key)."""
    import json

    side = named_file(name).with_suffix(".json")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    game = meta.get("game") if isinstance(meta, dict) else None
    return game if isinstance(game, str) else "lastwill"


def _unknown(name: str) -> PolicyNameError:
    where = (
        f"the earlier policies live in {CHECKOUT}"
        if CHECKOUT.is_dir()
        else "the earlier policies (ref_v1 ... ref_v7 and the others of policies/INDEX.md) live "
        "in policies/ of a source checkout of the lab, which this installation does not have"
    )
    return PolicyNameError(
        f"unknown policy name {name!r}; known names: {', '.join(known_names())} ({where}; "
        f"policies/INDEX.md lists them), or give the path of a .npz checkpoint"
    )


def named_file(name: str) -> Path:
    """The ``.npz`` a policy name stands for; `PolicyNameError` listing the known names."""
    if name in SHIPPED_NAMES:
        return SHIPPED / f"{name}.npz"
    if name in checkout_names():
        return CHECKOUT / f"{name}.npz"
    raise _unknown(name)


def _old_spelling(arg: str) -> str | None:
    """The file name of an ``agents/policies/FILE`` path (any folder before it), else None."""
    parts = PurePosixPath(arg.replace("\\", "/")).parts
    if len(parts) >= 3 and tuple(parts[-3:-1]) == _OLD_DIR:
        return parts[-1]
    return None


def resolve(arg: str) -> str:
    """The path a policy argument stands for: a name's file, the shipped file for an old
    ``agents/policies/reference.*`` path that does not exist as given, and any other path as
    it is. An old path of a policy that left the package fails, naming its new form."""
    if is_name(arg):
        return str(named_file(arg))
    old = _old_spelling(arg)
    if old is None or Path(arg).exists():
        return arg
    stem, suffix = Path(old).stem, Path(old).suffix
    if stem in SHIPPED_NAMES:
        return str(SHIPPED / f"{stem}{suffix}")
    if is_name(stem):
        raise PolicyNameError(
            f"{arg} is no longer in the package: the earlier policies moved to policies/ of "
            f"the source checkout; name it ppo:{stem} (mcts:policy={stem}). Known names: "
            f"{', '.join(known_names())}"
        )
    return arg


def lab_file(arg: str) -> Path | None:
    """The lab's own file a policy argument names (a name, or an old spelling of a shipped
    file), ``None`` for anything else and for a name that resolves to nothing. Such a file is
    the lab's, so a reader of data (the viewer) may open it wherever the lab is installed."""
    try:
        if is_name(arg):
            return named_file(arg)
        old = _old_spelling(arg)
        if old is not None and Path(old).stem in SHIPPED_NAMES:
            found = SHIPPED / old
            return found if found.is_file() else None
    except PolicyNameError:
        return None
    return None
