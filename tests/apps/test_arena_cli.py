"""Tests of `lastwill arena` through typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json

from typer.testing import CliRunner

from agents.registry import names
from apps.cli import app

runner = CliRunner()


def _arena(*args):
    return runner.invoke(app, ["arena", "-q", *args])


def test_help_lists_the_player_specs():
    res = runner.invoke(app, ["arena", "--help"])
    assert res.exit_code == 0
    for name in names():
        assert name in res.output
    assert "--resume" in res.output and "--all-seatings" in res.output


def test_table_output(tmp_path):
    out = tmp_path / "t.jsonl"
    res = _arena("-p", "random,random,random", "-g", "6", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "win rate" in res.stdout and "Plackett-Luce" in res.stdout
    assert "anchor:" in res.stdout and "random = 0" in " ".join(res.stdout.split())
    assert len(out.read_text().splitlines()) == 1 + 6


def test_json_output_and_rounding_note(tmp_path):
    res = _arena("-p", "random,random", "-g", "3", "-f", "json", "-o", str(tmp_path / "j.jsonl"))
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["games"] == 3 and doc["errors"] == 0
    assert doc["entrants"][0]["spec"] == "random" and doc["entrants"][0]["games"] == 6
    assert doc["ratings"]["anchor"] == "random"
    assert doc["header"]["entrants"] == ["random", "random"]


def _fake_result(rows, out):
    from types import SimpleNamespace

    header = {"type": "header", "entrants": ["a", "b"], "num_players": 2}
    return SimpleNamespace(
        rows=rows, out=out, header=header, errors=0, seatings=2, played=0, elapsed=0.0
    )


def _a_wins_57_with_its_wins_first():
    """500 paired deals, a wins 570 of 1,000 games (+14 points paired), all of them first."""
    games = []
    for d in range(500):
        won = ("a", "a") if d < 170 else ("b", "b") if d < 270 else ("a", "b")
        for si, seating in enumerate((["a", "b"], ["b", "a"])):
            games.append((d, seating, seating.index(won[si])))
    games.sort(key=lambda g: g[1][g[2]] == "b")
    return [
        {
            "game": i,
            "deal": d,
            "deal_seed": 1000 + d,
            "seating": seating,
            "winner": w,
            "ranks": [1 if s == w else 2 for s in range(2)],
            "error": None,
        }
        for i, (d, seating, w) in enumerate(games)
    ]


def test_ratings_agree_with_the_paired_result_whatever_the_game_order(tmp_path, capsys):
    from apps.arena_cli import _report_arena
    from apps.options import OutputFormat

    result = _fake_result(_a_wins_57_with_its_wins_first(), tmp_path / "x.jsonl")
    _report_arena(result, OutputFormat.json, 1, "test", "b", None, None, False, 2)
    doc = json.loads(capsys.readouterr().out)
    assert doc["paired"][0]["better"] == "a"
    assert list(doc["ratings"]["ratings"]) == ["a", "b"]
    a = doc["ratings"]["ratings"]["a"]
    assert 40 < a["rating"] < 58 and a["ci_lo"] > 0
    _report_arena(result, OutputFormat.table, 1, "test", "b", None, None, False, 2)
    text = capsys.readouterr().out
    assert "OpenSkill" not in text and "order-free" in text
    table = text[text.index("Ratings (") : text.index("Seats (all players)")]
    players = [line.split()[1] for line in table.splitlines() if line.startswith("│")]
    assert players == ["a", "b"]


def test_csv_output_and_rotation(tmp_path):
    players = "random,greedy" if "greedy" in names() else "random,random:x=1"
    if "greedy" not in names():  # pragma: no cover - before the greedy bot lands
        players = "random,random"
    res = _arena("-p", players, "-g", "3", "-f", "csv", "-o", str(tmp_path / "c.jsonl"))
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    columns = {"spec", "win_rate", "ci_lo", "ci_hi", "chance", "rating", "rating_se"}
    assert rows and columns <= set(rows[0])
    if players == "random,greedy":
        assert "rounded up to 4" in res.stderr  # 2 seatings
        assert sorted(r["spec"] for r in rows) == ["greedy", "random"]
        assert all(r["games"] == "4" for r in rows)


def test_plot_writes_png(tmp_path):
    png = tmp_path / "w.png"
    res = _arena(
        "-p", "random,random", "-g", "2", "-o", str(tmp_path / "p.jsonl"), "--plot", str(png)
    )
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_bad_spec_exit_2_lists_choices(tmp_path):
    res = _arena("-p", "random,nosuchbot", "-o", str(tmp_path / "b.jsonl"))
    assert res.exit_code == 2
    assert "unknown player 'nosuchbot'" in res.stderr
    assert "random" in res.stderr and "Traceback" not in res.output
    assert not (tmp_path / "b.jsonl").exists()


def test_ppo_without_checkpoint_reports_registry_error(tmp_path):
    res = _arena("-p", "random,ppo:/no/such/checkpoint.zip", "-o", str(tmp_path / "p.jsonl"))
    assert res.exit_code == 2
    assert "ppo" in res.stderr and "Traceback" not in res.output


def test_bad_player_counts(tmp_path):
    res = _arena("-p", "random", "-o", str(tmp_path / "a.jsonl"))
    assert res.exit_code == 2 and "2, 3, 4 or 5" in res.stderr
    res = _arena("-p", "random,random,random", "-n", "4", "-o", str(tmp_path / "a.jsonl"))
    assert res.exit_code == 2 and "exactly 4 specs" in res.stderr
    res = _arena("-p", ",".join(["random"] * 6), "-o", str(tmp_path / "a.jsonl"))
    assert res.exit_code == 2 and "2, 3, 4 or 5" in res.stderr


def test_bad_format_lists_choices():
    res = _arena("-p", "random,random", "-f", "xml")
    assert res.exit_code == 2
    assert "table" in res.output and "json" in res.output and "csv" in res.output


def test_existing_out_refused_then_resumed(tmp_path):
    out = tmp_path / "r.jsonl"
    assert _arena("-p", "random,random", "-g", "2", "-o", str(out)).exit_code == 0
    before = out.read_bytes()
    res = _arena("-p", "random,random", "-g", "2", "-o", str(out))
    assert res.exit_code == 2 and "--resume" in res.stderr
    assert out.read_bytes() == before
    res = _arena("-p", "random,random", "-g", "4", "-o", str(out), "--resume", "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games"] == 4
    res = _arena("-p", "random,random", "-g", "4", "-s", "3", "-o", str(out), "--resume")
    assert res.exit_code == 2 and "different tournament" in res.stderr


def test_display_names_and_paired_comparisons(tmp_path):
    out = tmp_path / "lab.jsonl"
    res = _arena("-p", "greedy@G,random@R", "-g", "8", "-s", "2", "-f", "json", "-o", str(out))
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [e["name"] for e in doc["entrants"]] == ["G", "R"]
    assert [e["spec"] for e in doc["entrants"]] == ["greedy@G", "random@R"]
    (pair,) = doc["paired"]
    assert (pair["a"], pair["b"], pair["deals"]) == ("greedy@G", "random@R", 4)
    assert pair["mcnemar"] is not None and pair["verdict"]
    table = _arena("-p", "greedy@G,random@R", "-g", "8", "-s", "2", "-o", str(tmp_path / "t"))
    text = " ".join(table.stdout.split())
    assert "Paired comparisons on the same deals" in text and "McNemar p" in text
    assert "greedy@G" not in table.stdout  # the labels name the entrants


def test_paired_table_warns_below_min_deals(tmp_path):
    res = _arena("-p", "greedy@G,random@R", "-g", "8", "-s", "2", "-o", str(tmp_path / "w"))
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert " *" in text  # the 4-deal interval is starred
    assert "* the pair played 4 deals, fewer than 30" in text


def test_paired_csv_one_row_per_pair_refused_when_present(tmp_path):
    paired = tmp_path / "paired.csv"
    args = ("-p", "greedy@G,random@R", "-g", "8", "-s", "2", "-f", "csv")
    res = _arena(*args, "-o", str(tmp_path / "a.jsonl"), "--paired-csv", str(paired))
    assert res.exit_code == 0, res.output
    entrants = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["name"] for r in entrants] == ["G", "R"]  # stdout keeps the entrants alone
    (row,) = list(csv.DictReader(io.StringIO(paired.read_text())))
    assert (row["a_name"], row["b_name"], row["deals"], row["games"]) == ("G", "R", "4", "8")
    assert row["mcnemar_p"] and row["verdict"] and row["warning"].startswith("only 4 deals")
    before = paired.read_bytes()
    res = _arena(*args, "-o", str(tmp_path / "b.jsonl"), "--paired-csv", str(paired))
    assert res.exit_code == 2 and "--force" in res.stderr and "--paired-csv" in res.stderr
    assert paired.read_bytes() == before and not (tmp_path / "b.jsonl").exists()
    res = _arena(*args, "-o", str(tmp_path / "c.jsonl"))
    assert res.exit_code == 0 and "--paired-csv PATH writes them" in res.stderr


def test_empty_label_is_a_clear_error(tmp_path):
    res = _arena("-p", "greedy@,random", "-o", str(tmp_path / "x.jsonl"))
    assert res.exit_code == 2
    assert "empty display name" in res.output


def test_json_output_stays_parseable_when_an_agent_prints(tmp_path, capfd):
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.jsonl"
        res = _arena("-p", "unruly_agents:Talker,random", "-g", "4", "-f", "json", "-o", str(out))
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        assert doc["games"] == 4 and doc["errors"] == 0
        assert "Talker: built" in res.stderr  # what it prints goes to stderr
    assert "Talker" not in capfd.readouterr().out  # worker processes' prints too


def test_a_registered_agent_that_prints_leaves_the_csv_output_whole(tmp_path, monkeypatch):
    from agents import registry

    registry._load_builtin()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("_talker", _talker, "test only")
    res = _arena("-p", "_talker,random", "-g", "2", "-f", "csv", "-o", str(tmp_path / "c.jsonl"))
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["spec"] for r in rows] == ["_talker", "random"]
    assert "Talker: I play" in res.stderr


def _talker(seed=None):
    from unruly_agents import Talker

    return Talker(seed)


def test_small_sample_footnotes_are_said_once_not_per_pair():
    from apps.arena_cli import paired_footnotes

    def pair(a, b, deals, warning):
        return {"a": a, "b": b, "diff": 0.1, "deals": deals, "warning": warning}

    few = "only 10 deals (fewer than 30): the bootstrap interval is too narrow to trust"
    flat = "every deal gave the same difference (+0.0 points), so the interval has no width"
    paired = [
        pair("greedy", "random", 10, f"{few}; {flat}"),
        pair("greedy", "planner", 10, few),
        pair("planner", "random", 10, few),
        pair("racer", "random", 40, None),
    ]
    lines = paired_footnotes(paired)
    assert lines == [
        "* 3 of 4 pairs played 10 deals, fewer than 30: the starred intervals are too narrow "
        "to trust; play more games",
        "* no spread (greedy vs random): every deal gave the same difference",
    ]
    assert paired_footnotes([pair("racer", "random", 40, None)]) == []
    every = [pair("a", "b", 10, f"{few}; {flat}"), pair("a", "c", 10, f"{few}; {flat}")]
    assert paired_footnotes(every)[-1] == (
        "* no spread in any pair: every deal gave the same difference"
    )
