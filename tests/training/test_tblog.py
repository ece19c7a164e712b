"""training.tblog: the custom-scalars layout draws exactly the tags it should; the evaluation
goes to one sub-run per bot (and `chance`) under tags that do not depend on the evaluated
counts; the settings go to HParams (one win-rate metric per count) and Text; the warm start's
fit to a text table. Written with a real SummaryWriter and read back from the event files."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from training import tblog  # noqa: E402
from training.config import TrainConfig  # noqa: E402


def _fake_result(bots, counts):
    part = lambda n: {  # noqa: E731
        "vs": {
            b: {"win_rate": 0.5, "win_rate_lo": 0.4, "win_rate_hi": 0.6, "mean_rank": 2.0}
            for b in bots
        },
        "mean_win_rate": 0.5,
        "rating": 3.0,
    }
    return {
        "by_players": {str(n): part(n) for n in counts},
        "mean_win_rate": 0.5,
        "score": 1.5,
        "rating": 3.0,
    }


def expected_charts(counts):
    """Chart title -> the exact set of tags it must draw (in every sub-run that has them)."""
    out = {}
    for n in counts:
        w = f" ({n} players; chance: the chance run)"
        out["win rate vs each bot" + w] = {f"eval/win_rate/{n}p"}
        out["win rate vs each bot with 95% interval" + w] = {
            f"eval/win_rate/{n}p",
            f"eval/win_rate_lo/{n}p",
            f"eval/win_rate_hi/{n}p",
        }
        out["mean rank vs each bot" + w] = {f"eval/mean_rank/{n}p"}
    out["rating: Plackett-Luce fit, Elo scale (anchor: random = 0)"] = {"rating/elo"} | {
        f"rating/elo/{n}p" for n in counts
    }
    out["mean win rate vs the panel, per player count"] = {
        f"eval/mean_win_rate/{n}p" for n in counts
    }
    out["score: win rate over chance (N x win rate), all tables"] = {"eval/score"}
    return out


@pytest.mark.parametrize(
    ("bots", "counts"),
    [
        (["greedy", "planner", "planner:eps=0.1"], [4]),
        (["greedy", "speculator", "planner", "combiner"], [2, 3, 4, 5]),
    ],
)
def test_written_layout_draws_exactly_the_right_tags(tmp_path, bots, counts):
    from torch.utils.tensorboard import SummaryWriter

    cfg = TrainConfig(eval_bots=bots, eval_num_players=counts if len(counts) > 1 else counts[0])
    by_run = tblog.eval_scalars(_fake_result(bots, counts), counts)
    tags = {t for scalars in by_run.values() for t in scalars}
    tags |= {"time/sps", "rollout/ep_rew_mean", "train/entropy"}  # other tags of a run
    writer = SummaryWriter(str(tmp_path))
    tblog.write_layout(writer, cfg)
    writer.close()
    layout = tblog.read_layout(str(tmp_path))
    charts = {title: c for cat in layout.values() for title, c in cat.items()}
    want = expected_charts(counts)
    assert set(charts) == set(want)
    for title, (kind, chart_tags) in charts.items():
        assert tblog.chart_matches(kind, chart_tags, tags) == want[title], title
    assert set(layout) == {"evaluation", "rating"}


@pytest.mark.parametrize(
    ("bots", "counts"),
    [(["greedy", "planner:eps=0.1"], [4]), (["greedy", "planner:eps=0.1"], [2, 3, 4, 5])],
)
def test_eval_scalars_one_sub_run_per_bot_tags_independent_of_the_counts(bots, counts):
    by_run = tblog.eval_scalars(_fake_result(bots, counts), counts)
    assert set(by_run) == {"", "chance", "vs_greedy", "vs_planner_eps=0.1"}
    stats = ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank")
    for sub in ("vs_greedy", "vs_planner_eps=0.1", "chance"):
        assert set(by_run[sub]) == {f"eval/{k}/{n}p" for k in stats for n in counts}
    assert by_run["chance"]["eval/win_rate/4p"] == 0.25
    assert by_run["chance"]["eval/mean_rank/4p"] == 2.5
    assert set(by_run[""]) == (
        {f"eval/mean_win_rate/{n}p" for n in counts}
        | {f"rating/elo/{n}p" for n in counts}
        | {"eval/score", "rating/elo"}
    )
    alone = tblog.eval_scalars(_fake_result(bots, [4]), [4])  # 4 players evaluated alone
    assert alone["vs_greedy"].items() <= by_run["vs_greedy"].items()


def test_eval_scalars_the_rating_and_none_where_it_has_no_games():
    result = _fake_result(["greedy"], [2, 4])
    result["by_players"]["2"]["rating"] = -12.5
    result["by_players"]["4"]["rating"] = None  # the learner scored no game at 4 players
    own = tblog.eval_scalars(result, [2, 4])[""]
    assert own["rating/elo/2p"] == -12.5 and own["rating/elo"] == 3.0
    assert "rating/elo/4p" not in own
    result["rating"] = None
    assert "rating/elo" not in tblog.eval_scalars(result, [2, 4])[""]
    assert tblog.rating_tag() == "rating/elo" and tblog.rating_tag(3) == "rating/elo/3p"


def test_subrun_names_are_safe_directory_names_and_unique():
    names = tblog.subrun_names(["greedy", "planner:eps=0.1", "a:b", "a_b", "ppo:/x/y/step_9.npz"])
    assert names["greedy"] == "vs_greedy" and names["planner:eps=0.1"] == "vs_planner_eps=0.1"
    assert names["a:b"] == "vs_a_b" and names["a_b"] == "vs_a_b_2"
    assert names["ppo:/x/y/step_9.npz"] == "vs_ppo_x_y_step_9.npz"
    assert all("/" not in n and ":" not in n for n in names.values())


def test_eval_board_writes_each_bot_to_its_own_sub_run(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter

    bots, counts = ["greedy", "planner"], [2, 4]
    writer = SummaryWriter(str(tmp_path / "PPO_1"))
    board = tblog.EvalBoard(writer)
    for step in (0, 100):
        board.write(_fake_result(bots, counts), counts, step)
    board.close()
    writer.close()
    runs = {p.name for p in (tmp_path / "PPO_1").iterdir() if p.is_dir()}
    assert runs == {"vs_greedy", "vs_planner", "chance"}

    def scalars(d):
        acc = EventAccumulator(str(d), size_guidance={"scalars": 0})
        acc.Reload()
        return {t: [e.step for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}

    bot = scalars(tmp_path / "PPO_1" / "vs_planner")
    assert bot["eval/win_rate/2p"] == [0, 100] and "eval/mean_rank/4p" in bot
    own = scalars(tmp_path / "PPO_1")
    assert own["eval/mean_win_rate/4p"] == [0, 100] and "eval/win_rate/2p" not in own


def test_unanchored_regexes_would_be_caught():
    tags = {"eval/vs_greedy/win_rate", "eval/vs_greedy/win_rate_lo", "eval/vs_greedy/win_rate_hi"}
    assert tblog.chart_matches("Multiline", ["eval/vs_greedy/win_rate"], tags) == tags
    assert tblog.chart_matches("Multiline", [tblog.exact("eval/vs_greedy/win_rate")], tags) == {
        "eval/vs_greedy/win_rate"
    }


def test_settings_hparams_text_and_warm_start(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams import plugin_data_pb2
    from torch.utils.tensorboard import SummaryWriter

    cfg = TrainConfig(total_steps=1234, net_arch=[64, 32], eval_num_players=[2, 4])
    state = {
        "bc": {
            "bc_accuracy_before": 0.2,
            "bc_accuracy": 0.8,
            "bc_nll_before": 2.0,
            "bc_nll": 0.5,
            "bc_samples": 900.0,
            "seconds": 3.0,
        }
    }
    writer = SummaryWriter(str(tmp_path))
    tblog.start_run(writer, cfg, state, step=0)
    assert state["tb_run_info"] is True
    tblog.start_run(writer, cfg, state, step=10)  # a resume: no second HParams entry
    writer.close()
    acc = EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "scalars": 0})
    acc.Reload()
    content = acc.PluginTagToContent("hparams")
    ssi = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"])
    hp = ssi.session_start_info.hparams
    assert hp["total_steps"].number_value == 1234
    assert hp["net_arch"].string_value == "64, 32"
    assert hp["eval_num_players"].string_value == "2, 4"
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    metrics = {m.name.tag for m in exp.experiment.metric_infos}
    assert metrics == {
        "eval/mean_win_rate/2p",
        "eval/mean_win_rate/4p",
        "eval/score",
        "rating/elo",
    }
    from tensorboard.util import tensor_util

    texts = acc.Tensors("run/settings/text_summary")
    assert [t.step for t in texts] == [0, 10]
    text = tensor_util.make_ndarray(texts[0].tensor_proto).item().decode()
    assert "| total_steps | `1234` |" in text and "| net_arch | `64, 32` |" in text
    (fit,) = acc.Tensors("bc/fit/text_summary")  # once: not again on the resume
    table = tensor_util.make_ndarray(fit.tensor_proto).item().decode()
    assert fit.step == 0
    assert "| accuracy | 0.2 | 0.8 |" in table and "| negative log-likelihood | 2 | 0.5 |" in table
    assert "| samples | | 900 |" in table
    assert not [t for t in acc.Tags()["scalars"] if t.startswith("bc/")]  # no one-dot charts
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    (events_file,) = tmp_path.glob("events.out.tfevents.*")
    starts = [
        v.tag
        for ev in EventFileLoader(str(events_file)).Load()
        for v in ev.summary.value
        if v.tag == "_hparams_/session_start_info"
    ]
    assert len(starts) == 1
