"""Where the search's targets differ from the network: an expert run's samples by how sure the
network was of its own move.

    python -m labreports.sample_disagreement --run runs/expert/exit2p_clean --samples 1,2,3 \\
        [--policy PATH] [--bins 0.5,0.7,0.8,0.9,0.95,0.99] [--json]

Every sample of `lastwill expert` holds the observation, the legal actions, the search's visit
counts and the prior bot's choice (`training.expert.selfplay`). This reads the samples of the
iterations given and, for each, the policy's top-move probability there (its prior bot's bonus
included, the residual rule: what the search starts from; the policy is the run's start
network, `checkpoints/iter_0.npz`, unless `--policy` names another) and whether the search's
most visited move differs from the policy's arg-max. Printed per bin of that probability: the
share of the samples, the rate of disagreement, the share of all disagreements and the mean
KL divergence KL(target || policy) of the sample's target (its visit counts or improved
policy, normalised) from the policy; then, for each bin edge P, the share of samples below P
and the share of the disagreements they hold.
That is what `lastwill expert --full-below P` would search in full, and what it would keep.
With `--policy` naming each checkpoint in turn, the KL on samples an update never saw (a later
iteration's) says whether what a network learnt from the searches carries to new positions.
Reads only; a diagnosis of recorded samples, no games are played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)

# isort: split
import numpy as np

from agents.policy import load_policy
from agents.residual import raise_prior
from lastwill_env import OBS_SIZE
from lastwill_env.engine import NUM_ACTIONS
from training.expert.refit import RefitError, load_samples

CHUNK = 1024


def top_and_disagreement(pol, data: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """Per sample: the policy's top-move probability, whether the most visited move (ties to
    the lower action) is not the policy's arg-max, and the KL divergence KL(target || policy)
    of the normalised target (visit counts or improved policy) from the policy, in nats."""
    n = len(data["obs_len"])
    obs_start = np.concatenate([[0], np.cumsum(data["obs_len"])])
    leg_start = np.concatenate([[0], np.cumsum(data["legal_len"])])
    top = np.zeros(n)
    differs = np.zeros(n, dtype=bool)
    kl = np.zeros(n)
    for lo in range(0, n, CHUNK):
        rows = range(lo, min(n, lo + CHUNK))
        dense = np.zeros((len(rows), OBS_SIZE), dtype=np.float32)
        for i, r in enumerate(rows):
            sl = slice(obs_start[r], obs_start[r + 1])
            dense[i, data["obs_idx"][sl]] = data["obs_val"][sl]
        logits = pol.logits_batch(dense)
        for i, r in enumerate(rows):
            legal = data["legal"][leg_start[r] : leg_start[r + 1]]
            visits = data["visits"][leg_start[r] : leg_start[r + 1]]
            z = logits[i, legal].astype(np.float64)
            if pol.prior_weight and data["prior"][r] >= 0:
                raise_prior(z, int(np.flatnonzero(legal == data["prior"][r])[0]), pol.prior_weight)
            p = np.exp(z - z.max())
            p /= p.sum()
            top[r] = p.max()
            best = max(range(len(legal)), key=lambda j: (visits[j], -legal[j]))
            differs[r] = best != int(np.argmax(p))
            kl[r] = divergence(visits, z)
    return top, differs, kl


def divergence(target: np.ndarray, logits: np.ndarray) -> float:
    """KL(t || softmax(logits)) in nats, t the target normalised to sum 1 (0 where t is 0)."""
    t = np.asarray(target, dtype=np.float64)
    t = t / max(t.sum(), 1e-300)
    z = np.asarray(logits, dtype=np.float64)
    logp = z - z.max() - np.log(np.exp(z - z.max()).sum())
    on = t > 0
    return float((t[on] * (np.log(t[on]) - logp[on])).sum())


def table(top: np.ndarray, differs: np.ndarray, kl: np.ndarray, edges: list[float]) -> dict:
    total = max(1, int(differs.sum()))
    bounds = [0.0, *edges, 1.0 + 1e-9]
    bins = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        m = (top >= lo) & (top < hi)
        bins.append(
            {
                "from": lo,
                "to": min(hi, 1.0),
                "share": float(m.mean()),
                "disagree_rate": float(differs[m].mean()) if m.any() else None,
                "share_of_disagreements": float(differs[m].sum() / total),
                "kl": float(kl[m].mean()) if m.any() else None,
            }
        )
    below = [
        {
            "full_below": p,
            "share_searched": float((top < p).mean()),
            "share_of_disagreements": float(differs[top < p].sum() / total),
        }
        for p in edges
    ]
    return {"bins": bins, "below": below}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True, help="an expert-iteration run directory")
    ap.add_argument("--samples", required=True, help="iterations whose samples to read, e.g. 1,2")
    ap.add_argument("--policy", default=None, help="default: the run's checkpoints/iter_0.npz")
    ap.add_argument("--bins", default="0.5,0.7,0.8,0.9,0.95,0.99", help="bin edges in (0, 1)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        iterations = [int(x) for x in args.samples.split(",")]
        edges = sorted(float(x) for x in args.bins.split(","))
    except ValueError:
        ap.error(
            f"--samples and --bins take comma-separated numbers, got {args.samples!r}, "
            f"{args.bins!r}"
        )
    if not edges or not all(0.0 < e < 1.0 for e in edges):
        ap.error(f"--bins: every edge must lie strictly between 0 and 1, got {args.bins!r}")
    run = Path(args.run)
    policy = args.policy or str(run / "checkpoints" / "iter_0.npz")
    try:
        data = load_samples(run, iterations)
        pol, _ = load_policy(policy)
    except (RefitError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if pol.weights[-1].shape[0] != NUM_ACTIONS:
        print(f"error: {policy} does not score this env's {NUM_ACTIONS} actions", file=sys.stderr)
        return 2
    top, differs, kl = top_and_disagreement(pol, data)
    out = {
        "run": str(run),
        "samples": iterations,
        "policy": policy,
        "count": len(top),
        "disagree_rate": float(differs.mean()),
        "mean_top": float(top.mean()),
        "kl": float(kl.mean()),
        **table(top, differs, kl, edges),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{out['count']} samples of {run} {iterations}, policy {policy}: the search's most "
        f"visited move differs at {out['disagree_rate']:.1%}, mean top probability "
        f"{out['mean_top']:.3f}, KL(target || policy) {out['kl']:.4f} nats"
    )
    for b in out["bins"]:
        rate = "-" if b["disagree_rate"] is None else f"{b['disagree_rate']:.3f}"
        kl_bin = "-" if b["kl"] is None else f"{b['kl']:.4f}"
        print(
            f"  top in [{b['from']:.2f}, {b['to']:.2f}): {b['share']:.3f} of samples, "
            f"disagreement {rate}, {b['share_of_disagreements']:.3f} of all disagreements, "
            f"KL {kl_bin}"
        )
    for b in out["below"]:
        print(
            f"  --full-below {b['full_below']}: {b['share_searched']:.3f} of decisions hold "
            f"{b['share_of_disagreements']:.3f} of the disagreements"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
