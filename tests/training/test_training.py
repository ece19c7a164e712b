"""Self-play training (training/), the policy player (agents/policy.py) and checkpoints.

A tiny-budget run (a few thousand steps, 2 env workers) must write TensorBoard events with the
`eval/` tags and a checkpoint, resume from it exactly where it stopped, and produce a policy that
only ever plays legal actions. Checkpoints made for another env version or action table are
refused with a clear error.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from paths import REPO  # noqa: E402

from agents.arena import play_game  # noqa: E402
from agents.policy import (  # noqa: E402
    CheckpointError,
    CheckpointMismatchError,
    NumpyPolicy,
    PolicyAgent,
    load_policy,
)
from agents.registry import PlayerSpecError, make_agent  # noqa: E402
from lastwill_env.encoding import OBS_SIZE  # noqa: E402
from lastwill_env.engine import GameConfig, new_game, player_view  # noqa: E402
from training.config import TrainConfig, TrainConfigError, load_config  # noqa: E402
from training.pool import OpponentPool, PoolRegistry, SnapshotInfo  # noqa: E402
from training.train import TrainError, resume_config, train  # noqa: E402

TINY = dict(
    mode="single_seat",  # the SB3 trainer (all_seat is the default)
    total_steps=1024,
    n_envs=2,
    n_steps=256,
    batch_size=256,
    n_epochs=1,
    net_arch=[32],
    snapshot_every=256,
    eval_every=512,
    checkpoint_every=512,
    eval_games=4,
    eval_bots=["greedy", "planner"],
    bots=["greedy", "random"],
    shaping=1.0,
    bc_teacher="greedy",
    bc_games=2,
    bc_epochs=1,
    progress=False,
)


def _scalars(run: Path, sub: str = "") -> dict[str, list[tuple[int, float]]]:
    """The scalars of the run's TensorBoard run, or of its sub-run `sub` (`vs_greedy`)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    dirs = sorted((run / "tb").iterdir())
    assert len(dirs) == 1, f"one TensorBoard run expected, found {dirs}"
    ea = EventAccumulator(str(dirs[0] / sub))
    ea.Reload()
    return {t: [(e.step, e.value) for e in ea.Scalars(t)] for t in ea.Tags()["scalars"]}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("train") / "tiny"
    cfg = TrainConfig(run_dir=str(run), **TINY)
    state = train(cfg)
    assert state["step"] == 1024
    return run


def test_tiny_run_writes_eval_scalars_and_checkpoints(tiny_run: Path) -> None:
    tags = _scalars(tiny_run)
    for bot in ("greedy", "planner"):
        bot_tags = _scalars(tiny_run, f"vs_{bot}")
        for k in ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank"):
            steps = [s for s, _ in bot_tags[f"eval/{k}/4p"]]
            assert steps == [0, 512, 1024], (k, steps)  # the start, then every eval_every
    for tag in (
        "rating/elo",
        "selfplay/pool_size",
        "time/sps",
        "rollout/invalid_action_rate",
        "time/opponent_share",
    ):
        assert tag in tags, tag
    assert all(v == 0.0 for _, v in tags["rollout/invalid_action_rate"])
    greedy = _scalars(tiny_run, "vs_greedy")
    lo_hi = zip(greedy["eval/win_rate_lo/4p"], greedy["eval/win_rate_hi/4p"], strict=True)
    for (_, lo), (_, hi) in lo_hi:
        assert 0.0 <= lo <= hi <= 1.0
    for name in ("checkpoints/step_0", "checkpoints/step_512", "checkpoints/step_1024", "best"):
        for suffix in (".zip", ".json", ".npz"):
            assert (tiny_run / (name + suffix)).exists(), name + suffix
    meta = json.loads((tiny_run / "checkpoints/step_1024.json").read_text())
    assert meta["step"] == 1024 and meta["env_name"] == "lastwill_v1"
    assert len(meta["action_table_hash"]) == 64 and meta["config"]["seed"] == 0
    pool = PoolRegistry.load(tiny_run / "pool.json")
    assert [s.step for s in pool.snapshots] == [512, 1024]  # at rollout ends (512 steps)
    state = json.loads((tiny_run / "state.json").read_text())
    assert state["step"] == 1024 and [e["step"] for e in state["evals"]] == [0, 512, 1024]


def test_tiny_run_tensorboard_layout_settings_and_warm_start(tiny_run: Path) -> None:
    """The layout written by a real run draws exactly the right tags of that run, one sub-run
    per bot; the settings are in HParams (a win-rate metric per count) and Text; the warm
    start's fit is a text table at step 0."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams import plugin_data_pb2

    from training import tblog

    (event_dir,) = sorted((tiny_run / "tb").iterdir())
    subs = {p.name for p in event_dir.iterdir() if p.is_dir()}
    assert subs == {"vs_greedy", "vs_planner", "chance"}
    tags = set(_scalars(tiny_run)) | {t for sub in subs for t in _scalars(tiny_run, sub)}
    charts = {t: c for cat in tblog.read_layout(str(event_dir)).values() for t, c in cat.items()}
    drawn = {title: tblog.chart_matches(kind, x, tags) for title, (kind, x) in charts.items()}
    where = " (4 players; chance: the chance run)"
    assert drawn["win rate vs each bot" + where] == {"eval/win_rate/4p"}
    assert drawn["mean rank vs each bot" + where] == {"eval/mean_rank/4p"}
    assert drawn["win rate vs each bot with 95% interval" + where] == {
        "eval/win_rate/4p",
        "eval/win_rate_lo/4p",
        "eval/win_rate_hi/4p",
    }
    assert drawn["rating: Plackett-Luce fit, Elo scale (anchor: random = 0)"] == {
        "rating/elo",
        "rating/elo/4p",
    }
    assert all(v == 0.25 for _, v in _scalars(tiny_run, "chance")["eval/win_rate/4p"])
    assert not [t for t in tags if t.startswith("bc/")]
    acc = EventAccumulator(str(event_dir), size_guidance={"tensors": 0})
    acc.Reload()
    content = acc.PluginTagToContent("hparams")
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    metrics = {m.name.tag for m in exp.experiment.metric_infos}
    assert metrics == {"eval/mean_win_rate/4p", "eval/score", "rating/elo"}
    assert acc.Tensors("run/settings/text_summary")
    (fit,) = acc.Tensors("bc/fit/text_summary")
    assert fit.step == 0


def test_evaluation_per_player_count(tiny_run: Path, tmp_path: Path) -> None:
    """With several eval_num_players, the evaluation reports each count, its scalars go to one
    sub-run per bot under eval/<stat>/<n>p; the layout for those counts draws exactly them."""
    from training import tblog
    from training.train import evaluate

    cfg = TrainConfig(
        run_dir=str(tmp_path), **{**TINY, "eval_games": 2, "eval_num_players": [2, 3]}
    )
    out = tmp_path / "e.jsonl"
    res = evaluate(tiny_run / "checkpoints/step_1024.zip", cfg, 1024, out)
    assert sorted(res["by_players"]) == ["2", "3"]
    assert res["vs"] == res["by_players"]["2"]["vs"]
    assert sorted(res["by_players"]["3"]["vs"]) == ["greedy", "planner"]
    assert res["by_players"]["3"]["vs"]["greedy"]["games"] == 3
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["type"] == "header" and {r["num_players"] for r in rows[1:]} == {2, 3}
    by_run = tblog.eval_scalars(res, [2, 3])
    assert set(by_run) == {"", "vs_greedy", "vs_planner", "chance"}
    assert {"eval/win_rate/2p", "eval/win_rate_hi/3p"} <= set(by_run["vs_planner"])
    assert by_run["chance"]["eval/win_rate/3p"] == pytest.approx(1 / 3)
    assert by_run[""]["eval/mean_win_rate/3p"] == res["by_players"]["3"]["mean_win_rate"]
    assert (
        by_run["vs_greedy"]["eval/win_rate/3p"]
        == res["by_players"]["3"]["vs"]["greedy"]["win_rate"]
    )
    chart = tblog.layout([2, 3])["evaluation"][
        "win rate vs each bot (3 players; chance: the chance run)"
    ]
    assert tblog.chart_matches(*chart, set(by_run["vs_greedy"])) == {"eval/win_rate/3p"}
    again = evaluate(tiny_run / "checkpoints/step_1024.zip", cfg, 1024, out)  # replaces the log
    assert again["by_players"] == res["by_players"]
    assert again["rating"] == res["rating"] and "openskill_ordinal" not in res


def test_evaluation_rating_is_the_seeded_fit_over_its_games(tiny_run: Path, tmp_path: Path):
    """The evaluation's `rating` is the learner's `agents.stats.fit_ratings` over every game
    (`random` = 0, seeded by the evaluation's seed), and per count over that count's games."""
    from agents.stats import fit_ratings
    from training.train import evaluate

    cfg = TrainConfig(
        run_dir=str(tmp_path), **{**TINY, "eval_games": 2, "eval_num_players": [2, 3]}
    )
    ckpt = tiny_run / "checkpoints/step_1024.zip"
    out = tmp_path / "e.jsonl"
    res = evaluate(ckpt, cfg, 1024, out)
    games = [json.loads(x) for x in out.read_text().splitlines()[1:]]

    def fit(rows):
        return fit_ratings(rows, anchor="random", seed=cfg.seed + 17)["ratings"][f"ppo:{ckpt}"]

    whole = fit(games)
    assert (res["rating"], res["rating_se"]) == (whole["rating"], whole["se"])
    assert (res["rating_lo"], res["rating_hi"]) == (whole["ci_lo"], whole["ci_hi"])
    for n in (2, 3):
        part = fit([r for r in games if r["num_players"] == n])
        assert res["by_players"][str(n)]["rating"] == part["rating"]
        assert res["by_players"][str(n)]["rating_se"] == part["se"]


def test_best_is_chosen_by_the_score_not_the_rating():
    from training.runloop import is_better

    best = {"step": 0, "mean_win_rate": 0.3, "score": 1.2, "rating": 10.0}
    assert not is_better({"mean_win_rate": 0.5, "score": 1.1, "rating": 300.0}, best)
    assert is_better({"mean_win_rate": 0.2, "score": 1.3, "rating": -300.0}, best)


def test_resume_continues_steps_pool_and_tensorboard(tiny_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "resumed"
    shutil.copytree(tiny_run, run)
    cfg = resume_config(run, total_steps=1536)
    assert cfg.run_dir == str(run)
    assert cfg.total_steps == 1536 and cfg.net_arch == [32]
    out = train(cfg, resume=True)
    assert out["step"] == 1536
    tags = _scalars(run, "vs_greedy")  # the same TensorBoard run directory, steps going on
    assert [s for s, _ in tags["eval/win_rate/4p"]] == [0, 512, 1024, 1536]
    pool = PoolRegistry.load(run / "pool.json")
    assert [s.step for s in pool.snapshots] == [512, 1024, 1536]
    with pytest.raises(TrainError, match="already holds a run"):
        train(cfg)


def test_resume_refuses_a_checkpoint_of_another_env(tiny_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "other"
    shutil.copytree(tiny_run, run)
    side = run / "checkpoints/step_1024.json"
    meta = json.loads(side.read_text())
    meta["action_table_hash"] = "0" * 64
    side.write_text(json.dumps(meta))
    with pytest.raises(TrainError, match="action_table_hash"):
        train(resume_config(run), resume=True)


def test_policy_player_always_plays_legal_actions(tiny_run: Path) -> None:
    spec = f"ppo:{tiny_run / 'best.zip'}"
    for n in (2, 3, 4, 5):
        for mode in ("", ":sample"):
            specs = [spec + mode] + ["greedy"] * (n - 1)
            row = play_game(specs, GameConfig(num_players=n), deal_seed=n)
            assert row["error"] is None, row["error"]
            assert row["ranks"] is not None


def test_numpy_policy_matches_the_torch_policy(tiny_run: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(tiny_run / "best.zip"), device="cpu")
    npol = NumpyPolicy.load_npz(tiny_run / "best.npz")
    rng = np.random.default_rng(0)
    obs = rng.uniform(-1, 1, size=(8, OBS_SIZE)).astype(np.float32)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs))
        want = dist.distribution.logits.numpy()
    for i in range(8):
        got = npol.logits(obs[i])
        # compare up to the softmax normalisation constant
        assert np.allclose(got - got.max(), want[i] - want[i].max(), atol=1e-4)
    # and the .zip path (via sb3-contrib) gives the same network
    conv = NumpyPolicy.from_sb3(model)
    assert np.allclose(conv.logits(obs[0]), npol.logits(obs[0]), atol=1e-6)


def test_numpy_critic_matches_the_torch_value(tiny_run: Path, tmp_path: Path) -> None:
    """The .npz carries the critic: its value is SB3's predict_values; an older actor-only
    .npz gets the critic from the .zip beside it when asked for (need_value)."""
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(tiny_run / "best.zip"), device="cpu")
    npol = NumpyPolicy.load_npz(tiny_run / "best.npz")
    assert npol.has_value
    obs = np.random.default_rng(1).uniform(-1, 1, size=(6, OBS_SIZE)).astype(np.float32)
    with torch.no_grad():
        want = model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
    for i in range(6):
        assert npol.value(obs[i]) == pytest.approx(float(want[i]), abs=1e-4)
    for suffix in (".zip", ".json"):
        shutil.copyfile(tiny_run / ("best" + suffix), tmp_path / ("old" + suffix))
    old_meta = json.loads((tmp_path / "old.json").read_text())
    old_meta.pop("files")  # an older checkpoint: its sidecar records no digests
    (tmp_path / "old.json").write_text(json.dumps(old_meta))
    NumpyPolicy(npol.weights, npol.biases, npol.activation).save_npz(tmp_path / "old.npz")
    assert not load_policy(tmp_path / "old.npz")[0].has_value
    full, _ = load_policy(tmp_path / "old.npz", need_value=True, allow_pickle=True)
    assert full.value(obs[0]) == pytest.approx(float(want[0]), abs=1e-4)


def test_mismatched_checkpoint_is_refused_with_a_clear_error(tiny_run: Path, tmp_path) -> None:
    for suffix in (".zip", ".npz", ".json"):
        shutil.copyfile(tiny_run / ("best" + suffix), tmp_path / ("old" + suffix))
    side = tmp_path / "old.json"
    meta = json.loads(side.read_text())
    meta["env_version"] = -1
    meta["action_table_hash"] = "f" * 64
    side.write_text(json.dumps(meta))
    with pytest.raises(CheckpointMismatchError) as e:
        load_policy(tmp_path / "old.zip")
    assert "env_version" in str(e.value) and "action_table_hash" in str(e.value)
    with pytest.raises(PlayerSpecError, match="another environment"):
        make_agent(f"ppo:{tmp_path / 'old.zip'}")
    with pytest.raises(PlayerSpecError, match="does not exist"):
        make_agent("ppo:/nonexistent/model.zip")
    (tmp_path / "noside.zip").write_bytes(b"not a model")
    with pytest.raises(CheckpointError, match="sidecar"):
        load_policy(tmp_path / "noside.zip")
    row = play_game([f"ppo:{tmp_path / 'old.zip'}", "random"], GameConfig(2), deal_seed=1)
    assert row["error"] is not None and "another environment" in row["error"]["message"]


def test_policy_agent_reads_only_its_view(tiny_run: Path) -> None:
    agent = PolicyAgent(str(tiny_run / "best.npz"))
    s = new_game(GameConfig(4), 3)
    a1 = agent.act(player_view(s, s.cur), s.legal_actions())
    t = s.clone()
    other = (s.cur + 1) % 4
    t.hands[other], t.decks[0] = t.decks[0][:6], t.hands[other] + t.decks[0][6:]
    assert agent.act(player_view(t, t.cur), t.legal_actions()) == a1


# -- configuration ---------------------------------------------------------------------------


def test_config_rejects_bad_values_with_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match=r"unknown training setting\(s\) \['colour'\]"):
        TrainConfig.from_dict({"colour": "red"})
    with pytest.raises(TrainConfigError, match="n_envs=0"):
        TrainConfig(n_envs=0)
    with pytest.raises(TrainConfigError, match="num_players"):
        TrainConfig(num_players=[2, 6])
    with pytest.raises(TrainConfigError, match="player_weights"):
        TrainConfig(num_players=[2, 4], player_weights=[1.0])
    with pytest.raises(TrainConfigError, match="p_latest \\+ p_bots_min"):
        TrainConfig(p_latest=0.8, p_bots_min=0.5)
    with pytest.raises(TrainConfigError, match="unknown player 'nobot'"):
        TrainConfig(bots=["nobot"])
    with pytest.raises(TrainConfigError, match="batch_size"):
        TrainConfig(mode="single_seat", n_steps=100, n_envs=2, batch_size=64)
    bad = tmp_path / "bad.toml"
    bad.write_text("total_steps = \n")
    with pytest.raises(TrainConfigError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(TrainConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")
    good = tmp_path / "good.toml"
    good.write_text("[train]\ntotal_steps = 5000\nnum_players = [4]\nplayer_weights = [1]\n")
    cfg = load_config(good, seed=9)
    assert (cfg.total_steps, cfg.num_players, cfg.seed) == (5000, [4], 9)
    assert cfg.player_weights == [1.0]


def test_reference_config_is_valid() -> None:
    root = REPO
    cfg = load_config(root / "training/configs/reference.toml")
    assert cfg.mode == "all_seat" and cfg.eval_counts() == [2, 3, 4, 5]
    assert "racer" in cfg.bots and "racer" in cfg.eval_bots and cfg.exploiter_every > 0
    assert cfg.p_bot_table > 0 and (cfg.prior, cfg.prior_weight) == ("racer", 3.0)
    assert cfg.kickstart_teacher == "racer" and cfg.kickstart_coef > 0
    third = load_config(root / "training/configs/ref_v3.toml")
    assert not third.prior and third.bc_teacher == "racer" and third.run_dir != cfg.run_dir
    second = load_config(root / "training/configs/ref_v2.toml")
    assert second.mode == "all_seat" and second.run_dir != cfg.run_dir
    ablation = load_config(root / "training/configs/no_kickstart.toml")
    assert not ablation.kickstart_teacher and ablation.run_dir not in (cfg.run_dir, second.run_dir)
    old = load_config(root / "training/configs/ref_v1.toml")
    assert old.mode == "single_seat" and old.eval_num_players == 4
    stage = load_config(root / "training/configs/second_stage_3p.toml")
    assert stage.init_policy == cfg.run_dir and stage.run_dir != cfg.run_dir
    assert (stage.prior, stage.prior_weight) == (cfg.prior, cfg.prior_weight)
    # the shipped reference's second stage: over the sprinter, from the first stage's weights
    sprint = load_config(root / "training/configs/sprinter_stage.toml")
    assert sprint.init_policy == cfg.run_dir and sprint.run_dir not in (cfg.run_dir, stage.run_dir)
    assert (sprint.prior, sprint.prior_weight) == ("sprinter", cfg.prior_weight)
    assert sprint.init_new_prior and sprint.init_critic and sprint.kickstart_players == [2, 3]
    assert sprint.net_arch == cfg.net_arch and "sprinter" in sprint.eval_bots
    # its variant with reverse tables: the same start, prior, kickstarting and seed
    rev = load_config(root / "training/configs/reverse_stage.toml")
    assert rev.p_bot_seat > 0 and sprint.p_bot_seat == 0 and rev.run_dir != sprint.run_dir
    same = ("init_policy", "prior", "prior_weight", "kickstart_players", "seed", "total_steps")
    assert all(getattr(rev, k) == getattr(sprint, k) for k in same)
    assert rev.player_weights[-1] > sprint.player_weights[-1]  # more 5-player games


# -- the opponent pool -----------------------------------------------------------------------


def test_pool_registry_window_milestones_and_pfsp() -> None:
    reg = PoolRegistry(window=2)
    for step in (100, 200, 300, 400):
        reg.add(SnapshotInfo(f"s{step}", f"/x/s{step}.zip", step, milestone=step == 100))
    assert [s.id for s in reg.active()] == ["s100", "s300", "s400"]
    for _ in range(10):
        reg.record("s300", 1.0)  # the learner always beats s300
    reg.record("s400", 1.0)
    reg.record("s400", 0.0)
    w = reg.weights(pfsp=True)
    assert w["s400"] == pytest.approx(0.25) and w["s300"] == pytest.approx(0.02)
    assert reg.weights(pfsp=False) == {"s100": 1.0, "s300": 1.0, "s400": 1.0}
    with pytest.raises(ValueError, match="already registered"):
        reg.add(SnapshotInfo("s100", "/x", 1))


def test_pool_draws_bots_latest_and_snapshots_in_proportion(tiny_run: Path) -> None:
    pool = OpponentPool(["greedy", "random"], p_latest=0.5, p_bots_min=0.2, seed=1)
    assert {pool.draw_one()[0] for _ in range(50)} <= {"bot:greedy", "bot:random"}
    pool.set_latest(NumpyPolicy.load_npz(tiny_run / "best.npz").state())
    pool.set_snapshots({"step_512": str(tiny_run / "snapshots/step_512.zip")}, {"step_512": 1.0})
    ids = [pool.draw_one()[0] for _ in range(4000)]
    share = {k: ids.count(k) / len(ids) for k in set(ids)}
    assert share["latest"] == pytest.approx(0.5, abs=0.03)
    assert share["step_512"] == pytest.approx(0.3, abs=0.03)
    assert share["bot:greedy"] + share["bot:random"] == pytest.approx(0.2, abs=0.03)
    opps = pool.draw(4)
    assert len(opps) == 3 and len(pool.last_ids) == 3


def test_pool_bot_tables_seat_copies_of_one_bot() -> None:
    bots = ["greedy", "random"]
    pool = OpponentPool(bots, p_latest=0.0, p_bots_min=1.0, seed=3, p_bot_table=1.0)
    kinds = set()
    for _ in range(100):
        opps = pool.draw(4)
        assert len(opps) == 3 and len(set(pool.last_ids)) == 1  # n-1 copies of one bot
        kinds.add(pool.last_ids[0])
    assert kinds == {"bot:greedy", "bot:random"}
    # without bot tables each seat is drawn on its own: mixed tables occur
    pool = OpponentPool(bots, p_latest=0.0, p_bots_min=1.0, seed=3)
    mixed = 0
    for _ in range(100):
        pool.draw(4)
        mixed += len(set(pool.last_ids)) > 1
    assert mixed > 0


def test_shaping_is_potential_based() -> None:
    """With gamma = 1 the shaping terms of a game telescope to -phi(first state)."""
    from training.selfplay_env import SelfPlayEnv

    cfg = TrainConfig(
        bots=["greedy"],
        p_latest=0.0,
        p_bots_min=1.0,
        shaping=1.0,
        gamma=1.0,
        num_players=[3],
        player_weights=[1.0],
    )
    env = SelfPlayEnv(cfg)
    _, _ = env.reset(seed=4)
    phi0 = env._potential()
    total = 0.0
    rng = np.random.default_rng(0)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, r, done, _, info = env.step(int(rng.choice(legal)))
        total += info["shaping"]
    assert total == pytest.approx(-phi0)
    assert phi0 == 0.0 or abs(phi0) < 1.0


def test_behaviour_cloning_fits_the_teacher() -> None:
    """training.bc: demonstrations are the teacher's legal choices; fitting raises accuracy."""
    import torch
    from sb3_contrib import MaskablePPO

    from lastwill_env.single_seat import SingleSeatEnv
    from training.bc import collect, pretrain

    cfg = TrainConfig(bc_teacher="planner", bots=["greedy"], num_players=[3], player_weights=[1.0])
    data = collect(cfg, games=6, seed=2)
    n = len(data["actions"])
    assert n > 100 and data["obs"].shape == (n, OBS_SIZE) and data["masks"].shape[0] == n
    assert data["masks"][np.arange(n), data["actions"]].all()  # the teacher played legally
    assert (data["masks"].sum(axis=1) > 1).all()  # forced moves are left out
    assert np.all(np.abs(data["values"]) <= 1.0)
    model = MaskablePPO(
        "MlpPolicy",
        SingleSeatEnv(num_players=3),
        device="cpu",
        policy_kwargs={"net_arch": [32], "activation_fn": torch.nn.Tanh},
    )
    fit = pretrain(model, data, epochs=8, seed=0)
    assert fit["bc_samples"] == n
    assert fit["bc_nll"] < fit["bc_nll_before"] - 0.2
    assert fit["bc_accuracy"] > fit["bc_accuracy_before"] + 0.1
    with pytest.raises(TrainConfigError, match="bc_teacher"):
        TrainConfig(bc_teacher="nobody")


def test_shipped_reference_policy_matches_this_lab_and_plays_legally() -> None:
    """agents/policies/reference.npz is loadable (same env version, action table and
    observation layout) and plays legal games at every player count."""
    root = REPO
    path = root / "agents/policies/reference.npz"
    policy, meta = load_policy(path)  # raises CheckpointMismatchError after an env change
    # a copy of policies/ref_d1, the reference before it (ref_v7) fitted on the search's targets
    assert (meta["promoted_from"], meta["trainer"], policy.prior) == (
        "ref_d1",
        "expert_refit",
        "sprinter",
    )
    assert meta["samples"]["run"] == "runs/expert/collect_vf2p" and meta["samples"]["count"] > 0
    older, old_meta = load_policy(root / "policies/ref_v7.npz")
    assert old_meta["config"]["run_dir"] == "runs/train/reverse_stage" and old_meta["step"] > 0
    assert older.prior == "sprinter" and not np.array_equal(older.weights[0], policy.weights[0])
    for n in (2, 3, 4, 5):
        row = play_game([f"ppo:{path}"] + ["planner"] * (n - 1), GameConfig(num_players=n), 7)
        assert row["error"] is None and row["ranks"] is not None
