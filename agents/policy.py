"""The policy agent: plays a trained policy (`ppo:PATH` in the registry), from any trainer.

A checkpoint is `NAME.npz`, the policy network's weights as plain arrays (and the critic's,
which `NumpyPolicy.evaluate` uses for the value estimate), with a JSON sidecar `NAME.json` (the
game, env name and version, action-table hash, observation size, training configuration, seed,
step); the SB3 single-seat trainer also writes its model as `NAME.zip`. The agent plays from the
`.npz` with a small numpy forward pass (fast at batch size 1, no torch needed); given a `.zip`
without its `.npz`, it loads the model with sb3-contrib (importing torch only then) and converts
it, but only where the user named that checkpoint: an SB3 `.zip` is a pickle, and unpickling
runs code, so a `.zip` loads only when granted (`agents.trust`: typed on the command line, or
``allow_pickle=True`` in the Python API); a policy named by a log, a request or a saved game
plays from its `.npz` (read with ``allow_pickle=False``) or not at all (docs/TRUST.md). Actions
are always masked to the legal set: deterministic (arg-max) by default, or sampled
(`ppo:PATH:sample`); `ppo:PATH:net` plays the network without its prior bot. A policy trained
over a prior bot (`prior` and `prior_weight` in the `.npz`, see `NumpyPolicy`) asks that bot at
every decision and adds the weight to its choice's logit before choosing; the file also records
the bot's behaviour fingerprint (`agents.behaviour`), and loading refuses it when the bot no
longer plays the same moves. The bot, its fingerprint and the check of its name come from the
`agents.priors.PriorSource` the policy is handed by whoever builds players (`agents.registry`):
this module knows nothing of bots or of the registry.

A policy file is for one game (`gamecore.Game`): its sidecar records ``"game"`` (the game's
registry name; a sidecar without it is Last Will's) and the game's signature
(`env_signature`). Loading it for another game (``game=``, Last Will by default) fails with
`CheckpointMismatchError` naming both games, as does a checkpoint made for another env version,
action table or observation layout, which says what differs. Every load also checks the files
themselves (`CheckpointError` otherwise): the sidecar must be a JSON object; each companion it
lists under `"files"` (sizes and sha256, written last by the trainer, `agents.safeio`) must
match, so a checkpoint replaced part-way is refused; the weights must be readable arrays of the
right shapes and finite (a policy holding NaN or infinity is refused, not played).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gamecore import DEFAULT_GAME, load_game
from gamecore.options import ConfigError

from . import policyfiles, trust
from . import priors as prior_sources
from .base import BaseAgent
from .priors import PriorError, PriorSource
from .readfile import read_json
from .residual import check_prior_weight, raise_prior
from .safeio import BundleError, bundle_base, verify_bundle, write_with

if TYPE_CHECKING:
    from gamecore import Game


class CheckpointError(ValueError):
    """A checkpoint that cannot be read."""


class CheckpointMismatchError(CheckpointError):
    """A checkpoint made for another env version, action table or observation layout."""


def _game(game: Game | None) -> Game:
    return load_game() if game is None else game


def env_signature(game: Game | None = None) -> dict[str, Any]:
    """What a checkpoint of ``game`` (Last Will by default) must match to be played by this
    version of the lab: its env name and version, action-table hash and sizes. (The game's
    name is recorded beside them as ``"game"``, `check_game`.)"""
    game = _game(game)
    return {
        "env_name": game.env_name,
        "env_version": game.version,
        "action_table_hash": game.action_table_hash,
        "num_actions": game.num_actions,
        "obs_size": game.obs_size,
    }


def sidecar_game(meta: dict[str, Any]) -> str:
    """The game a sidecar's policy is for (one written without ``"game"`` is Last Will's)."""
    return meta.get("game", DEFAULT_GAME)


def check_game(meta: dict[str, Any], where: str, game: Game | None = None) -> None:
    """Raise CheckpointMismatchError, naming both games, when the checkpoint is another
    game's policy than ``game``'s (Last Will by default)."""
    game = _game(game)
    theirs = sidecar_game(meta)
    if theirs != game.name:
        raise CheckpointMismatchError(
            f"checkpoint {where} is a policy for the game {theirs!r}, not for {game.name!r}: "
            f"play it in a game of {theirs!r}, or train one for {game.name!r}"
        )


def sidecar_path(path: str | Path) -> Path:
    return Path(path).with_suffix(".json")


def read_sidecar(path: str | Path) -> dict[str, Any]:
    side = sidecar_path(path)
    if not side.exists():
        p = Path(path)
        out = p.with_suffix(".npz")
        if p.suffix == ".zip":
            how = (
                f'python -c "from sb3_contrib import MaskablePPO; from agents.policy import '
                f"save_policy; save_policy(MaskablePPO.load('{p}'), '{out}')\""
            )
        else:
            how = f"save_policy(model, '{out}') with the trained MaskablePPO model"
        raise CheckpointError(
            f"checkpoint {path} has no sidecar {side.name} (env version, action-table hash). "
            f"`lastwill train` writes both; for a model trained elsewhere (e.g. on "
            f"SingleSeatEnv) write the weights and the sidecar with agents.policy.save_policy: "
            f"{how}, then play ppo:{out}"
        )
    meta = read_json(
        side, "checkpoint sidecar", error=CheckpointError, damaged_hint="the sidecar is damaged"
    )
    if not isinstance(meta, dict):
        raise CheckpointError(
            f"checkpoint sidecar {side} holds a JSON {type(meta).__name__}, not an object; "
            f"it is damaged or not a sidecar written by `lastwill train`"
        )
    return meta


def verify_files(path: str | Path, meta: dict[str, Any]) -> None:
    """The checkpoint's companions match the sizes and digests its sidecar records."""
    try:
        verify_bundle(bundle_base(path), meta)
    except (BundleError, OSError) as e:
        raise CheckpointError(str(e)) from None


def check_compatible(meta: dict[str, Any], where: str, game: Game | None = None) -> None:
    """Raise CheckpointMismatchError naming the two games when the checkpoint is another
    game's, else every field that differs from this lab's ``game`` (Last Will by default)."""
    check_game(meta, where, game)
    want = env_signature(game)
    diffs = [
        f"{k}: checkpoint has {meta.get(k)!r}, this lab has {v!r}"
        for k, v in want.items()
        if meta.get(k) != v
    ]
    if diffs:
        raise CheckpointMismatchError(
            f"checkpoint {where} was made for another environment; "
            + "; ".join(diffs)
            + ". Retrain with this version (lastwill train) or use the matching lab version."
        )


def _check_layers(weights: list[np.ndarray], biases: list[np.ndarray], what: str) -> None:
    """Dense layers of matching shapes holding finite numbers only."""
    for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
        w, b = np.asarray(w), np.asarray(b)
        if w.ndim != 2 or b.shape != (w.shape[0],):
            raise CheckpointError(
                f"{what} layer {i} has weights of shape {w.shape} and biases of shape "
                f"{b.shape}; expected (out, in) and (out,)"
            )
        if i and w.shape[1] != np.asarray(weights[i - 1]).shape[0]:
            raise CheckpointError(
                f"{what} layer {i} takes {w.shape[1]} inputs but layer {i - 1} gives "
                f"{np.asarray(weights[i - 1]).shape[0]}"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise CheckpointError(
                f"{what} layer {i} holds NaN or infinite weights; the checkpoint is "
                f"damaged (or training diverged) and cannot be played"
            )


def _prior_weight(prior: Any, weight: Any) -> float:
    """A policy's prior weight as a float: in the range of `agents.residual.check_prior_weight`,
    beside a prior named by a string; a `CheckpointError` naming both otherwise."""
    weight = float(weight)
    if isinstance(prior, str):
        try:
            return check_prior_weight(weight)
        except ConfigError:
            pass
    raise CheckpointError(f"bad prior {prior!r} with weight {weight!r}")


class NumpyPolicy:
    """The actor of an SB3 MlpPolicy as numpy arrays: hidden layers then the action layer.

    Optionally also the critic (``value_weights``/``value_biases``: its hidden layers then the
    value layer, one output), so that :meth:`evaluate` can give the value estimate of a
    decision; checkpoints written before the critic was exported carry the actor only.

    A policy trained with a prior (``prior``, a scripted bot's name, and ``prior_weight``) is
    a residual over that bot: at every decision ``prior_weight`` is added to the logit of the
    bot's own choice, so :meth:`choose` and :meth:`evaluate` need the player's view then.
    ``prior_bots`` is where the bot comes from (`agents.priors`): the builder of players passes
    its own; without one, the default installed by `agents.registry`.

    An observation ``obs`` is the dense vector (``Game.encode_observation``) or its sparse form
    ``(indices, values)`` (``Game.encode_observation_sparse``): the first layer reads only the
    non-zero entries, so both give the same result, bit for bit.

    ``game``: the game whose observations and actions the network maps (None: Last Will); the
    layers' sizes must be its `obs_size` and `num_actions`.
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        activation: str,
        value_weights: list[np.ndarray] | None = None,
        value_biases: list[np.ndarray] | None = None,
        prior: str = "",
        prior_weight: float = 0.0,
        prior_bots: PriorSource | None = None,
        game: Game | None = None,
    ):
        self.game = game = _game(game)
        if activation not in ("tanh", "relu"):
            raise CheckpointError(f"unsupported activation {activation!r}; known: tanh, relu")
        if len(weights) != len(biases) or not weights:
            raise CheckpointError("policy weights and biases do not match")
        _check_layers(weights, biases, "policy")
        obs_size, num_actions = game.obs_size, game.num_actions
        if weights[0].shape[1] != obs_size or weights[-1].shape[0] != num_actions:
            raise CheckpointMismatchError(
                f"policy maps {weights[0].shape[1]} inputs to {weights[-1].shape[0]} actions; "
                f"this lab has {obs_size} observation entries and {num_actions} actions "
                f"({game.title})"
            )
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self.value_weights: list[np.ndarray] | None = None
        self.value_biases: list[np.ndarray] | None = None
        if value_weights:
            if value_biases is None or len(value_weights) != len(value_biases):
                raise CheckpointError("value weights and biases do not match")
            _check_layers(value_weights, value_biases, "value network")
            if value_weights[0].shape[1] != obs_size or value_weights[-1].shape[0] != 1:
                raise CheckpointMismatchError(
                    f"value network maps {value_weights[0].shape[1]} inputs to "
                    f"{value_weights[-1].shape[0]} outputs; expected {obs_size} inputs, 1 output"
                )
            self.value_weights = [np.ascontiguousarray(w, dtype=np.float32) for w in value_weights]
            self.value_biases = [np.ascontiguousarray(b, dtype=np.float32) for b in value_biases]
        prior_weight = _prior_weight(prior, prior_weight)
        self._prior_bots = prior_bots
        self.prior = prior  # set before the check: its errors name the prior
        self.prior_weight = prior_weight
        self._prior_agent: Any = None
        if prior:
            try:
                self.prior_source().check(prior)
            except PriorError as e:
                raise CheckpointError(f"the policy's prior {prior!r} {e}") from None
        if bool(prior) != (prior_weight > 0):
            raise CheckpointError(
                f"prior {prior!r} with weight {prior_weight}: a prior needs a positive weight, "
                f"and a weight needs a prior"
            )

    def __getstate__(self) -> dict[str, Any]:
        # a game object may hold what does not pickle (modules): it travels by its name
        st = dict(self.__dict__)
        if st.get("game") is not None:
            st["game"] = st["game"].name
        return st

    def __setstate__(self, st: dict[str, Any]) -> None:
        if isinstance(st.get("game"), str):
            st = {**st, "game": load_game(st["game"])}
        self.__dict__.update(st)

    def prior_source(self) -> PriorSource:
        """The source of this policy's prior bot: the one it was given, else the default."""
        if self._prior_bots is not None:
            return self._prior_bots
        try:
            return prior_sources.default()
        except PriorError as e:
            raise CheckpointError(f"the policy's prior {self.prior!r}: {e}") from None

    def prior_choice(self, view: Any, legal: list[int]) -> int | None:
        """The prior bot's own choice at this decision (``None`` without a prior)."""
        if not self.prior:
            return None
        if self._prior_agent is None:
            try:
                self._prior_agent = self.prior_source().bot(self.prior)
            except PriorError as e:
                raise CheckpointError(f"the policy's prior {self.prior!r}: {e}") from None
        return int(self._prior_agent.act(view, legal))

    def _legal_logits(self, obs: np.ndarray, legal: list[int], view: Any) -> np.ndarray:
        z = self.logits(obs)[list(legal)].astype(np.float64)
        if self.prior:
            if view is None:
                raise ValueError(
                    f"this policy plays over the prior {self.prior!r}: pass the player's view"
                )
            raise_prior(z, list(legal).index(self.prior_choice(view, legal)), self.prior_weight)
        return z

    @property
    def has_value(self) -> bool:
        """Whether the critic is present (:meth:`value` and :meth:`evaluate` give a value)."""
        return self.value_weights is not None

    @classmethod
    def from_sb3(cls, model: Any, game: Game | None = None) -> NumpyPolicy:
        import torch.nn as nn

        policy = model.policy
        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        layers.append(policy.action_net)
        vlayers = [m for m in policy.mlp_extractor.value_net if isinstance(m, nn.Linear)]
        vlayers.append(policy.value_net)
        act = policy.activation_fn
        name = {nn.Tanh: "tanh", nn.ReLU: "relu"}.get(act, getattr(act, "__name__", str(act)))
        return cls(
            [m.weight.detach().cpu().numpy() for m in layers],
            [m.bias.detach().cpu().numpy() for m in layers],
            name,
            [m.weight.detach().cpu().numpy() for m in vlayers],
            [m.bias.detach().cpu().numpy() for m in vlayers],
            game=game,
        )

    def state(self) -> dict[str, Any]:
        """Picklable weights (to ship to env workers; `from_state` takes the game again)."""
        return {
            "weights": self.weights,
            "biases": self.biases,
            "activation": self.activation,
            "value_weights": self.value_weights,
            "value_biases": self.value_biases,
            "prior": self.prior,
            "prior_weight": self.prior_weight,
        }

    @classmethod
    def from_state(
        cls, st: dict[str, Any], prior_bots: PriorSource | None = None, game: Game | None = None
    ) -> NumpyPolicy:
        return cls(
            st["weights"],
            st["biases"],
            st["activation"],
            st.get("value_weights"),
            st.get("value_biases"),
            st.get("prior", ""),
            st.get("prior_weight", 0.0),
            prior_bots,
            game,
        )

    def write_npz(self, path: str | Path) -> None:
        """Write the arrays to exactly `path` (a `.npz` name); see `save_npz`. ``w<i>``/``b<i>``
        the actor, ``vw<i>``/``vb<i>`` the critic (when present)."""
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        if self.value_weights is not None and self.value_biases is not None:
            arrays.update({f"vw{i}": w for i, w in enumerate(self.value_weights)})
            arrays.update({f"vb{i}": b for i, b in enumerate(self.value_biases)})
        if self.prior:
            arrays["prior"] = np.array(self.prior)
            arrays["prior_weight"] = np.array(self.prior_weight, dtype=np.float64)
            arrays["prior_fingerprint"] = np.array(self._prior_fingerprint())
        np.savez(Path(path), activation=np.array(self.activation), **arrays)

    def save_npz(self, path: str | Path) -> None:
        """Write the arrays to `path` atomically (a temporary name, fsync, rename)."""
        write_with(path, self.write_npz)

    def _prior_fingerprint(self) -> str:
        """The prior bot's behaviour fingerprint as this lab's code plays it now."""
        try:
            return self.prior_source().fingerprint(self.prior)
        except PriorError as e:
            raise CheckpointError(f"the policy's prior {self.prior!r}: {e}") from None

    @classmethod
    def load_npz(
        cls, path: str | Path, prior_bots: PriorSource | None = None, game: Game | None = None
    ) -> NumpyPolicy:
        """Read a policy file (of ``game``'s sizes, Last Will's by default). One over a prior
        that records the prior's fingerprint (`agents.behaviour`) loads only if the bot still
        plays as it did when the file was written (files from before fingerprints load
        unchecked); ``prior_bots`` gives the bot and its fingerprint now (the default source
        without it)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                k = sum(1 for name in z.files if name.startswith("w"))
                vk = sum(1 for name in z.files if name.startswith("vw"))
                pol = cls(
                    [z[f"w{i}"] for i in range(k)],
                    [z[f"b{i}"] for i in range(k)],
                    str(z["activation"]),
                    [z[f"vw{i}"] for i in range(vk)] or None,
                    [z[f"vb{i}"] for i in range(vk)] or None,
                    str(z["prior"]) if "prior" in z.files else "",
                    float(z["prior_weight"]) if "prior_weight" in z.files else 0.0,
                    prior_bots,
                    game,
                )
                recorded = str(z["prior_fingerprint"]) if "prior_fingerprint" in z.files else ""
        except CheckpointError:
            raise
        except Exception as e:  # noqa: BLE001 - empty, truncated or foreign files alike
            raise CheckpointError(
                f"cannot read policy weights {path}: {type(e).__name__}: {e or 'no data'}; "
                f"the file is damaged or not a .npz written by `lastwill train`"
            ) from None
        if pol.prior and recorded:
            now = pol._prior_fingerprint()
            if now != recorded:
                raise CheckpointMismatchError(
                    f"{path} plays over the prior {pol.prior!r} as it played when the file was "
                    f"written (fingerprint {recorded}); that bot now plays differently "
                    f"(fingerprint {now}, agents/behaviour.py), so this policy would too: "
                    f"restore the bot's code or train the policy again"
                )
        return pol

    def _first_t(self, weights: list[np.ndarray]) -> np.ndarray:
        """The first layer transposed, (inputs, width), contiguous (cached per weight list):
        its rows for the non-zero inputs of one observation are what the layer reads."""
        cache = self.__dict__.setdefault("_first_cache", {})
        key = id(weights[0])
        if key not in cache:
            cache[key] = (weights[0], np.ascontiguousarray(weights[0].T))
        return cache[key][1]

    def _mlp(self, obs: np.ndarray, weights: list[np.ndarray], biases: list[np.ndarray]):
        act = np.tanh if self.activation == "tanh" else (lambda v: np.maximum(v, 0.0))
        # an observation is sparse (a few dozen of Last Will's 4,285 entries are non-zero): the
        # first layer sums the rows of those entries only, the same map at a fraction of the
        # cost. `obs` is the dense vector or its sparse form (indices, values),
        # Game.encode_observation_sparse
        if isinstance(obs, tuple):
            nz, v = obs
        else:
            nz = np.flatnonzero(obs)
            v = obs[nz]
        x = v @ self._first_t(weights)[nz] + biases[0]
        for w, b in zip(weights[1:], biases[1:], strict=True):
            x = act(x)
            x = w @ x + b
        return x

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self._mlp(obs, self.weights, self.biases)

    def value(self, obs: np.ndarray) -> float | None:
        """The critic's value estimate of ``obs`` (``None`` without a critic)."""
        if self.value_weights is None or self.value_biases is None:
            return None
        return float(self._mlp(obs, self.value_weights, self.value_biases)[0])

    def evaluate(
        self, obs: np.ndarray, legal: list[int], view: Any = None
    ) -> tuple[np.ndarray, float | None]:
        """``(probabilities, value)`` at a decision: the masked action distribution over
        ``legal`` (same order, summing to 1; what ``:sample`` draws from, whose arg-max is the
        deterministic choice) and the critic's value estimate (``None`` without a critic).
        A policy with a prior needs ``view``."""
        if not legal:
            raise ValueError("evaluate needs at least one legal action")
        z = self._legal_logits(obs, legal, view)
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        return p, self.value(obs)

    def logits_batch(self, obs: np.ndarray) -> np.ndarray:
        """Logits of a batch of observations, shape (B, obs_size) -> (B, num_actions)."""
        x = obs
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def choose(
        self,
        obs: np.ndarray,
        legal: list[int],
        deterministic: bool = True,
        rng: Any = None,
        view: Any = None,
    ) -> int:
        """The action at a decision (arg-max, or a draw with `rng`); a policy with a prior
        needs ``view``."""
        if len(legal) == 1:
            return legal[0]
        z = self._legal_logits(obs, legal, view)
        if deterministic:
            return legal[int(np.argmax(z))]
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        u = rng.random() if rng is not None else np.random.random()
        return legal[min(int(np.searchsorted(np.cumsum(p), u, side="right")), len(legal) - 1)]


def save_policy(
    model: Any, path: str | Path, extra: dict[str, Any] | None = None, game: Game | None = None
) -> Path:
    """Write what `ppo:PATH` plays: the policy's weights `NAME.npz` and the sidecar `NAME.json`
    (``"game"``: the game's name, `env_signature(game)`, the time, and `extra`), beside `path`
    (`NAME`, `NAME.npz` or `NAME.zip`: an existing `.zip` is left as it is). Returns the `.npz`
    path.
    ``game``: the game the policy plays; None: a `NumpyPolicy`'s own game, else Last Will.

    `model` is a MaskablePPO (or PPO) model with an `MlpPolicy` trained on this lab's
    observation and action spaces (`SingleSeatEnv`, `lastwill train`), a model with
    `actor_numpy()` (the all-seat trainer's `ActorCritic`), or a `NumpyPolicy`.
    A model for other spaces raises `CheckpointMismatchError`; each file is written under a
    temporary name and renamed, so a failure leaves no half-written checkpoint.
    """
    path = Path(path)
    if path.suffix not in ("", ".npz", ".zip"):
        raise CheckpointError(f"save_policy({path}): give a path ending in .npz or .zip, or none")
    npz = path.with_suffix(".npz")
    if game is None and isinstance(model, NumpyPolicy):
        game = getattr(model, "game", None)
    game = _game(game)
    policy = _policy_of(model, game)
    own = getattr(policy, "game", None)
    if own is not None and own.name != game.name:
        raise CheckpointMismatchError(
            f"save_policy: the policy plays {own.name!r}, not {game.name!r}; save it for "
            f"{own.name!r}"
        )
    npz.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "game": game.name,
        **env_signature(game),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **(extra or {}),
    }
    policy.save_npz(npz)
    side = sidecar_path(npz)
    tmp = side.with_name(side.stem + ".tmp.json")
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(side)
    return npz


def _policy_of(model: Any, game: Game) -> NumpyPolicy:
    """`save_policy`'s model as a `NumpyPolicy` of ``game``'s sizes."""
    if isinstance(model, NumpyPolicy):
        return model
    if callable(getattr(model, "actor_numpy", None)):
        return model.actor_numpy()  # checks the observation and action sizes
    obs = getattr(model, "observation_space", None)
    act = getattr(model, "action_space", None)
    shape = getattr(obs, "shape", None)
    if shape != (game.obs_size,) or getattr(act, "n", None) != game.num_actions:
        raise CheckpointMismatchError(
            f"save_policy: the model observes {obs} and acts in {act}; ppo:PATH plays "
            f"models trained on this lab's spaces, Box({game.obs_size},) and "
            f"Discrete({game.num_actions}) (SingleSeatEnv or lastwill train)"
        )
    if not hasattr(getattr(model, "policy", None), "mlp_extractor"):
        raise CheckpointError(
            f"save_policy: {type(model).__name__} has no MlpPolicy (policy.mlp_extractor); "
            f"train MaskablePPO('MlpPolicy', ...)"
        )
    return NumpyPolicy.from_sb3(model, game)


_CACHE: dict[tuple[Any, ...], tuple[NumpyPolicy, dict[str, Any]]] = {}


def without_prior(policy: NumpyPolicy) -> NumpyPolicy:
    """The network of `policy` alone (`ppo:PATH:net`): the same weights, no prior bot and no
    bonus for its choice. The policy given, which the load cache shares, is not changed."""
    state = {**policy.state(), "prior": "", "prior_weight": 0.0}
    return NumpyPolicy.from_state(state, game=getattr(policy, "game", None))


def load_policy(
    path: str | Path,
    check: bool = True,
    need_value: bool = False,
    allow_pickle: bool = False,
    prior_bots: PriorSource | None = None,
    game: Game | None = None,
) -> tuple[NumpyPolicy, dict[str, Any]]:
    """Load a checkpoint (`.zip` or `.npz`, with its `.json` sidecar) as a NumpyPolicy.
    Cached per process by path and modification time (the arena builds agents per game).

    The `.npz` is read without pickles. The SB3 `.zip` (a pickle) is read only with
    ``allow_pickle`` (the caller named this checkpoint itself) or when `agents.trust` grants
    it (the user typed it on the command line); otherwise a `.zip` without its `.npz` is a
    `CheckpointError`. With ``need_value``, a `.npz` written without the critic is completed
    from the `.zip` beside it when there is one and it may be read (importing torch then);
    otherwise the policy has no critic (``has_value`` is false). ``prior_bots``: where a policy
    over a prior gets its bot (`NumpyPolicy`). ``path`` may be a policy name such as
    ``reference`` (`agents.policyfiles`). ``game``: the game the policy must be for (None:
    Last Will); a policy of another game is a `CheckpointMismatchError` naming both."""
    game = _game(game)
    try:
        path = Path(policyfiles.resolve(str(path)))
    except policyfiles.PolicyNameError as e:
        raise CheckpointError(str(e)) from None
    allow = allow_pickle or trust.allows_pickle(path.with_suffix(".zip"))
    try:
        key = (str(path.resolve()), path.stat().st_mtime, check, need_value, allow, prior_bots)
        key += (game.name, id(game))
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    out = _load_policy(path, check, need_value, allow, prior_bots, game)
    if key is not None:
        _CACHE[key] = out
    return out


def _load_sb3(path: Path, game: Game) -> NumpyPolicy:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - a core dependency
        raise CheckpointError(f"reading {path} needs sb3-contrib: {e}") from e
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as e:  # noqa: BLE001 - any unreadable file is reported the same way
        raise CheckpointError(f"cannot load checkpoint {path}: {e}") from e
    return NumpyPolicy.from_sb3(model, game)


def _refuse_pickle(path: Path) -> CheckpointError:
    return CheckpointError(
        f"checkpoint {path} has no .npz beside it, and its SB3 .zip is a pickle, which the lab "
        f"loads only where the user named the file on the command line (or allow_pickle=True "
        f"in the Python API), never from a log, a request or a saved game (docs/TRUST.md); "
        f"write the .npz once with agents.policy.save_policy and play ppo:"
        f"{path.with_suffix('.npz')}"
    )


def _load_policy(
    path: Path,
    check: bool,
    need_value: bool,
    allow: bool,
    prior_bots: PriorSource | None,
    game: Game,
) -> tuple[NumpyPolicy, dict[str, Any]]:
    if not path.exists():
        raise CheckpointError(
            f"checkpoint {path} does not exist (expected a .zip or .npz written by "
            f"`lastwill train`, or a policy name: {', '.join(policyfiles.known_names())})"
        )
    if path.suffix not in (".zip", ".npz"):
        raise CheckpointError(f"checkpoint {path} must be a .zip or .npz file")
    meta = read_sidecar(path)
    check_game(meta, str(path), game)  # another game's policy: refused even unchecked
    if check:
        check_compatible(meta, str(path), game)
    verify_files(path, meta)
    npz = path.with_suffix(".npz")
    if npz.exists():
        pol = NumpyPolicy.load_npz(npz, prior_bots, game)
        zip_ = path.with_suffix(".zip")
        if need_value and not pol.has_value and zip_.exists() and allow:
            full = _load_sb3(zip_, game)
            pol.value_weights, pol.value_biases = full.value_weights, full.value_biases
        return pol, meta
    if not allow:
        raise _refuse_pickle(path)
    return _load_sb3(path, game), meta


class PolicyAgent(BaseAgent):
    """Plays a trained checkpoint with masks; `mode` is `det` (arg-max) or `sample`;
    ``allow_pickle`` lets a `.zip` without its `.npz` load, ``prior_bots`` gives a policy over a
    prior its bot (`load_policy`); ``game`` is the game it plays (None: Last Will), whose policy
    file it must be."""

    name = "ppo"

    def __init__(
        self,
        path: str,
        mode: str = "det",
        seed: int | None = None,
        allow_pickle: bool = False,
        prior_bots: PriorSource | None = None,
        alone: bool = False,
        game: Game | None = None,
    ) -> None:
        super().__init__(seed)
        if mode not in ("det", "sample"):
            raise ValueError(f"mode {mode!r} is not allowed; choose det or sample")
        self.path = path
        self.deterministic = mode == "det"
        self.game = _game(game)
        self.policy, self.meta = load_policy(
            path, allow_pickle=allow_pickle, prior_bots=prior_bots, game=self.game
        )
        if alone:
            self.policy = without_prior(self.policy)
        self._encode = self.game.encode_observation_sparse

    def act(self, view: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        obs = self._encode(view)  # (indices, values): what the first layer reads
        return self.policy.choose(obs, legal, self.deterministic, self.rng, view)
