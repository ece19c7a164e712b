"""lastwill_env.cardref: card text from the catalogue (what `lastwill play` shows)."""

from __future__ import annotations

import pytest

from lastwill_env.cardref import CardNotFound, card_text, find_card, privilege_text
from lastwill_env.engine import CATALOGUE


def test_every_card_has_a_text_starting_with_its_name():
    for c in CATALOGUE.cards:
        text = card_text(c.id)
        assert text.startswith(c.name + ": ") or text.startswith(c.name + " ("), text
        assert card_text(c.name) == text == card_text(c)


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        (
            "Farm_3",
            ["farm, buy £8 + farm modifier (1 action)", "never depreciates", "£1", "dog -> £3"],
        ),
        ("TownHouse_2", ["town house", "value 17 > 15 > 13 > 11 > 8 > 5", "maintain 1 action: £3"]),
        ("Tailor", ["helper, play 1 action", "£3 more on theatre events and the opera errand"]),
        ("EstateAgent_3", ["selling a farm brings £2 less", "1 free purchase or sale of a farm"]),
        ("Steward_S1", ["1-crown", "2 free maintenances of farms"]),
        ("Ball_S", ["invest 2-7 actions", "7 -> £25"]),
        ("Dinner_8", ["spend £2", "add-ons guest +£2, guest +£2"]),
        ("TrainingGround_1", ["use 1 action: £1 per farm + £1 per horse on your farms"]),
        ("Reservation_5", ["use 0 actions: spend £1", "slots chef -> £2, chef -> £4"]),
        ("HecticDay_2", ["1 action + £2", "gain 2 actions"]),
        ("SchoolChum_1", ["use 0 actions: spend £1", "hand limit +2"]),
        ("Joker_1", ["any one companion"]),
        ("StartMoney_7", ["£130"]),
    ],
)
def test_card_text_states_the_numbers_of_the_data(name, parts):
    text = card_text(name)
    for part in parts:
        assert part in text, (part, text)


def test_privileges_only_for_helpers():
    assert privilege_text(find_card("Farm_1")) == ""
    assert privilege_text(find_card("OldFriend_1")) == "+1 action every round"


def test_find_card_is_forgiving_and_errors_name_close_matches():
    assert find_card("farm_3").name == "Farm_3" and find_card(" Farm 3 ").name == "Farm_3"
    with pytest.raises(CardNotFound, match="did you mean Farm_1"):
        find_card("farm")
    with pytest.raises(CardNotFound, match="Tailor"):
        find_card("Tialor")
    with pytest.raises(CardNotFound, match="card names look like"):
        find_card("zzzz")
