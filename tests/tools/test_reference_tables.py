"""labreports.reference_tables: the policy-alone and the reverse tables on paired deals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paths import REPO

ROOT = REPO


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "labreports.reference_tables", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_direct_and_reverse_tables(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    out = _run(
        "--policy", "greedy@me", "--panel", "random", "--players", "2,3",
        "--games", "6", "--workers", "1", "--out", str(log), "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    lines = {(x["num_players"], x["table"]): x for x in rep["tables"]}
    assert set(lines) == {(2, "vs_random"), (2, "random_vs"), (3, "vs_random"), (3, "random_vs")}
    direct, reverse = lines[(3, "vs_random")], lines[(3, "random_vs")]
    assert direct["first"] == "greedy@me" and direct["opponents"] == ["random", "random"]
    assert reverse["first"] == "random" and reverse["opponents"] == ["greedy@me", "greedy@me"]
    for x in rep["tables"]:
        assert x["games"] == 6 and x["errors"] == 0 and x["wins"] <= x["games"]
        assert x["ci_lo"] - 1e-9 <= x["win_rate"] <= x["ci_hi"] + 1e-9
    # the direct line counts the policy's wins, the reverse line the bot's
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    header, rows = lines[0], lines[1:]
    assert header["type"] == "header" and header["kind"] == "reference_tables"
    assert (header["seed"], header["deals"], header["panel"]) == (2026, "test", ["random"])
    assert [(t["name"], t["num_players"]) for t in header["tables"]] == [
        ("vs_random", 2), ("random_vs", 2), ("vs_random", 3), ("random_vs", 3)
    ]  # fmt: skip
    assert len(rows) == 24 and all(r["table"] in ("vs_random", "random_vs") for r in rows)
    bot_wins = sum(
        r["winner_spec"] == "random"
        for r in rows
        if r["table"] == "random_vs" and r["num_players"] == 3
    )
    assert reverse["wins"] == bot_wins
    # the log is never overwritten
    again = _run("--policy", "greedy@me", "--panel", "random", "--players", "2",
                 "--games", "2", "--out", str(log))  # fmt: skip
    assert again.returncode == 2 and str(log) in again.stderr
    assert len(log.read_text().splitlines()) == 25


def test_bad_input_is_refused() -> None:
    for args, word in (
        (["--players", "6"], "--players"),
        (["--players", "x"], "--players"),
        (["--panel", ","], "--panel"),
        (["--panel", "nosuchbot"], "nosuchbot"),
        (["--policy", "random", "--panel", "random"], "display name"),
        (["--resume"], "--resume needs --out"),
    ):
        out = _run(*args, "--games", "1")
        assert out.returncode == 2 and word in out.stderr, (args, out.stderr)
