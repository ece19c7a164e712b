"""All-seat rollout: every seat the current policy plays is a training sample.

The game is the config's (`TrainConfig.game`, `gamecore.load_game`): the rollout reaches it only
through its `gamecore.Game` object (new games, legal actions, moves, views, the sparse and dense
encoders, ranks, terminal rewards and the shaping potential), the hot loops' functions bound
once (`Game.fast_functions`).

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
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from agents.policy import NumpyPolicy
from agents.registry import make_agent
from agents.residual import raise_prior
from gamecore import DEFAULT_GAME, load_game, win_shares

from ..config import TrainConfig
from ..seating import (
    BOT,
    MIXED,
    REVERSE,
    SNAPSHOT,
    draw_learner_seat,
    draw_player_count,
    draw_seat,
    draw_table,
)
from ..seeds import opponent_bot_seed, prior_bot_seed, teacher_seed
from .batch import sparse_batch

LEARNER = "learner"


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


@dataclass(eq=False)  # a game is itself: compared by identity (`self.games.remove(g)` is cheap)
class Game:
    state: Any
    ctrl: list[Any]  # per seat: LEARNER, ("snapshot", id) or an agent object (a bot)
    ids: list[str]  # per seat: "learner", the snapshot id or "bot:<spec>"
    traj: dict[int, SeatTrajectory]
    # the decision a network must answer (`Rollout._advance`): the seat to act, its legal set
    seat: int = -1
    legal: list[int] = field(default_factory=list)


def gumbel_argmax(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row sampled from the masked softmax of `logits` (the Gumbel-max trick).

    The noise is numpy's `rng.gumbel(size=logits.shape)`, drawn the same way and from the same
    stream (one uniform per entry, `-log(-log(1 - u))`), but the logarithms are taken only at the
    legal entries: a row's masked entries cannot win, and their noise was most of the cost.
    (numpy's own draw also rejects a uniform of exactly 0, with probability 2**-53 per entry.)
    """
    u = rng.random(size=logits.shape)
    z = np.full_like(logits, -np.inf)
    z[masks] = logits[masks] + (-np.log(-np.log(1.0 - u[masks]))).astype(np.float32)
    return z.argmax(axis=1)


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


def shaping_reward(shaping: float, gamma: float, phi: float, phi_next: float) -> float:
    """The potential-based shaping term of one step: `shaping * (gamma * phi_next - phi)`."""
    return shaping * (gamma * phi_next - phi)


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
            r[t] = shaping_reward(shaping, gamma, phis[t], phis[t + 1])
    if n:
        r[-1] += final
    return r


class Rollout:
    """Steps `n_games` games together and collects complete per-seat trajectories."""

    def __init__(self, cfg: TrainConfig, seed: int) -> None:
        self.cfg = cfg
        self._bind(load_game(cfg.game))
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.bots = {b: self._agent(b, opponent_bot_seed(seed, i)) for i, b in enumerate(cfg.bots)}
        self.bot_specs = list(cfg.bots)  # drawn from: a bot listed twice is drawn twice as often
        # kickstarting: the teacher is asked at every learner decision while `teaching` is on
        self.teacher = (
            self._agent(cfg.kickstart_teacher, teacher_seed(seed))
            if cfg.kickstart_teacher
            else None
        )
        self.teaching = self.teacher is not None
        # a prior: its bot's choice is asked at every learner decision and raises that logit
        self.prior_bot = self._agent(cfg.prior, prior_bot_seed(seed)) if cfg.prior else None
        self.prior_weight = float(cfg.prior_weight)
        # `ppo:PATH` bots (arg-max players) are answered in batches, like snapshots
        self.frozen_bots: dict[str, NumpyPolicy] = {
            b: agent.policy
            for b, agent in self.bots.items()
            if b.startswith("ppo:") and getattr(agent, "deterministic", False)
        }
        self.snapshots: dict[str, NumpyPolicy] = {}
        self.snapshot_weights: dict[str, float] = {}
        self.buf = np.zeros(self.obs_size, dtype=np.float32)
        self.games: list[Game] = []
        self.stats = {"bot_seconds": 0.0, "decisions": 0, "games": 0}
        self.samples_per_game = 100.0  # running mean, steers when to stop starting games

    def _bind(self, game: Any) -> None:
        """The game, and the functions the hot loops call (`Game.fast_functions`), bound once."""
        self.game = game
        self.obs_size, self.num_actions = game.obs_size, game.num_actions
        self._configs: dict[int, Any] = {}  # the game's config per player count
        fast = game.fast_functions()
        self._legal = fast["legal_actions"]
        self._apply = fast["apply_action"]
        self._over = fast["is_over"]
        self._cur = fast["current_player"]
        self._view = fast["player_view"]
        self._sparse = fast["encode_state_sparse"]
        self._encode = fast["encode_state"]
        self._potential = fast["potential"]

    def _agent(self, spec: str, seed: int) -> Any:
        """The agent `spec` names, built for this rollout's game (Last Will's with the call
        the trainer always made)."""
        if self.game.name == DEFAULT_GAME:
            return make_agent(spec, seed=seed)
        return make_agent(spec, seed=seed, game=self.game)

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
        kind, which = draw_seat(
            self.rng,
            len(self.bot_specs),
            cfg.p_bots_min,
            cfg.p_latest,
            self.snapshots,
            self.snapshot_weights,
        )
        if kind == BOT:
            return self._draw_bot(self.bot_specs[which])
        if kind == SNAPSHOT:
            return ("snapshot", which), which
        return LEARNER, LEARNER

    def new_game(self) -> Game:
        cfg = self.cfg
        n = draw_player_count(self.rng, cfg)
        me = draw_learner_seat(self.rng, n)
        others = [p for p in range(n) if p != me]
        table = draw_table(self.rng, len(self.bot_specs), cfg.p_bot_table, cfg.p_bot_seat, others)
        bot = None if table.kind == MIXED else self._draw_bot(self.bot_specs[table.bot])
        ctrl, ids = [], []
        for p in range(n):
            if p == me or (table.kind == REVERSE and p != table.bot_seat):
                c, i = LEARNER, LEARNER
            elif bot is not None:
                c, i = bot
            else:
                c, i = self._draw_seat()
            ctrl.append(c)
            ids.append(i)
        config = self._configs.get(n)
        if config is None:
            config = self._configs[n] = self.game.make_config(n)
        s = self.game.new_game(config, self.rng.randrange(2**62))
        traj = {p: SeatTrajectory() for p in range(n) if ctrl[p] == LEARNER}
        return Game(s, ctrl, ids, traj)

    # -- advancing -----------------------------------------------------------------------
    def _advance(self, g: Game) -> None:
        """Play bots and forced moves until a network must decide or the game is over."""
        s, ctrl = g.state, g.ctrl
        over, legal_of, apply, cur = self._over, self._legal, self._apply, self._cur
        while not over(s):
            legal = legal_of(s)
            if len(legal) == 1:
                apply(s, legal[0])
                continue
            seat = cur(s)
            c = ctrl[seat]
            if c == LEARNER or isinstance(c, tuple):
                g.seat, g.legal = seat, legal
                return
            t = time.perf_counter()
            view = self._view(s, seat) if getattr(c, "needs_view", True) else None
            a = c.act(view, legal)
            self.stats["bot_seconds"] += time.perf_counter() - t
            apply(s, a)

    def collect(self, model, target: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Play until `target` learner samples sit in complete trajectories.

        Returns (trajectories, finished games). A trajectory dict holds `obs` (sparse rows),
        `masks`, `actions`, `logps`, `values`, `advantages`, `returns`, `seat`, `num_players`.
        """
        out: list[dict[str, Any]] = []
        finished: list[dict[str, Any]] = []
        done_samples = 0
        while len(self.games) < self.cfg.n_games and self._expected(done_samples) < target:
            self.games.append(self.new_game())
        while self.games:
            # 1. advance every game to a network decision; finish the games that ended
            pending, done_samples = self._advance_all(target, done_samples, out, finished)
            if not self.games:
                break
            learner: list[Game] = []
            frozen: dict[str, list[Game]] = {}
            for g in pending:
                c = g.ctrl[g.seat]
                if c == LEARNER:
                    learner.append(g)
                elif isinstance(c, tuple):
                    frozen.setdefault(c[1], []).append(g)
            # 2. one batched forward for every pending learner decision
            if learner:
                self._answer_learner(model, learner)
            # 3. one batched forward per frozen snapshot (arg-max, as PolicyOpponent plays)
            for sid, games in frozen.items():
                self._answer_frozen(sid, games)
        return out, finished

    def _expected(self, done_samples: int) -> float:
        """Samples the rollout will hold once the games under way end (running mean of samples
        per finished game, at least what each game has already)."""
        per_game = self.samples_per_game
        return done_samples + sum(
            max(per_game, sum(len(t.actions) for t in g.traj.values())) for g in self.games
        )

    def _advance_all(
        self,
        target: int,
        done_samples: int,
        out: list[dict[str, Any]],
        finished: list[dict[str, Any]],
    ) -> tuple[list[Game], int]:
        """Advance every game to its next network decision. A game that ended adds its
        trajectories to `out` and its summary to `finished`, and a new game starts in its place
        while the rollout is expected to fall short of `target`. Returns (the games waiting on
        a network, the samples in finished trajectories)."""
        pending: list[Game] = []
        over = self._over
        for g in list(self.games):
            self._advance(g)
            if over(g.state):
                self.games.remove(g)
                trajs, summary = self._finish(g)
                out.extend(trajs)
                finished.append(summary)
                k = sum(len(t["actions"]) for t in trajs)
                done_samples += k
                self.samples_per_game += 0.05 * (k - self.samples_per_game)
                if self._expected(done_samples) < target:
                    h = self.new_game()
                    self.games.append(h)
                    self._advance(h)
                    if not over(h.state):  # a game of forced moves only ends at once:
                        pending.append(h)  # it is finished on the next pass
            else:
                pending.append(g)
        return pending, done_samples

    def _answer_learner(self, model, learner: list[Game]) -> None:
        """One batched forward (actor and critic) for the learner decisions pending in
        `learner`: sample each action, record it in its seat's trajectory and apply it."""
        cfg = self.cfg
        rows, masks, legals, seats = [], [], [], []
        sparse, k = self._sparse, self.num_actions
        for g in learner:
            seat, legal = g.seat, g.legal
            rows.append(sparse(g.state, seat, False))
            m = np.zeros(k, dtype=bool)
            m[legal] = True
            masks.append(m)
            legals.append(legal)
            seats.append(seat)
        mask_arr = np.stack(masks)
        view_of = self._view
        views = [
            view_of(g.state, seat) if self.teaching or self.prior_bot else None
            for g, seat in zip(learner, seats, strict=True)
        ]
        prior = None
        if self.prior_bot is not None:
            prior = [int(self.prior_bot.act(v, lg)) for v, lg in zip(views, legals, strict=True)]
        with torch.no_grad():
            logits, values = model(
                *sparse_batch(rows),
                torch.as_tensor(mask_arr),
                None if prior is None else torch.as_tensor(prior),
            )
        logits = logits.numpy()
        values = values.numpy()
        acts = gumbel_argmax(logits, mask_arr, self.np_rng)
        lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
        for i, g in enumerate(learner):
            a = int(acts[i])
            tr = g.traj[seats[i]]
            tr.obs.append(rows[i])
            tr.masks.append(masks[i])
            tr.actions.append(a)
            tr.logps.append(float(logits[i, a] - lse[i]))
            tr.values.append(float(values[i]))
            if prior is not None:
                tr.prior.append(prior[i])
            if self.teaching:
                tr.teacher.append(self._teacher_choice(g, views[i], legals[i], prior, i))
            if cfg.shaping:
                tr.phis.append(self._potential(g.state, seats[i]))
            self._apply(g.state, a)
        self.stats["decisions"] += len(learner)

    def _teacher_choice(
        self, g: Game, view: Any, legal: list[int], prior: list[int] | None, i: int
    ) -> int:
        """Kickstarting: the teacher's choice at a learner decision (the prior's when they are
        the same bot), -1 at a player count the teacher does not teach."""
        cfg = self.cfg
        kp = cfg.kickstart_players
        if kp and len(g.ctrl) not in kp:
            return -1
        if prior is not None and cfg.kickstart_teacher == cfg.prior:
            return prior[i]
        return int(self.teacher.act(view, legal))

    def _answer_frozen(self, sid: str, games: list[Game]) -> None:
        """One batched forward of the frozen policy `sid` (a snapshot or a `ppo:PATH` bot) for
        its decisions pending in `games`, each answered by its arg-max legal action."""
        pol = self.snapshots.get(sid) or self.frozen_bots[sid]
        x = np.zeros((len(games), self.obs_size), dtype=np.float32)
        legals, seats = [], []
        encode = self._encode
        for i, g in enumerate(games):
            encode(g.state, g.seat, x[i])
            legals.append(g.legal)
            seats.append(g.seat)
        z = pol.logits_batch(x)
        for i, g in enumerate(games):
            legal = legals[i]
            if pol.prior and len(legal) > 1:  # a policy over a prior bot
                view = self._view(g.state, seats[i])
                raise_prior(z, (i, pol.prior_choice(view, legal)), pol.prior_weight)
            self._apply(g.state, legal[int(np.argmax(z[i, legal]))])

    def _finish(self, g: Game) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        cfg = self.cfg
        n = len(g.ctrl)
        ranks = self.game.ranks(g.state)
        finals = self.game.terminal_rewards(ranks, cfg.reward)
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
                    "num_players": n,
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
        best_learner = min(ranks[p] for p in range(n) if g.ctrl[p] == LEARNER)
        shares = win_shares(ranks)  # a first place shared by k seats is 1/k of a win each
        summary = {
            "num_players": n,
            "ids": g.ids,
            "ranks": ranks,
            "learner_won": sum(shares[p] for p in g.traj),  # its seats' share of the win
            # per snapshot seat: did the best learner seat finish above it (PFSP record)?
            "vs": [
                (g.ids[p], 1.0 if best_learner < ranks[p] else 0.0)
                for p in range(n)
                if isinstance(g.ctrl[p], tuple) and not g.ids[p].startswith("bot:")
            ],
        }
        return trajs, summary
