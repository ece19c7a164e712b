"""Scenario tests of every card family, helper privilege (docs/CARDS.md §5.5) and special card
(docs/CARDS.md §5.7), with the §9 ruling on helper price changes: "applied automatically in the
direction that serves the goal — more spent, less received — whenever affordable".
"""

import pytest

from lastwill_env.engine import game as G
from lastwill_env.engine.builders import card_id, do, legal_names, put_on_board, turn_state
from lastwill_env.engine.cards import CATALOGUE

EVENTS, HELPERS, PROPERTIES, COMPANION_DECK = range(4)
HORSE, DOG, CHEF, GUEST = range(4)
ZERO = (0, 0, 0, 0)


def st(hand=(), board=(), money=50, actions=2, modifiers=ZERO, **kw):
    return turn_state(
        4, 0, hand=hand, board=board, money=money, actions=actions, modifiers=modifiers, **kw
    )


def drive(s, until):
    """Play the first legal action until `until(s)` holds (passing every turn)."""
    for _ in range(2000):
        if until(s):
            return s
        s.apply_action(s.legal_actions()[0])
    raise AssertionError("condition never reached")


def to_phase(phase, seed=0):
    return drive(G.new_game(4, seed), lambda s: s.phase == phase)


# ---------------------------------------------------------------------------------------------
# Event families (docs/CARDS.md §5.2)


@pytest.mark.parametrize(
    "card,acts,spent",
    [
        ("CarriageRide_3", 1, 3),
        ("Theatre_4", 1, 3),
        ("BoatTrip_7", 2, 4),
        ("Soiree_1", 1, 2),
        ("Dinner_2", 1, 2),
    ],
)
def test_event_family_base_costs(card, acts, spent):
    """docs/CARDS.md §5.2: one event of each family, base actions and £ without add-ons."""
    s = st(hand=[card], money=20, actions=2)
    do(s, f"play {card}")
    if s.phase == G.ADDON_PHASE:  # BoatTrip_7 shows a guest add-on: skip it
        do(s, "pass")
    assert (s.money[0], s.actions) == (20 - spent, 2 - acts)


def test_carriage_ride_guest_addon():
    """docs/CARDS.md §5.2 CarriageRide_4: £2, guest +2."""
    s = st(hand=["CarriageRide_4", "Guest_3"], money=20)
    do(s, "play CarriageRide_4")
    do(s, "addon_card")
    assert s.money[0] == 16


# ---------------------------------------------------------------------------------------------
# Helpers (docs/CARDS.md §5.5)


@pytest.mark.parametrize(
    "helpers,spent_ride,spent_expense",
    [
        ((), 2, 2),
        (("Coachman_1",), 3, 3),
        (("Coachman_2",), 4, 4),
        (("Coachman_1", "Coachman_2"), 5, 5),
    ],
)
def test_coachman_carriage_events_and_expenses(helpers, spent_ride, spent_expense):
    """Coachman_1/_2: "Each carriage use (carriage-ride event or carriage expense) may spend
    £1 / £2 more". CarriageRide_1 £2; Carriage_3 expense £2."""
    s = st(hand=["CarriageRide_1"], board=[*helpers, "Carriage_3"], money=30)
    do(s, "play CarriageRide_1")
    assert s.money[0] == 30 - spent_ride
    do(s, "use Carriage_3")
    assert s.money[0] == 30 - spent_ride - spent_expense


def test_coachman_does_not_touch_other_families():
    """Coachman: only carriage uses. Dinner_1 stays £2."""
    s = st(hand=["Dinner_1"], board=["Coachman_2"], money=30)
    do(s, "play Dinner_1")
    assert s.money[0] == 28


@pytest.mark.parametrize("agents,buy,sale", [(1, 17, 13), (2, 19, 11)])
def test_estate_agent_house_buy_plus_two_sale_minus_two(agents, buy, sale):
    """EstateAgent_1/_2 shift a house price by £2, applied per §9 as more spent / less received.
    TownHouse_1 value 15 (modifier 0)."""
    board = ["EstateAgent_1", "EstateAgent_2"][:agents]
    s = st(hand=["TownHouse_1"], board=[*board, "TownHouse_3"], money=40, actions=2)
    do(s, "play TownHouse_1")
    assert s.money[0] == 40 - buy
    do(s, "sell TownHouse_3")  # value 13
    assert s.money[0] == 40 - buy + 13 - 2 * agents
    assert sale == 15 - 2 * agents


def test_estate_agent_surcharge_skipped_when_unaffordable():
    """§9: "whenever affordable" — with £16 one £2 surcharge does not fit: TownHouse_1 costs £15."""
    s = st(hand=["TownHouse_1"], board=["EstateAgent_1"], money=16)
    do(s, "play TownHouse_1")
    assert s.money[0] == 1


def test_estate_agent_1_leaves_farms_alone():
    """EstateAgent_1/_2 concern houses (non-farm) only."""
    s = st(hand=["Farm_3"], board=["EstateAgent_1", "Farm_4"], money=20)
    do(s, "play Farm_3")
    assert s.money[0] == 12
    do(s, "sell Farm_4")
    assert s.money[0] == 22


def test_estate_agent_3_one_free_farm_deal_per_round_and_farm_sale_minus_two():
    """EstateAgent_3: "Once/round: one farm buy-or-sell without using an action. In addition,
    any farm buy or sale may be priced £2 lower" (§9: a sale receives £2 less)."""
    s = st(hand=["Farm_3"], board=["EstateAgent_3", "Farm_1"], money=20, actions=0)
    assert legal_names(s) == ["pass", "play Farm_3", "sell Farm_1"]
    do(s, "play Farm_3")
    assert (s.money[0], s.actions) == (12, 0)  # buy: no discount, no action
    assert s.priv[card_id("EstateAgent_3")] == 0
    assert legal_names(s) == ["pass"]  # the free deal is spent
    s.actions = 1
    s._legal = None
    do(s, "sell Farm_1")
    assert (s.money[0], s.actions) == (12 + 14, 0)


def test_estate_agent_3_does_not_touch_houses():
    """EstateAgent_3 is a farm privilege: a house sale costs an action and gets full value."""
    s = st(board=["EstateAgent_3", "TownHouse_3"], money=0, actions=0)
    assert legal_names(s) == ["pass"]
    s.actions = 1
    s._legal = None
    do(s, "sell TownHouse_3")
    assert (s.money[0], s.actions) == (13, 0)


@pytest.mark.parametrize(
    "gardener,town,manor,mansion",
    [("Gardener_1", 6, 7, 3), ("Gardener_2", 3, 7, 6), ("Gardener_3", 6, 4, 6)],
)
def test_gardener_maintenance_plus_three(gardener, town, manor, mansion):
    """Gardener_1: town/manor, _2: mansion/manor, _3: mansion/town — maintaining may cost £3
    more. Upkeeps: TownHouse_1 £3, ManorHouse_3 £4, Mansion_1 £3; Farm_3 £1 untouched."""
    s = st(
        board=[gardener, "TownHouse_1", "ManorHouse_3", "Mansion_1", "Farm_3"],
        money=40,
        actions=4,
    )
    do(s, "use TownHouse_1")
    assert s.money[0] == 40 - town
    do(s, "use ManorHouse_3")
    assert s.money[0] == 40 - town - manor
    do(s, "use Mansion_1")
    assert s.money[0] == 40 - town - manor - mansion
    do(s, "use Farm_3")
    assert s.money[0] == 40 - town - manor - mansion - 1


def test_gardener_bonus_skipped_when_unaffordable():
    """§9 "whenever affordable": £5 with a property pays TownHouse_1's £3, not £6."""
    s = st(board=["Gardener_1", "TownHouse_1"], money=5)
    do(s, "use TownHouse_1")
    assert s.money[0] == 2


def test_school_chum_hand_limit_plus_two():
    """SchoolChum_1/_2: "Hand limit +2" (base 2)."""
    s = st(board=["SchoolChum_1"])
    assert G.hand_limit(s, 0) == 4
    s = st(board=["SchoolChum_1", "SchoolChum_2"])
    assert G.hand_limit(s, 0) == 6
    assert G.hand_limit(st(), 0) == 2


def test_school_chum_keeps_four_cards_at_round_end():
    """§6.1 discard down to the hand limit, which SchoolChum_1 raises to 4."""
    hand = ["Dinner_1", "Dinner_2", "Farm_3", "Farm_4"]
    s = st(hand=hand, board=["SchoolChum_1"])
    seen = []
    drive(s, lambda x: x.round == 2 or (x.phase == G.DISCARD_PHASE and seen.append(x.discard_seq)))
    assert all(0 not in seq for seq in seen)
    assert sorted(s.hands[0]) == sorted(card_id(c) for c in hand)
    s = st(hand=hand)
    drive(s, lambda x: x.phase == G.DISCARD_PHASE and 0 in x.discard_seq)


def test_school_chum_enjoy_one_pound_at_zero_actions():
    """SchoolChum_1/_2: "May also be enjoyed for £1 at 0 actions, once/round"."""
    s = st(board=["SchoolChum_2"], money=10, actions=0)
    assert legal_names(s) == ["pass", "use SchoolChum_2"]
    do(s, "use SchoolChum_2")
    assert (s.money[0], s.actions) == (9, 0)
    assert legal_names(s) == ["pass"]


def _zero_card_plan(s):
    plans = CATALOGUE.plans[s.n]
    return next(f"plan space {p + 1}" for p in range(len(plans)) if plans[p].cards == 0)


@pytest.mark.parametrize("chum,deck", [("SchoolChum_3", "companions"), ("SchoolChum_4", "events")])
def test_school_chum_extra_companion_or_event_draws(chum, deck):
    """SchoolChum_3/_4: "When drawing plan cards, may draw up to 3 extra companion / event
    cards" (optional, decided before any card is seen)."""
    s = to_phase(G.PLAN_PHASE)
    seat = s.cur
    put_on_board(s, seat, [chum])
    before = len(s.hands[seat])
    do(s, _zero_card_plan(s))
    assert legal_names(s) == ["pass", f"draw from {deck}"]
    do(s, f"draw from {deck}")
    do(s, f"draw from {deck}")
    do(s, f"draw from {deck}")
    assert s.cur != seat
    new = s.hands[seat][before:]
    assert len(new) == 3
    want = "companion" if deck == "companions" else "event"
    assert all(G.CARDS[c].category == want for c in new)


def test_school_chum_extra_draws_may_stop():
    """SchoolChum_3 draws are optional: pass after one companion."""
    s = to_phase(G.PLAN_PHASE)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_3"])
    before = len(s.hands[seat])
    do(s, _zero_card_plan(s))
    do(s, "draw from companions")
    do(s, "pass")
    assert len(s.hands[seat]) == before + 1


@pytest.mark.parametrize(
    "card,spent",
    [("BoatTrip_4", 7), ("Soiree_1", 4), ("Soiree_2", 5)],
)
def test_sea_dog_boat_trips_and_parties(card, spent):
    """SeaDog: "Boat trips and parties (soirée, ball, club) may spend £2 more"."""
    s = st(hand=[card], board=["SeaDog"], money=20, actions=2)
    do(s, f"play {card}")
    assert s.money[0] == 20 - spent


def test_sea_dog_ball_and_club():
    """SeaDog: the ball (£4 at 2 actions → £6) and the club expense (£5 → £7)."""
    s = st(hand=["Ball_3"], board=["SeaDog", "GentlemensClub_2"], money=20, actions=3)
    do(s, "play Ball_3")
    do(s, "ball invest 2 actions")
    assert s.money[0] == 14
    do(s, "use GentlemensClub_2")
    assert (s.money[0], s.actions) == (7, 0)


def test_sea_dog_does_not_touch_dinners():
    s = st(hand=["Dinner_1"], board=["SeaDog"], money=20)
    do(s, "play Dinner_1")
    assert s.money[0] == 18


def test_steward_1_free_house_maintenance_once_per_round():
    """Steward_1: "Once/round: one free maintenance action for a house (non-farm)"."""
    s = st(board=["Steward_1", "TownHouse_1", "ManorHouse_3", "Farm_3"], money=20, actions=0)
    assert legal_names(s) == ["pass", "use TownHouse_1", "use ManorHouse_3"]
    do(s, "use ManorHouse_3")
    assert (s.money[0], s.actions) == (16, 0)  # the upkeep is still paid
    assert legal_names(s) == ["pass"]


@pytest.mark.parametrize("steward", ["Steward_2", "Steward_3"])
def test_steward_free_farm_maintenance(steward):
    """Steward_2/_3: "Once/round: one free maintenance action for a farm"."""
    s = st(board=[steward, "Farm_1", "Farm_2", "TownHouse_1"], money=20, actions=1)
    do(s, "use Farm_1")
    assert (s.money[0], s.actions) == (17, 1)
    do(s, "use Farm_2")
    assert (s.money[0], s.actions) == (15, 0)


def test_two_farm_stewards_stack():
    """Steward_2 and Steward_3: two free farm maintenances per round."""
    s = st(board=["Steward_2", "Steward_3", "Farm_1", "Farm_2", "Farm_3"], money=20, actions=0)
    do(s, "use Farm_1")
    do(s, "use Farm_2")
    assert (s.money[0], s.actions) == (15, 0)
    assert legal_names(s) == ["pass"]


def test_tailor_theatre_plus_three():
    """Tailor: "Theatre events ... may spend £3 more". Theatre_1 £2 + horse 3 + Tailor 3."""
    s = st(hand=["Theatre_1", "Horse_2", "Theatre_3"], board=["Tailor"], money=30, actions=2)
    do(s, "play Theatre_1")
    do(s, "addon_card")
    assert s.money[0] == 22
    do(s, "play Theatre_3")
    assert s.money[0] == 16


def test_tailor_opera_plus_three():
    """Tailor: "... and the Opera errand may spend £3 more" (opera £2 → £5)."""
    s = to_phase(G.ERRAND_PHASE)
    seat = s.cur
    put_on_board(s, seat, ["Tailor"])
    m = s.money[seat]
    do(s, "errand opera")
    assert s.money[seat] == m - 5
    assert s.ledger[-1] == (seat, -5, "opera", -1)


def test_opera_without_tailor_costs_two():
    """§4.3 Opera: spend £2."""
    s = to_phase(G.ERRAND_PHASE)
    seat = s.cur
    m = s.money[seat]
    do(s, "errand opera")
    assert s.money[seat] == m - 2


def test_valet_extra_action_only_for_events():
    """Valet: "Once/round: +1 action usable only for playing an event"."""
    s = st(
        hand=["Dinner_1", "Dinner_2", "Waiter_1", "Farm_3", "Horse_1"],
        board=["Valet", "Farm_1", "Reservation_3"],
        money=30,
        actions=0,
    )
    assert legal_names(s) == ["pass", "play Dinner_1", "play Dinner_2"]
    do(s, "play Dinner_1")
    assert (s.money[0], s.actions) == (28, 0)
    assert legal_names(s) == ["pass"]


def test_valet_completes_a_boat_trip():
    """Valet: 1 action left + the valet's event action pay a 2-action boat trip."""
    s = st(hand=["BoatTrip_4"], board=["Valet"], money=30, actions=1)
    do(s, "play BoatTrip_4")
    assert (s.money[0], s.actions) == (25, 0)


def test_valet_action_spent_first():
    """game.py: free actions of helpers are spent before the action marker."""
    s = st(hand=["Dinner_1"], board=["Valet"], money=30, actions=2)
    do(s, "play Dinner_1")
    assert s.actions == 2
    assert s.priv[card_id("Valet")] == 0


@pytest.mark.parametrize("waiters,spent", [(1, 3), (2, 4), (3, 5)])
def test_waiters_dinner_plus_one_each_stack(waiters, spent):
    """Waiter_1/_2/_3: "Dinners (dinner events and restaurant-reservation expenses) may spend
    £1 more"; bonuses stack (docs/CARDS.md §5.5)."""
    board = ["Waiter_1", "Waiter_2", "Waiter_3"][:waiters]
    s = st(hand=["Dinner_3"], board=[*board, "Reservation_2"], money=30)
    do(s, "play Dinner_3")
    assert s.money[0] == 30 - spent
    do(s, "use Reservation_2")
    assert s.money[0] == 30 - 2 * spent


def test_waiter_with_dinner_8_guests():
    """Waiter applies once per use: Dinner_8 + 2 guests £6 + £1 = £7."""
    s = st(hand=["Dinner_8", "Guest_1", "Joker_2"], board=["Waiter_2"], money=30)
    do(s, "play Dinner_8")
    do(s, "addon_card")
    do(s, "addon_joker")
    assert s.money[0] == 23


def test_bonuses_skipped_when_unaffordable_with_property():
    """§9: "more spent ... whenever affordable": with £3 and a property, Dinner_1 £2 + one waiter
    = £3; the other two waiters are skipped."""
    s = st(hand=["Dinner_1"], board=["Waiter_1", "Waiter_2", "Waiter_3", "Farm_3"], money=3)
    do(s, "play Dinner_1")
    assert s.money[0] == 0


def test_bonuses_without_property_run_into_debt():
    """§5: no property, debt allowed: all three waiters add their £1 (£5 from £3)."""
    s = st(hand=["Dinner_1"], board=["Waiter_1", "Waiter_2", "Waiter_3"], money=3)
    do(s, "play Dinner_1")
    assert s.money[0] == -2


# ---------------------------------------------------------------------------------------------
# Special cards (docs/CARDS.md §5.7)


def test_breeders_fair_attaches_two_companions_without_actions():
    """BreedersFair: "Attach up to two horse/dog companions from your hand to your farms without
    extra actions"."""
    s = st(
        hand=["BreedersFair", "Dog_1", "Horse_1", "Horse_2", "Chef_1"],
        board=["Farm_2", "Farm_1", "TownHouse_4"],
        money=20,
        actions=1,
    )
    do(s, "play BreedersFair")
    assert s.phase == G.BREED_PHASE
    assert s.actions == 0
    assert legal_names(s) == ["pass", "attach_card Farm_2", "attach_card Farm_1"]
    do(s, "attach_card Farm_2")  # dog
    do(s, "attach_card Farm_2")  # horse
    assert s.phase == G.TURN_PHASE
    assert s.filled[card_id("Farm_2")] == 2
    assert s.filled[card_id("Farm_1")] == 0
    assert s.filled[card_id("TownHouse_4")] == 0
    assert (s.tokens[HORSE], s.tokens[DOG]) == (10, 9)
    assert sorted(s.hands[0]) == sorted([card_id("Horse_2"), card_id("Chef_1")])
    assert (s.money[0], s.actions) == (20, 0)
    assert card_id("BreedersFair") in s.box


def test_breeders_fair_may_stop_early_and_uses_jokers():
    """BreedersFair: "up to two" — one joker on a farm, then pass."""
    s = st(hand=["BreedersFair", "Joker_1"], board=["Farm_6"], actions=1)
    do(s, "play BreedersFair")
    assert legal_names(s) == ["pass", "attach_joker Farm_6"]
    do(s, "attach_joker Farm_6")
    assert s.phase == G.TURN_PHASE  # Farm_6 has one slot only
    assert s.filled[card_id("Farm_6")] == 1


def test_breeders_fair_without_farms_does_nothing():
    s = st(hand=["BreedersFair", "Horse_1"], board=["TownHouse_1"], actions=1)
    do(s, "play BreedersFair")
    assert s.phase == G.TURN_PHASE
    assert s.hands[0] == [card_id("Horse_1")]


@pytest.mark.parametrize("friend", ["OldFriend_1", "OldFriend_2", "OldFriend_3", "OldFriend_4"])
def test_old_friend_adds_an_action_on_later_turns(friend):
    """OldFriend_1..4: "+1 action every round"; game.py: added when the action marker is set at
    the start of a turn (so not in the turn it is played)."""
    s = st(hand=[friend], money=30, actions=2)
    do(s, f"play {friend}")
    assert s.actions == 1
    drive(s, lambda x: x.round == 2 and x.phase == G.TURN_PHASE and x.cur == 0)
    plan = CATALOGUE.plans[4][s.plans[0]]
    assert s.actions == plan.actions + 1


@pytest.mark.parametrize("friend,spent", [("OldFriend_1", 2), ("OldFriend_2", 1)])
def test_old_friend_enjoy(friend, spent):
    """OldFriend_1 enjoy £2, OldFriend_2 enjoy £1, both at 0 actions."""
    s = st(board=[friend], money=10, actions=0)
    assert legal_names(s) == ["pass", f"use {friend}"]
    do(s, f"use {friend}")
    assert (s.money[0], s.actions) == (10 - spent, 0)


@pytest.mark.parametrize("friend", ["OldFriend_3", "OldFriend_4"])
def test_old_friend_3_4_have_no_enjoy(friend):
    s = st(board=[friend], money=10, actions=2)
    assert legal_names(s) == ["pass"]


def test_estate_agent_s1_two_free_house_deals_per_round():
    """EstateAgent_S1: "Once/round: two free buy/sell actions for houses (non-farm)"."""
    s = st(
        hand=["TownHouse_1", "Mansion_2", "Farm_3"],
        board=["EstateAgent_S1", "ManorHouse_4"],
        money=40,
        actions=1,
    )
    do(s, "play TownHouse_1")
    assert (s.money[0], s.actions) == (25, 1)
    do(s, "sell ManorHouse_4")
    assert (s.money[0], s.actions) == (35, 1)
    assert s.priv[card_id("EstateAgent_S1")] == 0
    do(s, "play Mansion_2")
    assert (s.money[0], s.actions) == (27, 0)  # third deal costs the action


def test_estate_agent_s1_not_for_farms():
    s = st(hand=["Farm_3"], board=["EstateAgent_S1"], money=40, actions=0)
    assert legal_names(s) == ["pass"]


def test_steward_s1_two_free_farm_maintenances():
    """Steward_S1: "Once/round: two free farm-maintenance actions"."""
    s = st(board=["Steward_S1", "Farm_1", "Farm_2", "Farm_3", "TownHouse_1"], money=20, actions=0)
    assert legal_names(s) == ["pass", "use Farm_1", "use Farm_2", "use Farm_3"]
    do(s, "use Farm_1")
    do(s, "use Farm_3")
    assert (s.money[0], s.actions) == (16, 0)
    assert legal_names(s) == ["pass"]


def test_steward_s2_free_house_maintenance_and_enjoy():
    """Steward_S2: "Once/round: one free house-maintenance action"; enjoy £1, 0 actions."""
    s = st(board=["Steward_S2", "Mansion_4", "Farm_3"], money=20, actions=0)
    assert legal_names(s) == ["pass", "use Steward_S2", "use Mansion_4"]
    do(s, "use Mansion_4")
    do(s, "use Steward_S2")
    assert (s.money[0], s.actions) == (17, 0)
    assert legal_names(s) == ["pass"]


def test_wild_party_three_steps_same_house_allowed_stops_at_floor():
    """WildParty: "Three depreciation steps spread over your houses (same house may take
    several)"; a house at its last step cannot go lower."""
    s = st(hand=["WildParty"], board=["TownHouse_3", "Mansion_2", "Farm_3"], money=20, actions=1)
    do(s, "play WildParty")
    assert s.phase == G.WILD_PHASE
    assert legal_names(s) == ["wild_party TownHouse_3", "wild_party Mansion_2"]
    do(s, "wild_party TownHouse_3")
    do(s, "wild_party TownHouse_3")
    assert legal_names(s) == ["wild_party Mansion_2"]  # TownHouse_3 at its floor (£11)
    do(s, "wild_party Mansion_2")
    assert s.phase == G.TURN_PHASE
    assert s.step[card_id("TownHouse_3")] == 2
    assert s.step[card_id("Mansion_2")] == 1
    assert s.step[card_id("Farm_3")] == 0
    assert (s.money[0], s.actions) == (20, 0)
    assert card_id("WildParty") in s.box


def test_wild_party_ends_when_no_house_can_lose_value():
    s = st(hand=["WildParty"], board=["Mansion_2"], actions=1)
    do(s, "play WildParty")
    do(s, "wild_party Mansion_2")
    assert s.phase == G.TURN_PHASE
    assert s.step[card_id("Mansion_2")] == 1
    s = st(hand=["WildParty"], board=["Farm_3"], actions=1)
    do(s, "play WildParty")
    assert s.phase == G.TURN_PHASE


@pytest.mark.parametrize("card", ["HecticDay_1", "HecticDay_3"])
def test_hectic_day_gain_three_actions(card):
    """HecticDay_1/_3: "Gain 3 actions now (net +2)"."""
    s = st(hand=[card], money=10, actions=1)
    do(s, f"play {card}")
    assert (s.money[0], s.actions) == (10, 3)


def test_hectic_day_2_costs_two_pounds_gains_two_actions():
    """HecticDay_2: 1 action + £2, "Gain 2 actions now (net +1)"."""
    s = st(hand=["HecticDay_2"], money=10, actions=1)
    do(s, "play HecticDay_2")
    assert (s.money[0], s.actions) == (8, 2)
    assert s.ledger[-1] == (0, -2, "event", card_id("HecticDay_2"))


def test_hectic_day_2_unaffordable_with_property():
    s = st(hand=["HecticDay_2"], board=["Farm_3"], money=1, actions=1)
    assert "play HecticDay_2" not in legal_names(s)


def test_ball_s_table():
    """Ball_S: £4 … £25 for 2 … 7 actions (docs/CARDS.md §5.3)."""
    s = st(hand=["Ball_S"], money=30, actions=7)
    do(s, "play Ball_S")
    assert legal_names(s) == [f"ball invest {k} actions" for k in range(2, 8)]
    do(s, "ball invest 7 actions")
    assert (s.money[0], s.actions) == (5, 0)
    assert card_id("Ball_S") in s.box
    s = st(hand=["Ball_S"], money=30, actions=6)
    do(s, "play Ball_S")
    do(s, "ball invest 6 actions")
    assert s.money[0] == 13


def test_carriage_ride_s_with_coachman():
    """CarriageRide_S: spend £4 (carriage): + Coachman_2 £2 = £6."""
    s = st(hand=["CarriageRide_S"], board=["Coachman_2"], money=10, actions=1)
    do(s, "play CarriageRide_S")
    assert (s.money[0], s.actions) == (4, 0)


def test_dinner_s_with_waiter():
    """Dinner_S: spend £4 (dinner): + Waiter_1 £1 = £5; without: £4."""
    s = st(hand=["Dinner_S"], board=["Waiter_1"], money=10, actions=1)
    do(s, "play Dinner_S")
    assert s.money[0] == 5
    s = st(hand=["Dinner_S"], money=10, actions=1)
    do(s, "play Dinner_S")
    assert s.money[0] == 6


def test_school_chum_s_two_extra_plan_draws():
    """SchoolChum_S: "Draw 2 extra cards when you draw plan cards" (any normal decks)."""
    s = to_phase(G.PLAN_PHASE)
    seat = s.cur
    put_on_board(s, seat, ["SchoolChum_S"])
    before = len(s.hands[seat])
    do(s, _zero_card_plan(s))
    assert legal_names(s) == [
        "draw from events",
        "draw from helpers",
        "draw from properties",
        "draw from companions",
    ]
    do(s, "draw from properties")
    do(s, "draw from properties")
    new = s.hands[seat][before:]
    assert len(new) == 2
    assert all(G.CARDS[c].category == "property" for c in new)


def test_school_chum_s_enjoy_two_pounds():
    s = st(board=["SchoolChum_S"], money=10, actions=0)
    do(s, "use SchoolChum_S")
    assert (s.money[0], s.actions) == (8, 0)


def test_estate_agent_s2_house_sale_four_less_buy_unchanged():
    """EstateAgent_S2: "Buying or selling a house may be done at £4 below its price" — §9: only
    the sale (less received); never a cheaper purchase."""
    s = st(hand=["TownHouse_1"], board=["EstateAgent_S2", "ManorHouse_3", "Farm_3"], money=20)
    do(s, "play TownHouse_1")
    assert s.money[0] == 5
    do(s, "sell ManorHouse_3")
    assert s.money[0] == 21
    s.actions = 1
    s._legal = None
    do(s, "sell Farm_3")
    assert s.money[0] == 29


def test_estate_agent_s2_sale_floor_zero():
    """§4.4: a sale receives nothing if the price is 0 or less: Mansion_1 floor £3 − 4."""
    s = st(board=["EstateAgent_S2", "Mansion_1"], steps={"Mansion_1": 5}, money=2, actions=1)
    do(s, "sell Mansion_1")
    assert s.money[0] == 2


def test_valet_action_counts_for_a_ball_investment():
    """Valet: its event action adds to a Ball investment: 2 actions + valet = invest 3 (£6)."""
    s = st(hand=["Ball_1"], board=["Valet"], money=30, actions=2)
    do(s, "play Ball_1")
    assert legal_names(s) == ["ball invest 2 actions", "ball invest 3 actions"]
    do(s, "ball invest 3 actions")
    assert (s.money[0], s.actions) == (24, 0)
    assert s.priv[card_id("Valet")] == 0
