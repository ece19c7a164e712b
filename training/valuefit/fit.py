"""A policy's critic fitted to predict the game's result, and its calibration against outcomes.

The start is the policy's own network; only the critic learns (its half of the first layer, its
hidden layers and its head), so the actor, and with it every move the policy plays, stays the
same bit for bit. The loss is the squared error of the critic against the seat's `zero_sum`
result, an affine map of winning (`agents.winchance`); the written checkpoint says `reward =
zero_sum, shaping = 0`, so the search reads the new critic as the result itself
(`agents.leafeval`), while it reads the start critic with the start's own shaping added back.

Games, not rows, are held out (a game's rows share one result): a fraction of the recorded
games never trains the critic. After every pass the held-out error is measured, and the pass
with the lowest is the one written (the critic overfits a few thousand games within a few
passes). `calibration` scores any prediction against the held-out outcomes: the Brier skill of
the implied chance of winning over the constant 1/n (0 = no better than chance, 1 = perfect),
early (rounds 1-3) and late, and its correlation with winning, per player count.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

EARLY_ROUNDS = 3  # rounds 1-3 are "early" in the calibration


def held_out(data: dict[str, np.ndarray], fraction: float, seed: int) -> np.ndarray:
    """A mask over the rows: those of a `fraction` of the games, chosen by a hash of the game
    and `seed` (the same games whatever the order of the rows)."""
    games, which = np.unique(data["game"], return_inverse=True)
    chosen = np.zeros(len(games), dtype=bool)
    for i, g in enumerate(games):
        h = hashlib.blake2b(f"{seed}:{int(g)}".encode(), digest_size=8).digest()
        chosen[i] = int.from_bytes(h, "big") / 2.0**64 < fraction
    return chosen[which.reshape(-1)]


def win_chance(scores: np.ndarray, n: np.ndarray) -> np.ndarray:
    """`zero_sum` scores as chances of winning (`agents.winchance.win_chance`, per row)."""
    return np.clip(((n - 1) * scores + 1.0) / n, 0.0, 1.0)


def _skill(p: np.ndarray, won: np.ndarray, chance: float) -> float | None:
    if len(p) == 0:
        return None
    base = float(((chance - won) ** 2).mean())
    return round(1.0 - float(((p - won) ** 2).mean()) / base, 4) if base > 0 else None


def calibration(scores: np.ndarray, data: dict[str, np.ndarray], rows: np.ndarray) -> dict:
    """Per player count: the Brier skill of the chance of winning that `scores` (one per row
    of `rows`, in that order, on the `zero_sum` scale) imply, over all of them, early and late,
    and its correlation with winning."""
    out: dict[str, Any] = {}
    n_all = data["n"][rows]
    p_all = win_chance(np.asarray(scores, dtype=np.float64), n_all)
    won_all = (data["result"][rows] > 0).astype(np.float64)
    early_all = data["round"][rows] <= EARLY_ROUNDS
    for n in sorted(set(n_all.tolist())):
        m = n_all == n
        p, won, early = p_all[m], won_all[m], early_all[m]
        corr = float(np.corrcoef(p, won)[0, 1]) if np.ptp(p) > 0 and np.ptp(won) > 0 else None
        out[str(n)] = {
            "rows": int(m.sum()),
            "games": int(len(np.unique(data["game"][rows][m]))),
            "brier_skill": _skill(p, won, 1.0 / n),
            "brier_skill_early": _skill(p[early], won[early], 1.0 / n),
            "brier_skill_late": _skill(p[~early], won[~early], 1.0 / n),
            "correlation": None if corr is None else round(corr, 4),
        }
    return out


def start_scores(
    policy: Any, meta: dict[str, Any], data: dict[str, np.ndarray], rows: np.ndarray
) -> np.ndarray:
    """The start critic's score of each of `rows` as the search reads it (`agents.leafeval`):
    its value plus the start's shaping times the row's potential, clipped to the result's
    range."""
    cfg = (meta or {}).get("config") or {}
    if str(cfg.get("reward", "zero_sum")) != "zero_sum":
        raise ValueError("the start policy was trained on another reward than zero_sum")
    shaping = float(cfg.get("shaping", 0.0) or 0.0)
    raw = _numpy_values(policy, data, rows)
    lo = -1.0 / (data["n"][rows] - 1)
    return np.clip(raw + shaping * data["phi"][rows], lo, 1.0)


def _numpy_values(policy: Any, data: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    from training.allseat.batch import segment_starts

    starts = segment_starts(data["obs_len"])
    out = np.empty(len(rows), dtype=np.float64)
    for i, r in enumerate(rows):
        s, k = starts[r], data["obs_len"][r]
        out[i] = policy.value(
            (data["obs_idx"][s : s + k].astype(np.int64), data["obs_val"][s : s + k])
        )
    return out


def network(policy: Any, seed: int):
    """An all-seat network holding `policy`'s actor and critic, for the policy's game
    (`NumpyPolicy.game`: its observation size and action table)."""
    import torch

    from training.allseat.network import ActorCritic

    game = policy.game
    torch.manual_seed(seed)
    arch = [int(w.shape[0]) for w in policy.weights[:-1]]
    net = ActorCritic(game.obs_size, game.num_actions, arch, policy.activation, game=game.name)
    net.prior, net.prior_weight = policy.prior, float(policy.prior_weight)
    net.load_actor_numpy(policy, critic=True)
    return net


def critic_parameters(net) -> list:
    """What the fit trains: the first layer (whose actor half gets no gradient), the critic's
    first bias, hidden layers and head."""
    return [
        net.first.weight,
        net.vf_bias,
        *net.vf_rest.parameters(),
        *net.value_net.parameters(),
    ]


def sparse_rows(data: dict[str, np.ndarray]):
    """The rows' observations as one `SparseRows` (what the fit and `predict` read)."""
    from training.allseat.batch import SparseRows

    return SparseRows.from_flat(data["obs_idx"].astype(np.int64), data["obs_val"], data["obs_len"])


def _values(net, rows, sel: np.ndarray, grad: bool = False):
    """The critic of `net` on the rows `sel`: the critic's half of the sparse first layer,
    then its tail."""
    import torch

    from training.allseat.firstlayer import sparse_linear

    idx, val, off = rows.batch(sel)
    with torch.set_grad_enabled(grad):
        x = sparse_linear(net.first.weight, idx, val, off)[:, net.h0 :] + net.vf_bias
        return net.value_net(net.vf_rest(x)).squeeze(-1)


def predict(net, rows, sel: np.ndarray, batch: int = 4096) -> np.ndarray:
    """The network's critic on the rows `sel`."""
    parts = [_values(net, rows, sel[i : i + batch]).numpy() for i in range(0, len(sel), batch)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


def fit_critic(
    net,
    rows,
    result: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    seed: int,
    notify: Callable[[str], None] | None = None,
) -> tuple[Any, list[dict[str, Any]], int]:
    """`epochs` passes of Adam over the rows `train` of `rows` (`sparse_rows`) towards their
    `result` (shuffled minibatches, gradient norm clipped at 0.5); returns (the optimizer, each
    pass's train and held-out error, the best pass), the network left at the best pass (pass 0:
    the start, when no pass improved)."""
    import copy

    import torch

    target = torch.as_tensor(result)
    opt = torch.optim.Adam(critic_parameters(net), lr=learning_rate)
    rng = np.random.default_rng(seed)

    def held_err() -> float:
        return float(((predict(net, rows, test) - result[test]) ** 2).mean())

    best_err, best_state, best_pass = held_err(), copy.deepcopy(net.state_dict()), 0
    history = [{"pass": 0, "train_mse": None, "held_out_mse": best_err}]  # JSON: no NaN
    for ep in range(1, epochs + 1):
        order = rng.permutation(train)
        total = 0.0
        for lo in range(0, len(order), batch_size):
            sel = order[lo : lo + batch_size]
            loss = ((_values(net, rows, sel, grad=True) - target[sel]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(critic_parameters(net), 0.5)
            opt.step()
            total += loss.item() * len(sel)
        err = held_err()
        history.append({"pass": ep, "train_mse": total / max(len(train), 1), "held_out_mse": err})
        if notify:
            notify(f"pass {ep}: train error {total / max(len(train), 1):.4f}, held out {err:.4f}")
        if err < best_err:
            best_err, best_state, best_pass = err, copy.deepcopy(net.state_dict()), ep
    net.load_state_dict(best_state)
    return opt, history, best_pass
