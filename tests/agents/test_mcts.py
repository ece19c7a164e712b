"""The search player `mcts` (agents/mcts.py) and its leaf evaluator (agents/leafeval.py).

- legal moves through whole games at 2 and 4 players against bots, with its statistics;
- the same seed gives the same choices; the choice is a function of the view only (other
  seats' hidden cards re-dealt: same search);
- bad specs refused with messages naming the parameter (and exit code 2 on the command line);
- the priors are the policy's own; one simulation plays the prior's arg-max; a decisive last
  move is found against a prior that prefers the losing one;
- leaf values on the terminal reward's scale (shaping undone, clipped);
- the arena plays it beside a `ppo:` entrant.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from agents.arena import run_tournament
from agents.leafeval import LeafEvaluator, potential
from agents.mcts import MCTSAgent
from agents.policy import NumpyPolicy, load_policy
from agents.registry import PlayerSpecError, make_agent
from lastwill_env.encoding import encode_observation, encode_state, terminal_rewards
from lastwill_env.engine import (
    PASS,
    GameConfig,
    apply_action,
    describe_action,
    determinize,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.game import GAME_OVER, TURN_PHASE

REF = "agents/policies/reference.npz"
SPEC = f"mcts:policy={REF}:sims=8"


def _play(specs: list[str], seed: int, agent_seed: int = 1):
    """A whole game; returns the state and the mcts agents' (decision, action) lists."""
    n = len(specs)
    s = new_game(n, seed)
    agents = [make_agent(sp, seed=agent_seed + i) for i, sp in enumerate(specs)]
    moves: list[tuple[int, int]] = []
    while not s.is_over:
        legal = legal_actions(s)
        a = legal[0] if len(legal) == 1 else agents[s.cur].act(player_view(s, s.cur), legal)
        assert a in legal, describe_action(a)
        if isinstance(agents[s.cur], MCTSAgent):
            moves.append((len(s.history), a))
        apply_action(s, a)
    return s, moves, agents


@pytest.mark.parametrize("n", [2, 4])
def test_legal_moves_through_whole_games(n):
    specs = [SPEC] + ["sprinter", "racer", "greedy"][: n - 1]
    s, moves, agents = _play(specs, seed=3)
    assert s.phase == GAME_OVER and len(moves) > 20
    tot = agents[0].totals
    assert tot["decisions"] > 10 and tot["sims"] == 8 * tot["decisions"]
    st = agents[0].stats
    assert st["sims"] == 8 and st["steps"] >= 8 and st["calls"] >= 1  # the root's
    assert st["steps_per_sim"] == st["steps"] / 8 and st["calls_per_sim"] == st["calls"] / 8
    assert tot["calls"] > tot["decisions"] and tot["steps"] >= tot["sims"]
    assert st["seconds"] >= st["t_engine"] + st["t_net"] > 0


def test_same_seed_same_choices():
    specs = [SPEC, "sprinter"]
    _, a, _ = _play(specs, seed=11, agent_seed=5)
    _, b, _ = _play(specs, seed=11, agent_seed=5)
    assert a == b


@pytest.mark.parametrize("n", [2, 4])
def test_choice_depends_on_the_view_only(n):
    s = new_game(n, 21)
    rng = random.Random(3)
    while not (s.phase == TURN_PHASE and s.round >= 2 and len(legal_actions(s)) > 2):
        apply_action(s, rng.choice(legal_actions(s)))
    seat = s.cur
    for k in (5, 8):  # the hidden cards re-dealt from what the seat cannot see
        other = determinize(player_view(s, seat), seat, random.Random(k))
        assert other.hands != s.hands and other.decks != s.decks
        assert player_view(other, seat) == player_view(s, seat)
        a = MCTSAgent(REF, sims=24, seed=7)
        b = MCTSAgent(REF, sims=24, seed=7)
        ra = a.search(player_view(s, seat))
        rb = b.search(player_view(other, seat))
        assert ra.edge_n == rb.edge_n and ra.edge_w == rb.edge_w
        assert a.act(player_view(s, seat), legal_actions(s)) == b.act(
            player_view(other, seat), legal_actions(other)
        )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts", "mcts needs a policy with its critic: mcts:policy=PATH"),
        (f"mcts:policy={REF}:sims=0", "sims=0 is not allowed; use an integer from 1 to"),
        (f"mcts:policy={REF}:sims=2.5", "sims=2.5 is not allowed; use an integer"),
        (f"mcts:policy={REF}:sims=abc", "sims='abc' is not allowed; use an integer"),
        (f"mcts:policy={REF}:ms=-1", "ms=-1 is not allowed; use a number from 0.001"),
        (f"mcts:policy={REF}:ms=0", "ms=0 is not allowed"),
        (f"mcts:policy={REF}:c_puct=nan", "c_puct=nan is not allowed"),
        (f"mcts:policy={REF}:temp=-1", "temp=-1 is not allowed; use a number from 0.0"),
        (f"mcts:policy={REF}:ptemp=0", "ptemp=0 is not allowed; use a number from 0.01 to 100"),
        (f"mcts:policy={REF}:noise=1.5", "noise=1.5 is not allowed; use a number from 0.0 to 1.0"),
        (f"mcts:policy={REF}:alpha=0", "alpha=0 is not allowed; use a number from 0.001"),
        (f"mcts:policy={REF}:sure=1.5", "sure=1.5 is not allowed; use a number from 0.01 to 1.0"),
        ("mcts:policy=no/such.npz", "checkpoint no/such.npz does not exist"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(PlayerSpecError) as e:
        make_agent(spec)
    assert message in str(e.value)
    assert "mcts takes: policy=NAME or PATH" in str(e.value)


def test_bad_spec_on_the_command_line_exits_2():
    from apps.cli import app

    res = CliRunner().invoke(app, ["arena", "-q", "-p", f"mcts:policy={REF}:sims=0,random"])
    assert res.exit_code == 2, res.output
    assert "sims=0 is not allowed" in res.stderr


def test_a_policy_without_critic_is_refused(tmp_path):
    pol, _ = load_policy(REF)
    actor = NumpyPolicy.from_state({**pol.state(), "value_weights": None, "value_biases": None})
    with pytest.raises(ValueError, match="needs a policy with its critic"):
        LeafEvaluator(actor, {})


def _decision(n: int, seed: int, turn: int):
    s = new_game(n, seed)
    rng = random.Random(seed)
    while len(s.history) < turn or len(legal_actions(s)) < 2:
        apply_action(s, rng.choice(legal_actions(s)))
    return s


def test_priors_are_the_policy_s_own_and_one_simulation_plays_its_arg_max():
    pol, _ = load_policy(REF)
    for n, seed, turn in ((2, 1, 30), (4, 2, 80), (3, 5, 140)):
        s = _decision(n, seed, turn)
        view, legal = player_view(s, s.cur), legal_actions(s)
        agent = MCTSAgent(REF, sims=1, seed=0)
        root = agent.search(view)
        probs, _ = pol.evaluate(encode_observation(view), legal, view)
        assert np.allclose([root.prior[a] for a in legal], probs, atol=1e-5)
        assert agent.act(view, legal) == pol.choose(encode_observation(view), legal, view=view)


def _finish(s) -> None:
    while s.phase != GAME_OVER and len(legal_actions(s)) == 1:
        apply_action(s, legal_actions(s)[0])


def _last_decision():
    """A 2-player game's last decision, where passing loses and one other move wins."""
    s = new_game(2, 1)
    bots = [make_agent("sprinter", seed=i) for i in range(2)]
    while len(s.history) < 156:
        legal = legal_actions(s)
        a = legal[0] if len(legal) == 1 else bots[s.cur].act(player_view(s, s.cur), legal)
        apply_action(s, a)
    ranks = {}
    for a in legal_actions(s):
        c = s.clone()
        apply_action(c, a)
        _finish(c)
        assert c.phase == GAME_OVER, "the position is no longer a last decision"
        ranks[a] = c.results["ranks"][s.cur]
    assert ranks[PASS] == 2 and sorted(ranks.values()) == [1, 2], ranks
    return s, next(a for a, r in ranks.items() if r == 1)


def test_search_finds_the_winning_last_move_against_its_prior():
    s, win = _last_decision()
    view, legal = player_view(s, s.cur), legal_actions(s)
    pol, meta = load_policy(REF, need_value=True)
    biases = [b.copy() for b in pol.biases]
    biases[-1][PASS] += 20.0  # the prior now prefers passing, which loses
    biased = NumpyPolicy.from_state({**pol.state(), "biases": biases})
    one = MCTSAgent(REF, sims=1, seed=0)
    one.evaluator = LeafEvaluator(biased, meta)
    assert one.search(view).prior[PASS] > 0.8
    assert one.act(view, legal) == PASS
    deep = MCTSAgent(REF, sims=32, seed=0)
    deep.evaluator = LeafEvaluator(biased, meta)
    assert deep.act(view, legal) == win


@pytest.mark.parametrize(
    "path, shaping",
    # ref_v7's critic was trained with potential shaping, which is added back; the reference's
    # (fitted by `lastwill expert-fit` on results alone) without
    [("policies/ref_v7.npz", 1.0), (REF, 0.0)],
)
def test_leaf_scores_are_on_the_terminal_reward_s_scale(path, shaping):
    pol, meta = load_policy(path, need_value=True)
    ev = LeafEvaluator(pol, meta)
    assert ev.reward == "zero_sum" and ev.shaping == shaping
    s = _decision(3, 4, 120)
    _, scores = ev.evaluate(s, legal_actions(s))
    for p in range(3):
        v = pol.value(encode_state(s, p))
        want = min(1.0, max(-0.5, v + shaping * potential(s, p)))
        assert scores[p] == pytest.approx(want, abs=1e-5)
    assert ev.score(5.0, s, 0) == 1.0 and ev.score(-5.0, s, 0) == -0.5
    while not s.is_over:
        apply_action(s, legal_actions(s)[0])
    assert ev.terminal(s) == terminal_rewards(s.results["ranks"], "zero_sum")


def test_potential_is_the_trainer_s():
    pytest.importorskip("torch")
    from training.allseat import potential as trainer_potential

    s = _decision(4, 6, 90)
    assert [potential(s, p) for p in range(4)] == [trainer_potential(s, p) for p in range(4)]


def test_time_budget_ends_the_search():
    s = _decision(2, 3, 40)
    agent = MCTSAgent(REF, ms=1.0, seed=0)
    agent.act(player_view(s, s.cur), legal_actions(s))
    assert agent.sims is None and agent.stats["sims"] >= 1


def test_the_arena_plays_it():
    cfg = GameConfig(num_players=2)
    res = run_tournament([f"ppo:{REF}", SPEC], cfg, 2, seed=4)
    assert res.errors == 0 and len(res.rows) == 2
    assert all(r["winner"] is not None for r in res.rows)


def test_root_noise_mixes_a_dirichlet_draw_into_the_root_priors_only():
    s = _decision(3, 5, 140)
    view, legal = player_view(s, s.cur), sorted(legal_actions(s))
    plain = MCTSAgent(REF, sims=16, seed=4)
    zero = MCTSAgent(REF, sims=16, seed=4, noise=0.0, alpha=0.7)
    a, b = plain.search(view), zero.search(view)
    # noise 0 draws nothing: the same tree, the same stream
    assert a.prior == b.prior and a.edge_n == b.edge_n and plain.rng.random() == zero.rng.random()
    noisy = MCTSAgent(REF, sims=16, seed=4, noise=0.25)
    root = noisy.search(view)
    clean = noisy.root_prior
    assert np.allclose([clean[x] for x in legal], [a.prior[x] for x in legal])
    mixed = [root.prior[x] for x in legal]
    assert abs(sum(mixed) - 1.0) < 1e-6 and mixed != [clean[x] for x in legal]
    # (1 - 0.25) P + 0.25 D: every action keeps three quarters of its prior
    assert all(root.prior[x] >= 0.75 * clean[x] - 1e-12 for x in legal)
    noise = [(root.prior[x] - 0.75 * clean[x]) / 0.25 for x in legal]
    assert abs(sum(noise) - 1.0) < 1e-6 and min(noise) >= 0
    # deeper nodes keep the network's priors
    for child in root.children.values():
        assert abs(sum(child.prior.values()) - 1.0) < 1e-5
    again = MCTSAgent(REF, sims=16, seed=4, noise=0.25).search(view)
    assert again.prior == root.prior and again.edge_n == root.edge_n  # seeded


def test_one_search_may_take_its_own_budget_and_noise():
    s = _decision(3, 5, 140)
    view = player_view(s, s.cur)
    plain = MCTSAgent(REF, sims=5, seed=4)
    noisy = MCTSAgent(REF, sims=16, seed=4, noise=0.5)
    cheap = noisy.search(view, sims=5, noise=0.0)
    # the noisy agent's cheap search is the plain agent's search: no draw, five simulations
    want = plain.search(view)
    assert cheap.prior == want.prior and cheap.edge_n == want.edge_n
    assert sum(cheap.edge_n.values()) == 5 and noisy._sims_done == 5
    full = noisy.search(view)  # its own settings again afterwards
    assert sum(full.edge_n.values()) == 16 and full.prior != want.prior


def test_root_noise_spreads_the_visits():
    """A sharp prior decides a small search alone; with strong noise the visits spread."""
    spread = {}
    for noise in (0.0, 0.75):
        seen = 0
        for seed, turn in ((1, 30), (2, 60), (3, 90), (4, 120)):
            s = _decision(2, seed, turn)
            root = MCTSAgent(REF, sims=24, seed=0, noise=noise, alpha=1.0).search(
                player_view(s, s.cur)
            )
            seen += sum(1 for n in root.edge_n.values() if n > 0)
        spread[noise] = seen
    assert spread[0.75] > spread[0.0]


def test_prior_temperature_softens_every_node_s_priors():
    s = _decision(3, 5, 140)
    view, legal = player_view(s, s.cur), sorted(legal_actions(s))
    plain = MCTSAgent(REF, sims=16, seed=4)
    one = MCTSAgent(REF, sims=16, seed=4, ptemp=1.0)
    a, b = plain.search(view), one.search(view)
    assert a.prior == b.prior and a.edge_n == b.edge_n  # ptemp 1 changes nothing
    warm = MCTSAgent(REF, sims=16, seed=4, ptemp=2.0)
    root = warm.search(view)
    raw = warm.root_prior
    want = np.sqrt([raw[x] for x in legal])
    assert np.allclose([root.prior[x] for x in legal], want / want.sum())
    assert max(root.prior.values()) < max(raw.values())  # the top move's share shrinks
    for child in root.children.values():  # deeper nodes too, still a distribution
        assert abs(sum(child.prior.values()) - 1.0) < 1e-6
    again = MCTSAgent(REF, sims=16, seed=4, ptemp=2.0).search(view)
    assert again.prior == root.prior and again.edge_n == root.edge_n


def test_prior_temperature_spreads_the_visits():
    """Like root noise, but without a draw: a warmer prior visits more moves."""
    spread = {}
    for ptemp in (1.0, 3.0):
        seen = 0
        for seed, turn in ((1, 30), (2, 60), (3, 90), (4, 120)):
            s = _decision(2, seed, turn)
            root = MCTSAgent(REF, sims=24, seed=0, ptemp=ptemp).search(player_view(s, s.cur))
            seen += sum(1 for n in root.edge_n.values() if n > 0)
        spread[ptemp] = seen
    assert spread[3.0] > spread[1.0]


def test_a_sure_prior_is_played_without_a_search():
    """With `sure`, a decision whose top prior reaches it is the policy's own move with no
    simulation (and no draw from the agent's stream); an unsure one is searched as without the
    option; at 1 nothing changes."""
    s = new_game(3, 31)
    rng = random.Random(2)
    seen = {True: 0, False: 0}
    plain, gated = MCTSAgent(REF, sims=6, seed=3), MCTSAgent(REF, sims=6, seed=3, sure=0.8)
    never = MCTSAgent(REF, sims=6, seed=3, sure=1.0)
    while not s.is_over and min(seen.values()) < 3:
        legal = legal_actions(s)
        if len(legal) > 1:
            view = player_view(s, s.cur)
            priors = plain.policy_priors(view)
            top = max(sorted(legal), key=lambda a: (priors[a], -a))
            before = gated.rng.getstate()
            a = gated.act(view, legal)
            sure = priors[top] >= 0.8
            seen[sure] += 1
            if sure:
                assert a == top and gated.stats["sims"] == 0 and gated.stats["calls"] == 1
                assert gated.rng.getstate() == before
            else:
                want = MCTSAgent(REF, sims=6, seed=3)
                want.rng.setstate(before)
                assert a == want.act(view, legal) and gated.stats["sims"] == 6
            assert never.act(view, legal) == plain.act(view, legal)
        apply_action(s, rng.choice(legal))
    assert min(seen.values()) >= 3
    assert gated.totals["unsearched"] == seen[True] and never.totals["unsearched"] == 0
    assert gated.totals["decisions"] == seen[True] + seen[False]
