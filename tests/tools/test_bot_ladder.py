"""labreports.bot_ladder --ratings: the order-free Plackett-Luce fit over the mixed tables'
games (`agents.stats.fit_ratings`), as JSON and as text."""

from __future__ import annotations

import json

import pytest

from agents.evaluate import Table, play_tables
from agents.stats import fit_ratings
from labreports import bot_ladder as ladder

ARGS = ["--players", "2", "--games", "4", "--workers", "1", "--seed", "3", "--only-extra"]
MIXED = ["--mixed", "greedy,random", "--ratings"]


def test_json_ratings_are_the_seeded_fit_over_the_mixed_games(capsys):
    assert ladder.main([*ARGS, *MIXED, "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rated = lines[-1]["ratings"]
    rows = play_tables([Table("mixed", 2, ("greedy", "random"))], 4, seed=3, deals="test")
    assert rated == json.loads(json.dumps(fit_ratings(rows, anchor=None, seed=3)))
    assert rated["scale"] == "Elo" and rated["anchor"] is None
    r = rated["ratings"]
    assert set(r) == {"greedy", "random"} and r["greedy"]["games"] == 4
    assert r["greedy"]["rating"] == pytest.approx(-r["random"]["rating"])  # no anchor: mean 0


def test_text_ratings_name_the_fit_and_each_entrant_with_its_interval(capsys):
    assert ladder.main([*ARGS, *MIXED]) == 0
    out = capsys.readouterr().out
    assert "Plackett-Luce" in out and "Elo" in out and "OpenSkill" not in out
    rated = fit_ratings(
        play_tables([Table("mixed", 2, ("greedy", "random"))], 4, seed=3, deals="test"),
        anchor=None,
        seed=3,
    )
    for spec, r in rated["ratings"].items():
        want = f"{r['rating']:+7.1f} ± {r['se']:5.1f}  [{r['ci_lo']:+.1f}, {r['ci_hi']:+.1f}]"
        assert any(
            line.startswith(f"rating {spec:<40}") and want in line for line in out.splitlines()
        )


def test_rating_lines_show_a_dash_where_there_is_no_interval():
    rated = {
        "resamples": 0,
        "deals": 1,
        "level": 0.95,
        "ratings": {
            "a": {"rating": 10.0, "se": None, "ci_lo": None, "ci_hi": None, "games": 2},
            "b": {"rating": None, "se": None, "ci_lo": None, "ci_hi": None, "games": 0},
        },
    }
    lines = ladder.rating_lines(rated)
    assert lines[1].split() == ["rating", "a", "+10.0", "±", "-", "games", "2"]
    assert lines[2].split() == ["rating", "b", "-", "±", "-", "games", "0"]


def test_the_ladder_plays_another_games_bots_with_its_own_panel(capsys):
    args = ["--game", "money", "--players", "3", "--games", "3", "--workers", "1", "--json"]
    assert ladder.main(args) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    heads = {line["spec"] for line in lines}
    assert heads == {"value", "collector", "bluffer"}  # Money!'s default panel
    assert all(line["errors"] == 0 and len(line["table"]) == 3 for line in lines)


def test_the_ladder_refuses_a_player_count_the_game_does_not_allow(capsys):
    with pytest.raises(SystemExit) as e:
        ladder.main(["--game", "money", "--players", "2"])
    assert e.value.code == 2 and "Money! is played by (3, 4, 5)" in capsys.readouterr().err
