"""The commands of the README and of the manual in docs/ work as written.

The fenced code blocks of README.md and docs/*.md (the rules, the card reference and the
result pages excepted: they quote commands as records, not as instructions) are read and, per
language:

- ``bash`` / ``sh`` / ``shell`` / ``console`` (in a console block only the lines after a ``$ ``
  prompt): every command line, continuation lines joined, split at ``&&``, ``||``, ``;`` and
  ``|``. A ``lastwill`` command must name a subcommand that exists, and every flag it uses
  must be one that subcommand's ``--help`` lists (typer's CliRunner on ``apps.cli.app``, where
  every command is registered). A
  ``python path/to/script.py`` or ``python -m module`` line must name a file or module that
  exists, and its flags must be in its own ``--help``. ``pip install`` of the lab must name
  extras that pyproject.toml declares; ``bash X.sh`` and ``cd DIR`` must name what exists. A
  repository path in any of them (``training/configs/quick.toml``, ``ppo:agents/...npz``) must
  exist (outputs under ``runs/`` excepted), and so must a policy named by its short name
  (``ppo:reference``, ``mcts:policy=ref_v5``: a file in agents/policies/ or policies/). Other
  programs (``tensorboard``, ``ray``, ...) are not checked.
- ``python``: compiled, then run in a fresh process in a temporary folder (each must finish in
  a few seconds). A block right after the line ``<!-- not run: REASON -->`` is only compiled;
  those blocks are counted (``EXPECTED_NOT_RUN``) so that none slips in unnoticed.
- ``toml``: parsed.

The checker is tested on made-up blocks at the end (a misspelled flag fails).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
from paths import REPO
from typer.testing import CliRunner

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = REPO
EXCLUDED = {"RULES", "CARDS", "RESULTS", "EXPERIMENTS"}  # the stems of docs/*.md left out
SHELL = {"bash", "sh", "shell", "console"}
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->$")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")
# A repository file named in a command: it must exist (outputs under runs/ are not named so).
REPO_PATH = re.compile(
    r"(?:^|(?<=[:=,@]))((?:agents|training|docs|benchmarks|examples|notebooks|lastwill_env"
    r"|apps|labreports|tests|policies)/[\w./-]*\.\w+)"
)
# A policy by name (`ppo:reference`, `mcts:policy=ref_v5`): one of the lab's policy files.
POLICY_NAME = re.compile(r"(?:ppo:|mcts:(?:[^,:]+:)*policy=)([A-Za-z][\w-]*)(?=$|[:,@])")
POLICY_DIRS = ("agents/policies", "policies")
OPERATORS = {"&&", "||", ";", "|", "&"}
REDIRECTS = {">", ">>", "<", "2>", "&>"}
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
EXPECTED_NOT_RUN = 0  # python blocks marked <!-- not run: ... --> in the manual
PYTHON_TIMEOUT = 120


def manual_files(root: Path = ROOT) -> list[Path]:
    docs = sorted(p for p in (root / "docs").glob("*.md") if p.stem not in EXCLUDED)
    return [root / "README.md", *docs]


@dataclass
class Block:
    path: str
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    not_run: str | None  # the reason given by a <!-- not run: ... --> marker


def _dedent(line: str, indent: int) -> str:
    """A block's line without the indent of its fence (a list item's block is indented)."""
    head = line[:indent]
    return line[indent:] if head == " " * len(head) else line.lstrip()


def blocks(text: str, path: str = "<text>") -> list[Block]:
    """Every fenced block of a markdown text (indented fences included, as in a list item)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m.group("indent")), m.group("fence")
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(_dedent(lines[i], indent))
            i += 1
        prev = next((ln.strip() for ln in reversed(lines[:start]) if ln.strip()), "")
        marker = NOT_RUN.match(prev)
        out.append(
            Block(
                path,
                start + 1,
                m.group("lang").lower(),
                "\n".join(body) + "\n",
                marker.group("reason") if marker else None,
            )
        )
        i += 1
    return out


def manual_blocks(root: Path = ROOT) -> list[Block]:
    return [
        b
        for p in manual_files(root)
        for b in blocks(p.read_text(encoding="utf-8"), str(p.relative_to(root)))
    ]


# --- shell lines -----------------------------------------------------------------------------


def command_lines(block: Block) -> list[tuple[int, str]]:
    """``(line, command)`` of a shell block: continuations joined, prompts and output dropped."""
    out: list[tuple[int, str]] = []
    pending, first = "", 0
    for k, raw in enumerate(block.text.splitlines()):
        line = raw.rstrip()
        if not pending:
            if block.lang == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            elif line.startswith("$ "):
                line = line[2:]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            first = block.line + 1 + k
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((first, pending + line))
        pending = ""
    if pending:
        out.append((first, pending))
    return out


def segments(command: str) -> list[list[str]]:
    """The simple commands of a command line, as words (redirections and comments dropped)."""
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    words = list(lex)
    out: list[list[str]] = [[]]
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w in OPERATORS:
            out.append([])
        elif w in REDIRECTS:
            skip = True  # the file name after it
        else:
            out[-1].append(w)
    return [s for s in out if s]


def _flags(words: list[str]) -> list[str]:
    """The flags among ``words`` (``--name`` or ``-x``, without an ``=value``; no numbers)."""
    return [
        w.split("=", 1)[0]
        for w in words
        if w.startswith("-") and len(w) > 1 and not re.match(r"-[\d.]", w) and w != "--"
    ]


def _repo_paths(words: list[str], cwd: Path) -> list[str]:
    problems = []
    for w in words:
        for m in REPO_PATH.finditer(w):
            name = m.group(1)
            if not ((cwd / name).exists() or (ROOT / name).exists()):
                problems.append(f"{name} does not exist")
        for m in POLICY_NAME.finditer(w):
            if not any((ROOT / d / f"{m.group(1)}.npz").is_file() for d in POLICY_DIRS):
                problems.append(f"no policy named {m.group(1)!r} in {' or '.join(POLICY_DIRS)}")
    return problems


# --- lastwill --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _lastwill():
    from apps.cli import app

    return app, typer.main.get_command(app)


@functools.cache
def lastwill_help(sub: str | None) -> str:
    app, _ = _lastwill()
    args = [sub, "--help"] if sub else ["--help"]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "250", "NO_COLOR": "1"})
    assert res.exit_code == 0, res.output
    return res.output


def _options(command) -> set[str]:
    return {
        o
        for p in command.params
        if not getattr(p, "hidden", False)
        for o in (*p.opts, *getattr(p, "secondary_opts", ()))
        if o.startswith("-")
    } | {"--help"}


def check_lastwill(args: list[str]) -> list[str]:
    _, group = _lastwill()
    i = 0
    while i < len(args) and args[i].startswith("-"):  # options of `lastwill` itself
        if args[i] not in _options(group) or args[i] not in lastwill_help(None):
            return [f"`lastwill {args[i]}`: no such option of lastwill"]
        i += 1
    if i == len(args):
        return []
    sub = args[i]
    if sub not in group.commands:
        return [
            f"`lastwill {sub}`: no such command (there are {', '.join(sorted(group.commands))})"
        ]
    known, shown = _options(group.commands[sub]), lastwill_help(sub)
    return [
        f"`lastwill {sub} {flag}`: {sub} has no such flag"
        for flag in _flags(args[i + 1 :])
        if flag not in known or not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", shown)
    ]


# --- python, pip, bash, cd ---------------------------------------------------------------------


@functools.cache
def python_help(*target: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, *target, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PYTHON_TIMEOUT,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _check_help_flags(target: tuple[str, ...], flags: list[str], what: str) -> list[str]:
    if not flags:
        return []
    rc, text = python_help(*target)
    if rc != 0:
        return [f"`{what} --help` failed (exit code {rc}): {text.strip()[-300:]}"]
    listed = set(FLAG.findall(text))
    return [f"`{what} {f}`: not in its --help" for f in flags if f not in listed]


def check_python(args: list[str], cwd: Path) -> list[str]:
    if not args or args[0] == "-c":
        return []
    if args[0] == "-m":
        if len(args) < 2:
            return ["`python -m` without a module"]
        module = args[1]
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            return [f"`python -m {module}`: no such module"]
        return _check_help_flags(("-m", module), _flags(args[2:]), f"python -m {module}")
    script = args[0]
    if not script.endswith(".py"):
        return []
    path = cwd / script if (cwd / script).exists() else ROOT / script
    if not path.is_file():
        return [f"`python {script}`: no such file"]
    return _check_help_flags((str(path),), _flags(args[1:]), f"python {script}")


@functools.lru_cache(maxsize=1)
def declared_extras() -> frozenset[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return frozenset(project.get("optional-dependencies", {}))


def check_pip(args: list[str], cwd: Path) -> list[str]:
    if not args or args[0] != "install":
        return []
    problems = []
    for target in (a for a in args[1:] if not a.startswith("-")):
        local, _, extras = target.partition("[")
        if not (local.startswith(".") or "/" in local):
            continue  # a package from the index
        if not (cwd / local).exists():
            problems.append(f"`pip install {target}`: {local} does not exist")
        elif extras and (cwd / local).resolve() == ROOT:
            for extra in extras.rstrip("]").split(","):
                if extra.strip() not in declared_extras():
                    problems.append(
                        f"`pip install {target}`: no extra {extra.strip()!r} in pyproject.toml "
                        f"(there are {', '.join(sorted(declared_extras()))})"
                    )
    return problems


def check_command(command: str, cwd: Path = ROOT) -> list[str]:
    """What is wrong with one command line of the manual (empty: nothing)."""
    try:
        parts = segments(command)
    except ValueError as e:
        return [f"cannot split {command!r}: {e}"]
    problems: list[str] = []
    for words in parts:
        while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
            words = words[1:]  # VAR=value before the command
        if not words:
            continue
        prog, args = words[0], words[1:]
        # a script's own name is checked by its own rule below
        problems += _repo_paths(args[1:] if prog in ("python", "python3", "bash") else args, cwd)
        if prog == "lastwill":
            problems += check_lastwill(args)
        elif prog in ("python", "python3"):
            problems += check_python(args, cwd)
        elif prog == "pip":
            problems += check_pip(args, cwd)
        elif prog == "bash" and args and args[0].endswith(".sh"):
            if not (cwd / args[0]).is_file():
                problems.append(f"`bash {args[0]}`: no such file")
        elif prog == "cd" and args:
            if not (cwd / args[0]).is_dir():
                problems.append(f"`cd {args[0]}`: no such folder")
            else:
                cwd = cwd / args[0]
    return problems


# --- the manual ------------------------------------------------------------------------------


def _ids(items) -> list[str]:
    return [f"{b.path}:{b.line}" for b in items]


SHELL_BLOCKS = [b for b in manual_blocks() if b.lang in SHELL]
PYTHON_BLOCKS = [b for b in manual_blocks() if b.lang == "python"]
TOML_BLOCKS = [b for b in manual_blocks() if b.lang == "toml"]


def test_the_manual_has_its_pages_and_commands() -> None:
    pages = {str(p.relative_to(ROOT)) for p in manual_files()}
    for stem in ("ENV", "BOTS", "TRAINING", "EXPLOIT", "SEARCH", "RAY", "VIEWER", "FILES"):
        assert f"docs/{stem}.md" in pages, stem
    assert "docs/README.md" in pages
    commands = [c for b in SHELL_BLOCKS for _, c in command_lines(b)]
    lastwill = [c for c in commands if re.search(r"(^|&& |; )lastwill ", c)]
    assert len(lastwill) >= 40, len(lastwill)
    assert len(PYTHON_BLOCKS) >= 5, len(PYTHON_BLOCKS)


def test_readme_is_one_page_and_keeps_the_quick_start() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci in readme, "the README's test command is the last line of .ci/run"


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=_ids(SHELL_BLOCKS))
def test_every_command_names_what_exists(block: Block) -> None:
    problems = [
        f"{block.path}:{line}: {p}"
        for line, command in command_lines(block)
        for p in check_command(command)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_every_python_block_runs(block: Block, tmp_path: Path) -> None:
    compile(block.text, f"{block.path}:{block.line}", "exec")
    if block.not_run is not None:
        pytest.skip(f"marked not run: {block.not_run}")
    script = tmp_path / "block.py"
    script.write_text(block.text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=PYTHON_TIMEOUT,
    )
    assert proc.returncode == 0, f"{block.path}:{block.line}\n{proc.stderr[-2000:]}"


def test_blocks_that_do_not_run_are_counted() -> None:
    marked = [f"{b.path}:{b.line} ({b.not_run})" for b in PYTHON_BLOCKS if b.not_run]
    assert len(marked) == EXPECTED_NOT_RUN, (
        "python blocks marked <!-- not run: ... --> changed; update EXPECTED_NOT_RUN:\n"
        + "\n".join(marked)
    )


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=_ids(TOML_BLOCKS))
def test_every_toml_block_parses(block: Block) -> None:
    tomllib.loads(block.text)


# --- the checker can fail --------------------------------------------------------------------

MADE_UP = """\
# A page

```bash
lastwill arena --players greedy,random --num-players 2 --games 4   # fine
lastwill arena --playres greedy,random -g 4
lastwill arena -p ppo:reference,ppo:no_such_policy,mcts:sims=8:policy=reference,mc:policy=greedy
lastwill arenna -p greedy,random
lastwill train --config training/configs/no_such.toml \\
    --total-steps 10
python benchmarks/no_such_script.py
python -m labreports.bot_ladder --players 4 --no-such-flag
python -m no_such_module_for_the_manual_test
pip install -e ".[view,no_such_extra]" && lastwill --version
cd no/such/folder
```

```console
$ lastwill eval greedy@me -n 2 --bogus
lastwill eval --this-is-output-not-a-command
```

<!-- not run: needs a long training run -->

```python
print("only compiled")
```
"""


def test_the_checker_reports_what_does_not_exist() -> None:
    found = blocks(MADE_UP, "a made-up page")
    assert [(b.lang, b.line, b.not_run) for b in found] == [
        ("bash", 3, None),
        ("console", 17, None),
        ("python", 24, "needs a long training run"),
    ]
    problems = [p for b in found[:2] for _, c in command_lines(b) for p in check_command(c)]
    assert problems == [
        "`lastwill arena --playres`: arena has no such flag",
        "no policy named 'no_such_policy' in agents/policies or policies",
        "`lastwill arenna`: no such command (there are arena, eval, expert, expert-fit, exploit, "
        "play, replay, train, value-fit, view)",
        "training/configs/no_such.toml does not exist",
        "`python benchmarks/no_such_script.py`: no such file",
        "`python -m labreports.bot_ladder --no-such-flag`: not in its --help",
        "`python -m no_such_module_for_the_manual_test`: no such module",
        "`pip install .[view,no_such_extra]`: no extra 'no_such_extra' in pyproject.toml "
        f"(there are {', '.join(sorted(declared_extras()))})",
        "`cd no/such/folder`: no such folder",
        "`lastwill eval --bogus`: eval has no such flag",
    ]


def test_command_lines_join_continuations_and_split_operators() -> None:
    (block,) = blocks("```bash\nlastwill a \\\n  --b 1 && echo x | cat > out.txt # c\n```\n")
    assert command_lines(block) == [(2, "lastwill a    --b 1 && echo x | cat > out.txt # c")]
    assert segments(command_lines(block)[0][1]) == [
        ["lastwill", "a", "--b", "1"],
        ["echo", "x"],
        ["cat"],
    ]
    assert _flags(["-n", "2", "--lr=1e-4", "-1", "--", "x"]) == ["-n", "--lr"]
