"""Every rule and ruling of docs/games/MONEY.md, one position at a time."""

from __future__ import annotations

import random

import pytest
from test_money_support import arrange, bid, bid_all, coin, note

from money_env.engine import (
    ACTION_TABLE,
    ADD,
    BID_PHASE,
    BLUFF_KIND,
    CARD_DATA,
    COIN_KIND,
    COMMIT,
    EXCHANGE_PHASE,
    GAME_OVER,
    KEEP,
    KIND,
    MAX_ROUNDS,
    NUM_ACTIONS,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    CardDataError,
    ConfigError,
    GameConfig,
    IllegalActionError,
    apply_action,
    current_player,
    describe_action,
    is_over,
    legal_actions,
    load_cards,
    new_game,
    player_view,
    results,
)
from money_env.engine.cards import bluff_of, box, card_name, in_play
from money_env.engine.score import ranks, score_hand, seat_results

# --- §2 components and the card data -----------------------------------------------------------


def test_card_data_counts() -> None:
    assert len(in_play(5)) == 63 + 6 and len(in_play(4)) == 54 + 6 and len(in_play(3)) == 45 + 6
    assert card_name(note(1, 30, 2)) == "Euro 30#3" and card_name(coin(0)) == "coin#1"
    assert card_name(bluff_of(4)) == "bluff#5"
    assert KIND[note(0, 20, 0)] == KIND[note(0, 20, 2)] == 0 and KIND[note(6, 60)] == 34
    assert KIND[coin(3)] == COIN_KIND == 35 and KIND[bluff_of(2)] == BLUFF_KIND == 36
    assert sorted(in_play(3) + box(3) + tuple(bluff_of(p) for p in range(3))) == list(range(74))


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("note_values", [20, 20, 20, 30, 30, 30, 40, 50], "note_values"),
        ("note_values", [20, 20, 20, 30, 30, 30, 40, 60, 50], "note_values"),
        ("currencies", ["A", "A", "B", "C", "D", "E", "F"], "currencies"),
        ("trio_values", [20, 40], "trio_values"),
        ("coins", True, "coins"),
        ("currencies_in_play", {"3": 5, "4": 6}, "currencies_in_play"),
        ("surprise", 1, "surprise"),
    ],
)
def test_bad_card_data_is_refused_naming_the_entry(key, value, named) -> None:
    data = dict(CARD_DATA, **{key: value})
    with pytest.raises(CardDataError, match=named):
        load_cards(data)
    assert load_cards(dict(CARD_DATA)).currencies[0] == "Dollar"


# --- configuration and seeds ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", [2, 6, 0, True, "4", 4.0, None])
def test_a_bad_player_count_names_the_value_and_the_choices(bad) -> None:
    with pytest.raises(ConfigError, match=r"3, 4 or 5") as e:
        GameConfig(bad)
    assert repr(bad) in str(e.value)


def test_config_round_trip_and_unknown_options() -> None:
    assert GameConfig.from_dict(GameConfig(5).to_dict()) == GameConfig(5)
    with pytest.raises(ConfigError, match="colour"):
        GameConfig.from_dict({"num_players": 4, "colour": "red"})


@pytest.mark.parametrize("bad", [-1, 2**64, True, 1.0, "7"])
def test_a_bad_seed_is_refused(bad) -> None:
    with pytest.raises(ValueError, match="seed"):
        new_game(4, bad)


def test_the_deal_depends_only_on_the_seed_through_random_random() -> None:
    assert new_game(4, 2**64 - 1) == new_game(GameConfig(4), 2**64 - 1)
    assert new_game(4, 1).hands != new_game(4, 2).hands
    s = new_game(3, 99)
    deck = list(in_play(3))
    random.Random(99).shuffle(deck)
    assert s.hands[0] == sorted(deck[-6:] + [bluff_of(0)])
    assert s.hands[1] == sorted(deck[-12:-6] + [bluff_of(1)])
    assert s.right == sorted(deck[-22:-18]) and s.left == sorted(deck[-26:-22])
    assert s.pile == deck[:-26]


# --- §3 setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "currencies"), [(3, 5), (4, 6), (5, 7)])
def test_setup_by_player_count(n: int, currencies: int) -> None:
    s = new_game(n, 7)
    cards = [c for h in s.hands for c in h] + s.right + s.left + s.pile
    notes = [c for c in cards if c < 63]
    assert {c // 9 for c in notes} == set(range(currencies)) and len(notes) == 9 * currencies
    assert sorted(c for c in cards if 63 <= c < 69) == list(range(63, 69))
    for p in range(n):  # §3.3-3.5: seven cards, one of them the seat's own bluff
        assert len(s.hands[p]) == 7 and [c for c in s.hands[p] if c >= 69] == [bluff_of(p)]
    assert len(s.right) == len(s.left) == 4  # §3.7-3.8
    assert len(s.pile) == 9 * currencies + 6 - 6 * n - 8
    assert (s.round, s.phase, current_player(s)) == (1, BID_PHASE, 0)


# --- §4.1 bids -----------------------------------------------------------------------------------


def test_bid_actions_are_the_kinds_in_hand_and_commit_needs_a_card() -> None:
    s = arrange(3, hands={0: [note(1, 20, 0), note(1, 20, 1), note(2, 60), coin(0)]})
    assert legal_actions(s) == [ADD + 5, ADD + 14, ADD + COIN_KIND, ADD + BLUFF_KIND]
    apply_action(s, ADD + 5)
    assert s.sel[0] == [note(1, 20, 0)]  # §8.2: the lowest serial first
    assert legal_actions(s) == [ADD + 5, ADD + 14, ADD + COIN_KIND, ADD + BLUFF_KIND, COMMIT]
    apply_action(s, ADD + 5)
    assert s.sel[0] == [note(1, 20, 0), note(1, 20, 1)]
    assert ADD + 5 not in legal_actions(s)  # no Euro 20 left outside the bid
    assert s.hands[0] == sorted([note(1, 20, 0), note(1, 20, 1), note(2, 60), coin(0), 69])


def test_an_illegal_action_names_itself_and_the_legal_ones_and_changes_nothing() -> None:
    s = arrange(3, hands={0: [note(2, 60)]})
    before = s.to_dict()
    for bad in (COMMIT, KEEP, ADD + 0, 999, -1, True, 14.0, "14"):
        with pytest.raises(IllegalActionError) as e:
            apply_action(s, bad)
        assert "legal actions: 14 (bid Pound 60), 36 (bid bluff)" in str(e.value)
    assert "37 (commit bid)" in str(pytest.raises(IllegalActionError, apply_action, s, 37).value)
    assert s.to_dict() == before


def test_bids_go_seat_by_seat_from_the_first_bidder() -> None:
    s = new_game(4, 3)
    for seat in range(4):
        assert current_player(s) == seat and s.phase == BID_PHASE
        bid(s, [bluff_of(seat)])
    # everyone sat out: the round ends at once; round 2 starts with seat 1 (§8.4)
    assert (s.round, current_player(s), s.phase) == (2, 1, BID_PHASE)
    for seat in (1, 2, 3, 0):
        assert current_player(s) == seat
        bid(s, [bluff_of(seat)])
    assert (s.round, current_player(s)) == (3, 2)


# --- §4.2 reveal, bluffs, sitting out ----------------------------------------------------------


def _three() -> tuple:
    hands = {
        0: [note(0, 60), note(0, 20)],
        1: [note(1, 50), coin(0), note(1, 30)],
        2: [note(2, 40), note(2, 20)],
    }
    right = [note(3, 20), note(3, 30), note(3, 40), note(3, 50)]
    left = [note(4, 20), note(4, 30), note(4, 40), note(4, 60)]
    return arrange(3, hands=hands, right=right, left=left), right, left


def test_reveal_puts_bids_on_the_table_and_bluffs_back_in_hand() -> None:
    s, _, _ = _three()
    bid_all(s, {0: [note(0, 60), bluff_of(0)], 1: [note(1, 50)], 2: [bluff_of(2)]})
    assert s.phase == EXCHANGE_PHASE
    assert s.table == [[note(0, 60)], [note(1, 50)], []]
    assert s.revealed == s.table and s.bluffed == [True, False, True]
    assert bluff_of(0) in s.hands[0] and note(0, 60) not in s.hands[0]
    assert s.sel == [[], [], []]
    # §4.2.3: seat 2 bid its bluff alone: it sits out, never acts and cannot be taken from
    assert TAKE_BID + 1 not in legal_actions(s) and TAKE_BID in legal_actions(s)
    apply_action(s, KEEP)
    assert current_player(s) == 1
    apply_action(s, KEEP)
    assert s.round == 2 and s.phase == BID_PHASE


# --- §4.3 order ---------------------------------------------------------------------------------


def test_the_highest_bid_acts_first_then_the_next() -> None:
    s, _, _ = _three()
    bid_all(s, {0: [note(0, 20)], 1: [note(1, 50)], 2: [note(2, 40)]})
    order = []
    while s.phase == EXCHANGE_PHASE:
        order.append(current_player(s))
        apply_action(s, KEEP)
    assert order == [1, 2, 0]


def test_a_tie_goes_to_the_bid_with_the_lowest_serial_coins_after_notes() -> None:
    hands = {
        0: [coin(0), coin(1), coin(2), coin(3)],  # 40, serials 63.. (coins after every note)
        1: [note(4, 40)],  # 40, Franc 40: serial 42
        2: [note(0, 20), note(0, 20, 1)],  # 40, Dollar 20s: serials 0 and 1
    }
    s = arrange(3, hands=hands)
    bid_all(s, hands)
    order = []
    while s.phase == EXCHANGE_PHASE:
        order.append(current_player(s))
        apply_action(s, KEEP)
    assert order == [2, 1, 0]  # the reverse of the bidding order


# --- §4.4 exchange -----------------------------------------------------------------------------


def test_take_the_right_group() -> None:
    s, right, _ = _three()
    bid_all(s, {0: [note(0, 60), note(0, 20)], 1: [note(1, 50)], 2: [note(2, 40)]})
    assert legal_actions(s) == [TAKE_RIGHT, TAKE_LEFT, TAKE_BID, TAKE_BID + 1, KEEP]
    apply_action(s, TAKE_RIGHT)
    assert s.right == [note(0, 20), note(0, 60)]
    assert set(right) <= set(s.hands[0]) and set(right) <= set(s.known[0])
    assert s.acted[0] and not s.table[0] and current_player(s) == 1
    apply_action(s, TAKE_RIGHT)  # the next player may take the bid just placed there
    assert s.right == [note(1, 50)] and note(0, 60) in s.hands[1]


def test_take_the_left_group() -> None:
    s, _, left = _three()
    bid_all(s, {0: [note(0, 60)], 1: [note(1, 50), coin(0), note(1, 30)], 2: [note(2, 40)]})
    assert current_player(s) == 1  # 90
    apply_action(s, TAKE_LEFT)
    assert s.left == [note(1, 30), note(1, 50), coin(0)]  # sizes need not match
    assert set(left) <= set(s.hands[1]) and len(s.hands[1]) == 1 + 4


def test_keep_takes_the_bid_back() -> None:
    s, _, _ = _three()
    bid_all(s, {0: [note(0, 60)], 1: [note(1, 50)], 2: [note(2, 40)]})
    apply_action(s, KEEP)
    assert note(0, 60) in s.hands[0] and note(0, 60) in s.known[0] and s.acted[0]


def test_taking_a_bid_swaps_and_the_taken_seat_acts_next() -> None:
    s, _, _ = _three()
    bid_all(s, {0: [note(0, 60)], 1: [note(1, 50)], 2: [note(2, 40)]})
    apply_action(s, TAKE_BID + 1)  # seat 0 takes relative seat 2 = seat 2's 40
    assert note(2, 40) in s.hands[0] and note(2, 40) in s.known[0]
    assert s.table[2] == [note(0, 60)] and s.table[0] == []
    assert current_player(s) == 2  # before seat 1's 50
    # seat 0 has acted: seat 2 may take seat 1's bid (relative 2) but not seat 0's
    assert legal_actions(s) == [TAKE_RIGHT, TAKE_LEFT, TAKE_BID + 1, KEEP]
    apply_action(s, TAKE_BID + 1)  # seat 2 takes seat 1's 50, seat 1 now holds the 60
    assert s.table[1] == [note(0, 60)] and current_player(s) == 1
    assert legal_actions(s) == [TAKE_RIGHT, TAKE_LEFT, KEEP]  # nobody left to take from
    apply_action(s, KEEP)
    assert note(0, 60) in s.hands[1] and s.round == 2


def test_after_a_swap_the_taken_seat_then_the_highest_left() -> None:
    s, _, _ = _three()
    # 60 (seat 0, id 8), 60 (seat 1, id 16), 40 (seat 2): seat 0 takes seat 2's bid, so seat 2
    # holds the 60 with serial 8 and acts before seat 1's equal 60
    bid_all(s, {0: [note(0, 60)], 1: [note(1, 50), coin(0)], 2: [note(2, 40)]})
    assert current_player(s) == 0
    apply_action(s, TAKE_BID + 1)
    assert current_player(s) == 2
    apply_action(s, KEEP)
    assert current_player(s) == 1  # then the highest still on the table


# --- §4.5 refill, §5 the end -------------------------------------------------------------------


def _refill_position(pile: list[int]):
    hands = {
        0: [note(0, 60), note(0, 50)],
        1: [note(1, 20), note(1, 30), note(1, 40), note(1, 50), note(1, 60)],
    }
    return arrange(3, hands=hands, pile=pile, rest_to=2 if len(pile) < 10 else None)


def _take_groups(s) -> None:
    bid_all(s, {0: [note(0, 60), note(0, 50)], 1: hands_1(), 2: [bluff_of(2)]})
    assert current_player(s) == 1  # 200 before 110
    apply_action(s, TAKE_LEFT)  # the left group gets 5 cards
    apply_action(s, TAKE_RIGHT)  # the right group gets 2


def hands_1() -> list[int]:
    return [note(1, 20), note(1, 30), note(1, 40), note(1, 50), note(1, 60)]


def test_refill_right_then_left_up_to_four_a_full_group_untouched() -> None:
    top = [note(3, 20), note(3, 30), note(3, 40)]  # the pile's top is its end
    s = _refill_position(list(range(36, 45)) + top)  # Franc notes below the top
    size = len(s.pile)
    _take_groups(s)
    assert s.right == sorted([note(0, 60), note(0, 50), note(3, 40), note(3, 30)])
    assert s.left == hands_1()  # 5 cards: not refilled
    assert len(s.pile) == size - 2 and s.round == 2 and not player_view(s, 0).last_round


def test_a_short_pile_deals_right_first_and_plays_one_last_round() -> None:
    s = _refill_position([note(3, 20), note(3, 30), note(3, 40)])  # 3 cards for 2 + 3 places
    bid_all(s, {0: [note(0, 60), note(0, 50)], 1: [note(1, 60)], 2: [bluff_of(2)]})
    apply_action(s, TAKE_RIGHT)  # right: 2 cards
    apply_action(s, TAKE_LEFT)  # left: 1 card
    assert s.pile == [] and s.round == 2  # right got 40 and 30, left only 20
    assert s.right == sorted([note(0, 60), note(0, 50), note(3, 40), note(3, 30)])
    assert s.left == [note(1, 60), note(3, 20)]
    assert player_view(s, 1).last_round
    _everyone_keeps(s)
    assert is_over(s) and s.round == 2 and s.left == [note(1, 60), note(3, 20)]


def test_a_pile_emptied_exactly_makes_the_next_round_the_last() -> None:
    s = _refill_position([note(3, 20), note(3, 30)])
    _take_groups(s)
    assert s.pile == [] and len(s.right) == 4 and len(s.left) == 5 and s.round == 2
    _everyone_keeps(s)
    assert is_over(s) and current_player(s) == -1 and legal_actions(s) == []


def test_a_pile_left_after_the_refill_means_another_round() -> None:
    s = _refill_position([note(3, 20), note(3, 30), note(3, 40)])
    _take_groups(s)
    assert len(s.pile) == 1 and s.round == 2 and not player_view(s, 0).last_round
    _everyone_keeps(s)
    assert not is_over(s) and s.round == 3


def test_the_game_ends_after_the_round_limit() -> None:
    s = arrange(3, round=MAX_ROUNDS)
    assert current_player(s) == (MAX_ROUNDS - 1) % 3 and s.pile
    _everyone_keeps(s)
    assert is_over(s) and s.pile


def _everyone_keeps(s) -> None:
    bid_all(s, {p: [bluff_of(p)] for p in range(s.n)})


# --- §6 scoring, §7 ties -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notes", "points"),
    [
        ([(0, 60), (0, 50), (0, 40)], 50),  # 150: under 200, less 100
        ([(0, 20), (0, 30)], 0),  # 50 - 100, floored at 0
        ([(0, 60), (0, 50), (0, 40), (0, 30), (0, 20)], 200),  # exactly 200 counts in full
        ([(0, 60), (0, 50), (0, 40), (0, 20), (0, 20, 1)], 90),  # 190: the cliff
        ([(0, 20), (0, 20, 1), (0, 20, 2)], 100),  # 60 -> 0, + a trio of 20s
        ([(0, 30), (0, 30, 1), (0, 30, 2), (0, 60), (0, 50)], 300),  # 200 + trio of 30s
        ([(0, 20), (0, 20, 1), (0, 20, 2), (0, 30), (0, 30, 1), (0, 30, 2), (0, 60)], 410),
        ([(0, 20), (0, 20, 1), (0, 20, 2), (0, 30), (0, 30, 1), (0, 30, 2), (0, 40), (0, 50)], 440),
    ],
)
def test_currency_scoring(notes, points) -> None:
    hand = [note(*x) for x in notes]
    b = score_hand(hand)
    assert b["currency_points"][0] == points and b["total"] == points


def test_a_full_currency_scores_500_and_coins_ten_each_bluffs_nothing() -> None:
    full = list(range(9, 18))  # all nine Euro notes
    b = score_hand(full + [coin(0), coin(1), bluff_of(0), note(2, 60)])
    assert b["currency_points"][1] == 500 and b["full_sets"][1] == 1 and b["trios"][1] == 2
    assert b["coins"] == 20 and b["currency_points"][2] == 0 and b["total"] == 520
    assert score_hand([coin(i) for i in range(6)])["total"] == 60  # coins never reduced


def test_ties_share_first_place() -> None:
    assert ranks([50, 50, 20]) == [0, 0, 2] and ranks([5, 9, 9, 1]) == [2, 0, 0, 3]
    res = seat_results([[coin(0)], [coin(1)], [bluff_of(2)]])
    assert [r["rank"] for r in res] == [0, 0, 2] and [r["place"] for r in res] == [1, 1, 3]
    assert [r["win_share"] for r in res] == [0.5, 0.5, 0.0]
    assert [r["score"] for r in res] == [10, 10, 0]


def test_results_at_the_end_only() -> None:
    s = arrange(3, hands={0: [coin(0)], 1: [coin(1)], 2: [note(0, 20)]}, round=MAX_ROUNDS)
    with pytest.raises(ValueError, match="not over"):
        results(s)
    _everyone_keeps(s)
    res = results(s)
    assert [r["score"] for r in res] == [10, 10, 0] and [r["rank"] for r in res] == [0, 0, 2]
    assert s.phase == GAME_OVER


# --- §10.1 the action table ---------------------------------------------------------------------


def test_action_table_layout_and_names() -> None:
    assert NUM_ACTIONS == len(ACTION_TABLE) == 45
    assert [describe_action(a) for a in (0, 6, 34, 35, 36, 37, 38, 39, 40, 43, 44)] == [
        "bid Dollar 20",
        "bid Euro 30",
        "bid Peso 60",
        "bid coin",
        "bid bluff",
        "commit bid",
        "take right group",
        "take left group",
        "take bid of seat +1",
        "take bid of seat +4",
        "keep own bid",
    ]
    for bad in (-1, 45, True, "3"):
        with pytest.raises(ValueError):
            describe_action(bad)
