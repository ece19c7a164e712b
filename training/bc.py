"""Behaviour-cloning warm start: imitate a scripted bot before self-play (`bc_teacher`).

Games are played by scripted bots drawn from `bots` (player counts from the training mix); at
each table one seat is the teacher (`bc_teacher`, e.g. `planner`). Every teacher decision with
more than one legal action becomes a sample: the teacher seat's observation (exactly what the
env gives the learner), its legal-action mask, the action taken, and the seat's discounted final
reward as the value target. The MaskablePPO policy is then fitted by masked cross-entropy on the
actions plus a value regression, for `bc_epochs` passes. PPO starts from there.

`warm_start` is the whole step as a trainer runs it (collect, fit, report through the run's
progress display); the fit it returns is recorded in state.json under "bc".

The game is the config's (`TrainConfig.game`, a `gamecore.Game` by name): its rules, views,
encoder and rewards, and its bots as teacher and table mates.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.registry import make_agent
from gamecore import load_game

from .config import TrainConfig
from .seating import draw_player_count


def collect(
    cfg: TrainConfig, games: int, seed: int, on_game: Callable[[], Any] | None = None
) -> dict[str, np.ndarray]:
    """Teacher demonstrations: observations (float16), masks (bool), actions, value targets.
    ``on_game()`` is called after each game (progress)."""
    game = load_game(cfg.game)
    rng = random.Random(seed)
    others = [b for b in cfg.bots if b != "random"] or [cfg.bc_teacher]
    rows: dict[str, list] = {"obs": [], "masks": [], "actions": [], "values": []}
    buf = np.zeros(game.obs_size, dtype=np.float32)
    for _ in range(games):
        n = draw_player_count(rng, cfg)
        teacher_seat = rng.randrange(n)
        specs = [cfg.bc_teacher if p == teacher_seat else rng.choice(others) for p in range(n)]
        agents = [make_agent(spec, seed=rng.randrange(2**31), game=game) for spec in specs]
        s = game.new_game(game.make_config(n), rng.randrange(2**62))
        k = _demonstrate(game, s, agents, teacher_seat, rows, buf)
        final = game.terminal_rewards(game.ranks(s), cfg.reward)[teacher_seat]
        rows["values"].extend(final * cfg.gamma ** (k - 1 - i) for i in range(k))
        if on_game is not None:
            on_game()
    return {
        "obs": np.stack(rows["obs"]),
        "masks": np.stack(rows["masks"]),
        "actions": np.asarray(rows["actions"], dtype=np.int64),
        "values": np.asarray(rows["values"], dtype=np.float32),
    }


def _demonstrate(
    game: Any, s: Any, agents: list, teacher_seat: int, rows: dict[str, list], buf: np.ndarray
) -> int:
    """Play the game `s` out with `agents`, keeping the teacher's decisions with a choice in
    `rows`; how many it kept."""
    kept = 0
    while not game.is_over(s):
        p = game.current_player(s)
        legal = game.legal_actions(s)
        a = agents[p].act(game.player_view(s, p), legal)
        if p == teacher_seat and len(legal) > 1:
            rows["obs"].append(game.encode_state(s, p, buf).astype(np.float16))
            m = np.zeros(game.num_actions, dtype=bool)
            m[legal] = True
            rows["masks"].append(m)
            rows["actions"].append(a)
            kept += 1
        game.apply_action(s, a)
    return kept


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
