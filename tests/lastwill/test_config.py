"""GameConfig validation and the effect of every docs/RULES.md §9 option."""

from __future__ import annotations

import json
import random

import pytest

from gamecore.plain import is_int, is_number
from lastwill_env.engine import (
    CATALOGUE,
    ConfigError,
    GameConfig,
    GameState,
    apply_action,
    legal_actions,
    make_config,
    new_game,
)
from lastwill_env.engine.game import board_capacity

WILL_VALUES = list(range(70, 131, 10))


# ---------------------------------------------------------------------------------------------
# Validation


@pytest.mark.parametrize("bad", [1, 6, 0, -2, "4", True, False, 4.0, None])
def test_num_players_rejected(bad):
    with pytest.raises(ConfigError) as info:
        GameConfig(num_players=bad)
    msg = str(info.value)
    assert f"num_players={bad!r}" in msg
    assert "2" in msg and "5" in msg
    with pytest.raises(ConfigError, match="num_players"):
        make_config(bad)


@pytest.mark.parametrize(
    ("value", "integer", "number"),
    [(3, True, True), (-(2**70), True, True), (1.5, False, True), (True, False, False)]
    + [(False, False, False), (float("nan"), False, False), (float("inf"), False, False)]
    + [("3", False, False), (None, False, False), (3 + 0j, False, False)],
)
def test_plain_integers_and_numbers_are_never_booleans(value, integer, number):
    assert (is_int(value), is_number(value)) == (integer, number)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_valid_player_counts(n):
    c = make_config(n)
    assert c.num_players == n and c.starting_money == 70 and c.board_spaces == 5


@pytest.mark.parametrize("bad", [60, 0, "will", "70 each", True, None, 70.5, "WILL-SHARED"])
def test_starting_money_rejected_lists_choices(bad):
    with pytest.raises(ConfigError) as info:
        make_config(4, starting_money=bad)
    msg = str(info.value)
    assert f"starting_money={bad!r}" in msg
    for choice in ("70", "'will-shared'", "'will-each'"):
        assert choice in msg, msg


@pytest.mark.parametrize("good", [70, "70", "will-shared", "will-each"])
def test_starting_money_accepted(good):
    c = make_config(3, starting_money=good)
    assert c.starting_money == (70 if good == "70" else good)


@pytest.mark.parametrize("bad", [0, 13, -1, "5", True, 5.0, None])
def test_board_spaces_rejected(bad):
    with pytest.raises(ConfigError) as info:
        make_config(4, board_spaces=bad)
    msg = str(info.value)
    assert f"board_spaces={bad!r}" in msg
    assert "1" in msg and "12" in msg


@pytest.mark.parametrize("spaces", [1, 5, 12])
def test_board_spaces_accepted(spaces):
    assert make_config(2, board_spaces=spaces).board_spaces == spaces


def test_unknown_option_in_make_config_is_named():
    with pytest.raises(ConfigError) as info:
        make_config(4, starting_cash=70)
    msg = str(info.value)
    assert "starting_cash" in msg
    for allowed in ("num_players", "starting_money", "board_spaces"):
        assert allowed in msg


def test_unknown_option_in_from_dict_is_named():
    with pytest.raises(ConfigError) as info:
        GameConfig.from_dict({"num_players": 3, "boardspaces": 6, "extra": 1})
    msg = str(info.value)
    assert "boardspaces" in msg and "extra" in msg
    for allowed in ("num_players", "starting_money", "board_spaces"):
        assert allowed in msg
    with pytest.raises(ConfigError, match="dict"):
        GameConfig.from_dict([("num_players", 3)])
    with pytest.raises(ConfigError, match="num_players=7"):
        GameConfig.from_dict({"num_players": 7})


def test_config_round_trip_and_frozen():
    c = make_config(5, starting_money="will-each", board_spaces=7)
    assert GameConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert GameConfig.from_dict({}) == GameConfig()
    with pytest.raises(AttributeError):
        c.num_players = 3  # type: ignore[misc]


def test_new_game_accepts_config_or_count_only():
    assert new_game(3, 1) == new_game(make_config(3), 1)
    for bad in (True, "3", None, {"num_players": 3}):
        with pytest.raises((TypeError, ConfigError)):
            new_game(bad, 1)
    for bad_count in (1, 6):
        with pytest.raises(ConfigError):
            new_game(bad_count, 1)


# ---------------------------------------------------------------------------------------------
# Effects


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_default_money_is_70_each(n):
    for seed in range(5):
        assert new_game(make_config(n), seed).money == [70] * n


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_will_shared_gives_everyone_one_will_value(n):
    seen = set()
    for seed in range(60):
        money = new_game(make_config(n, starting_money="will-shared"), seed).money
        assert len(set(money)) == 1, money
        assert money[0] in WILL_VALUES
        seen.add(money[0])
    assert len(seen) >= 5, f"will-shared draws too few values: {sorted(seen)}"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_will_each_gives_distinct_will_values(n):
    differs = 0
    seen = set()
    for seed in range(60):
        money = new_game(make_config(n, starting_money="will-each"), seed).money
        # each player draws a card from the 7 will cards: distinct values from 70..130
        assert len(set(money)) == n, money
        assert all(m in WILL_VALUES for m in money)
        seen.update(money)
        differs += money != [70] * n
    assert seen == set(WILL_VALUES)
    assert differs == 60


def test_will_cards_stay_public_and_out_of_play():
    wills = {c.id for c in CATALOGUE.cards if c.category == "will"}
    for sm in (70, "will-shared", "will-each"):
        s = new_game(make_config(4, starting_money=sm), 3)
        assert wills <= set(s.box)


def test_options_change_only_what_they_should():
    """Same seed: starting money options change only the money (and the random stream)."""
    base = new_game(make_config(4), 17)
    each = new_game(make_config(4, starting_money="will-each"), 17)
    assert base.money != each.money
    assert base.start == each.start and base.decks == each.decks


def _play_until_full_board(config, seed: int) -> tuple[GameState, int]:
    """Play random games preferring plays; return a state and the largest board seen."""
    s = new_game(config, seed)
    rnd = random.Random(seed)
    most = 0
    while not s.is_over:
        legal = legal_actions(s)
        plays = [a for a in legal if a != 0]
        apply_action(s, rnd.choice(plays) if plays and rnd.random() < 0.9 else rnd.choice(legal))
        most = max(most, *(len(b) for b in s.boards))
        for seat in range(s.n):
            assert len(s.boards[seat]) <= board_capacity(s, seat)
    return s, most


@pytest.mark.parametrize("spaces", [1, 2, 5, 9])
def test_board_spaces_sets_capacity(spaces):
    config = make_config(3, board_spaces=spaces)
    s = new_game(config, 0)
    assert all(board_capacity(s, seat) == spaces for seat in range(3))
    s.ext[1] += 2  # each extension adds a space
    assert board_capacity(s, 1) == spaces + 2
    # boards never exceed the capacity in play
    for seed in range(4):
        _play_until_full_board(config, seed)


def test_small_board_forces_make_room():
    """With one space, a second black-border card needs the make-room decision (phase 10)."""
    config = make_config(2, board_spaces=1)
    rooms = 0
    for seed in range(30):
        s = new_game(config, seed)
        rnd = random.Random(seed)
        while not s.is_over:
            legal = legal_actions(s)
            plays = [a for a in legal if a != 0]
            apply_action(s, rnd.choice(plays) if plays else legal[0])
            rooms += s.phase == 10
    assert rooms > 0
