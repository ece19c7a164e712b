"""labreports.search_curve: one table per budget and count, and its per-game log."""

from __future__ import annotations

import json

import pytest

from agents import evaluate
from labreports import search_curve

pytest.importorskip("torch")

REF = "agents/policies/reference.npz"


@pytest.fixture(scope="module")
def curve():
    return search_curve


def test_the_log_holds_every_game_of_every_table(curve, tmp_path, capsys):
    out = tmp_path / "curve.jsonl"
    args = ["--sims", "1,2", "--players", "2", "--games", "2", "--out", str(out), "--json"]
    assert curve.main(args) == 0
    result = json.loads(capsys.readouterr().out)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    header, rows = lines[0], lines[1:]
    assert header["kind"] == "search_curve" and header["deals"] == "validation"
    assert [t["name"] for t in header["tables"]] == ["sims1", "sims2"]
    assert [r["table"] for r in rows] == ["sims1", "sims1", "sims2", "sims2"]
    # the same deals at every budget: the tables are paired
    assert [r["deal_seed"] for r in rows[:2]] == [r["deal_seed"] for r in rows[2:]]
    for line in result["tables"]:
        mine = [r for r in rows if r["table"] == f"sims{line['sims']}"]
        wins = sum(1 for r in mine if r["winner_spec"].startswith("mcts:"))
        assert line["games"] == len(mine) and line["wins"] == wins


def test_an_existing_log_is_refused_before_any_game(curve, tmp_path, capsys, monkeypatch):
    out = tmp_path / "curve.jsonl"
    out.write_text("keep\n")
    monkeypatch.setattr(evaluate, "play_tables", lambda *a, **k: pytest.fail("played"))
    assert curve.main(["--sims", "1", "--players", "2", "--games", "2", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_text() == "keep\n"


def test_the_search_options_reach_every_searcher_and_the_header(curve):
    ts = curve.tables(REF, [8, 32], [2, 4], 1.5, ptemp=2.0, sure=0.9)
    assert [t.entrants[0] for t in ts][::2] == [
        f"mcts:policy={REF}:sims=8:c_puct=1.5:ptemp=2.0:sure=0.9",
        f"mcts:policy={REF}:sims=32:c_puct=1.5:ptemp=2.0:sure=0.9",
    ]
    assert all(t.entrants[1:] == (f"ppo:{REF}",) * (t.num_players - 1) for t in ts)
    plain = curve.tables(REF, [8], [2], 1.5)
    assert plain[0].entrants[0] == f"mcts:policy={REF}:sims=8:c_puct=1.5"  # defaults unsaid


def test_resume_continues_an_interrupted_screen(curve, tmp_path, capsys):
    args = ["--sims", "1", "--players", "2", "--games", "4", "--json"]
    whole = tmp_path / "whole.jsonl"
    assert curve.main([*args, "--out", str(whole)]) == 0
    expected = json.loads(capsys.readouterr().out)["tables"]
    out = tmp_path / "cut.jsonl"
    out.write_text("".join(whole.read_text().splitlines(keepends=True)[:3]))
    assert curve.main([*args, "--out", str(out), "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["tables"] == expected
    assert out.read_text() == whole.read_text()
    # another screen's log is refused, untouched; --resume alone names what it needs
    assert curve.main([*args, "--seed", "1", "--out", str(out), "--resume"]) == 2
    assert "seed: log has 0, this run has 1" in capsys.readouterr().err
    assert out.read_text() == whole.read_text()
    with pytest.raises(SystemExit) as e:
        curve.main([*args, "--resume"])
    assert e.value.code == 2 and "--resume needs --out" in capsys.readouterr().err
