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
