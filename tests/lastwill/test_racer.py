"""The racer (lastwill_env/bots/racer.py): legal play, no property it cannot sell, the racing
move in every phase.

- seeded playouts at 2-5 players, the racer in every seat and mixed with the other bots: every
  action is legal and the racer never buys a property;
- property: it does not buy one even when it has the money and the actions, and a property it
  holds in the last round is sold before it spends into debt;
- one built position per phase (keep, block/plan, draws, errands, turn, Ball, room, last-round
  debt, discard) where the racing move differs from what a careless spender would do.
"""

from __future__ import annotations

import random

import pytest

from agents.registry import PlayerSpecError, make_agent
from lastwill_env.bots.common import ScriptedBot
from lastwill_env.bots.racer import RacerBot
from lastwill_env.engine import (
    CATALOGUE,
    apply_action,
    decode,
    describe_action,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.builders import card_id, discard_to_pile, set_hand, take_card, turn_state
from lastwill_env.engine.game import (
    BLOCK_PHASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    GAME_OVER,
    KEEP_PHASE,
    OPTION_PHASE,
    PLAN_PHASE,
    ROOM_PHASE,
)

OTHERS = ("greedy", "speculator", "planner", "combiner", "random")
PROPERTY = frozenset(c.id for c in CATALOGUE.cards if c.category == "property")


def _playout(specs: list[str], seed: int) -> dict:
    """Play a game; check every action is legal and no racer seat (without random moves) ever
    buys or owns a property."""
    s = new_game(len(specs), seed)
    agents = [make_agent(sp, seed * 17 + i) for i, sp in enumerate(specs)]
    racers = [i for i, sp in enumerate(specs) if sp == "racer"]
    while s.phase != GAME_OVER:
        seat = s.cur
        legal = legal_actions(s)
        a = agents[seat].act(player_view(s, seat), legal)
        assert a in legal, f"{specs[seat]} chose illegal {a} among {legal} (seed {seed})"
        if seat in racers:
            kind, c = decode(a)
            assert not (kind == "play" and c in PROPERTY), f"racer bought {CATALOGUE.cards[c].name}"
        apply_action(s, a)
        for r in racers:
            assert not PROPERTY.intersection(s.boards[r]), f"racer seat {r} owns a property"
    return s.results


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_racer_in_every_seat_plays_legal_actions(n):
    for g in range(3):
        res = _playout(["racer"] * n, 900 + 10 * n + g)
        assert res["winner"] in range(n)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_racer_mixed_with_other_bots_plays_legal_actions(n):
    rng = random.Random(n)
    for g in range(2 * n):
        specs = [rng.choice(OTHERS) for _ in range(n - 1)]
        seat = g % n
        specs.insert(seat, "racer:eps=0.1" if g % 3 == 2 else "racer")
        _playout(specs, 700 + 10 * n + g)


def test_racer_spec_and_eps():
    bot = make_agent("racer:eps=0.25", 3)
    assert isinstance(bot, RacerBot) and bot.eps == 0.25


def test_racer_weights_from_the_spec_and_bad_weights_refused():
    bot = make_agent("racer:errand_weight=0.1:base_rate=18", 3)
    assert (bot.errand_weight, bot.base_rate, bot.contest) == (0.1, 18.0, RacerBot.contest)
    assert RacerBot().errand_weight == RacerBot.errand_weight  # the class weights stay
    for spec, why in (
        ("racer:speed=3", "'speed' is not a weight of the racer; allowed: eps, carry_weight"),
        ("racer:base_rate=-1", "base_rate=-1 is not allowed"),
        ("racer:contest=nan", "contest=nan is not allowed"),
        ("sprinter:base_rate=18", "the sprinter's weights are fixed"),
    ):
        with pytest.raises(PlayerSpecError, match=why):
            make_agent(spec)


def _actions(specs: list[str], seed: int) -> list[int]:
    s = new_game(len(specs), seed)
    agents = [make_agent(sp, 5) for sp in specs]
    out = []
    while s.phase != GAME_OVER:
        legal = legal_actions(s)
        a = agents[s.cur].act(player_view(s, s.cur), legal)
        assert a in legal
        out.append(a)
        apply_action(s, a)
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_sprinter_plays_legal_and_is_the_racer_only_at_4_and_5_players(n):
    """The sprinter's weights differ from the racer's on the 2-3 player board side only: at 4-5
    players every game is move for move the racer's, at 2-3 players its play differs."""
    same = []
    for g in range(3):
        seed = 40 + 10 * n + g
        mixed = ["sprinter"] + ["racer"] * (n - 1)
        _playout(mixed, seed)  # legal, and no property bought or held by the racers
        same.append(_actions(["sprinter"] * n, seed) == _actions(["racer"] * n, seed))
    assert all(same) if n >= 4 else not any(same)


def test_sprinter_weights_follow_the_player_count_of_each_decision():
    bot = make_agent("sprinter", 1)
    s3, s4 = new_game(3, 1), new_game(4, 1)
    bot.act(player_view(s3, s3.cur), legal_actions(s3))
    assert (bot.errand_weight, bot.order_weight, bot.base_rate) == (0.1, 0.0, 18.0)
    bot.act(player_view(s4, s4.cur), legal_actions(s4))
    assert (bot.errand_weight, bot.order_weight, bot.base_rate) == (
        RacerBot.errand_weight,
        RacerBot.order_weight,
        RacerBot.base_rate,
    )


def test_unknown_decision_falls_back_to_a_legal_action():
    # a decision kind the racer has no rule for (a phase number beyond the known ones)
    v = player_view(turn_state(4, 0, hand=["Dinner_1"], actions=1), 0)
    v = v.__class__(**{**{f: getattr(v, f) for f in v.__dataclass_fields__}, "phase": 99})
    assert RacerBot(seed=0).act(v, [7, 3, 5]) == 3
    assert isinstance(RacerBot(seed=0), ScriptedBot)


# -- helpers ----------------------------------------------------------------------------------


def _choice(s, spec: str = "racer") -> str:
    agent = make_agent(spec, 0)
    return describe_action(agent.act(player_view(s, s.cur), legal_actions(s)))


def _names(s) -> list[str]:
    return [describe_action(a) for a in legal_actions(s)]


def _until(phase: int, n: int = 4, seed: int = 3):
    s = new_game(n, seed)
    while s.phase != phase:
        apply_action(s, legal_actions(s)[0])
    return s


def _play_turn(s, spec: str = "racer") -> list[str]:
    """Let the racer play its whole turn (and the decisions inside it); its moves by name."""
    agent = make_agent(spec, 0)
    seat = s.cur
    moves = []
    while s.phase != GAME_OVER and s.cur == seat and not (moves and moves[-1] == "pass"):
        a = agent.act(player_view(s, seat), legal_actions(s))
        moves.append(describe_action(a))
        apply_action(s, a)
    return moves


def _put_on_offer(s, space: int, name: str) -> None:
    """Card `name` face up on offer space `space` (the card there goes to its discard pile)."""
    if s.offer[space] >= 0:
        discard_to_pile(s, s.offer[space])
    c = card_id(name)
    take_card(s, c)
    s.offer[space] = c
    s._legal = None


# -- property: never one it cannot sell in time ---------------------------------------------


def test_never_buys_a_property_with_money_and_actions_to_spare():
    s = turn_state(
        4,
        0,
        hand=["ManorHouse_1", "Farm_5", "Dinner_1"],
        actions=3,
        money=70,
        modifiers=(-3, -2, 3, 1),
    )
    names = _names(s)
    assert "play ManorHouse_1" in names and "play Farm_5" in names
    assert _choice(s, "speculator") == "play ManorHouse_1"  # a property player would buy
    moves = _play_turn(s)
    assert not [m for m in moves if m in ("play ManorHouse_1", "play Farm_5")], moves
    assert "play Dinner_1" in moves and not PROPERTY.intersection(s.boards[0])


def test_never_buys_in_the_last_round():
    s = turn_state(4, 0, hand=["Farm_3"], actions=2, money=40)
    s.round = 7
    s._legal = None
    assert "play Farm_3" in _names(s)
    assert _choice(s) == "pass"


def test_sells_a_held_property_before_going_into_debt_in_the_last_round():
    s = turn_state(
        4,
        0,
        board=["Farm_3"],
        hand=["Theatre_3", "Soiree_2", "Dinner_1"],
        actions=4,
        money=1,
        modifiers=(-3, -2, 1, 3),  # the farm sells for £5
    )
    s.round = 7
    s._legal = None
    # with the farm on the board no payment may take it below £0: Theatre_3 is not even legal
    assert "play Theatre_3" not in _names(s)
    moves = _play_turn(s)
    assert moves[0] == "sell Farm_3", moves
    assert {"play Theatre_3", "play Soiree_2", "play Dinner_1"} <= set(moves)
    assert s.money[0] == 1 + 5 - 3 - 3 - 2 and not PROPERTY.intersection(s.boards[0])


# -- keep (round 1) ---------------------------------------------------------------------------


def test_keeps_recurring_expenses_and_no_property():
    s = _until(KEEP_PHASE)
    hand = [
        "Reservation_1",
        "GentlemensClub_1",
        "Gardener_1",
        "ManorHouse_1",
        "Farm_5",
        "Mansion_3",
    ]
    set_hand(s, s.cur, hand)
    first = _choice(s)
    assert first == "keep Reservation_1", first
    apply_action(s, legal_actions(s)[_names(s).index(first)])
    assert _choice(s) == "keep GentlemensClub_1"


# -- planning ----------------------------------------------------------------------------------


def _plan_position(hand: list[str], money: int | None = None, rnd: int = 3, taken=()):
    s = _until(PLAN_PHASE, 4, 3)
    set_hand(s, s.cur, hand)
    s.round = rnd
    if money is not None:
        s.money[s.cur] = money
    for i, p in enumerate(taken):
        s.plans[(s.cur + 1 + i) % 4] = p
    s._legal = None
    return s


def test_plan_with_most_actions_for_a_hand_full_of_events():
    plans = CATALOGUE.plans[4]
    s = _plan_position(["Ball_2", "BoatTrip_4", "Theatre_3", "Soiree_2", "Dinner_1"], rnd=3)
    chosen = decode(make_agent("racer", 0).act(player_view(s, s.cur), legal_actions(s)))
    assert plans[chosen[1]].actions == 4


def test_last_round_plan_acts_late():
    plans = CATALOGUE.plans[4]
    # the four-action plan (order 7) is taken; money runs out this round: of the three-action
    # plans the racer takes the last in turn order
    four = next(i for i, p in enumerate(plans) if p.actions == 4)
    s = _plan_position(["Theatre_3", "Soiree_2", "Dinner_1"], money=6, rnd=5, taken=[four])
    chosen = decode(make_agent("racer", 0).act(player_view(s, s.cur), legal_actions(s)))[1]
    assert plans[chosen].actions == 3
    assert plans[chosen].order == max(p.order for p in plans if p.actions == 3)


def test_two_players_block_the_plan_it_wants_most():
    s = _until(BLOCK_PHASE, 2, 5)
    set_hand(s, s.cur, ["Ball_2", "BoatTrip_4", "Theatre_3", "Soiree_2", "Dinner_1"])
    chosen = decode(make_agent("racer", 0).act(player_view(s, s.cur), legal_actions(s)))
    assert chosen[0] == "block"
    assert CATALOGUE.plans[2][chosen[1]].actions == 4


def test_draws_helpers_early_and_events_late():
    s = _until(DRAW_PHASE, 4, 3)
    s.round = 1
    s._legal = None
    assert _choice(s) == "draw from helpers"
    s.round = 6
    s._legal = None
    assert _choice(s) == "draw from events"


# -- errands ----------------------------------------------------------------------------------


# an offer board of round 1 at 4 players (P P H H S S S J) with nothing a racer wants
USELESS = ["Farm_1", "Farm_2", "EstateAgent_1", "Gardener_1", "Steward_S1", "EstateAgent_S1"]


def _errand_position(hand: list[str], offer: list[str]):
    s = _until(ERRAND_PHASE, 4, 3)
    set_hand(s, s.cur, hand)
    for i, name in enumerate(offer):
        _put_on_offer(s, i, name)
    return s


def test_errand_takes_the_opera_over_cards_it_cannot_use():
    s = _errand_position(["Dinner_1"], [*USELESS, "EstateAgent_S2"])
    assert "errand opera" in _names(s)
    assert _choice(s) == "errand opera"
    assert _choice(s, "greedy") != "errand opera"  # a careless spender takes a card


def test_errand_takes_a_hectic_day_for_a_rich_hand():
    # one action (plan 1 of round 1) and a hand full of events: three more actions beat £2
    s = _errand_position(
        ["Ball_2", "BoatTrip_4", "Theatre_3", "Soiree_2", "Dinner_1"],
        [*USELESS[:4], "HecticDay_1", *USELESS[4:]],
    )
    assert CATALOGUE.plans[4][s.plans[s.cur]].actions == 1
    assert _choice(s) == "errand offer space 5"


# -- the turn -------------------------------------------------------------------------------


def test_turn_plays_action_gainers_first():
    s = turn_state(4, 0, hand=["HecticDay_1", "Dinner_1", "Theatre_3"], actions=1, money=50)
    assert _choice(s) == "play HecticDay_1"


def test_turn_places_a_free_recurring_expense_and_uses_it_at_once():
    s = turn_state(4, 0, hand=["Reservation_1", "Dinner_1"], actions=1, money=50)
    s.round = 2
    s._legal = None
    moves = _play_turn(s)
    assert moves[:2] == ["play Reservation_1", "use Reservation_1"], moves


def test_turn_fills_event_addons_and_prefers_them_per_action():
    s = turn_state(
        4,
        0,
        hand=["BoatTrip_1", "Guest_1", "Dog_1", "Chef_1", "Theatre_3", "Dinner_1"],
        actions=2,
        money=50,
    )
    s.round = 6
    s._legal = None
    moves = _play_turn(s)
    assert moves[0] == "play BoatTrip_1" and moves.count("addon_card") == 3, moves
    assert s.money[0] == 50 - 9


def test_turn_ball_with_every_action_in_the_last_round():
    s = turn_state(4, 0, hand=["Ball_2", "Dinner_1"], actions=7, money=10)
    s.round = 7
    s._legal = None
    moves = _play_turn(s)
    # £22 for all seven actions beats £15 for six plus the £2 dinner
    assert moves == ["play Ball_2", "ball invest 7 actions", "pass"], moves
    assert s.money[0] == 10 - 22


def test_last_round_goes_as_deep_into_debt_as_the_actions_allow():
    hand = ["Theatre_3", "Soiree_2", "Dinner_1", "CarriageRide_3", "Waiter_1"]
    s = turn_state(4, 0, hand=hand, board=["Reservation_1"], actions=4, money=5)
    s.round = 7
    s._legal = None
    moves = _play_turn(s)
    assert moves[-1] == "pass" and s.actions == 0, moves
    # the free reservation (£2) and four events for the four actions (£3 + £3 + £3 + £2) beat
    # placing the waiter (a dinner and the reservation £1 dearer each)
    assert s.money[0] == 5 - 2 - 3 - 3 - 3 - 2, (moves, s.money[0])


def test_last_round_a_used_card_makes_room_for_another():
    board = ["Reservation_1", "Reservation_2", "Carriage_3", "Carriage_2", "SchoolChum_1"]
    s = turn_state(4, 0, hand=["Reservation_3"], board=board, actions=2, money=5)
    s.round = 7
    s._legal = None
    moves = _play_turn(s)
    assert "play Reservation_3" in moves and "use Reservation_3" in moves, moves
    # every board card was used before one was discarded to make room
    i = moves.index("play Reservation_3")
    assert {f"use {b}" for b in board} <= set(moves[:i]), moves


def test_room_before_the_last_round_drops_the_weakest_card():
    board = ["Reservation_1", "Reservation_2", "Carriage_3", "Carriage_2", "EstateAgent_1"]
    s = turn_state(4, 0, hand=["GentlemensClub_1"], board=board, actions=3, money=60)
    s.round = 2
    s._legal = None
    apply_action(s, legal_actions(s)[_names(s).index("play GentlemensClub_1")])
    assert s.phase == ROOM_PHASE
    assert _choice(s) == "room EstateAgent_1"


# -- discard ----------------------------------------------------------------------------------


def test_discards_properties_and_property_helpers_first():
    # end of round 2: seat 0 holds four cards, the hand limit is two
    s = turn_state(4, 0, hand=["Ball_2", "Farm_5", "Gardener_2", "Reservation_1"], money=50)
    s.round = 2
    s.phase = DISCARD_PHASE
    s.discard_seq = (0,)
    s.discard_i = 0
    s._legal = None
    out = []
    while s.phase == DISCARD_PHASE and s.cur == 0:
        out.append(_choice(s))
        apply_action(s, legal_actions(s)[_names(s).index(out[-1])])
    assert sorted(out) == ["discard Farm_5", "discard Gardener_2"], out
    assert sorted(CATALOGUE.cards[c].name for c in s.hands[0]) == ["Ball_2", "Reservation_1"]


# -- use options (docs/RULES.md §4.4) ---------------------------------------------------------


def test_use_option_spends_the_most_it_can_pay():
    s = turn_state(4, 0, board=["Reservation_5"], filled={"Reservation_5": 2}, actions=1, money=30)
    moves = _play_turn(s)
    assert moves[0] == "use Reservation_5" and moves[1] == "use option: slot 2", moves
    assert s.money[0] == 30 - 4
    # a property owner may not go below £0: with £3 the £4 option is not offered
    s = turn_state(
        4, 0, board=["Reservation_5", "Farm_3"], filled={"Reservation_5": 2}, actions=1, money=3
    )
    apply_action(s, legal_actions(s)[_names(s).index("use Reservation_5")])
    assert s.phase == OPTION_PHASE and "use option: slot 2" not in _names(s)
    assert _choice(s) == "use option: slot 1"


def test_round_plans_sharing_a_view_give_what_a_fresh_bot_gives():
    """A view's round plans share their groups of cards (`RacerBot._groups`, kept per view for
    the hand's own cards, `final` and `legal`): asked in any order on one view, every plan is the
    one a bot with nothing kept yet computes."""
    from lastwill_env.bots.racer import DRAWN

    rnd = random.Random(4)
    checked = 0
    for n, seed in ((2, 3), (4, 8)):
        s = new_game(n, seed)
        while not s.is_over:
            legal = legal_actions(s)
            if len(legal) > 1 and rnd.random() < 0.3:
                v = player_view(s, s.cur)
                shared = make_agent("sprinter", seed=0)
                hands = [list(v.hand), list(v.hand) + [DRAWN] * 2, list(v.hand)[1:] + [DRAWN]]
                for hand in hands:
                    for final in (False, True):
                        for lg in (None, set(legal), set(legal[: len(legal) // 2])):
                            for acts in (1, 3):
                                fresh = make_agent("sprinter", seed=0)
                                got = shared.round_plan(v, hand, acts, final, lg)
                                assert got == fresh.round_plan(v, hand, acts, final, lg)
                                checked += 1
            apply_action(s, rnd.choice(legal))
    assert checked > 500
