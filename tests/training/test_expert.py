"""Expert iteration (`training.expert`): search self-play samples, the update, the resumable run
and `lastwill expert`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from expert_runs import REF, tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from agents.mcts import MCTSAgent  # noqa: E402
from agents.policy import load_policy  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.winchance import win_chance  # noqa: E402
from apps.cli import app  # noqa: E402
from training.expert import ExpertConfigError, ExpertError, expert  # noqa: E402
from training.expert.learn import fit, target_stats  # noqa: E402
from training.expert.selfplay import pack, play  # noqa: E402

# a start whose critic was trained with potential shaping (the reference before ref_d1)
SHAPED = "policies/ref_v7.npz"


def test_win_chance_maps_the_zero_sum_reward():
    assert win_chance(1.0, 3) == 1.0
    assert win_chance(-0.5, 3) == pytest.approx(0.0)
    assert win_chance(0.0, 2) == 0.5


@pytest.mark.parametrize("n", [2, 4])
def test_self_play_samples_every_searched_decision(n):
    rec = play(MCTSAgent(policy=REF, sims=3, seed=1), n, seed=7, explore=2)
    assert rec.samples and rec.decisions > len(rec.samples)  # forced moves are not samples
    winners = [s for s in range(n) if rec.ranks[s] == 1]
    for s in rec.samples:
        assert len(s.legal) > 1 and s.legal == sorted(s.legal)
        assert sum(s.visits) == 3  # every simulation leaves the root through one action
        assert s.result == (1.0 if s.seat in winners else -1.0 / (n - 1))
        assert np.all(np.diff(s.idx) > 0) and np.all(s.vals != 0)
        assert s.prior in s.legal  # the reference plays over the sprinter
    assert {s.seat for s in rec.samples} == set(range(n))


def test_self_play_with_root_noise_explores_and_keeps_the_network_s_choice():
    plain = play(MCTSAgent(policy=REF, sims=8, seed=1), 2, seed=7, explore=0)
    noisy = play(MCTSAgent(policy=REF, sims=8, seed=1, noise=0.5, alpha=1.0), 2, seed=7, explore=0)
    first = min(len(plain.samples), len(noisy.samples), 20)
    # the same first position: the network's own choice does not depend on the noise
    assert plain.samples[0].net_choice == noisy.samples[0].net_choice

    def moves_visited(rec) -> int:
        return sum(sum(1 for v in x.visits if v) for x in rec.samples[:first])

    assert moves_visited(noisy) > moves_visited(plain)


def test_self_play_workers_give_the_same_samples(tmp_path: Path):
    from training.expert.loop import self_play

    cfg = tiny(tmp_path / "one", games=3, sims=3, num_players=[2, 3], player_weights=[1.0, 1.0])
    two = tiny(tmp_path / "two", games=3, sims=3, num_players=[2, 3], player_weights=[1.0, 1.0])
    two.workers = 2
    a, _ = self_play(cfg, tmp_path / "one", 1)
    b, speed = self_play(two, tmp_path / "two", 1)
    assert a.keys() == b.keys() and len(a["n"]) > 0 and set(a["n"].tolist()) <= {2, 3}
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    assert speed["samples"] == len(b["n"])


def test_playout_cap_keeps_only_the_full_searches():
    full = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, seed=7, explore=2)
    same = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, full_share=1.0, fast_sims=2)
    assert [x.visits for x in same.samples] == [x.visits for x in full.samples] and not same.fast
    rec = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, full_share=0.3, fast_sims=2)
    searched = len(rec.samples) + rec.fast
    assert rec.samples and rec.fast > len(rec.samples)  # about 70% of decisions are cheap
    assert all(sum(x.visits) == 6 for x in rec.samples)  # every sample is a full search
    assert rec.sims == 6 * len(rec.samples) + 2 * rec.fast
    assert rec.decisions > searched  # forced moves are searched by neither
    again = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, full_share=0.3, fast_sims=2)
    assert [x.visits for x in again.samples] == [x.visits for x in rec.samples]


def test_policy_priors_are_the_search_s_root_priors_and_leave_its_stream():
    """`policy_priors` reads what a search from the view starts from, without drawing from the
    agent's generator (its searches stay what they were)."""
    from lastwill_env.engine import GameConfig, legal_actions, new_game, player_view

    s = new_game(GameConfig(num_players=3), 11)
    view = player_view(s, s.cur)
    a, b = MCTSAgent(policy=REF, sims=4, seed=2), MCTSAgent(policy=REF, sims=4, seed=2)
    priors = a.policy_priors(view)
    assert set(priors) == set(legal_actions(s)) and sum(priors.values()) == pytest.approx(1.0)
    root_a, root_b = a.search(view), b.search(view)
    assert a.root_prior == pytest.approx(priors)
    assert root_a.edge_n == root_b.edge_n and a.rng.random() == b.rng.random()


def test_searching_where_unsure_keeps_only_the_unsure_decisions(monkeypatch):
    """With `full_below`, a decision is searched in full (and kept) exactly when the network's
    top move is less likely than that; the others get the cheap search."""
    tops: list[float] = []
    read = MCTSAgent.policy_priors

    def recorded(self, view):
        priors = read(self, view)
        tops.append(max(priors.values()))
        return priors

    monkeypatch.setattr(MCTSAgent, "policy_priors", recorded)
    plain = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, full_below=1.0, fast_sims=2)
    assert tops == [] and not plain.fast  # at 1 the priors are not read
    rec = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, full_below=0.8, fast_sims=2)
    unsure = sum(t < 0.8 for t in tops)
    assert 0 < unsure < len(tops) == len(rec.samples) + rec.fast
    assert len(rec.samples) == unsure and rec.fast == len(tops) - unsure
    assert all(sum(x.visits) == 6 for x in rec.samples)
    assert rec.sims == 6 * len(rec.samples) + 2 * rec.fast
    tops.clear()  # with a coin as well: only the decisions that pass it read the priors
    both = play(MCTSAgent(policy=REF, sims=6, seed=1), 2, 7, 2, 0.5, 2, full_below=0.8)
    assert len(tops) < len(both.samples) + both.fast
    assert len(both.samples) == sum(t < 0.8 for t in tops)


def test_completed_q_targets_are_the_improved_policy_and_play_the_same_game():
    """With `policy_target = "completed_q"` each sample's target is a distribution that moves
    the network's priors towards the moves the search scored higher; the moves played (the
    most visited) and the samples' positions are those of the visit targets."""
    counts = play(MCTSAgent(policy=REF, sims=8, seed=1), 2, 7, 2)
    improved = play(MCTSAgent(policy=REF, sims=8, seed=1), 2, 7, 2, policy_target="completed_q")
    assert counts.ranks == improved.ranks and len(counts.samples) == len(improved.samples)
    moved = 0
    for a, b in zip(counts.samples, improved.samples, strict=True):
        assert a.legal == b.legal and np.array_equal(a.idx, b.idx)
        assert sum(b.visits) == pytest.approx(1.0) and min(b.visits) > 0.0
        assert sum(a.visits) == 8 and all(float(v).is_integer() for v in a.visits)
        moved += max(abs(x - y / 8) for x, y in zip(b.visits, a.visits, strict=True)) > 1e-3
    assert moved > 0
    with pytest.raises(ValueError, match="policy_target='best'"):
        play(MCTSAgent(policy=REF, sims=2, seed=1), 2, 7, 2, policy_target="best")


def test_playout_cap_gives_the_same_samples_with_workers(tmp_path: Path):
    from training.expert.loop import self_play

    cap = dict(games=2, sims=4, full_share=0.5, fast_sims=1)
    a, speed_a = self_play(tiny(tmp_path / "one", **cap), tmp_path / "one", 1)
    two = tiny(tmp_path / "two", **cap)
    two.workers = 2
    b, speed_b = self_play(two, tmp_path / "two", 1)
    assert speed_a["fast_searches"] == speed_b["fast_searches"] > 0
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    assert a["visits"][: a["legal_len"][0]].sum() == 4  # the first sample: a full search


def test_self_play_is_a_function_of_its_seed():
    def digest(seed):
        data = pack(play(MCTSAgent(policy=REF, sims=3, seed=1), 2, seed=seed).samples)
        return hashlib.sha256(b"".join(data[k].tobytes() for k in sorted(data))).hexdigest()

    assert digest(5) == digest(5) != digest(6)


def test_the_update_learns_the_search_targets():
    import torch

    from training.allseat import build_model, make_optimizer
    from training.expert.loop import _train_config

    pol, _ = load_policy(REF, need_value=True)
    data = pack(play(MCTSAgent(policy=REF, sims=6, seed=2), 2, seed=3, explore=100).samples)
    stats = target_stats(data)
    assert 0.0 <= stats["disagreement"] <= 1.0 and stats["target_entropy"] >= 0.0
    tcfg = _train_config(tiny(Path("unused"), learning_rate=1e-3), pol)
    torch.manual_seed(0)
    model = build_model(tcfg, 0)
    model.load_actor_numpy(pol, critic=True)
    opt = make_optimizer(model, tcfg)
    out = fit(model, opt, data, epochs=6, batch_size=64, vf_coef=1.0, rng=np.random.default_rng(0))
    assert out["value_loss"] < out["value_loss_before"]
    assert out["policy_loss"] < out["policy_loss_before"]


def test_minibatches_hold_each_sample_s_own_observation_mask_and_visits():
    """The gathered minibatch against the samples themselves, row by row, in a shuffled order."""
    from training.allseat import sparse_batch
    from training.expert.learn import Minibatches

    samples = play(MCTSAgent(policy=REF, sims=6, seed=2), 3, seed=4, explore=100).samples
    samples[1].visits = [0] * len(samples[1].visits)  # a sample without visits: target 0
    data = pack(samples)
    rows = np.random.default_rng(0).permutation(len(samples))[:40]
    b = Minibatches(data).batch(rows)
    want = sparse_batch([(samples[r].idx, samples[r].vals) for r in rows])
    for got, exp in zip(b["sparse"], want, strict=True):
        assert got.dtype == exp.dtype and bool((got == exp).all())
    for j, r in enumerate(rows):
        s = samples[r]
        legal = np.asarray(s.legal)
        assert set(np.flatnonzero(b["masks"][j].numpy())) == set(legal.tolist())
        v = np.asarray(s.visits, dtype=np.float32)
        exp_t = v / max(float(v.sum()), 1.0)
        assert np.array_equal(b["target"][j].numpy()[legal], exp_t)
        assert float(b["target"][j].sum()) == pytest.approx(1.0 if v.sum() else 0.0, abs=1e-6)
        assert int(b["prior"][j]) == s.prior and float(b["result"][j]) == np.float32(s.result)


def test_the_anchor_keeps_the_network_near_its_start():
    import torch

    from training.allseat import build_model, make_optimizer
    from training.expert.learn import Minibatches, losses
    from training.expert.loop import _start_network, _train_config

    pol, _ = load_policy(REF, need_value=True)
    data = pack(play(MCTSAgent(policy=REF, sims=6, seed=2), 2, seed=3, explore=100).samples)
    cfg = tiny(Path("unused"), learning_rate=3e-3)
    tcfg = _train_config(cfg, pol)
    start = _start_network(cfg, tcfg)
    assert not any(p.requires_grad for p in start.parameters())
    kls = {}
    for coef in (0.0, 20.0):
        torch.manual_seed(0)
        model = build_model(tcfg, 0)
        model.load_actor_numpy(pol, critic=True)
        with torch.no_grad():  # the start network is its own anchor: KL 0
            b = Minibatches(data).batch(np.arange(len(data["n"])))
            assert float(losses(model, b, start)[3]) == pytest.approx(0.0, abs=1e-6)
        out = fit(
            model,
            make_optimizer(model, tcfg),
            data,
            epochs=8,
            batch_size=64,
            vf_coef=1.0,
            rng=np.random.default_rng(0),
            anchor=start,
            anchor_coef=coef,
        )
        assert ("anchor_kl" in out) == (coef > 0)
        with torch.no_grad():
            kls[coef] = float(losses(model, b, start)[3])
    assert kls[0.0] > 0 and kls[20.0] < kls[0.0]


def test_a_run_writes_checkpoints_that_play_and_resumes(tmp_path: Path):
    run = tmp_path / "run"
    st = expert(tiny(run, init_policy=SHAPED))
    assert st["iteration"] == 2 and [r["iteration"] for r in st["history"]] == [1, 2]
    saved = json.loads((run / "state.json").read_text())
    assert saved["iteration"] == 2 and saved["best"]["checkpoint"].startswith("checkpoints/")
    for k in (0, 1, 2):
        assert (run / "checkpoints" / f"iter_{k}.npz").exists()
    side = json.loads((run / "checkpoints" / "iter_2.json").read_text())
    assert side["config"]["reward"] == "zero_sum" and side["config"]["shaping"] == 0.0
    # the start network keeps the scale its critic was trained on (ref_v7's shaping)
    start = json.loads((run / "checkpoints" / "iter_0.json").read_text())["config"]
    ref = json.loads(Path(SHAPED).with_suffix(".json").read_text())["config"]
    assert ref["shaping"] > 0 and (start["reward"], start["shaping"]) == (
        ref["reward"],
        ref["shaping"],
    )
    assert side["trainer"] == "expert_iteration"
    make_agent(f"ppo:{run / 'checkpoints' / 'iter_2.npz'}")  # plays without search
    MCTSAgent(policy=str(run / "best.npz"), sims=2)  # and inside it
    # the run loop's state (mode, step, checkpoint) beside expert iteration's entries
    assert (saved["mode"], saved["step"], saved["checkpoint"]) == (
        "expert",
        2,
        "checkpoints/iter_2.npz",
    )
    assert saved["best"]["iteration"] == saved["best"]["step"]
    assert [e["step"] for e in saved["evals"]] == [0, 1, 2]
    assert json.loads((run / "config.json").read_text())["sims"] == 4
    with pytest.raises(ExpertError, match="already holds a run.*--resume.*--force"):
        expert(tiny(run, init_policy=SHAPED))
    with pytest.raises(ExpertError, match=r"settings differ .*'sims'"):
        expert(tiny(run, init_policy=SHAPED, iterations=3, sims=5), resume=True)
    st = expert(tiny(run, init_policy=SHAPED, iterations=3), resume=True)
    assert st["iteration"] == 3 and len(st["history"]) == 3
    # a run begun before a setting existed resumes: the setting reads at its default
    saved = json.loads((run / "state.json").read_text())
    del saved["config"]["full_below"]
    (run / "state.json").write_text(json.dumps(saved))
    assert expert(tiny(run, init_policy=SHAPED, iterations=4), resume=True)["iteration"] == 4
    tags = _tb_tags(run / "tb")
    assert {"expert/policy_loss", "expert/value_loss", "expert/disagreement"} <= tags
    assert "eval/win_rate/2p" in tags


def _tb_tags(path: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(path))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_a_run_with_an_anchor_reports_its_divergence(tmp_path: Path):
    st = expert(tiny(tmp_path / "run", iterations=1, anchor_coef=1.0, eval_every=0))
    assert st["history"][0]["anchor_kl"] >= 0.0
    st = expert(tiny(tmp_path / "plain", iterations=1, eval_every=0))
    assert "anchor_kl" not in st["history"][0]


def test_a_run_learns_completed_q_targets(tmp_path: Path):
    run = tmp_path / "run"
    st = expert(tiny(run, iterations=1, eval_every=0, policy_target="completed_q"))
    data = np.load(run / "samples" / "iter_1.npz")
    starts = np.concatenate([[0], np.cumsum(data["legal_len"])])
    sums = np.add.reduceat(data["visits"], starts[:-1])
    assert np.allclose(sums, 1.0, atol=1e-5)  # distributions, not counts
    assert st["history"][0]["iteration"] == 1 and (run / "checkpoints/iter_1.npz").exists()


def test_a_run_that_never_trains_the_critic_keeps_its_scale(tmp_path: Path):
    run = tmp_path / "run"
    expert(tiny(run, iterations=1, vf_coef=0.0, eval_every=0))
    ref = json.loads(Path(REF).with_suffix(".json").read_text())["config"]
    side = json.loads((run / "checkpoints" / "iter_1.json").read_text())["config"]
    assert (side["reward"], side["shaping"]) == (ref["reward"], ref["shaping"])
    from agents.leafeval import LeafEvaluator

    pol, meta = load_policy(str(run / "checkpoints" / "iter_1.npz"), need_value=True)
    assert LeafEvaluator(pol, meta).shaping == ref["shaping"]


def test_a_collecting_run_searches_over_the_start_network_every_iteration(tmp_path: Path):
    run, learner = tmp_path / "collect", tmp_path / "learn"
    st = expert(tiny(run, iterations=2, epochs=0))
    expert(tiny(learner, iterations=2))
    assert st["iteration"] == 2 and "policy_loss" not in st["history"][1]
    ckpts = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert ckpts == ["iter_0.json", "iter_0.npz", "iter_0.pt"]  # only the start
    assert sorted(p.name for p in (run / "eval").iterdir()) == ["iter_0.jsonl"]
    # iteration 2 searched over the start, as iteration 1 did; the learner's over its update
    same_seed = tmp_path / "again"
    expert(tiny(same_seed, iterations=2, epochs=0))
    for k in (1, 2):
        a = (run / f"samples/iter_{k}.npz").read_bytes()
        assert a == (same_seed / f"samples/iter_{k}.npz").read_bytes()
    first, second = (
        {k: v for k, v in np.load(d / "samples/iter_2.npz").items()} for d in (run, learner)
    )
    assert not all(np.array_equal(first[k], second[k]) for k in first)
    # it resumes without learner states, and more iterations only add samples
    st = expert(tiny(run, iterations=3, epochs=0), resume=True)
    assert st["iteration"] == 3 and (run / "samples/iter_3.npz").exists()
    assert not (run / "checkpoints/iter_3.npz").exists()


def test_the_shipped_collecting_config_reads_as_a_collecting_run():
    from apps.expert_cli import _read_toml
    from training.expert.config import ExpertConfig

    cfg = ExpertConfig.from_dict(_read_toml(Path("training/configs/collect_vf2p.toml")))
    assert cfg.epochs == 0 and cfg.full_below < 1 and Path(cfg.init_policy).is_file()


def test_an_interrupted_iteration_gives_the_same_samples_again(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    expert(tiny(a, iterations=1))
    expert(tiny(b, iterations=1))
    assert (a / "samples/iter_1.npz").read_bytes() == (b / "samples/iter_1.npz").read_bytes()


@pytest.mark.parametrize(
    "over, says",
    [
        ({"sims": 0}, "sims=0 is not allowed; use an integer from 1"),
        ({"epochs": -1}, "epochs=-1 is not allowed; use an integer from 0 to 1000"),
        ({"num_players": [6]}, "num_players=[6] is not allowed"),
        ({"player_weights": [1.0, 1.0]}, "player_weights="),
        ({"learning_rate": float("nan")}, "learning_rate=nan is not allowed"),
        ({"eval_bots": []}, "eval_bots=[] is not allowed"),
        ({"noise": 1.5}, "noise=1.5 is not allowed; use a number from 0.0 to 1.0"),
        ({"alpha": 0}, "alpha=0 is not allowed; use a number from 0.001"),
        ({"workers": 0}, "workers=0 is not allowed; use an integer from 1"),
        ({"anchor_coef": -1.0}, "anchor_coef=-1.0 is not allowed; use a number from 0.0"),
        ({"full_share": 0.0}, "full_share=0.0 is not allowed; use a number from 0.01 to 1.0"),
        ({"full_below": 1.5}, "full_below=1.5 is not allowed; use a number from 0.01 to 1.0"),
        ({"policy_target": "best"}, "policy_target='best' is not allowed; use one of visits"),
        (
            {"full_below": 0.8, "fast_sims": 5},
            "fast_sims=5 is not allowed; use an integer from 1 to sims \\(4\\)",
        ),
        (
            {"full_share": 0.5, "fast_sims": 5},
            "fast_sims=5 is not allowed; use an integer from 1 to sims \\(4\\)",
        ),
    ],
)
def test_bad_settings_are_refused_by_name(tmp_path: Path, over, says):
    with pytest.raises(ExpertConfigError, match=says.replace("[", r"\[").replace("]", r"\]")):
        tiny(tmp_path, **over)


def test_the_command_refuses_bad_input_with_exit_code_2(tmp_path: Path):
    r = CliRunner().invoke(app, ["expert", "--run-dir", str(tmp_path / "x"), "--sims", "0"])
    assert r.exit_code == 2 and "sims=0 is not allowed" in r.output
    r = CliRunner().invoke(app, ["expert", "--run-dir", str(tmp_path / "y"), "--resume"])
    assert r.exit_code == 2 and "holds no expert-iteration run" in r.output
    r = CliRunner().invoke(
        app,
        [
            "expert",
            "--run-dir",
            str(tmp_path / "z"),
            "--sims",
            "8",
            "--full-share",
            "0.5",
            "--fast-sims",
            "9",
        ],
    )
    assert r.exit_code == 2 and "fast_sims=9 is not allowed" in r.output
    r = CliRunner().invoke(app, ["expert", "--run-dir", str(tmp_path / "w"), "--full-below", "0"])
    assert r.exit_code == 2 and "full_below=0.0 is not allowed" in r.output
    assert not (tmp_path / "w").exists()
    r = CliRunner().invoke(app, ["expert", "--num-players", "2,x"])
    assert r.exit_code == 2 and "comma-separated integers" in r.output


def test_self_play_reads_the_search_s_public_count_of_simulations():
    import inspect

    from lastwill_env.engine import GameConfig, new_game, player_view
    from training.expert import selfplay

    s = new_game(GameConfig(num_players=2), 3)
    agent = MCTSAgent(policy=REF, sims=5, seed=1)
    assert agent.sims_done == 0
    agent.search(player_view(s, s.cur))
    assert agent.sims_done == 5
    agent.search(player_view(s, s.cur), sims=2)
    assert agent.sims_done == 2
    assert "_sims_done" not in inspect.getsource(selfplay)
