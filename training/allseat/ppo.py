"""The all-seat trainer's update: PPO over a rollout buffer of complete trajectories.

PPO with the `TrainConfig` settings (`n_epochs`, `batch_size`, `clip_range`, `ent_coef`,
`vf_coef`, `learning_rate`, `gamma`, `gae_lambda`), advantages normalised per minibatch, gradient
norm clipped at 0.5, Adam (eps 1e-5). The masks are stored in the rollout buffer and applied
again in the update (TRAINING-NOTES trap 5), so a masked-out action has probability zero in the
update's log-probabilities. Kickstarting adds a weighted cross-entropy towards the teacher's
choices; with a prior every log-probability is taken over the logits plus the prior's bonus.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..config import TrainConfig
from .batch import SparseRows


def make_optimizer(model, cfg: TrainConfig):
    """Adam as SB3 sets it up for PPO (eps 1e-5); the fused CPU kernel where available."""
    try:
        return torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    except (RuntimeError, TypeError):  # pragma: no cover - older torch
        return torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)


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
    rows = SparseRows(buf["obs"])
    for _ in range(cfg.n_epochs):
        order = rng.permutation(n)
        for i in range(0, n, cfg.batch_size):
            idx = order[i : i + cfg.batch_size]
            if len(idx) < 2:
                continue
            it = torch.as_tensor(idx)
            obs = rows.batch(idx)
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
