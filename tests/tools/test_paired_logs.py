"""labreports.paired_logs: two players compared on the same games of two logs."""

from __future__ import annotations

import json

from labreports import paired_logs as paired


def _game(game: int, deal: int, rot: int, seating: list[str], winner: int, table: str) -> dict:
    """A finished game row: the winner ranks first, the others in seat order after it."""
    n = len(seating)
    others = iter(range(2, n + 1))
    return {
        "game": game,
        "deal": deal,
        "deal_seed": 1000 + deal,
        "seating_index": rot,
        "seating": seating,
        "num_players": n,
        "config": {"num_players": n, "starting_money": 70, "board_spaces": 5},
        "actions": [],
        "table": table,
        "winner": winner,
        "ranks": [1 if seat == winner else next(others) for seat in range(n)],
        "error": None,
    }


def _row(game: int, deal: int, rot: int, me: str, won: bool, table: str = "vs_x") -> dict:
    return _game(game, deal, rot, [me, "x", "x"], 0 if won else 1, table)


def _log(path, rows: list[dict], deals: str = "test", spec: str | None = None) -> str:
    header = {"type": "header", "deals": deals, "seed": 2026}
    if spec is not None:
        header["spec"] = spec
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


def _h2h_row(game: int, deal: int, rot: int, a_wins: bool) -> dict:
    seating = ["A", "R"] if rot == 0 else ["R", "A"]
    return _game(game, deal, rot, seating, seating.index("A" if a_wins else "R"), "vs_R")


def test_one_log_compares_its_two_entrants_on_its_own_deals(tmp_path, capsys):
    """A head-to-head evaluation log: A (its header's player) against the one other entrant,
    per deal; McNemar
    pairs each deal's two seatings (A wins both seatings of deals 0-11, one of deals 12-19)."""
    rows = [_h2h_row(2 * d + r, d, r, d < 12 or r == 0) for d in range(20) for r in range(2)]
    log = _log(tmp_path / "h2h.jsonl", rows, spec="A")
    assert paired.main([log, "--players", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["a"], out["b"], out["games"], out["deals"]) == ("A", "R", 40, 20)
    assert out["a_value"] == 0.8 and abs(out["diff"] - 0.6) < 1e-12
    assert out["mcnemar"]["a_only"] == 12 and out["mcnemar"]["b_only"] == 0
    assert out["better"] == "A" and out["log_b"] is None and out["table_b"] is None
    # the players the other way round: the same games, the difference negated
    assert paired.main([log, "--a", "R", "--b", "A", "--json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert abs(back["diff"] + 0.6) < 1e-12 and back["better"] == "A"


def test_one_log_refuses_what_it_cannot_pair(tmp_path, capsys):
    rows = [_row(2 * d + r, d, r, "A", r == 0) for d in range(4) for r in range(2)]
    log = _log(tmp_path / "three.jsonl", rows)
    # three-player games of A against two copies of x: B defaults to x, the one other entrant
    assert paired.main([log, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["b"] == "x"
    for argv, says in (
        ([log, "--b", "A"], "same player"),
        ([log, "--b", "nobody"], "seats both"),
        ([log, "--table-b", "vs_y"], "--table-b names log B's table"),
        ([log, "--table", "vs_y"], "no game of the table"),
    ):
        assert paired.main(argv) == 2
        assert says in capsys.readouterr().err
