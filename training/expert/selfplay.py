"""Expert iteration's games: every seat plays the search player (`agents.mcts`) over the current
network, and every searched decision becomes a training sample. The game is the search
player's own (`MCTSAgent.game`, a `gamecore.Game`): its rules, views, encoder and rewards are
all this module uses.

At each decision with more than one legal action the seat to act runs the search from its own
`PlayerView` (the search never sees hidden cards). The sample holds that seat's observation
(sparse: indices and values of `Game.encode_state`, the one the network reads), the legal actions,
the policy target over them (the search's visit counts, or with `policy_target = "completed_q"`
the policy improved by its completed Q-values, `training.expert.targets`; the move is chosen
from the visit counts either way), the prior bot's choice when the
network plays over one (the residual rule, `agents.residual`) and, once the game is over, the
seat's final result (the value target): `zero_sum` reward, +1 for the winner and -1/(n-1) for
the others, an affine map of winning (`agents.winchance.win_chance`).

Exploration: for a seat's first `explore` decisions of a game the move is drawn with
probability proportional to the visits (temperature 1); later the most visited move is played,
as the search player plays. Every draw comes from the game's own seeded generator, so a game is
a function of (network, settings, seed).

Playout-cap randomisation (KataGo's): with `full_share` below 1, each decision is a full search
with that probability, else a cheap one of `fast_sims` simulations without root noise that
only moves the game on. Only full searches become samples, so the targets come from searches
of the full budget while a game costs less. The coin has a generator of its own, seeded from
the game's seed: at `full_share` 1 nothing is drawn and every decision is a full search.

Searching where the network is unsure: with `full_below` under 1, a decision whose coin says
"full" is searched in full only if the network's top move there has probability below
`full_below` (its priors as the search starts from them, `MCTSAgent.policy_priors`); a surer
decision gets the cheap search instead. The search rarely overturns a sure prior, so the full
budget goes where the targets differ from the network (docs/EXPERIMENTS.md, "Expert
iteration"). At `full_below` 1 the priors are not read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..seeds import playout_cap_seed, search_seed
from .targets import POLICY_TARGETS, improved_policy


@dataclass
class Sample:
    """One searched decision."""

    n: int
    seat: int
    idx: np.ndarray  # sparse observation: indices ...
    vals: np.ndarray  # ... and values
    legal: list[int]
    # the policy target per legal action, in `legal`'s order: the visit counts, or the
    # improved policy of `training.expert.targets` (policy_target = "completed_q")
    visits: list[float]
    prior: int  # the prior bot's choice (-1 without a prior)
    net_choice: int  # the network's own arg-max (its priors), to measure disagreement
    result: float = 0.0  # the seat's final reward, set when the game ends


@dataclass
class GameRecord:
    n: int
    seed: int
    samples: list[Sample] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    decisions: int = 0  # every decision, forced ones included
    sims: int = 0
    fast: int = 0  # cheap searches (playout-cap randomisation), not samples


def _observe(game: Any, state: Any, seat: int) -> tuple[np.ndarray, np.ndarray]:
    idx, vals = game.encode_state_sparse(state, seat)
    return np.asarray(idx).astype(np.int64), np.asarray(vals).astype(np.float32)


def _pick(legal: list[int], visits: list[int], explore: bool, rng: random.Random) -> int:
    if explore and sum(visits) > 0:
        return rng.choices(legal, weights=visits)[0]
    best = max(range(len(legal)), key=lambda i: (visits[i], -legal[i]))
    return legal[best]


def play(
    searcher: Any,
    n: int,
    seed: int,
    explore: int = 8,
    full_share: float = 1.0,
    fast_sims: int = 1,
    full_below: float = 1.0,
    policy_target: str = "visits",
) -> GameRecord:
    """One self-play game of the searcher's game at `n` players from deal `seed`; `searcher`
    is an `MCTSAgent` whose random stream is reseeded from `seed` (the game's search is
    reproducible). With `full_share` below 1, a decision is a full search with that
    probability and otherwise a cheap one of `fast_sims` simulations that is played but not
    kept; with `full_below` below 1, only where the network's top move is less likely than
    that (module docstring). `policy_target`: what a sample's targets hold,
    `training.expert.targets`."""
    if policy_target not in POLICY_TARGETS:
        raise ValueError(f"policy_target={policy_target!r}; use one of {POLICY_TARGETS}")
    game = searcher.game
    rng = random.Random(seed)
    coin = random.Random(playout_cap_seed(seed))
    searcher.rng.seed(search_seed(seed))
    state = game.new_game(game.make_config(n), seed)
    rec = GameRecord(n=n, seed=seed)
    seen = [0] * n
    caps = (full_share, fast_sims, full_below, policy_target)
    while not game.is_over(state):
        legal = sorted(game.legal_actions(state))
        rec.decisions += 1
        if len(legal) == 1:
            game.apply_action(state, legal[0])
            continue
        seat = game.current_player(state)
        visits = _decide(searcher, state, seat, legal, coin, caps, rec)
        game.apply_action(state, _pick(legal, visits, seen[seat] < explore, rng))
        seen[seat] += 1
    rec.ranks = list(game.ranks(state))
    rewards = game.terminal_rewards(rec.ranks, "zero_sum")
    for s in rec.samples:
        s.result = rewards[s.seat]
    return rec


def _decide(
    searcher: Any,
    state: Any,
    seat: int,
    legal: list[int],
    coin: random.Random,
    caps: tuple[float, int, float, str],
    rec: GameRecord,
) -> list[int]:
    """Search the decision of `seat` (full or cheap, `caps`: full share, fast sims, full
    below, policy target), keep a full search as a sample in `rec`; the root's visits of
    `legal`."""
    full_share, fast_sims, full_below, policy_target = caps
    game, pol = searcher.game, searcher.evaluator.policy
    view = game.player_view(state, seat)
    full = full_share >= 1.0 or coin.random() < full_share
    if full and full_below < 1.0:
        full = max(searcher.policy_priors(view).values()) < full_below
    root = searcher.search(view) if full else searcher.search(view, sims=fast_sims, noise=0.0)
    rec.sims += searcher.sims_done
    visits = [root.edge_n.get(a, 0) for a in legal]
    if not full:
        rec.fast += 1
        return visits
    prior = pol.prior_choice(view, legal) if pol.prior else None
    idx, vals = _observe(game, state, seat)
    net = max(legal, key=lambda a: (searcher.root_prior.get(a, 0.0), -a))
    target = _target(searcher, root, legal, visits, policy_target, rec.n)
    rec.samples.append(
        Sample(rec.n, seat, idx, vals, legal, target, -1 if prior is None else prior, net)
    )
    return visits


def _target(searcher: Any, root: Any, legal: list[int], visits: list[int], kind: str, n: int):
    """A searched decision's policy target at `n` players (`training.expert.targets`)."""
    if kind == "visits":
        return visits
    lo, hi = searcher.evaluator.bounds(n)
    return improved_policy(
        legal,
        visits,
        [root.edge_w.get(a, 0.0) for a in legal],
        searcher.root_prior,
        root.value,
        lo,
        hi,
    )


def pack(samples: list[Sample]) -> dict[str, np.ndarray]:
    """Samples as flat arrays (for a `.npz` on disk and for the update)."""
    lens = np.array([len(s.idx) for s in samples], dtype=np.int64)
    nleg = np.array([len(s.legal) for s in samples], dtype=np.int64)

    def cat(xs, dtype):
        return np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype)

    return {
        "n": np.array([s.n for s in samples], dtype=np.int64),
        "seat": np.array([s.seat for s in samples], dtype=np.int64),
        "obs_len": lens,
        "obs_idx": cat([s.idx for s in samples], np.int64),
        "obs_val": cat([s.vals for s in samples], np.float32),
        "legal_len": nleg,
        "legal": cat([np.asarray(s.legal) for s in samples], np.int64),
        "visits": cat([np.asarray(s.visits) for s in samples], np.float32),
        "prior": np.array([s.prior for s in samples], dtype=np.int64),
        "net_choice": np.array([s.net_choice for s in samples], dtype=np.int64),
        "result": np.array([s.result for s in samples], dtype=np.float32),
    }


def read_samples(paths: list[Path], game: Any = None) -> dict[str, np.ndarray]:
    """The packed samples of `game` (a `gamecore.Game` or its name; None: Last Will) saved
    at `paths` (`.npz` files of `pack`'s arrays, read without pickles and checked,
    `training.expert.samplefile`), joined in that order."""
    from .samplefile import read_sample_file

    return concat([read_sample_file(path, game) for path in paths])


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Packed sample sets joined into one."""
    if not parts:
        return pack([])
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
