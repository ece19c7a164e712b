"""labreports.time_to_panel: the first evaluation whose every Wilson lower bound at the
asked player count is above chance, and the run's wall-clock time when it came."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _ev(step: int, wall: float, lows: dict[str, float]) -> dict:
    vs = {
        b: {"win_rate": lo + 0.1, "win_rate_lo": lo, "win_rate_hi": lo + 0.2}
        for b, lo in lows.items()
    }
    return {"step": step, "wall_seconds": wall, "by_players": {"4": {"vs": vs}, "2": {"vs": {}}}}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "labreports.time_to_panel", *args], capture_output=True, text=True
    )


def test_first_evaluation_above_chance_against_every_bot(tmp_path: Path) -> None:
    evals = [
        _ev(500, 300.0, {"greedy": 0.6, "racer": 0.05}),
        _ev(1000, 660.0, {"greedy": 0.7, "racer": 0.25}),  # 0.25 is chance, not above it
        _ev(1500, 1020.0, {"greedy": 0.8, "racer": 0.31}),
        _ev(2000, 1400.0, {"greedy": 0.8, "racer": 0.40}),
    ]
    (tmp_path / "state.json").write_text(json.dumps({"evals": evals}))
    out = _run(str(tmp_path), "--players", "4", "--json")
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert [r["beats_panel"] for r in rep["evaluations"]] == [False, False, True, True]
    assert rep["first_beats_panel"]["step"] == 1500 and rep["minutes"] == 17.0
    assert rep["evaluations"][0]["worst_bot"] == "racer"
    # at 2 players there is no table in these evaluations: nothing to report
    rep2 = json.loads(_run(str(tmp_path), "--players", "2", "--json").stdout)
    assert rep2["evaluations"] == [] and rep2["first_beats_panel"] is None
    # a subset of the panel: without the racer the first evaluation already beats it
    rep3 = json.loads(_run(str(tmp_path), "--bots", "greedy", "--json").stdout)
    assert rep3["first_beats_panel"]["step"] == 500 and rep3["minutes"] == 5.0
    bad = _run(str(tmp_path), "--bots", "greedy,nosuch")
    assert bad.returncode == 2 and "nosuch" in bad.stderr and "racer" in bad.stderr


def test_missing_state_is_a_clear_error(tmp_path: Path) -> None:
    out = _run(str(tmp_path / "nowhere"))
    assert out.returncode == 2 and "cannot read" in out.stderr and "state.json" in out.stderr
