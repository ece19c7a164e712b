"""Every option of every `lastwill` command keeps the help convention of docs/DEVELOPMENT.md
(Command-line help), read from the Typer app's click objects rather than the rendered help:

- a help text that starts with a capital letter and ends without a period;
- the metavar `--help` shows: none for a flag, else `<kind>` (int, float, text, path, spec,
  list) or the allowed words `<a|b|...>`;
- an option that takes a value shows its default, and so does a `--x/--no-x` pair: typer's
  own `[default: X]`, or one written at the end of the help (`\\[default: ...]`) where the
  parameter's default is `None` or `''`; never both;
- `--num-players` writes its default, with the reason for it, since it differs by command;
- a command's own help starts with a capital letter and has no line break inside a paragraph
  (rich help shows it as is).
"""

from __future__ import annotations

import re

import pytest
import typer

from apps.cli import app

KINDS = {"<int>", "<float>", "<text>", "<path>", "<spec>", "<list>"}
CHOICES = re.compile(r"<[\w.-]+(\|[\w.-]+)+>")
WRITTEN_DEFAULT = re.compile(r" \\\[default: ([^\]]+)\]$")


def _walk(command, ctx):
    yield ctx.command_path, command, ctx
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, sub.context_class(sub, info_name=name, parent=ctx))


def _all():
    root = typer.main.get_command(app)
    return list(_walk(root, root.context_class(root, info_name="lastwill")))


def _params():
    return [
        pytest.param(p, ctx, id=f"{path} {p.name}")
        for path, command, ctx in _all()
        for p in command.get_params(ctx)
        if not getattr(p, "hidden", False)
    ]


def _is_option(param) -> bool:
    return param.param_type_name == "option"


def _is_flag(param) -> bool:
    return _is_option(param) and bool(param.is_flag)


def _shown_metavar(param, ctx) -> str:
    """The metavar typer's rich help shows beside an option."""
    return param.display_type_rich(ctx) or ""


def _auto_default(param, ctx) -> bool:
    """Whether typer itself shows the option's default (`[default: X]` after the help)."""
    if param.default in (None, "") or not (param.show_default or ctx.show_default):
        return False
    return not (param.is_flag and not param.secondary_opts)  # a lone flag shows none


def _text(help_text: str) -> str:
    """The help without its written default."""
    return WRITTEN_DEFAULT.sub("", help_text)


def test_the_walk_finds_every_command():
    names = {path.removeprefix("lastwill ") for path, _, _ in _all()}
    expected = {"arena", "eval", "replay", "play", "view", "train", "exploit", "expert"}
    assert expected | {"expert-fit", "value-fit"} <= names


@pytest.mark.parametrize(("path", "command"), [pytest.param(p, c, id=p) for p, c, _ in _all()])
def test_every_command_has_a_capitalised_help_without_hard_line_breaks(path, command):
    assert command.help and command.help.strip()[0].isupper(), path
    lone = re.search(r"(?<!\n)\n(?!\n)", command.help.strip())
    assert lone is None, f"a line break inside a paragraph (shown as is): {command.help!r}"


@pytest.mark.parametrize(("param", "ctx"), _params())
def test_help_text_is_there_starts_with_a_capital_and_ends_without_a_period(param, ctx):
    text = (param.help or "").strip()
    assert text, "no help text"
    assert text[0].isupper(), f"starts lower-case: {text!r}"
    assert not _text(text).endswith("."), f"ends with a period: {text!r}"


@pytest.mark.parametrize(("param", "ctx"), [p for p in _params() if _is_option(p.values[0])])
def test_metavar_names_the_kind_and_a_flag_has_none(param, ctx):
    shown = _shown_metavar(param, ctx)
    if _is_flag(param):
        assert shown == "", f"a flag shows the metavar {shown!r}"
    else:
        assert shown in KINDS or CHOICES.fullmatch(shown), f"metavar {shown!r}"


@pytest.mark.parametrize(("param", "ctx"), [p for p in _params() if _is_option(p.values[0])])
def test_an_option_with_a_value_shows_its_default_once(param, ctx):
    text = param.help or ""
    written = WRITTEN_DEFAULT.search(text) is not None
    assert "[default:" not in text or written, f"a default not at the end or unescaped: {text!r}"
    assert not (written and _auto_default(param, ctx)), "the default is shown twice"
    if param.required or (param.is_flag and not param.secondary_opts):
        return
    assert written or _auto_default(param, ctx), f"no default shown: {text!r}"


@pytest.mark.parametrize(
    ("param", "ctx"), [p for p in _params() if p.values[0].name == "num_players"]
)
def test_num_players_says_why_its_default_is_what_it_is(param, ctx):
    found = WRITTEN_DEFAULT.search(param.help or "")
    assert found, f"--num-players writes no default: {param.help!r}"
    assert " " in found.group(1).strip(), f"a bare default, no reason: {found.group(1)!r}"
