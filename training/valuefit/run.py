"""`lastwill value-fit`'s work (`run_value_fit`, its settings a `ValueFitConfig`,
`training.valuefit.config`): record self-play games of a policy (or read saved ones), fit its
critic on their results (`fit`), and write a checkpoint with the same actor and the fitted
critic, whose sidecar holds the settings and the calibration of both critics on the held-out
games. It never replaces a file. `game` names the game (`gamecore.game_names`, Last Will by
default): the policy, the rows and the checkpoint are that game's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gamecore import DEFAULT_GAME, Game

from . import games as G
from .config import ValueFitConfig, ValueFitError, rules
from .fit import (
    calibration,
    fit_critic,
    held_out,
    network,
    predict,
    sparse_rows,
    start_scores,
)

_WORKER: dict[str, Any] = {}


__all__ = [
    "ValueFitConfig",
    "ValueFitError",
    "check_policy",
    "game_list",
    "record",
    "rules",
    "run_value_fit",
    "value_fit",
]


def game_list(counts: list[int], games: int, seed: int) -> list[tuple[int, int]]:
    """(players, deal seed) of `games` games at each of `counts`; seeds never test deals."""
    from agents.deals import training_seed

    return [(n, training_seed(seed, "value-fit", n, g)) for n in counts for g in range(games)]


def _load(policy: str, game: str = DEFAULT_GAME):
    import agents.registry  # noqa: F401  (installs the lab's prior bots)
    from agents.policy import load_policy

    return load_policy(policy, need_value=True, game=rules(game))


def check_policy(policy: str, game: str = DEFAULT_GAME) -> None:
    """A `ValueFitError` unless `policy` is a policy of `game` that loads with a critic
    trained on the `zero_sum` reward (the result the fit learns, and the scale its start
    critic is compared on)."""
    from agents.policy import CheckpointError

    try:
        pol, meta = _load(policy, game)
    except CheckpointError as e:
        raise ValueFitError(str(e)) from None
    if not pol.has_value:
        raise ValueFitError(f"{policy}: the policy holds no critic (value network) to fit")
    reward = str(((meta or {}).get("config") or {}).get("reward", "zero_sum"))
    if reward != "zero_sum":
        raise ValueFitError(f"{policy}: its critic learned the {reward!r} reward; zero_sum only")


def _init_worker(policy: str, sample_rate: float, explore: float, game: str) -> None:
    _WORKER.update(policy=_load(policy, game)[0], rate=sample_rate, explore=explore)


def _play_batch(items: list[tuple[int, int]]) -> list[dict[str, np.ndarray]]:
    w = _WORKER
    return [G.play(w["policy"], n, seed, w["rate"], w["explore"]) for n, seed in items]


def _lost(item: tuple[int, int], why: str):
    raise ValueFitError(f"self-play game (players {item[0]}, seed {item[1]}) failed: {why}")


def record(
    policy: str,
    items: list[tuple[int, int]],
    sample_rate: float,
    explore: float,
    workers: int = 1,
    notify: Callable[[str], None] | None = None,
    game: str = DEFAULT_GAME,
) -> dict[str, np.ndarray]:
    """The rows of the games `items` (players, seed) of `game` in their order; any number of
    workers gives the same rows."""
    out: list[Any] = [None] * len(items)
    if workers <= 1 or len(items) < 2:
        _init_worker(policy, sample_rate, explore, game)
        for i, item in enumerate(items):
            out[i] = _play_batch([item])[0]
            _progress(notify, i + 1, len(items))
        return G.concat(out)
    from agents.workers import surviving_map

    for done, (i, rows) in enumerate(
        surviving_map(
            _play_batch,
            items,
            min(workers, len(items)),
            8,
            _lost,
            initializer=_init_worker,
            initargs=(policy, sample_rate, explore, game),
        ),
        start=1,
    ):
        out[i] = rows
        _progress(notify, done, len(items))
    return G.concat(out)


def _progress(notify, done: int, total: int) -> None:
    if notify and (done == total or done % 500 == 0):
        notify(f"games: {done}/{total}")


def _free(out: Path) -> Path:
    from training.checkpoint import new_checkpoint_problem

    problem = new_checkpoint_problem(out)
    if problem:
        raise ValueFitError(problem)
    return out


def _train_config(policy, out: Path, counts: list[int], s: dict[str, Any]):
    from training.config import TrainConfig

    return TrainConfig(
        mode="all_seat",
        game=policy.game.name,
        run_dir=str(out.parent),
        seed=int(s["seed"]),
        net_arch=[int(w.shape[0]) for w in policy.weights[:-1]],
        activation=policy.activation,
        prior=policy.prior,
        prior_weight=float(policy.prior_weight),
        reward="zero_sum",
        shaping=0.0,
        learning_rate=float(s["learning_rate"]),
        batch_size=int(s["batch_size"]),
        n_epochs=int(s["epochs"]),
        num_players=list(counts),
        player_weights=[1.0] * len(counts),
        progress=False,
        **_opponents(policy.game, counts),
    )


def _opponents(game: Game, counts: list[int]) -> dict[str, Any]:
    """The trainer's opponents and panel, which a value fit never plays: Last Will's defaults
    (its sidecars as they were), another game's own panel at the fitted counts."""
    if game.name == DEFAULT_GAME:
        return {}
    panel = list(game.default_panel) or ["random"]
    return {"bots": panel, "eval_bots": panel, "eval_num_players": list(counts)}


def value_fit(
    policy: str,
    out: Path,
    data: dict[str, np.ndarray],
    settings: dict[str, Any],
    sources: dict[str, Any],
    notify: Callable[[str], None] | None = None,
    game: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """Fit `policy`'s critic (a policy of `game`) on the rows `data` and write the checkpoint
    `out`; returns the report (also in the sidecar under "value_fit")."""
    from training.allseat.loop import save_checkpoint

    out = _free(out)
    if len(data["n"]) == 0:
        raise ValueFitError("no rows to learn from: play more games or raise --sample-rate")
    pol, meta = _load(policy, game)
    test_mask = held_out(data, float(settings["holdout"]), int(settings["seed"]))
    train, test = np.flatnonzero(~test_mask), np.flatnonzero(test_mask)
    if len(train) == 0 or len(test) == 0:
        raise ValueFitError(
            f"holdout {settings['holdout']} leaves {len(train)} training and {len(test)} "
            f"held-out rows; play more games or choose another --holdout"
        )
    before = calibration(start_scores(pol, meta, data, test), data, test)
    net = network(pol, int(settings["seed"]))
    rows = sparse_rows(data)
    opt, history, best = fit_critic(
        net,
        rows,
        data["result"],
        train,
        test,
        int(settings["epochs"]),
        float(settings["learning_rate"]),
        int(settings["batch_size"]),
        int(settings["seed"]),
        notify,
    )
    scores = np.clip(predict(net, rows, test), -1.0 / (data["n"][test] - 1), 1.0)
    report = {
        "policy": policy,
        "settings": settings,
        "games": sources,
        "rows": {"train": int(len(train)), "held_out": int(len(test))},
        "history": history,
        "best_pass": best,
        "held_out": {"start": before, "fitted": calibration(scores, data, test)},
    }
    counts = sorted({int(n) for n in np.unique(data["n"])})
    tcfg = _train_config(pol, out, counts, settings)
    out.parent.mkdir(parents=True, exist_ok=True)
    step = int(meta.get("step", 0) or 0)  # the actor's training, which the fit leaves as it is
    save_checkpoint(net, opt, out, tcfg, step, {"trainer": "value_fit", "value_fit": report})
    return report


def run_value_fit(
    cfg: ValueFitConfig, notify: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """A value fit with the settings `cfg`: its policy checked, the rows read from the saved
    games or played (and saved when asked), the critic fitted and the checkpoint written;
    returns the report (`value_fit`). `notify` hears the progress."""
    check_policy(cfg.policy, cfg.game)
    data, sources = _rows(cfg, notify)
    settings = cfg.fit_settings()
    return value_fit(cfg.policy, cfg.out, data, settings, sources, notify, game=cfg.game)


def _rows(
    cfg: ValueFitConfig, notify: Callable[[str], None] | None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The rows to learn from, and where they came from: the saved games `cfg.games_from`, or
    new self-play games of `cfg.policy`."""
    game = cfg.rules
    if cfg.games_from:
        data, saved = G.load(cfg.saved(), game)
        return data, {"from": saved}
    play, counts = cfg.playing(game)
    items = game_list(counts, play["games"], cfg.seed)
    tell = notify or (lambda _: None)
    tell(f"playing {len(items)} games of {cfg.policy} at {play['players']} players")
    data = record(
        cfg.policy, items, play["sample_rate"], play["explore"], cfg.workers, notify, game.name
    )
    sources = {"policy": cfg.policy, **play, "players": counts, "seed": cfg.seed}
    if cfg.save_games is not None:
        G.save(cfg.save_games, data, sources, game)
        tell(f"saved the games' rows to {cfg.save_games}")
    return data, sources
