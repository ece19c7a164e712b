"""The single-seat (SB3) trainer and the RLlib backend take a game (`TrainConfig.game`).

- a game may give its own envs (`Game.single_seat_env`, `Game.rllib_env_class`; Last Will's are
  `lastwill_env.single_seat` and `lastwill_env.rllib`), else the generic ones of `gameenv` serve;
- a tiny single-seat run on Money! and on the tiny test game "tally" (tests/support/tinygame.py)
  writes policies whose sidecars name the game and its sizes, and which play that game through the
  registry's `ppo` player (every move legal, the arg-max of the file's own logits);
- the RLlib export reads a policy at the game's sizes and records the game;
- (marked `ray`) an RLlib run on tally and on Money! does the same.

That a Last Will single-seat run is unchanged is `tests/training/test_no_behaviour_change.py`'s
pinned digests (its digests depend on torch's kernels).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import tinygame  # noqa: E402
from paths import REPO  # noqa: E402
from policy_math import npz_logits  # noqa: E402

from agents.policy import CheckpointMismatchError, load_policy  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from gamecore import load_game  # noqa: E402
from training.config import TrainConfig, TrainConfigError  # noqa: E402
from training.train import train  # noqa: E402

ROOT = REPO
TALLY = tinygame.install()
MONEY = load_game("money")
# per game: the bots of the pool and of the evaluation, the player counts
SETUPS = {
    "money": (["value", "random"], [3, 4, 5]),
    "tally": (["high", "random"], [2, 3, 4]),
}


def _cfg(game: str, run_dir: Path, **kw) -> TrainConfig:
    bots, counts = SETUPS[game]
    base = dict(
        game=game,
        mode="single_seat",
        run_dir=str(run_dir),
        seed=3,
        num_players=counts,
        player_weights=[1.0] * len(counts),
        bots=bots,
        eval_bots=bots[:1],
        eval_num_players=[counts[0], counts[-1]],
        eval_games=2,
        n_envs=1,
        vec_env="dummy",
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        net_arch=[16],
        total_steps=256,
        eval_every=256,
        checkpoint_every=256,
        snapshot_every=128,
        p_latest=0.5,
        p_bots_min=0.3,
        progress=False,
    )
    base.update(kw)
    return TrainConfig(**base)


def _plays(game, path: Path) -> None:
    """The policy file plays a whole game at each of the game's player counts through the
    registry's `ppo` player: only legal moves, each the arg-max of the file's own logits."""
    agent = make_agent(f"ppo:{path}", 0, game=game)
    decided = 0
    for n in game.player_counts:
        state = game.new_game(game.make_config(n), 100 + n)
        while not game.is_over(state):
            legal = game.legal_actions(state)
            view = game.player_view(state, game.current_player(state))
            a = agent.act(view, legal)
            assert a in legal
            if len(legal) > 1:
                z = npz_logits(path, game.encode_observation(view))
                assert a == legal[int(np.argmax(z[legal]))]
                decided += 1
            game.apply_action(state, a)
        assert min(game.ranks(state)) == 1
    assert decided > 5


def _check_sidecar(path: Path, game) -> dict:
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["game"] == game.name
    assert (meta["env_name"], meta["env_version"]) == (game.env_name, game.version)
    assert (meta["obs_size"], meta["num_actions"]) == (game.obs_size, game.num_actions)
    assert meta["action_table_hash"] == game.action_table_hash
    return meta


# -- the game's own envs, else the generic ones ----------------------------------------------


def test_a_game_without_envs_of_its_own_gets_the_generic_ones():
    from gamecore.game import Game

    assert Game.single_seat_env(MONEY) is None and Game.rllib_env_class(MONEY) is None
    assert MONEY.single_seat_env(num_players=3) is None and MONEY.rllib_env_class() is None
    assert TALLY.single_seat_env() is None and TALLY.rllib_env_class() is None


def test_the_self_play_env_is_the_game_s_own_or_the_generic_one(tmp_path):
    from gameenv.single_seat import SingleSeatEnv
    from lastwill_env.single_seat import SingleSeatEnv as LastWillSingleSeatEnv
    from training.selfplay_env import SelfPlayEnv

    lw = SelfPlayEnv(TrainConfig(bots=["greedy"], num_players=[3], player_weights=[1.0]))
    assert isinstance(lw.env, LastWillSingleSeatEnv) and not isinstance(lw.env, SingleSeatEnv)
    lw.reset(seed=1)
    assert lw.env.game_state is lw.env.game  # Last Will's env names its state `game`
    for name in SETUPS:
        env = SelfPlayEnv(_cfg(name, tmp_path))
        assert isinstance(env.env, SingleSeatEnv) and env.env.game is load_game(name)
        game = load_game(name)
        assert env.observation_space.shape == (game.obs_size,)
        assert env.action_space.n == game.num_actions
        obs, info = env.reset(seed=2)
        assert obs.shape == (game.obs_size,) and info["seat"] == env.seat
        mask = env.action_masks()
        assert sorted(np.flatnonzero(mask)) == game.legal_actions(env.env.game_state)


def test_opponents_are_timed_and_keep_their_reset_and_observe():
    from training.selfplay_env import timed

    class Watcher:
        def __init__(self):
            self.seeds, self.events = [], []

        def reset(self, seed=None):
            self.seeds.append(seed)

        def observe(self, event):
            self.events.append(event)

        def act(self, view, legal):
            return legal[0]

    clock = [0.0]
    inner = Watcher()
    t = timed(inner, clock)
    t.reset(7)
    t.observe({"type": "action"})
    assert t.act(None, [4, 5]) == 4 and clock[0] > 0
    assert inner.seeds == [7] and inner.events == [{"type": "action"}]
    plain = timed(SimpleNamespace(act=lambda view, legal: legal[-1]), clock)
    assert not hasattr(plain, "observe") and plain.act(None, [1, 2]) == 2
    plain.reset(3)  # nothing to reset


# -- single-seat (SB3) runs of other games -----------------------------------------------


def test_other_games_train_in_either_mode(tmp_path):
    assert _cfg("tally", tmp_path).mode == "single_seat"
    assert _cfg("money", tmp_path, mode="all_seat", n_games=4).mode == "all_seat"
    with pytest.raises(TrainConfigError, match="exploiter_every.*Last Will only"):
        _cfg("tally", tmp_path, exploiter_every=100)


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_a_single_seat_run_writes_a_policy_that_plays_its_game(name, tmp_path):
    game = load_game(name)
    run = tmp_path / "run"
    state = train(_cfg(name, run))
    assert state["game"] == name and state["step"] >= 256
    assert json.loads((run / "config.json").read_text())["game"] == name
    ckpt = run / state["checkpoint"]
    assert ckpt.suffix == ".zip"
    for npz in [run / "best.npz", ckpt.with_suffix(".npz"), *run.glob("snapshots/*.npz")]:
        meta = _check_sidecar(npz, game)
        assert meta["config"]["game"] == name and meta["config"]["mode"] == "single_seat"
    policy, _ = load_policy(ckpt.with_suffix(".npz"), game=game)
    assert policy.weights[0].shape == (16, game.obs_size)
    with pytest.raises(CheckpointMismatchError):
        load_policy(ckpt.with_suffix(".npz"))  # not a Last Will policy
    _plays(game, ckpt.with_suffix(".npz"))
    # the pool played the snapshots at the game's sizes, and the run resumes as its game
    assert json.loads((run / "pool.json").read_text())["snapshots"]
    from training.train import resume_config

    more = train(resume_config(run, total_steps=384), resume=True)
    assert more["game"] == name and more["step"] >= 384


# -- the RLlib export ------------------------------------------------------------------------


def _module_state(game, hidden: int = 4) -> dict:
    rng = np.random.default_rng(0)
    return {
        "encoder.actor_encoder.net.mlp.0.weight": rng.normal(size=(hidden, game.obs_size)),
        "encoder.actor_encoder.net.mlp.0.bias": np.zeros(hidden),
        "pi.net.mlp.0.weight": rng.normal(size=(game.num_actions, hidden)),
        "pi.net.mlp.0.bias": np.zeros(game.num_actions),
    }


def test_the_rllib_export_reads_the_run_s_game(tmp_path):
    from training.rllib_export import MODULE_ID, export_policy

    def algo(state):
        group = SimpleNamespace(get_weights=lambda module_ids: {MODULE_ID: state})
        return SimpleNamespace(learner_group=group)

    cfg = _cfg("money", tmp_path)
    npz = export_policy(algo(_module_state(MONEY)), tmp_path / "step_5", cfg, 5, "checkpoint")
    meta = _check_sidecar(npz, MONEY)
    assert meta["source"] == "rllib" and meta["step"] == 5
    policy, _ = load_policy(npz, game=MONEY)
    assert policy.weights[0].shape == (4, MONEY.obs_size)
    with pytest.raises(CheckpointMismatchError, match="Money"):
        export_policy(algo(_module_state(TALLY)), tmp_path / "step_6", cfg, 6, "checkpoint")


# -- the trainers import no game --------------------------------------------------------------

TRAINER_MODULES = ("selfplay_env", "sb3", "rllib_backend", "rllib_export", "rllib_module")


def test_the_trainer_modules_import_no_game_package():
    for name in TRAINER_MODULES:
        tree = ast.parse((ROOT / "training" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = [(node.module or "").split(".")[0]]
            else:
                continue
            assert not {"lastwill_env", "money_env"} & set(tops), (name, node.lineno)


# -- RLlib (marked ray) ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    pytest.importorskip("ray.rllib", reason="RLlib is not installed: pip install -e '.[ray]'")
    if ray.is_initialized():  # pragma: no cover - a Ray left by another module
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.ray
def test_the_rllib_env_is_the_game_s_own_or_the_generic_one(tmp_path):
    pytest.importorskip("ray.rllib", reason="RLlib is not installed: pip install -e '.[ray]'")
    from gameenv.rllib import GameMultiAgentEnv
    from lastwill_env.rllib import LastWillMultiAgentEnv
    from training.rllib_backend import env_spec

    env, config = env_spec(TrainConfig(num_players=[3], player_weights=[1.0]))
    assert env is LastWillMultiAgentEnv and "game" not in config
    for name in SETUPS:
        env, config = env_spec(_cfg(name, tmp_path))
        assert env is GameMultiAgentEnv and config["game"] == name
        assert config["num_players"] == SETUPS[name][1] and config["seed"] == 3
        obs, _ = env(config).reset(seed=1)
        (agent_obs,) = obs.values()
        assert agent_obs["observations"].shape == (load_game(name).obs_size,)


@pytest.mark.ray
@pytest.mark.parametrize("name", sorted(SETUPS))
def test_an_rllib_run_writes_a_policy_that_plays_its_game(name, local_ray, tmp_path):
    from training.rllib_backend import RLlibSettings, train_rllib
    from training.rllib_export import export_rllib_checkpoint

    game = load_game(name)
    run = tmp_path / "run"
    cfg = _cfg(name, run, n_steps=200, batch_size=100, total_steps=200, eval_every=200)
    cfg.checkpoint_every = 200
    # tally is registered in this process only: sample in the driver (Money! on a runner)
    runners = 0 if name == "tally" else 1
    state = train_rllib(cfg, RLlibSettings(env_runners=runners, num_cpus=2))
    assert state["backend"] == "rllib" and state["game"] == name and state["step"] >= 200
    ckpt = run / state["checkpoint"]
    assert ckpt.suffix == ".npz"
    for npz in (ckpt, run / "best.npz"):
        assert _check_sidecar(npz, game)["source"] == "rllib"
    _plays(game, ckpt)
    again = export_rllib_checkpoint(run / "rllib", tmp_path / "again.npz", game=name)
    assert _check_sidecar(again, game)["game"] == name
    p1, _ = load_policy(ckpt, game=game)
    p2, _ = load_policy(again, game=game)
    assert all(np.array_equal(a, b) for a, b in zip(p1.weights, p2.weights, strict=True))
    with pytest.raises(CheckpointMismatchError):
        export_rllib_checkpoint(run / "rllib", tmp_path / "lw.npz")  # not Last Will's sizes
