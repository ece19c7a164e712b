"""Golden Money! games (tests/money/golden/games.json): a replay of the recorded actions reaches
the recorded final state and scores, and the recorded policy still chooses those actions (so
the legal action lists and their order are unchanged too)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from money_env.engine import is_over, replay, results

HERE = Path(__file__).resolve().parent / "golden"
GAMES = json.loads((HERE / "games.json").read_text())["games"]


def _maker():
    spec = importlib.util.spec_from_file_location("money_make_golden", HERE / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


def test_the_golden_set_covers_every_player_count() -> None:
    assert sorted({g["num_players"] for g in GAMES}) == [3, 4, 5]
    assert [(g["num_players"], g["seed"], g["policy_seed"]) for g in GAMES] == MAKER.GAMES


@pytest.mark.parametrize("game", GAMES, ids=[f"{g['num_players']}p-{g['seed']}" for g in GAMES])
def test_replay_reproduces_the_golden_game(game: dict) -> None:
    s = replay(game["num_players"], game["seed"], game["actions"])
    assert is_over(s) and s.round == game["rounds"]
    res = results(s)
    assert [r["score"] for r in res] == game["scores"]
    assert [r["rank"] for r in res] == game["ranks"]
    assert MAKER.state_hash(s) == game["final_state_sha256_16"]


@pytest.mark.parametrize("game", GAMES, ids=[f"{g['num_players']}p-{g['seed']}" for g in GAMES])
def test_the_policy_still_plays_the_golden_game(game: dict) -> None:
    assert MAKER.play(game["num_players"], game["seed"], game["policy_seed"]) == game
