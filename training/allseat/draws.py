"""What an all-seat run keeps besides its learner so that `--resume` goes on exactly as the run
would have gone on: the state of every random generator its training draws from, and the pool's
weights as the rollout last set them.

`capture` gives them as JSON (`state.json`'s `random_state`, written with every state write,
`training.runloop`): the rollout's seating generator (`random.Random`) and its sampling
generator (numpy), its running mean of samples per game (when to stop starting games), the
generator of every bot, of the kickstarting teacher and of the prior bot, the update's
minibatch generator (numpy), torch's generator, and the PFSP weights of the snapshots in the
order they are drawn from. `restore` puts them back into a rollout and an update generator
built for the step the run resumes at; a value that is not such a state is a `ValueError`
naming the entry.
"""

from __future__ import annotations

import base64
import binascii
import random
from typing import Any

import numpy as np

from ..rundir import RANDOM_STATE as KEY  # the entry of state.json

_MT_WORDS = 625  # a Mersenne Twister's state: 624 words and the position


def _python(rng: random.Random) -> dict[str, Any]:
    version, words, gauss = rng.getstate()
    packed = np.asarray(words, dtype=np.uint32).tobytes()
    return {"version": version, "words": base64.b64encode(packed).decode(), "gauss": gauss}


def _set_python(rng: random.Random, saved: Any) -> None:
    words = np.frombuffer(base64.b64decode(saved["words"], validate=True), dtype=np.uint32)
    if len(words) != _MT_WORDS:
        raise ValueError(f"{len(words)} words, not {_MT_WORDS}")
    rng.setstate((saved["version"], tuple(int(w) for w in words), saved["gauss"]))


def _set_numpy(gen: np.random.Generator, saved: Any) -> None:
    if not isinstance(saved, dict):
        raise ValueError("not a generator's state")
    gen.bit_generator.state = saved


def _torch() -> str:
    import torch

    return base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()


def _set_torch(saved: Any) -> None:
    import torch

    raw = np.frombuffer(base64.b64decode(saved, validate=True), dtype=np.uint8)
    torch.set_rng_state(torch.from_numpy(raw.copy()))


def agents(rollout: Any) -> dict[str, random.Random]:
    """The generators of the rollout's bots (by spec), its teacher and its prior bot."""
    found = {f"bot:{spec}": agent for spec, agent in rollout.bots.items()}
    found["teacher"] = rollout.teacher
    found["prior"] = rollout.prior_bot
    return {
        k: a.rng for k, a in found.items() if isinstance(getattr(a, "rng", None), random.Random)
    }


def capture(rollout: Any, update_rng: np.random.Generator) -> dict[str, Any]:
    """The random state of a run's training (module docstring), as JSON."""
    return {
        "rollout": _python(rollout.rng),
        "sampling": rollout.np_rng.bit_generator.state,
        "samples_per_game": float(rollout.samples_per_game),
        "agents": {k: _python(rng) for k, rng in agents(rollout).items()},
        "update": update_rng.bit_generator.state,
        "torch": _torch(),
        "pool": [[sid, float(w)] for sid, w in rollout.snapshot_weights.items()],
    }


def _one(name: str, action: Any, *args: Any) -> None:
    """`action(*args)`, its failure a ValueError naming the entry `name`."""
    try:
        action(*args)
    except (KeyError, TypeError, ValueError, RuntimeError, binascii.Error) as e:
        raise ValueError(f"{KEY}.{name} is not a saved random state ({e})") from None


def _weight(v: Any) -> bool:
    return (
        isinstance(v, (int, float)) and not isinstance(v, bool) and bool(np.isfinite(v)) and v >= 0
    )


def _set_mean(rollout: Any, v: Any) -> None:
    if not _weight(v):
        raise ValueError(f"{v!r} is not a non-negative number")
    rollout.samples_per_game = float(v)


def pool_weights(saved: Any) -> dict[str, float]:
    """The saved PFSP weights, in the order they are drawn from."""
    if not isinstance(saved, list) or not all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _weight(p[1])
        for p in saved
    ):
        raise ValueError(f"{KEY}.pool is not a list of [snapshot id, weight] pairs")
    return {sid: float(w) for sid, w in saved}


def restore(saved: Any, rollout: Any, update_rng: np.random.Generator) -> dict[str, float]:
    """Put `saved` (`capture`'s) back into `rollout` and `update_rng`; returns the pool's
    weights, for the trainer to set with the pool's snapshots."""
    if not isinstance(saved, dict):
        raise ValueError(f"{KEY} is not a JSON object")
    _one("rollout", _set_python, rollout.rng, saved.get("rollout"))
    _one("sampling", _set_numpy, rollout.np_rng, saved.get("sampling"))
    _one("samples_per_game", _set_mean, rollout, saved.get("samples_per_game"))
    _one("update", _set_numpy, update_rng, saved.get("update"))
    _one("torch", _set_torch, saved.get("torch"))
    mine, kept = agents(rollout), saved.get("agents")
    if not isinstance(kept, dict) or sorted(kept) != sorted(mine):
        raise ValueError(f"{KEY}.agents does not name this run's bots ({sorted(mine)})")
    for name, rng in mine.items():
        _one(f"agents.{name}", _set_python, rng, kept[name])
    return pool_weights(saved.get("pool"))
