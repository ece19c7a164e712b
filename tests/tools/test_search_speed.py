"""benchmarks/search_speed.py: the search's speed figures, each the median of `--repeat` runs."""

from __future__ import annotations

import json

import pytest
from lab_scripts import load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("benchmarks/search_speed.py")


def test_every_figure_is_the_median_of_the_runs(bench):
    runs = [
        {"decisions": 3, "sims_per_s": s, "engine_ratio": r}
        for s, r in [(9, 0.1), (1, 0.5), (5, 0.3)]
    ]
    assert bench.median_summary(runs) == {"decisions": 3, "sims_per_s": 5, "engine_ratio": 0.3}


def test_repeat_runs_the_same_game_and_reports_how_many(bench, capsys, monkeypatch):
    seen = []
    real = bench.measure

    def counted(spec, players, decisions, seed):
        totals = real(spec, players, decisions, seed)
        seen.append((players, totals["decisions"], totals["sims"], totals["steps"]))
        return totals

    monkeypatch.setattr(bench, "measure", counted)
    args = ["--players", "2", "--decisions", "2", "--sims", "4", "--engine-seconds", "0.05"]
    assert bench.main([*args, "--repeat", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["repeat"] == 2 and out["2p"]["decisions"] == 2
    assert len(seen) == 2 and seen[0] == seen[1]  # the same work each run
    assert out["2p"]["engine_steps_per_sim"] == seen[0][3] / seen[0][2]


def test_bad_repeat_is_refused(bench, capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["--repeat", "0"])
    assert e.value.code == 2
    assert "--repeat" in capsys.readouterr().err
