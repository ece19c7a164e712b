"""`gameenv`: the environments over any `gamecore.Game`, on the tiny game of
`tests/support/tinygame.py` ("tally", 2-4 players) and on Money! where
`gamecore.load_game("money")` works.

PettingZoo's `api_test` / `seed_test` (every player count), Gymnasium's `check_env`, masks
exactly `game.legal_actions`, observations exactly the seat's `encode_observation(player_view)`,
rewards exactly `game.terminal_rewards(ranks, mode)`, a full random game at every player count
in each env, opponents, truncation, rendering of hidden moves, seeding, and the bad-input
errors. The RLlib env's logic runs here without Ray (`MultiAgentCore`); the class on RLlib's
base (`GameMultiAgentEnv`) is marked `ray` and skips where Ray is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
import tinygame  # noqa: E402
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import gameenv  # noqa: E402
from gamecore import SILENT, GameNotFound, load_game  # noqa: E402
from gameenv import IllegalActionError  # noqa: E402
from gameenv.aec import env as make_env  # noqa: E402
from gameenv.aec import raw_env  # noqa: E402
from gameenv.rllib import MultiAgentCore  # noqa: E402
from gameenv.single_seat import RandomOpponent, SingleSeatEnv  # noqa: E402

TALLY = tinygame.install()
MODES = ("zero_sum", "rank")

# api_test warns about every Dict-observation env it does not know by name; check_env about
# unbounded boxes (the seam promises no observation bounds, so the box is unbounded).
QUIET = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:.*A Box observation space m.*infinity:UserWarning",
    "ignore:.*No render fps was declared:UserWarning",
    "ignore:.*Not able to test alternative render modes:UserWarning",
]


def money():
    """Money! through the registry, or a skip that says why it cannot be loaded yet."""
    try:
        return load_game("money")
    except (GameNotFound, ImportError) as e:
        pytest.skip(
            f"Money! is not loadable through gamecore.load_game('money') ({type(e).__name__}: "
            f"{e}); money_env/lab.py must be declared in the entry-point group "
            f"lastwill_lab.games and the package reinstalled"
        )


def games_and_counts():
    """(game getter, player count) for tally's counts and Money!'s 3-5."""
    out = [pytest.param(lambda: TALLY, n, id=f"tally-{n}") for n in TALLY.player_counts]
    return out + [pytest.param(money, n, id=f"money-{n}") for n in (3, 4, 5)]


def _aec_random_game(e, rng, check=None):
    """Play an AEC env with random masked actions to the end; the final rewards."""
    final = {}
    for agent in e.agent_iter(100_000):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = rew  # the cumulative reward (a dead step clears `rewards`)
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs, info)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return final


# ---------------------------------------------------------------------------------------------
# PettingZoo AEC


@pytest.mark.filterwarnings(*QUIET)
@pytest.mark.parametrize(("get", "n"), games_and_counts())
def test_api_test_and_seed_test(get, n):
    game = get()
    api_test(make_env(game, num_players=n), num_cycles=200)
    api_test(raw_env(game.name, num_players=n), num_cycles=200)
    seed_test(lambda: make_env(game, num_players=n), num_cycles=200)
    assert str(make_env(game, num_players=n)) == game.env_name


def _aec_check(e, agent, obs, info):
    """The mask is exactly the game's legal set for the agent to act, zeros for the others;
    the observation is exactly that seat's encoded view."""
    g, s = e.unwrapped.game, e.unwrapped.game_state
    seat = int(agent.split("_")[1])
    assert g.current_player(s) == seat
    want = np.zeros(g.num_actions, np.int8)
    want[g.legal_actions(s)] = 1
    np.testing.assert_array_equal(obs["action_mask"], want)
    assert info["action_mask"] is obs["action_mask"]
    for other in e.agents:
        if other != agent:
            assert not e.observe(other)["action_mask"].any()
    view = g.encode_observation(g.player_view(s, seat))
    np.testing.assert_array_equal(obs["observation"], view)
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (g.obs_size,)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("get", "n"), games_and_counts())
def test_aec_full_random_games_masks_and_rewards(get, n, mode):
    game = get()
    rng = np.random.default_rng(n)
    for seed in range(3):
        e = make_env(game, num_players=n, reward=mode)
        e.reset(seed=seed)
        raw = e.unwrapped
        final = _aec_random_game(e, rng, _aec_check)
        assert e.agents == [] and len(final) == n
        s = raw.game_state
        assert game.is_over(s) and len(raw.moves) == len(game.history(s))
        want = game.terminal_rewards(game.ranks(s), mode)
        assert [final[f"player_{p}"] for p in range(n)] == pytest.approx(want)
        assert sum(final.values()) == pytest.approx(0.0)


def test_aec_final_infos_and_cumulative_rewards():
    e = raw_env(TALLY, num_players=3, reward="rank")
    e.reset(seed=11)
    while not e.terminations[e.agent_selection]:
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))
    s = e.game_state
    ranks = TALLY.ranks(s)
    for p, a in enumerate(e.possible_agents):
        info = e.infos[a]
        assert info["rank"] == ranks[p] and info["ranks"] == ranks
        assert info["winners"] == [f"player_{q}" for q in range(3) if ranks[q] == 1]
        assert info["result"] == TALLY.row_fields(s)
        assert e._cumulative_rewards[a] == pytest.approx(TALLY.terminal_rewards(ranks, "rank")[p])
        assert not e.observe(a)["action_mask"].any()


def test_aec_seeding_same_seed_same_game():
    def deal(e, seed=None):
        e.reset(seed=seed)
        return [list(h) for h in e.game_state.hands]

    a, b = raw_env(TALLY, num_players=4), raw_env(TALLY, num_players=4)
    assert deal(a, 5) == deal(b, np.uint64(5))
    assert [deal(a) for _ in range(3)] == [deal(b) for _ in range(3)]  # continues from 5
    fresh = [deal(raw_env(TALLY, num_players=4)) for _ in range(6)]  # OS entropy
    assert len({str(d) for d in fresh}) > 1


def test_aec_illegal_actions_raise_or_penalize():
    e = raw_env(TALLY, num_players=2)
    e.reset(seed=0)
    agent = e.agent_selection
    legal = TALLY.legal_actions(e.game_state)
    bad = next(a for a in range(TALLY.num_actions) if a not in legal)
    for action in (bad, -1, TALLY.num_actions, 1.0, True, np.float32(0), "0"):
        with pytest.raises(IllegalActionError, match="is not legal"):
            e.step(action)
    assert e.agent_selection == agent and e.moves == []  # unchanged
    e = raw_env(TALLY, num_players=2, illegal_action="penalize", illegal_penalty=-2.5)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError):
        e.step(0.0)  # not an integer: raises in either mode
    agent = e.agent_selection
    e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -2.5 and e._cumulative_rewards[agent] == -2.5
    assert e.infos[agent]["illegal_action"] == bad
    assert sum(e.rewards.values()) == -2.5


class Endless(tinygame.TallyGame):
    """Tally with a tiny decision bound: its games pass DECISION_FACTOR * max_decisions."""

    max_decisions = 1


def test_truncation_past_the_decision_bound():
    game = Endless()
    e = raw_env(game, num_players=4)
    e.reset(seed=1)
    _aec_random_game(e, np.random.default_rng(0))
    assert len(e.moves) == gameenv.DECISION_FACTOR and not game.is_over(e.game_state)
    env = SingleSeatEnv(game, num_players=4)
    env.reset(seed=2)
    trunc, steps = False, 0
    while not trunc:
        _, rew, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        steps += 1
        assert rew == 0.0 and not term
    assert len(env._moves) == gameenv.DECISION_FACTOR and steps <= 3


class Secretive(tinygame.TallyGame):
    """Tally where other seats are told nothing of a 5 and only the fact of a 1."""

    def public_action(self, action):
        return SILENT if action == 4 else None if action == 0 else action


def test_render_shows_what_the_seat_to_act_may_know():
    game = Secretive()
    e = raw_env(game, num_players=2, render_mode="ansi")
    e.reset(seed=3)
    moves = []
    while not game.is_over(e.game_state):
        a = TALLY.legal_actions(e.game_state)[-1 if len(moves) % 2 else 0]
        moves.append((e.game.current_player(e.game_state), a))
        e.step(a)
        text = e.render()
        if game.is_over(e.game_state):
            break
        seat = game.current_player(e.game_state)
        for p, m in moves:
            line = f"player_{p}: {game.action_text(m)}"
            hidden = p != seat and m in (0, 4)
            assert (line in text) != hidden, (line, text)
        assert f"player_{seat} to act:" in text
    assert text.endswith("game over")
    e = raw_env(game, num_players=2)
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert e.render() is None


# ---------------------------------------------------------------------------------------------
# Gymnasium single seat


@pytest.mark.filterwarnings(*QUIET)
@pytest.mark.parametrize("get", [lambda: TALLY, money], ids=["tally", "money"])
def test_check_env(get):
    game = get()
    check_env(SingleSeatEnv(game, illegal_action="penalize"), skip_render_check=True)
    check_env(SingleSeatEnv(game.name, illegal_action="penalize", render_mode="ansi"))
    with pytest.raises(IllegalActionError):  # the default refuses unmasked random actions
        for _ in range(20):
            check_env(SingleSeatEnv(game), skip_render_check=True)


def _single_seat_game(env, rng, seed):
    """Play one episode with random masked actions, checking masks and observations."""
    obs, info = env.reset(seed=seed)
    g = env.game
    while True:
        s = env.game_state
        assert g.current_player(s) == env.seat == info["seat"]
        m = env.action_masks()
        assert m.dtype == bool and list(np.flatnonzero(m)) == g.legal_actions(s)
        np.testing.assert_array_equal(info["action_mask"], m.astype(np.int8))
        np.testing.assert_array_equal(obs, g.encode_observation(g.player_view(s, env.seat)))
        assert obs in env.observation_space
        obs, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(m))))
        if term:
            assert not trunc and not env.action_masks().any()
            return rew, info
        assert rew == 0.0 and not trunc


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("get", "n"), games_and_counts())
def test_single_seat_full_random_games(get, n, mode):
    game = get()
    env = SingleSeatEnv(game, num_players=n, reward=mode)
    rng = np.random.default_rng(n)
    seats = set()
    for seed in range(2 * n):
        rew, info = _single_seat_game(env, rng, seed)
        s, seat = env.game_state, info["seat"]
        seats.add(seat)
        assert info["num_players"] == n and info["ranks"] == game.ranks(s)
        assert info["rank"] == info["ranks"][seat]
        assert info["winners"] == [p for p, r in enumerate(info["ranks"]) if r == 1]
        assert rew == pytest.approx(game.terminal_rewards(info["ranks"], mode)[seat])
    assert len(seats) > 1


def test_single_seat_counts_weights_and_seeding():
    env = SingleSeatEnv(TALLY, player_weights=(0, 1, 3))
    seen = {env.reset(seed=k)[1]["num_players"] for k in range(40)}
    assert seen == {3, 4}
    a, b = SingleSeatEnv(TALLY), SingleSeatEnv("tally")
    for seed in (0, 7, np.int64(9)):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert (ia["num_players"], ia["seat"]) == (ib["num_players"], ib["seat"])
        assert a.game_state == b.game_state


class Watcher:
    """An object opponent: plays its lowest card, needs no view, records what it is told."""

    needs_view = False

    def __init__(self):
        self.views, self.seeds, self.events = [], [], []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def act(self, view, legal):
        self.views.append(view)
        return legal[0]


class Observer(tinygame.HighBot):
    """A `BaseAgent`-style opponent that overrides observe (told the public moves)."""

    needs_view = True

    def __init__(self):
        self.events, self.views = [], []

    def act(self, view, legal):
        self.views.append(view)
        return max(legal)

    def observe(self, event):
        self.events.append(event)


def test_opponents_views_resets_and_events():
    watcher, observer, calls = Watcher(), Observer(), []

    def fn_opp(view, legal, seat):
        calls.append((view is not None, seat))
        return legal[-1]

    env = SingleSeatEnv(TALLY, num_players=4, opponents=[watcher, observer, fn_opp])
    rew, info = _single_seat_game(env, np.random.default_rng(0), 4)
    assert watcher.views and all(v is None for v in watcher.views)
    assert observer.views and all(isinstance(v, dict) for v in observer.views)
    assert calls and all(has_view for has_view, _ in calls)
    assert len(watcher.seeds) == 1 and isinstance(watcher.seeds[0], int)
    acted = [e for e in observer.events if e["type"] == "action"]
    assert len(acted) == 4 * tinygame.HAND - tinygame.HAND  # every move but its own
    assert observer.events[-1] == {"type": "game_over", "results": {"ranks": info["ranks"]}}


def test_single_seat_illegal_actions():
    env = SingleSeatEnv(TALLY, num_players=3)
    env.reset(seed=1)
    bad = next(a for a in range(TALLY.num_actions) if not env.action_masks()[a])
    for action in (bad, -1, 99, 2.0, np.True_):
        with pytest.raises(IllegalActionError, match="is not legal"):
            env.step(action)
    env = SingleSeatEnv(TALLY, num_players=3, illegal_action="penalize", illegal_penalty=-3)
    env.reset(seed=1)
    _, rew, term, trunc, info = env.step(bad)
    assert (rew, term, trunc, info["illegal_action"]) == (-3.0, True, False, bad)
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    cheat = SingleSeatEnv(TALLY, num_players=2, opponents=[lambda view, legal, seat: 99])
    with pytest.raises(IllegalActionError, match="opponent at seat"):
        for seed in range(10):  # the cheat must act before the game ends
            _single_seat_game(cheat, np.random.default_rng(seed), seed)


def test_random_opponent_is_seeded():
    a, b = RandomOpponent(3), RandomOpponent(np.random.default_rng(3))
    legal = [0, 2, 4]
    assert [a(None, legal, 1) for _ in range(20)] == [b(None, legal, 1) for _ in range(20)]


# ---------------------------------------------------------------------------------------------
# RLlib MultiAgentEnv


def _multi_agent_game(e, rng, seed=None):
    """Play one episode of the RLlib env with random masked actions; the last five dicts."""
    obs, infos = e.reset(seed=seed)
    g = e.game
    while True:
        ((agent, o),) = obs.items()
        s, seat = e.game_state, e.agents.index(agent)
        assert g.current_player(s) == seat and o in e.observation_spaces[agent]
        assert list(np.flatnonzero(o["action_mask"])) == g.legal_actions(s)
        np.testing.assert_array_equal(o["observations"], g.encode_state(s, seat))
        out = e.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        obs, rew, term, trunc, infos = out
        if term["__all__"] or trunc["__all__"]:
            return out
        assert rew == {agent: 0.0}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("get", "n"), games_and_counts())
def test_multi_agent_core_full_random_games(get, n, mode):
    game = get()
    e = MultiAgentCore({"game": game.name, "num_players": n, "reward": mode, "seed": n})
    obs, rew, term, trunc, infos = _multi_agent_game(e, np.random.default_rng(n))
    names = [f"player_{p}" for p in range(n)]
    assert sorted(obs) == sorted(rew) == sorted(infos) == names and term["__all__"]
    assert all(not o["action_mask"].any() for o in obs.values())
    ranks = game.ranks(e.game_state)
    want = game.terminal_rewards(ranks, mode)
    assert [rew[a] for a in names] == pytest.approx(want)
    assert [infos[a]["rank"] for a in names] == ranks
    with pytest.raises(RuntimeError, match="reset"):
        e.step({"player_0": 0})


def test_multi_agent_core_counts_seeding_and_errors():
    e = MultiAgentCore({"game": TALLY, "player_weights": [1, 0, 1], "seed": 0, "worker_index": 2})
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    seen = set()
    for _ in range(20):
        e.reset()
        seen.add(len(e.agents))
    assert seen == {2, 4}
    a, b = MultiAgentCore({"game": "tally"}), MultiAgentCore({"game": "tally"})
    rewards_a = _multi_agent_game(a, np.random.default_rng(1), 5)[1]
    assert rewards_a == _multi_agent_game(b, np.random.default_rng(1), 5)[1]
    obs, _ = a.reset(seed=2)
    ((agent, o),) = obs.items()
    other = next(x for x in a.agents if x != agent)
    with pytest.raises(ValueError, match=f"{agent} must act now"):
        a.step({other: 0})
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="is not legal"):
        a.step({agent: bad})
    with pytest.raises(ValueError, match="needs 'game'"):
        MultiAgentCore({})
    with pytest.raises(ValueError, match="colour.*env config keys"):
        MultiAgentCore({"game": "tally", "colour": "red"})


def _legal_first_sample(e):
    """``e`` with one action space, seeded so that its first sample is legal after
    ``reset(seed=42)``: RLlib's checker steps with an unmasked sample, which an env that
    refuses illegal actions rightly raises on."""
    import gymnasium as gym

    obs, _ = e.reset(seed=42)
    ((agent, o),) = obs.items()
    for k in range(1000):
        space = gym.spaces.Discrete(e.game.num_actions, seed=k)
        if o["action_mask"][space.sample()]:
            break
    space.seed(k)
    e.action_spaces = dict.fromkeys(e.possible_agents, space)
    return e


@pytest.mark.ray
def test_game_multi_agent_env_on_rllib():
    pytest.importorskip("ray.rllib", reason="Ray/RLlib is not installed: pip install -e '.[ray]'")
    import pickle

    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from gameenv.rllib import GameMultiAgentEnv

    assert gameenv.GameMultiAgentEnv is GameMultiAgentEnv
    assert pickle.loads(pickle.dumps(GameMultiAgentEnv)) is GameMultiAgentEnv
    e = GameMultiAgentEnv({"game": "tally", "num_players": [2, 3, 4], "seed": 1})
    assert isinstance(e, MultiAgentEnv) and isinstance(e, MultiAgentCore)
    check_multiagent_environments(_legal_first_sample(GameMultiAgentEnv({"game": "tally"})))
    for k in range(6):
        _, rew, term, _, _ = _multi_agent_game(e, np.random.default_rng(k))
        assert term["__all__"] and sum(rew.values()) == pytest.approx(0.0)
    assert pickle.loads(pickle.dumps(e)).game.name == "tally"


# ---------------------------------------------------------------------------------------------
# bad input


ENVS = {
    "aec": lambda game="tally", **kw: raw_env(game, **kw),
    "single_seat": lambda game="tally", **kw: SingleSeatEnv(game, **kw),
    "rllib": lambda game="tally", **kw: MultiAgentCore({"game": game, **kw}),
}


@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS)
def test_bad_input_names_the_value_and_what_is_allowed(make):
    for game in ("no_such_game", "Tally!", 7, None):
        with pytest.raises(ValueError, match=r"game.*choose one of \[.*'tally'"):
            make(game)
    for n in (5, 1, "3", True, 2.0, np.int64(9)):
        with pytest.raises(ValueError, match=r"num_players=.* is not allowed.*\(2, 3, 4\)"):
            make(num_players=n)
    for mode in ("win", None, 1):
        with pytest.raises(ValueError, match=r"reward=.* is not allowed.*'zero_sum', 'rank'"):
            make(reward=mode)
    with pytest.raises(ValueError, match="colour"):
        make(colour="red")


@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS)
def test_bad_seed_names_the_value_and_the_range(make):
    e = make(num_players=np.int64(3))
    for seed in (-1, 2**64, 1.5, "7", True, np.float64(2.0)):
        with pytest.raises(ValueError, match=r"seed=.* is not allowed; use an integer from 0 to"):
            e.reset(seed=seed)
    e.reset(seed=2**64 - 1)


def test_bad_options_of_each_env():
    with pytest.raises(ValueError, match="illegal_action='warn' is not allowed"):
        raw_env(TALLY, illegal_action="warn")
    with pytest.raises(ValueError, match="illegal_penalty=nan is not allowed"):
        SingleSeatEnv(TALLY, illegal_penalty=float("nan"))
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not allowed"):
        SingleSeatEnv(TALLY, render_mode="rgb_array")
    with pytest.raises(ValueError, match="player_weights=.* must be 3 finite"):
        SingleSeatEnv(TALLY, player_weights=[1, 1])
    with pytest.raises(ValueError, match="either opponents or opponents_fn"):
        SingleSeatEnv(TALLY, opponents=[], opponents_fn=lambda n, rng: [])
    with pytest.raises(ValueError, match="1 opponents given; 3 are needed"):
        SingleSeatEnv(TALLY, opponents=[RandomOpponent()])
    with pytest.raises(ValueError, match=r"is not in this game; its agents are \['player_0'"):
        raw_env(TALLY).observation_space("player_7")
    with pytest.raises(RuntimeError, match="reset"):
        raw_env(TALLY).step(0)


def test_package_exports_load_lazily():
    assert gameenv.raw_env is raw_env and gameenv.SingleSeatEnv is SingleSeatEnv
    assert gameenv.env is make_env and gameenv.RandomOpponent is RandomOpponent
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gameenv.nope  # noqa: B018


@pytest.mark.filterwarnings(*QUIET)
def test_last_will_through_the_seam():
    game = load_game("lastwill")
    api_test(make_env(game, num_players=4), num_cycles=100)
    seed_test(lambda: make_env("lastwill", num_players=4), num_cycles=50)
    check_env(SingleSeatEnv(game, num_players=(2, 5), illegal_action="penalize"))
