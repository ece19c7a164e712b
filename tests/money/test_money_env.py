"""Money!'s own PettingZoo AEC env (`money_env.env`) against the generic env over the game
(`gameenv.aec`), and its observation cache (`money_env.encoding.ObservationCache`).

The two envs play the same seeded random games at 3, 4 and 5 players in both reward modes,
step by step: the same agent to act, observations (bit for bit, for random sets of agents, so
the cache meets every pattern), masks, rewards, cumulative rewards, terminations, truncations
and infos, through the end of the game, the ``step(None)`` calls of finished agents and the
next unseeded game. The same holds under the truncation guard and for an illegal action in
either mode; bad options, seeds and agent names raise the generic env's errors word for word.
PettingZoo's ``api_test`` and ``seed_test`` pass on both the wrapped and the raw env.
"""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
import tinygame  # noqa: E402
from pettingzoo.test import api_test, seed_test

import gameenv  # noqa: E402
import money_env  # noqa: E402
from gamecore import load_game  # noqa: E402
from gameenv.aec import env as generic_env  # noqa: E402
from gameenv.aec import game_env  # noqa: E402
from gameenv.aec import raw_env as generic_raw_env  # noqa: E402
from money_env import encoding  # noqa: E402
from money_env.engine import GAME_OVER, apply_action, legal_actions, new_game  # noqa: E402
from money_env.env import env as make_env  # noqa: E402
from money_env.env import raw_env  # noqa: E402

TALLY = tinygame.install()
COUNTS = (3, 4, 5)
MODES = ("zero_sum", "rank")
QUIET = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:.*No render fps was declared:UserWarning",
    "ignore:.*Not able to test alternative render modes:UserWarning",
]


# ---------------------------------------------------------------------------------------------
# PettingZoo's own checks


@pytest.mark.filterwarnings(*QUIET)
@pytest.mark.parametrize("n", COUNTS)
def test_api_test_and_seed_test(n):
    api_test(make_env(num_players=n), num_cycles=300)
    api_test(raw_env(num_players=n), num_cycles=300)
    seed_test(lambda: make_env(num_players=n), num_cycles=300)


# ---------------------------------------------------------------------------------------------
# The same env as the generic one, step by step


def _array(a: np.ndarray) -> tuple:
    return (type(a).__name__, a.dtype.str, a.shape, a.tobytes())


def _plain(value):
    """`value` with every numpy array made comparable (its type, dtype, shape and bytes)."""
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return (type(value).__name__, value)


def _snapshot(e, observed: list[str]) -> dict:
    """Everything an AEC user can read of `e` now, and the observations of `observed`."""
    r = e.unwrapped
    return _plain(
        {
            "agents": list(r.agents),
            "selection": r.agent_selection,
            "rewards": dict(r.rewards),
            "cumulative": dict(r._cumulative_rewards),
            "terminations": dict(r.terminations),
            "truncations": dict(r.truncations),
            "infos": r.infos,
            "observations": {a: e.observe(a) for a in observed},
            "last": e.last() if r.agents else None,
        }
    )


def _observed(rng: random.Random, e) -> list[str]:
    """Which agents to observe this step: mostly the one to act (the AEC loop), sometimes
    every agent or a random few, in a random order."""
    agents = list(e.possible_agents)
    pick = rng.random()
    if pick < 0.6:
        return [e.agent_selection]
    if pick < 0.8:
        return rng.sample(agents, len(agents))
    return rng.sample(agents, rng.randint(0, len(agents)))


def _play_side_by_side(ours, theirs, rng: random.Random, mess: bool = False) -> int:
    """Play one game in both envs with the same random legal actions, comparing every step
    until every agent is done; with `mess`, change the returned observations in place (which
    must change nothing later). Returns the steps played."""
    steps = 0
    assert _snapshot(ours, [ours.agent_selection]) == _snapshot(theirs, [theirs.agent_selection])
    while ours.agents:
        agent = ours.agent_selection
        if ours.terminations[agent] or ours.truncations[agent]:
            action = None
        else:
            legal = np.flatnonzero(ours.observe(agent)["action_mask"])
            action = int(legal[rng.randrange(legal.size)])
        ours.step(action)
        theirs.step(action)
        steps += 1
        observed = _observed(rng, ours)
        assert _snapshot(ours, observed) == _snapshot(theirs, observed), f"step {steps}"
        if mess and observed:
            ours.observe(observed[0])["observation"][:] = -3.0
    assert not theirs.agents
    return steps


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", COUNTS)
def test_the_same_env_as_the_generic_one_step_by_step(n, mode):
    rng = random.Random(n * 10 + len(mode))
    ours = make_env(num_players=n, reward=mode)
    theirs = generic_env("money", num_players=n, reward=mode)
    ours.reset(seed=1000 + n)
    theirs.reset(seed=1000 + n)
    steps = _play_side_by_side(ours, theirs, rng)
    for _ in range(2):  # the next games: unseeded resets draw the same seeds
        ours.reset()
        theirs.reset()
        steps += _play_side_by_side(ours, theirs, rng, mess=True)
    assert steps > 1000
    r = ours.unwrapped
    assert sorted(r.infos) == [] and r.moves == theirs.unwrapped.moves


def test_the_same_spaces_metadata_and_attributes():
    for n in COUNTS:
        ours, theirs = raw_env(num_players=n), generic_raw_env("money", num_players=n)
        assert ours.metadata == theirs.metadata and ours.metadata["name"] == money_env.ENV_NAME
        assert ours.possible_agents == theirs.possible_agents
        for a in ours.possible_agents:
            assert ours.observation_space(a) == theirs.observation_space(a)
            assert ours.action_space(a) == theirs.action_space(a)
        assert ours.config == theirs.config and ours.game is load_game("money")
    box = raw_env().observation_space("player_0")["observation"]
    assert box.shape == (encoding.OBS_SIZE,) and box.dtype == np.float32
    assert (box.low == 0.0).all() and (box.high == np.float32(9.25)).all()


def test_observations_lie_in_the_declared_bounds():
    for n in COUNTS:
        e = raw_env(num_players=n)
        box = e.observation_space("player_0")["observation"]
        e.reset(seed=n)
        top = 0.0
        rng = np.random.default_rng(n)
        while not e.terminations[e.agent_selection]:
            for a in e.possible_agents:
                obs = e.observe(a)["observation"]
                assert box.contains(obs)
                top = max(top, float(obs.max()))
            legal = np.flatnonzero(e.infos[e.agent_selection]["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
        assert 0.5 < top <= encoding.obs_high()


def test_the_truncation_guard_as_the_generic_env():
    ours, theirs = make_env(num_players=4), generic_env("money", num_players=4)
    for e in (ours, theirs):
        e.unwrapped._limit = 60  # the guard, brought within reach of a short test
        e.reset(seed=5)
    steps = _play_side_by_side(ours, theirs, random.Random(5))
    assert steps == 60 + 4
    assert ours.unwrapped.moves == theirs.unwrapped.moves and len(ours.unwrapped.moves) == 60
    ours.reset(seed=5)
    last = ours.unwrapped
    while not last.truncations[last.agent_selection]:
        last.step(int(np.flatnonzero(last.infos[last.agent_selection]["action_mask"])[0]))
    assert all(last.truncations.values()) and not any(last.terminations.values())
    assert set(last.rewards.values()) == {0.0}


# ---------------------------------------------------------------------------------------------
# Illegal actions and bad input: the generic env's errors


def _outcome(f):
    try:
        return ("ok", f())
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is compared
        return (type(exc).__name__, str(exc))


def test_an_illegal_action_raises_naming_the_legal_ones():
    ours, theirs = raw_env(num_players=3), generic_raw_env("money", num_players=3)
    for e in (ours, theirs):
        e.reset(seed=2)
    legal = legal_actions(ours.game_state)
    assert 37 not in legal  # commit an empty bid
    for bad in (37, 44, -1, 45, 10**30, 3.0, True, np.bool_(True), np.float32(2), "3", None):
        with pytest.raises(gameenv.IllegalActionError) as got:
            ours.step(bad)
        assert str(got.value) == _outcome(lambda b=bad: theirs.step(b))[1]
        assert f"the legal actions are {legal}" in str(got.value) and got.value.legal == legal
    assert ours.game_state.history == [] and ours.moves == []
    ours.step(np.int64(legal[0]))  # a numpy integer is an action
    assert ours.game_state.history == [legal[0]]


def test_an_illegal_action_in_penalize_mode_as_the_generic_env():
    kw = dict(num_players=4, illegal_action="penalize", illegal_penalty=-2.5)
    ours, theirs = make_env(**kw), generic_env("money", **kw)
    for e in (ours, theirs):
        e.reset(seed=8)
    rng = random.Random(8)
    for _ in range(30):
        legal = np.flatnonzero(ours.observe(ours.agent_selection)["action_mask"])
        a = int(legal[rng.randrange(legal.size)])
        ours.step(a)
        theirs.step(a)
    offender = ours.agent_selection
    bad = next(a for a in range(45) if a not in legal_actions(ours.unwrapped.game_state))
    ours.step(bad)
    theirs.step(bad)
    assert _snapshot(ours, ours.possible_agents) == _snapshot(theirs, theirs.possible_agents)
    assert ours.rewards[offender] == -2.5 and ours.infos[offender]["illegal_action"] == bad
    assert all(ours.terminations.values())
    for e in (ours.unwrapped, theirs.unwrapped):  # not an integer: raises in either mode
        e.reset(seed=1)
    got = _outcome(lambda: ours.unwrapped.step(1.0))
    assert got == _outcome(lambda: theirs.unwrapped.step(1.0)) and got[0] == "IllegalActionError"


BAD_OPTIONS = [
    {"num_players": 2},
    {"num_players": 6},
    {"num_players": "4"},
    {"num_players": True},
    {"num_players": 4.0},
    {"reward": "win"},
    {"reward": 3},
    {"reward": ["rank"]},
    {"render_mode": "rgb_array"},
    {"illegal_action": "ignore"},
    {"illegal_penalty": float("nan")},
    {"illegal_penalty": "-1"},
    {"starting_money": 70},
]


@pytest.mark.parametrize("options", BAD_OPTIONS, ids=[repr(o) for o in BAD_OPTIONS])
def test_bad_options_raise_the_generic_env_s_error(options):
    with pytest.raises(ValueError) as got:
        raw_env(**options)
    want = _outcome(lambda: generic_raw_env("money", **options))
    assert want[0] != "ok" and str(got.value) == want[1]
    (name, value), *_ = options.items()
    assert name in str(got.value) or repr(value) in str(got.value)


def test_good_options_and_numpy_player_counts():
    assert len(raw_env().possible_agents) == 3  # None: the smallest, as the generic env
    assert len(raw_env(num_players=np.int64(5)).possible_agents) == 5
    assert raw_env(num_players=None, reward="rank").reward_mode == "rank"


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "7", np.float64(3)])
def test_bad_seeds_raise_the_generic_env_s_error(seed):
    ours, theirs = raw_env(num_players=3), generic_raw_env("money", num_players=3)
    got = _outcome(lambda: ours.reset(seed=seed))
    assert got[0] == "ConfigError" and "seed" in got[1]
    assert got == _outcome(lambda: theirs.reset(seed=seed))


def test_bad_agent_names_and_calls_before_reset():
    ours, theirs = raw_env(num_players=3), generic_raw_env("money", num_players=3)
    for f in (
        lambda e: e.observe("player_0"),
        lambda e: e.step(0),
        lambda e: e.game_state,
        lambda e: e.observe("player_3"),
        lambda e: e.observation_space(["player_0"]),
        lambda e: e.action_space(0),
    ):
        assert _outcome(lambda f=f: f(ours)) == _outcome(lambda f=f: f(theirs))
        assert _outcome(lambda f=f: f(ours))[0] in ("RuntimeError", "ValueError")
    w = make_env(num_players=3)
    assert _outcome(lambda: w.agent_selection)[0] == "AttributeError"
    assert _outcome(w.last)[0] == "AttributeError"


# ---------------------------------------------------------------------------------------------
# The observation cache


@pytest.mark.parametrize("n", COUNTS)
def test_the_observation_cache_gives_encode_state_bit_for_bit(n, monkeypatch):
    rng = random.Random(n)
    encode_state = encoding.encode_state
    encoded, observed = [], 0

    def counted(state, seat, out=None):
        encoded.append(seat)
        return encode_state(state, seat, out)

    monkeypatch.setattr(encoding, "encode_state", counted)
    for g in range(25):
        s = new_game(n, 100 * n + g)
        cache = encoding.ObservationCache()
        while True:
            over = s.phase == GAME_OVER
            seats = [s.cur] if not over and rng.random() < 0.6 else rng.sample(range(n), n)
            for seat in seats[: rng.randint(1, len(seats))]:
                got = cache.observe(s, seat)
                want = encode_state(s, seat)
                assert got.dtype == np.float32 and got.tobytes() == want.tobytes(), (g, seat)
                observed += 1
                if rng.random() < 0.1:
                    got[:] = np.nan  # the caller's vector is its own
            if over:
                break
            legal = legal_actions(s)
            apply_action(s, legal[rng.randrange(len(legal))])
        other = new_game(n, g)  # another game: nothing of the first is reused
        assert cache.observe(other, 0).tobytes() == encode_state(other, 0).tobytes()
    assert observed > 5000 and len(encoded) < observed / 2  # the cache served most of them


def test_the_bid_entries_are_the_encoders_own():
    s = new_game(5, 3)
    cache = encoding.ObservationCache()
    cache.observe(s, 0)
    while s.phase != GAME_OVER and s.cur == 0 and len(s.sel[0]) < 6:
        adds = [a for a in legal_actions(s) if a < 37]
        apply_action(s, adds[-1])
        assert cache.observe(s, 0).tobytes() == encoding.encode_state(s, 0).tobytes()
    assert len(s.sel[0]) >= 3


# ---------------------------------------------------------------------------------------------
# How the env is offered


def test_the_package_the_binding_and_the_harness_offer_it():
    import pettingzoo

    from gameenv.wrappers import AssertOutOfBounds, OrderEnforcing

    assert callable(money_env.env) and money_env.raw_env is raw_env
    e = money_env.env(num_players=5)
    assert isinstance(e, OrderEnforcing) and isinstance(e.env, AssertOutOfBounds)
    assert isinstance(e.unwrapped, raw_env) and str(e) == "money_v0"
    own = load_game("money").aec_env(num_players=4)
    assert isinstance(own.unwrapped, raw_env) and len(own.possible_agents) == 4
    assert isinstance(game_env("money", num_players=3).unwrapped, raw_env)
    generic = game_env(TALLY, num_players=2)
    assert isinstance(generic.unwrapped, generic_raw_env) and TALLY.aec_env() is None
    made = pettingzoo.make("aec", "money_v0", num_players=4)
    assert isinstance(made.unwrapped, raw_env) and len(made.possible_agents) == 4
    copy = pickle.loads(pickle.dumps(raw_env(num_players=5, reward="rank")))
    assert len(copy.possible_agents) == 5 and copy.reward_mode == "rank"


def test_importing_the_env_module_registers_with_pettingzoo_once():
    code = (
        "import warnings; warnings.simplefilter('error'); import pettingzoo, money_env; "
        "money_env.register(); import money_env.env; "
        "e = pettingzoo.make('aec', 'money_v0', num_players=5); print(len(e.possible_agents))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "5"


def test_rendering(capsys):
    e = raw_env(num_players=4, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text.startswith("Money!, 4 players, seen by player_0") and "to act:" in text
    assert "add " in text and "to the bid" in text
    h = raw_env(num_players=3, render_mode="human")
    h.reset(seed=3)
    h.step(int(np.flatnonzero(h.infos["player_0"]["action_mask"])[0]))
    assert "seen by player_0" in capsys.readouterr().out
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert raw_env(num_players=3).render() is None
