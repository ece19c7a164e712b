"""docs/RESULTS.md is generated from docs/results/ and current, and every figure in it is on
test deals (agents.deals): a figure that a choice has seen never reaches the results page."""

from __future__ import annotations

import json

import pytest
from paths import REPO

from agents.deals import TEST
from labreports import results_doc

ROOT = REPO
RESULTS = ROOT / "docs" / "results"


def _results_doc():
    return results_doc


def test_results_md_is_current():
    mod = _results_doc()
    assert (ROOT / "docs/RESULTS.md").read_text() == mod.render(), (
        "docs/RESULTS.md is stale: run python -m labreports.results_doc"
    )


def test_check_mode_fails_on_a_stale_page(tmp_path, monkeypatch):
    mod = _results_doc()
    stale = tmp_path / "results_page.txt"
    stale.write_text("# Results\n\nold figures\n")
    monkeypatch.setattr(mod, "DOC", stale)
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    assert mod.main(["--check"]) == 1
    assert mod.main([]) == 0
    assert mod.main(["--check"]) == 0


def _deal_sets(doc: dict) -> set[str]:
    out = doc["output"]
    if isinstance(out, list):  # bot ladder lines
        return {x["deals"] for x in out if "deals" in x}
    if "tables" in out or "pairs" in out:  # reference tables, a league of checkpoints
        return {out["deals"]}
    return {out["header"]["deals"]}  # an arena result


GAMES = [p for p in sorted(RESULTS.glob("*.json")) if not p.stem.startswith(("speed_", "exploit_"))]
SPEED = [p for p in sorted(RESULTS.glob("*.json")) if p.stem.startswith("speed_")]
EXPLOITS = [p for p in sorted(RESULTS.glob("*.json")) if p.stem.startswith("exploit_")]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_every_result_is_on_test_deals_with_its_command(path):
    doc = json.loads(path.read_text())
    assert doc["command"].split()[0] in ("python", "lastwill")
    if path.stem.startswith("paired_"):  # two logs compared: the seed is their headers'
        assert doc["output"]["header"]["seed"] == 2026
    elif path.stem.startswith("seed2027_"):  # the second set of test deals, named as such
        assert "--seed 2027" in doc["command"]
    else:
        assert "2026" in doc["command"]  # the fixed test seed of docs/RESULTS.md
    assert _deal_sets(doc) == {TEST}


@pytest.mark.parametrize("path", SPEED, ids=lambda p: p.stem)
def test_a_speed_result_names_its_benchmark_and_its_peer_ratio(path):
    """Speed figures (no deals: random or search play) come from a benchmark script, with the
    ratio that the issue's target is stated in."""
    doc = json.loads(path.read_text())
    assert doc["command"].startswith("python benchmarks/") and "--json" in doc["command"]
    text = json.dumps(doc["output"])
    assert any(
        k in text
        for k in ("ratio_vs_catanatron", "ratio_vs_holdem", "engine_ratio", "ratio_overall")
    )


def test_speed_figures_keep_every_number_and_leave_lists_out():
    doc = {
        "command": "python benchmarks/train_speed.py --json",
        "output": {
            "all_seat": {"overall_sps": 4038.4, "update_sps": 8143.8},
            "all_steps_per_s": [1.0, 2.0],
            "ratio_overall": 5.97,
            "runs": {"all_seat": [{"overall_sps": 1.0}]},
        },
    }
    table = _results_doc().figures(doc)
    assert "| all seat overall sps | 4,038 |" in table
    assert "| all seat update sps | 8,144 |" in table
    assert "| ratio overall | 5.97 |" in table
    assert "all steps per s" not in table and "runs" not in table


def test_the_speed_summary_says_which_targets_are_met():
    mod = _results_doc()
    docs = {
        "speed_engine": {"output": {"ratio_vs_catanatron": 8.5}},
        "speed_env": {"output": {"ratio_vs_holdem": 2.0, "env_cost_vs_engine": 1.5}},
    }
    rows = mod.speed_summary(docs).splitlines()[2:]
    assert len(rows) == 3  # speed_train is absent: its row is left out
    assert rows[0].endswith("| 8.50 | >= 8 | yes |")
    assert rows[1].endswith("| 2.00 | >= 3 | no |")
    assert rows[2].endswith("| 1.50 | <= 2 | yes |")  # a cost: lower is better


def test_an_eval_summary_renders_as_a_strength_table():
    """`lastwill eval -f json` summaries carry no `clears_chance`: the page decides it from the
    interval, above chance for the player alone and below it for a bot alone."""
    mod = _results_doc()

    def table(name, lo, hi):
        return {
            "num_players": 2,
            "table": name,
            "games": 1000,
            "wins": 600,
            "win_rate": 0.6,
            "ci_lo": lo,
            "ci_hi": hi,
            "chance": 0.5,
            "errors": 0,
        }

    assert mod._clears(table("vs_sprinter", 0.51, 0.6)) is True
    assert mod._clears(table("vs_sprinter", 0.49, 0.6)) is False
    assert mod._clears(table("sprinter_vs", 0.3, 0.49)) is True
    assert mod._clears({**table("vs_sprinter", 0.49, 0.6), "clears_chance": True}) is True
    doc = {
        "command": "lastwill eval X --panel sprinter -n 2 -g 1000 -s 2026 --no-mixed -f json",
        "output": {"seed": 2026, "deals": "test", "tables": [table("vs_sprinter", 0.57, 0.63)]},
    }
    text = mod.strength_tables(doc)
    assert "| 2 | sprinter | 60.0% | [57.0%, 63.0%] | yes |  |  |  | 50% |" in text


def test_a_paired_logs_result_renders_its_difference_and_verdict():
    mod = _results_doc()
    out = {
        "a": "mcts:policy=x@old",
        "b": "mcts:policy=y@new",
        "a_name": "old",
        "b_name": "new",
        "players": 3,
        "games": 1002,
        "a_value": 0.352,
        "b_value": 0.42,
        "diff": -0.068,
        "ci_lo": -0.11,
        "ci_hi": -0.02,
        "better": "mcts:policy=y@new",
        "mcnemar": {"a_only": 80, "b_only": 148, "p": 0.00001},
        "header": {"deals": "test", "seed": 2026},
    }
    doc = {"command": "python -m labreports.paired_logs a b --players 3 --json", "output": out}
    text = mod.paired_logs([("paired_x", doc)])
    assert "| 3 | `old` | `new` | 35.2% | 42.0% | -6.8 points [-11.0, -2.0], McNemar" in text
    assert "| new better |" in text and "Deals: test deals of seed 2026." in text
    assert _deal_sets(doc) == {TEST}


def _alone(n: int, lo: float, rate: float = 0.4) -> dict:
    return {
        "num_players": n,
        "table": "vs_ppo:reference",
        "games": 1000,
        "wins": int(1000 * rate),
        "win_rate": rate,
        "ci_lo": lo,
        "ci_hi": rate + 0.03,
        "chance": 1 / n,
        "errors": 0,
    }


def _eval_doc(n: int, lo: float, seed: int = 2026) -> dict:
    command = f"lastwill eval X --panel ppo:reference -n {n} -g 1000 -s {seed} --no-mixed -f json"
    return {
        "command": command,
        "output": {"seed": seed, "deals": "test", "tables": [_alone(n, lo)]},
    }


def test_one_table_from_several_parts_checks_the_target_margin():
    """A count per command: the parts render as one table under all their commands, and with a
    margin the player alone clears chance + margin, not chance alone."""
    mod = _results_doc()
    text = mod.strength_tables(_eval_doc(3, 0.397), _eval_doc(4, 0.27), margin=0.05)
    assert "-n 3 -g" in text and "-n 4 -g" in text
    assert "| clears 1/n + 5 pts |" in text
    assert "| 3 | ppo:reference | 40.0% | [39.7%, 43.0%] | yes |" in text
    # 27% clears chance (25%) but not chance + 5 points
    assert "| 4 | ppo:reference | 40.0% | [27.0%, 43.0%] | **no** |" in text
    assert mod._clears(_alone(4, 0.27)) is True
    assert mod._clears(_alone(4, 0.30), 0.05) is True  # exactly on the target


def test_parts_on_other_deals_or_repeating_a_count_are_refused():
    mod = _results_doc()
    with pytest.raises(ValueError, match="different deals"):
        mod.strength_tables(_eval_doc(3, 0.4), _eval_doc(4, 0.3, seed=7))
    with pytest.raises(ValueError, match="in two parts"):
        mod.strength_tables(_eval_doc(3, 0.4), _eval_doc(3, 0.41))


def test_a_section_reads_its_result_and_its_parts(tmp_path, monkeypatch):
    mod = _results_doc()
    monkeypatch.setattr(mod, "RESULTS", tmp_path)
    (tmp_path / "x_ref.json").write_text(json.dumps(_eval_doc(3, 0.4)))
    (tmp_path / "x_ref_4p.json").write_text(json.dumps(_eval_doc(4, 0.3)))
    (tmp_path / "x_refine.json").write_text(json.dumps(_eval_doc(5, 0.3)))  # another result
    parts = mod.load_parts("x_ref")
    assert [d["output"]["tables"][0]["num_players"] for d in parts] == [3, 4]


def test_a_moved_policy_is_shown_under_its_name_now_and_the_file_is_kept(tmp_path, monkeypatch):
    """A table made against a policy that has since moved (the reference of its time, kept
    under another name) renders its command and labels with the name that plays it now, in
    the order the pairs are given, with the file's note under the table; the file on disk
    stays as recorded."""
    mod = _results_doc()
    monkeypatch.setattr(mod, "RESULTS", tmp_path)
    doc = _eval_doc(3, 0.4)
    doc["renamed"] = [["ppo:reference", "ppo:ref_old"], ["ref_old", "ref_v7"]]
    doc["note"] = "Played against the reference of its time, `ref_v7` now."
    path = tmp_path / "x_ref.json"
    path.write_text(json.dumps(doc))
    (shown,) = mod.load_parts("x_ref")
    assert shown["command"].startswith("lastwill eval X --panel ppo:ref_v7 -n 3")
    assert shown["output"]["tables"][0]["table"] == "vs_ppo:ref_v7"
    assert json.loads(path.read_text()) == doc  # the record is not rewritten
    assert mod.notes(mod.load_parts("x_ref")) == f"\nNote: {doc['note']}\n"
    assert mod.notes([_eval_doc(3, 0.4)]) == ""
    doc["renamed"] = [["ppo:reference"]]
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="x_ref.json: 'renamed' must be a list of"):
        mod.load_parts("x_ref")


def test_a_partial_evaluation_is_refused(tmp_path, monkeypatch, capsys):
    """An evaluation read from a log still being played (`lastwill eval --no-play`) says it is
    not complete, and `--add` refuses it with exit code 2 and writes nothing."""
    mod = _results_doc()
    monkeypatch.setattr(mod, "RESULTS", tmp_path / "results")
    doc = _eval_doc(4, 0.3)["output"]
    doc["complete"] = False
    doc["tables"][0].update(planned=1000, logged=412, games=410)  # two error rows
    part = tmp_path / "part.json"
    part.write_text(json.dumps(doc))
    with pytest.raises(SystemExit) as stop:
        mod.add("x_ref", part, "lastwill eval ... -s 2026")
    assert stop.value.code == 2
    assert "4p vs_ppo:reference 412 of 1000 games" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
    doc["complete"] = True
    part.write_text(json.dumps(doc))
    mod.add("x_ref", part, "lastwill eval ... -s 2026")
    assert json.loads((tmp_path / "results" / "x_ref.json").read_text())["output"] == doc


@pytest.mark.parametrize("path", EXPLOITS, ids=lambda p: p.stem)
def test_an_exploit_result_is_a_whole_exploit_report(path):
    """The one section off test deals: a `lastwill exploit` report, chosen on its training's
    evaluations and played again on deals of its own, with its start, bound and cheap bound."""
    doc = json.loads(path.read_text())
    assert doc["command"].startswith("lastwill exploit ")
    out = doc["output"]
    assert "validation" in out["chosen_on"]
    assert out["train_state"]["step"] >= out["steps"]
    assert out["bound"]["win_rate"] >= out["initial"]["win_rate"]
    assert out["cheap_bound"]["best"]["bot"] in out["cheap_bound"]["tables"]


def _exploit_doc(n, start, br, bot, rising=False):
    def line(rate, lo, hi, **extra):
        return {"win_rate": rate, "wilson_95": [lo, hi], "games": 1000, **extra}

    best = line(*br, step=250_000)
    bound = max(best, line(*start, step=0), key=lambda x: x["win_rate"])
    return {
        "command": f"lastwill exploit --target ppo:reference -n {n} --seed 5",
        "output": {
            "target": "ppo:reference",
            "num_players": n,
            "steps": 1_000_000,
            "initial": line(*start),
            "best_response": best,
            "still_rising": rising,
            "bound": bound,
            "cheap_bound": {"best": line(*bot[1:], bot=bot[0])},
            "chosen_on": "validation deals",
            "train_state": {"step": 1_000_123},
        },
    }


def test_an_exploit_line_checks_the_higher_bound_against_its_target():
    mod = _results_doc()
    two = _exploit_doc(2, (0.5, 0.47, 0.53), (0.45, 0.42, 0.48), ("sprinter", 0.504, 0.473, 0.535))
    four = _exploit_doc(4, (0.25, 0.22, 0.28), (0.27, 0.245, 0.297), ("racer", 0.2, 0.18, 0.23))
    five = _exploit_doc(5, (0.2, 0.18, 0.22), (0.2, 0.18, 0.22), ("racer", 0.1, 0.08, 0.12), True)
    text = mod.exploit_bounds([("a", two), ("b", four), ("c", five)])
    rows = text.splitlines()[-3:]
    # 2 players: the sprinter's cheap bound is the higher; its upper end 53.5% is under 55%
    assert rows[0].endswith(
        "| sprinter 50.4% [47.3%, 53.5%] | 50.4% [47.3%, 53.5%] | yes (< 55.0%) |"
    )
    assert "| 45.0% [42.0%, 48.0%] (250,000) | no |" in rows[0]
    assert "| 1,000,123 |" in rows[0]
    # 4 players: the trained bound is higher and its upper end 29.7% is under 30%
    assert rows[1].endswith("| 27.0% [24.5%, 29.7%] | yes (< 30.0%) |")
    # no target at 5 players; a curve still rising says so
    assert rows[2].endswith("| 20.0% [18.0%, 22.0%] |  |")
    assert "| yes | racer" in rows[2]
    assert "validation deals of a seed drawn from each command's `--seed`" in text
    worse = _exploit_doc(4, (0.25, 0.22, 0.28), (0.3, 0.27, 0.33), ("racer", 0.2, 0.18, 0.23))
    assert mod.exploit_bounds([("b", worse)]).splitlines()[-1].endswith("| **no** (< 30.0%) |")
