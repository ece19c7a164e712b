"""Expert iteration's update: the network learns the search's visit distribution as its policy
target and the game's final result as its value target.

Loss per sample: the cross-entropy of the masked policy (its prior bot's bonus included, the
residual rule) against the normalised visit counts, plus `vf_coef` times the squared error of
the critic against the seat's final `zero_sum` reward (an affine map of winning,
`agents.winchance.win_chance`), plus, with an `anchor` network, `anchor_coef` times the KL
divergence KL(anchor || network) of the two masked policies: a pull towards the start network
that keeps a few noisy iterations from carrying the policy away. Adam, minibatches, gradient
norm clipped at 0.5. The masks span the game's action table (`Game.num_actions`: the game of
the network, `ActorCritic.game`, unless one is named).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gamecore import Game, load_game


def _game(game: Game | str | None, model: Any = None) -> Game:
    """`game`, or by its name, or the game `model` plays (None: Last Will)."""
    if isinstance(game, Game):
        return game
    return load_game(game if game is not None else getattr(model, "game", None))


class Minibatches:
    """Packed samples (`selfplay.pack`) as torch minibatches, each gathered with a few numpy
    calls: the observations from one `SparseRows`, the legal actions and visit counts by the
    same gather of segments."""

    def __init__(self, data: dict[str, np.ndarray], game: Game | str | None = None):
        from training.allseat.batch import SparseRows, segment_starts

        self.data = data
        self.num_actions = _game(game).num_actions
        self.obs = SparseRows.from_flat(data["obs_idx"], data["obs_val"], data["obs_len"])
        self.leg_len = np.asarray(data["legal_len"], dtype=np.int64)
        self.leg_start = segment_starts(self.leg_len)
        totals = np.zeros(len(self.leg_len), dtype=np.float64)
        owner = np.repeat(np.arange(len(self.leg_len)), self.leg_len)
        np.add.at(totals, owner, data["visits"])
        self.visit_total = np.maximum(totals, 1.0).astype(np.float32)  # whole counts: exact

    def __len__(self) -> int:
        return len(self.leg_len)

    def batch(self, rows: np.ndarray) -> dict[str, Any]:
        """torch tensors of the samples `rows` (in that order): sparse observations, masks of
        the legal actions, the visit distributions as targets, the prior bot's moves and the
        final results."""
        import torch

        from training.allseat.batch import gather_segments

        rows = np.asarray(rows, dtype=np.int64)
        pos, _ = gather_segments(self.leg_start, self.leg_len, rows)
        row = np.repeat(np.arange(len(rows)), self.leg_len[rows])
        legal = self.data["legal"][pos]
        masks = np.zeros((len(rows), self.num_actions), dtype=bool)
        target = np.zeros((len(rows), self.num_actions), dtype=np.float32)
        masks[row, legal] = True
        target[row, legal] = self.data["visits"][pos] / self.visit_total[rows][row]
        return {
            "sparse": self.obs.batch(rows),
            "masks": torch.as_tensor(masks),
            "target": torch.as_tensor(target),
            "prior": torch.as_tensor(self.data["prior"][rows]),
            "result": torch.as_tensor(self.data["result"][rows]),
        }


def losses(model, b: dict[str, Any], anchor=None):
    """(policy cross-entropy, value squared error, agreement of the arg-maxes, KL divergence
    from the `anchor` network's policy or None) of one batch."""
    import torch

    logits, values = model(*b["sparse"], b["masks"], b["prior"])
    logp = torch.log_softmax(logits, dim=-1)
    policy = -(b["target"] * torch.where(b["masks"], logp, 0.0)).sum(-1).mean()
    value = ((values - b["result"]) ** 2).mean()
    agree = (logits.argmax(-1) == b["target"].argmax(-1)).float().mean()
    kl = None
    if anchor is not None:
        with torch.no_grad():
            logp0 = torch.log_softmax(anchor(*b["sparse"], b["masks"], b["prior"])[0], dim=-1)
        diff = torch.where(b["masks"], logp0.exp() * (logp0 - logp), 0.0)
        kl = diff.sum(-1).mean()
    return policy, value, agree, kl


def fit(
    model,
    optimizer,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    vf_coef: float,
    rng: np.random.Generator,
    anchor=None,
    anchor_coef: float = 0.0,
    game: Game | str | None = None,
) -> dict[str, float]:
    """`epochs` passes over `data` in shuffled minibatches; the mean losses of the last pass and
    of the first minibatch before any step (how well the network knew the targets). With an
    `anchor` network and `anchor_coef` > 0 the loss adds `anchor_coef` x KL(anchor || network)
    (reported as `anchor_kl`). `game`: the game of the samples (None: the network's)."""
    import torch

    n = len(data["n"])
    if n == 0:
        raise ValueError("no samples to learn from")
    batches = Minibatches(data, _game(game, model))
    model.train()
    with torch.no_grad():
        first = batches.batch(np.arange(min(n, batch_size)))
        p0, v0, a0, _ = losses(model, first)
    out: dict[str, float] = {"policy_loss_before": float(p0), "value_loss_before": float(v0)}
    out["agreement_before"] = float(a0)
    pull = anchor if anchor is not None and anchor_coef > 0 else None
    for _ in range(epochs):
        order = rng.permutation(n)
        tot = np.zeros(4)
        for lo in range(0, n, batch_size):
            rows = order[lo : lo + batch_size]
            policy, value, agree, kl = losses(model, batches.batch(rows), pull)
            loss = policy + vf_coef * value
            if kl is not None:
                loss = loss + anchor_coef * kl
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            parts = [policy.item(), value.item(), agree.item(), 0.0 if kl is None else kl.item()]
            tot += np.array(parts) * len(rows)
        out["policy_loss"], out["value_loss"], out["agreement"], kl_mean = (tot / n).tolist()
        if pull is not None:
            out["anchor_kl"] = kl_mean
    model.eval()
    return out


def target_stats(data: dict[str, np.ndarray]) -> dict[str, float]:
    """What the search taught: the mean entropy of its visit distributions, how often its
    choice differed from the network's own (`net_choice`), and how far the results were from
    the winners' share."""
    from training.allseat.batch import segment_starts

    starts = segment_starts(np.asarray(data["legal_len"], dtype=np.int64))
    ent, differ = [], 0
    for r in range(len(data["n"])):
        s, m = starts[r], data["legal_len"][r]
        v = data["visits"][s : s + m].astype(np.float64)
        p = v / max(v.sum(), 1.0)
        nz = p[p > 0]
        ent.append(float(-(nz * np.log(nz)).sum()))
        legal = data["legal"][s : s + m]
        best = legal[int(np.argmax(v))]
        differ += int(best != data["net_choice"][r])
    n = max(len(ent), 1)
    return {"target_entropy": float(np.mean(ent)) if ent else 0.0, "disagreement": differ / n}
