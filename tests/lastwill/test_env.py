"""The PettingZoo AEC env (`lastwill_env.env`) and the encoding (`lastwill_env.encoding`).

PettingZoo's own `api_test` / `seed_test`, exact masks over random playouts, the action table
round trip, observation shape/dtype/bounds, hidden-information invariance (docs/RULES.md §10),
rewards, illegal actions, rendering and the registry.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import lastwill_env
from lastwill_env import encoding as enc
from lastwill_env.encoding import (
    OBS_PIECES,
    OBS_SIZE,
    STATE_SIZE,
    action_mask,
    describe,
    encode_observation,
    encode_state,
    terminal_rewards,
)
from lastwill_env.engine import (
    ACTION_TABLE,
    NUM_ACTIONS,
    ConfigError,
    IllegalActionError,
    decode,
    describe_action,
    encode,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.env import env as make_env
from lastwill_env.env import raw_env

PLAYER_COUNTS = (2, 3, 4, 5)

# api_test warns about every Dict-observation env it does not know by name (the classic
# envs are on its allow list): the observation is {"observation", "action_mask"} by design.
DICT_OBS_WARNINGS = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


def _random_play(e, rng, max_steps=100_000, check=None):
    """Play the raw/wrapped env with random masked actions until the game ends."""
    steps = 0
    for agent in e.agent_iter(max_steps):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs, info)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps


# ---------------------------------------------------------------------------------------------
# PettingZoo's own tests


@pytest.mark.filterwarnings(*DICT_OBS_WARNINGS)
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_api_test(n):
    api_test(make_env(num_players=n), num_cycles=150)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_seed_test(n):
    seed_test(lambda: make_env(num_players=n), num_cycles=100)


@pytest.mark.filterwarnings(*DICT_OBS_WARNINGS)
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_raw_env_api_test(n):
    api_test(raw_env(num_players=n), num_cycles=100)


def _stock_wrapped(**kwargs):
    """raw_env inside PettingZoo's own two wrappers, as env() built it before."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))


def _outcome(f):
    try:
        return ("ok", f())
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return (type(exc).__name__, str(exc))


def _misuse_probe(e) -> list:
    """What each out-of-order call does: before reset, a bad action, a step after the game."""
    out = [_outcome(lambda a=a: getattr(e, a)) for a in ("agents", "agent_selection", "infos")]
    out += [_outcome(e.last), _outcome(lambda: e.step(0)), _outcome(lambda: e.observe("player_0"))]
    out.append(_outcome(lambda: len(list(e.agent_iter()))))
    e.reset(seed=4)
    out.append(_outcome(lambda: e.step(-1)))
    out.append(_outcome(lambda: e.step(10_000)))
    out.append(_outcome(lambda: e.num_agents))
    return out


def test_wrapped_env_checks_exactly_like_pettingzoos_wrappers():
    from pettingzoo.utils import wrappers

    e = make_env(num_players=3)
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(e.unwrapped, raw_env) and str(e) == "lastwill_v1"
    probe = _misuse_probe(e)
    assert probe == _misuse_probe(_stock_wrapped(num_players=3))
    assert probe[0][0] == "AttributeError" and probe[4] == (
        "AssertionError",
        "reset() needs to be called before step.",
    )
    assert probe[-3] == ("AssertionError", "action is not in action space")


def test_wrapped_and_raw_env_play_the_same_game(caplog):
    def trace(e):
        rng = np.random.default_rng(3)
        e.reset(seed=11)
        out = []
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew))
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
        return out

    fast = trace(make_env(num_players=4))
    assert fast == trace(raw_env(num_players=4)) == trace(_stock_wrapped(num_players=4))
    assert len(fast) > 100
    e = make_env(num_players=2)
    e.reset(seed=1)
    while e.agents:
        e.step(None if e.terminations[e.agent_selection] else int(e.game.legal_actions()[0]))
    e.step(None)
    assert "step() called after all agents are terminated" in caplog.text


# ---------------------------------------------------------------------------------------------
# Masks, observations, encoding


def test_mask_equals_engine_legal_set_over_random_playouts():
    rng = np.random.default_rng(0)
    total = 0
    for game in range(24):
        n = PLAYER_COUNTS[game % 4]
        e = raw_env(num_players=n)
        e.reset(seed=1000 + game)

        def check(e, agent, obs, info):
            s = e.unwrapped.game
            assert e.agent_selection == f"player_{s.cur}"
            want = action_mask(legal_actions(s))
            assert obs["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(obs["action_mask"], want)
            np.testing.assert_array_equal(info["action_mask"], want)
            assert want.sum() >= 1
            for other in e.agents:
                if other != agent:
                    assert not e.observe(other)["action_mask"].any()
                    assert not e.infos[other]["action_mask"].any()

        total += _random_play(e, rng, check=check)
        if total >= 6000:
            break
    assert total >= 6000


def test_fast_encoder_equals_view_encoder_for_every_seat():
    rng = np.random.default_rng(1)
    for game in range(4):
        n = PLAYER_COUNTS[game]
        s = new_game(n, 77 + game)
        k = 0
        while True:
            if k % 3 == 0 or s.is_over:
                for seat in range(n):
                    a = encode_state(s, seat)
                    b = encode_observation(player_view(s, seat))
                    np.testing.assert_array_equal(a, b, err_msg=f"seat {seat} step {k}")
            if s.is_over:
                break
            legal = legal_actions(s)
            s.apply_action(legal[int(rng.integers(len(legal)))])
            k += 1


def test_observation_shape_dtype_bounds_for_all_player_counts():
    rng = np.random.default_rng(2)
    for n in PLAYER_COUNTS:
        e = make_env(num_players=n)
        e.reset(seed=n)
        space = e.observation_space(e.possible_agents[0])
        assert space["observation"].shape == (OBS_SIZE,)

        def check(e, agent, obs, info, space=space):
            x = obs["observation"]
            assert x.shape == (OBS_SIZE,) and x.dtype == np.float32
            assert np.isfinite(x).all()
            assert space.contains(obs)

        _random_play(e, rng, check=check)


def test_obs_pieces_layout():
    assert sum(size for _, size, _ in OBS_PIECES) == OBS_SIZE
    names = [name for name, _, _ in OBS_PIECES]
    assert len(names) == len(set(names))
    for name in ("round", "phase", "resolving_card", "own_hand", "discards", "box"):
        assert name in names
    assert len(enc.piece_slices()) == len(OBS_PIECES)


def test_absent_seats_are_zero_and_flagged():
    s = new_game(2, 5)
    x = encode_state(s, 0)
    sl = enc.piece_slices()
    assert x[sl["seat0.present"]][0] == 1 and x[sl["seat1.present"]][0] == 1
    for r in (2, 3, 4):
        for f, *_ in enc.SEAT_FIELDS:
            assert not x[sl[f"seat{r}.{f}"]].any()
        assert not x[sl[f"board{r}"]].any()


def test_describe_prints_pieces_by_name():
    s = new_game(3, 11)
    text = describe(encode_state(s, s.cur))
    for name, _, _ in OBS_PIECES:
        assert re.search(rf"^{re.escape(name)}: ", text, re.M), name
    assert "phase: keep starting cards" in text
    assert "seat0.money: 70" in text
    hand_names = [lastwill_env.engine.CATALOGUE.cards[c].name for c in s.hands[s.cur]]
    assert all(h in text for h in hand_names)
    with pytest.raises(ValueError, match="OBS_SIZE"):
        describe(np.zeros(3))


def test_action_table_round_trip_and_unique_names():
    assert len(ACTION_TABLE) == NUM_ACTIONS
    for i in range(NUM_ACTIONS):
        kind, arg = decode(i)
        assert encode(kind, arg) == i
    names = [describe_action(i) for i in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    m = action_mask([0, 5, NUM_ACTIONS - 1])
    assert m.dtype == np.int8 and m.shape == (NUM_ACTIONS,) and m.sum() == 3


def _hidden_info_variants(s, seat, rng):
    """Copies of `s` that differ only in what `seat` cannot see."""
    out = []
    others = [p for p in range(s.n) if p != seat and s.hands[p]]
    decks = [d for d in range(4) if s.decks[d]]
    if others and decks:
        t = s.clone()
        p = others[int(rng.integers(len(others)))]
        d = decks[int(rng.integers(len(decks)))]
        i = int(rng.integers(len(t.hands[p])))
        j = int(rng.integers(len(t.decks[d])))
        t.hands[p][i], t.decks[d][j] = t.decks[d][j], t.hands[p][i]
        out.append(t)
    for d in decks:
        t = s.clone()
        rng.shuffle(t.decks[d])
        out.append(t)
    if len(s.special) > 1:
        t = s.clone()
        rng.shuffle(t.special)
        out.append(t)
    hidden_piles = [d for d in range(4) if s.hidden[d] and s.decks[d]]
    if hidden_piles:
        t = s.clone()
        d = hidden_piles[0]
        t.discards[d][0], t.decks[d][-1] = t.decks[d][-1], t.discards[d][0]
        out.append(t)
    for t in out:
        t._legal = None
    return out


def test_hidden_information_does_not_change_obs_or_mask():
    rng = np.random.default_rng(3)
    checked = 0
    for game in range(8):
        n = PLAYER_COUNTS[game % 4]
        s = new_game(n, 500 + game)
        k = 0
        while not s.is_over:
            if k % 7 == 0:
                seat = s.cur
                x = encode_state(s, seat)
                idx, vals = enc.encode_state_sparse(s, seat)
                m = action_mask(legal_actions(s))
                for t in _hidden_info_variants(s, seat, rng):
                    np.testing.assert_array_equal(encode_state(t, seat), x)
                    t_idx, t_vals = enc.encode_state_sparse(t, seat)
                    np.testing.assert_array_equal(t_idx, idx)
                    np.testing.assert_array_equal(t_vals, vals)
                    np.testing.assert_array_equal(encode_observation(player_view(t, seat)), x)
                    np.testing.assert_array_equal(action_mask(legal_actions(t)), m)
                    checked += 1
            legal = legal_actions(s)
            s.apply_action(legal[int(rng.integers(len(legal)))])
            k += 1
    assert checked > 200


# ---------------------------------------------------------------------------------------------
# Rewards, termination, illegal actions


@pytest.mark.parametrize("mode", ["zero_sum", "rank"])
def test_terminal_rewards(mode):
    rng = np.random.default_rng(4)
    for n in PLAYER_COUNTS:
        e = raw_env(num_players=n, reward=mode)
        e.reset(seed=40 + n)
        final = {}
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                final[agent] = (rew, info)
                e.step(None)
                continue
            assert rew == 0
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
        assert set(final) == set(e.possible_agents) and not e.agents
        rewards = [final[a][0] for a in e.possible_agents]
        ranks = [final[a][1]["rank"] for a in e.possible_agents]
        assert sorted(ranks) == list(range(1, n + 1))
        assert abs(sum(rewards)) < 1e-9
        for r, k in zip(rewards, ranks, strict=True):
            if mode == "zero_sum":
                assert r == (1.0 if k == 1 else pytest.approx(-1.0 / (n - 1)))
            else:
                assert r == pytest.approx((n - k) / (n - 1) * 2 - 1)
        winner = final[e.possible_agents[0]][1]["winner"]
        assert final[winner][1]["rank"] == 1


def test_terminal_rewards_function():
    assert terminal_rewards([2, 1, 3], "zero_sum") == [-0.5, 1.0, -0.5]
    assert terminal_rewards([2, 1, 3], "rank") == [0.0, 1.0, -1.0]
    with pytest.raises(ValueError, match="zero_sum"):
        terminal_rewards([1, 2], "nope")


def test_illegal_action_raises_naming_it():
    e = make_env(num_players=3)
    e.reset(seed=0)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = e.agent_selection
    before = e.unwrapped.game.to_dict()
    with pytest.raises(IllegalActionError) as err:
        e.step(illegal)
    msg = str(err.value)
    assert describe_action(illegal) in msg and "legal actions" in msg
    legal0 = int(np.flatnonzero(obs["action_mask"])[0])
    assert describe_action(legal0) in msg
    assert e.unwrapped.game.to_dict() == before and e.agent_selection == agent


def test_illegal_action_penalize_ends_game():
    e = make_env(num_players=4, illegal_action="penalize", illegal_penalty=-2.5)
    e.reset(seed=0)
    obs, *_ = e.last()
    offender = e.agent_selection
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    seen = {}
    for agent in e.agent_iter():
        _, rew, term, _, info = e.last()
        assert term
        seen[agent] = rew
        e.step(None)
    assert seen[offender] == -2.5
    assert all(v == 0 for a, v in seen.items() if a != offender)
    assert len(seen) == 4


def test_options_are_validated():
    with pytest.raises(ConfigError, match="num_players"):
        raw_env(num_players=6)
    with pytest.raises(ConfigError, match="unknown configuration"):
        raw_env(colour="red")
    with pytest.raises(ConfigError, match="starting_money"):
        raw_env(starting_money=50)
    with pytest.raises(ConfigError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(ConfigError, match="illegal_action"):
        raw_env(illegal_action="ignore")
    with pytest.raises(ConfigError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    e = raw_env(num_players=2, starting_money="will-each", board_spaces=4)
    e.reset(seed=3)
    assert e.game.cfg.board_spaces == 4


# ---------------------------------------------------------------------------------------------
# Misc API


def test_env_basics_render_state_and_agent_selection():
    e = raw_env(num_players=4, render_mode="ansi")
    assert e.metadata["name"] == "lastwill_v1"
    assert e.metadata["render_modes"] == ["ansi", "human"]
    assert e.metadata["is_parallelizable"] is False
    e.reset(seed=9)
    assert e.possible_agents == [f"player_{i}" for i in range(4)]
    assert e.agent_selection == f"player_{e.game.cur}"
    text = e.render()
    assert isinstance(text, str)
    assert f"seen by player_{e.game.cur}" in text and "£70" in text and "legal:" in text
    assert e.state().shape == (STATE_SIZE,) and e.state().dtype == np.float32
    assert e.action_space("player_0").n == NUM_ACTIONS
    assert e.describe_action(0) == "pass"


def test_reset_seed_reproduces_engine_game():
    e = raw_env(num_players=3)
    e.reset(seed=123)
    assert e.game.to_dict() == new_game(e.config, 123).to_dict()
    e.reset()
    first = e.game.to_dict()
    e.reset(seed=123)
    e.reset()
    assert e.game.to_dict() == first


def test_human_render_prints(capsys):
    e = raw_env(num_players=2, render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "Last Will, 2 players" in capsys.readouterr().out


def test_package_exports_and_registry():
    import pettingzoo

    assert lastwill_env.ENV_NAME == "lastwill_v1" and lastwill_env.ENV_VERSION == 1
    assert re.fullmatch(r"[0-9a-f]{64}", lastwill_env.ACTION_TABLE_HASH)
    assert callable(lastwill_env.env) and lastwill_env.raw_env is raw_env
    assert lastwill_env.describe is describe
    e = pettingzoo.make("aec", "lastwill_v1", num_players=3)
    assert e.unwrapped.config.num_players == 3 and len(e.possible_agents) == 3
    e2 = lastwill_env.env(num_players=2)
    assert len(e2.possible_agents) == 2


def test_engine_imports_and_plays_with_no_third_party_package():
    # `python -S`: no site-packages at all, only the checkout; the package and the engine
    # import and play a game to the end, and nothing third-party is imported
    root = Path(lastwill_env.__file__).resolve().parent.parent
    code = (
        "import sys; sys.path.insert(0, '.'); import lastwill_env, lastwill_env.engine as e; "
        "from lastwill_env.engine import GameConfig, new_game; "
        "g = new_game(GameConfig(num_players=3), 1)\n"
        "while not g.is_over: g.apply_action(g.legal_actions()[0])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'gymnasium', "
        "'pettingzoo'}))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=root
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_importing_the_env_module_registers_with_pettingzoo():
    code = (
        "import lastwill_env, pettingzoo, lastwill_env.env; "
        "e = pettingzoo.make('aec', 'lastwill_v1', num_players=5); "
        "assert len(e.possible_agents) == 5"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pettingzoo_first_registers_on_importing_the_package_once():
    code = (
        "import warnings; warnings.simplefilter('error'); import pettingzoo, lastwill_env; "
        "lastwill_env.register(); import lastwill_env.env; "
        "e = pettingzoo.make('aec', 'lastwill_v1', num_players=2); print(len(e.possible_agents))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "2"
