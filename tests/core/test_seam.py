"""The game seam (`gamecore`): the registry, results with shared places, and the harness
playing a game that is not Last Will (the tiny game of `tests/support/tinygame.py`) through the
arena, eval and the stats, while Last Will's arena rows stay byte for byte what they were."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
import tinygame  # noqa: E402
from typer.testing import CliRunner

from agents import stats  # noqa: E402
from agents.arena import replay_row, run_tournament  # noqa: E402
from agents.evaluate import evaluate  # noqa: E402
from agents.registry import PlayerSpecError, make_agent  # noqa: E402
from apps.cli import app  # noqa: E402
from gamecore import (  # noqa: E402
    DEFAULT_GAME,
    Game,
    GameNotFound,
    check_ranks,
    game_names,
    load_game,
    register_game,
    terminal_rewards,
    win_shares,
)
from lastwill_env.encoding import terminal_rewards as lastwill_rewards  # noqa: E402
from lastwill_env.engine import GameConfig  # noqa: E402

TALLY = tinygame.install()
runner = CliRunner()

# sha256 of the rows of the tournaments below, as the arena wrote them before the seam
ROWS_BEFORE_THE_SEAM = "cc2ff3576d2d7ec88ea5ee3620b587117a01c47e64febd918811a75cbc56fbeb"
PINNED_TOURNAMENTS = [
    (["greedy", "racer"], 2, 7),
    (["sprinter", "planner", "random"], 3, 8),
    (["combiner", "speculator", "greedy", "racer"], 4, 9),
    (["random", "greedy", "planner", "sprinter", "racer"], 5, 10),
    (["mc:rollouts=1:cands=2", "greedy"], 2, 11),
]


# ---------------------------------------------------------------------------------------------
# The registry


def test_the_default_game_is_last_will_through_its_entry_point():
    game = load_game()
    assert isinstance(game, Game)
    assert (game.name, DEFAULT_GAME, game.title) == ("lastwill", "lastwill", "Last Will")
    assert load_game("lastwill") is game
    assert "lastwill" in game_names() and "tally" in game_names()


@pytest.mark.parametrize("name", ["nosuchgame", "Last Will", "../x", "", 3])
def test_an_unknown_game_name_is_refused_with_the_known_ones(name):
    with pytest.raises(GameNotFound, match="lastwill"):
        load_game(name)


def test_a_registered_game_must_build_a_game_of_its_name(monkeypatch):
    from gamecore import registry

    monkeypatch.setattr(registry, "_factories", dict(registry._factories))  # forgotten after
    register_game("tally_alias", tinygame.TallyGame)
    with pytest.raises(GameNotFound, match="named 'tally'"):
        load_game("tally_alias")
    with pytest.raises(ValueError, match="lower-case"):
        register_game("Bad Name", tinygame.TallyGame)


# ---------------------------------------------------------------------------------------------
# Results with shared places


def test_ranks_are_checked():
    assert check_ranks([1, 1, 3]) == [1, 1, 3]
    for bad in ([0, 1], [1, 2, 2, 2, 9], [1, 3], [2, 2], [True, 2]):
        with pytest.raises(ValueError):
            check_ranks(bad)


def test_a_shared_first_place_is_a_fraction_of_one_win():
    assert win_shares([2, 1, 3]) == [0.0, 1.0, 0.0]
    assert win_shares([1, 3, 1, 3]) == [0.5, 0.0, 0.5, 0.0]
    assert sum(win_shares([1, 1, 1])) == pytest.approx(1.0)


@pytest.mark.parametrize("ranks", [[1, 1, 3], [1, 2, 2], [1, 1, 1, 4], [2, 1, 2, 4, 4]])
def test_rewards_with_ties_sum_to_zero(ranks):
    assert sum(terminal_rewards(ranks, "zero_sum")) == pytest.approx(0.0)
    tied = terminal_rewards(ranks, "rank")
    assert len({tied[i] for i, r in enumerate(ranks) if r == ranks[0]}) == 1
    assert sum(tied) == pytest.approx(0.0)


def test_rewards_without_ties_are_last_wills_bit_for_bit():
    rng = random.Random(5)
    for n in (2, 3, 4, 5):
        for _ in range(20):
            ranks = rng.sample(range(1, n + 1), n)
            for mode in ("zero_sum", "rank"):
                assert terminal_rewards(ranks, mode) == lastwill_rewards(ranks, mode)


# ---------------------------------------------------------------------------------------------
# Last Will through the seam: unchanged


def test_last_will_arena_rows_are_byte_identical_to_before_the_seam():
    h = hashlib.sha256()
    for specs, n, seed in PINNED_TOURNAMENTS:
        res = run_tournament(specs, GameConfig(num_players=n), 2 * n, seed=seed, deals="test")
        for row in res.rows:
            h.update((json.dumps(row, separators=(",", ":")) + "\n").encode())
    assert h.hexdigest() == ROWS_BEFORE_THE_SEAM


def test_game_lastwill_and_no_game_write_the_same_rows(tmp_path):
    logs = []
    for extra in ([], ["--game", "lastwill"]):
        out = tmp_path / f"a{len(logs)}.jsonl"
        res = runner.invoke(
            app, ["arena", "-q", "-p", "greedy,racer,random", "-g", "6", "-o", str(out), *extra]
        )
        assert res.exit_code == 0, res.output
        header, *rows = out.read_text().splitlines()
        assert json.loads(header)["game"] == "lastwill"
        logs.append(rows)
    assert logs[0] == logs[1] and len(logs[0]) == 6


def test_a_log_without_a_game_resumes_as_last_will(tmp_path):
    out = tmp_path / "old.jsonl"
    players = "random,random@b"  # players of either game: the header decides
    assert runner.invoke(app, ["arena", "-q", "-p", players, "-g", "2", "-o", str(out)])
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    del header["game"]  # as written before logs recorded the game
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    args = ["arena", "-q", "-p", players, "-g", "4", "-o", str(out), "--resume"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert len(out.read_text().splitlines()) == 5
    res = runner.invoke(app, [*args, "--game", "tally"])
    assert res.exit_code == 2 and "game: log has 'lastwill', this run has 'tally'" in res.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["--game", "nosuchgame"], "not an installed game; choose one of"),
        (["--game", "tally", "--starting-money", "will-each"], "--starting-money: Tally takes"),
        (["--game", "tally", "-n", "5"], "--num-players=5 is not allowed; choose 2, 3 or 4"),
    ],
)
def test_bad_game_options_exit_2_naming_what_is_allowed(tmp_path, args, says):
    out = tmp_path / "x.jsonl"
    res = runner.invoke(app, ["arena", "-q", "-p", "high,random", "-o", str(out), *args])
    assert res.exit_code == 2 and says in " ".join(res.output.split())
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# A game that is not Last Will: the tiny game


def test_game_bots_belong_to_their_game():
    assert type(make_agent("high", 1, game=TALLY)).__name__ == "HighBot"
    with pytest.raises(PlayerSpecError, match="unknown player 'racer'"):
        make_agent("racer", 1, game=TALLY)
    with pytest.raises(PlayerSpecError, match="unknown player 'high'"):
        make_agent("high", 1)
    assert make_agent("random", 1, game=TALLY).name == "random"


def test_the_arena_plays_the_tiny_game_and_counts_shared_wins():
    res = run_tournament(
        ["high", "random", "random@r2"], TALLY.make_config(3), 60, seed=3, game_name="tally"
    )
    assert res.header["game"] == "tally" and len(res.rows) == 60
    shared = 0
    for row in res.rows:
        assert row["error"] is None
        assert list(row)[list(row).index("ranks") + 1] == "tallies"  # the game's own fields
        state = replay_row(row, "tally")
        assert TALLY.is_over(state) and row["tallies"] == state.tallies
        assert row["ranks"] == TALLY.ranks(state)
        if row["ranks"].count(1) > 1:
            shared += 1
            assert row["winner"] is None and row["winner_spec"] is None
    assert shared > 0  # the seed gives shared first places
    summary = {e["spec"]: e for e in stats.summarize(res.rows)}
    total_wins = sum(e["wins"] for e in summary.values())
    assert total_wins == pytest.approx(60)  # one win per game, shared wins split
    seats = stats.seat_stats(res.rows)
    assert sum(s["wins"] for s in seats) == pytest.approx(60)


def test_eval_plays_the_tiny_game_with_its_own_panel(tmp_path):
    result = evaluate(
        "random", num_players=[2, 4], games=8, game_name="tally", out=tmp_path / "e.jsonl"
    )
    assert {t.key for t in result.tables} == {"2p/vs_high", "4p/vs_high", "4p/mixed"}
    header = json.loads((tmp_path / "e.jsonl").read_text().splitlines()[0])
    assert header["game"] == "tally" and header["panel"] == ["high"]
    again = evaluate(
        "random",
        num_players=[2, 4],
        games=8,
        game_name="tally",
        out=tmp_path / "e.jsonl",
        play=False,
    )
    assert len(again.rows) == len(result.rows) == 8 + 8 + 8


def test_a_game_travels_by_name_whatever_its_binding_caches():
    import pickle

    for name in ("lastwill", "money", "tally"):
        game = load_game(name)
        state = game.new_game(game.make_config(min(game.player_counts)), 3)
        game.encode_observation(game.player_view(state, 0))  # caches the encoder module
        assert pickle.loads(pickle.dumps(game)) is game


def test_replay_refuses_a_log_of_another_game_naming_it(tmp_path):
    out = tmp_path / "m.jsonl"
    res = runner.invoke(
        app,
        [
            "arena",
            "-q",
            "--game",
            "money",
            "-p",
            "value,value@b,bluffer",
            "-g",
            "3",
            "-o",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", str(out), "--game", "0"])
    assert res.exit_code == 2 and "holds games of 'money'" in " ".join(res.output.split())


def test_the_arena_says_how_it_counted_shared_first_places(tmp_path):
    out = tmp_path / "t.jsonl"
    res = runner.invoke(
        app,
        [
            "arena",
            "-q",
            "--game",
            "tally",
            "-p",
            "high,random,random@b",
            "-g",
            "30",
            "-s",
            "3",
            "-o",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "ended with a shared first place; each of its k winners counts 1/k of a win" in text
