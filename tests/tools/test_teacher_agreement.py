"""labreports.teacher_agreement: a bot agrees with itself everywhere; another bot does not."""

from __future__ import annotations

import json
import subprocess
import sys

from paths import REPO

ROOT = REPO


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "labreports.teacher_agreement", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_a_bot_agrees_with_itself_and_not_with_another() -> None:
    same = _run("--policy", "greedy", "--teacher", "greedy", "--games", "4", "--json")
    assert same.returncode == 0, same.stderr
    rep = json.loads(same.stdout)
    assert rep["overall"]["agreement"] == 1.0 and rep["overall"]["decisions"] > 50
    assert set(rep["by_players"]) == {"2", "3", "4", "5"}
    assert sum(v["decisions"] for v in rep["by_phase"].values()) == rep["overall"]["decisions"]
    other = json.loads(
        _run("--policy", "random", "--teacher", "greedy", "--games", "4", "--json").stdout
    )
    assert other["overall"]["decisions"] == rep["overall"]["decisions"]  # same games: the
    assert other["overall"]["agreement"] < 0.8  # teacher's moves are the ones played


def test_bad_input_is_refused() -> None:
    for args, word in ((["--players", "7"], "--players"), (["--teacher", "nosuch"], "nosuch")):
        out = _run(*args, "--games", "1")
        assert out.returncode == 2 and word in out.stderr, out.stderr
