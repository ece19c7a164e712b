"""Validation deals choose, test deals report: the two sets are disjoint by construction, and the
code paths that choose (training's evaluation, `lastwill exploit`) refuse test deals."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agents import arena as ar
from agents import deals as dl
from agents import evaluate as ev
from apps.cli import app
from lastwill_env.engine import GameConfig

runner = CliRunner()


def test_no_validation_deal_is_ever_a_test_deal():
    validation, test = set(), set()
    for seed in [0, 1, 7, 202, 9191, -3, 2**40]:
        for d in range(300):
            validation.add(dl.deal_seed(seed, dl.VALIDATION, d))
            test.add(dl.deal_seed(seed, dl.TEST, d))
    assert len(validation) == len(test) == 7 * 300  # no repeats within a set either
    assert not validation & test
    assert {dl.deals_of(s) for s in validation} == {dl.VALIDATION}
    assert {dl.deals_of(s) for s in test} == {dl.TEST}
    assert max(validation | test) < 2**53  # JSON-safe, and within the engine's seeds


def test_the_tag_bit_separates_the_sets_whatever_the_hash():
    # the same hash input in both sets differs only by the tag: disjoint by construction
    for d in range(50):
        v, t = dl.deal_seed(5, dl.VALIDATION, d), dl.deal_seed(5, dl.TEST, d)
        assert v >> 52 == 0 and t >> 52 == 1


@pytest.mark.parametrize("deals", ["", "Test", "train", None, 1])
def test_unknown_deal_sets_are_refused(deals):
    with pytest.raises(dl.DealsError, match="use one of: validation, test"):
        dl.check_deals(deals)
    with pytest.raises(ar.ArenaError, match="unknown deal set"):
        ar.Schedule(("random", "random"), GameConfig(num_players=2), 0, deals=deals)


def test_schedules_deal_from_their_set_and_log_it():
    cfg = GameConfig(num_players=3)
    entrants = ("random", "greedy", "racer")
    val = ar.Schedule(entrants, cfg, 11)
    test = ar.Schedule(entrants, cfg, 11, deals=dl.TEST)
    assert val.deals == dl.VALIDATION  # the arena's default: screening is choosing
    assert {dl.deals_of(t.deal_seed) for t in val.tasks(30)} == {dl.VALIDATION}
    assert {dl.deals_of(t.deal_seed) for t in test.tasks(30)} == {dl.TEST}
    assert not {t.deal_seed for t in val.tasks(30)} & {t.deal_seed for t in test.tasks(30)}
    assert val.header(3)["deals"] == dl.VALIDATION
    assert test.header(3)["deals"] == dl.TEST
    # paired: every seating of a deal plays the same deal seed
    tasks = test.tasks(6)
    assert [t.deal_seed for t in tasks[:3]] == [tasks[0].deal_seed] * 3


def test_resume_refuses_a_log_of_the_other_deal_set(tmp_path):
    cfg = GameConfig(num_players=2)
    log = tmp_path / "a.jsonl"
    ar.run_tournament(["random", "greedy"], cfg, 4, seed=3, out=log)
    before = log.read_bytes()
    with pytest.raises(ar.ArenaError, match="deals: log has 'validation', this run has 'test'"):
        ar.run_tournament(["random", "greedy"], cfg, 8, seed=3, out=log, resume=True, deals=dl.TEST)
    assert log.read_bytes() == before


@pytest.mark.parametrize("who", ["training's evaluation", "lastwill exploit"])
def test_choosing_code_refuses_test_deals(who):
    assert dl.for_choosing(dl.VALIDATION, who) == dl.VALIDATION
    with pytest.raises(dl.DealsError, match=f"{who} chooses among players"):
        dl.for_choosing(dl.TEST, who)


def test_training_evaluation_plays_validation_deals_and_refuses_test(monkeypatch, tmp_path):
    from training import train as tr
    from training.config import TrainConfig

    seen = {}

    def fake_evaluate(spec, **kw):
        seen.update(kw)
        raise RuntimeError("stop after the call")

    monkeypatch.setattr(ev, "evaluate", fake_evaluate)
    cfg = TrainConfig.from_dict({"run_dir": str(tmp_path / "run")})
    with pytest.raises(RuntimeError, match="stop after the call"):
        tr.evaluate(tmp_path / "x.npz", cfg, 0)
    assert seen["deals"] == dl.VALIDATION
    seen.clear()
    with pytest.raises(dl.DealsError, match="test deals are for reporting"):
        tr.evaluate(tmp_path / "x.npz", cfg, 0, deals=dl.TEST)
    assert not seen  # refused before any game


def test_exploit_tables_refuse_test_deals():
    from training import exploit as ex

    line = ex._table(["random", "greedy"], 2, 2, seed=1)
    assert line["games"] == 2
    with pytest.raises(dl.DealsError, match="lastwill exploit chooses among players"):
        ex._table(["random", "greedy"], 2, 2, seed=1, deals=dl.TEST)


def test_evaluate_reports_on_test_deals_by_default():
    result = ev.evaluate("random@me", panel=["greedy"], num_players=[2], games=2, seed=4)
    assert result.deals == dl.TEST
    assert {dl.deals_of(r["deal_seed"]) for r in result.rows} == {dl.TEST}
    assert result.to_dict()["deal_set"] == "test deals of seed 4"
    val = ev.evaluate(
        "random@me", panel=["greedy"], num_players=[2], games=2, seed=4, deals=dl.VALIDATION
    )
    assert {dl.deals_of(r["deal_seed"]) for r in val.rows} == {dl.VALIDATION}


def test_eval_cli_prints_its_deal_set(tmp_path):
    out = tmp_path / "e.jsonl"
    r = runner.invoke(
        app,
        [
            "eval",
            "-q",
            "random@me",
            "--panel",
            "greedy",
            "-n",
            "2",
            "-g",
            "2",
            "-s",
            "9",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "test deals of seed 9" in r.output
    header = json.loads(out.read_text().splitlines()[0])
    assert header["deals"] == dl.TEST


@pytest.mark.parametrize("command", ["eval", "arena"])
def test_cli_refuses_an_unknown_deal_set(tmp_path, command):
    out = tmp_path / "x.jsonl"
    if command == "eval":
        args = ["eval", "-q", "random@me", "--panel", "greedy", "-n", "2", "-g", "2"]
    else:
        args = ["arena", "-q", "-p", "random,greedy", "-g", "2"]
    r = runner.invoke(app, [*args, "--deals", "holdout", "-o", str(out)])
    assert r.exit_code == 2
    assert "unknown deal set 'holdout'" in r.output and "validation, test" in r.output
    assert not out.exists()


def test_arena_cli_logs_and_prints_its_deal_set(tmp_path):
    out = tmp_path / "a.jsonl"
    r = runner.invoke(
        app, ["arena", "-q", "-p", "random,greedy", "-g", "2", "--deals", "test", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "test deals of seed 0" in r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["deals"] == dl.TEST
    assert {dl.deals_of(x["deal_seed"]) for x in rows[1:]} == {dl.TEST}
