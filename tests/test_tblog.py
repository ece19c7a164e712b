"""training.tblog: the custom-scalars layout draws exactly the tags it should; the settings go
to HParams and Text; the warm start's fit to scalars. Written with a real SummaryWriter and read
back from the event file."""

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
        "openskill_ordinal": 3.0,
    }
    return {
        "by_players": {str(n): part(n) for n in counts},
        "mean_win_rate": 0.5,
        "score": 1.5,
        "openskill_ordinal": 3.0,
    }


def expected_charts(bots, counts):
    """Chart title -> the exact set of tags it must draw."""
    out = {}
    for n in counts:
        p = "eval" if len(counts) == 1 else f"eval/{n}p"
        w = f" ({n} players)"
        out["win rate vs bots" + w] = {f"{p}/vs_{b}/win_rate" for b in bots} | {f"{p}/chance"}
        out["mean rank vs bots" + w] = {f"{p}/vs_{b}/mean_rank" for b in bots} | {
            f"{p}/chance_mean_rank"
        }
        for b in bots:
            out[f"win rate vs {b} with 95% interval{w}"] = {
                f"{p}/vs_{b}/win_rate",
                f"{p}/vs_{b}/win_rate_lo",
                f"{p}/vs_{b}/win_rate_hi",
            }
    rating = {"rating/openskill_ordinal"}
    if len(counts) > 1:
        rating |= {f"rating/{n}p/openskill_ordinal" for n in counts}
    out["OpenSkill ordinal (anchor: random = 0)"] = rating
    out["mean win rate vs the panel"] = {"eval/mean_win_rate"}
    if len(counts) > 1:
        out["mean win rate vs the panel"] |= {f"eval/{n}p/mean_win_rate" for n in counts}
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
    tags = set(tblog.eval_scalars(_fake_result(bots, counts), counts))
    tags |= {"time/sps", "rollout/ep_rew_mean", "bc/accuracy"}  # other tags of a run
    writer = SummaryWriter(str(tmp_path))
    tblog.write_layout(writer, cfg)
    writer.close()
    layout = tblog.read_layout(str(tmp_path))
    charts = {title: c for cat in layout.values() for title, c in cat.items()}
    want = expected_charts(bots, counts)
    assert set(charts) == set(want)
    for title, (kind, chart_tags) in charts.items():
        assert tblog.chart_matches(kind, chart_tags, tags) == want[title], title
    if len(counts) > 1:
        assert set(layout) == {f"eval {n}p" for n in counts} | {"rating"}


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
    assert {"eval/mean_win_rate", "eval/2p/vs_greedy/win_rate", "eval/4p/vs_combiner/win_rate"} <= (
        metrics
    )
    texts = acc.Tensors("run/settings/text_summary")
    assert [t.step for t in texts] == [0, 10]
    from tensorboard.util import tensor_util

    text = tensor_util.make_ndarray(texts[0].tensor_proto).item().decode()
    assert "| total_steps | `1234` |" in text and "| net_arch | `64, 32` |" in text
    assert [(e.step, e.value) for e in acc.Scalars("bc/accuracy")] == [(0, pytest.approx(0.8))]
    assert acc.Scalars("bc/samples")[0].value == 900.0
    assert len(acc.Scalars("bc/accuracy")) == 1
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    (events_file,) = tmp_path.glob("events.out.tfevents.*")
    starts = [
        v.tag
        for ev in EventFileLoader(str(events_file)).Load()
        for v in ev.summary.value
        if v.tag == "_hparams_/session_start_info"
    ]
    assert len(starts) == 1
