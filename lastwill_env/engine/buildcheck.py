"""The lab's three C modules (`lastwill_env.engine._cview`, `lastwill_env._cwriter`,
`training.allseat._bagrad`; setup.py builds them): the check of the environment variable that
chooses each (`LASTWILL_VIEW`, `LASTWILL_WRITER`, `LASTWILL_BAG_GRAD`) and the warning for a
build older than its source. Standard library only, so the engine can use it.

A bad choice raises `BuildChoiceError` while the module that reads it is imported; the
`lastwill` command (`training.console`) reports it in one line with exit code 2."""

from __future__ import annotations

import os
import warnings


class BuildChoiceError(ValueError):
    """A variable choosing a compiled module holds a value it does not take, or asks for a
    build that is not there."""


def check_choice(var: str, value: str, allowed: tuple[str, ...]) -> str:
    """`value` if it is one of `allowed`, else a `BuildChoiceError` naming the variable and what
    it takes."""
    if value not in allowed:
        raise BuildChoiceError(f"{var}={value!r}: allowed values are {', '.join(allowed)}")
    return value


def missing_build(var: str, module: str) -> BuildChoiceError:
    """The error for `var=compiled` where `module` was not built."""
    return BuildChoiceError(
        f"{var}=compiled, but {module} was not built (reinstall with a C compiler: "
        "pip install -e .)"
    )


def warn_if_stale(built: str, source: str) -> None:
    """In a checkout, a `RuntimeWarning` when `source` changed after `built` was built (an
    installed package ships no source: nothing to compare)."""
    try:
        stale = os.path.getmtime(source) > os.path.getmtime(built)
    except OSError:
        return
    if stale:
        warnings.warn(
            f"{built} is older than {source}: rebuild it (pip install -e .)",
            RuntimeWarning,
            stacklevel=3,
        )
