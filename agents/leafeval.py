"""The network's answers at a search node: move probabilities for the seat to act and a value
for every seat, from a trained policy with its critic (`agents.policy.NumpyPolicy`).

The game is any `gamecore.Game` (``game=``; by default the policy's own, Last Will for most);
everything of the game (encoders, views, shaping potential, rewards) comes through it.

`LeafEvaluator.evaluate(state, legal)` encodes every seat's own observation in its sparse form
(`Game.encode_seats_sparse(state, seats)`: for each seat what `player_view(state, p)` shows;
Last Will writes it without building the views, the pieces all observers share written once)
and runs the first layers of both networks, actor and critic, side by side as one weight matrix
over all the seats' observations (each read through its few non-zero entries); the actor's later
layers then read the acting seat's row, the critic's the rows of all seats at once.
The move probabilities are those of `NumpyPolicy.evaluate` for the acting seat's view: the
masked softmax of the actor's logits over `legal`, with the policy's prior bot asked on
`player_view(state, seat)` and `prior_weight` added to its choice's logit.

Values are put on the scale of the game's result, so that a leaf's estimate and a finished
game's outcome can be averaged in one tree. The critic was trained on the discounted return of
a seat's own decisions (training.allseat): the terminal reward of the policy's reward mode
(`terminal_rewards`, `zero_sum` by default: +1 for the winner, -1/(n-1) for every other seat)
plus, with `shaping` > 0, the potential-based shaping `shaping * (gamma * phi' - phi)` between
its decisions, where phi is `Game.potential` (Last Will's: (mean total of the other seats - own
total) / 100). That shaping
telescopes to `-shaping * phi(now)` over the rest of the game, so

    score(seat) = V(seat's observation) + shaping * phi(state, seat)

estimates the seat's terminal reward; it is clipped to the reward's range. The discount
(gamma per own decision, 0.995 for the shipped policies, some 70 decisions per seat and game)
is not undone, so a leaf's score early in a game leans towards 0 by up to about a third; the
training settings (`reward`, `shaping`) are read from the checkpoint's sidecar. A seat that is
not to act is valued on its observation at another seat's decision, which the critic saw less
often in training. A finished game scores `terminal_rewards(ranks, reward)`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from gamecore import REWARD_MODES, load_game

from .policy import NumpyPolicy
from .residual import raise_prior

if TYPE_CHECKING:
    from gamecore import Game


class LeafEvaluator:
    """Priors and per-seat values from `policy` (which needs its critic); `meta` is the
    checkpoint's sidecar (its training `config` gives the reward mode and shaping); `game`
    the game its states are of (None: the policy's own game, else Last Will).
    Counts its network calls and the time spent encoding, in the network and in the prior
    bot (`calls`, `t_encode`, `t_net`, `t_prior`)."""

    def __init__(
        self, policy: NumpyPolicy, meta: dict[str, Any] | None = None, game: Game | None = None
    ) -> None:
        self.game = _game_of(policy, game)
        if not policy.has_value or policy.value_weights is None or policy.value_biases is None:
            raise ValueError(
                "the search needs a policy with its critic (value network); this checkpoint "
                "holds the actor only: export it again with agents.policy.save_policy"
            )
        cfg = (meta or {}).get("config") or {}
        self.reward = str(cfg.get("reward", "zero_sum"))
        if self.reward not in REWARD_MODES:
            raise ValueError(f"the policy's reward {self.reward!r} is not one of {REWARD_MODES}")
        self.shaping = float(cfg.get("shaping", 0.0) or 0.0)
        self.policy = policy
        actor0, critic0 = policy.weights[0], policy.value_weights[0]
        self._first = np.ascontiguousarray(np.concatenate([actor0, critic0], axis=0).T)
        self._first_b = np.concatenate([policy.biases[0], policy.value_biases[0]])
        self._split = actor0.shape[0]
        self.calls = 0
        self.t_encode = 0.0
        self.t_net = 0.0
        self.t_prior = 0.0

    def _act(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x) if self.policy.activation == "tanh" else np.maximum(x, 0.0)

    def _encode(self, state: Any, seats: range | list[int]) -> list[tuple]:
        """The seats' observations, each as (indices, values) of its non-zero entries."""
        t = time.perf_counter()
        rows = self.game.encode_seats_sparse(state, seats, ordered=False)
        self.t_encode += time.perf_counter() - t
        return rows

    def _first_layer(self, rows: list[tuple]) -> np.ndarray:
        """Both first layers over all rows, each row read through its non-zero entries only
        (a few dozen of Last Will's 4,285: the rows of the weights for those entries, summed)."""
        first = self._first
        out = np.empty((len(rows), first.shape[1]), dtype=np.float32)
        for r, (nz, v) in enumerate(rows):
            out[r] = v @ first[nz]
        return out + self._first_b

    def _rest(self, x: np.ndarray, weights: list[np.ndarray], biases: list[np.ndarray]):
        for w, b in zip(weights[1:], biases[1:], strict=True):
            x = self._act(x) @ w.T + b
        return x

    def _probabilities(self, state: Any, logits: np.ndarray, legal: list[int]):
        """`NumpyPolicy.evaluate`'s masked softmax, the prior bot's choice raised."""
        z = logits[list(legal)].astype(np.float64)
        pol = self.policy
        if pol.prior:
            t = time.perf_counter()
            game = self.game
            view = game.player_view(state, game.current_player(state))
            raise_prior(z, list(legal).index(pol.prior_choice(view, legal)), pol.prior_weight)
            self.t_prior += time.perf_counter() - t
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        return dict(zip(legal, p.tolist(), strict=True))

    def evaluate(self, state: Any, legal: list[int]) -> tuple[dict[int, float], list[float]]:
        """``(priors, scores)``: the acting seat's move probabilities over `legal` (by action)
        and every seat's score (the module docstring), from one network call."""
        game = self.game
        seat = game.current_player(state)
        n = game.num_players(state)
        obs = self._encode(state, range(n))
        t = time.perf_counter()
        h = self._first_layer(obs)
        pol = self.policy
        logits = self._rest(h[seat, : self._split], pol.weights, pol.biases)
        values = self._rest(h[:, self._split :], pol.value_weights, pol.value_biases)[:, 0]
        self.calls += 1
        self.t_net += time.perf_counter() - t
        priors = self._probabilities(state, logits, legal)
        lo, hi = self.bounds(n)
        shaping, potential = self.shaping, game.potential
        return priors, [
            min(hi, max(lo, float(values[p]) + shaping * potential(state, p))) for p in range(n)
        ]

    def priors(self, state: Any, legal: list[int]) -> dict[int, float]:
        """The acting seat's move probabilities over `legal` only (actor alone)."""
        obs = self._encode(state, [self.game.current_player(state)])
        t = time.perf_counter()
        pol = self.policy
        h = self._first_layer(obs)[0, : self._split]
        logits = self._rest(h, pol.weights, pol.biases)
        self.calls += 1
        self.t_net += time.perf_counter() - t
        return self._probabilities(state, logits, legal)

    def bounds(self, n: int) -> tuple[float, float]:
        """The range of a seat's terminal reward at `n` players."""
        return (-1.0 / (n - 1), 1.0) if self.reward == "zero_sum" else (-1.0, 1.0)

    def score(self, value: float, state: Any, seat: int) -> float:
        """A critic value as an estimate of the seat's terminal reward (clipped to its range):
        what `evaluate` gives each seat."""
        game = self.game
        lo, hi = self.bounds(game.num_players(state))
        return min(hi, max(lo, value + self.shaping * game.potential(state, seat)))

    def terminal(self, state: Any) -> list[float]:
        """Every seat's reward in a finished game."""
        return self.game.terminal_rewards(self.game.ranks(state), self.reward)


def potential(state: Any, seat: int) -> float:
    """The default game's (Last Will's) shaping potential of ``seat``, `Game.potential`: what
    an evaluator of that game adds back, scaled by its ``shaping``."""
    return load_game().potential(state, seat)


def _game_of(policy: NumpyPolicy, game: Game | None) -> Game:
    """``game``, else the policy's own game, else Last Will; a clear error where the two
    differ."""
    own = getattr(policy, "game", None)
    if game is None:
        return own if own is not None else load_game()
    if own is not None and own.name != game.name:
        raise ValueError(
            f"the policy plays {own.name!r}, not {game.name!r}: search {own.name!r} with it"
        )
    return game
