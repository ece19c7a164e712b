"""Random-playout invariants of the rules engine (docs/RULES.md §2-§8, the engine's own contracts).

Seeded random games for 2, 3, 4 and 5 players; after every decision:
- the legal set is non-empty before the end and empty after it;
- a sample of the other legal actions applies cleanly (on a clone);
- actions outside the legal set raise `IllegalActionError` naming the action and listing the
  legal ones, and change nothing;
- each of the 140 cards is in exactly one place;
- money moves only through the ledger, and a property owner never goes below £0;
- the game ends by round 7 and within `MAX_DECISIONS_PER_GAME` decisions;
- JSON round trips, replays and clones are exact and independent;
- the results follow §8.

The default run plays 250 games per player count; `pytest -m slow` plays 2,500 per count.
"""

from __future__ import annotations

import json
import random

import pytest
from engine_checks import check_card_places, check_owners, snapshot

from lastwill_env.engine import (
    MAX_DECISIONS_PER_GAME,
    NUM_ACTIONS,
    NUM_CARDS,
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

PLAYER_COUNTS = (2, 3, 4, 5)
DEFAULT_GAMES = 250
SLOW_GAMES = 2500
# option sets cycled over the games so every §9 option is exercised
OPTION_SETS = (
    {},
    {"starting_money": "will-shared"},
    {"starting_money": "will-each"},
    {"board_spaces": 3},
    {"starting_money": "will-each", "board_spaces": 7},
)
JSON_EVERY = 25  # decisions between JSON round trips
ILLEGAL_EVERY = 12  # decisions between illegal-action probes
CLONE_SAMPLE = 2  # other legal actions applied on a clone per decision
CLONE_CHECK_EVERY = 50  # decisions between clone-independence checks


# ---------------------------------------------------------------------------------------------
# Checks shared by the playout tests


def check_illegal(s: GameState, rnd: random.Random, where: str = "") -> None:
    """Actions outside the legal set raise IllegalActionError and leave the state unchanged."""
    legal = list(legal_actions(s))
    legal_set = set(legal)
    before = snapshot(s)
    probes: list = [-1, NUM_ACTIONS, True, False, NUM_ACTIONS + 17, -NUM_ACTIONS]
    outside = [a for a in range(NUM_ACTIONS) if a not in legal_set]
    probes += rnd.sample(outside, min(3, len(outside)))
    for a in probes:
        if type(a) is not bool and a in legal_set:
            continue
        with pytest.raises(IllegalActionError) as info:
            apply_action(s, a)
        msg = str(info.value)
        assert f"illegal action {a}" in msg or f"illegal action {a!r}" in msg, msg
        for la in legal:
            assert f"{la} ({describe_action(la)})" in msg, f"{where}: {la} missing from {msg}"
        assert info.value.legal == legal
        assert legal_actions(s) == legal, f"{where}: illegal action {a!r} changed the legal set"
    assert s.to_dict() == before, f"{where}: an illegal action {probes} changed the state"


def check_clone_independent(s: GameState, rnd: random.Random, where: str = "") -> None:
    before = snapshot(s)
    c = s.clone()
    assert c == s, f"{where}: clone differs from the original"
    legal = legal_actions(c)
    if legal:
        apply_action(c, rnd.choice(legal))
    # mutate every list in the clone, nested ones too
    for name in GameState.__slots__:
        v = getattr(c, name)
        if isinstance(v, list):
            for item in v:
                if isinstance(item, list):
                    item.append(-7)
            v.append(-7)
    if isinstance(c.results, dict):
        for v in c.results.values():
            if isinstance(v, list):
                v.append(-7)
        c.results["winner"] = -7
    c.money[0] += 1000
    assert snapshot(s) == before, f"{where}: mutating a clone changed the original"


def check_json(s: GameState, where: str = "") -> GameState:
    t = GameState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert t == s, f"{where}: JSON round trip changed the state"
    assert legal_actions(t) == legal_actions(s), f"{where}: JSON round trip changed legal set"
    return t


def check_results(s: GameState, start_money: list[int]) -> dict:
    r = results(s)
    n = s.n
    assert r["rounds"] <= NUM_ROUNDS
    assert sorted(r["ranks"]) == list(range(1, n + 1))
    assert r["ranks"][r["winner"]] == 1
    assert r["money"] == s.money
    assert r["totals"] == [r["money"][p] + r["property_value"][p] for p in range(n)]
    if r["rounds"] < NUM_ROUNDS:
        assert any(r["bankrupt"]), f"game ended in round {r['rounds']} with nobody bankrupt"
    money = r["money"]
    if any(m < 0 for m in money):
        assert r["decided_by"] == "debt"
        assert money[r["winner"]] == min(money), r
        best = min((money[p], r["plan_order"][p]) for p in range(n))
        assert (money[r["winner"]], r["plan_order"][r["winner"]]) == best, r
    else:
        totals = r["totals"]
        assert totals[r["winner"]] == min(totals), r
        best = min((totals[p], r["plan_order"][p]) for p in range(n))
        assert (totals[r["winner"]], r["plan_order"][r["winner"]]) == best, r
    return r


# ---------------------------------------------------------------------------------------------
# The playout


def play_checked_game(n: int, game: int) -> int:
    """Play one seeded random game with every check; return its number of decisions."""
    options = OPTION_SETS[game % len(OPTION_SETS)]
    config = make_config(n, **options)
    seed = 7919 * game + n
    rnd = random.Random(f"{n}-{game}")
    s = new_game(config, seed)
    start_money = s.money[:]
    where = f"{n}p game {game} seed {seed} options {options}"
    assert new_game(config, seed) == s, f"{where}: new_game is not deterministic"
    check_card_places(s, where)
    ledger_len = 0
    money = start_money[:]
    rnd_round = s.round
    follower = None  # a JSON-restored copy that must play on identically
    follow_from = rnd.randrange(0, 150)
    steps = 0
    while True:
        legal = legal_actions(s)
        if s.is_over:
            assert legal == [], f"{where}: legal actions after the game is over: {legal}"
            break
        assert legal, f"{where}: empty legal set before the end ({s!r})"
        assert len(set(legal)) == len(legal) and all(0 <= a < NUM_ACTIONS for a in legal)
        if steps % ILLEGAL_EVERY == 0:
            check_illegal(s, rnd, f"{where} step {steps}")
        if steps % JSON_EVERY == 0:
            t = check_json(s, f"{where} step {steps}")
            if follower is None and steps >= follow_from:
                follower = t
        if steps % CLONE_CHECK_EVERY == 0:
            check_clone_independent(s, rnd, f"{where} step {steps}")
        for a in rnd.sample(legal, min(CLONE_SAMPLE, len(legal))):
            c = s.clone()
            apply_action(c, a)  # every legal action applies
            if steps % JSON_EVERY == 0:
                check_card_places(c, f"{where} step {steps} after {describe_action(a)}")
        a = rnd.choice(legal)
        apply_action(s, a)
        if follower is not None:
            apply_action(follower, a)
        steps += 1
        here = f"{where} step {steps} ({describe_action(a)})"
        assert len(s.history) == steps and s.history[-1] == a
        check_card_places(s, here)
        # money moves only through the ledger
        new = s.ledger[ledger_len:]
        for seat, delta, what, card in new:
            assert delta != 0 and isinstance(what, str) and -1 <= card < NUM_CARDS, new
            money[seat] += delta
        ledger_len = len(s.ledger)
        assert money == s.money, f"{here}: money {s.money} but ledger gives {money}"
        check_owners(s, here)
        assert s.round <= NUM_ROUNDS, f"{here}: round {s.round}"
        if s.round != rnd_round:
            assert s.round == rnd_round + 1
            # a round with a bankruptcy is the last one (§5, §7)
            assert not any(s.money[p] <= 0 and s.nprops[p] == 0 for p in range(n)), here
            rnd_round = s.round
        assert steps <= MAX_DECISIONS_PER_GAME, f"{where}: over {MAX_DECISIONS_PER_GAME} decisions"

    # ledger from the start, in full
    total = start_money[:]
    for seat, delta, _what, _card in s.ledger:
        total[seat] += delta
    assert total == s.money
    check_results(s, start_money)
    assert results(s)["rounds"] <= NUM_ROUNDS
    with pytest.raises(IllegalActionError):
        apply_action(s, 0)
    check_json(s, f"{where} at the end")
    check_clone_independent(s, rnd, f"{where} at the end")
    r = replay(config, seed, s.history)
    assert r == s, f"{where}: replay of the same seed and actions differs"
    if follower is not None:
        assert follower == s, f"{where}: a JSON-restored state did not continue identically"
    return steps


def run_playouts(n: int, games: int) -> int:
    most = 0
    for game in range(games):
        most = max(most, play_checked_game(n, game))
    print(f"{n} players: {games} games, at most {most} decisions per game")
    assert most <= MAX_DECISIONS_PER_GAME
    return most


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_playouts(n):
    run_playouts(n, DEFAULT_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_playouts_many(n):
    run_playouts(n, SLOW_GAMES)


# ---------------------------------------------------------------------------------------------
# Smaller direct checks


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_card_count_and_start(n):
    assert NUM_CARDS == 140
    s = new_game(make_config(n), 3)
    check_card_places(s, "new game")
    assert s.round == 1 and not s.is_over and s.history == [] and s.ledger == []
    with pytest.raises(ValueError, match="not over"):
        results(s)


def test_same_seed_same_game_different_seed_differs():
    a = new_game(make_config(4), 11)
    b = new_game(make_config(4), 11)
    c = new_game(make_config(4), 12)
    assert a == b
    assert a.to_dict() != c.to_dict()
    rnd = random.Random(5)
    while not a.is_over:
        x = rnd.choice(legal_actions(a))
        apply_action(a, x)
        apply_action(b, x)
    assert a == b and results(a) == results(b)


def test_illegal_at_game_over_lists_nothing():
    s = new_game(make_config(2), 1)
    rnd = random.Random(1)
    while not s.is_over:
        apply_action(s, rnd.choice(legal_actions(s)))
    before = s.to_dict()
    for a in (0, 1, -1, NUM_ACTIONS, True):
        with pytest.raises(IllegalActionError, match="legal actions: $"):
            apply_action(s, a)
    assert s.to_dict() == before
