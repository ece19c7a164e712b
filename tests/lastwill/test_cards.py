"""Tests for the card catalogue (lastwill_env/engine/cards.py, lastwill_env/data/cards.json).

Numbers are spot-checked against the transcribed card facts (docs/CARDS.md §3, §4.1, §5) and the
counts against docs/RULES.md §2; docs/RULES.md §9 overrides (TrainingGround_1 counts horses).
"""

import copy
import json

import pytest

from lastwill_env.engine import cards as C
from lastwill_env.engine.cards import (
    CATALOGUE,
    COMPANIONS,
    PROPERTY_TYPES,
    CardDataError,
    Plan,
    load_catalogue,
    parse_catalogue,
)

HORSE, DOG, CHEF, GUEST = range(4)
FARM, TOWN, MANOR, MANSION = range(4)


def _expected_names():
    n = []
    n += [f"CarriageRide_{i}" for i in range(1, 6)] + [f"Theatre_{i}" for i in range(1, 5)]
    n += [f"BoatTrip_{i}" for i in range(1, 8)] + ["Soiree_1", "Soiree_2"]
    n += [f"Ball_{i}" for i in range(1, 4)] + [f"Dinner_{i}" for i in range(1, 11)]
    n += ["GentlemensClub_1", "GentlemensClub_2"] + [f"Reservation_{i}" for i in range(1, 7)]
    n += [f"Carriage_{i}" for i in range(1, 6)] + [f"TrainingGround_{i}" for i in range(1, 6)]
    n += ["Coachman_1", "Coachman_2", "EstateAgent_1", "EstateAgent_2", "EstateAgent_3"]
    n += [f"Gardener_{i}" for i in range(1, 4)] + [f"SchoolChum_{i}" for i in range(1, 5)]
    n += ["SeaDog"] + [f"Steward_{i}" for i in range(1, 4)] + ["Tailor", "Valet"]
    n += [f"Waiter_{i}" for i in range(1, 4)]
    n += [f"Farm_{i}" for i in range(1, 12)] + [f"TownHouse_{i}" for i in range(1, 5)]
    n += [f"ManorHouse_{i}" for i in range(1, 5)] + [f"Mansion_{i}" for i in range(1, 6)]
    for c in ("Horse", "Dog", "Chef", "Guest"):
        n += [f"{c}_{i}" for i in range(1, 6)]
    n += [
        "BreedersFair",
        "OldFriend_3",
        "OldFriend_4",
        "EstateAgent_S1",
        "Steward_S1",
        "Steward_S2",
        "WildParty",
        "HecticDay_1",
        "Ball_S",
        "OldFriend_2",
        "SchoolChum_S",
        "HecticDay_2",
        "HecticDay_3",
        "CarriageRide_S",
        "Dinner_S",
        "OldFriend_1",
        "EstateAgent_S2",
    ]
    n += ["Joker_1", "Joker_2"] + [f"StartMoney_{i}" for i in range(1, 8)]
    return n


def card(name):
    return CATALOGUE.cards[CATALOGUE.by_name[name]]


@pytest.fixture
def raw():
    with open(C.DEFAULT_PATH, encoding="utf-8") as f:
        return json.load(f)


def raw_card(data, name):
    for c in data["cards"]:
        if c.get("name") == name:
            return c
    raise KeyError(name)


# --- the real data ---------------------------------------------------------


def test_names_and_ids():
    assert [c.name for c in CATALOGUE.cards] == _expected_names()
    assert all(c.id == i for i, c in enumerate(CATALOGUE.cards))
    assert CATALOGUE.by_name == {c.name: c.id for c in CATALOGUE.cards}


def test_counts_rules_section_2():
    cat = CATALOGUE
    assert len(cat.cards) == 140
    assert cat.ids_in("events") == tuple(range(0, 31))
    assert cat.ids_in("helpers") == tuple(range(31, 70))
    assert cat.ids_in("properties") == tuple(range(70, 94))
    assert cat.ids_in("companions") == tuple(range(94, 114))
    assert cat.ids_in("special") == tuple(range(114, 131))
    assert cat.ids_in("joker") == (131, 132)
    assert cat.ids_in("will") == tuple(range(133, 140))
    helpers = [cat.cards[i] for i in cat.ids_in("helpers")]
    assert sum(c.category == "expense" for c in helpers) == 18
    assert sum(c.category == "helper" for c in helpers) == 21
    props = [cat.cards[i].prop_type for i in cat.ids_in("properties")]
    assert [props.count(t) for t in range(4)] == [11, 4, 4, 5]
    comps = [cat.cards[i].companion for i in cat.ids_in("companions")]
    assert [comps.count(t) for t in range(4)] == [5, 5, 5, 5]
    crowns = [cat.cards[i].crowns for i in cat.ids_in("special")]
    assert [crowns.count(k) for k in (1, 2, 3)] == [6, 5, 6]
    assert all(c.crowns == 0 for c in cat.cards if c.deck != "special")
    assert [cat.cards[i].money for i in cat.ids_in("will")] == [70, 80, 90, 100, 110, 120, 130]


def test_constants():
    assert COMPANIONS == ("horse", "dog", "chef", "guest")
    assert PROPERTY_TYPES == ("farm", "townhouse", "manor", "mansion")
    assert C.DECKS == ("events", "helpers", "properties", "companions")
    assert CATALOGUE.token_supply == (11, 10, 8, 6)
    assert CATALOGUE.modifiers == (-3, -2, 1, 3)
    assert CATALOGUE.opera_cost == 2 and CATALOGUE.hand_limit == 2
    assert CATALOGUE.extensions == 12
    assert CATALOGUE.extension_capacity == {2: 1, 3: 1, 4: 1, 5: 2}
    assert CATALOGUE.shared_top_spaces == {2: 2, 3: 2, 4: 0, 5: 0}


def test_property_spot_checks():
    f9 = card("Farm_9")
    assert f9.slots == ((DOG, 3), (DOG, 5), (DOG, 9))
    assert f9.values == (14,) and f9.upkeep == 2 and f9.prop_type == FARM
    assert not f9.is_house and f9.is_black
    m3 = card("Mansion_3")
    assert m3.values == (15, 13, 11, 9, 4) and m3.upkeep == 3 and m3.slots == ()
    assert m3.is_house and m3.prop_type == MANSION
    assert card("ManorHouse_1").slots == ((CHEF, 7), (GUEST, 10))
    assert card("TownHouse_2").values == (17, 15, 13, 11, 8, 5)
    assert card("TownHouse_4").prop_type == TOWN
    assert card("Farm_2").slots == ((DOG, 4), (HORSE, 7))
    for i in CATALOGUE.ids_in("properties"):
        p = CATALOGUE.cards[i]
        assert p.play_actions == 1 and p.use_actions == 1


def test_event_spot_checks():
    b2 = card("Ball_2")
    assert b2.ball == ((2, 4), (3, 6), (4, 8), (5, 12), (6, 15), (7, 22))
    assert b2.play_actions == 2 and b2.spend == 0 and b2.family == "party"
    assert card("Ball_S").ball == ((2, 4), (3, 6), (4, 10), (5, 13), (6, 17), (7, 25))
    assert card("Dinner_8").addons == ((GUEST, 2), (GUEST, 2))
    assert card("BoatTrip_1").addons == ((GUEST, 2), (DOG, 3), (CHEF, 2))
    assert card("BoatTrip_4").play_actions == 2 and card("BoatTrip_4").spend == 5
    assert card("Soiree_2").family == "party"
    assert card("Theatre_1").addons == ((HORSE, 3),)
    hd2 = card("HecticDay_2")
    assert (hd2.play_cost, hd2.gain_actions, hd2.family, hd2.crowns) == (2, 2, "", 3)
    assert card("BreedersFair").effect == "breeders_fair"
    assert card("WildParty").effect == "wild_party"
    assert card("CarriageRide_S").spend == 4 and card("Dinner_S").family == "dinner"
    assert all(c.use_actions == -1 for c in CATALOGUE.cards if c.is_event)


def test_expense_and_helper_spot_checks():
    assert card("TrainingGround_1").training == (1, 1, 0)  # RULES §9: horses
    assert card("TrainingGround_4").training == (1, 0, 1)
    assert all(card(f"TrainingGround_{i}").use_actions == 1 for i in range(1, 6))
    gc = card("GentlemensClub_1")
    assert (gc.family, gc.play_actions, gc.use_actions, gc.spend) == ("party", 2, 1, 5)
    assert card("Reservation_5").slots == ((CHEF, 2), (CHEF, 4))
    assert card("Coachman_2").play_actions == 2 and card("Coachman_2").bonus_amount == 2
    assert card("Tailor").bonus_tags == ("theatre", "opera")
    ea = card("EstateAgent_1")
    assert ea.buy_surcharge_types == (1, 2, 3) and ea.sale_reduction == 2
    assert card("EstateAgent_3").free_kind == "farm_deal"
    assert card("EstateAgent_3").sale_reduction_types == (FARM,)
    assert card("SchoolChum_1").hand_limit_bonus == 2 and card("SchoolChum_1").spend == 1
    assert card("SchoolChum_1").use_actions == 0
    assert card("Valet").use_actions == -1
    s1 = card("Steward_S1")
    assert (s1.play_actions, s1.free_kind, s1.free_per_round) == (2, "farm_maint", 2)
    assert s1.deck == "special"
    assert s1.category == "helper" and s1.is_black and s1.is_special
    sc = card("SchoolChum_S")
    assert (sc.extra_draw, sc.extra_draw_count, sc.spend, sc.use_actions) == ("any", 2, 2, 0)
    assert card("OldFriend_1").extra_actions == 1 and card("OldFriend_1").spend == 2
    assert card("EstateAgent_S2").sale_reduction == 4


def test_plans_and_offer_schedule():
    assert CATALOGUE.plans[2] is CATALOGUE.plans[3]
    assert len(CATALOGUE.plans[3]) == 6 and len(CATALOGUE.plans[4]) == 8
    assert CATALOGUE.plans[2][3] == Plan(order=4, cards=7, errand_boys=1, actions=2)
    assert CATALOGUE.plans[5][6] == Plan(order=7, cards=0, errand_boys=1, actions=4)
    assert [len(CATALOGUE.offer_schedule[n]) for n in (2, 3, 4, 5)] == [7, 8, 8, 9]
    assert CATALOGUE.offer_schedule[5][8] == ("E",) * 7
    assert CATALOGUE.offer_schedule[3][7] == ("P", "P", "E", "E", "E", "E", "E")
    assert CATALOGUE.offer_schedule[2][2] == ("S", "S", "S", "J", "J", "J", "J")
    assert CATALOGUE.offer_schedule[4][0] == ("P", "P", "E", "E", "E", "E", "E")


def test_load_default_cached_and_explicit_path(tmp_path, raw):
    assert load_catalogue() is load_catalogue() is CATALOGUE
    p = tmp_path / "cards.json"
    p.write_text(json.dumps(raw), encoding="utf-8")
    other = load_catalogue(p)
    assert other is not CATALOGUE and other.cards == CATALOGUE.cards


def test_round_trip_parse(raw):
    assert parse_catalogue(copy.deepcopy(raw)).cards == CATALOGUE.cards


# --- malformed data --------------------------------------------------------


def _bad(data, *needles):
    with pytest.raises(CardDataError) as ei:
        parse_catalogue(data)
    msg = str(ei.value)
    for n in needles:
        assert n in msg, msg
    return msg


def test_missing_field(raw):
    del raw_card(raw, "Farm_3")["values"]
    _bad(raw, "'Farm_3'", "'values'", "missing")


def test_empty_values_message(raw):
    raw_card(raw, "Farm_3")["values"] = []
    msg = _bad(raw)
    assert msg == (
        "card 'Farm_3' field 'values': expected a non-empty list of non-negative integers, got []"
    )


def test_wrong_type(raw):
    raw_card(raw, "Dinner_4")["spend"] = "2"
    _bad(raw, "'Dinner_4'", "'spend'", "integer")
    raw_card(raw, "Dinner_4")["spend"] = True
    _bad(raw, "'Dinner_4'", "'spend'")


def test_negative_number(raw):
    raw_card(raw, "Carriage_2")["spend"] = -1
    _bad(raw, "'Carriage_2'", "'spend'", "non-negative")


def test_bad_family(raw):
    raw_card(raw, "Theatre_3")["family"] = "opera"
    _bad(raw, "'Theatre_3'", "'family'")


def test_bad_companion_name(raw):
    raw_card(raw, "Farm_1")["slots"][0][0] = "cat"
    _bad(raw, "'Farm_1'", "'slots'")


def test_unknown_field(raw):
    raw_card(raw, "Tailor")["colour"] = "black"
    _bad(raw, "'Tailor'", "'colour'", "unknown")


def test_field_not_allowed_for_category(raw):
    raw_card(raw, "Soiree_1")["values"] = [3]
    _bad(raw, "'Soiree_1'", "'values'", "not allowed")


def test_increasing_value_track(raw):
    raw_card(raw, "Mansion_3")["values"] = [15, 13, 14, 9, 4]
    _bad(raw, "'Mansion_3'", "'values'", "non-increasing")


def test_slot_totals_not_increasing(raw):
    raw_card(raw, "Farm_9")["slots"] = [["dog", 3], ["dog", 3], ["dog", 9]]
    _bad(raw, "'Farm_9'", "'slots'")


def test_ball_rows_not_increasing(raw):
    raw_card(raw, "Ball_1")["ball"] = [[2, 4], [3, 6], [4, 5], [5, 13]]
    _bad(raw, "'Ball_1'", "'ball'")


def test_duplicate_name(raw):
    raw_card(raw, "Waiter_2")["name"] = "Waiter_1"
    _bad(raw, "'Waiter_1'", "'name'", "unique")


def test_wrong_deck_count(raw):
    raw["cards"] = [c for c in raw["cards"] if c["name"] != "Dinner_10"]
    _bad(raw, "'deck'", "31", "'events'", "30")


def test_wrong_property_type_count(raw):
    raw_card(raw, "Mansion_5")["prop_type"] = "manor"
    _bad(raw, "'prop_type'", "manor")


def test_wrong_deck_for_category(raw):
    raw_card(raw, "Farm_2")["deck"] = "helpers"
    _bad(raw, "'Farm_2'", "'deck'")


def test_card_without_name_named_by_index(raw):
    del raw["cards"][5]["name"]
    _bad(raw, "card #5", "'name'")


def test_special_crowns_out_of_range(raw):
    raw_card(raw, "WildParty")["crowns"] = 4
    _bad(raw, "'WildParty'", "'crowns'")


def test_order_enforced(raw):
    cs = raw["cards"]
    i, j = [k for k, c in enumerate(cs) if c["name"] in ("Farm_1", "Mansion_1")]
    cs[i], cs[j] = cs[j], cs[i]
    _bad(raw, "'deck'", "ordered")


def test_board_plan_shape(raw):
    raw["board"]["plans"]["4-5"].pop()
    _bad(raw, "plans.4-5", "8")


def test_board_plan_errand_boys(raw):
    raw["board"]["plans"]["2-3"][0]["errand_boys"] = 3
    _bad(raw, "plans.2-3[0].errand_boys")


def test_board_offer_schedule_shape(raw):
    raw["board"]["offer_schedule"]["5"].pop()
    _bad(raw, "offer_schedule.5", "9")


def test_board_offer_schedule_codes(raw):
    raw["board"]["offer_schedule"]["2"][3] = "PPPEEEX"
    _bad(raw, "offer_schedule.2[3]")


def test_board_unknown_key(raw):
    raw["board"]["bank"] = 1000
    _bad(raw, "'board.bank'", "unknown")


def test_invalid_json_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(CardDataError, match="invalid JSON"):
        load_catalogue(p)
