"""All-seat self-play (training/allseat/).

Per-seat trajectories hold only that seat's decisions and its own terminal reward; GAE never
crosses seats; masks stored at collection are applied in the update; a tiny run writes eval
tags and a checkpoint, resumes, plays as `ppo:PATH`; the same seed gives the same weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.arena import play_game  # noqa: E402
from lastwill_env.encoding import piece_slices, terminal_rewards  # noqa: E402
from lastwill_env.engine import NUM_ACTIONS, GameConfig  # noqa: E402
from training.allseat import (  # noqa: E402
    LEARNER,
    Rollout,
    SeatTrajectory,
    build_model,
    flatten,
    make_optimizer,
    ppo_update,
    seat_gae,
    sparse_batch,
    trajectory_rewards,
)
from training.config import TrainConfig  # noqa: E402
from training.train import resume_config, train  # noqa: E402

TO_ACT = piece_slices()["to_act"]


def _cfg(**kw) -> TrainConfig:
    base = dict(
        mode="all_seat",
        num_players=[3],
        player_weights=[1.0],
        net_arch=[16, 16],
        n_games=4,
        n_steps=64,
        n_envs=1,
        batch_size=64,
        n_epochs=1,
        p_latest=1.0,
        p_bots_min=0.0,
        bots=["greedy"],
        eval_bots=["greedy"],
        progress=False,
        torch_threads=1,
    )
    base.update(kw)
    return TrainConfig(**base)


def _dense(row) -> np.ndarray:
    idx, vals = row
    x = np.zeros(TO_ACT.stop + 10, dtype=np.float32)
    keep = idx < len(x)
    x[idx[keep]] = vals[keep]
    return x


def test_each_seat_trajectory_holds_only_its_own_decisions_and_reward():
    """One 3-player game, every seat the learner: seat p's samples are exactly its decisions
    with more than one legal action, each seen from p (to_act = relative seat 0), and its
    terminal reward is its own rank's reward."""
    from lastwill_env.engine import legal_actions, new_game

    cfg = _cfg(n_games=1)
    model = build_model(cfg, 0)
    roll = Rollout(cfg, seed=3)
    started = []
    make = roll.new_game
    roll.new_game = lambda: started.append(make()) or started[-1]
    trajs, games = roll.collect(model, target=1)  # one game: it alone reaches the target
    assert len(started) == 1 and len(games) == 1 and len(trajs) == 3
    played = started[0].state
    ranks = played.results["ranks"]
    finals = terminal_rewards(ranks, cfg.reward)
    s = new_game(GameConfig(num_players=3), played.seed)
    own: dict[int, list[int]] = {0: [], 1: [], 2: []}
    for a in played.history:
        if len(legal_actions(s)) > 1:
            own[s.cur].append(a)
        s.apply_action(a)
    assert s.results["ranks"] == ranks == games[0]["ranks"]
    for t in trajs:
        seat = t["seat"]
        assert t["actions"] == own[seat] and len(own[seat]) > 5
        assert t["final"] == finals[seat]
        assert t["rewards"][-1] == pytest.approx(finals[seat])  # shaping is off here
        assert not t["rewards"][:-1].any()
        for row in t["obs"]:
            assert np.flatnonzero(_dense(row)[TO_ACT]).tolist() == [0]


def test_gae_of_one_seat_ignores_the_other_seats_rewards():
    values = np.array([0.1, 0.2, -0.1], dtype=np.float32)
    a = SeatTrajectory(actions=[1, 2, 3], phis=[0.0, 0.1, 0.2])
    r_win = trajectory_rewards(a, 1.0, 0.5, 0.99)
    adv, ret = seat_gae(r_win, values, 0.99, 0.95)
    # by hand: delta_t = r_t + gamma V_{t+1} - V_t, V_3 = 0; A_t = delta_t + gamma lam A_{t+1}
    r = [0.5 * (0.99 * 0.1 - 0.0), 0.5 * (0.99 * 0.2 - 0.1), 0.5 * (0.0 - 0.2) + 1.0]
    d = [r[0] + 0.99 * 0.2 - 0.1, r[1] + 0.99 * -0.1 - 0.2, r[2] - -0.1]
    a2 = d[2]
    a1 = d[1] + 0.99 * 0.95 * a2
    a0 = d[0] + 0.99 * 0.95 * a1
    np.testing.assert_allclose(adv, [a0, a1, a2], rtol=1e-5)
    np.testing.assert_allclose(ret, adv + values, rtol=1e-6)
    # another seat's trajectory of the same game, win or lose, is computed on its own
    b = SeatTrajectory(actions=[4, 5], phis=[0.3, 0.0])
    for other_final in (1.0, -0.5):
        trajectory_rewards(b, other_final, 0.5, 0.99)
        again, _ = seat_gae(trajectory_rewards(a, 1.0, 0.5, 0.99), values, 0.99, 0.95)
        np.testing.assert_array_equal(again, adv)


def test_rollout_samples_are_on_policy_and_legal_and_seats_come_from_the_pool():
    cfg = _cfg(num_players=[4], p_latest=0.0, p_bots_min=1.0, n_games=3, n_steps=200)
    model = build_model(cfg, 0)
    roll = Rollout(cfg, seed=1)
    trajs, games = roll.collect(model, target=cfg.n_steps)
    buf = flatten(trajs)
    n = len(buf["actions"])
    assert n >= cfg.n_steps
    assert buf["masks"][np.arange(n), buf["actions"]].all()  # every sampled action was legal
    for g in games:  # p_bots_min = 1: one learner seat, the others bots
        assert sum(1 for i in g["ids"] if i == LEARNER) == 1
        assert all(i == LEARNER or i.startswith("bot:") for i in g["ids"])
    # every trajectory is complete: its game ended and it was scored
    assert {t["num_players"] for t in trajs} == {4}
    assert not roll.games


def test_bot_tables_seat_one_learner_against_copies_of_one_bot():
    """p_bot_table = 1: every game is the evaluation's table, n-1 copies of one pool bot."""
    cfg = _cfg(num_players=[4], p_bot_table=1.0, bots=["greedy", "random"], n_games=6)
    roll = Rollout(cfg, seed=5)
    seen = set()
    for _ in range(12):
        g = roll.new_game()
        others = [i for i in g.ids if i != LEARNER]
        assert len(others) == 3 and len(set(others)) == 1, g.ids
        seen.add(others[0])
    assert seen == {"bot:greedy", "bot:random"}
    # a bot listed twice is drawn twice as often
    roll = Rollout(_cfg(num_players=[2], p_bot_table=1.0, bots=["greedy", "greedy", "random"]), 7)
    ids = [next(i for i in roll.new_game().ids if i != LEARNER) for _ in range(600)]
    assert 0.6 < ids.count("bot:greedy") / len(ids) < 0.73
    # p_bot_table = 0 with p_latest = 1: no bot at all (the per-seat mix alone decides)
    roll = Rollout(_cfg(num_players=[4], p_bot_table=0.0, bots=["greedy"]), seed=5)
    assert all(set(roll.new_game().ids) == {LEARNER} for _ in range(12))


def test_reverse_tables_seat_one_bot_against_the_learner_everywhere_else():
    """p_bot_seat = 1: every game is the reverse table, one pool bot and n-1 learner seats,
    with the bot at every seat but the one drawn as the learner's own."""
    cfg = _cfg(num_players=[4], p_bot_seat=1.0, bots=["greedy", "random"], n_games=6)
    roll = Rollout(cfg, seed=5)
    bots, seats = set(), set()
    for _ in range(40):
        g = roll.new_game()
        others = [(p, i) for p, i in enumerate(g.ids) if i != LEARNER]
        assert len(others) == 1, g.ids
        assert sorted(g.traj) == [p for p in range(4) if p != others[0][0]]
        bots.add(others[0][1])
        seats.add(others[0][0])
    assert bots == {"bot:greedy", "bot:random"} and seats == {0, 1, 2, 3}
    # shared with bot tables: a quarter of the games each, the rest from the per-seat mix
    roll = Rollout(_cfg(num_players=[3], p_bot_table=0.25, p_bot_seat=0.25, bots=["greedy"]), 3)
    kinds = [sum(i != LEARNER for i in roll.new_game().ids) for _ in range(800)]
    assert 0.19 < kinds.count(2) / 800 < 0.31 and 0.19 < kinds.count(1) / 800 < 0.31
    assert kinds.count(0) + kinds.count(1) + kinds.count(2) == 800


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"p_bot_seat": 0.7, "p_bot_table": 0.4}, r"p_bot_seat.*at most 1 - p_bot_table = 0.6"),
        ({"p_bot_seat": 0.2, "bots": [], "p_bots_min": 0.0}, r"bots.*p_bot_seat > 0"),
        ({"p_bot_seat": -0.1}, r"p_bot_seat"),
    ],
)
def test_reverse_table_settings_are_checked(kw, match):
    with pytest.raises(ValueError, match=match):
        _cfg(**kw)
    with pytest.raises(ValueError, match=r'p_bot_seat.*mode = "all_seat"'):
        TrainConfig(mode="single_seat", p_bot_seat=0.2)


def test_masks_are_stored_and_applied_in_the_update():
    """An action masked out at collection time has zero probability in the update."""
    cfg = _cfg()
    model = build_model(cfg, 0)
    idx = torch.tensor([0, 5, 9], dtype=torch.int64)
    vals = torch.tensor([1.0, 0.5, -0.2])
    offsets = torch.tensor([0])
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    mask[0, [0, 7]] = True
    with torch.no_grad():
        model.action_net.bias[3] = 50.0  # the network would love action 3
        _, logp_masked, ent = model.evaluate(idx, vals, offsets, mask, torch.tensor([3]))
        _, logp_legal, _ = model.evaluate(idx, vals, offsets, mask, torch.tensor([7]))
        logits, _ = model(idx, vals, offsets, mask)
    probs = torch.softmax(logits, -1)[0]
    assert float(probs[3]) == 0.0 and float(probs[[0, 7]].sum()) == pytest.approx(1.0)
    assert float(logp_masked) < -1e6 and float(logp_legal) > -5
    assert 0.0 <= float(ent) <= np.log(2) + 1e-6
    # and the PPO update reads the stored masks: a buffer whose masks allow only the taken
    # actions has policy probability 1 for them, whatever the weights
    roll = Rollout(cfg, seed=2)
    trajs, _ = roll.collect(model, target=32)
    buf = flatten(trajs)
    only = np.zeros_like(buf["masks"])
    only[np.arange(len(only)), buf["actions"]] = True
    rows = sparse_batch(buf["obs"])
    with torch.no_grad():
        _, lp, ent = model.evaluate(*rows, torch.as_tensor(only), torch.as_tensor(buf["actions"]))
    assert torch.allclose(lp, torch.zeros_like(lp)) and torch.allclose(ent, torch.zeros_like(ent))


def test_kickstarting_records_the_teachers_choices_and_pulls_the_policy_towards_them():
    """Every learner sample carries the teacher's own choice from that seat's view; updates
    with only the kickstarting term (PPO terms off) raise the teacher's choices' probability,
    and the weight decays linearly to 0."""
    from agents.registry import make_agent
    from training.allseat.loop import kickstart_weight

    cfg = _cfg(kickstart_teacher="greedy", kickstart_coef=1.0, kickstart_steps=1000)
    assert [kickstart_weight(cfg, s) for s in (0, 500, 1000, 5000)] == [1.0, 0.5, 0.0, 0.0]
    assert kickstart_weight(_cfg(), 0) == 0.0
    model = build_model(cfg, 0)
    roll = Rollout(cfg, seed=4)
    asked = []  # (seat of the view, legal actions, the teacher's answer) per question

    class Recording:
        def __init__(self, inner):
            self.inner = inner

        def act(self, view, legal):
            a = self.inner.act(view, legal)
            asked.append((view.to_act, tuple(legal), a))
            return a

    roll.teacher = Recording(make_agent("greedy", seed=0))
    trajs, _ = roll.collect(model, target=200)
    buf = flatten(trajs)
    n = len(buf["actions"])
    assert (buf["teacher"] >= 0).all() and buf["masks"][np.arange(n), buf["teacher"]].all()
    # one question per learner sample, asked from that seat's own view, its answers stored
    assert len(asked) == n
    assert sorted(a for _, _, a in asked) == sorted(buf["teacher"].tolist())
    assert all(to_act == 0 for to_act, _, _ in asked)  # the view of the seat that decides
    for t in trajs:
        assert len(t["teacher"]) == len(t["actions"])

    def teacher_logp() -> float:
        rows = sparse_batch(buf["obs"])
        with torch.no_grad():
            _, lp, _ = model.evaluate(
                *rows, torch.as_tensor(buf["masks"]), torch.as_tensor(buf["teacher"])
            )
        return float(lp.mean())

    before = teacher_logp()
    quiet = _cfg(kickstart_teacher="greedy", kickstart_coef=1.0, n_epochs=3, ent_coef=0.0,
                 vf_coef=0.0, clip_range=1e-9, learning_rate=3e-3)  # fmt: skip
    zero = dict(buf, advantages=np.zeros_like(buf["advantages"]))  # no policy-gradient signal
    opt = make_optimizer(model, quiet)
    stats = ppo_update(model, opt, zero, quiet, np.random.default_rng(0), kickstart=1.0)
    assert stats["kickstart_loss"] > 0 and teacher_logp() > before + 0.1
    # without the teacher's choices (or with weight 0) the same update leaves them alone
    model2 = build_model(cfg, 0)
    opt2 = make_optimizer(model2, cfg)
    stats2 = ppo_update(model2, opt2, zero, quiet, np.random.default_rng(0), kickstart=0.0)
    assert stats2["kickstart_loss"] == 0.0
    # the rollout stops asking once the weight is 0
    roll.teaching = False
    trajs, _ = roll.collect(model, target=50)
    assert (flatten(trajs)["teacher"] == -1).all()


def test_kickstarting_settings_are_checked():
    with pytest.raises(ValueError, match="kickstart_teacher"):
        _cfg(kickstart_coef=0.5)
    with pytest.raises(ValueError, match="kickstart_teacher"):
        _cfg(kickstart_teacher="nosuchbot", kickstart_coef=0.5)
    with pytest.raises(ValueError, match="all_seat"):
        _cfg(mode="single_seat", kickstart_teacher="greedy", kickstart_coef=0.5)
    with pytest.raises(ValueError, match="kickstart_coef"):
        _cfg(kickstart_teacher="greedy", kickstart_coef=-1.0)


def test_same_seed_same_weights():
    def weights(seed: int) -> list[np.ndarray]:
        cfg = _cfg(seed=seed)
        torch.manual_seed(seed)
        model = build_model(cfg, seed)
        opt = make_optimizer(model, cfg)
        roll = Rollout(cfg, seed=seed)
        trajs, _ = roll.collect(model, target=64)
        ppo_update(model, opt, flatten(trajs), cfg, np.random.default_rng(seed))
        return [p.detach().numpy().copy() for p in model.parameters()]

    a, b, c = weights(5), weights(5), weights(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def _tb_tags(run: Path, sub: str = "") -> dict[str, list[int]]:
    """The steps of each scalar of the run's TensorBoard run, or of its sub-run `sub`."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(run / "tb" / "PPO_1" / sub))
    ea.Reload()
    return {t: [e.step for e in ea.Scalars(t)] for t in ea.Tags()["scalars"]}


def test_tiny_all_seat_run_evaluates_checkpoints_resumes_and_plays(tmp_path: Path):
    run = tmp_path / "run"
    cfg = _cfg(
        run_dir=str(run),
        total_steps=1500,
        n_steps=300,
        batch_size=128,
        p_latest=0.6,
        p_bots_min=0.2,
        bots=["greedy", "random"],
        eval_bots=["greedy", "planner"],
        eval_every=600,
        checkpoint_every=600,
        snapshot_every=400,
        eval_games=3,
        shaping=1.0,
    )
    state = train(cfg)
    assert state["step"] >= 1500 and state["invalid_actions"] == 0
    # every evaluation records the run's wall-clock time so far, which grows
    walls = [e["wall_seconds"] for e in state["evals"]]
    assert len(walls) >= 2 and 0 < walls[0] < walls[-1] <= state["wall_seconds"]
    # and its process's CPU seconds, the budget of a from-scratch table
    cpus = [e["cpu_seconds"] for e in state["evals"]]
    assert 0 < cpus[0] < cpus[-1] <= state["cpu_seconds"]
    tags = _tb_tags(run)
    for bot in ("greedy", "planner"):
        bot_tags = _tb_tags(run, f"vs_{bot}")
        for k in ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank"):
            assert len(bot_tags[f"eval/{k}/{cfg.eval_counts()[0]}p"]) >= 2
    for tag in ("time/sps", "time/update_sps", "rollout/invalid_action_rate", "train/approx_kl"):
        assert tag in tags
    ckpt = run / state["checkpoint"]
    assert ckpt.suffix == ".npz" and ckpt.with_suffix(".pt").exists()
    meta = json.loads(ckpt.with_suffix(".json").read_text())
    assert meta["learner"] == "all_seat" and meta["step"] == state["step"]
    assert (run / "best.npz").exists() and (run / "best.json").exists()
    pool = json.loads((run / "pool.json").read_text())
    assert pool["snapshots"], "snapshots enter the pool"
    # resume continues the step count and the same TensorBoard run
    before = state["step"]
    state2 = train(resume_config(run, total_steps=before + 400), resume=True)
    assert state2["step"] >= before + 400
    assert state2["wall_seconds"] > state["wall_seconds"]  # summed over the sessions
    assert state2["cpu_seconds"] > state["cpu_seconds"]
    tags2 = _tb_tags(run)
    assert max(tags2["time/sps"]) > max(tags["time/sps"])
    # the checkpoint plays in the arena through ppo:PATH, legal actions only
    final = run / state2["checkpoint"]
    for n in (2, 4):
        row = play_game([f"ppo:{final}"] + ["greedy"] * (n - 1), GameConfig(num_players=n), 3)
        assert row["error"] is None and row["ranks"] is not None


def test_checkpoint_weights_carry_the_critic():
    """`actor_numpy(critic=True)` (what checkpoints hold) gives the network's own logits and
    value on dense observations, so `lastwill view` can show the value estimate."""
    model = build_model(_cfg(), seed=3)
    pol = model.actor_numpy(critic=True)
    assert pol.has_value and not model.actor_numpy().has_value
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(4):
        idx = np.sort(rng.choice(model.first.num_embeddings, size=40, replace=False))
        rows.append((idx.astype(np.int64), rng.uniform(-1, 1, 40).astype(np.float32)))
    masks = torch.ones((4, NUM_ACTIONS), dtype=torch.bool)
    with torch.no_grad():
        logits, values = model(*sparse_batch(rows), masks)
    for i, (idx, vals) in enumerate(rows):
        x = np.zeros(model.first.num_embeddings, dtype=np.float32)
        x[idx] = vals
        assert pol.value(x) == pytest.approx(float(values[i]), abs=1e-4)
        assert np.allclose(pol.logits(x), logits[i].numpy(), atol=1e-4)


def test_a_second_stage_starts_from_the_run_directory_of_the_first(tmp_path: Path):
    """`init_policy` naming a run directory starts from that run's last checkpoint (what
    `state.json` names), so a two-stage recipe need not know the first stage's final step."""
    from agents.policy import load_policy
    from training.allseat.loop import init_policy_path
    from training.rundir import TrainError

    first = tmp_path / "first"
    s1 = train(_cfg(run_dir=str(first), total_steps=300, n_steps=150, checkpoint_every=150))
    assert init_policy_path(str(first)) == first / s1["checkpoint"]
    second = tmp_path / "second"
    cfg2 = _cfg(
        run_dir=str(second), total_steps=1, n_steps=64, init_policy=str(first), critic_warmup=1
    )
    s2 = train(cfg2)
    assert s2["init_checkpoint"] == str(first / s1["checkpoint"])
    # one critic-only rollout leaves the actor exactly the first stage's last checkpoint
    start = load_policy(first / s1["checkpoint"])[0]
    now = load_policy(second / s2["checkpoint"])[0]
    assert all(np.array_equal(a, b) for a, b in zip(start.weights, now.weights, strict=True))
    # a directory that is not a run, and a run with no checkpoint yet, are refused by name
    empty = tmp_path / "empty"
    empty.mkdir()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    state = json.loads((first / "state.json").read_text())
    (fresh / "state.json").write_text(json.dumps({**state, "checkpoint": None}))
    for bad, why in ((empty, "not a run to start from"), (fresh, "has no checkpoint yet")):
        with pytest.raises(TrainError, match=why):
            train(_cfg(run_dir=str(tmp_path / "third"), total_steps=1, init_policy=str(bad)))
    assert not (tmp_path / "third" / "state.json").exists()


def test_a_second_stage_may_change_the_prior_only_when_asked(tmp_path: Path):
    """A start policy over another prior is refused by name unless `init_new_prior` is set;
    then its weights are kept and play over the new run's prior."""
    from agents.policy import load_policy
    from training.rundir import TrainError

    first = tmp_path / "first"
    s1 = train(_cfg(run_dir=str(first), total_steps=150, prior="racer", prior_weight=3.0))
    over = dict(prior="sprinter", prior_weight=3.0, init_policy=str(first), critic_warmup=1)
    with pytest.raises(TrainError, match="over the prior 'racer'.*init_new_prior"):
        train(_cfg(run_dir=str(tmp_path / "refused"), total_steps=1, **over))
    assert not (tmp_path / "refused" / "state.json").exists()
    second = tmp_path / "second"
    s2 = train(_cfg(run_dir=str(second), total_steps=1, init_new_prior=True, **over))
    start = load_policy(first / s1["checkpoint"])[0]
    now = load_policy(second / s2["checkpoint"])[0]
    assert (start.prior, now.prior) == ("racer", "sprinter")
    assert all(np.array_equal(a, b) for a, b in zip(start.weights, now.weights, strict=True))
    with pytest.raises(ValueError, match="init_new_prior=True is not allowed; it needs an init"):
        _cfg(init_new_prior=True)


def test_kickstarting_only_at_the_counts_it_names():
    """`kickstart_players` asks the teacher only in games of those counts; elsewhere the
    sample carries -1 (not taught). A count outside num_players is refused."""
    cfg = _cfg(
        num_players=[2, 3],
        player_weights=[1.0, 1.0],
        kickstart_teacher="greedy",
        kickstart_coef=1.0,
        kickstart_players=[3],
    )
    trajs, _ = Rollout(cfg, seed=4).collect(build_model(cfg, 0), target=300)
    buf = flatten(trajs)
    three = np.array([t["num_players"] == 3 for t in trajs for _ in t["actions"]])
    assert three.any() and (~three).any()
    assert (buf["teacher"][three] >= 0).all() and (buf["teacher"][~three] == -1).all()
    with pytest.raises(ValueError, match=r"kickstart_players.*from num_players \[2, 3\]"):
        _cfg(num_players=[2, 3], player_weights=[1.0, 1.0], kickstart_players=[4])


def test_init_critic_starts_the_critic_from_the_policy_file():
    """With `critic` the value weights of the start file are loaded as well; a file without
    them is refused."""
    from agents.policy import NumpyPolicy

    cfg = _cfg()
    src = build_model(cfg, 1).actor_numpy(critic=True)
    model = build_model(cfg, 2)
    before = model.actor_numpy(critic=True)
    model.load_actor_numpy(src)  # the actor alone
    got = model.actor_numpy(critic=True)
    assert all(np.array_equal(a, b) for a, b in zip(got.weights, src.weights, strict=True))
    assert all(
        np.array_equal(a, b) for a, b in zip(got.value_weights, before.value_weights, strict=True)
    )
    model.load_actor_numpy(src, critic=True)
    got = model.actor_numpy(critic=True)
    loaded = got.value_weights + got.value_biases
    assert all(
        np.array_equal(a, b)
        for a, b in zip(loaded, src.value_weights + src.value_biases, strict=True)
    )
    bare = NumpyPolicy(src.weights, src.biases, src.activation)
    with pytest.raises(ValueError, match="no critic"):
        model.load_actor_numpy(bare, critic=True)
    with pytest.raises(ValueError, match="init_critic=True is not allowed; it needs an init"):
        _cfg(init_critic=True)


def test_a_rollout_game_is_compared_by_identity():
    """Two games with equal fields are two games: removing a finished one from the rollout's
    list never compares whole game states (GameState.__eq__ serialises both)."""
    from lastwill_env.engine import GameConfig, new_game
    from training.allseat.rollout import Game

    state = new_game(GameConfig(num_players=2), 0)
    a = Game(state=state, ctrl=[None, None], ids=["learner", "learner"], traj={})
    b = Game(state=state.clone(), ctrl=[None, None], ids=["learner", "learner"], traj={})
    assert a.state == b.state and a != b
    games = [a, b]
    games.remove(b)
    assert games == [a] and games[0] is a


def test_gumbel_argmax_samples_as_numpys_gumbel_draw():
    """The rollout's sampler takes numpy's Gumbel noise only at the legal entries: the same
    actions as `logits + rng.gumbel(size)` over the masked logits, the same stream consumed,
    never a masked action."""
    from training.allseat.rollout import gumbel_argmax

    data = np.random.default_rng(3)
    for seed in range(30):
        logits = data.normal(0, 3, size=(40, NUM_ACTIONS)).astype(np.float32)
        masks = data.random((40, NUM_ACTIONS)) < data.uniform(0.005, 0.2)
        masks[np.arange(40), data.integers(0, NUM_ACTIONS, 40)] = True
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        acts = gumbel_argmax(logits, masks, ours)
        z = logits + theirs.gumbel(size=logits.shape).astype(np.float32)
        z[~masks] = -np.inf
        assert np.array_equal(acts, z.argmax(axis=1))
        assert masks[np.arange(40), acts].all()
        assert ours.random() == theirs.random()
    # it samples: a row with two equal legal logits picks each about half the time
    rng = np.random.default_rng(0)
    logits = np.zeros((4000, NUM_ACTIONS), dtype=np.float32)
    masks = np.zeros_like(logits, dtype=bool)
    masks[:, [5, 9]] = True
    share = float((gumbel_argmax(logits, masks, rng) == 5).mean())
    assert 0.45 < share < 0.55


def test_sparse_rows_gather_the_same_batches_as_sparse_batch():
    from training.allseat.batch import SparseRows

    cfg = _cfg(num_players=[4], n_steps=200)
    model = build_model(cfg, 0)
    trajs, _ = Rollout(cfg, 1).collect(model, cfg.n_steps)
    rows = flatten(trajs)["obs"]
    rows.insert(5, (np.zeros(0, np.int64), np.zeros(0, np.float32)))  # an empty observation
    held = SparseRows(rows)
    assert len(held) == len(rows)
    rng = np.random.default_rng(0)
    for sel in (rng.permutation(len(rows))[:64], np.array([5]), np.array([5, 0, 5]), np.arange(3)):
        ours = held.batch(sel)
        theirs = sparse_batch([rows[j] for j in sel])
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == b.dtype and torch.equal(a, b)
    flat = SparseRows.from_flat(held.idx, held.vals, held.lens)
    for sel in (rng.permutation(len(rows))[:64], np.array([5, 0, 5])):
        for a, b in zip(flat.batch(sel), held.batch(sel), strict=True):
            assert a.dtype == b.dtype and torch.equal(a, b)
    with pytest.raises(ValueError, match="do not make rows"):
        SparseRows.from_flat(held.idx, held.vals, held.lens + 1)
    with pytest.raises(ValueError, match="do not make rows"):
        SparseRows.from_flat(held.idx, held.vals[:-1], held.lens)
