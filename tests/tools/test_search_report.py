"""labreports.search_report: the critic's quality against outcomes and the search's
disagreement with the policy (the diagnosis of what the search adds)."""

from __future__ import annotations

import json

import pytest

from labreports import search_report


@pytest.fixture(scope="module")
def rep():
    return search_report


def test_value_quality_scores_perfect_constant_and_wrong_predictions(rep):
    won = [(1, 1.0, 1.0), (1, 0.0, 0.0), (5, 1.0, 1.0), (7, 0.0, 0.0)]
    perfect = rep.value_quality(won, 2)
    assert perfect["brier"] == 0.0 and perfect["skill"] == 1.0
    assert perfect["correlation"] == pytest.approx(1.0)
    constant = rep.value_quality([(1, 0.5, y) for _, _, y in won], 2)
    assert constant["skill"] == 0.0 and constant["correlation"] == 0.0
    wrong = rep.value_quality([(r, 1.0 - q, y) for r, q, y in won], 2)
    assert wrong["skill"] < 0 and wrong["correlation"] == pytest.approx(-1.0)
    assert set(perfect["by_round"]) == {"rounds 1-3", "rounds 4-6", "round 7"}
    assert perfect["by_round"]["rounds 1-3"]["rows"] == 2
    bins = {b["bin"]: b for b in perfect["calibration"]}
    assert bins["0.8-1.0"]["won"] == 1.0 and bins["0.0-0.2"]["won"] == 0.0


def test_disagreement_counts_only_its_budget(rep):
    rows = [
        (64, True, 0.9, 0.5, 0.1, None),
        (64, False, 0.7, 0.9, 0.7, None),
        (256, True, 0.6, 0.4, 0.2, None),
    ]
    d = rep.disagreement(rows, 64)
    assert d["decisions"] == 2 and d["differs"] == 0.5
    assert d["policy_top_probability"] == pytest.approx(0.8)
    assert d["policy_probability_of_searched_move_where_they_differ"] == pytest.approx(0.1)
    assert rep.disagreement(rows, 16)["decisions"] == 0
    assert d["seeds_agree"] is None  # rows without a twin
    twins = [(64, True, 0.5, 0.5, 0.2, True), (64, False, 0.6, 0.7, 0.6, False)]
    assert rep.disagreement(twins + rows, 64)["seeds_agree"] == 0.5


def test_below_searches_only_the_unsure_decisions_and_the_twin_searches_each(rep, capsys):
    args = ["--games", "2", "--players", "2", "--sims", "4", "--every", "1", "--json"]
    assert rep.main(args) == 0
    every = json.loads(capsys.readouterr().out)["counts"][0]["disagreement"][0]
    assert rep.main([*args, "--below", "0.8", "--twin"]) == 0
    out = json.loads(capsys.readouterr().out)["counts"][0]
    (d,) = out["disagreement"]
    assert out["below"] == 0.8 and 0 < d["decisions"] < every["decisions"]
    assert d["policy_top_probability"] < 0.8 and 0.0 <= d["seeds_agree"] <= 1.0
    assert every["seeds_agree"] is None
    with pytest.raises(SystemExit) as e:
        rep.main(["--below", "0"])
    assert e.value.code == 2


def test_a_short_report_runs_and_bad_counts_are_refused(rep, capsys):
    assert (
        rep.main(["--games", "2", "--players", "2", "--sims", "4", "--every", "20", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    (r,) = out["counts"]
    assert out["deals"] == "validation" and r["num_players"] == 2 and r["games"] == 2
    assert 0.0 <= r["value"]["brier"] <= 1.0 and r["value"]["rows"] > 0
    (d,) = r["disagreement"]
    assert d["sims"] == 4 and d["decisions"] > 0 and 0.0 <= d["differs"] <= 1.0
    for bad in (["--players", "6"], ["--sims", "0"], ["--games", "0"]):
        with pytest.raises(SystemExit) as e:
            rep.main(bad)
        assert e.value.code == 2
