"""Behaviour-cloning warm start: imitate a scripted bot before self-play (`bc_teacher`).

Games are played by scripted bots drawn from `bots` (player counts from the training mix); at
each table one seat is the teacher (`bc_teacher`, e.g. `planner`). Every teacher decision with
more than one legal action becomes a sample: the teacher seat's observation (exactly what the
env gives the learner), its legal-action mask, the action taken, and the seat's discounted final
reward as the value target. The MaskablePPO policy is then fitted by masked cross-entropy on the
actions plus a value regression, for `bc_epochs` passes. PPO starts from there.

`warm_start` is the whole step as a trainer runs it (collect, fit, report through the run's
progress display); the fit it returns is recorded in state.json under "bc".
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.registry import make_agent
from lastwill_env.encoding import OBS_SIZE, encode_state, terminal_rewards
from lastwill_env.engine import NUM_ACTIONS, GameConfig, new_game, player_view
from lastwill_env.engine.game import GAME_OVER

from .config import TrainConfig
from .seating import draw_player_count


def collect(
    cfg: TrainConfig, games: int, seed: int, on_game: Callable[[], Any] | None = None
) -> dict[str, np.ndarray]:
    """Teacher demonstrations: observations (float16), masks (bool), actions, value targets.
    ``on_game()`` is called after each game (progress)."""
    rng = random.Random(seed)
    others = [b for b in cfg.bots if b != "random"] or [cfg.bc_teacher]
    obs_rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    values: list[float] = []
    buf = np.zeros(OBS_SIZE, dtype=np.float32)
    for g in range(games):
        n = draw_player_count(rng, cfg)
        teacher_seat = rng.randrange(n)
        specs = [cfg.bc_teacher if p == teacher_seat else rng.choice(others) for p in range(n)]
        agents = [make_agent(spec, seed=rng.randrange(2**31)) for spec in specs]
        s = new_game(GameConfig(num_players=n), rng.randrange(2**62))
        start = len(actions)
        while s.phase != GAME_OVER:
            p = s.cur
            legal = s.legal_actions()
            a = agents[p].act(player_view(s, p), legal)
            if p == teacher_seat and len(legal) > 1:
                obs_rows.append(encode_state(s, p, buf).astype(np.float16))
                m = np.zeros(NUM_ACTIONS, dtype=bool)
                m[legal] = True
                masks.append(m)
                actions.append(a)
            s.apply_action(a)
        final = terminal_rewards(s.results["ranks"], cfg.reward)[teacher_seat]
        k = len(actions) - start
        values.extend(final * cfg.gamma ** (k - 1 - i) for i in range(k))
        del g
        if on_game is not None:
            on_game()
    return {
        "obs": np.stack(obs_rows),
        "masks": np.stack(masks),
        "actions": np.asarray(actions, dtype=np.int64),
        "values": np.asarray(values, dtype=np.float32),
    }


def accuracy(model: Any, data: dict[str, np.ndarray], batch: int = 2048) -> tuple[float, float]:
    """(share of teacher actions the policy ranks first, mean negative log-likelihood)."""
    import torch

    policy = model.policy
    hits = nll = 0.0
    n = len(data["actions"])
    with torch.no_grad():
        for i in range(0, n, batch):
            obs = torch.as_tensor(data["obs"][i : i + batch].astype(np.float32))
            masks = torch.as_tensor(data["masks"][i : i + batch])
            act = torch.as_tensor(data["actions"][i : i + batch])
            dist = policy.get_distribution(obs, action_masks=masks)
            hits += float((dist.distribution.probs.argmax(dim=1) == act).float().sum())
            nll -= float(dist.log_prob(act).sum())
    return hits / n, nll / n


def pretrain(
    model: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    seed: int,
    on_epoch: Callable[[], Any] | None = None,
) -> dict[str, float]:
    """Fit the policy (masked cross-entropy) and value head (MSE) to the demonstrations;
    returns the fit before and after (accuracy = the teacher's action ranked first).
    ``on_epoch()`` is called after each pass (progress)."""
    import torch

    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    n = len(data["actions"])
    gen = np.random.default_rng(seed)
    batch = 512
    acc0, nll0 = accuracy(model, data)
    for _ in range(epochs):
        order = gen.permutation(n)
        for i in range(0, n, batch):
            idx = order[i : i + batch]
            obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
            masks = torch.as_tensor(data["masks"][idx])
            act = torch.as_tensor(data["actions"][idx])
            target = torch.as_tensor(data["values"][idx])
            values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=masks)
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), target)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
        if on_epoch is not None:
            on_epoch()
    acc, nll = accuracy(model, data)
    return {
        "bc_samples": float(n),
        "bc_accuracy_before": acc0,
        "bc_nll_before": nll0,
        "bc_accuracy": acc,
        "bc_nll": nll,
    }


def warm_start(model: Any, cfg: TrainConfig, progress: Any) -> dict[str, Any]:
    """Behaviour cloning of `bc_teacher` into `model` (anything with a `policy` that
    `pretrain` fits); its fit, for state.json and TensorBoard. `progress` is the run's
    `training.progress.TrainProgress`."""
    t0 = time.perf_counter()
    progress.bc_collect(cfg.bc_teacher, cfg.bc_games)
    data = collect(cfg, cfg.bc_games, cfg.seed, on_game=progress.advance)
    progress.bc_collected(len(data["actions"]), time.perf_counter() - t0)
    progress.bc_fit(cfg.bc_epochs)
    fit = pretrain(model, data, cfg.bc_epochs, cfg.seed, on_epoch=progress.advance)
    progress.bc_done(fit)
    return {"teacher": cfg.bc_teacher, **fit, "seconds": round(time.perf_counter() - t0, 1)}
