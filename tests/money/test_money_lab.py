"""Money! on the lab's seam (`money_env.lab.MoneyGame`) and its observation encoder
(`money_env.encoding`): the binding satisfies `gamecore.Game` over random games at 3-5 players,
ranks count from 1 with shared places, bids stay sealed to the other seats, and the encoder's
vector is exact, `obs_size` long, finite, about [0, 1], and blind to hidden information."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys

import numpy as np
import pytest
from paths import REPO

from gamecore import SILENT, Game, RandomAgent, check_ranks, register_game, win_shares
from money_env import ENV_NAME, ENV_VERSION, encoding
from money_env.engine import (
    ADD,
    BID_PHASE,
    COMMIT,
    EXCHANGE_PHASE,
    GAME_OVER,
    KEEP,
    KIND,
    NUM_ACTIONS,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    action_table_text,
    player_view,
    results,
)
from money_env.engine.cards import FIRST_COIN, bluff_of
from money_env.lab import MoneyGame

GAME = MoneyGame()
ROOT = REPO


def random_states(n: int, seed: int, every: int = 1):
    """A uniformly random game through the binding: (states along the way, final state)."""
    rng = random.Random(seed)
    s = GAME.new_game(GAME.make_config(n), seed)
    seen = []
    k = 0
    while not GAME.is_over(s):
        if k % every == 0:
            seen.append(s.clone())
        GAME.apply_action(s, rng.choice(GAME.legal_actions(s)))
        k += 1
    seen.append(s.clone())
    return seen, s


# ---------------------------------------------------------------------------------------------
# Identity and the interface


def test_identity_attributes():
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.title, GAME.env_name, GAME.version) == (
        "money",
        "Money!",
        "money_v0",
        0,
    )
    assert ENV_NAME == "money_v0" and ENV_VERSION == 0
    assert GAME.player_counts == (3, 4, 5)
    assert GAME.num_actions == NUM_ACTIONS == 45
    assert GAME.obs_size == encoding.OBS_SIZE == sum(size for _, size in encoding.OBS_PIECES)
    assert GAME.max_decisions > 0
    assert GAME.result_fields == ("scores", "rounds")
    assert set(GAME.default_panel) <= set(GAME.bots())
    assert len(GAME.default_panel) >= 3
    assert GAME.rollout_bot is None or GAME.rollout_bot in GAME.bots()
    assert repr(GAME) == "<Game money v0>"


def test_action_table_hash_covers_the_table_and_the_layout():
    text = f"money_v0\n{action_table_text()}\n--- observation ---\n{encoding.obs_layout_text()}\n"
    assert GAME.action_table_hash == hashlib.sha256(text.encode()).hexdigest()
    assert len(GAME.action_table_hash) == 64
    # the layout text names every piece, so a changed layout changes the hash
    layout = encoding.obs_layout_text()
    assert all(name in layout for name, _ in encoding.OBS_PIECES)


def test_binding_and_bots_load_and_play_with_the_standard_library_alone():
    code = (
        "import sys\n"
        "from money_env.lab import MoneyGame\n"
        "g = MoneyGame()\n"
        "assert g.obs_size > 0 and len(g.action_table_hash) == 64\n"
        "bots = g.bots()\n"
        "s = g.new_game(g.make_config(4), 3)\n"
        "agents = [bots[name].factory(seed=i) for i, name in "
        "enumerate(['value', 'collector', 'bluffer', 'value'])]\n"
        "while not g.is_over(s):\n"
        "    p = g.current_player(s)\n"
        "    g.apply_action(s, agents[p].act(g.player_view(s, p), g.legal_actions(s)))\n"
        "g.ranks(s); g.row_fields(s); g.seat_results(s, 0)\n"
        "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_configs_are_validated():
    for n in (3, 4, 5):
        cfg = GAME.make_config(n)
        assert cfg.num_players == n
        assert GAME.config_from_dict(cfg.to_dict()) == cfg
    for bad in (2, 6, True, "4"):
        with pytest.raises(ValueError, match="num_players"):
            GAME.make_config(bad)
    with pytest.raises(ValueError, match="unknown"):
        GAME.make_config(4, board="x")
    with pytest.raises(ValueError):
        GAME.config_from_dict({"num_players": 7})


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_method_works_over_random_games(n):
    for seed in range(4):
        cfg = GAME.make_config(n)
        s = GAME.new_game(cfg, 1000 * n + seed)
        assert GAME.num_players(s) == n
        rng = random.Random(seed)
        decisions = 0
        while not GAME.is_over(s):
            seat = GAME.current_player(s)
            assert 0 <= seat < n
            legal = GAME.legal_actions(s)
            assert legal == sorted(set(legal)) and legal
            assert all(0 <= a < GAME.num_actions for a in legal)
            assert all(GAME.action_text(a) for a in legal)
            assert -10.0 < GAME.potential(s, seat) < 10.0
            if decisions % 7 == 0:
                view = GAME.player_view(s, seat)
                obs = GAME.encode_observation(view)
                assert obs.shape == (GAME.obs_size,) and obs.dtype == np.float32
                assert np.array_equal(GAME.encode_state(s, seat), obs)
                idx, vals = GAME.encode_observation_sparse(view)
                assert np.array_equal(idx, np.flatnonzero(obs)) and np.array_equal(vals, obs[idx])
                t = GAME.determinize(view, random.Random(decisions))
                assert GAME.current_player(t) == seat and GAME.legal_actions(t) == legal
                assert np.array_equal(GAME.encode_state(t, seat), obs)
                t2 = GAME.determinize_with(view, random.Random(decisions), cfg)
                assert GAME.legal_actions(t2) == legal
            GAME.apply_action(s, rng.choice(legal))
            decisions += 1
            if decisions % 50 == 0:
                assert "rounds" in GAME.row_fields(s)
                assert GAME.row_fields(s) == {"rounds": s.round}
        assert decisions <= GAME.max_decisions
        # the record replays to the same game
        history = GAME.history(s)
        assert len(history) == decisions
        again = GAME.replay(cfg, 1000 * n + seed, history)
        assert again == s and GAME.is_over(again)
        # results
        ranks = GAME.ranks(s)
        assert check_ranks(ranks) == ranks and min(ranks) == 1
        fields = GAME.row_fields(s)
        assert list(fields) == list(GAME.result_fields)
        assert json.loads(json.dumps(fields)) == fields
        assert fields["scores"] == [r["score"] for r in results(s)]
        assert all(type(x) is int for x in fields["scores"]) and type(fields["rounds"]) is int
        assert fields["rounds"] == s.round
        for seat in range(n):
            told = GAME.seat_results(s, seat)
            assert json.loads(json.dumps(told)) == told
            assert told["ranks"] == ranks[seat:] + ranks[:seat]  # relative to the seat
            assert told["scores"][0] == fields["scores"][seat]
            assert 0.0 <= GAME.playout_score(s, seat) <= 1.0
        assert sum(GAME.terminal_rewards(ranks)) == pytest.approx(0.0)
        final = GAME.encode_observation(GAME.player_view(s, 0))
        assert np.isfinite(final).all()


def test_an_illegal_action_raises_and_changes_nothing():
    s = GAME.new_game(GAME.make_config(3), 5)
    before = s.clone()
    for bad in (COMMIT, KEEP, NUM_ACTIONS, -1, 1.5, None):
        with pytest.raises(ValueError):
            GAME.apply_action(s, bad)
    assert s == before


# ---------------------------------------------------------------------------------------------
# Ranks: 1 = best, ties shared


def _finished(n: int, seed: int = 0):
    _, s = random_states(n, seed, every=10**9)
    return s


def test_ranks_count_from_one_and_ties_share_a_place():
    s = _finished(3)
    coins = list(range(FIRST_COIN, FIRST_COIN + 6))
    s.hands = [sorted(h) for h in ([coins[0], coins[1]], [coins[2], coins[3]], [coins[4]])]
    assert [r["score"] for r in results(s)] == [20, 20, 10]
    assert GAME.ranks(s) == [1, 1, 3]
    assert win_shares(GAME.ranks(s)) == [0.5, 0.5, 0.0]
    s.hands = [[coins[4]], [coins[0], coins[1]], [coins[2], coins[3]]]
    assert GAME.ranks(s) == [3, 1, 1]
    s.hands = [[coins[0]], [coins[1], coins[2]], [coins[3], coins[4], coins[5]]]
    assert GAME.ranks(s) == [3, 2, 1]
    s.hands = [[], [], []]
    assert GAME.ranks(s) == [1, 1, 1]
    assert GAME.seat_results(s, 1)["win_shares"] == [pytest.approx(1 / 3)] * 3


@pytest.mark.parametrize("n", [3, 4, 5])
def test_ranks_follow_the_scores_in_played_games(n):
    for seed in range(10):
        s = _finished(n, seed)
        scores = GAME.row_fields(s)["scores"]
        ranks = GAME.ranks(s)
        assert ranks == [1 + sum(t > x for t in scores) for x in scores]
        assert check_ranks(ranks) == ranks


# ---------------------------------------------------------------------------------------------
# What the other seats learn of an action


def test_public_action_hides_every_bid_action_and_shows_the_exchanges():
    for a in range(ADD, COMMIT + 1):
        assert GAME.public_action(a) is SILENT
    for a in (TAKE_RIGHT, TAKE_LEFT, TAKE_BID, TAKE_BID + 3, KEEP):
        assert GAME.public_action(a) == a


def _told(s, actions):
    """Play `actions` on a copy of `s`; what each seat is told of the others' actions (as the
    arena tells observers: `public_action`, SILENT ones not at all) and the final views."""
    s = s.clone()
    told = {p: [] for p in range(s.n)}
    for a in actions:
        seat = s.cur
        GAME.apply_action(s, a)
        shown = GAME.public_action(a)
        if shown is not SILENT:
            for p in range(s.n):
                if p != seat:
                    told[p].append(((seat - p) % s.n, shown))
    return told, s


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_other_seat_learns_anything_of_a_bid_before_the_reveal(n):
    s = GAME.new_game(GAME.make_config(n), 70 + n)
    hand = s.hands[0]
    bids = [[hand[0]], hand[:4], hand, [bluff_of(0)]]
    seen = []
    for cards in bids:
        actions = [ADD + KIND[c] for c in sorted(cards)] + [COMMIT]
        told, t = _told(s, actions)
        assert t.cur == 1  # seat 1 bids now
        seen.append((told, [GAME.player_view(t, p) for p in range(1, n)]))
        obs = [GAME.encode_state(t, p) for p in range(1, n)]
        seen[-1] = (*seen[-1], obs)
    first_told, first_views, first_obs = seen[0]
    for told, views, obs in seen[1:]:
        assert told == first_told == {p: [] for p in range(n)}
        assert views == first_views
        assert all(np.array_equal(a, b) for a, b in zip(obs, first_obs, strict=True))


def test_exchange_actions_are_told():
    s = GAME.new_game(GAME.make_config(3), 9)
    actions = []
    t = s.clone()
    while t.phase == BID_PHASE:
        a = ADD + KIND[t.hands[t.cur][0]] if not t.sel[t.cur] else COMMIT
        actions.append(a)
        GAME.apply_action(t, a)
    assert t.phase == EXCHANGE_PHASE
    actor = t.cur
    actions.append(TAKE_RIGHT)
    told, _ = _told(s, actions)
    assert all(told[p] == [((actor - p) % 3, TAKE_RIGHT)] for p in range(3) if p != actor)


# ---------------------------------------------------------------------------------------------
# The encoder


def test_the_layout_is_consistent():
    names = [name for name, _ in encoding.OBS_PIECES]
    assert len(names) == len(set(names))
    assert all(size > 0 for _, size in encoding.OBS_PIECES)
    slices = encoding.piece_slices()
    assert slices["hand"] == slice(0, 37)
    covered = sorted(i for sl in slices.values() for i in range(sl.start, sl.stop))
    assert covered == list(range(encoding.OBS_SIZE))
    assert encoding.SEAT_BLOCK * 5 + encoding.OBS_OFFSETS["seat0.present"] == encoding.OBS_SIZE
    assert encoding.obs_layout_text().count("\n") == len(encoding.OBS_PIECES)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_observations_are_exact_finite_and_scaled(n):
    states, _ = random_states(n, 300 + n, every=3)
    out = np.full(GAME.obs_size, 7.0, dtype=np.float32)
    for s in states:
        for p in range(n):
            view = player_view(s, p)
            obs = GAME.encode_observation(view)
            assert obs.shape == (GAME.obs_size,) and obs.dtype == np.float32
            assert np.isfinite(obs).all()
            assert obs.min() >= 0.0 and obs.max() <= 3.0
            # the same view (and an equal one built again) gives the same vector
            assert np.array_equal(obs, GAME.encode_observation(player_view(s, p)))
            back = GAME.encode_observation(view, out)
            assert back is out and np.array_equal(out, obs)
            d = encoding.describe(obs)
            # the pieces say what the view says
            assert d["phase"][view.phase] == 1.0 and sum(d["phase"]) == 1.0
            assert d["num_players"] == [float(k == n) for k in (3, 4, 5)]
            counts = [0] * 37
            for c in view.hand:
                counts[KIND[c]] += 1
            copies = encoding.KIND_COPIES
            assert [round(x * copies[k]) for k, x in enumerate(d["hand"])] == counts
            present = [obs[encoding.OBS_OFFSETS[f"seat{r}.present"]] for r in range(5)]
            assert present == [1.0] * n + [0.0] * (5 - n)
            for r in range(n, 5):  # absent seats are all zeros
                o = encoding.OBS_OFFSETS[f"seat{r}.present"]
                assert not obs[o : o + encoding.SEAT_BLOCK].any()
            if view.to_act >= 0:
                assert d["to_act"][view.to_act] == 1.0


def test_the_encoding_changes_with_what_the_viewer_sees():
    # so the no-leak checks below can fail: a public move or an own card does change it
    s = GAME.new_game(GAME.make_config(4), 12)
    before = [GAME.encode_state(s, p) for p in range(4)]
    GAME.apply_action(s, ADD + KIND[s.hands[0][0]])
    assert not np.array_equal(GAME.encode_state(s, 0), before[0])  # own bid
    GAME.apply_action(s, COMMIT)
    assert not np.array_equal(GAME.encode_state(s, 2), before[2])  # the turn moved
    committed = encoding.OBS_OFFSETS["seat3.committed"]  # seat 0 is relative seat 3 of seat 1
    assert GAME.encode_state(s, 1)[committed] == 1.0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_hidden_information_changes_the_observation(n):
    """Another seat's hidden bid, its unknown hand cards and the pile's order never change a
    seat's vector: every full state consistent with the view (sampled by the engine's
    determinization, which deals the hidden cards and bids anew) encodes the same."""
    states, _ = random_states(n, 500 + n, every=5)
    for i, s in enumerate(states):
        for p in range(n):
            view = player_view(s, p)
            obs = encoding.encode_observation(view)
            for k in range(3):
                t = GAME.determinize(view, random.Random(1000 * i + 10 * p + k))
                assert np.array_equal(GAME.encode_state(t, p), obs)


def test_other_seats_hidden_bids_do_not_change_the_observation():
    n = 5
    s = GAME.new_game(GAME.make_config(n), 21)
    # seats 0-2 commit different bids; seats 3 and 4 watch (and seat 3 is to bid)
    variants = []
    for pick in ([0], [0, 1, 2], [0, 1, 2, 3, 4, 5], [6]):
        t = s.clone()
        for seat in range(3):
            for j in pick:
                GAME.apply_action(t, ADD + KIND[t.hands[seat][j]])
            GAME.apply_action(t, COMMIT)
        # and seat 3 starts its own bid: seat 4 sees nothing of it
        GAME.apply_action(t, ADD + KIND[t.hands[3][0]])
        variants.append(t)
    assert len({tuple(v.sel[0]) for v in variants}) == 4  # the bids differ
    for p in (4,):
        first = GAME.encode_state(variants[0], p)
        assert all(np.array_equal(GAME.encode_state(v, p), first) for v in variants[1:])
    first = GAME.encode_state(variants[0], 3)  # seat 3 sees only its own bid
    assert all(np.array_equal(GAME.encode_state(v, 3), first) for v in variants[1:])
    # swapping hidden hand cards between two other seats changes nothing either
    t = variants[0].clone()
    a = next(c for c in t.hands[1] if c not in t.known[1] and c not in t.sel[1])
    b = next(c for c in t.hands[2] if c not in t.known[2] and c not in t.sel[2])
    t.hands[1] = sorted(set(t.hands[1]) - {a} | {b})
    t.hands[2] = sorted(set(t.hands[2]) - {b} | {a})
    assert np.array_equal(GAME.encode_state(t, 4), GAME.encode_state(variants[0], 4))
    assert not np.array_equal(GAME.encode_state(t, 1), GAME.encode_state(variants[0], 1))


def test_the_final_observation_shows_the_results_phase():
    _, s = random_states(3, 8, every=10**9)
    obs = GAME.encode_observation(GAME.player_view(s, 0))
    d = encoding.describe(obs)
    assert d["phase"] == [0.0, 0.0, 1.0] and "to_act" not in d
    assert s.phase == GAME_OVER


# ---------------------------------------------------------------------------------------------
# Through the harness


def test_the_arena_plays_money_through_the_seam():
    from agents.arena import play_game, replay_row

    register_game("money", MoneyGame)
    specs = ["value", "collector", "bluffer", "random"]
    for seed in range(3):
        row = play_game(specs, GAME.make_config(4).to_dict(), seed, game_name="money")
        assert row["error"] is None, row["error"]
        keys = list(row)
        assert keys[keys.index("ranks") + 1 : keys.index("ranks") + 3] == ["scores", "rounds"]
        state = replay_row(row, "money")
        assert GAME.is_over(state) and row["ranks"] == GAME.ranks(state)
        assert row["scores"] == GAME.row_fields(state)["scores"]


def test_random_agent_plays_money():
    agent = RandomAgent(3)
    s = GAME.new_game(GAME.make_config(3), 3)
    while not GAME.is_over(s):
        GAME.apply_action(s, agent.act(None, GAME.legal_actions(s)))
    assert check_ranks(GAME.ranks(s))
