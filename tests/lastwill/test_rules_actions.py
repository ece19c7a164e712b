"""Scenario tests of the action phase, docs/RULES.md §4.4 (with the §5 spending limit and §9
rulings).

Positions are built with `builders.turn_state`; every test asserts exact money, actions,
legal sets, card places, tokens, value steps or ledger entries. Numbers are from docs/CARDS.md §5.
"""

import pytest

from lastwill_env.engine import game as G
from lastwill_env.engine.builders import card_id, do, legal_names, turn_state

EVENTS, HELPERS, PROPERTIES, COMPANION_DECK = range(4)
HORSE, DOG, CHEF, GUEST = range(4)
ZERO = (0, 0, 0, 0)


def st(hand=(), board=(), money=50, actions=2, modifiers=ZERO, **kw):
    return turn_state(
        4, 0, hand=hand, board=board, money=money, actions=actions, modifiers=modifiers, **kw
    )


def last_ledger(s):
    return s.ledger[-1]


# ---------------------------------------------------------------------------------------------
# Events


def test_event_costs_one_action_and_spends_printed_money():
    """§4.4 Events: "pay the actions, spend the printed money, discard." Dinner_1: 1 action, £2."""
    s = st(hand=["Dinner_1"], money=30, actions=2)
    do(s, "play Dinner_1")
    assert s.money[0] == 28
    assert s.actions == 1
    c = card_id("Dinner_1")
    assert c in s.discards[EVENTS] and c not in s.hands[0]
    assert last_ledger(s) == (0, -2, "event", c)
    assert s.phase == G.TURN_PHASE


def test_boat_trip_costs_two_actions():
    """docs/CARDS.md §5.2: every event costs 1 action, boat trips 2. BoatTrip_4: 2 actions, £5."""
    s = st(hand=["BoatTrip_4"], actions=1)
    assert legal_names(s) == ["pass"]
    s = st(hand=["BoatTrip_4"], money=20, actions=2)
    do(s, "play BoatTrip_4")
    assert (s.money[0], s.actions) == (15, 0)


def test_event_several_addons_with_companions_and_joker():
    """§4.4: "discard matching companion cards (or jokers) with it to spend the extra amounts;
    several companions may be added". BoatTrip_1 £2 + guest 2 + dog 3 + chef 2 (joker) = £9."""
    s = st(hand=["BoatTrip_1", "Guest_1", "Dog_1", "Joker_1"], money=20, actions=2)
    do(s, "play BoatTrip_1")
    assert s.phase == G.ADDON_PHASE
    assert legal_names(s) == ["pass", "addon_card", "addon_joker"]
    do(s, "addon_card")  # guest +2
    assert legal_names(s) == ["pass", "addon_card", "addon_joker"]
    do(s, "addon_card")  # dog +3
    assert legal_names(s) == ["pass", "addon_joker"]  # no chef card in hand
    do(s, "addon_joker")  # chef +2
    assert s.phase == G.TURN_PHASE
    assert s.money[0] == 11
    assert s.actions == 0
    assert s.hands[0] == []
    assert card_id("Guest_1") in s.discards[COMPANION_DECK]
    assert card_id("Dog_1") in s.discards[COMPANION_DECK]
    assert card_id("Joker_1") in s.jokers  # a used joker goes back beside the offer board
    assert last_ledger(s) == (0, -9, "event", card_id("BoatTrip_1"))


def test_event_addon_can_be_skipped():
    """§4.4: add-ons are optional ("may"). Theatre_1 £2, horse add-on passed: £2, horse kept."""
    s = st(hand=["Theatre_1", "Horse_1"], money=20)
    do(s, "play Theatre_1")
    do(s, "pass")
    assert s.money[0] == 18
    assert s.hands[0] == [card_id("Horse_1")]


def test_dinner_8_takes_two_guests():
    """docs/CARDS.md §5.2 Dinner_8: guest +2, second guest +2 → £6 with two guest cards."""
    s = st(hand=["Dinner_8", "Guest_1", "Guest_2"], money=20)
    do(s, "play Dinner_8")
    do(s, "addon_card")
    do(s, "addon_card")
    assert s.money[0] == 14
    assert s.hands[0] == []


def test_addon_refused_when_unaffordable_with_property():
    """§5: a property owner may never go below £0. Dinner_8 with £4: base 2 + one guest 2 = 4;
    the second guest (→ £6) is not offered."""
    s = st(hand=["Dinner_8", "Guest_1", "Guest_2"], board=["Farm_3"], money=4)
    do(s, "play Dinner_8")
    assert legal_names(s) == ["pass", "addon_card"]
    do(s, "addon_card")
    assert legal_names(s) == ["pass"]
    do(s, "pass")
    assert s.money[0] == 0
    assert s.hands[0] == [card_id("Guest_2")]


def test_addon_without_property_may_go_into_debt():
    """§5: "A player who owns no property may spend more than they have". Dinner_8 + 2 guests
    with £1 and no property: £6 spent, money −5."""
    s = st(hand=["Dinner_8", "Guest_1", "Guest_2"], money=1)
    do(s, "play Dinner_8")
    do(s, "addon_card")
    do(s, "addon_card")
    assert s.money[0] == -5


def test_event_unaffordable_with_property_is_not_legal():
    """§5: a payment that would take a property owner below £0 is illegal. Soiree_2 £3, £2 left."""
    s = st(hand=["Soiree_2"], board=["Farm_3"], money=2)
    assert legal_names(s) == ["pass", "use Farm_3", "sell Farm_3"]
    s = st(hand=["Soiree_2"], board=["Farm_3"], money=3)
    assert "play Soiree_2" in legal_names(s)


@pytest.mark.parametrize(
    "card,invest,spent",
    [("Ball_1", 4, 10), ("Ball_1", 5, 13), ("Ball_2", 7, 22), ("Ball_2", 4, 8), ("Ball_3", 6, 17)],
)
def test_ball_table_invest_actions_spend_exact_amount(card, invest, spent):
    """§4.4 "Ball cards let the player invest more actions to spend more" (docs/CARDS.md §5.3)."""
    s = st(hand=[card], money=50, actions=7)
    do(s, f"play {card}")
    assert s.phase == G.BALL_PHASE
    do(s, f"ball invest {invest} actions")
    assert s.money[0] == 50 - spent
    assert s.actions == 7 - invest
    assert card_id(card) in s.discards[EVENTS]


def test_ball_options_limited_by_actions_left():
    """§4.4: "a card whose cost exceeds the actions left cannot be used" — Ball_1 with 3 actions
    offers only 2 and 3; with 1 action it is not playable."""
    s = st(hand=["Ball_1"], actions=3)
    do(s, "play Ball_1")
    assert legal_names(s) == ["ball invest 2 actions", "ball invest 3 actions"]
    assert st(hand=["Ball_1"], actions=1).legal_actions() == [G.PASS]


def test_ball_options_limited_by_money_with_property():
    """§5: Ball_2 with £8 and a property: £4, £6, £8 are payable, £12 is not."""
    s = st(hand=["Ball_2"], board=["Farm_3"], money=8, actions=7)
    do(s, "play Ball_2")
    assert legal_names(s) == [
        "ball invest 2 actions",
        "ball invest 3 actions",
        "ball invest 4 actions",
    ]


def test_cards_costing_more_actions_than_left_are_not_legal():
    """§4.4: "a card whose cost exceeds the actions left cannot be used. Some board cards cost no
    action to use." With 0 actions only 0-action uses remain."""
    s = st(
        hand=["Dinner_1", "Farm_3", "Coachman_1", "Horse_1"],
        board=["Reservation_1", "Reservation_3", "Farm_1"],
        actions=0,
    )
    assert legal_names(s) == ["pass", "use Reservation_1"]


# ---------------------------------------------------------------------------------------------
# Black-border cards


@pytest.mark.parametrize(
    "card", ["GentlemensClub_1", "GentlemensClub_2", "Coachman_2", "EstateAgent_S1", "Steward_S1"]
)
def test_black_border_cards_costing_two_actions(card):
    """docs/CARDS.md §6: playing to the board costs 1 action (2 for GentlemensClub, Coachman_2,
    EstateAgent_S1, Steward_S1)."""
    s = st(hand=[card], actions=1)
    assert legal_names(s) == ["pass"]
    s = st(hand=[card], money=20, actions=3)
    do(s, f"play {card}")
    assert s.actions == 1
    assert s.boards[0] == [card_id(card)]
    assert s.money[0] == 20


def test_helper_costs_one_action_and_goes_on_board():
    """§4.4: black-border cards go onto a free space; placing costs at least one action."""
    s = st(hand=["Waiter_1"], money=20, actions=1)
    do(s, "play Waiter_1")
    assert s.actions == 0
    assert s.boards[0] == [card_id("Waiter_1")]
    assert s.money[0] == 20


def test_full_board_make_room_discards_helper_at_no_action_cost():
    """§4.4: "With no free space, the player may discard a placed helper or expense (never a
    property) to make room, as part of that play, at no action cost"."""
    board = ["Farm_3", "Farm_4", "Waiter_1", "Farm_8", "Carriage_2"]
    s = st(hand=["Coachman_1"], board=board, money=20, actions=1)
    do(s, "play Coachman_1")
    assert s.phase == G.ROOM_PHASE
    assert legal_names(s) == ["room Waiter_1", "room Carriage_2"]
    do(s, "room Carriage_2")
    assert s.phase == G.TURN_PHASE
    assert s.actions == 0
    assert card_id("Carriage_2") in s.discards[HELPERS]
    assert card_id("Coachman_1") in s.boards[0]
    assert len(s.boards[0]) == 5
    assert s.money[0] == 20


def test_make_room_for_a_property_purchase():
    """§4.4: the make-room discard also serves buying a property (a black-border card)."""
    board = ["Farm_3", "Farm_4", "Farm_7", "Farm_8", "Reservation_1"]
    s = st(hand=["Farm_9"], board=board, money=20, actions=1)
    do(s, "play Farm_9")
    assert s.phase == G.ROOM_PHASE
    assert legal_names(s) == ["room Reservation_1"]
    do(s, "room Reservation_1")
    assert card_id("Farm_9") in s.boards[0]
    assert s.nprops[0] == 5
    assert s.money[0] == 6
    assert s.actions == 0


def test_full_board_of_properties_blocks_black_border_cards():
    """§4.4: properties cannot be discarded to make room — with five properties no helper,
    expense or property can be played; events still can."""
    board = ["Farm_3", "Farm_4", "Farm_7", "Farm_8", "Farm_9"]
    s = st(hand=["Waiter_1", "Farm_2", "Carriage_2", "Dinner_1"], board=board, money=50)
    assert "play Waiter_1" not in legal_names(s)
    assert "play Farm_2" not in legal_names(s)
    assert "play Carriage_2" not in legal_names(s)
    assert "play Dinner_1" in legal_names(s)


def test_board_extension_adds_a_space():
    """§4.3: a board extension is "one more card space on your player board, permanently"."""
    board = ["Farm_3", "Farm_4", "Farm_7", "Farm_8", "Farm_9"]
    s = st(hand=["Waiter_1"], board=board)
    s.ext[0] = 1
    s._legal = None
    do(s, "play Waiter_1")
    assert s.phase == G.TURN_PHASE
    assert len(s.boards[0]) == 6


def test_special_helper_discarded_to_make_room_leaves_the_game():
    """§4.4: special cards "When discarded they leave the game"."""
    board = ["Farm_3", "Farm_4", "Farm_7", "Farm_8", "OldFriend_3"]
    s = st(hand=["Waiter_1"], board=board)
    do(s, "play Waiter_1")
    do(s, "room OldFriend_3")
    assert card_id("OldFriend_3") in s.box
    assert all(card_id("OldFriend_3") not in d for d in s.discards)


def test_placed_card_used_at_most_once_per_round():
    """§4.4: "A placed card can be used (activated) at most once per round"."""
    s = st(board=["Reservation_3"], money=20, actions=3)
    do(s, "use Reservation_3")
    assert (s.money[0], s.actions) == (16, 2)
    assert legal_names(s) == ["pass"]
    assert s.used[card_id("Reservation_3")] == 1


# ---------------------------------------------------------------------------------------------
# Expenses


@pytest.mark.parametrize(
    "card,acts,spent",
    [
        ("Reservation_1", 0, 2),
        ("Reservation_3", 1, 4),
        ("Reservation_5", 0, 1),
        ("Carriage_1", 0, 1),
        ("Carriage_3", 0, 2),
        ("Carriage_4", 1, 3),
        ("GentlemensClub_1", 1, 5),
    ],
)
def test_expense_enjoy_actions_and_money(card, acts, spent):
    """§4.4 "Expense: use it to spend its money"; docs/CARDS.md §5.4 actions per enjoy."""
    s = st(board=[card], money=20, actions=1)
    do(s, f"use {card}")
    assert s.money[0] == 20 - spent
    assert s.actions == 1 - acts
    assert last_ledger(s) == (0, -spent, "enjoy", card_id(card))


def test_one_action_expense_not_usable_without_actions():
    """§4.4: Carriage_4 needs 1 action to enjoy; Carriage_3 needs none."""
    s = st(board=["Carriage_4", "Carriage_3"], actions=0)
    assert legal_names(s) == ["pass", "use Carriage_3"]


def test_companion_slots_fill_top_down_then_any_filled_option():
    """§4.4 Companions: "pay 1 action, put a token ... slots fill top-down in printed order";
    using it, "the player picks one of its options whose companion slots are all filled".
    Reservation_5: £1 printed, chef→£2, chef→£4."""
    s = st(hand=["Chef_1", "Chef_2"], board=["Reservation_5"], money=20, actions=3)
    c = card_id("Reservation_5")
    do(s, "attach_card Reservation_5")
    assert (s.filled[c], s.tokens[CHEF], s.actions) == (1, 7, 2)
    assert card_id("Chef_1") in s.discards[COMPANION_DECK]
    do(s, "attach_card Reservation_5")
    assert (s.filled[c], s.tokens[CHEF], s.actions) == (2, 6, 1)
    assert "attach_card Reservation_5" not in legal_names(s)
    do(s, "use Reservation_5")
    assert s.phase == G.OPTION_PHASE and s.money[0] == 20  # nothing paid before the choice
    assert legal_names(s) == [
        "use option: printed amount",
        "use option: slot 1",
        "use option: slot 2",
    ]
    do(s, "use option: slot 2")
    assert s.money[0] == 16 and s.phase == G.TURN_PHASE and s.using == -1
    assert s.actions == 1  # 0-action enjoy
    assert s.used[c] == 1


def test_use_option_cheaper_filled_option_can_be_picked():
    """§4.4: any option whose slots are filled may be picked, not only the deepest.
    Reservation_5 with both chefs: the printed £1 is a legal choice."""
    s = st(board=["Reservation_5"], filled={"Reservation_5": 2}, money=20)
    do(s, "use Reservation_5")
    do(s, "use option: printed amount")
    assert s.money[0] == 19 and s.ledger[-1] == (0, -1, "enjoy", card_id("Reservation_5"))


def test_use_option_property_owner_may_pick_an_affordable_cheaper_option():
    """§4.4 with §5 (issue of the audit): TownHouse_4 with both tokens (£3 / guest £5 / chef £8)
    and £6: the £8 option is not payable, the £3 and £5 ones are offered."""
    s = st(board=["TownHouse_4"], filled={"TownHouse_4": 2}, money=6)
    assert "use TownHouse_4" in legal_names(s)
    do(s, "use TownHouse_4")
    assert s.phase == G.OPTION_PHASE
    assert legal_names(s) == ["use option: printed amount", "use option: slot 1"]
    do(s, "use option: slot 1")
    assert (s.money[0], s.actions) == (1, 1)
    assert s.used[card_id("TownHouse_4")] == 1


def test_use_with_a_single_payable_option_applies_it_at_once():
    """Only one option payable (TownHouse_4 filled twice, £4: only £3): no extra decision."""
    s = st(board=["TownHouse_4"], filled={"TownHouse_4": 2}, money=4)
    do(s, "use TownHouse_4")
    assert s.phase == G.TURN_PHASE and s.money[0] == 1


def test_use_option_state_round_trips_and_replays():
    """The pending option choice survives clone, to_dict/from_dict and the view."""
    from lastwill_env.engine import player_view

    s = st(board=["Reservation_5"], filled={"Reservation_5": 2}, money=20)
    do(s, "use Reservation_5")
    assert G.GameState.from_dict(s.to_dict()) == s
    c = s.clone()
    do(c, "use option: slot 1")
    assert s.phase == G.OPTION_PHASE and c.money[0] == 18
    assert player_view(s, 1).using == card_id("Reservation_5")


def test_companion_slot_order_none_skipped():
    """§9: "companion slot order: top-down, none skipped". Farm_2 is dog→4, horse→7: a horse
    cannot go on it first."""
    s = st(hand=["Horse_1"], board=["Farm_2"])
    assert "attach_card Farm_2" not in legal_names(s)
    s = st(hand=["Dog_1", "Horse_1"], board=["Farm_2"], money=20, actions=3)
    do(s, "attach_card Farm_2")
    do(s, "attach_card Farm_2")
    assert s.filled[card_id("Farm_2")] == 2
    assert s.hands[0] == []
    do(s, "use Farm_2")
    do(s, "use option: slot 2")
    assert s.money[0] == 13  # upkeep with dog and horse: £7


def test_attach_with_joker():
    """§4.4 "Jokers count as any one companion type": a joker fills Farm_1's horse slot."""
    s = st(hand=["Joker_1"], board=["Farm_1"], actions=1)
    do(s, "attach_joker Farm_1")
    assert s.filled[card_id("Farm_1")] == 1
    assert s.tokens[HORSE] == 10
    assert s.actions == 0
    assert card_id("Joker_1") in s.jokers


def test_attach_needs_an_action():
    """§4.4: attaching costs 1 action."""
    s = st(hand=["Horse_1"], board=["Farm_1"], actions=0)
    assert legal_names(s) == ["pass"]


def test_token_supply_sizes():
    """§9: "companion token supply: dog 10, horse 11, guest 6, chef 8"."""
    s = st()
    assert s.tokens == [11, 10, 8, 6]


def test_no_token_left_cannot_attach():
    """§9: "none left = cannot attach"."""
    s = st(hand=["Guest_1", "Joker_1"], board=["Mansion_2"], actions=2)
    assert "attach_card Mansion_2" in legal_names(s)
    s.tokens[GUEST] = 0
    s._legal = None
    assert "attach_card Mansion_2" not in legal_names(s)
    assert "attach_joker Mansion_2" not in legal_names(s)


def test_sold_farm_returns_tokens_to_supply():
    """Tokens stay for good on the card; a sold property's tokens go back to the supply."""
    s = st(board=["Farm_1"], filled={"Farm_1": 2}, money=0, actions=1)
    assert s.tokens[HORSE] == 9
    do(s, "sell Farm_1")
    assert s.tokens[HORSE] == 11
    assert s.filled[card_id("Farm_1")] == 0
    assert s.money[0] == 16


# ---------------------------------------------------------------------------------------------
# Properties


def test_buy_property_one_action_first_value_plus_modifier():
    """§4.4: "buying it is playing it: 1 action, pay its buy price plus the modifier"."""
    s = st(hand=["ManorHouse_3"], money=30, actions=2, modifiers=(3, -2, 1, -3))
    do(s, "play ManorHouse_3")
    c = card_id("ManorHouse_3")
    assert s.money[0] == 9  # 20 + 1
    assert s.actions == 1
    assert s.nprops[0] == 1
    assert s.boards[0] == [c]
    assert s.step[c] == 0
    assert last_ledger(s) == (0, -21, "buy", c)


def test_buy_needs_whole_price_in_cash():
    """game.py convention: buying needs the whole price in cash. Farm_3 8 + 3 = 11 > £10."""
    s = st(hand=["Farm_3"], money=10, modifiers=(3, 0, 0, 0))
    assert legal_names(s) == ["pass"]
    s = st(hand=["Farm_3"], money=11, modifiers=(3, 0, 0, 0))
    do(s, "play Farm_3")
    assert s.money[0] == 0


def test_maintenance_pays_upkeep_with_companions():
    """§4.4 Maintenance: "use the property to spend its upkeep". TownHouse_4 with a chef: £5."""
    s = st(board=["TownHouse_4", "Farm_9"], filled={"TownHouse_4": 1, "Farm_9": 3}, money=20)
    do(s, "use TownHouse_4")
    do(s, "use option: slot 1")
    assert (s.money[0], s.actions) == (15, 1)
    do(s, "use Farm_9")
    assert legal_names(s)[-1] == "use option: slot 3"
    do(s, "use option: slot 3")
    assert (s.money[0], s.actions) == (6, 0)
    assert s.ledger[-1] == (0, -9, "maintain", card_id("Farm_9"))


def test_maintenance_unaffordable_is_not_legal():
    """§5: a property owner cannot pay ManorHouse_1's £5 upkeep with £4."""
    s = st(board=["ManorHouse_1"], money=4)
    assert legal_names(s) == ["pass", "sell ManorHouse_1"]


def test_sell_current_value_plus_modifier():
    """§4.4 Sell: "1 action, discard the property, receive its current value plus its type's
    modifier". TownHouse_2 at its third step (13), town modifier −2: £11."""
    s = st(board=["TownHouse_2"], steps={"TownHouse_2": 2}, money=5, modifiers=(0, -2, 0, 0))
    do(s, "sell TownHouse_2")
    c = card_id("TownHouse_2")
    assert s.money[0] == 16
    assert s.actions == 1
    assert s.nprops[0] == 0
    assert s.boards[0] == []
    assert c in s.discards[PROPERTIES]
    assert s.step[c] == 0
    assert last_ledger(s) == (0, 11, "sell", c)


def test_sell_nothing_when_value_plus_modifier_not_positive():
    """§4.4: "(nothing if that is 0 or less)". Mansion_1 at its floor £3, modifier −3."""
    s = st(board=["Mansion_1"], steps={"Mansion_1": 5}, money=5, modifiers=(0, 0, 0, -3))
    n = len(s.ledger)
    do(s, "sell Mansion_1")
    assert s.money[0] == 5
    assert len(s.ledger) == n
    assert card_id("Mansion_1") in s.discards[PROPERTIES]


def test_unmaintained_house_depreciates_at_round_end():
    """§6.2: "Each house that was not maintained this round loses one step"; farms never."""
    s = st(board=["TownHouse_1", "ManorHouse_3", "Farm_3"], money=30, actions=1)
    do(s, "use TownHouse_1")
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert s.step[card_id("TownHouse_1")] == 0
    assert s.step[card_id("ManorHouse_3")] == 1
    assert s.step[card_id("Farm_3")] == 0


# ---------------------------------------------------------------------------------------------
# Training grounds


@pytest.mark.parametrize(
    "card,amount",
    [
        ("TrainingGround_1", 5),  # £1 per farm (3) + £1 per horse (2), §9 ruling
        ("TrainingGround_2", 4),  # £2 per horse
        ("TrainingGround_3", 6),  # £2 per farm
        ("TrainingGround_4", 5),  # £1 per farm + £1 per dog (2)
        ("TrainingGround_5", 4),  # £2 per dog
    ],
)
def test_training_ground_amounts(card, amount):
    """docs/CARDS.md §5.4 with §9: TrainingGround_1 counts horses; using one costs 1 action.
    Farms: Farm_1 (2 horses), Farm_7 (2 dogs), Farm_3 (none)."""
    s = st(
        board=["Farm_1", "Farm_7", "Farm_3", card],
        filled={"Farm_1": 2, "Farm_7": 2},
        money=20,
        actions=1,
    )
    do(s, f"use {card}")
    assert s.money[0] == 20 - amount
    assert s.actions == 0


def test_training_ground_needs_an_action():
    """§9: "using one costs 1 action"."""
    s = st(board=["Farm_3", "TrainingGround_3"], actions=0)
    assert legal_names(s) == ["pass"]


# ---------------------------------------------------------------------------------------------
# Special cards leave the game


@pytest.mark.parametrize("card", ["HecticDay_1", "CarriageRide_S", "Dinner_S"])
def test_special_event_goes_to_the_box(card):
    """§4.4: special cards "When discarded they leave the game"."""
    s = st(hand=[card], money=20)
    do(s, f"play {card}")
    c = card_id(card)
    assert c in s.box
    assert all(c not in d for d in s.discards)
    assert c not in s.special
