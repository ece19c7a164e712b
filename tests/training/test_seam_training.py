"""The all-seat PPO trainer takes a game (`TrainConfig.game`).

- one all-seat update on the tiny test game "tally" (tests/support/tinygame.py) at 2-4 players
  runs from fresh weights and writes a policy whose sidecar names the game "tally", its 9
  observation entries and 5 actions; that policy plays tally (through the registry's `ppo` player);
- a whole tally run through the shared run loop records the game in config.json, state.json
  and every sidecar, and resuming it as another game is refused, naming both;
- a setting naming no installed game fails with a message listing the allowed games, and a
  tally run's player counts are tally's;
- the sparse encoder the rollout reads (`Game.encode_state_sparse`) has a generic default (the
  dense vector's non-zeros) and Last Will's binding is exactly the function it used before;
- the trainer's modules import no game package (everything comes through the game).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tinygame  # noqa: E402
from paths import REPO  # noqa: E402
from policy_math import npz_logits  # noqa: E402

from agents.policy import CheckpointMismatchError, load_policy  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from gamecore import load_game  # noqa: E402
from training.allseat import Rollout, build_model, flatten, make_optimizer, ppo_update  # noqa: E402
from training.allseat.loop import save_checkpoint  # noqa: E402
from training.checkpoint import load_checkpoint  # noqa: E402
from training.config import TrainConfig, TrainConfigError  # noqa: E402
from training.rundir import TrainError, state_game  # noqa: E402
from training.train import resume_config, train  # noqa: E402

ROOT = REPO
TALLY = tinygame.install()


def _tally_cfg(run_dir: Path, **kw) -> TrainConfig:
    base = dict(
        game="tally",
        mode="all_seat",
        run_dir=str(run_dir),
        num_players=[2, 3, 4],
        player_weights=[1.0, 1.0, 1.0],
        bots=["high", "random"],
        eval_bots=["high"],
        eval_num_players=[2, 4],
        eval_games=4,
        n_steps=96,
        n_envs=1,
        n_games=6,
        batch_size=32,
        n_epochs=1,
        net_arch=[16],
        shaping=0.5,
        total_steps=96,
        eval_every=96,
        checkpoint_every=96,
        snapshot_every=48,
        progress=False,
        torch_threads=1,
    )
    base.update(kw)
    return TrainConfig(**base)


def test_one_update_on_tally_writes_a_tally_policy_that_plays_tally(tmp_path):
    cfg = _tally_cfg(tmp_path)
    model = build_model(cfg, cfg.seed)
    before = model.actor_numpy().weights[0].copy()
    assert before.shape == (16, TALLY.obs_size)
    trajs, games = Rollout(cfg, seed=1).collect(model, cfg.n_steps)
    assert {g["num_players"] for g in games} == {2, 3, 4}
    buf = flatten(trajs)
    n = len(buf["actions"])
    assert n >= cfg.n_steps and buf["masks"].shape == (n, TALLY.num_actions)
    assert buf["masks"][np.arange(n), buf["actions"]].all()  # every sampled action legal
    # each seat's terminal reward is one of the game's, shared first places included
    rewards = {r for g in games for r in TALLY.terminal_rewards(g["ranks"], cfg.reward)}
    assert {t["final"] for t in trajs} <= rewards
    model.train()
    stats = ppo_update(model, make_optimizer(model, cfg), buf, cfg, np.random.default_rng(0))
    model.eval()
    assert np.isfinite(stats["policy_loss"])
    assert not np.array_equal(model.actor_numpy().weights[0], before)  # it learned
    path = save_checkpoint(model, make_optimizer(model, cfg), tmp_path / "step_1.npz", cfg, 1)
    side = json.loads(path.with_suffix(".json").read_text())
    assert (side["game"], side["obs_size"], side["num_actions"]) == ("tally", 9, 5)
    assert side["env_name"] == TALLY.env_name and side["config"]["game"] == "tally"
    with pytest.raises(CheckpointMismatchError, match="tally"):
        load_policy(path)  # not a Last Will policy
    _plays_tally(path)


def _plays_tally(path: Path) -> None:
    """The policy file plays whole tally games at 2-4 players through the registry's `ppo`
    player: only legal moves, each the arg-max of the file's own logits."""
    agent = make_agent(f"ppo:{path}", seed=0, game=TALLY)
    decided = 0
    for n in (2, 3, 4):
        state = TALLY.new_game(TALLY.make_config(n), 100 + n)
        while not TALLY.is_over(state):
            legal = TALLY.legal_actions(state)
            view = TALLY.player_view(state, TALLY.current_player(state))
            a = agent.act(view, legal)
            assert a in legal
            if len(legal) > 1:
                z = npz_logits(path, TALLY.encode_observation(view))
                assert a == legal[int(np.argmax(z[legal]))]
                decided += 1
            TALLY.apply_action(state, a)
        assert sorted(TALLY.ranks(state))[0] == 1
    assert decided > 5


def test_a_tally_run_records_its_game_and_is_resumed_only_as_tally(tmp_path):
    run = tmp_path / "run"
    state = train(_tally_cfg(run))
    assert state["game"] == "tally" and state["step"] >= 96
    assert json.loads((run / "state.json").read_text())["game"] == "tally"
    assert json.loads((run / "config.json").read_text())["game"] == "tally"
    sides = list(run.glob("checkpoints/*.json")) + list(run.glob("snapshots/*.json"))
    assert len(sides) >= 3 and (run / "best.json").is_file()
    for side in [*sides, run / "best.json"]:
        meta = json.loads(side.read_text())
        assert (meta["game"], meta["obs_size"], meta["num_actions"]) == ("tally", 9, 5)
    assert all(e["by_players"].keys() == {"2", "4"} for e in state["evals"])
    ckpt = run / state["checkpoint"]
    assert load_checkpoint(ckpt, game="tally")["step"] == state["step"]
    with pytest.raises(CheckpointMismatchError, match="tally"):
        load_checkpoint(ckpt)  # Last Will's by default
    with pytest.raises(TrainError, match="'tally'.*'lastwill'"):
        resume_config(run, given={"game": "lastwill"})
    with pytest.raises(TrainError, match="'tally'.*'lastwill'"):
        train(_lastwill_cfg_for(run), resume=True)
    more = train(resume_config(run, total_steps=200), resume=True)
    assert more["game"] == "tally" and more["step"] >= 200


def _lastwill_cfg_for(run: Path) -> TrainConfig:
    """A Last Will all-seat configuration pointed at `run`."""
    return TrainConfig(
        run_dir=str(run),
        mode="all_seat",
        num_players=[2],
        player_weights=[1.0],
        bots=["random"],
        eval_bots=["greedy"],
        eval_num_players=2,
        progress=False,
    )


def test_a_state_or_sidecar_without_a_game_is_last_will_s():
    assert state_game({"step": 0, "config": {}}) == "lastwill"
    assert state_game({"config": {"game": "tally"}}) == "tally"
    assert TrainConfig().game == "lastwill" and TrainConfig().to_dict()["game"] == "lastwill"
    assert TrainConfig.from_dict({"seed": 3}).game == "lastwill"


def test_an_unknown_game_is_refused_listing_the_allowed_games():
    with pytest.raises(TrainConfigError) as e:
        TrainConfig(game="nosuchgame")
    text = str(e.value)
    assert "nosuchgame" in text and "lastwill" in text and "tally" in text
    with pytest.raises(TrainConfigError, match="game"):
        TrainConfig(game=3)


def test_a_tally_run_takes_tally_s_player_counts_and_players(tmp_path):
    with pytest.raises(TrainConfigError, match=r"num_players.*2, 3 or 4"):
        _tally_cfg(tmp_path, num_players=[2, 5], player_weights=[1.0, 1.0])
    with pytest.raises(TrainConfigError, match=r"eval_num_players.*2, 3 or 4"):
        _tally_cfg(tmp_path, eval_num_players=5)
    with pytest.raises(TrainConfigError, match="greedy"):
        _tally_cfg(tmp_path, bots=["greedy"])  # a Last Will bot, not tally's
    with pytest.raises(TrainConfigError, match="exploiter_every.*Last Will only"):
        _tally_cfg(tmp_path, exploiter_every=100)
    # Last Will keeps its counts and its message
    with pytest.raises(TrainConfigError, match=r"2, 3, 4 or 5"):
        TrainConfig(num_players=[6], player_weights=[1.0])


def test_the_sparse_rows_are_the_game_s_encoder():
    rng = random.Random(3)
    state = TALLY.new_game(TALLY.make_config(3), 5)
    for _ in range(4):
        seat = TALLY.current_player(state)
        idx, vals = TALLY.encode_state_sparse(state, seat, ordered=False)
        dense = TALLY.encode_state(state, seat)
        assert idx.tolist() == np.flatnonzero(dense).tolist()
        assert np.array_equal(vals, dense[idx]) and vals.dtype == np.float32
        TALLY.apply_action(state, rng.choice(TALLY.legal_actions(state)))
    from lastwill_env import encoding

    lw = load_game("lastwill")
    s = lw.new_game(lw.make_config(4), 11)
    for _ in range(30):
        for ordered in (True, False):
            got = lw.encode_state_sparse(s, s.cur, ordered)
            want = encoding.encode_state_sparse(s, s.cur, ordered)
            assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        lw.apply_action(s, lw.legal_actions(s)[0])


def test_the_rollout_s_fast_functions_do_what_the_methods_do():
    """`Game.fast_functions`: the bound methods by default (tally); Last Will's are the
    engine's, the encoders' and the shaping's own functions, with the methods' results."""
    fast = TALLY.fast_functions()
    assert set(fast) == set(TALLY.FAST_FUNCTIONS)
    assert all(fast[k] == getattr(TALLY, k) for k in fast)
    from lastwill_env import encoding, engine, shaping

    lw = load_game("lastwill")
    fast = lw.fast_functions()
    assert set(fast) == set(lw.FAST_FUNCTIONS)
    assert fast["legal_actions"] is engine.legal_actions
    assert fast["apply_action"] is engine.apply_action
    assert fast["player_view"] is engine.player_view
    assert fast["encode_state_sparse"] is encoding.encode_state_sparse
    assert fast["potential"] is shaping.potential
    a, b = lw.new_game(lw.make_config(3), 7), lw.new_game(lw.make_config(3), 7)
    for _ in range(60):
        seat = lw.current_player(a)
        assert fast["current_player"](b) == seat and fast["is_over"](b) == lw.is_over(a)
        assert fast["legal_actions"](b) == lw.legal_actions(a)
        assert fast["potential"](b, seat) == lw.potential(a, seat)
        assert np.array_equal(fast["encode_state"](b, seat), lw.encode_state(a, seat))
        assert fast["player_view"](b, seat) == lw.player_view(a, seat)
        move = lw.legal_actions(a)[-1]
        lw.apply_action(a, move)
        fast["apply_action"](b, move)


def test_a_game_that_ends_as_it_starts_is_never_asked_for_a_move(tmp_path):
    """Tally deals a seat three equal cards now and then: every move of that seat is forced,
    and a 3-player game of such seats can end before any network decision. A new game that
    ends at once must not wait for the learner (it used to, and the rollout failed)."""
    from training.exploit import exploit

    small = {
        "n_games": 4,
        "n_steps": 64,
        "n_envs": 1,
        "batch_size": 32,
        "n_epochs": 1,
        "torch_threads": 1,
        "net_arch": [16],
    }
    exploit(
        "high",
        3,
        64,
        tmp_path / "x",
        eval_games=3,
        train_eval_games=2,
        progress=False,
        overrides=small,
        game="tally",
    )
    assert (tmp_path / "x" / "best.npz").exists()
