"""Tests of agents.evaluate (the panel evaluation) and `lastwill eval`."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from agents import evaluate as ev
from agents.registry import PlayerSpecError
from agents.stats import summarize
from apps.cli import app

runner = CliRunner()


def test_panel_tables_copies_mixed_and_anchor():
    tables = ev.panel_tables("me", ["greedy", "planner"], [2, 4])
    assert [(t.num_players, t.name, t.entrants) for t in tables] == [
        (2, "vs_greedy", ("me", "greedy")),
        (2, "vs_planner", ("me", "planner")),
        (4, "vs_greedy", ("me", "greedy", "greedy", "greedy")),
        (4, "vs_planner", ("me", "planner", "planner", "planner")),
        (4, "mixed", ("me", "greedy", "planner", "greedy")),
    ]
    anchored = ev.panel_tables("me", ["greedy", "planner"], [2, 5], anchor="random")
    mixed = [t for t in anchored if t.name == "mixed"]
    assert [t.entrants for t in mixed] == [
        ("me", "random"),
        ("me", "greedy", "planner", "random", "random"),
    ]
    assert [t.name for t in ev.panel_tables("me", ["greedy"], [3], mixed=False)] == ["vs_greedy"]


@pytest.mark.parametrize(
    ("panel", "counts", "message"),
    [
        ([], [4], "panel is empty"),
        (["greedy"], [6], "2, 3, 4 or 5"),
        (["greedy"], [3, 3], "distinct"),
        (["greedy", "greedy"], [2], "the panel lists 'greedy' twice; list each bot once"),
        (["greedy@g", "racer@g"], [2], "'greedy@g' and 'racer@g' are both shown as 'g'"),
        (["greedy", "greedy@greedy"], [2], "both shown as 'greedy'"),
    ],
)
def test_panel_tables_reject_bad_requests(panel, counts, message):
    with pytest.raises(ev.EvalError, match=message):
        ev.panel_tables("me", panel, counts)


def test_the_panel_is_one_list_of_registered_bots():
    from agents.registry import make_agent

    assert ev.PANEL and len(set(ev.PANEL)) == len(ev.PANEL) and "random" not in ev.PANEL
    for bot in ev.PANEL:
        make_agent(bot, 0)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("eval") / "e.jsonl"
    result = ev.evaluate(
        "greedy@me", panel=["random", "planner"], num_players=[2, 3], games=3, seed=5, out=out
    )
    return result, out


def test_evaluate_plays_every_table_on_paired_deals(small):
    result, _ = small
    keys = [t.key for t in result.tables]
    assert keys == ["2p/vs_random", "2p/vs_planner", "3p/vs_random", "3p/vs_planner", "3p/mixed"]
    per = {t.key: result.table_rows(t) for t in result.tables}
    assert [len(per[k]) for k in keys] == [4, 4, 3, 3, 3]  # rounded up to whole rotations
    assert len(result.rows) == 17 and all(r["error"] is None for r in result.rows)
    # every table at one count plays the same deal seeds
    assert {r["deal_seed"] for r in per["3p/vs_random"]} == {
        r["deal_seed"] for r in per["3p/mixed"]
    }
    assert per["3p/mixed"][0]["seating"] == ["greedy@me", "random", "planner"]


def test_evaluate_summary_matches_the_games(small):
    result, _ = small
    rows = {(r["num_players"], r["table"]): r for r in result.summary()}
    line = rows[(2, "vs_planner")]
    games = [r for r in result.rows if r["table"] == "vs_planner" and r["num_players"] == 2]
    me = {e["spec"]: e for e in summarize(games)}["greedy@me"]
    assert line["games"] == me["games"] == 4 and line["wins"] == me["wins"]
    assert line["opponents"] == ["planner"] and line["chance"] == 0.5
    assert line["ci_lo"] <= (line["win_rate"] or 0) <= line["ci_hi"]
    assert result.anchor == "random"
    for n in (2, 3):
        rated = result.ratings[n]
        assert rated["anchor"] == "random" and rated["scale"] == "Elo"
        assert rated["ratings"]["random"]["rating"] == 0.0
        me = rated["ratings"]["greedy@me"]
        line = rows[(n, "vs_random")]
        assert (line["rating"], line["rating_se"]) == (me["rating"], me["se"])
        assert (line["rating_lo"], line["rating_hi"]) == (me["ci_lo"], me["ci_hi"])
        assert "ordinal" not in line
    two, three = (result.ratings[n]["ratings"]["greedy@me"] for n in (2, 3))
    assert two["ci_lo"] <= two["rating"] <= two["ci_hi"] and two["se"] > 0  # 2 deals
    assert three["se"] is None and three["ci_lo"] is None  # 1 deal: no bootstrap
    doc = result.to_dict()
    assert doc["name"] == "me" and doc["games"] == 17 and len(doc["tables"]) == 5
    json.dumps(doc)  # JSON-safe


def test_evaluation_ratings_are_one_seeded_fit_whatever_the_order_of_the_games(small):
    """Per count, the ratings are `agents.stats.fit_ratings` over that count's games, anchored
    and seeded by the evaluation: the same whatever order the games come in."""
    from agents.stats import fit_ratings

    result, _ = small
    for n in (2, 3):
        games = [r for r in result.rows if r["num_players"] == n]
        assert result.ratings[n] == fit_ratings(games, anchor="random", seed=5)
        assert result.ratings[n] == fit_ratings(games[::-1], anchor="random", seed=5)
    again = ev._evaluation(
        result.spec, result.tables, result.rows[::-1], 5, "random", result.deals, []
    )
    assert again.ratings == result.ratings


def test_evaluate_log_and_reproducibility(small, tmp_path):
    result, out = small
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["kind"] == "eval"
    assert [t["table"] for t in lines[0]["tables"]] == [t.name for t in result.tables]
    assert lines[1:] == result.rows
    again = ev.evaluate(
        "greedy@me", panel=["random", "planner"], num_players=[2, 3], games=3, seed=5
    )
    assert [r["actions"] for r in again.rows] == [r["actions"] for r in result.rows]
    assert again.out is None
    with pytest.raises(ev.EvalError, match="already exists"):
        ev.evaluate("greedy@me", panel=["random"], num_players=[2], games=1, out=out)


def test_evaluate_rejects_the_panel_itself_and_bad_specs():
    with pytest.raises(ev.EvalError, match="greedy@me"):
        ev.evaluate("greedy", panel=["greedy", "random"], games=1)
    with pytest.raises(PlayerSpecError, match="unknown player"):
        ev.evaluate("nobody", panel=["random"], games=1)


def _eval(*args):
    return runner.invoke(app, ["eval", "-q", *args])


def test_eval_cli_json_csv_and_table(tmp_path):
    common = ["greedy@me", "--panel", "random,planner", "-n", "2,3", "-g", "4", "-s", "1"]
    res = _eval(*common, "-f", "json", "-o", str(tmp_path / "j.jsonl"))
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["spec"] == "greedy@me" and set(doc["ratings"]) == {"2", "3"}
    assert [(t["num_players"], t["table"]) for t in doc["tables"]] == [
        (2, "vs_random"),
        (2, "vs_planner"),
        (3, "vs_random"),
        (3, "vs_planner"),
        (3, "mixed"),
    ]
    assert (tmp_path / "j.jsonl").exists()
    res = _eval(*common, "-f", "csv", "-o", str(tmp_path / "c.jsonl"))
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["table"] for r in rows] == [
        "vs_random",
        "vs_planner",
        "vs_random",
        "vs_planner",
        "mixed",
    ]
    assert rows[4]["opponents"] == "random+planner" and rows[0]["spec"] == "greedy@me"
    rating = ("rating", "rating_se", "rating_lo", "rating_hi")
    assert set(rating) <= set(rows[0]) and "ordinal" not in rows[0]
    me = doc["ratings"]["2"]["ratings"]["greedy@me"]
    assert float(rows[0]["rating"]) == pytest.approx(me["rating"])
    assert doc["tables"][0]["rating_se"] == me["se"]
    res = _eval(*common, "-o", str(tmp_path / "t.jsonl"))
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "me against the panel" in text and "vs 2x planner" in text
    assert "mixed: random, planner" in text and "random = 0" in text
    assert f"{me['rating']:+.1f} ± {me['se']:.1f}" in text
    assert "Plackett-Luce" in text and "Elo" in text and "OpenSkill" not in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["greedy@me", "-n", "2,x"], "comma-separated integers"),
        (["greedy@me", "-n", "7"], "2, 3, 4 or 5"),
        (["greedy@me", "--panel", ","], "panel is empty"),
        (["greedy", "--panel", "greedy,random", "-g", "1"], "display name"),
        (["greedy@greedy", "--panel", "greedy,random", "-g", "1"], "is shown as 'greedy'"),
        (["racer@g", "--panel", "greedy@g,random", "-g", "1"], "is shown as 'g'"),
        (["greedy@me", "--panel", "greedy,greedy", "-n", "2"], "lists 'greedy' twice"),
        (["greedy@me", "--panel", "random", "-n", "2", "-s", "-1"], "--seed=-1 is not allowed"),
        (["nobody", "-g", "1"], "unknown player"),
        (["greedy@me", "--starting-money", "12"], "starting_money"),
    ],
)
def test_eval_cli_bad_input_exits_2(tmp_path, args, message):
    res = _eval(*args, "-o", str(tmp_path / "x.jsonl"))
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "x.jsonl").exists()


def test_eval_cli_refuses_an_existing_log(tmp_path):
    out = tmp_path / "old.jsonl"
    out.write_text("keep me\n")
    res = _eval("greedy@me", "--panel", "random", "-n", "2", "-g", "1", "-o", str(out))
    assert res.exit_code == 2 and "already exists" in res.output
    assert out.read_text() == "keep me\n"


def test_play_logged_writes_the_header_then_every_game(tmp_path):
    tables = [ev.Table("vs_random", 2, ("greedy@me", "random"))]
    header = ev.log_header("demo", tables, seed=3, deals="validation")
    assert header["type"] == "header" and header["kind"] == "demo" and header["seed"] == 3
    assert header["tables"] == [
        {"name": "vs_random", "num_players": 2, "entrants": ["greedy@me", "random"]}
    ]
    out = tmp_path / "sub" / "games.jsonl"
    rows = ev.play_logged(tables, 2, out, header, seed=3, deals="validation")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0] == header and lines[1:] == rows and len(rows) == 2
    # the same games without a log; an existing log is refused before any game
    assert ev.play_logged(tables, 2, None, header, seed=3, deals="validation") == rows
    with pytest.raises(ev.EvalError, match="already exists"):
        ev.play_logged(tables, 2, out, header, seed=3, deals="validation")
    with pytest.raises(ev.EvalError, match="directory"):
        ev.play_logged(tables, 2, tmp_path, header, seed=3, deals="validation")
    assert len(out.read_text().splitlines()) == 3


def test_play_logged_resume_plays_only_what_the_log_lacks(tmp_path):
    tables = [
        ev.Table("vs_random", 2, ("greedy@me", "random")),
        ev.Table("r", 3, ("greedy@me",) * 3),
    ]
    header = ev.log_header("demo", tables, seed=3, deals="validation")
    play = {"seed": 3, "deals": "validation"}
    whole = tmp_path / "whole.jsonl"
    full = ev.play_logged(tables, 3, whole, header, **play)
    lines = whole.read_text().splitlines(keepends=True)
    out = tmp_path / "cut.jsonl"
    out.write_text("".join(lines[:3]) + '{"game": 2, "torn')  # killed in the third game
    notes: list[str] = []
    played: list[dict] = []
    real = ev.play_tables
    spy = lambda *a, **k: played.extend(real(*a, **k)) or played  # noqa: E731
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ev, "play_tables", spy)
        rows = ev.play_logged(tables, 3, out, header, resume=True, on_note=notes.append, **play)
    assert len(played) == len(full) - 2 and rows == full  # the two logged games are kept
    assert out.read_text() == whole.read_text()
    assert any("torn" in n for n in notes)
    # a whole log plays nothing and stays as it is
    assert ev.play_logged(tables, 3, out, header, resume=True, **play) == full
    assert out.read_text() == whole.read_text()


def test_play_logged_resume_refuses_another_runs_log(tmp_path):
    tables = [ev.Table("vs_random", 2, ("greedy@me", "random"))]
    header = ev.log_header("demo", tables, seed=3, deals="validation")
    out = tmp_path / "games.jsonl"
    ev.play_logged(tables, 2, out, header, seed=3, deals="validation")
    before = out.read_bytes()
    other = ev.log_header("demo", tables, seed=4, deals="validation")
    with pytest.raises(ev.EvalError, match="seed: log has 3, this run has 4"):
        ev.play_logged(tables, 2, out, other, resume=True, seed=4, deals="validation")
    with pytest.raises(ev.EvalError, match="resume needs the log"):
        ev.play_logged(tables, 2, None, header, resume=True, seed=3, deals="validation")
    with pytest.raises(ev.EvalError, match="at least 1"):
        ev.play_logged(tables, 0, tmp_path / "new.jsonl", header, seed=3, deals="validation")
    assert out.read_bytes() == before and not (tmp_path / "new.jsonl").exists()


def test_the_player_is_told_apart_from_the_anchor_by_its_display_name():
    with pytest.raises(ev.EvalError, match="'racer@random' is shown as 'random'"):
        ev.evaluate("racer@random", panel=["greedy"], num_players=[3], games=1, anchor="random")


def test_an_evaluation_refuses_a_seed_outside_the_deal_range():
    with pytest.raises(ev.EvalError, match=r"seed=-1 is not allowed; use an integer from 0 to"):
        ev.evaluate("greedy@me", panel=["random"], num_players=[2], games=1, seed=-1)


def test_json_output_stays_parseable_when_an_agent_prints(tmp_path, capfd):
    res = _eval(
        "unruly_agents:Talker@t", "--panel", "random", "-n", "2", "-g", "2", "-f", "json",
        "-o", str(tmp_path / "e.jsonl"),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games"] == 2
    assert "Talker: built" in res.stderr  # what it prints goes to stderr
    assert "Talker" not in capfd.readouterr().out
