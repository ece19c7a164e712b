"""Random-playout invariants of the rules engine (docs/RULES.md §2-§8, the engine's own contracts).

Seeded games for 2, 3, 4 and 5 players, played by uniform random choices, by the scripted bots
and by debt seekers (tests/support/playout_policies.py: random play almost never goes into debt or
ends before round 7, so §5, §7 and the debt branch of §8 need the other two); after every
decision:
- the legal set is non-empty before the end and empty after it;
- a sample of the other legal actions applies cleanly (on a clone);
- actions outside the legal set raise `IllegalActionError` naming the action and listing the
  legal ones, and change nothing;
- each of the 140 cards is in exactly one place;
- money moves only through the ledger, and a property owner never goes below £0;
- the game ends by round 7 and within `MAX_DECISIONS_PER_GAME` decisions;
- JSON round trips, replays and clones are exact and independent;
- the results follow §8.

The default run plays 250 random games per player count, and 50 bot games and 50 debt-seeker
games per player count (it prints how many of those ended in debt or before round 7, and
asserts a floor); `pytest -m slow` plays 2,500 random games per count.
"""

from __future__ import annotations

import json
import random

import pytest
from engine_checks import check_card_places, check_owners, snapshot
from playout_policies import choosers

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
POLICY_GAMES = 50  # per player count, for each of the bots and the debt seekers
POLICY_SEED = {"random": 0, "bots": 100_003, "debt": 200_003}
# option sets cycled over the games so every §9 option is exercised
OPTION_SETS = (
    {},
    {"starting_money": "will-shared"},
    {"starting_money": "will-each"},
    {"board_spaces": 3},
    {"starting_money": "will-each", "board_spaces": 7},
)
# the bot and debt-seeker games favour larger boards (more cards to spend on: most of them
# then end in debt) and keep the §9 options in play
DEBT_OPTION_SETS = (
    {},
    {"board_spaces": 7},
    {"board_spaces": 9},
    {"board_spaces": 12},
    {"starting_money": "will-shared", "board_spaces": 12},
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


def play_checked_game(n: int, game: int, policy: str = "random") -> dict:
    """Play one seeded game with every check, its actions chosen by `policy` (random, bots or
    debt); return its number of decisions, rounds and whether it ended in debt."""
    sets = OPTION_SETS if policy == "random" else DEBT_OPTION_SETS
    options = sets[game % len(sets)]
    config = make_config(n, **options)
    seed = 7919 * game + n + POLICY_SEED[policy]
    rnd = random.Random(f"{n}-{game}" if policy == "random" else f"{policy}-{n}-{game}")
    choose = choosers(policy, n, game, random.Random(f"choose-{policy}-{n}-{game}"))
    s = new_game(config, seed)
    start_money = s.money[:]
    where = f"{n}p game {game} seed {seed} options {options} policy {policy}"
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
        a = rnd.choice(legal) if policy == "random" else choose[s.cur](s, legal)
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
    r = results(s)
    return {
        "decisions": steps,
        "rounds": r["rounds"],
        "debt": any(m < 0 for m in r["money"]),
        "bankrupt": any(r["bankrupt"]),
    }


def run_playouts(n: int, games: int, policy: str = "random") -> list[dict]:
    outcomes = [play_checked_game(n, game, policy) for game in range(games)]
    most = max(o["decisions"] for o in outcomes)
    print(f"{n} players, {policy}: {games} games, at most {most} decisions per game")
    assert most <= MAX_DECISIONS_PER_GAME
    return outcomes


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_playouts(n):
    run_playouts(n, DEFAULT_GAMES)


# Floors on the games that reach §5/§7/§8's debt branch, out of 4 x POLICY_GAMES = 200 per
# policy. The games are seeded, so the counts are fixed for a given engine and bots; the floors
# leave room for rule or bot changes (the test prints the counts measured, `pytest -s`).
DEBT_FLOORS = {"bots": (120, 40), "debt": (120, 40)}  # (in debt or early, early)


@pytest.mark.parametrize("policy", ["bots", "debt"])
def test_playouts_that_reach_debt_and_early_bankruptcy(policy):
    outcomes = [o for n in PLAYER_COUNTS for o in run_playouts(n, POLICY_GAMES, policy)]
    debt = sum(o["debt"] for o in outcomes)
    early = sum(o["rounds"] < NUM_ROUNDS for o in outcomes)
    either = sum(o["debt"] or o["rounds"] < NUM_ROUNDS for o in outcomes)
    print(
        f"{policy}: {len(outcomes)} games with every invariant check; {debt} ended in debt, "
        f"{early} before round {NUM_ROUNDS}, {either} either"
    )
    floor_either, floor_early = DEBT_FLOORS[policy]
    assert either >= floor_either, (either, floor_either)
    assert early >= floor_early, (early, floor_early)
    assert all(o["bankrupt"] for o in outcomes if o["rounds"] < NUM_ROUNDS)


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
