"""The documentation in docs/: cited files exist, cited sections exist, the card reference is
generated from the card data and not stale, and the rules file keeps its numbering.

The citation scan reads every tracked text file (`git ls-files`; without git, every file under
the repository minus virtual environments and caches; this file's made-up examples excepted)
for names ending in `.md` and checks that each resolves to a file, relative to the repository
root or to the citing file's folder. A section after the name (`docs/RULES.md §4.4`) must exist
in that file as a heading (`### 4.4`, `## 4.`) or, for `§N.M`, as item M of a numbered list
under section N.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest
from paths import REPO

from lastwill_env.cardref import cards_markdown, main
from lastwill_env.engine import GameConfig

ROOT = REPO
DOCS = ROOT / "docs"
SKIP_SUFFIXES = {".npz", ".zip", ".png", ".whl"}
SKIP_PARTS = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", "runs", "build"}

# a path ending in .md, not part of a URL or a longer path; optionally "§N" or "§N.M" after it
CITATION = re.compile(
    r"(?<![\w/.:-])((?:\.\./|[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.md)\b"
    r"(?:[`'\"]*,?\s*(?:§|section\s+)(\d+(?:\.\d+)?))?"
)


def tracked_files(root: Path = ROOT) -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, text=True
        ).stdout
        paths = [root / p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [
            p
            for p in root.rglob("*")
            if p.is_file() and not SKIP_PARTS.intersection(p.relative_to(root).parts)
        ]
    me = Path(__file__).resolve()  # this file's examples are made-up citations
    return [
        p
        for p in paths
        if p.suffix not in SKIP_SUFFIXES and "tfevents" not in p.name and p.resolve() != me
    ]


def citations(text: str) -> list[tuple[int, str, str | None]]:
    """``(line, path, section or None)`` for every cited .md file in ``text``."""
    out = []
    for m in CITATION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, m.group(1), m.group(2)))
    return out


def has_section(md: str, section: str) -> bool:
    """Whether ``md`` has section ``N`` (a heading ``N.``) or ``N.M`` (a heading ``N.M`` or
    item ``M.`` of a numbered list inside section ``N``)."""
    head = re.compile(r"^#+\s+(\d+(?:\.\d+)*)\.?\s", re.M)
    found = {m.group(1) for m in head.finditer(md)}
    if section in found:
        return True
    top, _, sub = section.partition(".")
    if not sub or top not in found:
        return False
    # the text of section `top`: from its heading to the next heading of the same level
    start = re.search(rf"^(#+)\s+{top}\.?\s", md, re.M)
    assert start is not None
    level = len(start.group(1))
    nxt = re.compile(rf"^#{{1,{level}}}\s", re.M).search(md, start.end())
    body = md[start.end() : nxt.start() if nxt else len(md)]
    return re.search(rf"^{sub}\.\s", body, re.M) is not None


def broken_citations(files: list[Path], root: Path = ROOT) -> list[str]:
    problems = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        rel = path.relative_to(root)
        for line, cited, section in citations(text):
            target = next(
                (t for t in (root / cited, path.parent / cited) if t.is_file()),
                None,
            )
            if target is None:
                problems.append(f"{rel}:{line}: cites {cited}, which does not exist")
            elif section and not has_section(target.read_text(encoding="utf-8"), section):
                problems.append(
                    f"{rel}:{line}: cites {cited} §{section}, which has no such section"
                )
    return problems


# --- the repository ------------------------------------------------------------------------


def test_every_cited_markdown_file_and_section_exists() -> None:
    files = tracked_files()
    assert len(files) > 50, "the scan found too few files"
    problems = broken_citations(files)
    assert not problems, "broken citations:\n" + "\n".join(problems)


def test_the_docs_are_all_here_and_cited() -> None:
    for name in ("RULES.md", "CARDS.md", "DESIGN.md", "TRAINING-NOTES.md"):
        assert (DOCS / name).is_file(), name
    cited = {c for p in tracked_files() for _, c, _ in citations(_read(p))}
    for name in ("docs/RULES.md", "docs/CARDS.md", "docs/DESIGN.md", "docs/TRAINING-NOTES.md"):
        assert name in cited, f"nothing cites {name}"


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return ""


def test_card_reference_is_generated_from_the_data() -> None:
    committed = (DOCS / "CARDS.md").read_text(encoding="utf-8")
    assert committed == cards_markdown(), (
        "docs/CARDS.md is stale: regenerate it with python -m lastwill_env.cardref "
        "--write docs/CARDS.md"
    )


def test_cardref_check_reports_a_stale_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "CARDS.md"
    assert main(["--write", str(path)]) == 0
    assert main(["--check", str(path)]) == 0
    path.write_text(path.read_text().replace("Farm_3", "Farm_33"))
    assert main(["--check", str(path)]) == 1
    assert "stale" in capsys.readouterr().err


def test_rules_keep_their_numbering_and_list_every_option() -> None:
    md = (DOCS / "RULES.md").read_text(encoding="utf-8")
    tops = re.findall(r"^## (\d+)\. ", md, re.M)
    assert tops == [str(i) for i in range(1, 11)], tops
    for sub in ("4.1", "4.2", "4.3", "4.4", "3.7", "6.1", "6.2"):
        assert has_section(md, sub), sub
    sec9 = md.split("## 9.", 1)[1].split("## 10.", 1)[0]
    options = set()
    for row in sec9.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[2] not in ("—", "option", "---"):
            options.update(re.findall(r"^`(\w+)`", cells[2]))
    game_options = {f.name for f in fields(GameConfig)} - {"num_players"}
    assert options == game_options, (options, game_options)


# --- the checker can fail ------------------------------------------------------------------


def test_citation_scan_finds_paths_and_sections() -> None:
    text = (
        "see docs/RULES.md §4.4 and (CARDS.md §5.2) and ``RULES.md`` §10,\n"
        "not https://github.com/x/y/blob/main/README.md nor a/b.mdx\n"
    )
    assert citations(text) == [
        (1, "docs/RULES.md", "4.4"),
        (1, "CARDS.md", "5.2"),
        (1, "RULES.md", "10"),
    ]


def test_broken_citations_are_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "R.md").write_text("# R\n\n## 3. Setup\n\n1. a\n2. b\n\n## 4. Round\n")
    src = tmp_path / "x.py"
    src.write_text(
        '"""docs/R.md §3.2 fine, docs/R.md §4 fine, docs/R.md §3.7 no item,\n'
        'docs/R.md §5 no section, R.md missing, docs/Q.md missing."""\n'
    )
    problems = broken_citations([src], tmp_path)
    assert problems == [
        "x.py:1: cites docs/R.md §3.7, which has no such section",
        "x.py:2: cites docs/R.md §5, which has no such section",
        "x.py:2: cites R.md, which does not exist",
        "x.py:2: cites docs/Q.md, which does not exist",
    ]


@pytest.mark.parametrize(
    ("section", "expected"),
    [("4", True), ("4.4", True), ("3.7", True), ("3.9", False), ("11", False), ("4.9", False)],
)
def test_has_section(section: str, expected: bool) -> None:
    md = "## 3. Setup\n1. a\n7. keep\n## 4. Round\n### 4.4 Actions\ntext\n"
    assert has_section(md, section) is expected
