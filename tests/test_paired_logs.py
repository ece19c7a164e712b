"""benchmarks/paired_logs.py: two players compared on the same games of two logs."""

from __future__ import annotations

import json

from lab_scripts import load_script

paired = load_script("benchmarks/paired_logs.py")


def _row(game: int, deal: int, rot: int, me: str, won: bool, table: str = "vs_x") -> dict:
    seating = [me, "x", "x"]
    return {
        "game": game,
        "deal": deal,
        "deal_seed": 1000 + deal,
        "seating_index": rot,
        "seating": seating,
        "num_players": 3,
        "config": {"num_players": 3, "starting_money": 70, "board_spaces": 5},
        "actions": [],
        "table": table,
        "winner": 0 if won else 1,
        "ranks": [1, 2, 3] if won else [2, 1, 3],
        "error": None,
    }


def _log(path, rows: list[dict], deals: str = "test") -> str:
    header = {"type": "header", "deals": deals, "seed": 2026}
    path.write_text("\n".join(json.dumps(r) for r in [header, *rows]) + "\n")
    return str(path)


def test_games_pair_by_deal_and_rotation_whatever_their_numbers(tmp_path, capsys):
    # log A: A wins deals 0-19 in rotation 0 only; log B (numbered from 100, another table
    # first): B wins nothing
    a_rows = [_row(2 * d + r, d, r, "A", r == 0) for d in range(20) for r in range(2)]
    other = [_row(k, 99, 0, "B", True, table="vs_y") for k in range(3)]
    b_rows = other + [_row(100 + 2 * d + r, d, r, "B", False) for d in range(20) for r in range(2)]
    la, lb = _log(tmp_path / "a.jsonl", a_rows), _log(tmp_path / "b.jsonl", b_rows)
    assert paired.main([la, lb, "--players", "3", "--table", "vs_x", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["a"], out["b"], out["games"], out["deals"]) == ("A", "B", 40, 20)
    assert out["a_value"] == 0.5 and out["b_value"] == 0.0 and out["diff"] == 0.5
    assert out["mcnemar"]["a_only"] == 20 and out["mcnemar"]["b_only"] == 0
    assert out["better"] == "A" and out["ci_lo"] > 0
    assert out["header"] == {"deals": "test", "seed": 2026}


def test_logs_without_a_common_game_are_an_error(tmp_path, capsys):
    la = _log(tmp_path / "a.jsonl", [_row(0, 0, 0, "A", True)])
    lb = _log(tmp_path / "b.jsonl", [_row(0, 5, 0, "B", True)])
    assert paired.main([la, lb]) == 2
    assert "no game is in both logs" in capsys.readouterr().err
    assert paired.main([la, str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot be read as a game log" in capsys.readouterr().err
    assert paired.main([la, lb, "--table", "vs_nothing"]) == 2
    assert "holds no game of the table" in capsys.readouterr().err
    lv = _log(tmp_path / "v.jsonl", [_row(0, 0, 0, "B", True)], deals="validation")
    assert paired.main([la, lv]) == 2
    assert "played on different deals" in capsys.readouterr().err


def test_log_b_may_name_its_table_otherwise(tmp_path, capsys):
    a_rows = [_row(d, d, 0, "A", True, table="vs_ppo:long/path.npz") for d in range(12)]
    b_rows = [_row(d, d, 0, "B", d % 2 == 0, table="vs_ppo:short") for d in range(12)]
    la, lb = _log(tmp_path / "a.jsonl", a_rows), _log(tmp_path / "b.jsonl", b_rows)
    args = [la, lb, "--table", "vs_ppo:long/path.npz", "--table-b", "vs_ppo:short", "--json"]
    assert paired.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 12 and out["b_value"] == 0.5 and out["table_b"] == "vs_ppo:short"


def test_a_row_that_is_not_a_game_is_a_clear_error(tmp_path, capsys):
    la = _log(tmp_path / "a.jsonl", [_row(0, 0, 0, "A", True)])
    bad = _row(0, 0, 0, "B", True)
    del bad["winner"]
    lb = _log(tmp_path / "b.jsonl", [bad])
    assert paired.main([la, lb]) == 2
    assert "game row 1: 'winner' must be a seat index" in capsys.readouterr().err
    lb = _log(tmp_path / "c.jsonl", [{**_row(0, 0, 0, "B", True), "seating": "B"}])
    assert paired.main([la, lb]) == 2
    assert "'seating' must list player specs" in capsys.readouterr().err
