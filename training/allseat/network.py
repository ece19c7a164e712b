"""The all-seat trainer's network: an actor-critic over the sparse observation.

The SB3 `MlpPolicy` shapes (separate actor and critic MLPs, `net_arch`, `activation`,
orthogonal initialisation) over the game's observation (`obs_size`) and actions (`num_actions`),
with the first layer applied to the sparse observation (in Last Will about 120 of 4285 entries
are non-zero) through `embedding_bag`, which is the same linear map at a few percent
of the cost (`firstlayer`; its weight gradient comes from a compiled kernel). The actor exports
to the dense `.npz` that `ppo:PATH` plays (`actor_numpy`, a `NumpyPolicy` of the network's
game), and a dense policy loads back into it (`load_actor_numpy`: a warm start, or the target of
`exploit`).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from agents.policy import NumpyPolicy
from agents.residual import raise_prior
from gamecore import DEFAULT_GAME, load_game

from ..config import TrainConfig
from .firstlayer import sparse_linear


def build_model(cfg: TrainConfig, seed: int) -> ActorCritic:
    """The actor-critic network for `cfg` (its game's observation and actions), its weights
    drawn from torch's generator at `seed`."""
    game = load_game(cfg.game)
    torch.manual_seed(seed)
    model = ActorCritic(
        game.obs_size, game.num_actions, list(cfg.net_arch), cfg.activation, game=game.name
    )
    model.prior, model.prior_weight = cfg.prior, float(cfg.prior_weight)
    return model


def _mlp_tail(arch: list[int], act: type[nn.Module]) -> nn.Sequential:
    """The hidden layers after the first (orthogonal weights, gain sqrt 2), each activated."""
    layers: list[nn.Module] = [act()]
    for a, b in zip(arch[:-1], arch[1:], strict=True):
        lin = nn.Linear(a, b)
        nn.init.orthogonal_(lin.weight, gain=math.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers += [lin, act()]
    return nn.Sequential(*layers)


def _dense(seq: nn.Sequential) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(weights, biases) of the linear layers of `seq` as numpy copies."""
    ws, bs = [], []
    for m in seq:
        if isinstance(m, nn.Linear):
            ws.append(m.weight.detach().cpu().numpy().copy())
            bs.append(m.bias.detach().cpu().numpy().copy())
    return ws, bs


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs (SB3 MlpPolicy shapes). Both first layers read the
    sparse observation through one `EmbeddingBag` of width 2 x net_arch[0]: its first
    half is the actor's first layer, its second half the critic's (no weight is shared;
    one bag is cheaper than two). `game` names the game it plays (its export's policy type)."""

    def __init__(
        self, n_in: int, n_actions: int, arch: list[int], activation: str, game: str = DEFAULT_GAME
    ):
        super().__init__()
        act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
        self.game = game
        self.activation = activation
        self.prior, self.prior_weight = "", 0.0  # a prior bot (build_model sets it)
        self.h0 = arch[0]
        self.first = nn.EmbeddingBag(n_in, 2 * arch[0], mode="sum")
        with torch.no_grad():
            for half in (slice(0, arch[0]), slice(arch[0], 2 * arch[0])):
                w = torch.empty(arch[0], n_in)
                nn.init.orthogonal_(w, gain=math.sqrt(2))
                self.first.weight[:, half] = w.T
        self.pi_bias = nn.Parameter(torch.zeros(arch[0]))
        self.vf_bias = nn.Parameter(torch.zeros(arch[0]))
        self.pi_rest = _mlp_tail(arch, act)
        self.vf_rest = _mlp_tail(arch, act)
        self.action_net = nn.Linear(arch[-1], n_actions)
        self.value_net = nn.Linear(arch[-1], 1)
        nn.init.orthogonal_(self.action_net.weight, gain=0.01)
        nn.init.zeros_(self.action_net.bias)
        nn.init.orthogonal_(self.value_net.weight, gain=1.0)
        nn.init.zeros_(self.value_net.bias)

    def forward(self, idx, vals, offsets, masks, prior=None):
        """(masked logits, values) of a sparse batch; `prior` (the prior bot's choice per
        row, -1 for none) adds `prior_weight` to that action's logit."""
        h = sparse_linear(self.first.weight, idx, vals, offsets)
        hp = self.pi_rest(h[:, : self.h0] + self.pi_bias)
        hv = self.vf_rest(h[:, self.h0 :] + self.vf_bias)
        logits = self.action_net(hp)
        if prior is not None and self.prior_weight:
            has = prior >= 0
            bonus = torch.zeros_like(logits)
            raise_prior(bonus, (has, prior[has]), self.prior_weight)
            logits = logits + bonus
        logits = logits.masked_fill(~masks, -1e8)
        return logits, self.value_net(hv).squeeze(-1)

    def evaluate(self, idx, vals, offsets, masks, actions, full: bool = False, prior=None):
        """(values, log-probs of `actions`, entropies) under the stored masks (and prior
        choices); with `full` also every action's log-probability (masked ones about
        -1e8)."""
        logits, values = self(idx, vals, offsets, masks, prior)
        logp_all = torch.log_softmax(logits, dim=-1)
        logp = logp_all.gather(1, actions.unsqueeze(1)).squeeze(1)
        legal_logp = logp_all.masked_fill(~masks, 0.0)  # masked entries add 0 * 0
        entropy = -(torch.where(masks, legal_logp.exp(), 0.0) * legal_logp).sum(-1)
        if full:
            return values, logp, entropy, logp_all
        return values, logp, entropy

    def actor_numpy(self, critic: bool = False) -> NumpyPolicy:
        """The actor as dense numpy weights; with ``critic``, the critic too (written to
        checkpoints, where ``NumpyPolicy.evaluate`` gives the value estimate)."""
        w0 = self.first.weight[:, : self.h0].detach().cpu().numpy().T.copy()
        ws, bs = _dense(self.pi_rest)
        ws = [w0, *ws, self.action_net.weight.detach().cpu().numpy().copy()]
        bs = [
            self.pi_bias.detach().cpu().numpy().copy(),
            *bs,
            self.action_net.bias.detach().cpu().numpy().copy(),
        ]
        pr = {"prior": self.prior, "prior_weight": self.prior_weight}
        # Last Will's policy is built with the call the trainer always made
        game = {} if self.game == DEFAULT_GAME else {"game": load_game(self.game)}
        if not critic:
            return NumpyPolicy(ws, bs, self.activation, **pr, **game)
        v0 = self.first.weight[:, self.h0 :].detach().cpu().numpy().T.copy()
        vws, vbs = _dense(self.vf_rest)
        vws = [v0, *vws, self.value_net.weight.detach().cpu().numpy().copy()]
        vbs = [
            self.vf_bias.detach().cpu().numpy().copy(),
            *vbs,
            self.value_net.bias.detach().cpu().numpy().copy(),
        ]
        return NumpyPolicy(ws, bs, self.activation, vws, vbs, **pr, **game)

    def load_actor_numpy(
        self, policy: NumpyPolicy, new_prior: bool = False, critic: bool = False
    ) -> None:
        """Set the actor from dense weights (a warm start, or the target of `exploit`),
        with `critic` the critic too (from the policy's value weights). The policy must
        play over this network's prior unless `new_prior` is set (the weights then play
        over this network's prior from now on)."""
        layers = [m for m in self.pi_rest if isinstance(m, nn.Linear)]
        self._check_fits("layers", policy.weights, layers)
        if policy.activation != self.activation:
            raise ValueError(f"the policy uses {policy.activation}, this network {self.activation}")
        if not new_prior and (policy.prior, policy.prior_weight) != (
            self.prior,
            self.prior_weight,
        ):
            raise ValueError(
                f"the policy plays over the prior {policy.prior!r} (weight "
                f"{policy.prior_weight}), this network over {self.prior!r} (weight "
                f"{self.prior_weight}); set prior and prior_weight to match, or "
                f"init_new_prior to keep the weights over this run's prior"
            )
        self._set_half(
            slice(0, self.h0),
            self.pi_bias,
            layers,
            self.action_net,
            policy.weights,
            policy.biases,
        )
        if critic:
            if not policy.has_value:
                raise ValueError("the policy has no critic (value weights) to start from")
            vlayers = [m for m in self.vf_rest if isinstance(m, nn.Linear)]
            self._check_fits("critic layers", policy.value_weights, vlayers)
            self._set_half(
                slice(self.h0, 2 * self.h0),
                self.vf_bias,
                vlayers,
                self.value_net,
                policy.value_weights,
                policy.value_biases,
            )

    def _check_fits(self, what: str, weights: list, layers: list) -> None:
        """Dense weights fit one network: the first layer's width and the hidden layers."""
        if len(weights) != len(layers) + 2 or weights[0].shape[0] != self.h0:
            raise ValueError(
                f"the policy's {what} {[w.shape for w in weights]} do not fit this "
                f"network (net_arch starting {self.h0}, {len(layers) + 1} hidden layers)"
            )

    def _set_half(self, half, bias, layers, head, weights, biases) -> None:
        """Copy dense weights into one network (the actor's or the critic's half of the
        first layer, its bias, its hidden layers and its head)."""
        with torch.no_grad():
            self.first.weight[:, half] = torch.as_tensor(weights[0].T)
            bias.copy_(torch.as_tensor(biases[0]))
            for m, w, b in zip(layers, weights[1:-1], biases[1:-1], strict=True):
                m.weight.copy_(torch.as_tensor(w))
                m.bias.copy_(torch.as_tensor(b))
            head.weight.copy_(torch.as_tensor(weights[-1]))
            head.bias.copy_(torch.as_tensor(biases[-1]))
