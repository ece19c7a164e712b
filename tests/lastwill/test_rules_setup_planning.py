"""Scenario tests, one per rule: docs/RULES.md §3 (setup), §4.1 (preparation), §4.2 (planning)
and the §9 rulings `starting_money` and `board_spaces`.

Each test quotes the rule line it checks and asserts exact legal sets, card places and money.
"""

from collections import Counter

import pytest

from lastwill_env.engine import CATALOGUE, GameConfig, new_game, player_view
from lastwill_env.engine import game as G
from lastwill_env.engine.builders import (
    card_id,
    do,
    legal_names,
    play_to_first_turn,
    put_on_board,
    take_card,
    turn_state,
)

CARDS = CATALOGUE.cards
EV, HE, PR, CO = range(4)
DECK_NAMES = ("events", "helpers", "properties", "companions")
ALL_DRAWS = [f"draw from {d}" for d in DECK_NAMES]
_CODE_DECK = {"P": "properties", "E": "events", "H": "helpers", "S": "special", "J": "joker"}


def _everywhere(s):
    out = [c for d in s.decks for c in d]
    out += s.special + [c for d in s.discards for c in d] + s.box + s.jokers
    out += [c for c in s.offer if c >= 0]
    out += [c for h in s.hands for c in h] + [c for b in s.boards for c in b]
    return out


def _after_keep(n, seed=0, **options):
    """A new game played (first legal action) up to the first planning decision."""
    s = new_game(GameConfig(num_players=n, **options), seed)
    while s.phase == G.KEEP_PHASE:
        s.apply_action(s.legal_actions()[0])
    return s


def _finish_draws(s):
    while s.phase == G.DRAW_PHASE:
        s.apply_action(s.legal_actions()[0])


def _plan(s, idx):
    do(s, f"plan space {idx + 1}")
    _finish_draws(s)


def _box_deck(s, d):
    """Test poke: move deck d and its discard pile out of play (to the box)."""
    for c in s.decks[d] + s.discards[d]:
        take_card(s, c)
        s.box.append(c)
    s._legal = None


# ---------------------------------------------------------------------------------------------
# §3 Setup


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s3_all_140_cards_placed_once(n):
    """§2: "counts are rules: decks never hold more or fewer" — every card in one place."""
    s = new_game(n, seed=7)
    placed = _everywhere(s)
    assert len(placed) == 140
    assert sorted(placed) == list(range(140))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s3_deck_counts_after_setup(n):
    """§3.3/3.7: shuffle the four normal decks; each player draws 3 H&E and 3 Properties."""
    s = new_game(n, seed=3)
    sched = CATALOGUE.offer_schedule[n]
    first = Counter(space[0] for space in sched)
    assert [len(d) for d in s.decks] == [
        31 - first["E"],
        39 - 3 * n - first["H"],
        24 - 3 * n - first["P"],
        20,
    ]
    assert len(s.special) == 17 - first["S"]
    assert len(s.jokers) == 2 - first["J"]
    assert s.discards == [[], [], [], []]
    assert sorted(CARDS[c].money for c in s.box) == list(range(70, 131, 10))
    assert all(CARDS[c].category == "will" for c in s.box)


def test_s3_special_deck_stacked_one_crown_on_top():
    """§3.4: "stack 1-crown on top, 2-crown in the middle, 3-crown at the bottom"
    (the list end is the top)."""
    s = new_game(4, seed=11)
    # round 1 dealt three specials from the top: all 1-crown
    dealt = [c for c in s.offer if c >= 0 and CARDS[c].deck == "special"]
    assert [CARDS[c].crowns for c in dealt] == [1, 1, 1]
    assert [CARDS[c].crowns for c in s.special] == [3] * 6 + [2] * 5 + [1] * 3
    # each crown pile is shuffled separately: different seeds give different orders
    orders = {tuple(new_game(4, seed=k).special) for k in range(6)}
    assert len(orders) > 1


@pytest.mark.parametrize("n,spaces,plans", [(2, 7, 6), (3, 8, 6), (4, 8, 8), (5, 9, 8)])
def test_s3_board_sides_follow_player_count(n, spaces, plans):
    """§3.1: "Board sides follow the player count (2–3 or 4–5). With 3 or 5 players the
    supplementary offer board adds one card space"."""
    s = _after_keep(n)
    assert len(s.offer) == spaces
    assert len(CATALOGUE.plans[n]) == plans
    if n == 2:
        assert legal_names(s) == [f"block space {i}" for i in range(1, plans + 1)]
    else:
        assert legal_names(s) == [f"plan space {i}" for i in range(1, plans + 1)]


def test_s3_modifier_tiles_random_permutation():
    """§3.2: "The 4 modifier tiles go randomly one under each property type"."""
    seen = set()
    for seed in range(30):
        s = new_game(4, seed)
        assert sorted(s.mods) == [-3, -2, 1, 3]
        seen.add(tuple(s.mods))
    assert len(seen) > 3
    assert new_game(4, 5).mods == new_game(4, 5).mods


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s3_start_player_random_but_seeded(n):
    """§3.8: "Start player: chosen at random" (reproducible from the seed)."""
    starts = {new_game(n, seed).start for seed in range(60)}
    assert starts == set(range(n))
    for seed in range(5):
        assert new_game(n, seed).start == new_game(n, seed).start
        assert new_game(n, seed).cur == new_game(n, seed).start


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s3_starting_hand_three_helpers_three_properties(n):
    """§3.7: "each player draws 3 Helpers & Expenses and 3 Properties"."""
    s = new_game(n, seed=2)
    for hand in s.hands:
        assert len(hand) == 6
        assert Counter(CARDS[c].deck for c in hand) == {"helpers": 3, "properties": 3}
    assert s.phase == G.KEEP_PHASE and s.round == 1


def test_s3_keep_exactly_two_then_four_face_down():
    """§3.7: "each keeps exactly 2 of these 6 (any mix) and discards the other 4 face down"."""
    s = new_game(4, seed=0)
    st = s.start
    hand = list(s.hands[st])
    assert sorted(legal_names(s)) == sorted(f"keep {CARDS[c].name}" for c in hand)
    h_first = next(c for c in hand if CARDS[c].deck == "helpers")
    p_first = next(c for c in hand if CARDS[c].deck == "properties")
    do(s, f"keep {CARDS[h_first].name}")
    # one kept: still the same player, the hand is unchanged, the kept card is no longer offered
    assert s.cur == st and s.phase == G.KEEP_PHASE
    assert s.hands[st] == hand
    assert sorted(legal_names(s)) == sorted(f"keep {CARDS[c].name}" for c in hand if c != h_first)
    do(s, f"keep {CARDS[p_first].name}")
    assert sorted(s.hands[st]) == sorted([h_first, p_first])
    assert s.cur == (st + 1) % 4 and s.phase == G.KEEP_PHASE
    gone = [c for c in hand if c not in (h_first, p_first)]
    assert sorted(s.discards[HE] + s.discards[PR]) == sorted(gone)
    assert s.hidden == [0, 2, 2, 0]
    for viewer in range(4):
        v = player_view(s, viewer)
        assert v.hidden_discards == (0, 2, 2, 0)
        assert v.discards == ((), (), (), ())


def test_s3_keep_goes_clockwise_and_all_discards_hidden():
    """§3.7 + §10: the 4 starting discards of every player stay hidden from everyone."""
    s = new_game(5, seed=4)
    st = s.start
    seen = []
    while s.phase == G.KEEP_PHASE:
        if s.cur not in seen:
            seen.append(s.cur)
        # keep two properties-deck cards whenever possible (any mix allowed)
        names = legal_names(s)
        props = [x for x in names if CARDS[card_id(x[5:])].deck == "properties"]
        do(s, props[0] if props else names[0])
    assert seen == [(st + i) % 5 for i in range(5)]
    assert all(len(h) == 2 for h in s.hands)
    assert all(CARDS[c].deck == "properties" for h in s.hands for c in h)
    assert s.hidden == [0, 15, 5, 0]
    assert len(s.discards[HE]) == 15 and len(s.discards[PR]) == 5
    for viewer in range(5):
        v = player_view(s, viewer)
        assert v.hidden_discards == (0, 15, 5, 0)
        assert v.discards == ((), (), (), ())
    assert s.phase == G.PLAN_PHASE and s.cur == st


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s3_jokers_on_joker_spaces(n):
    """§3.5: "The 2 jokers go beside the offer board; they appear on joker spaces"."""
    s = new_game(n, seed=1)
    sched = CATALOGUE.offer_schedule[n]
    for i, space in enumerate(sched):
        if space[0] == "J":
            assert CARDS[s.offer[i]].category == "joker"
        else:
            assert CARDS[s.offer[i]].category != "joker"
    assert len(s.jokers) + sum(CARDS[c].category == "joker" for c in s.offer) == 2


# ---------------------------------------------------------------------------------------------
# §4.1 Preparation


def _round_starts(n, seed):
    """Play a whole game with the first legal action; yield the state at each round start."""
    s = new_game(n, seed)
    yield s
    rd = 1
    while not s.is_over:
        s.apply_action(s.legal_actions()[0])
        if s.round != rd and not s.is_over:
            rd = s.round
            yield s


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s4_1_offer_board_follows_schedule_every_round(n):
    """§4.1: "Put one face-up card on each offer space for this round, from the deck the space
    names for this round and player count"."""
    rounds = []
    for s in _round_starts(n, seed=21):
        sched = CATALOGUE.offer_schedule[n]
        assert len(s.offer) == len(sched)
        for i, space in enumerate(sched):
            c = s.offer[i]
            assert c >= 0, (s.round, i)
            assert CARDS[c].deck == _CODE_DECK[space[s.round - 1]], (s.round, i)
        assert s.offer_boy == [-1] * len(sched)
        specials = [CARDS[c].crowns for c in s.offer if CARDS[c].deck == "special"]
        expected = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3}[s.round]
        assert specials == [expected] * {1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2, 7: 2}[s.round]
        jokers = [c for c in s.offer if CARDS[c].category == "joker"]
        assert len(jokers) == (1 if s.round <= 3 else 2)
        rounds.append(s.round)
    assert rounds == [1, 2, 3, 4, 5, 6, 7]
    assert s.special == []  # all 17 specials were dealt over the 7 rounds


def test_s4_1_keep_only_in_round_one():
    """§4.1: "Round 1 only: then everyone keeps 2 of the 6 starting cards"."""
    s = new_game(3, seed=0)
    assert s.phase == G.KEEP_PHASE and all(c >= 0 for c in s.offer)
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2
    assert s.phase == G.PLAN_PHASE
    assert legal_names(s)[0].startswith("plan space")


# ---------------------------------------------------------------------------------------------
# §4.2 Planning


@pytest.mark.parametrize("n", [3, 4, 5])
def test_s4_2_plan_from_start_player_clockwise(n):
    """§4.2: "From the start player, clockwise, each player puts the planning marker on a free
    plan space"."""
    s = _after_keep(n, seed=9)
    st = s.start
    nplans = len(CATALOGUE.plans[n])
    taken = []
    for i in range(n):
        assert s.phase == G.PLAN_PHASE
        assert s.cur == (st + i) % n
        assert legal_names(s) == [f"plan space {p + 1}" for p in range(nplans) if p not in taken]
        p = [x for x in range(nplans) if x not in taken][-1]  # the last free space
        taken.append(p)
        _plan(s, p)
        assert s.plans[(st + i) % n] == p
    assert s.phase == G.ERRAND_PHASE


def test_s4_2_two_players_block_then_plan():
    """§4.2: "Two players: the start player first blocks a plan space with a neutral marker;
    the other player blocks another; then the other player chooses a plan and draws; then the
    start player chooses from the rest"."""
    s = _after_keep(2, seed=0)
    st = s.start
    ot = 1 - st
    assert s.phase == G.BLOCK_PHASE and s.cur == st
    assert legal_names(s) == [f"block space {i}" for i in range(1, 7)]
    do(s, "block space 2")
    assert s.phase == G.BLOCK_PHASE and s.cur == ot
    assert legal_names(s) == [f"block space {i}" for i in (1, 3, 4, 5, 6)]
    do(s, "block space 5")
    assert s.blocked == [1, 4]
    assert s.phase == G.PLAN_PHASE and s.cur == ot
    assert legal_names(s) == [f"plan space {i}" for i in (1, 3, 4, 6)]
    _plan(s, 2)  # 0 cards
    assert s.plans[ot] == 2
    assert s.phase == G.PLAN_PHASE and s.cur == st
    assert legal_names(s) == [f"plan space {i}" for i in (1, 4, 6)]
    _plan(s, 0)
    assert s.plans == ([0, 2] if st == 0 else [2, 0])
    # neutral markers have no other effect: order comes from the two plans only
    assert s.order == (st, ot)
    assert s.phase == G.ERRAND_PHASE and s.cur == st


def test_s4_2_plan_order_sets_turn_and_errand_order():
    """§4.2: a plan gives "the turn order for the rest of the round (order 1 acts first)"."""
    s = _after_keep(4, seed=0)
    st = s.start
    seats = [(st + i) % 4 for i in range(4)]
    for seat, p in zip(seats, (7, 6, 4, 1), strict=True):  # orders 8, 7, 5, 2
        assert s.cur == seat
        _plan(s, p)
    assert s.order == tuple(reversed(seats))
    # errand boys: plans 8 and 5 give two, plans 7 and 2 give one
    assert s.errand_seq == (seats[3], seats[2], seats[1], seats[0], seats[2], seats[0])
    assert s.phase == G.ERRAND_PHASE and s.cur == seats[3]
    while s.phase != G.TURN_PHASE:
        s.apply_action(s.legal_actions()[-1])
    assert s.cur == seats[3]
    assert s.actions == CATALOGUE.plans[4][1].actions == 2


def test_s4_2_plan_actions_set_the_action_marker():
    """§4.2: the plan gives the number of actions (order 7 in 4–5 players: 4 actions)."""
    s = _after_keep(4, seed=0)
    first = s.cur
    _plan(s, 6)  # order 7: 0 cards, 1 errand boy, 4 actions
    while s.phase == G.PLAN_PHASE:
        _plan(s, G._legal_plan(s)[0] - G.PLAN[0])
    while s.phase != G.TURN_PHASE:
        s.apply_action(s.legal_actions()[0])
    while s.cur != first:
        do(s, "pass")
    assert s.actions == 4


def test_s4_2_blind_draw_all_choices_before_any_card():
    """§4.2: "deciding how many from each deck before seeing any of them"."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    hand0 = list(s.hands[seat])
    tops = {d: list(reversed(s.decks[d])) for d in range(4)}
    expected = [tops[EV][0], tops[EV][1], tops[HE][0], tops[PR][0], tops[CO][0], tops[CO][1]]
    do(s, "plan space 3")  # order 3: 6 cards
    picks = ["events", "events", "helpers", "properties", "companions", "companions"]
    for i, d in enumerate(picks):
        assert s.phase == G.DRAW_PHASE and s.cur == seat
        assert legal_names(s) == ALL_DRAWS  # never special, jokers or the offer board
        assert s.hands[seat] == hand0
        assert player_view(s, seat).draws_left == 6 - i
        do(s, f"draw from {d}")
    assert s.hands[seat] == hand0 + expected
    assert s.phase == G.PLAN_PHASE and s.cur == (seat + 1) % 4


def test_s4_2_empty_deck_reshuffles_its_discard_pile():
    """§4.2: "An empty normal deck is refilled by shuffling its discard pile"."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    events = list(s.decks[EV])
    s.discards[EV].extend(events)
    s.decks[EV].clear()
    hand0 = list(s.hands[seat])
    do(s, "plan space 1")  # 1 card
    assert legal_names(s) == ALL_DRAWS
    do(s, "draw from events")
    new = [c for c in s.hands[seat] if c not in hand0]
    assert len(new) == 1 and new[0] in events
    assert s.discards[EV] == []
    assert sorted(s.decks[EV] + new) == sorted(events)


def test_s4_2_reshuffle_reveals_hidden_starting_discards():
    """§4.2 + §10: a reshuffled pile (with face-down starting discards) leaves no hidden cards."""
    s = _after_keep(4, seed=0)
    assert s.hidden[HE] > 0
    pile = list(s.discards[HE])
    for c in list(s.decks[HE]):
        take_card(s, c)
        s.box.append(c)
    do(s, "plan space 1")
    do(s, "draw from helpers")
    assert s.hidden[HE] == 0 and s.discards[HE] == []
    assert len(s.decks[HE]) == len(pile) - 1


def test_s4_2_deck_and_discard_empty_not_legal():
    """§4.2: "A deck whose discard pile is empty too cannot be drawn from: that choice is simply
    not legal"."""
    s = _after_keep(4, seed=0)
    _box_deck(s, EV)
    do(s, "plan space 3")
    assert legal_names(s) == ["draw from helpers", "draw from properties", "draw from companions"]
    # a deck with one card left (and an empty pile) is legal exactly once
    s = _after_keep(4, seed=0)
    last = s.decks[PR][-1]
    _box_deck(s, PR)
    s.box.remove(last)
    s.decks[PR].append(last)
    do(s, "plan space 3")
    assert "draw from properties" in legal_names(s)
    do(s, "draw from properties")
    assert legal_names(s) == ["draw from events", "draw from helpers", "draw from companions"]


def test_s4_2_draw_with_no_card_anywhere_is_skipped():
    """§4.2: "a draw that finds no card anywhere is skipped, never an error"."""
    s = _after_keep(4, seed=0)
    for d in range(4):
        _box_deck(s, d)
    seat = s.cur
    hand0 = list(s.hands[seat])
    do(s, "plan space 3")  # 6 cards, none to find
    assert s.phase == G.PLAN_PHASE and s.cur == (seat + 1) % 4
    assert s.hands[seat] == hand0
    # only two cards anywhere: the 6-card plan draws those two, the rest is skipped
    s = _after_keep(4, seed=0)
    for d in range(4):
        _box_deck(s, d)
    two = [card_id("CarriageRide_1"), card_id("Horse_1")]
    for c in two:
        s.box.remove(c)
    s.decks[EV].append(two[0])
    s.discards[CO].append(two[1])
    seat = s.cur
    hand0 = list(s.hands[seat])
    do(s, "plan space 3")
    assert legal_names(s) == ["draw from events", "draw from companions"]
    do(s, "draw from companions")
    assert legal_names(s) == ["draw from events"]
    assert s.hands[seat] == hand0
    do(s, "draw from events")
    assert s.phase == G.PLAN_PHASE and s.cur == (seat + 1) % 4
    assert s.hands[seat] == hand0 + [two[1], two[0]]


def test_s4_2_school_chum_3_optional_extra_companions():
    """docs/CARDS.md SchoolChum_3: "When drawing plan cards, may draw up to 3 extra companion cards"
    (optional, decided before any card is seen; pass stops)."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_3"])
    hand0 = list(s.hands[seat])
    top_h = s.decks[HE][-1]
    top_c = s.decks[CO][-2:][::-1]
    do(s, "plan space 1")  # 1 card
    assert legal_names(s) == ALL_DRAWS  # the plan card first, no pass
    do(s, "draw from helpers")
    assert legal_names(s) == ["pass", "draw from companions"]
    do(s, "draw from companions")
    do(s, "draw from companions")
    assert s.hands[seat] == hand0
    assert legal_names(s) == ["pass", "draw from companions"]
    do(s, "pass")
    assert s.hands[seat] == hand0 + [top_h, *top_c]
    assert s.phase == G.PLAN_PHASE and s.cur == (seat + 1) % 4


def test_s4_2_school_chum_3_stops_after_three():
    """SchoolChum_3: at most 3 extra companion cards."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_3"])
    n0 = len(s.hands[seat])
    do(s, "plan space 1")
    do(s, "draw from events")
    for _ in range(3):
        do(s, "draw from companions")
    assert s.phase == G.PLAN_PHASE and s.cur == (seat + 1) % 4
    assert len(s.hands[seat]) == n0 + 4


def test_s4_2_school_chum_4_optional_extra_events_after_companions():
    """docs/CARDS.md SchoolChum_4: "may draw up to 3 extra event cards" (pass to stop)."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_3", "SchoolChum_4"])
    n0 = len(s.hands[seat])
    do(s, "plan space 5")  # 0 cards: only the optional extras
    assert legal_names(s) == ["pass", "draw from companions"]
    do(s, "draw from companions")
    do(s, "pass")
    assert legal_names(s) == ["pass", "draw from events"]
    do(s, "draw from events")
    do(s, "draw from events")
    do(s, "pass")
    new = s.hands[seat][n0:]
    assert [CARDS[c].deck for c in new] == ["companions", "events", "events"]
    assert s.phase == G.PLAN_PHASE


def test_s4_2_school_chum_s_two_extra_cards():
    """docs/CARDS.md SchoolChum_S: "Draw 2 extra cards when you draw plan cards" (any decks)."""
    s = _after_keep(4, seed=0)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_S"])
    n0 = len(s.hands[seat])
    do(s, "plan space 1")  # 1 card + 2
    for _ in range(3):
        assert legal_names(s) == ALL_DRAWS
        assert s.phase == G.DRAW_PHASE
        do(s, "draw from properties")
    assert s.phase == G.PLAN_PHASE
    assert len(s.hands[seat]) == n0 + 3


# ---------------------------------------------------------------------------------------------
# §9 rulings: starting money, board spaces


def test_s9_starting_money_default_70():
    """§9 starting money: "£70 each (the seeds' first-game rule)"."""
    for n in (2, 3, 4, 5):
        assert new_game(n, 0).money == [70] * n
    assert GameConfig().starting_money == 70


def test_s9_starting_money_will_shared():
    """§9 `starting_money`: "will-shared (one will card for all)"."""
    values = set()
    for seed in range(20):
        s = new_game(GameConfig(num_players=4, starting_money="will-shared"), seed)
        assert len(set(s.money)) == 1
        assert s.money[0] in range(70, 131, 10)
        values.add(s.money[0])
    assert len(values) > 1


def test_s9_starting_money_will_each():
    """§9 `starting_money`: "will-each (each draws one; the Chinese text)"."""
    for seed in range(10):
        s = new_game(GameConfig(num_players=5, starting_money="will-each"), seed)
        assert len(set(s.money)) == 5
        assert set(s.money) <= set(range(70, 131, 10))


def test_s9_board_spaces_default_five_plus_extensions():
    """§9 player-board capacity: "5 card spaces, +1 per extension" (option `board_spaces`)."""
    five = ["SchoolChum_1", "SchoolChum_2", "Tailor", "Valet", "Reservation_1"]
    s = turn_state(4, 0, hand=["SchoolChum_3"], board=five, actions=2)
    do(s, "play SchoolChum_3")
    assert s.phase == G.ROOM_PHASE
    assert sorted(legal_names(s)) == sorted(f"room {x}" for x in five)
    s = turn_state(4, 0, hand=["SchoolChum_3"], board=five, actions=2)
    s.ext[0] = 1
    do(s, "play SchoolChum_3")
    assert s.phase == G.TURN_PHASE and len(s.boards[0]) == 6


def test_s9_board_spaces_option():
    """§9 `board_spaces`: a configured board of 2 spaces is full with two cards."""
    s = turn_state(4, 0, hand=["Tailor"], board=["SchoolChum_1"], actions=2, board_spaces=2)
    do(s, "play Tailor")
    assert s.phase == G.TURN_PHASE and len(s.boards[0]) == 2
    s = turn_state(
        4, 0, hand=["Tailor"], board=["SchoolChum_1", "Valet"], actions=2, board_spaces=2
    )
    do(s, "play Tailor")
    assert s.phase == G.ROOM_PHASE
    do(s, "room Valet")
    assert sorted(s.boards[0]) == sorted([card_id("SchoolChum_1"), card_id("Tailor")])
    assert card_id("Valet") in s.discards[HE]
    # a board full of properties gives no room: the helper cannot be played
    s = turn_state(
        4, 0, hand=["Tailor"], board=["Farm_1", "Farm_2"], actions=2, money=50, board_spaces=2
    )
    assert "play Tailor" not in legal_names(s)


def test_s9_board_spaces_first_turn_reachable():
    """Sanity: a builder-made first turn exists for each player count."""
    for n in (2, 3, 4, 5):
        s = play_to_first_turn(n, 0)
        assert s.phase == G.TURN_PHASE and s.round == 1
