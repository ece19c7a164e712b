"""All-seat self-play: every seat the current policy plays is a training sample.

`mode = "all_seat"` in `TrainConfig` selects this trainer (`training.train.train` dispatches to
`train_all_seat`). It is a compact masked PPO on torch, written out here because SB3's rollout
collection assumes one agent stepping one env in lock-step, while in Last Will the seats act at
different times, several times in a row, and only the current policy's seats should learn.

Rollout (one process, `n_games` games stepped together):

- Each game draws its player count from `num_players` / `player_weights`. One random seat is
  always the learner; every other seat is drawn from the opponent pool at the configured mix:
  a scripted bot with probability `p_bots_min`, the learner (parameter sharing) with `p_latest`,
  otherwise a frozen snapshot picked by PFSP (`training.pool`); with no snapshot yet, the learner.
  With probability `p_bot_table` a game instead seats n-1 copies of one pool bot, and with
  probability `p_bot_seat` one pool bot with the learner in every other seat (the reverse table).
- Kickstarting (`kickstart_teacher`): the teacher bot is asked at every learner decision for its
  own choice from the learner's view; the update adds a weighted cross-entropy towards it.
- Each loop pass advances every game to its next decision that needs a network (bots act inline;
  a decision with a single legal action is applied without a sample), then answers all pending
  learner decisions across the games with one batched forward pass (actor and critic), and the
  pending decisions of each snapshot with one batched forward of that snapshot.
- Every learner seat keeps its own trajectory: its own observations, masks, actions, log-probs,
  values, its own potential-based shaping and its own terminal reward. When a game ends, GAE is
  computed per seat over that seat's decisions only (TRAINING-NOTES trap 1: perspectives are
  never mixed), from its first decision to the end of the game, whatever the other seats did in
  between.
- New games start until the rollout holds `n_steps * n_envs` samples (counting games under way);
  the games under way are then played to the end with the same weights, so every sample is on
  policy and every trajectory is complete (no bootstrapping across an update).

Network: the SB3 `MlpPolicy` shapes (separate actor and critic MLPs, `net_arch`, `activation`,
orthogonal initialisation), with the first layer applied to the sparse observation (about 120 of
4285 entries are non-zero) through `embedding_bag`, which is the same linear map at a few percent
of the cost. The actor exports to the dense `.npz` that `ppo:PATH` plays.

Update: PPO with the `TrainConfig` settings (`n_epochs`, `batch_size`, `clip_range`,
`ent_coef`, `vf_coef`, `learning_rate`, `gamma`, `gae_lambda`), advantages normalised per
minibatch, gradient norm clipped at 0.5, Adam (eps 1e-5). The masks are stored in the rollout
buffer and applied again in the update (TRAINING-NOTES trap 5), so a masked-out action has
probability zero in the update's log-probabilities.

Threads: rollout and update alternate in one process; torch runs with `torch_threads` threads
(default: all cores) for both, since each phase has the machine to itself. On 2 cores this beats
a rollout process feeding a learner process (see README, "Training throughput").
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.policy import NumpyPolicy
from agents.registry import make_agent
from agents.residual import raise_prior
from lastwill_env.encoding import OBS_SIZE, encode_state, terminal_rewards
from lastwill_env.engine import NUM_ACTIONS, GameConfig, legal_actions, new_game, player_view
from lastwill_env.engine.game import GAME_OVER, property_value

from .config import TrainConfig

LEARNER = "learner"


# ---------------------------------------------------------------------------------------------
# The network


def build_model(cfg: TrainConfig, seed: int):
    """The actor-critic network for `cfg` (torch imported here, not at module import)."""
    import torch

    torch.manual_seed(seed)
    model = _model_class()(OBS_SIZE, NUM_ACTIONS, list(cfg.net_arch), cfg.activation)
    model.prior, model.prior_weight = cfg.prior, float(cfg.prior_weight)
    return model


_MODEL_CLASS = None


def _model_class():
    global _MODEL_CLASS
    if _MODEL_CLASS is not None:
        return _MODEL_CLASS
    import torch
    from torch import nn

    def _mlp_tail(arch: list[int], act: type[nn.Module]) -> nn.Sequential:
        layers: list[nn.Module] = [act()]
        for a, b in zip(arch[:-1], arch[1:], strict=True):
            lin = nn.Linear(a, b)
            nn.init.orthogonal_(lin.weight, gain=math.sqrt(2))
            nn.init.zeros_(lin.bias)
            layers += [lin, act()]
        return nn.Sequential(*layers)

    def _dense(seq: nn.Sequential) -> tuple[list[np.ndarray], list[np.ndarray]]:
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
        one bag is cheaper than two)."""

        def __init__(self, n_in: int, n_actions: int, arch: list[int], activation: str):
            super().__init__()
            act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
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
            h = self.first(idx, offsets, per_sample_weights=vals)
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
            if not critic:
                return NumpyPolicy(ws, bs, self.activation, **pr)
            v0 = self.first.weight[:, self.h0 :].detach().cpu().numpy().T.copy()
            vws, vbs = _dense(self.vf_rest)
            vws = [v0, *vws, self.value_net.weight.detach().cpu().numpy().copy()]
            vbs = [
                self.vf_bias.detach().cpu().numpy().copy(),
                *vbs,
                self.value_net.bias.detach().cpu().numpy().copy(),
            ]
            return NumpyPolicy(ws, bs, self.activation, vws, vbs, **pr)

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
                raise ValueError(
                    f"the policy uses {policy.activation}, this network {self.activation}"
                )
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

    _MODEL_CLASS = ActorCritic
    return ActorCritic


def make_optimizer(model, cfg: TrainConfig):
    """Adam as SB3 sets it up for PPO (eps 1e-5); the fused CPU kernel where available."""
    import torch

    try:
        return torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    except (RuntimeError, TypeError):  # pragma: no cover - older torch
        return torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)


def sparse_batch(rows: list[tuple[np.ndarray, np.ndarray]]):
    """torch (indices, values, offsets) of a list of sparse observations."""
    import torch

    lens = [len(i) for i, _ in rows]
    offsets = np.zeros(len(rows), dtype=np.int64)
    if len(rows) > 1:
        np.cumsum(lens[:-1], out=offsets[1:])
    idx = np.concatenate([i for i, _ in rows]) if rows else np.zeros(0, np.int64)
    vals = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
    return (
        torch.as_tensor(idx, dtype=torch.int64),
        torch.as_tensor(vals, dtype=torch.float32),
        torch.as_tensor(offsets),
    )


def sparse_obs(state, seat: int, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The seat's observation (docs/RULES.md §10, `encode_state`) as (indices, values)."""
    encode_state(state, seat, buf)
    idx = np.flatnonzero(buf)
    return idx, buf[idx]


# ---------------------------------------------------------------------------------------------
# Rollout


@dataclass
class SeatTrajectory:
    """One learner seat's decisions in one game."""

    obs: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logps: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    phis: list[float] = field(default_factory=list)
    teacher: list[int] = field(default_factory=list)  # kickstarting: the teacher's choices
    prior: list[int] = field(default_factory=list)  # the prior bot's choices (cfg.prior)


@dataclass
class Game:
    state: Any
    ctrl: list[Any]  # per seat: LEARNER, ("snapshot", id) or an agent object (a bot)
    ids: list[str]  # per seat: "learner", the snapshot id or "bot:<spec>"
    traj: dict[int, SeatTrajectory]


def seat_gae(
    rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns) of one complete trajectory (the game ends after its last step)."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    last = 0.0
    for t in range(n - 1, -1, -1):
        nxt = values[t + 1] if t + 1 < n else 0.0
        delta = rewards[t] + gamma * nxt - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + values.astype(np.float32)


def trajectory_rewards(
    traj: SeatTrajectory, final: float, shaping: float, gamma: float
) -> np.ndarray:
    """Per-decision rewards of a seat: potential-based shaping between its own decisions
    (phi = 0 at the end) plus its own terminal reward on its last decision."""
    n = len(traj.actions)
    r = np.zeros(n, dtype=np.float32)
    if shaping:
        phis = traj.phis + [0.0]
        for t in range(n):
            r[t] = shaping * (gamma * phis[t + 1] - phis[t])
    if n:
        r[-1] += final
    return r


def potential(state, seat: int) -> float:
    """phi = (mean total of the other players - own total) / 100 (docs/RULES.md §8 totals)."""
    if state.phase == GAME_OVER:
        return 0.0
    totals = [state.money[p] + property_value(state, p) for p in range(state.n)]
    me = totals[seat]
    return ((sum(totals) - me) / (state.n - 1) - me) / 100.0


class Rollout:
    """Steps `n_games` games together and collects complete per-seat trajectories."""

    def __init__(self, cfg: TrainConfig, seed: int) -> None:
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.bots = {b: make_agent(b, seed=seed + i) for i, b in enumerate(cfg.bots)}
        self.bot_specs = list(cfg.bots)  # drawn from: a bot listed twice is drawn twice as often
        # kickstarting: the teacher is asked at every learner decision while `teaching` is on
        self.teacher = (
            make_agent(cfg.kickstart_teacher, seed=seed + 7717) if cfg.kickstart_teacher else None
        )
        self.teaching = self.teacher is not None
        # a prior: its bot's choice is asked at every learner decision and raises that logit
        self.prior_bot = make_agent(cfg.prior, seed=seed + 7919) if cfg.prior else None
        self.prior_weight = float(cfg.prior_weight)
        # `ppo:PATH` bots (arg-max players) are answered in batches, like snapshots
        self.frozen_bots: dict[str, NumpyPolicy] = {
            b: agent.policy
            for b, agent in self.bots.items()
            if b.startswith("ppo:") and getattr(agent, "deterministic", False)
        }
        self.snapshots: dict[str, NumpyPolicy] = {}
        self.snapshot_weights: dict[str, float] = {}
        self.buf = np.zeros(OBS_SIZE, dtype=np.float32)
        self.games: list[Game] = []
        self.stats = {"bot_seconds": 0.0, "decisions": 0, "games": 0}
        self.samples_per_game = 100.0  # running mean, steers when to stop starting games

    # -- the pool ------------------------------------------------------------------------
    def set_snapshots(self, policies: dict[str, NumpyPolicy], weights: dict[str, float]) -> None:
        self.snapshots = dict(policies)
        self.snapshot_weights = {k: w for k, w in weights.items() if k in policies}

    def _draw_bot(self, spec: str) -> tuple[Any, str]:
        if spec in self.frozen_bots:
            return ("snapshot", spec), f"bot:{spec}"
        return self.bots[spec], f"bot:{spec}"

    def _draw_seat(self) -> tuple[Any, str]:
        cfg = self.cfg
        u = self.rng.random()
        if self.bots and u < cfg.p_bots_min:
            return self._draw_bot(self.rng.choice(self.bot_specs))
        if u < cfg.p_bots_min + cfg.p_latest or not self.snapshots:
            return LEARNER, LEARNER
        ids = list(self.snapshot_weights) or list(self.snapshots)
        sid = self.rng.choices(ids, weights=[self.snapshot_weights.get(i, 1.0) for i in ids])[0]
        return ("snapshot", sid), sid

    def new_game(self) -> Game:
        cfg = self.cfg
        n = self.rng.choices(cfg.num_players, weights=cfg.player_weights)[0]
        me = self.rng.randrange(n)
        ctrl, ids = [], []
        table = (
            self._draw_bot(self.rng.choice(self.bot_specs))
            if (self.bots and cfg.p_bot_table > 0 and self.rng.random() < cfg.p_bot_table)
            else None
        )
        bot_seat, lone = -1, None
        if (
            table is None
            and cfg.p_bot_seat > 0
            and self.rng.random() < cfg.p_bot_seat / (1.0 - cfg.p_bot_table)
        ):
            # the reverse table: one pool bot, the learner everywhere else
            bot_seat = self.rng.choice([p for p in range(n) if p != me])
            lone = self._draw_bot(self.rng.choice(self.bot_specs))
        for p in range(n):
            if p == me:
                c, i = LEARNER, LEARNER
            elif lone is not None:
                c, i = lone if p == bot_seat else (LEARNER, LEARNER)
            else:
                c, i = table if table is not None else self._draw_seat()
            ctrl.append(c)
            ids.append(i)
        s = new_game(GameConfig(num_players=n), self.rng.randrange(2**62))
        traj = {p: SeatTrajectory() for p in range(n) if ctrl[p] == LEARNER}
        return Game(s, ctrl, ids, traj)

    # -- advancing -----------------------------------------------------------------------
    def _advance(self, g: Game) -> None:
        """Play bots and forced moves until a network must decide or the game is over."""
        s = g.state
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            if len(legal) == 1:
                s.apply_action(legal[0])
                continue
            c = g.ctrl[s.cur]
            if c == LEARNER or isinstance(c, tuple):
                return
            t = time.perf_counter()
            view = player_view(s, s.cur) if getattr(c, "needs_view", True) else None
            a = c.act(view, legal)
            self.stats["bot_seconds"] += time.perf_counter() - t
            s.apply_action(a)

    def collect(self, model, target: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Play until `target` learner samples sit in complete trajectories.

        Returns (trajectories, finished games). A trajectory dict holds `obs` (sparse rows),
        `masks`, `actions`, `logps`, `values`, `advantages`, `returns`, `seat`, `num_players`.
        """
        import torch

        cfg = self.cfg
        out: list[dict[str, Any]] = []
        finished: list[dict[str, Any]] = []
        done_samples = 0

        def expected() -> float:
            """Samples the rollout will hold once the games under way end (running mean of
            samples per finished game, at least what each game has already)."""
            per_game = self.samples_per_game
            return done_samples + sum(
                max(per_game, sum(len(t.actions) for t in g.traj.values())) for g in self.games
            )

        while len(self.games) < cfg.n_games and expected() < target:
            self.games.append(self.new_game())
        while self.games:
            # 1. advance every game to a network decision; finish the games that ended
            pending: list[Game] = []
            for g in list(self.games):
                self._advance(g)
                if g.state.phase == GAME_OVER:
                    self.games.remove(g)
                    trajs, summary = self._finish(g)
                    out.extend(trajs)
                    finished.append(summary)
                    k = sum(len(t["actions"]) for t in trajs)
                    done_samples += k
                    self.samples_per_game += 0.05 * (k - self.samples_per_game)
                    if expected() < target:
                        h = self.new_game()
                        self.games.append(h)
                        self._advance(h)
                        pending.append(h)
                else:
                    pending.append(g)
            if not self.games:
                break
            learner = [g for g in pending if g.ctrl[g.state.cur] == LEARNER]
            frozen: dict[str, list[Game]] = {}
            for g in pending:
                c = g.ctrl[g.state.cur]
                if isinstance(c, tuple):
                    frozen.setdefault(c[1], []).append(g)
            # 2. one batched forward for every pending learner decision
            if learner:
                rows, masks, legals = [], [], []
                for g in learner:
                    s = g.state
                    rows.append(sparse_obs(s, s.cur, self.buf))
                    legal = legal_actions(s)
                    m = np.zeros(NUM_ACTIONS, dtype=bool)
                    m[legal] = True
                    masks.append(m)
                    legals.append(legal)
                mask_arr = np.stack(masks)
                views = [
                    player_view(g.state, g.state.cur) if self.teaching or self.prior_bot else None
                    for g in learner
                ]
                prior = None
                if self.prior_bot is not None:
                    prior = [
                        int(self.prior_bot.act(v, lg)) for v, lg in zip(views, legals, strict=True)
                    ]
                with torch.no_grad():
                    logits, values = model(
                        *sparse_batch(rows),
                        torch.as_tensor(mask_arr),
                        None if prior is None else torch.as_tensor(prior),
                    )
                logits = logits.numpy()
                values = values.numpy()
                z = logits + self.np_rng.gumbel(size=logits.shape).astype(np.float32)
                z[~mask_arr] = -np.inf
                acts = z.argmax(axis=1)
                lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
                # the teacher's choice is the prior's when they are the same bot
                same = prior is not None and cfg.kickstart_teacher == cfg.prior
                kp = cfg.kickstart_players
                for i, g in enumerate(learner):
                    s = g.state
                    a = int(acts[i])
                    tr = g.traj[s.cur]
                    tr.obs.append(rows[i])
                    tr.masks.append(masks[i])
                    tr.actions.append(a)
                    tr.logps.append(float(logits[i, a] - lse[i]))
                    tr.values.append(float(values[i]))
                    if prior is not None:
                        tr.prior.append(prior[i])
                    if self.teaching:
                        if kp and s.n not in kp:
                            choice = -1  # a count the teacher does not teach
                        elif same:
                            choice = prior[i]
                        else:
                            choice = int(self.teacher.act(views[i], legals[i]))
                        tr.teacher.append(choice)
                    if cfg.shaping:
                        tr.phis.append(potential(s, s.cur))
                    s.apply_action(a)
                self.stats["decisions"] += len(learner)
            # 3. one batched forward per frozen snapshot (arg-max, as PolicyOpponent plays)
            for sid, games in frozen.items():
                pol = self.snapshots.get(sid) or self.frozen_bots[sid]
                x = np.zeros((len(games), OBS_SIZE), dtype=np.float32)
                legals = []
                for i, g in enumerate(games):
                    encode_state(g.state, g.state.cur, x[i])
                    legals.append(legal_actions(g.state))
                z = pol.logits_batch(x)
                for i, g in enumerate(games):
                    legal = legals[i]
                    if pol.prior and len(legal) > 1:  # a policy over a prior bot
                        view = player_view(g.state, g.state.cur)
                        raise_prior(z, (i, pol.prior_choice(view, legal)), pol.prior_weight)
                    g.state.apply_action(legal[int(np.argmax(z[i, legal]))])
        return out, finished

    def _finish(self, g: Game) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        cfg = self.cfg
        s = g.state
        ranks = s.results["ranks"]
        finals = terminal_rewards(ranks, cfg.reward)
        trajs = []
        for seat, tr in g.traj.items():
            if not tr.actions:
                continue
            r = trajectory_rewards(tr, finals[seat], cfg.shaping, cfg.gamma)
            v = np.asarray(tr.values, dtype=np.float32)
            adv, ret = seat_gae(r, v, cfg.gamma, cfg.gae_lambda)
            trajs.append(
                {
                    "seat": seat,
                    "num_players": s.n,
                    "obs": tr.obs,
                    "masks": tr.masks,
                    "actions": tr.actions,
                    "logps": tr.logps,
                    "values": tr.values,
                    "rewards": r,
                    "advantages": adv,
                    "returns": ret,
                    "final": finals[seat],
                    **({"teacher": tr.teacher} if tr.teacher else {}),
                    **({"prior": tr.prior} if tr.prior else {}),
                }
            )
        self.stats["games"] += 1
        best_learner = min(ranks[p] for p in range(s.n) if g.ctrl[p] == LEARNER)
        summary = {
            "num_players": s.n,
            "ids": g.ids,
            "ranks": ranks,
            "learner_won": ranks.index(1) in g.traj,
            # per snapshot seat: did the best learner seat finish above it (PFSP record)?
            "vs": [
                (g.ids[p], 1.0 if best_learner < ranks[p] else 0.0)
                for p in range(s.n)
                if isinstance(g.ctrl[p], tuple) and not g.ids[p].startswith("bot:")
            ],
        }
        return trajs, summary


# ---------------------------------------------------------------------------------------------
# Update


def flatten(trajs: list[dict[str, Any]]) -> dict[str, Any]:
    """One rollout buffer from complete trajectories."""
    obs = [o for t in trajs for o in t["obs"]]
    return {
        "obs": obs,
        "masks": np.stack([m for t in trajs for m in t["masks"]]),
        "actions": np.asarray([a for t in trajs for a in t["actions"]], dtype=np.int64),
        "logps": np.asarray([x for t in trajs for x in t["logps"]], dtype=np.float32),
        "values": np.asarray([x for t in trajs for x in t["values"]], dtype=np.float32),
        "advantages": np.concatenate([t["advantages"] for t in trajs]).astype(np.float32),
        "returns": np.concatenate([t["returns"] for t in trajs]).astype(np.float32),
        # kickstarting: the teacher's choice per sample, -1 where it was not asked
        "teacher": np.asarray(
            [a for t in trajs for a in (t.get("teacher") or [-1] * len(t["actions"]))],
            dtype=np.int64,
        ),
        # a prior: the prior bot's choice per sample, -1 where there is none
        "prior": np.asarray(
            [a for t in trajs for a in (t.get("prior") or [-1] * len(t["actions"]))],
            dtype=np.int64,
        ),
    }


def ppo_update(
    model,
    optimizer,
    buf: dict[str, Any],
    cfg: TrainConfig,
    rng,
    policy: bool = True,
    kickstart: float = 0.0,
) -> dict[str, float]:
    """PPO epochs over the buffer; the stored masks are applied again (trap 5). With
    `policy=False` only the critic learns (the value loss alone). With `kickstart` > 0 the
    loss adds `kickstart` x the cross-entropy of the teacher's choices (`buf["teacher"]`,
    samples where the teacher was asked), under the same masks (Schmitt et al. 2018). With a
    prior, every log-probability is taken over the logits plus the prior's bonus
    (`buf["prior"]`), as the rollout sampled them."""
    import torch

    n = len(buf["actions"])
    keys = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac", "kickstart_loss")
    stats = {k: 0.0 for k in keys}
    teacher_all = torch.as_tensor(buf.get("teacher", np.full(n, -1, dtype=np.int64)))
    kick = kickstart > 0 and policy and bool((teacher_all >= 0).any())
    count = 0
    prior_all = torch.as_tensor(buf.get("prior", np.full(n, -1, dtype=np.int64)))
    masks_all = torch.as_tensor(buf["masks"])
    acts_all = torch.as_tensor(buf["actions"])
    logp_old_all = torch.as_tensor(buf["logps"])
    adv_all = torch.as_tensor(buf["advantages"])
    ret_all = torch.as_tensor(buf["returns"])
    for _ in range(cfg.n_epochs):
        order = rng.permutation(n)
        for i in range(0, n, cfg.batch_size):
            idx = order[i : i + cfg.batch_size]
            if len(idx) < 2:
                continue
            it = torch.as_tensor(idx)
            obs = sparse_batch([buf["obs"][j] for j in idx])
            out = model.evaluate(*obs, masks_all[it], acts_all[it], full=kick, prior=prior_all[it])
            values, logp, entropy = out[:3]
            ce = None  # cross-entropy of the teacher's choices, where the teacher was asked
            if kick:
                tch = teacher_all[it]
                asked = tch >= 0
                if bool(asked.any()):
                    ce = -out[3][asked].gather(1, tch[asked].unsqueeze(1)).mean()
            adv = adv_all[it]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = torch.exp(logp - logp_old_all[it])
            pg = -torch.min(
                adv * ratio, adv * torch.clamp(ratio, 1 - cfg.clip_range, 1 + cfg.clip_range)
            ).mean()
            vloss = torch.nn.functional.mse_loss(values, ret_all[it])
            ent = entropy.mean()
            loss = pg + cfg.vf_coef * vloss - cfg.ent_coef * ent if policy else vloss
            if ce is not None:
                loss = loss + kickstart * ce
                stats["kickstart_loss"] += float(ce.detach())
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            with torch.no_grad():
                lr = logp - logp_old_all[it]
                stats["approx_kl"] += float(((torch.exp(lr) - 1) - lr).mean())
                stats["clip_frac"] += float(((ratio - 1).abs() > cfg.clip_range).float().mean())
            stats["policy_loss"] += float(pg.detach())
            stats["value_loss"] += float(vloss.detach())
            stats["entropy"] += float(ent.detach())
            count += 1
    return {k: v / max(count, 1) for k, v in stats.items()}
