"""The lab's three C modules (`lastwill_env.engine._cview`, `lastwill_env._cwriter`,
`training.allseat._bagrad`; setup.py builds them): the check of the environment variable that
chooses each (`LASTWILL_VIEW`, `LASTWILL_WRITER`, `LASTWILL_BAG_GRAD`), the warning for a
build older than its source, and `load_compiled`, which does both while importing the module.
Standard library only, so an engine can use it; in gamecore, the layer below every game and
the harness, as the one loader of the lab's compiled modules.

A bad choice raises `BuildChoiceError` while the module that reads it is imported; the
`lastwill` command (`apps.console`) reports it in one line with exit code 2."""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Mapping
from types import ModuleType
from typing import NamedTuple


class Compiled(NamedTuple):
    """One compiled module: what its variable takes and which choice is the fallback."""

    module: str
    choices: tuple[str, ...]
    fallback: str


# The lab's compiled modules by the variable that chooses each (setup.py builds them): the one
# table, read by the modules that load them and by `check_environment`
COMPILED: dict[str, Compiled] = {
    "LASTWILL_VIEW": Compiled(
        "lastwill_env.engine._cview", ("auto", "python", "compiled"), "python"
    ),
    "LASTWILL_WRITER": Compiled("lastwill_env._cwriter", ("auto", "python", "compiled"), "python"),
    "LASTWILL_BAG_GRAD": Compiled(
        "training.allseat._bagrad", ("auto", "torch", "compiled"), "torch"
    ),
}


def check_environment(environ: Mapping[str, str] = os.environ) -> None:
    """Every variable of `COMPILED` that is set holds a value it takes (`BuildChoiceError`
    otherwise), checked before a command imports anything they choose."""
    for var, c in COMPILED.items():
        if var in environ:
            check_choice(var, environ[var], c.choices)


def load_configured(var: str, environ: Mapping[str, str] = os.environ) -> ModuleType | None:
    """`load_compiled` of the `COMPILED` module that ``var`` chooses, as ``environ`` says."""
    c = COMPILED[var]
    return load_compiled(var, environ.get(var, "auto"), c.choices, c.fallback, c.module)


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


def warn_if_stale(built: str, source: str, stacklevel: int = 3) -> None:
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
            stacklevel=stacklevel,
        )


def load_compiled(
    var: str, choice: str, allowed: tuple[str, ...], fallback: str, module: str
) -> ModuleType | None:
    """The C module `module` (one of the three above, named by its caller, never by data) as
    `var=choice` asks: None for the `fallback` choice (the Python or torch code), and for `auto`
    where the module was not built; the imported module otherwise, with a warning when its
    build is older than its `.c` source beside it. A bad `choice`, or `compiled` where the
    module was not built, is a `BuildChoiceError` naming `var`."""
    if check_choice(var, choice, allowed) == fallback:
        return None
    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        if choice == "compiled":
            raise missing_build(var, module) from err
        return None
    source = os.path.join(os.path.dirname(mod.__file__), module.rsplit(".", 1)[1] + ".c")
    warn_if_stale(mod.__file__, source, stacklevel=4)
    return mod
