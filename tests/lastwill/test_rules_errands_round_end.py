"""Scenario tests, one per rule: docs/RULES.md §4.3 (errands), §5 (spending, debt, bankruptcy),
§6 (end of round), §7 (end of game), §8 (winner) and the §9 rulings on errands, depreciation,
the market and final valuation.

Each test quotes the rule line it checks and asserts exact legal sets, card places and money.
"""

from itertools import permutations

import pytest

from lastwill_env.engine import CATALOGUE, GameConfig, new_game, results
from lastwill_env.engine import game as G
from lastwill_env.engine.builders import (
    card_id,
    do,
    legal_names,
    play_to_first_turn,
    put_on_board,
    set_hand,
    take_card,
    turn_state,
)

CARDS = CATALOGUE.cards
EV, HE, PR, CO = range(4)
OTHER_ERRANDS = ["errand board extension", "errand property market", "errand unknown card"]


def _offer_names(idx):
    return [f"errand offer space {i + 1}" for i in idx]


def _to_errands(n, plans, seed=0, blocks=(4, 5)):
    """Keep (first legal), then plan spaces `plans` in planning order (2 players: block
    `blocks` first); draws take the first legal deck. Returns the state at the first errand."""
    s = new_game(GameConfig(num_players=n), seed)
    while s.phase == G.KEEP_PHASE:
        s.apply_action(s.legal_actions()[0])
    if n == 2:
        for b in blocks:
            do(s, f"block space {b + 1}")
    for p in plans:
        do(s, f"plan space {p + 1}")
        while s.phase == G.DRAW_PHASE:
            s.apply_action(s.legal_actions()[0])
    assert s.phase == G.ERRAND_PHASE
    return s


def _all_errands(s):
    names = _offer_names(i for i, c in enumerate(s.offer) if c >= 0)
    return [*names, *OTHER_ERRANDS, "errand opera"]


# ---------------------------------------------------------------------------------------------
# §4.3 Errands


def test_s4_3_offer_space_card_to_hand():
    """§4.3: "Offer space: take that card into your hand"; one errand boy per space."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    assert legal_names(s) == _all_errands(s)
    card = s.offer[3]
    hand0 = list(s.hands[seat])
    do(s, "errand offer space 4")
    assert s.hands[seat] == [*hand0, card]
    assert s.offer[3] == -1 and s.offer_boy[3] == seat
    assert s.cur != seat
    assert "errand offer space 4" not in legal_names(s)
    assert legal_names(s) == _all_errands(s)


@pytest.mark.parametrize("n", [2, 3])
def test_s4_3_two_three_players_top_spaces_share_two_slots(n):
    """§4.3: "With 2–3 players the top three spaces share two errand slots: the first taker
    picks one of three cards, the second one of the two left; the last card cannot be taken"."""
    plans = [0, 1, 2][:n]  # orders 1-3, two errand boys each
    s = _to_errands(n, plans, blocks=(3, 4))
    top = s.offer[:3]
    first = s.cur
    assert legal_names(s)[:3] == _offer_names([0, 1, 2])
    do(s, "errand offer space 2")
    assert top[1] in s.hands[first]
    second = s.cur
    assert legal_names(s)[:2] == _offer_names([0, 2])
    assert "errand offer space 2" not in legal_names(s)
    do(s, "errand offer space 3")
    assert top[2] in s.hands[second]
    # every later errand boy: the last top card cannot be taken
    while s.phase == G.ERRAND_PHASE:
        names = legal_names(s)
        assert not set(_offer_names([0, 1, 2])) & set(names)
        do(s, "errand unknown card" if "errand unknown card" in names else names[-1])
        if s.phase == G.UNKNOWN_PHASE:
            s.apply_action(s.legal_actions()[0])
    assert s.offer[0] == top[0]
    assert s.offer[1:3] == [-1, -1]


def test_s4_3_four_players_top_spaces_not_shared():
    """§4.3: the shared slots apply to 2–3 players only; with 4 any free space can be taken."""
    s = _to_errands(4, [0, 2, 3, 4])
    for i in range(3):
        do(s, f"errand offer space {i + 1}")
    assert legal_names(s)[0] == "errand offer space 4"
    assert s.offer[:3] == [-1, -1, -1]


def test_s4_3_extension_one_errand_boy_with_four_players():
    """§4.3: "Board extension: take an extension from the supply ... one more card space on your
    player board, permanently"; capacity 1 with 4 players (§9 errand capacity)."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    do(s, "errand board extension")
    assert s.ext[seat] == 1 and s.ext_left == 11
    assert G.board_capacity(s, seat) == 6
    assert "errand board extension" not in legal_names(s)
    # permanent: still 6 spaces in round 2
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert s.ext[seat] == 1 and G.board_capacity(s, seat) == 6
    while s.phase != G.ERRAND_PHASE:  # the extension space is free again next round
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2 and s.ext_used == 0
    assert "errand board extension" in legal_names(s)


def test_s4_3_extension_two_errand_boys_with_five_players_same_player_twice():
    """§9 errand capacity: "extension 1 (2 with 5 players)"; "A player may own several"."""
    s = _to_errands(5, [0, 2, 3, 4, 5])  # all five plans with two errand boys
    seq = s.errand_seq
    assert len(seq) == 10 and seq[:5] == seq[5:]
    first = seq[0]
    do(s, "errand board extension")
    for _ in range(4):  # the other four first errand boys avoid the extension
        assert "errand board extension" in legal_names(s)
        do(s, "errand offer space 1" if s.offer[0] >= 0 else legal_names(s)[0])
    assert s.cur == first
    do(s, "errand board extension")
    assert s.ext[first] == 2 and s.ext_left == 10
    assert G.board_capacity(s, first) == 7
    assert "errand board extension" not in legal_names(s)


def test_s4_3_extension_needs_supply():
    """§4.3: "take an extension from the supply (if any left)"."""
    s = _to_errands(4, [0, 1, 2, 3])
    s.ext_left = 0
    s._legal = None
    assert "errand board extension" not in legal_names(s)


def test_s4_3_market_all_24_orders_including_unchanged():
    """§4.3 + §9: "rearrange the four modifier tiles in any order, or leave them as they are";
    "any of the 24 orders, including unchanged"."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    old = tuple(s.mods)
    do(s, "errand property market")
    assert s.phase == G.MARKET_PHASE and s.cur == seat
    names = legal_names(s)
    assert names == [f"market order {p}" for p in permutations(range(4))]
    results_seen = set()
    for a in s.legal_actions():
        t = s.clone()
        t.apply_action(a)
        assert t.phase == G.ERRAND_PHASE and t.cur != seat
        results_seen.add(tuple(t.mods))
    assert results_seen == set(permutations(old))
    do(s, "market order (0, 1, 2, 3)")
    assert tuple(s.mods) == old
    assert "errand property market" not in legal_names(s)


def test_s4_3_market_changes_buy_price():
    """§4.3 market + §4.4: the new modifier applies to the next purchase."""
    s = _to_errands(4, [0, 1, 2, 3])
    old = list(s.mods)
    do(s, "errand property market")
    do(s, "market order (1, 0, 2, 3)")  # swap farm and town house tiles
    assert s.mods == [old[1], old[0], old[2], old[3]]
    assert G.base_buy_price(s, card_id("Farm_3")) == 8 + old[1]


def test_s4_3_unknown_card_once_per_player_per_round():
    """§4.3: "Unknown card: draw the top card of any one normal deck. Each player has a space of
    their own colour, so each player may do this at most once per round"."""
    s = _to_errands(4, [0, 2, 3, 4])  # all four plans give two errand boys
    seq = s.errand_seq
    for i in range(4):
        seat = s.cur
        assert seat == seq[i]
        assert "errand unknown card" in legal_names(s)
        top = s.decks[CO][-1]
        do(s, "errand unknown card")
        assert s.phase == G.UNKNOWN_PHASE and s.cur == seat
        assert legal_names(s) == [
            "draw from events",
            "draw from helpers",
            "draw from properties",
            "draw from companions",
        ]
        do(s, "draw from companions")
        assert s.hands[seat][-1] == top
    assert s.unknown_used == [True] * 4
    for _ in range(4):  # second errand boys: no second unknown card
        assert "errand unknown card" not in legal_names(s)
        s.apply_action(s.legal_actions()[0])
    # next round: available again
    while s.phase != G.ERRAND_PHASE or s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert "errand unknown card" in legal_names(s)


def test_s4_3_unknown_card_only_decks_with_cards():
    """§4.2/4.3: a deck with an empty discard pile too cannot be drawn from."""
    s = _to_errands(4, [0, 1, 2, 3])
    for d in (EV, PR):
        for c in s.decks[d] + s.discards[d]:
            take_card(s, c)
            s.box.append(c)
    s._legal = None
    do(s, "errand unknown card")
    assert legal_names(s) == ["draw from helpers", "draw from companions"]
    for d in (HE, CO):
        for c in s.decks[d] + s.discards[d]:
            take_card(s, c)
            s.box.append(c)
    t = _to_errands(4, [0, 1, 2, 3])
    for d in range(4):
        for c in t.decks[d] + t.discards[d]:
            take_card(t, c)
            t.box.append(c)
    t._legal = None
    assert "errand unknown card" not in legal_names(t)


def test_s4_3_opera_spends_two():
    """§4.3: "Opera: spend £2"; one errand boy per round."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    do(s, "errand opera")
    assert s.money[seat] == 68
    assert s.ledger[-1] == (seat, -2, "opera", -1)
    assert "errand opera" not in legal_names(s)


def test_s4_3_opera_with_tailor_spends_five():
    """docs/CARDS.md: "Opera errand £2 (+£3 Tailor)"."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    put_on_board(s, seat, ["Tailor"])
    do(s, "errand opera")
    assert s.money[seat] == 65


def test_s4_3_opera_tailor_bonus_only_if_affordable():
    """§9 helper price changes: "applied automatically ... whenever affordable" (with a
    property the player may not go below £0)."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    put_on_board(s, seat, ["Tailor", "Farm_3"])
    s.money[seat] = 4
    do(s, "errand opera")
    assert s.money[seat] == 2
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    put_on_board(s, seat, ["Farm_3"])
    s.money[seat] = 1
    assert "errand opera" not in legal_names(s)
    s.money[seat] = 2
    s._legal = None
    do(s, "errand opera")
    assert s.money[seat] == 0


def test_s4_3_opera_without_property_may_go_into_debt():
    """§5: "A player who owns no property may spend more than they have"."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    s.money[seat] = 1
    do(s, "errand opera")
    assert s.money[seat] == -1


def test_s4_3_market_and_opera_hold_one_errand_boy():
    """§4.3: "Spaces other than 'unknown card' hold one errand boy per round"."""
    s = _to_errands(4, [0, 1, 2, 3])
    do(s, "errand property market")
    do(s, "market order (0, 1, 2, 3)")
    do(s, "errand opera")
    names = legal_names(s)
    assert "errand property market" not in names and "errand opera" not in names
    assert names == [*_offer_names(range(8)), "errand board extension", "errand unknown card"]


def test_s4_3_errand_order_plan_order_then_second_boys():
    """§4.3: "In plan order each player places one errand boy ... When all have placed one,
    players whose plan gives 2 errand boys place the second, again in plan order"."""
    s = new_game(4, 0)
    while s.phase == G.KEEP_PHASE:
        s.apply_action(s.legal_actions()[0])
    st = s.start
    seats = [(st + i) % 4 for i in range(4)]
    for p in (4, 1, 7, 0):  # orders 5 (2 boys), 2 (1), 8 (2), 1 (2)
        do(s, f"plan space {p + 1}")
        while s.phase == G.DRAW_PHASE:
            s.apply_action(s.legal_actions()[0])
    expected = [seats[3], seats[1], seats[0], seats[2], seats[3], seats[0], seats[2]]
    placed = []
    while s.phase in (G.ERRAND_PHASE, G.UNKNOWN_PHASE):
        if s.phase == G.ERRAND_PHASE:
            placed.append(s.cur)
            do(
                s,
                "errand unknown card"
                if "errand unknown card" in legal_names(s)
                else legal_names(s)[0],
            )
        else:
            s.apply_action(s.legal_actions()[0])
    assert placed == expected
    assert s.phase == G.TURN_PHASE and s.cur == seats[3]


def test_s4_3_no_legal_errand_passes():
    """game.py docstring: "if no errand space is legal, `pass` skips that errand boy"."""
    s = _to_errands(4, [0, 1, 2, 3])
    seat = s.cur
    s.offer = [-1] * len(s.offer)
    s.market_used = s.opera_used = True
    s.ext_left = 0
    s.unknown_used[seat] = True
    s._legal = None
    assert legal_names(s) == ["pass"]
    do(s, "pass")
    assert s.cur == s.errand_seq[1]


# ---------------------------------------------------------------------------------------------
# §5 Spending, debt and bankruptcy


def test_s5_owner_may_not_go_below_zero():
    """§5: "A player who owns a property may never go below £0 ... Spending down to exactly £0
    is allowed"."""
    s = turn_state(4, 0, hand=["CarriageRide_3"], board=["Farm_3"], money=2, actions=2)
    assert legal_names(s) == ["pass", "use Farm_3", "sell Farm_3"]
    s = turn_state(4, 0, hand=["CarriageRide_3"], board=["Farm_3"], money=3, actions=2)
    assert "play CarriageRide_3" in legal_names(s)
    do(s, "play CarriageRide_3")
    assert s.money[0] == 0


def test_s5_owner_sells_first_then_spends():
    """§5: "any payment that would do so is illegal (sell the property first)"."""
    s = turn_state(
        4,
        0,
        hand=["CarriageRide_3"],
        board=["Farm_3"],
        money=0,
        actions=2,
        modifiers=(1, -3, -2, 3),
    )
    assert "play CarriageRide_3" not in legal_names(s)
    do(s, "sell Farm_3")
    assert s.money[0] == 9 and s.nprops[0] == 0
    do(s, "play CarriageRide_3")
    assert s.money[0] == 6


def test_s5_no_property_goes_into_debt():
    """§5: "A player who owns no property may spend more than they have; money goes negative"."""
    s = turn_state(4, 0, hand=["CarriageRide_3"], money=1, actions=2)
    assert legal_names(s) == ["pass", "play CarriageRide_3"]
    do(s, "play CarriageRide_3")
    assert s.money[0] == -2


def test_s5_buying_a_property_needs_the_whole_price():
    """game.py docstring: "buying a property needs its whole price in cash"."""
    mods = (-3, -2, 1, 3)  # farm -3: Farm_3 costs 8 - 3 = 5
    s = turn_state(4, 0, hand=["Farm_3"], money=4, actions=2, modifiers=mods)
    assert legal_names(s) == ["pass"]
    s = turn_state(4, 0, hand=["Farm_3"], money=5, actions=2, modifiers=mods)
    assert legal_names(s) == ["pass", "play Farm_3"]
    do(s, "play Farm_3")
    assert s.money[0] == 0 and s.nprops[0] == 1 and s.actions == 1


def _pass_round(s):
    """Pass every remaining action turn; first-legal discards; stop at the next planning or
    the end of the game."""
    rd = s.round
    while not s.is_over and s.round == rd:
        s.apply_action(s.legal_actions()[0])


def _first_turn_state(n=4, seed=0):
    s = play_to_first_turn(n, seed)
    assert s.cur == s.order[0]
    return s


def test_s5_bankruptcy_ends_game_after_that_round():
    """§5: "Bankrupt = money ≤ 0 and no property. The round in which someone becomes bankrupt is
    finished and is the last"."""
    s = _first_turn_state()
    seat = s.order[0]
    set_hand(s, seat, ["CarriageRide_3"])
    s.money[seat] = 3
    do(s, "play CarriageRide_3")
    assert s.money[seat] == 0 and G.is_bankrupt(s, seat)
    do(s, "pass")
    assert s.phase == G.TURN_PHASE and s.cur == s.order[1]  # the round is finished
    for _ in range(3):
        do(s, "pass")
    assert s.is_over and s.round == 1
    r = results(s)
    assert r["bankrupt"] == [p == seat for p in range(4)]
    assert r["rounds"] == 1
    assert r["winner"] == seat  # least money + property (0) wins


def test_s5_zero_money_with_property_is_not_bankrupt():
    """§5: "Bankrupt = money ≤ 0 and no property" — a property owner at £0 plays on."""
    s = _first_turn_state()
    seat = s.order[0]
    put_on_board(s, seat, ["Farm_3"])
    s.money[seat] = 0
    _pass_round(s)
    assert not s.is_over and s.round == 2


def test_s5_debt_without_property_is_bankrupt():
    """§5: a player in debt without property is bankrupt; the game ends after the round."""
    s = _first_turn_state()
    seat = s.order[2]
    s.money[seat] = -4
    _pass_round(s)
    assert s.is_over and s.round == 1
    assert results(s)["bankrupt"][seat] is True
    assert results(s)["winner"] == seat


# ---------------------------------------------------------------------------------------------
# §6 End of round


def _last_turn(n=4, seed=0):
    """Round-1 action turn of the last seat in plan order."""
    s = play_to_first_turn(n, seed)
    s.turn_i = n - 1
    s.cur = s.order[-1]
    s._legal = None
    return s


def test_s6_1_hand_limit_two_in_plan_order():
    """§6.1: "Discard down to the hand limit, 2 cards"; identical companions by type."""
    s = _last_turn()
    o = s.order
    for seat in o:
        set_hand(s, seat, [])
    set_hand(s, o[1], ["CarriageRide_1", "Horse_1", "Horse_2", "Dog_1"])
    set_hand(s, o[3], ["Theatre_1", "Theatre_2", "Theatre_3"])
    set_hand(s, o[2], ["Dinner_1", "Dinner_2"])
    do(s, "pass")
    assert s.phase == G.DISCARD_PHASE and s.cur == o[1]
    assert legal_names(s) == ["discard CarriageRide_1", "discard a horse", "discard a dog"]
    do(s, "discard a horse")
    assert s.cur == o[1]
    assert legal_names(s) == ["discard CarriageRide_1", "discard a horse", "discard a dog"]
    do(s, "discard CarriageRide_1")
    assert sorted(s.hands[o[1]]) == sorted([card_id("Horse_2"), card_id("Dog_1")])
    assert card_id("Horse_1") in s.discards[CO] and card_id("CarriageRide_1") in s.discards[EV]
    assert s.phase == G.DISCARD_PHASE and s.cur == o[3]
    assert legal_names(s) == ["discard Theatre_1", "discard Theatre_2", "discard Theatre_3"]
    do(s, "discard Theatre_2")
    assert s.round == 2 and s.phase == G.PLAN_PHASE
    assert len(s.hands[o[2]]) == 2


def test_s6_1_school_chums_raise_hand_limit():
    """§6.1: "helpers can raise it" — SchoolChum_1/_2: "Hand limit +2" each."""
    s = _last_turn()
    o = s.order
    for seat in o:
        set_hand(s, seat, [])
    put_on_board(s, o[0], ["SchoolChum_1"])
    put_on_board(s, o[2], ["SchoolChum_2"])
    set_hand(s, o[0], [f"Dinner_{i}" for i in range(1, 5)])  # 4 = limit 4: no discard
    set_hand(s, o[2], [f"Dinner_{i}" for i in range(5, 10)])  # 5 > 4: discard one
    assert G.hand_limit(s, o[0]) == 4 and G.hand_limit(s, o[3]) == 2
    do(s, "pass")
    assert s.phase == G.DISCARD_PHASE and s.cur == o[2]
    do(s, "discard Dinner_5")
    assert s.round == 2 and len(s.hands[o[0]]) == 4 and len(s.hands[o[2]]) == 4


def test_s6_1_both_school_chums_limit_six():
    """§6.1 + SchoolChum_1/_2: with both, the hand limit is 6."""
    s = _last_turn()
    o = s.order
    for seat in o:
        set_hand(s, seat, [])
    put_on_board(s, o[0], ["SchoolChum_1", "SchoolChum_2"])
    set_hand(s, o[0], [f"Dinner_{i}" for i in range(1, 8)])
    assert G.hand_limit(s, o[0]) == 6
    do(s, "pass")
    assert s.phase == G.DISCARD_PHASE and s.cur == o[0]
    do(s, "discard Dinner_7")
    assert s.round == 2 and len(s.hands[o[0]]) == 6


def test_s6_1_jokers_go_back_to_the_offer_board():
    """§6.1: "Jokers go back to the offer board" — never kept, not counted in the hand limit."""
    s = _last_turn()
    o = s.order
    jokers = [c.id for c in CARDS if c.category == "joker"]
    for seat in o:
        set_hand(s, seat, [])
    set_hand(s, o[0], ["Dinner_1", "Dinner_2", jokers[0]])
    set_hand(s, o[1], [jokers[1]])
    do(s, "pass")
    assert s.round == 2 and s.phase == G.PLAN_PHASE  # no discard needed
    assert sorted(s.hands[o[0]]) == sorted([card_id("Dinner_1"), card_id("Dinner_2")])
    assert s.hands[o[1]] == []
    # round 2 (4 players): one joker space; the other joker waits beside the board
    on_offer = [c for c in s.offer if c in jokers]
    assert len(on_offer) == 1 and len(s.jokers) == 1
    assert sorted(on_offer + s.jokers) == sorted(jokers)


def test_s6_2_depreciation_unmaintained_houses_only():
    """§6.2: "Each house that was not maintained this round loses one step of value (not below
    its last step). Farms never depreciate"."""
    s = _last_turn()
    seat = s.order[-1]
    put_on_board(
        s,
        seat,
        ["TownHouse_1", "ManorHouse_1", "Mansion_2", "Farm_1"],
        steps={"Mansion_2": 1, "ManorHouse_1": 1},
    )
    s.money[seat] = 50
    s.actions = 2
    do(s, "use TownHouse_1")  # maintain: upkeep 3
    assert s.money[seat] == 47
    do(s, "pass")
    while s.phase == G.DISCARD_PHASE:
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2
    step = {n: s.step[card_id(n)] for n in ("TownHouse_1", "ManorHouse_1", "Mansion_2", "Farm_1")}
    assert step == {"TownHouse_1": 0, "ManorHouse_1": 2, "Mansion_2": 1, "Farm_1": 0}


def test_s9_house_bought_this_round_depreciates_unless_maintained():
    """§9 depreciation: "a house bought this round depreciates at round end unless also
    maintained"."""
    for maintain, expected in ((False, 1), (True, 0)):
        s = _last_turn()
        seat = s.order[-1]
        set_hand(s, seat, ["TownHouse_1"])
        s.money[seat] = 60
        s.actions = 2
        s.mods = [-3, -2, 1, 3]
        do(s, "play TownHouse_1")
        assert s.money[seat] == 60 - (15 - 2)
        if maintain:
            do(s, "use TownHouse_1")
            assert s.money[seat] == 60 - 13 - 3
        do(s, "pass")
        while s.phase == G.DISCARD_PHASE:
            s.apply_action(s.legal_actions()[0])
        assert s.round == 2
        assert s.step[card_id("TownHouse_1")] == expected


def test_s6_3_used_cards_reset():
    """§6.3: "Reset all used (activated) board cards"."""
    s = _last_turn()
    seat = s.order[-1]
    put_on_board(s, seat, ["Farm_3", "Reservation_1", "Steward_1"], used=["Reservation_1"])
    s.money[seat] = 50
    s.actions = 2
    do(s, "use Farm_3")
    assert s.used[card_id("Farm_3")] == 1
    do(s, "pass")
    while s.phase == G.DISCARD_PHASE:
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2
    assert s.used[card_id("Farm_3")] == 0 and s.used[card_id("Reservation_1")] == 0
    assert s.priv[card_id("Steward_1")] == CARDS[card_id("Steward_1")].free_per_round


def test_s6_4_offer_board_cleared():
    """§6.4: "Clear the offer board: normal cards to their discard piles, special cards out of
    the game"."""
    s = _to_errands(4, [0, 1, 2, 3])  # 7 errand boys, none takes an offered card
    while s.phase != G.TURN_PHASE:
        names = legal_names(s)
        if s.phase == G.ERRAND_PHASE:
            pick = [x for x in names if not x.startswith("errand offer")]
            do(s, "errand unknown card" if "errand unknown card" in pick else pick[0])
        else:
            do(s, names[0])
    left = [c for c in s.offer if c >= 0]
    assert len(left) == 8
    assert sum(CARDS[c].deck == "special" for c in left) == 3
    _pass_round(s)
    assert s.round == 2
    for c in left:
        d = CARDS[c].deck
        if d == "special":
            assert c in s.box
        elif d == "joker":
            assert c in s.jokers or c in s.offer
        else:
            assert c in s.discards[("events", "helpers", "properties", "companions").index(d)]
    assert not set(left) & set(s.offer) - {c.id for c in CARDS if c.category == "joker"}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s6_5_6_markers_back_round_advances_start_passes_left(n):
    """§6.5/6.6: "Take back planning markers and errand boys"; "Advance the round marker; pass
    the start player marker to the left"."""
    s = play_to_first_turn(n, 3)
    st = s.start
    _pass_round(s)
    assert s.round == 2 and s.start == (st + 1) % n
    assert s.plans == [-1] * n and s.blocked == []
    assert s.cur == s.start
    assert s.phase == (G.BLOCK_PHASE if n == 2 else G.PLAN_PHASE)
    assert s.offer_boy == [-1] * len(s.offer)
    _pass_round(s)
    assert s.round == 3 and s.start == (st + 2) % n


# ---------------------------------------------------------------------------------------------
# §7 End of game


def test_s7_game_ends_after_round_seven():
    """§7: "after round 7 if nobody did" (go bankrupt)."""
    s = _first_turn_state()
    s.round = 6
    _pass_round(s)
    assert s.round == 7 and not s.is_over
    _pass_round(s)
    assert s.is_over and s.round == 7
    assert results(s)["rounds"] == 7
    assert s.legal_actions() == []


def test_s7_final_round_skips_hand_limit_discard():
    """game.py docstring: "After the final round the hand-limit discard is skipped"."""
    s = _last_turn()
    s.round = 7
    set_hand(s, s.cur, ["Dinner_1", "Dinner_2", "Dinner_3", "Dinner_4"])
    do(s, "pass")
    assert s.is_over and len(s.hands[s.order[-1]]) == 4


def test_s7_game_ends_after_bankruptcy_round():
    """§7: "After the round in which a player went bankrupt"."""
    s = _first_turn_state()
    s.round = 3
    s.money[s.order[3]] = 0
    _pass_round(s)
    assert s.is_over and s.round == 3


# ---------------------------------------------------------------------------------------------
# §8 Winner


def _final(money, boards=None, steps=None, mods=None):
    """Round 7 from the first action turn: set money and boards, everybody passes."""
    s = _first_turn_state()
    s.round = 7
    for seat, m in enumerate(money):
        s.money[seat] = m
    for seat, cards in (boards or {}).items():
        put_on_board(s, seat, cards, steps=steps)
    if mods:
        s.mods = list(mods)
    _pass_round(s)
    assert s.is_over
    return s


def test_s8_1_largest_debt_wins():
    """§8.1: "If anyone is in debt, the player with the largest debt wins"."""
    s = _final([-5, -12, 3, 0])
    r = results(s)
    assert r["winner"] == 1
    assert r["ranks"] == [2, 1, 4, 3]
    assert r["money"] == [-5, -12, 3, 0]
    assert r["decided_by"] == "debt"


def test_s8_2_least_money_plus_property_wins():
    """§8.2: "the player with the least money plus property wins; each property counts its
    current value plus £5 (no helper and no market modifier applies)"."""
    s = _final([4, 20, 5, 30], boards={0: ["Farm_3"], 2: ["Farm_8"]}, mods=(3, 1, -2, -3))
    r = results(s)
    assert r["property_value"] == [13, 0, 14, 0]
    assert r["totals"] == [17, 20, 19, 30]
    assert r["winner"] == 0 and r["ranks"] == [1, 3, 2, 4]
    assert r["bankrupt"] == [False] * 4
    assert r["decided_by"] == "least money plus property"


def test_s8_2_final_value_after_last_depreciation():
    """§8.2 + game.py: houses count their current value after the final depreciation;
    the Estate agent and modifiers do not apply."""
    s = _final(
        [10, 10, 10, 10],
        boards={1: ["TownHouse_1", "EstateAgent_1"]},
        steps={"TownHouse_1": 1},
        mods=(-3, 3, 1, -2),
    )
    r = results(s)
    assert s.step[card_id("TownHouse_1")] == 2
    assert r["property_value"][1] == 10 + 5
    assert r["totals"][1] == 25


def test_s8_3_ties_broken_by_plan_order():
    """§8.3: "Ties: the tied player whose plan was furthest left (acted earliest) in the final
    round wins"."""
    s = _final([20, 20, 20, 20])
    r = results(s)
    assert r["ranking"] == list(s.order)
    assert r["winner"] == s.order[0]
    plans = CATALOGUE.plans[4]
    assert r["plan_order"] == [plans[s.plans[p]].order for p in range(4)]


def test_s8_3_debt_ties_broken_by_plan_order():
    """§8.1 + §8.3: equal largest debts: the earlier plan wins."""
    money = [0, 0, 0, 0]
    o = _first_turn_state().order
    money[o[3]] = -7
    money[o[1]] = -7
    money[o[0]] = 5
    money[o[2]] = 5
    s = _final(money)
    r = results(s)
    assert r["winner"] == o[1]
    # debtors first (ties by plan order), then the others by total (ties by plan order)
    assert r["ranking"] == [o[1], o[3], o[0], o[2]]


def test_s8_results_keys():
    """§8: `results(s)` reports winner, ranks, money, property_value, totals, plan_order,
    bankrupt."""
    s = _final([1, 2, 3, 4])
    r = results(s)
    for k in ("winner", "ranks", "money", "property_value", "totals", "plan_order", "bankrupt"):
        assert k in r
    assert sorted(r["ranks"]) == [1, 2, 3, 4]
    t = new_game(4, 0)
    with pytest.raises(ValueError):
        results(t)
