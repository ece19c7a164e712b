"""GameState.to_dict / from_dict: exact round trips, and every malformed or unreachable state
refused with a StateError naming the field (docs/games/MONEY.md §10.2)."""

from __future__ import annotations

import json
import random

import pytest
from test_money_support import arrange, bid_all, coin, note, random_game

from money_env.engine import (
    BID_PHASE,
    EXCHANGE_PHASE,
    GAME_OVER,
    GameState,
    StateError,
    apply_action,
    legal_actions,
    new_game,
    tables,
    validate,
)
from money_env.engine.cards import bluff_of


@pytest.mark.parametrize("n", [3, 4, 5])
def test_round_trip_through_json_at_every_kind_of_point(n: int) -> None:
    s, states = random_game(n, 100 + n, states=True)
    first_exchange = next(x for x in states if x.phase == EXCHANGE_PHASE)
    picks = states[:: max(1, len(states) // 12)] + [first_exchange, s]
    phases = set()
    for st_ in picks:
        d = json.loads(json.dumps(st_.to_dict()))
        back = GameState.from_dict(d)
        assert back == st_ and back.to_dict() == st_.to_dict()
        assert legal_actions(back) == legal_actions(st_)
        phases.add(st_.phase)
    assert phases == {BID_PHASE, EXCHANGE_PHASE, GAME_OVER}


def test_the_loaded_state_shares_no_list_with_the_dict() -> None:
    s = new_game(3, 1)
    d = s.to_dict()
    back = GameState.from_dict(d)
    d["hands"][0].append(5)
    d["pile"].clear()
    assert back == s


def test_the_bounds_agree_with_the_rules() -> None:
    assert validate.MAX_ROUNDS == tables.MAX_ROUNDS
    assert validate.MAX_DECISIONS_PER_GAME == tables.MAX_DECISIONS_PER_GAME


def _exchange_state() -> GameState:
    s = arrange(3, hands={0: [note(0, 60)], 1: [note(1, 50)], 2: [note(2, 40), coin(0)]})
    bid_all(s, {0: [note(0, 60)], 1: [note(1, 50)], 2: [note(2, 40)]})
    return s


def _seeded_state() -> GameState:
    s = new_game(4, 12)
    rng = random.Random(3)
    for _ in range(40):
        apply_action(s, rng.choice(legal_actions(s)))
    return s


def _edit(d: dict, path: tuple, value) -> dict:
    target = d
    for k in path[:-1]:
        target = target[k]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


_DELETE = object()

# (description, state maker, path in the dict, new value, field named)
BAD = [
    ("missing field", new_game, ("pile",), _DELETE, "pile"),
    ("unknown field", new_game, ("cheat",), 1, "cheat"),
    ("bad config", new_game, ("config", "num_players"), 2, "config"),
    ("config not a dict", new_game, ("config",), "4p", "config"),
    ("n disagrees", new_game, ("n",), 5, "n"),
    ("round a string", new_game, ("round",), "__import__('os').system('true')", "round"),
    ("round a bool", new_game, ("round",), True, "round"),
    ("round huge", new_game, ("round",), 2**70, "round"),
    ("seed negative", new_game, ("seed",), -1, "seed"),
    ("seed too big", new_game, ("seed",), 2**64, "seed"),
    ("phase unknown", new_game, ("phase",), 7, "phase"),
    ("hands not a list", new_game, ("hands",), {"0": []}, "hands"),
    ("one hand missing", new_game, ("hands",), [[69], [70], [71]], "hands"),
    ("card id out of range", new_game, ("pile", 0), 999, "pile"),
    ("card twice in a list", new_game, ("right", 1), None, "right"),
    ("hand unsorted", new_game, ("hands", 0), None, "hands[0]"),
    ("history not a list", new_game, ("history",), "[]", "history"),
    ("history action out of table", new_game, ("history",), [45], "history"),
    ("history too long", new_game, ("history",), [0] * 6000, "history"),
    ("bluffed not a bool", new_game, ("bluffed", 0), 0, "bluffed[0]"),
]


@pytest.mark.parametrize(("what", "make", "path", "value", "field"), BAD, ids=[b[0] for b in BAD])
def test_malformed_fields_are_refused(what, make, path, value, field) -> None:
    s = make(4, 3) if make is new_game else make()
    d = s.to_dict()
    if what == "card twice in a list":
        value = d["right"][0]
    if what == "hand unsorted":
        value = list(reversed(d["hands"][0]))
    with pytest.raises(StateError) as e:
        GameState.from_dict(_edit(d, path, value))
    assert e.value.field == field, str(e.value)


def _move(d: dict, card: int, src: int, dst: int) -> dict:
    """Move `card` from hand `src` to hand `dst`."""
    d["hands"][src].remove(card)
    d["hands"][dst] = sorted(d["hands"][dst] + [card])
    return d


def test_unreachable_states_are_refused_naming_the_field() -> None:
    d = new_game(4, 3).to_dict()
    d["hands"][0].append(d["pile"][0])
    d["hands"][0].sort()
    with pytest.raises(StateError, match="also in"):
        GameState.from_dict(d)
    d = new_game(3, 3).to_dict()
    d["pile"].append(60)  # a Peso note: not in a 3-player game
    with pytest.raises(StateError, match="not in play") as e:
        GameState.from_dict(d)
    assert e.value.field == "pile"
    d = new_game(3, 3).to_dict()
    d["pile"].pop()
    with pytest.raises(StateError, match="nowhere"):
        GameState.from_dict(d)


def test_bluffs_bids_and_knowledge_must_sit_in_their_hands() -> None:
    d = new_game(3, 3).to_dict()
    d = _move(d, bluff_of(1), 1, 0)
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "hands[0]"
    d = new_game(3, 3).to_dict()
    d["sel"][0] = [d["pile"][0]]
    d["seed"], d["history"] = None, []
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "sel[0]"
    d = new_game(3, 3).to_dict()
    d["known"][1] = [d["hands"][0][0], bluff_of(1)]
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "known[1]"


def test_the_pending_decision_must_fit_the_phase() -> None:
    d = new_game(3, 3).to_dict()
    d["cur"] = 1
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "cur"
    d = _exchange_state().to_dict()
    d["cur"] = 1  # seat 0's 60 acts first... any waiting seat could be a swap's target
    assert GameState.from_dict(d).cur == 1
    d["acted"][1] = True
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "acted[1]"
    d = _exchange_state().to_dict()
    d["phase"] = GAME_OVER
    with pytest.raises(StateError):
        GameState.from_dict(d)
    d = _exchange_state().to_dict()
    d["table"][2], d["right"] = d["right"], d["table"][2]  # a bid of 4 cards, a group of 1
    assert GameState.from_dict(d).table[2] == d["table"][2]
    d["revealed"][2] = []  # a bid on the table that nobody revealed
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "table[2]"


def test_a_seeded_state_must_be_what_its_history_reaches() -> None:
    s = _seeded_state()
    assert GameState.from_dict(s.to_dict()) == s
    d = s.to_dict()
    d["pile"][0], d["pile"][1] = d["pile"][1], d["pile"][0]
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "pile"
    d = s.to_dict()
    d["history"] = d["history"][:-1] + [44]
    with pytest.raises(StateError) as e:
        GameState.from_dict(d)
    assert e.value.field == "history"
    d = s.to_dict()
    d["seed"] = 13
    with pytest.raises(StateError):
        GameState.from_dict(d)


def test_from_dict_refuses_non_dicts() -> None:
    for bad in (None, [], "state", {"n": 3}):
        with pytest.raises(StateError) as e:
            GameState.from_dict(bad)
        assert e.value.field == "config"
