"""What every `lastwill` command shares: the help convention of its click objects
(:class:`LabCommand`, :class:`LabGroup`), a default written into a help text
(:func:`help_default`), and the two ways a command speaks to the user: :func:`fail` (a one-line
``error: ...`` on stderr and exit code 2, no traceback) and :func:`note` (a line on stderr;
stdout is the command's result).

Conventions for commands: user errors go through :func:`fail`; heavy imports (the arena,
matplotlib, torch) happen inside the command function, so importing the command line stays
cheap and torch-free.
"""

from __future__ import annotations

from typing import NoReturn

import typer
from typer.core import TyperCommand, TyperGroup


class _HelpConvention:
    """The help convention of every `lastwill` command (docs/DEVELOPMENT.md, Command-line
    help), where typer's own choice differs: a flag, --help included, shows no metavar, and
    --help's text ends without a period."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if getattr(param, "is_flag", False):
                param.metavar = ""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar, option.help = "", "Show this message and exit"
        return option


class LabCommand(_HelpConvention, TyperCommand):
    """A `lastwill` subcommand (``app.command(cls=LabCommand)``)."""


class LabGroup(_HelpConvention, TyperGroup):
    """The `lastwill` command itself."""


def help_default(text: str, default: object) -> str:
    """``text`` with a default written at its end, for an option whose parameter default
    (``None``, ``''``) stands for another value or for what happens without it."""
    if isinstance(default, (list, tuple)):
        default = ",".join(str(x) for x in default)
    return f"{text} \\[default: {default}]"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code`` (2: bad usage/input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def note(message: str) -> None:
    typer.echo(message, err=True)
