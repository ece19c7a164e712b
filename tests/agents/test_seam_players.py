"""The search players (`mc`, `mcts`) and the policy player (`ppo`) take a game.

- `mc` and `mcts` play whole games of the tiny test game "tally" (tests/support/tinygame.py) at 2-4
  players, built by the registry with ``game=tally``: only legal moves, and a choice that is a
  function of the view and the seed (the same view, or a view of a re-dealt state that shows
  the same, gives the same move; the view is not changed);
- `mcts` and `ppo` play a small random-weight policy saved for tally with the lab's own
  `save_policy` (its sidecar names the game "tally");
- a tally policy loaded as Last Will, or a Last Will policy loaded as tally, fails with an
  error naming both games; a sidecar without "game" loads as Last Will;
- the `Game` methods the players use have generic defaults (tally) and Last Will's bindings
  give exactly the functions it used before;
- the players' modules import no game package (everything comes through the game).
"""

from __future__ import annotations

import ast
import copy
import json
import random

import numpy as np
import pytest
import tinygame  # noqa: E402
from paths import REPO  # noqa: E402

from agents.leafeval import LeafEvaluator  # noqa: E402
from agents.policy import (  # noqa: E402
    CheckpointMismatchError,
    NumpyPolicy,
    load_policy,
    save_policy,
)
from agents.registry import PlayerSpecError, make_agent  # noqa: E402
from gamecore import load_game  # noqa: E402

PLAYER_FILES = (
    "search",
    "mcts",
    "leafeval",
    "policy",
    "policyfiles",
    "winchance",
    "compat",
)


@pytest.fixture(scope="module")
def tally():
    return tinygame.install()


def _random_policy(game, seed=0, hidden=12, critic=True) -> NumpyPolicy:
    rng = np.random.default_rng(seed)

    def layers(sizes):
        ws = [
            rng.normal(size=(o, i)).astype(np.float32)
            for i, o in zip(sizes, sizes[1:], strict=False)
        ]
        bs = [rng.normal(size=o).astype(np.float32) for o in sizes[1:]]
        return ws, bs

    w, b = layers([game.obs_size, hidden, game.num_actions])
    vw, vb = layers([game.obs_size, hidden, 1]) if critic else (None, None)
    return NumpyPolicy(w, b, "tanh", vw, vb, game=game)


@pytest.fixture(scope="module")
def tally_policy(tally, tmp_path_factory):
    path = tmp_path_factory.mktemp("tally") / "tally.npz"
    return save_policy(_random_policy(tally), path, extra={"config": {"reward": "zero_sum"}})


def _play(game, agents, n, seed, check=None):
    """A whole game of ``game``; every move must be legal. Returns the final ranks."""
    s = game.new_game(game.make_config(n), seed)
    while not game.is_over(s):
        seat = game.current_player(s)
        legal = game.legal_actions(s)
        view = game.player_view(s, seat)
        a = agents[seat].act(view, list(legal))
        assert a in legal, (seat, a, legal)
        if check is not None:
            check(s, seat, view, legal, a)
        game.apply_action(s, a)
    return game.ranks(s)


def _view_only(game, spec, seed):
    """A check that the choice at each decision depends on the view and the seed alone."""

    def check(s, seat, view, legal, a):
        if len(legal) == 1:
            return
        redealt = game.determinize(view, random.Random(seat + 17))
        other = game.player_view(redealt, seat)
        assert other == view
        before = copy.deepcopy(view)
        moves = [make_agent(spec, seed, game=game).act(v, list(legal)) for v in (view, other)]
        moves.append(make_agent(spec, seed, game=game).act(view, list(legal)))
        assert len(set(moves)) == 1 and moves[0] in legal, moves
        assert view == before  # the agent reads the view, never writes it

    return check


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("spec", ["mc", "mc:rollouts=2:policy=random"])
def test_mc_plays_tally_with_legal_view_only_moves(tally, spec, n):
    agents = [make_agent(spec, seed=i, game=tally) for i in range(n)]
    assert all(a.game is tally for a in agents)
    ranks = _play(tally, agents, n, seed=n, check=_view_only(tally, spec, 3))
    assert sorted(ranks)[0] == 1 and len(ranks) == n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_mcts_plays_tally_over_a_tally_policy(tally, tally_policy, n):
    spec = f"mcts:policy={tally_policy}:sims=12"
    agents = [make_agent(spec, seed=i, game=tally) for i in range(n)]
    assert agents[0].evaluator.game is tally and agents[0].evaluator.policy.game is tally
    _play(tally, agents, n, seed=10 + n, check=_view_only(tally, spec, 5))
    assert agents[0].totals["sims"] > 0 and agents[0].totals["calls"] > 0


def test_ppo_plays_tally_and_the_sidecar_names_the_game(tally, tally_policy):
    meta = json.loads(tally_policy.with_suffix(".json").read_text())
    assert meta["game"] == "tally" and meta["obs_size"] == tally.obs_size
    assert meta["num_actions"] == tally.num_actions and meta["env_name"] == "tally_v0"
    for mode in ("", ":sample"):
        agents = [make_agent(f"ppo:{tally_policy}{mode}", seed=i, game=tally) for i in range(3)]
        _play(tally, agents, 3, seed=4)
    pol, _ = load_policy(tally_policy, game=tally)
    assert pol.game is tally


def test_a_tally_policy_is_not_played_as_last_will(tally, tally_policy):
    for load in (
        lambda: load_policy(tally_policy),
        lambda: load_policy(tally_policy, game=load_game("lastwill")),
    ):
        with pytest.raises(CheckpointMismatchError, match="'tally'.*'lastwill'"):
            load()
    for spec in (f"ppo:{tally_policy}", f"mcts:policy={tally_policy}"):
        with pytest.raises(PlayerSpecError, match="'tally'.*'lastwill'"):
            make_agent(spec, seed=0)


def test_a_last_will_policy_is_not_played_as_tally(tally):
    with pytest.raises(CheckpointMismatchError, match="'lastwill'.*'tally'"):
        load_policy("reference", game=tally)
    for spec in ("ppo:reference", "mcts:policy=reference:sims=2"):
        with pytest.raises(PlayerSpecError, match="'lastwill'.*'tally'"):
            make_agent(spec, seed=0, game=tally)


def test_a_sidecar_without_game_is_last_will(tally, tmp_path):
    lastwill = load_game()
    npz = save_policy(_random_policy(lastwill, hidden=4), tmp_path / "lw.npz")
    side = npz.with_suffix(".json")
    meta = json.loads(side.read_text())
    assert meta["game"] == "lastwill"
    del meta["game"]
    side.write_text(json.dumps(meta))
    pol, read = load_policy(npz)
    assert "game" not in read and pol.game is lastwill
    with pytest.raises(CheckpointMismatchError, match="'lastwill'.*'tally'"):
        load_policy(npz, game=tally)
    ref = json.loads((REPO / "agents/policies/reference.json").read_text())
    assert "game" not in ref  # the shipped files stay as they were
    assert load_policy("reference")[0].game is lastwill


def test_a_policy_of_the_wrong_sizes_is_refused(tally):
    with pytest.raises(CheckpointMismatchError, match="9 observation entries and 5 actions"):
        NumpyPolicy(*_random_policy(load_game(), hidden=2).state().values(), game=tally)
    with pytest.raises(ValueError, match="plays 'tally', not 'lastwill'"):
        LeafEvaluator(_random_policy(tally), game=load_game())


def test_the_leaf_evaluator_scores_tally_and_its_shared_places(tally):
    ev = LeafEvaluator(_random_policy(tally, seed=3))
    assert ev.game is tally
    s = tally.new_game(tally.make_config(3), 2)
    legal = tally.legal_actions(s)
    priors, scores = ev.evaluate(s, legal)
    assert sorted(priors) == legal and sum(priors.values()) == pytest.approx(1.0)
    assert len(scores) == 3 and all(-0.5 <= v <= 1.0 for v in scores)
    assert ev.priors(s, legal) == pytest.approx(priors)
    s.hands, s.tallies = [[], [], []], [7, 7, 3]  # a shared first place
    assert ev.terminal(s) == [0.25, 0.25, -0.5]


def test_generic_defaults_of_the_game_interface(tally):
    s = tally.new_game(tally.make_config(4), 1)
    for _ in range(5):
        tally.apply_action(s, tally.legal_actions(s)[-1])
    view = tally.player_view(s, tally.current_player(s))
    dense = tally.encode_observation(view)
    nz, vals = tally.encode_observation_sparse(view)
    assert nz.tolist() == np.flatnonzero(dense).tolist() and vals.tolist() == dense[nz].tolist()
    rows = tally.encode_seats_sparse(s, range(4))
    for p, (nz, vals) in enumerate(rows):
        dense = tally.encode_state(s, p)
        assert nz.tolist() == np.flatnonzero(dense).tolist()
        assert vals.tolist() == dense[nz].tolist()
    assert tally.num_players(s) == 4 and tally.rollout_bot is None
    s.hands, s.tallies = [[]] * 4, [4, 9, 9, 1]
    assert [tally.playout_score(s, p) for p in range(4)] == [1 / 3, 1.0, 1.0, 0.0]
    again = tally.determinize_with(view, random.Random(0), tally.make_config(4))
    assert tally.player_view(again, tally.current_player(s)) == view


def test_last_will_binds_the_functions_it_used_before():
    from lastwill_env import encoding
    from lastwill_env.bots.greedy import GreedyBot
    from lastwill_env.engine import GameConfig, apply_action, legal_actions, new_game, player_view
    from lastwill_env.engine.determinize import determinize
    from lastwill_env.shaping import potential

    game = load_game()
    s = new_game(GameConfig(3), 5)
    for _ in range(60):
        apply_action(s, legal_actions(s)[-1])
    view = player_view(s, s.cur)
    for got, want in zip(
        game.encode_observation_sparse(view), encoding.encode_observation_sparse(view), strict=True
    ):
        assert got.tolist() == want.tolist()
    for got, want in zip(
        game.encode_seats_sparse(s, range(3), ordered=False),
        encoding.encode_seats_sparse(s, range(3), ordered=False),
        strict=True,
    ):
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    assert [game.potential(s, p) for p in range(3)] == [potential(s, p) for p in range(3)]
    a = game.determinize_with(view, random.Random(4), GameConfig(3))
    b = determinize(view, view.seat, random.Random(4), config=GameConfig(3))
    assert player_view(a, 0) == player_view(b, 0) and a.history == b.history
    assert game.num_players(s) == 3 and game.rollout_bot == "greedy"
    bot = game.bots()[game.rollout_bot].factory(seed=0, **dict(game.rollout_params))
    assert isinstance(bot, GreedyBot) and bot.eps == 0.1
    while not game.is_over(s):
        apply_action(s, legal_actions(s)[0])
    r = s.results
    spread = max(abs(t) for t in r["totals"]) or 1
    for p in range(3):
        want = (3 - r["ranks"][p]) / 2 - 0.05 * r["totals"][p] / spread
        assert game.playout_score(s, p) == want


def _imports_outside_type_checking(tree: ast.Module):
    """The modules a file imports, leaving out those under ``if TYPE_CHECKING:``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for b in node.body for n in ast.walk(b))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module or ""


@pytest.mark.parametrize("name", PLAYER_FILES)
def test_the_players_import_no_game_package(name):
    tree = ast.parse((REPO / "agents" / f"{name}.py").read_text())
    bad = [m for m in _imports_outside_type_checking(tree) if m.split(".")[0] == "lastwill_env"]
    assert not bad, f"agents/{name}.py imports {bad}: take the game through gamecore.Game"
