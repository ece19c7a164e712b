"""TensorBoard of a real run, read back from its event files: the lab trainer writes one
sub-run per panel bot (and `chance`) under the documented tags, evaluates at step 0 and at the
last step, puts one win-rate metric per evaluated count in HParams and the warm start's fit in
a text table; evaluating never changes what is learned (same seed, same weights, however often
it evaluates); the RLlib backend's result dict maps onto the lab trainer's tags."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from training.config import TrainConfig  # noqa: E402
from training.rllib_backend import result_scalars  # noqa: E402
from training.train import train  # noqa: E402

BOTS = ["greedy", "planner:eps=0.1"]
COUNTS = [2, 3]
STATS = ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank")


def _all_seat(run: Path, **kw) -> TrainConfig:
    base = dict(
        mode="all_seat",
        num_players=[2, 3],
        player_weights=[1.0, 1.0],
        net_arch=[16],
        n_games=4,
        n_steps=64,
        n_envs=1,
        batch_size=64,
        n_epochs=1,
        p_latest=0.6,
        p_bots_min=0.2,
        bots=["greedy", "random"],
        eval_bots=BOTS,
        eval_num_players=COUNTS,
        eval_games=2,
        total_steps=500,
        eval_every=200,
        checkpoint_every=200,
        snapshot_every=200,
        bc_teacher="greedy",
        bc_games=2,
        bc_epochs=1,
        progress=False,
        torch_threads=1,
        run_dir=str(run),
    )
    return TrainConfig(**{**base, **kw})


def _read(event_dir: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(event_dir), size_guidance={"scalars": 0, "tensors": 0})
    acc.Reload()
    return acc


def _steps(acc) -> dict[str, list[int]]:
    return {t: [e.step for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory) -> tuple[Path, dict]:
    run = tmp_path_factory.mktemp("tb") / "lab"
    return run, train(_all_seat(run))


def test_one_sub_run_per_bot_with_the_documented_tags(lab_run):
    run, state = lab_run
    event_dir = run / "tb" / "PPO_1"
    subs = {p.name for p in event_dir.iterdir() if p.is_dir()}
    assert subs == {"vs_greedy", "vs_planner_eps=0.1", "chance"}
    evals = [e["step"] for e in state["evals"]]
    assert evals[0] == 0 and evals[-1] == state["step"] and state["step"] % 200 != 0
    want = {f"eval/{k}/{n}p" for k in STATS for n in COUNTS}
    for sub in subs:
        steps = _steps(_read(event_dir / sub))
        assert set(steps) == want, sub
        assert all(s == evals for s in steps.values()), sub  # start, schedule, end
    chance = _read(event_dir / "chance")
    assert [e.value for e in chance.Scalars("eval/win_rate/3p")] == [pytest.approx(1 / 3)] * len(
        evals
    )
    greedy = _read(event_dir / "vs_greedy").Scalars("eval/win_rate/2p")
    assert [e.value for e in greedy] == pytest.approx(
        [e["by_players"]["2"]["vs"]["greedy"]["win_rate"] for e in state["evals"]]
    )
    own = _steps(_read(event_dir))
    for tag in ("eval/mean_win_rate/2p", "eval/mean_win_rate/3p", "eval/score"):
        assert own[tag] == evals, tag
    for tag in ("rating/elo", "rating/elo/2p"):
        assert own[tag] == evals, tag
    rating = _read(event_dir).Scalars("rating/elo/3p")
    assert [e.value for e in rating] == pytest.approx(
        [e["by_players"]["3"]["rating"] for e in state["evals"]]
    )
    assert not [t for t in own if t.startswith(("eval/vs_", "eval/2p/", "bc/"))]
    assert "eval/mean_win_rate" not in own  # the first count's mean, ambiguous: gone


def test_hparams_one_win_rate_metric_per_count_and_the_fit_as_text(lab_run):
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.util import tensor_util

    run, state = lab_run
    acc = _read(run / "tb" / "PPO_1")
    content = acc.PluginTagToContent("hparams")
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    metrics = [m.name.tag for m in exp.experiment.metric_infos]
    assert sorted(metrics) == [
        "eval/mean_win_rate/2p",
        "eval/mean_win_rate/3p",
        "eval/score",
        "rating/elo",
    ]
    (fit,) = acc.Tensors("bc/fit/text_summary")
    table = tensor_util.make_ndarray(fit.tensor_proto).item().decode()
    assert fit.step == 0 and f"{state['bc']['bc_accuracy']:.4g}" in table
    assert table.splitlines()[0] == "| | before | after |"


def test_evaluating_does_not_change_what_is_learned(lab_run, tmp_path):
    """Evaluations (the step-0 one included) draw nothing from the training's generators: a run
    that evaluates only at the start and the end learns the same weights."""
    run, state = lab_run
    other = train(_all_seat(tmp_path / "rare", eval_every=10**6))
    assert [e["step"] for e in other["evals"]] == [0, other["step"]]
    assert other["step"] == state["step"]
    a = np.load(run / state["checkpoint"])
    b = np.load(tmp_path / "rare" / other["checkpoint"])
    assert sorted(a.files) == sorted(b.files)
    assert all(np.array_equal(a[k], b[k]) for k in a.files)
    assert json.loads((tmp_path / "rare" / "state.json").read_text())["evals"][0]["step"] == 0


@pytest.mark.slow
def test_sb3_evaluating_does_not_change_what_is_learned(tmp_path):
    """The single-seat trainer too: evaluating every 512 steps or only at the start and the end
    gives the same final weights."""
    base = dict(
        total_steps=1024,
        n_envs=2,
        n_steps=256,
        batch_size=256,
        n_epochs=1,
        net_arch=[32],
        snapshot_every=256,
        checkpoint_every=512,
        eval_games=2,
        eval_bots=["greedy"],
        bots=["greedy", "random"],
        progress=False,
    )
    finals = []
    for name, every in (("often", 512), ("rare", 10**6)):
        state = train(TrainConfig(run_dir=str(tmp_path / name), eval_every=every, **base))
        assert state["evals"][0]["step"] == 0 and state["evals"][-1]["step"] == 1024
        finals.append(np.load((tmp_path / name / state["checkpoint"]).with_suffix(".npz")))
    a, b = finals
    assert all(np.array_equal(a[k], b[k]) for k in a.files)


def test_rllib_result_dict_under_the_lab_trainers_tags():
    result = {
        "learners": {
            "shared": {
                "policy_loss": -0.02,
                "vf_loss": 0.5,
                "entropy": 1.7,
                "mean_kl_loss": 0.01,
                "vf_explained_var": 0.3,
                "total_loss": 0.4,
                "curr_lr": 3e-4,
            },
            "__all_modules__": {"total_loss": 9.0},
        },
        "env_runners": {
            "agent_episode_returns_mean": {
                "player_0": 0.2,
                "player_1": -0.4,
                "player_2": float("nan"),
            },
            "episode_return_mean": -0.2,
        },
    }
    assert result_scalars(result) == {
        "train/policy_loss": -0.02,
        "train/value_loss": 0.5,
        "train/entropy": 1.7,
        "train/approx_kl": 0.01,
        "train/explained_variance": 0.3,
        "train/loss": 0.4,
        "rollout/ep_rew_mean": pytest.approx(-0.1),
        "rollout/episode_return_mean": -0.2,
    }
    # before the first episode ends RLlib reports NaN: left out, not written as 0
    early = {"learners": {"shared": {"entropy": float("nan")}}, "env_runners": {}}
    assert result_scalars(early) == {}
    assert not any(math.isnan(v) for v in result_scalars(result).values())
