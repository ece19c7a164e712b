"""The search player (`mcts`): determinized PUCT over a trained policy's priors and critic.

`mcts:policy=PATH[:sims=N][:ms=T][:c_puct=F][:ptemp=F][:temp=F][:noise=F][:alpha=F][:sure=F]`
plays the checkpoint at PATH (a `.npz` with its critic, or a policy name such as `reference`,
`agents.policyfiles`) with a search at every decision that has more than one legal action (a
forced move is played at once).
Single-observer information-set MCTS with AlphaZero's selection rule:

- Each simulation samples a determinization of the player's own view
  (`Game.determinize_with`: the hidden cards re-dealt from what the seat cannot see, with the
  search's own seeded generator), then walks down one tree shared by all simulations. The
  game is any `gamecore.Game` (``game=``, Last Will by default) whose policy file it plays.
- The tree is keyed by the path of actions from the root: a node's children are keyed by
  (action, seat to act next). The player's own decisions and the other seats' are keyed the
  same way, by the action actually taken in the sampled world: another seat's hidden choice
  (a card kept, a blind draw) leads to a node of its own although the player could not tell
  the two apart (the single-observer simplification). Nothing of the real hidden cards
  enters: every sampled world comes from the view alone, so the choice is a function of the
  view and the agent's random stream.
- At a node the seat to act in the sampled state selects among the actions legal there by
  PUCT, Q(a) + c_puct * P(a) * sqrt(N) / (1 + N(a)), with P the policy's move probabilities
  for that seat (its prior bot included, `agents.leafeval`) renormalised over the legal
  actions, N the node's visits and Q(a) that seat's mean score after a (an unvisited action
  scores the node's own value for its seat). Priors come from the first sampled world that
  reaches the node; an action legal in a later world and not yet seen gets its prior from
  that world. Moves with one legal action are applied on the way without a node.
- The first new node reached is expanded and evaluated by one network call: priors for its
  seat, and every seat's score from that seat's own observation (`LeafEvaluator`: the critic
  on the scale of the terminal reward); a finished game scores its real result instead.
- Each node's visit count grows by one and the chosen action's statistics take the score of
  the seat that chose there (max^n: each seat maximises its own score).

Budget per decision: `sims` simulations and/or `ms` milliseconds, whichever ends first (at
least one simulation; 64 simulations when neither is given). With `sims` alone the choice is a
function of the view and the agent's seed. The move played is the most visited root action
(ties by prior, then by the lower action number); with `temp` > 0 it is drawn with
probability proportional to visits ** (1 / temp).

Searching where the policy is unsure: with `sure` < 1, a decision where the policy's top move
has probability `sure` or more (its priors as a search would start from them,
:meth:`MCTSAgent.policy_priors`) is played at once, that move (ties to the lower action),
without a search; the budget goes to the decisions the search can change (the search rarely
overturns a sure prior, docs/EXPERIMENTS.md). `sure = 1` (the default) searches every decision
and reads no extra priors.

A prior temperature `ptemp` (default 1: the priors as the policy gives them) softens every
node's priors to P ** (1 / ptemp), renormalised over the actions they cover: with ptemp > 1 a
sharp prior leaves more visits to the second and third moves, deterministically.

Exploration at the root (AlphaZero's, for self-play such as `lastwill expert`): with `noise` > 0
the root's priors are (1 - noise) P + noise D over the legal actions, D drawn from a Dirichlet
of concentration `alpha` (default 0.3) with the agent's own generator, once per decision. A
sharp prior then no longer decides almost every search alone. `noise = 0` (the default) draws
nothing, so the search is unchanged. `root_prior` keeps the network's own root priors of the
last decision.

`stats` describes the last decision and `totals` every decision since the agent was built
(simulations, engine decisions applied, network calls, seconds, and the seconds spent in the
engine, the encoder, the network and the prior bot). `sims_done` is the simulations of the last
search, whether `act` or a caller of `search` ran it (expert iteration's self-play counts them).
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any

from gamecore import load_game
from gamecore.options import check_number

from .base import BaseAgent
from .leafeval import LeafEvaluator
from .policy import load_policy
from .priors import PriorSource

if TYPE_CHECKING:
    from gamecore import Game

DEFAULT_SIMS = 64
MAX_SIMS = 1_000_000  # the most simulations of one search (`sims`; expert iteration's too)
_STAT_KEYS = ("sims", "steps", "calls", "seconds", "t_engine", "t_encode", "t_net", "t_prior")


class _Node:
    """One decision in the tree: the seat to act, its priors and per-action statistics."""

    __slots__ = ("seat", "value", "prior", "visits", "edge_n", "edge_w", "children")

    def __init__(self, seat: int, prior: dict[int, float], value: float) -> None:
        self.seat = seat
        self.value = value  # the seat's own score when the node was evaluated
        self.prior = prior
        self.visits = 0
        self.edge_n: dict[int, int] = {}
        self.edge_w: dict[int, float] = {}
        self.children: dict[tuple[int, int], _Node] = {}


class MCTSAgent(BaseAgent):
    """Determinized PUCT search over a policy's priors and critic (module docstring)."""

    name = "mcts"

    def __init__(
        self,
        policy: str = "",
        sims: int | None = None,
        ms: float | None = None,
        c_puct: float = 1.5,
        ptemp: float = 1.0,
        temp: float = 0.0,
        noise: float = 0.0,
        alpha: float = 0.3,
        sure: float = 1.0,
        seed: int | None = None,
        config: Any = None,
        prior_bots: PriorSource | None = None,
        game: Game | None = None,
    ) -> None:
        super().__init__(seed)
        if not policy or not isinstance(policy, str):
            raise ValueError(
                "mcts needs a policy with its critic: mcts:policy=PATH (e.g. mcts:policy=reference)"
            )
        if sims is None and ms is None:
            sims = DEFAULT_SIMS
        self.sims = None if sims is None else check_number("sims", sims, 1, MAX_SIMS, integer=True)
        self.ms = None if ms is None else check_number("ms", ms, 0.001, 600_000.0)
        self.c_puct = check_number("c_puct", c_puct, 0.001, 1000.0)
        self.ptemp = check_number("ptemp", ptemp, 0.01, 100.0)
        self.temp = check_number("temp", temp, 0.0, 100.0)
        self.noise = check_number("noise", noise, 0.0, 1.0)
        self.alpha = check_number("alpha", alpha, 0.001, 100.0)
        self.sure = check_number("sure", sure, 0.01, 1.0)
        self.root_prior: dict[int, float] = {}
        self.path = policy
        self.game = load_game() if game is None else game
        pol, meta = load_policy(policy, need_value=True, prior_bots=prior_bots, game=self.game)
        self.evaluator = LeafEvaluator(pol, meta, game=self.game)
        self.config = config
        self.stats: dict[str, float] = {}
        # `unsearched`: decisions played from sure priors without a search (`sure` < 1)
        self.totals: dict[str, float] = dict.fromkeys(("decisions", "unsearched", *_STAT_KEYS), 0)
        self._t_engine = 0.0
        self._steps = 0
        self._sims_done = 0

    @property
    def sims_done(self) -> int:
        """The simulations of the last search (`search`, or the decision `act` played: 0 for
        a move played from sure priors without a search)."""
        return self._sims_done

    # -- the tree ------------------------------------------------------------------------
    def _legal(self, s: Any) -> list[int]:
        t = time.perf_counter()
        legal = self.game.legal_actions(s)
        self._t_engine += time.perf_counter() - t
        return legal

    def _apply(self, s: Any, a: int) -> None:
        """Apply `a`, then every forced move after it."""
        game = self.game
        is_over, legal_actions, apply_action = game.is_over, game.legal_actions, game.apply_action
        t = time.perf_counter()
        apply_action(s, a)
        self._steps += 1
        while not is_over(s):
            legal = legal_actions(s)
            if len(legal) != 1:
                break
            apply_action(s, legal[0])
            self._steps += 1
        self._t_engine += time.perf_counter() - t

    def _select(self, node: _Node, s: Any, legal: list[int]) -> int:
        """The PUCT choice among `legal` (priors completed from `s` where one is missing)."""
        prior = node.prior
        if any(a not in prior for a in legal):
            fresh = self._soften(self.evaluator.priors(s, legal))
            for a in legal:
                prior.setdefault(a, fresh[a])
        total = sum(prior[a] for a in legal) or 1.0
        scale = self.c_puct * math.sqrt(max(1, node.visits)) / total
        best_a, best_u = legal[0], -math.inf
        for a in legal:
            n_a = node.edge_n.get(a, 0)
            q = node.edge_w[a] / n_a if n_a else node.value
            u = q + scale * prior[a] / (1 + n_a)
            if u > best_u:
                best_a, best_u = a, u
        return best_a

    def _simulate(self, root: _Node, s: Any) -> None:
        """One descent from `root` in the sampled world `s`, an expansion and the backup."""
        is_over, current_player = self.game.is_over, self.game.current_player
        path: list[tuple[_Node, int]] = []
        node = root
        legal = self._legal(s)
        while True:
            a = self._select(node, s, legal)
            path.append((node, a))
            self._apply(s, a)
            if is_over(s):
                scores = self.evaluator.terminal(s)
                break
            legal = self._legal(s)
            cur = current_player(s)
            key = (a, cur)
            child = node.children.get(key)
            if child is None:
                prior, scores = self.evaluator.evaluate(s, legal)
                node.children[key] = _Node(cur, self._soften(prior), scores[cur])
                break
            node = child
        for n, a in path:
            n.visits += 1
            n.edge_n[a] = n.edge_n.get(a, 0) + 1
            n.edge_w[a] = n.edge_w.get(a, 0.0) + scores[n.seat]

    def _sample(self, view: Any) -> Any:
        t = time.perf_counter()
        s = self.game.determinize_with(view, self.rng, self.config)
        self._t_engine += time.perf_counter() - t
        return s

    # -- a decision ----------------------------------------------------------------------
    def policy_priors(self, view: Any) -> dict[int, float]:
        """The policy's move probabilities at `view` over its legal actions (its prior bot
        included; before the prior temperature and root noise): what a search from `view`
        starts from. They depend on the view alone, so the world they are read in is drawn
        with a generator of its own: the agent's random stream is not touched."""
        s = self.game.determinize_with(view, random.Random(0), self.config)
        return self.evaluator.priors(s, self._legal(s))

    def search(self, view: Any, sims: int | None = None, noise: float | None = None) -> _Node:
        """The root of a search from `view` within the budget; `sims` and `noise`, when given,
        replace the agent's own for this search alone (self-play's cheap searches)."""
        t0 = time.perf_counter()
        deadline = t0 + self.ms / 1000.0 if self.ms is not None else math.inf
        budget = self.sims if sims is None else sims
        s = self._sample(view)
        legal = self._legal(s)
        prior, scores = self.evaluator.evaluate(s, legal)
        self.root_prior = prior
        mixed = self._root_noise(self._soften(prior), legal, self.noise if noise is None else noise)
        seat = self.game.current_player(s)  # the view's own: it is asked at its decisions
        root = _Node(seat, mixed, scores[seat])
        done = 0
        while True:
            self._simulate(root, s)
            done += 1
            if (budget is not None and done >= budget) or time.perf_counter() >= deadline:
                break
            s = self._sample(view)
        self._sims_done = done
        return root

    def _soften(self, prior: dict[int, float]) -> dict[int, float]:
        """`prior` at the prior temperature: P ** (1 / ptemp) renormalised over its actions (a
        copy; `prior` itself at ptemp 1)."""
        if self.ptemp == 1.0:
            return prior
        inv = 1.0 / self.ptemp
        powered = {a: p**inv for a, p in prior.items()}
        total = sum(powered.values())
        if not total > 0:  # every prior underflowed: leave them as they are
            return prior
        return {a: p / total for a, p in powered.items()}

    def _root_noise(
        self, prior: dict[int, float], legal: list[int], noise: float
    ) -> dict[int, float]:
        """The root's priors mixed with Dirichlet noise of weight `noise` over `legal` (a copy;
        `prior` itself when `noise` is 0)."""
        if not noise:
            return prior
        draws = [self.rng.gammavariate(self.alpha, 1.0) for _ in legal]
        total = sum(draws)
        if not total > 0:  # every draw underflowed (a tiny alpha): no noise this time
            return dict(prior)
        mixed = dict(prior)
        for a, d in zip(legal, draws, strict=True):
            mixed[a] = (1.0 - noise) * prior.get(a, 0.0) + noise * d / total
        return mixed

    def _choose(self, root: _Node, legal: list[int]) -> int:
        if self.temp > 0:
            w = [root.edge_n.get(a, 0) ** (1.0 / self.temp) for a in legal]
            if sum(w) > 0:
                return self.rng.choices(legal, weights=w)[0]
        return max(legal, key=lambda a: (root.edge_n.get(a, 0), root.prior.get(a, 0.0), -a))

    def act(self, view: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        legal = sorted(legal)  # independent of the order of the caller's list
        ev = self.evaluator
        before = (ev.calls, ev.t_encode, ev.t_net, ev.t_prior)
        self._t_engine, self._steps = 0.0, 0
        t0 = time.perf_counter()
        choice = self._sure_move(view, legal) if self.sure < 1.0 else None
        if choice is None:
            choice = self._choose(self.search(view), legal)
        else:
            self._sims_done = 0
            self.totals["unsearched"] += 1
        self._record(time.perf_counter() - t0, before)
        return choice

    def _sure_move(self, view: Any, legal: list[int]) -> int | None:
        """The policy's top move when its probability is at least `sure`, else None."""
        priors = self.policy_priors(view)
        best = max(legal, key=lambda a: (priors.get(a, 0.0), -a))
        return best if priors.get(best, 0.0) >= self.sure else None

    def _record(self, seconds: float, before: tuple[int, float, float, float]) -> None:
        ev = self.evaluator
        st = {
            "sims": self._sims_done,
            "steps": self._steps,
            "calls": ev.calls - before[0],
            "seconds": seconds,
            "t_engine": self._t_engine,
            "t_encode": ev.t_encode - before[1],
            "t_net": ev.t_net - before[2],
            "t_prior": ev.t_prior - before[3],
        }
        sims = max(1, st["sims"])  # 0 for a move played from sure priors
        st["steps_per_sim"] = st["steps"] / sims
        st["calls_per_sim"] = st["calls"] / sims
        self.stats = st
        self.totals["decisions"] += 1
        for k in _STAT_KEYS:
            self.totals[k] += st[k]
