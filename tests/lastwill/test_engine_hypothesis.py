"""Stateful property tests of the rules engine with Hypothesis.

A `RuleBasedStateMachine` starts a game with a drawn player count, seed and §9 options, applies
drawn legal actions (an index into the legal list) and checks the engine invariants after every
step: every card in exactly one place, money only through the ledger, no property owner below
£0, the round and decision bounds, the legal set empty exactly at the end, exact JSON round trips
and clones, and replays of the history. Another rule tries an action outside the legal set and
checks that it raises `IllegalActionError` and changes nothing.
"""

from __future__ import annotations

import json
import random

import pytest
from engine_checks import check_card_places, check_owners, snapshot  # noqa: E402
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from lastwill_env.engine import (
    MAX_DECISIONS_PER_GAME,
    NUM_ACTIONS,
    NUM_ROUNDS,
    GameState,
    IllegalActionError,
    apply_action,
    describe_action,
    legal_actions,
    make_config,
    new_game,
    replay,
    results,
)


class EngineMachine(RuleBasedStateMachine):
    s: GameState

    @initialize(
        n=st.integers(2, 5),
        seed=st.integers(0, 2**64 - 1),
        starting_money=st.sampled_from([70, "will-shared", "will-each"]),
        board_spaces=st.integers(1, 12),
    )
    def start(self, n, seed, starting_money, board_spaces):
        self.config = make_config(n, starting_money=starting_money, board_spaces=board_spaces)
        self.seed = seed
        self.s = new_game(self.config, seed)
        self.start_money = self.s.money[:]
        self.round_seen = self.s.round

    # -- rules -------------------------------------------------------------------------------
    @precondition(lambda self: not self.s.is_over)
    @rule(i=st.integers(0, 2**16))
    def step(self, i):
        legal = legal_actions(self.s)
        apply_action(self.s, legal[i % len(legal)])

    @precondition(lambda self: not self.s.is_over)
    @rule(k=st.integers(1, 80), policy_seed=st.integers(0, 2**32))
    def run_ahead(self, k, policy_seed):
        """Several random decisions at once, so that games reach their end."""
        rnd = random.Random(policy_seed)
        for _ in range(k):
            if self.s.is_over:
                break
            apply_action(self.s, rnd.choice(legal_actions(self.s)))
            self.check_cards()
            self.check_money()
            self.check_progress()

    @rule(
        a=st.one_of(
            st.integers(-3, NUM_ACTIONS + 3),
            st.booleans(),
            st.integers(-(2**40), 2**40),
        )
    )
    def illegal(self, a):
        legal = list(legal_actions(self.s))
        if type(a) is not bool and a in legal:
            return
        before = snapshot(self.s)
        try:
            apply_action(self.s, a)
        except IllegalActionError as e:
            msg = str(e)
            assert f"illegal action {a}" in msg, msg
            assert all(f"{x} ({describe_action(x)})" in msg for x in legal), msg
            assert e.legal == legal
        else:
            raise AssertionError(f"illegal action {a!r} was accepted; legal: {legal}")
        assert snapshot(self.s) == before, f"illegal action {a!r} changed the state"
        assert legal_actions(self.s) == legal

    @rule()
    def replay_matches(self):
        r = replay(self.config, self.seed, self.s.history)
        assert r == self.s, "replaying the history from the seed gives another state"

    @rule(i=st.integers(0, 2**16))
    def clone_is_independent(self, i):
        before = snapshot(self.s)
        c = self.s.clone()
        assert c == self.s
        legal = legal_actions(c)
        if legal:
            apply_action(c, legal[i % len(legal)])
        c.money[0] -= 5
        for h in c.hands:
            h.append(-1)
        c.decks[0].append(-1)
        c.history.append(-1)
        c.ledger.append((0, 1, "x", -1))
        if c.results is not None:
            c.results["money"].append(-1)
        assert snapshot(self.s) == before, "mutating a clone changed the original"

    @rule()
    def json_round_trip_continues(self):
        t = GameState.from_dict(json.loads(json.dumps(self.s.to_dict())))
        assert t == self.s
        assert legal_actions(t) == legal_actions(self.s)
        # replace the state by its restored copy: the rest of the run continues from it
        self.s = t

    # -- invariants --------------------------------------------------------------------------
    @invariant()
    def check_cards(self):
        check_card_places(self.s, "hypothesis")

    @invariant()
    def check_money(self):
        s = self.s
        total = self.start_money[:]
        for seat, delta, _what, _card in s.ledger:
            total[seat] += delta
        assert total == s.money, f"money {s.money} but ledger gives {total}"
        check_owners(s, "hypothesis")

    @invariant()
    def check_progress(self):
        s = self.s
        assert 1 <= s.round <= NUM_ROUNDS
        assert s.round in (self.round_seen, self.round_seen + 1)
        self.round_seen = s.round
        assert len(s.history) <= MAX_DECISIONS_PER_GAME
        legal = legal_actions(s)
        if s.is_over:
            event("the game reached its end")
            assert legal == []
            r = results(s)
            assert r["rounds"] <= NUM_ROUNDS
            assert r["ranks"][r["winner"]] == 1
            assert sorted(r["ranks"]) == list(range(1, s.n + 1))
            money = r["money"]
            if any(m < 0 for m in money):
                assert money[r["winner"]] == min(money)
            else:
                assert r["totals"][r["winner"]] == min(r["totals"])
            if r["rounds"] < NUM_ROUNDS:
                assert any(r["bankrupt"])
        else:
            assert legal, "empty legal set before the end"
            assert len(set(legal)) == len(legal)
            assert all(0 <= a < NUM_ACTIONS for a in legal)


EngineMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestEngineMachine = EngineMachine.TestCase


class LongEngineMachine(EngineMachine):
    """The same machine with many more and longer runs (`pytest -m slow`)."""


LongEngineMachine.TestCase.settings = settings(
    max_examples=400,
    stateful_step_count=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestLongEngineMachine = pytest.mark.slow(LongEngineMachine.TestCase)
