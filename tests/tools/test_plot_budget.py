"""The from-scratch baseline: docs/RESULTS.md's budget table and labreports.plot_budget's picture,
both from the result files docs/results/scratch_*.json."""

from __future__ import annotations

import json

from paths import REPO

from labreports import plot_budget, results_doc

ROOT = REPO
FILES = sorted((ROOT / "docs" / "results").glob("scratch_*.json"))


def _doc(recipe, minutes, rates):
    tables = [
        {
            "num_players": n,
            "table": f"vs_{bot}",
            "games": 1000,
            "win_rate": r,
            "ci_lo": r - 0.03,
            "ci_hi": r + 0.03,
            "chance": 1 / n,
        }
        for (n, bot), r in rates.items()
    ]
    budget = {"recipe": recipe, "cpu_minutes": minutes, "steps": 1000, "train_command": "x"}
    return {
        "command": "c --seed 2026",
        "budget": budget,
        "output": {"deals": "test", "seed": 2026, "tables": tables},
    }


def test_every_scratch_result_carries_its_budget():
    assert FILES, "the section has its result files"
    for path in FILES:
        budget = json.loads(path.read_text())["budget"]
        assert budget["cpu_minutes"] > 0 and budget["steps"] > 0
        assert budget["train_command"].startswith("lastwill train --config training/configs/")


def test_the_table_bolds_only_a_rate_whose_lower_bound_clears_chance():
    docs = [("a", _doc("r", 10, {(2, "racer"): 0.56, (2, "greedy"): 0.52, (4, "racer"): 0.30}))]
    row = results_doc.budget_table(docs).splitlines()[-1]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:3] == ["r", "10", "1,000"]
    assert cells[3] == "52.0%" and cells[5] == "**56.0%**" and cells[9] == "**30.0%**"


def test_points_follow_cpu_time_and_the_picture_is_written(tmp_path):
    docs = [_doc("r", 60, {(2, "racer"): 0.3}), _doc("r", 6, {(2, "racer"): 0.1})]
    assert plot_budget.points(docs)[("r", 2, "racer")] == [(0.1, 0.1), (1.0, 0.3)]
    out = tmp_path / "b.png"
    plot_budget.plot(docs, out)
    assert out.read_bytes()[:4] == b"\x89PNG"
