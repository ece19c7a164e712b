"""The player-count range has one home, `lastwill_env.engine.config.PLAYER_COUNTS`, and one check
(`check_player_count`) whose message names the value and the choices."""

from __future__ import annotations

import pytest

from lastwill_env.engine import GameConfig
from lastwill_env.engine.config import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYER_COUNTS,
    ConfigError,
    allowed_counts,
    check_player_count,
    is_player_count,
)


def test_the_range_is_two_to_five():
    assert PLAYER_COUNTS == (2, 3, 4, 5) == tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    assert allowed_counts() == "2, 3, 4 or 5"


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_every_count_is_allowed_and_makes_a_game(n):
    assert is_player_count(n) and check_player_count(n) == n
    assert GameConfig(num_players=n).num_players == n


@pytest.mark.parametrize("bad", [1, 6, 0, -2, True, 3.0, "3", None])
def test_others_are_refused_with_the_choices(bad):
    assert not is_player_count(bad)
    with pytest.raises(ConfigError, match=r"players=.* is not allowed; choose 2, 3, 4 or 5"):
        check_player_count(bad, "--players")


# every entry point that takes a player count refuses a bad one with the same choices
CHOICES = "2, 3, 4 or 5"


@pytest.mark.parametrize(
    "args",
    [
        ["arena", "-q", "-p", ",".join(["random"] * 6)],
        ["arena", "-q", "-p", "random,random", "-n", "6"],
        ["arena", "-q", "-p", "random"],
        ["eval", "-q", "greedy@me", "-n", "6"],
        ["eval", "-q", "greedy@me", "-n", "2,1"],
        ["play", "-n", "6"],
        ["play", "-n", "1", "-p", "greedy"],
    ],
)
def test_the_cli_refuses_a_bad_count_with_the_choices(tmp_path, args):
    from typer.testing import CliRunner

    from apps.cli import app

    out = tmp_path / "never.jsonl"
    res = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 2, res.output
    assert f"choose {CHOICES}" in res.stderr or f"each one of {CHOICES}" in res.stderr
    assert "Traceback" not in res.output and not out.exists()


def _single_seat(counts):
    from lastwill_env.single_seat import SingleSeatEnv

    SingleSeatEnv(num_players=counts)


def _rllib(counts):
    pytest.importorskip("ray")
    from lastwill_env.rllib import LastWillMultiAgentEnv

    LastWillMultiAgentEnv({"num_players": counts})


def _panel(counts):
    from agents.evaluate import panel_tables

    panel_tables("greedy", ["random"], counts)


def _new_play(count):
    from apps.play import new_play

    new_play(["greedy"], num_players=count)


@pytest.mark.parametrize(
    ("make", "bad"),
    [
        (GameConfig, 6),
        (_single_seat, [6]),
        (_single_seat, [2, 1]),
        (_single_seat, 6),
        (_rllib, [6]),
        (_rllib, 1),
        (_panel, [6]),
        (_panel, [4, True]),
        (_new_play, 6),
    ],
)
def test_the_library_refuses_a_bad_count_with_the_choices(make, bad):
    from agents.evaluate import EvalError
    from apps.play import PlayError

    with pytest.raises((ConfigError, EvalError, PlayError), match=CHOICES):
        make(bad)
    ok = 4 if isinstance(bad, int) else [4]
    if make is not _new_play:
        make(ok)  # the same entry point takes an allowed count
