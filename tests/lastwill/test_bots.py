"""Scripted bots, the flat Monte-Carlo bot and determinization.

- every bot returns a legal action at every decision of full mixed games for 2-5 players;
- scenario tests: each bot's signature move in a built position;
- same seed, same actions;
- determinization: card conservation and an identical view for the viewer;
- the MC bot never reads hidden information: its choice is the same under any re-deal of what
  it cannot see.
"""

from __future__ import annotations

import random

import pytest

from agents.registry import make_agent
from agents.search import MCAgent
from lastwill_env.engine import (
    CATALOGUE,
    NUM_CARDS,
    apply_action,
    decode,
    describe_action,
    determinize,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.builders import card_id, set_hand, turn_state
from lastwill_env.engine.game import PLAN_PHASE, TURN_PHASE

BOTS = ("greedy", "speculator", "planner", "combiner", "racer")


def _play(specs, seed, check=True):
    s = new_game(len(specs), seed)
    agents = [make_agent(sp, seed * 31 + i) for i, sp in enumerate(specs)]
    actions = []
    while not s.is_over:
        legal = legal_actions(s)
        a = agents[s.cur].act(player_view(s, s.cur), legal)
        if check:
            assert a in legal, f"{specs[s.cur]} chose illegal {a} among {legal}"
        actions.append(a)
        apply_action(s, a)
    return s, actions


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_bots_play_legal_full_games(n):
    rng = random.Random(n)
    pool = [*BOTS, "random", "greedy:eps=0.2"]
    for g in range(20):
        specs = [rng.choice(pool) for _ in range(n)]
        s, _ = _play(specs, 100 * n + g)
        assert s.results is not None


def test_same_seed_same_actions():
    specs = [f"{b}:eps=0.1" for b in BOTS]
    _, a1 = _play(specs, 7)
    _, a2 = _play(specs, 7)
    assert a1 == a2


def test_mc_tiny_budget_legal_and_deterministic():
    s = new_game(3, 4)
    rng = random.Random(0)
    checked = 0
    while not s.is_over and checked < 6:
        legal = legal_actions(s)
        if len(legal) > 1 and rng.random() < 0.3:
            v = player_view(s, s.cur)
            a = MCAgent(seed=1, rollouts=1, cands=2, policy="random").act(v, legal)
            b = MCAgent(seed=1, rollouts=1, cands=2, policy="random").act(v, legal)
            assert a in legal and a == b
            checked += 1
        apply_action(s, rng.choice(legal))
    assert make_agent("mc:samples=1:cands=2", 0).rollouts == 1


# -- scenarios ------------------------------------------------------------------------------


def _choice(spec, s):
    agent = make_agent(spec, 0)
    return describe_action(agent.act(player_view(s, s.cur), legal_actions(s)))


def test_greedy_plays_most_expensive_affordable_event():
    s = turn_state(4, 0, hand=["Dinner_1", "Theatre_3", "BoatTrip_4"], actions=1, money=70)
    assert "play BoatTrip_4" not in [describe_action(a) for a in legal_actions(s)]
    assert _choice("greedy", s) == "play Theatre_3"


def test_speculator_buys_a_dear_house():
    s = turn_state(
        4, 0, hand=["Farm_3", "ManorHouse_1"], actions=1, money=70, modifiers=(-3, -2, 3, 1)
    )
    assert _choice("speculator", s) == "play ManorHouse_1"


def test_speculator_never_maintains_and_sells_at_low_modifier():
    s = turn_state(
        4,
        0,
        board=["ManorHouse_1"],
        steps={"ManorHouse_1": 1},
        actions=1,
        money=30,
        modifiers=(1, 3, -3, -2),
    )
    assert _choice("speculator", s) == "sell ManorHouse_1"
    s = turn_state(4, 0, board=["ManorHouse_1"], actions=1, money=30, modifiers=(-3, 1, 3, -2))
    assert _choice("speculator", s) == "pass"


def _plan_position(hand):
    s = new_game(4, 3)
    while s.phase != PLAN_PHASE:
        apply_action(s, legal_actions(s)[0])
    set_hand(s, s.cur, hand)
    return s


def test_planner_many_actions_with_rich_hand_many_cards_with_poor_hand():
    plans = CATALOGUE.plans[4]
    rich = _plan_position(["Dinner_1", "Dinner_2", "Theatre_3", "Theatre_4", "Soiree_1"])
    chosen = decode(make_agent("planner", 0).act(player_view(rich, rich.cur), legal_actions(rich)))
    best_actions = max(plans[decode(a)[1]].actions for a in legal_actions(rich))
    assert plans[chosen[1]].actions == best_actions
    poor = _plan_position(["Horse_1"])
    chosen = decode(make_agent("planner", 0).act(player_view(poor, poor.cur), legal_actions(poor)))
    assert plans[chosen[1]].cards == 6


def test_planner_sells_out_in_the_final_round():
    s = turn_state(4, 0, board=["Farm_3"], hand=["Dinner_1"], actions=2, money=1)
    s.round = 7
    s._legal = None
    assert _choice("planner", s) == "sell Farm_3"


def test_a_bots_own_rule_methods_are_the_ones_it_plays(monkeypatch):
    """Each phase dispatches to the rule method of the bot's own class, so a subclass's
    override (the planner's draw and turn rules, the racer's every rule) is what it plays."""
    from lastwill_env.bots.common import ScriptedBot
    from lastwill_env.bots.greedy import GreedyBot
    from lastwill_env.bots.planner import PlannerBot

    class LastLegal(GreedyBot):
        def turn_rule(self, v, legal):
            return legal[-1]

    s = turn_state(4, 0, hand=["Dinner_1", "Theatre_3", "BoatTrip_4"], actions=1, money=70)
    legal = sorted(legal_actions(s))
    assert GreedyBot(0).act(player_view(s, s.cur), legal) != legal[-1]
    assert LastLegal(0).act(player_view(s, s.cur), legal) == legal[-1]
    for name in set(ScriptedBot._RULES.values()):
        assert callable(getattr(ScriptedBot, name)), name
    # the planner's own turn rule runs at its turns (it wraps the base rule)
    calls = []
    own = PlannerBot.turn_rule

    def spy(self, v, legal):
        calls.append(v.phase)
        return own(self, v, legal)

    monkeypatch.setattr(PlannerBot, "turn_rule", spy)
    PlannerBot(0).act(player_view(s, s.cur), legal)
    assert calls == [TURN_PHASE]


def test_combiner_attaches_to_highest_slot_total():
    s = turn_state(
        4, 0, board=["Reservation_5", "ManorHouse_1"], hand=["Chef_1"], actions=1, money=40
    )
    names = [describe_action(a) for a in legal_actions(s)]
    assert "attach_card Reservation_5" in names and "attach_card ManorHouse_1" in names
    assert _choice("combiner", s) == "attach_card ManorHouse_1"


def test_every_bot_adds_companions_to_events():
    s = turn_state(4, 0, hand=["Theatre_1", "Horse_1"], actions=1, money=40)
    apply_action(
        s, legal_actions(s)[[describe_action(a) for a in legal_actions(s)].index("play Theatre_1")]
    )
    for bot in BOTS:
        assert _choice(bot, s) == "addon_card"


# -- determinization ------------------------------------------------------------------------


def _places(s):
    return [
        *s.decks,
        s.special,
        *s.discards,
        s.box,
        s.jokers,
        *s.hands,
        *s.boards,
        [c for c in s.offer if c >= 0],
        [s.resolving] if s.resolving >= 0 else [],
    ]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_determinize_conserves_cards_and_keeps_the_view(n):
    for g in range(4):
        s = new_game(n, 50 + g)
        rng = random.Random(g)
        while not s.is_over:
            if rng.random() < 0.25:
                seat = rng.randrange(n)
                v = player_view(s, seat)
                d = determinize(v, seat, random.Random(rng.random()))
                cards = sorted(c for p in _places(d) for c in p)
                assert cards == list(range(NUM_CARDS))
                assert player_view(d, seat) == v
                assert d.rng != s.rng
                if seat == s.cur:
                    assert sorted(legal_actions(d)) == sorted(legal_actions(s))
            apply_action(s, rng.choice(legal_actions(s)))


def test_determinize_special_deck_and_keep_phase_hands():
    s = new_game(4, 9)
    d = determinize(player_view(s, 0), 0, random.Random(1))
    for seat in (1, 2, 3):
        decks = sorted(CATALOGUE.cards[c].deck for c in d.hands[seat])
        assert decks == ["helpers"] * 3 + ["properties"] * 3
    crowns = [CATALOGUE.cards[c].crowns for c in d.special]
    assert crowns == sorted(crowns, reverse=True)  # 3-crown at the bottom, 1-crown on top
    assert sorted(d.special) == sorted(s.special)


def _redeal(s, seat, rng):
    """The same position with every card `seat` cannot see re-dealt within its zone."""
    m = s.clone()
    others = [p for p in range(m.n) if p != seat]
    pool = [c for p in others for c in m.hands[p]]
    rng.shuffle(pool)
    i = 0
    for p in others:
        k = len(m.hands[p])
        m.hands[p] = pool[i : i + k]
        i += k
    for d in m.decks:
        rng.shuffle(d)
    m.rng = rng.getrandbits(64)
    m._legal = None
    return m


def test_mc_never_reads_hidden_information():
    s = new_game(4, 21)
    rng = random.Random(3)
    while not (s.phase == TURN_PHASE and s.round >= 2 and len(legal_actions(s)) > 2):
        apply_action(s, rng.choice(legal_actions(s)))
    seat = s.cur
    alt = _redeal(s, seat, random.Random(8))
    assert [sorted(h) for h in alt.hands] != [sorted(h) for h in s.hands] or alt.decks != s.decks
    det = determinize(player_view(s, seat), seat, random.Random(5))
    for other in (alt, det):
        assert player_view(other, seat) == player_view(s, seat)
        assert sorted(legal_actions(other)) == sorted(legal_actions(s))
        a = MCAgent(seed=11, rollouts=2, cands=3).act(player_view(s, seat), legal_actions(s))
        b = MCAgent(seed=11, rollouts=2, cands=3).act(
            player_view(other, seat), legal_actions(other)
        )
        assert a == b
    assert card_id("Farm_1") >= 0
