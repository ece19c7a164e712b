"""Typer options generated from a dataclass of settings: one flag per field, its type and
default read from the field, its help from a table (:class:`Flag`), so that a setting's flag is
written once, beside its help.

A field `learning_rate: float` becomes `--learning-rate <float>`; a `bool` the pair
`--pfsp/--no-pfsp`; a `Path` a path option (`<path>`); a text or a list of numbers or words
(`list[int]`, `int | list[int]`) a text option (`<text>`, `<list>`), which the command (or the
dataclass) parses. An option's parameter default is None, "not given", so the command passes on
only the settings given and the dataclass fills the rest; the help writes the field's default at
its end (:func:`apps.command.help_default`). Where the table says so (`Flag.shown`), the
parameter default is the field's own, which typer shows (`[default: X]`); a field without a
default is a required option (`[required]`).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from .command import help_default


@dataclass(frozen=True)
class Flag:
    """How a setting's flag shows in `--help`."""

    help: str
    panel: str | None = None  # the --help section (None: typer's "Options")
    metavar: str | None = None  # a text setting's (else <text>); a list's is always <list>
    # what an empty default (None, '', []) stands for, or why a default is what it is
    default: str = ""
    # the parameter default is the field's own, shown by typer (not None, written in the help)
    shown: bool = False
    # the option's names where not the field's (`--x`, a bool's `--x/--no-x`): a short name
    # (`("--num-players", "-n")`), a flag without its `--no-` pair (`("--resume",)`)
    names: tuple[str, ...] = ()


def flag_name(name: str) -> str:
    """A setting's flag: `--learning-rate`."""
    return "--" + name.replace("_", "-")


def words(choices: Sequence[str]) -> str:
    """The metavar of a setting that takes one of ``choices``: `<a|b|c>`."""
    return "<" + "|".join(choices) + ">"


def kind(annotation: Any) -> tuple[str, type]:
    """("scalar" | "list" | "one_or_list", element type) of a field's annotation; an optional
    one (`X | None`) is the kind of `X`."""
    if isinstance(annotation, str):
        annotation = eval(annotation, {**vars(typing), "Path": Path}, {})  # noqa: S307
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        scalar = [a for a in args if typing.get_origin(a) is None]
        lists = [a for a in args if typing.get_origin(a) is list]
        if scalar and lists:
            return "one_or_list", scalar[0]
        if len(args) == 1:
            return kind(args[0])
    if origin is list:
        return "list", typing.get_args(annotation)[0]
    return "scalar", annotation


def default_value(f: Field) -> Any:
    """A field's default (a list's: comma-separated, as its flag takes it)."""
    value = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
    if isinstance(value, list):
        return ",".join(str(x) for x in value)
    return value


def shown_default(f: Field, flag: Flag) -> str:
    """A setting's default as `--help` shows it: a flag by its name (`pfsp`, `no-pfsp`); an
    empty one as what it stands for (`none` unless the table says)."""
    value = default_value(f)
    if isinstance(value, bool):
        return ("" if value else "no-") + f.name.replace("_", "-")
    if value is None or value == "":
        return flag.default or "none"
    return f"{value}, {flag.default}" if flag.default else str(value)


def _required(f: Field) -> bool:
    """Whether a field has no default (its option is required)."""
    return f.default is MISSING and f.default_factory is MISSING  # type: ignore[misc]


def _option(f: Field, flag: Flag) -> inspect.Parameter:
    """A field's option: its typer annotation and parameter default (None, the field's own
    default, or none for a required one)."""
    shape, elem = kind(f.type)
    own = flag.shown or _required(f)  # typer shows the default (or [required])
    text = flag.help if own else help_default(flag.help, shown_default(f, flag))
    name = flag_name(f.name)
    if shape == "scalar" and elem is bool:
        decls = flag.names or (f"{name}/--no-{f.name.replace('_', '-')}",)
        option = typer.Option(*decls, help=text, rich_help_panel=flag.panel)
    elif shape == "scalar" and elem in (int, float, Path):
        extra = {"metavar": flag.metavar} if flag.metavar else {}
        option = typer.Option(
            *(flag.names or (name,)), help=text, rich_help_panel=flag.panel, **extra
        )
    else:
        elem = str
        metavar = (flag.metavar or "<text>") if shape == "scalar" else "<list>"
        option = typer.Option(
            *(flag.names or (name,)), help=text, rich_help_panel=flag.panel, metavar=metavar
        )
    if _required(f):
        return keyword(f.name, Annotated[elem, option], inspect.Parameter.empty)
    if flag.shown:
        return keyword(f.name, Annotated[elem, option], default_value(f))
    return keyword(f.name, Annotated[elem | None, option])


def setting_options(
    config: type,
    flags: Mapping[str, Flag],
    names: Iterable[str] | None = None,
    missing: Flag | None = None,
) -> list[inspect.Parameter]:
    """The keyword parameters of a command, one option per setting of the dataclass
    ``config`` in ``names`` (default: those ``flags`` lists, in its order), each shown as
    ``flags`` says (a setting it does not list: as ``missing``)."""
    by_name = {f.name: f for f in fields(config)}
    out = []
    for name in list(flags) if names is None else names:
        flag = flags.get(name, missing)
        if flag is None or name not in by_name:
            raise KeyError(f"{config.__name__}.{name}: no such setting, or no help for its flag")
        out.append(_option(by_name[name], flag))
    return out


def keyword(name: str, annotation: Any, default: Any = None) -> inspect.Parameter:
    """One keyword parameter of a command (for :func:`with_parameters`)."""
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def with_parameters(command: Callable, parameters: Iterable[inspect.Parameter]) -> Callable:
    """``command`` (a function of ``**options``) with the signature typer reads its options
    from."""
    command.__signature__ = inspect.Signature(list(parameters))  # type: ignore[attr-defined]
    return command
