"""TensorBoard for training runs: the custom-scalars layout, the run's settings, the warm
start's fit, and the evaluation scalars.

Tags (at the learner's global step):

- Evaluation at one player count (`eval_num_players = 4`): `eval/vs_<bot>/win_rate` with
  `win_rate_lo` / `win_rate_hi` (Wilson 95%) and `mean_rank`, `eval/mean_win_rate`,
  `eval/chance` (1/N, the chance win rate, drawn as a line on the win-rate chart) and
  `eval/chance_mean_rank` ((N+1)/2), `eval/score` (N x win rate, averaged over the tables:
  what picks the best checkpoint), `rating/openskill_ordinal`.
- At several counts (`eval_num_players = [2, 3, 4, 5]`) the same under `eval/<n>p/...`, with
  `eval/<n>p/mean_win_rate` and `rating/<n>p/openskill_ordinal` per count; `eval/mean_win_rate`
  is then the first count's, `eval/score` and `rating/openskill_ordinal` cover every count.
- The behaviour-cloning warm start, at step 0: `bc/accuracy_before`, `bc/accuracy`,
  `bc/nll_before`, `bc/nll`, `bc/samples`, `bc/seconds`.

The "Custom Scalars" tab (:func:`layout`) has, per evaluated count, a chart of the win rates
against every panel bot (one line per bot: each tag is an anchored regular expression, so
`win_rate` never also matches `win_rate_lo`) with the chance line, a chart of the mean ranks
with its chance line, and one band chart (win rate within its 95% interval) per panel bot;
then the ratings. The "HParams" tab gets the run's settings (lists as text) with the evaluation
metrics, and the "Text" tab a table of every setting (`run/settings`), so runs can be compared
inside TensorBoard.

The functions take a `torch.utils.tensorboard.SummaryWriter` (SB3's `TensorBoardOutputFormat`
holds one) or, for the scalars, a `record(tag, value)` callable (SB3's `logger.record`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .config import TrainConfig

LAYOUT_TAG = "custom_scalars__config__"  # where add_custom_scalars stores the layout
BC_KEYS = {
    "bc_accuracy_before": "bc/accuracy_before",
    "bc_accuracy": "bc/accuracy",
    "bc_nll_before": "bc/nll_before",
    "bc_nll": "bc/nll",
    "bc_samples": "bc/samples",
    "seconds": "bc/seconds",
}


def eval_counts(cfg: TrainConfig) -> list[int]:
    """The evaluated player counts (`eval_num_players` is one count or a list)."""
    return cfg.eval_counts()


def eval_prefix(n: int, counts: Sequence[int]) -> str:
    """`eval` for a single evaluated count, `eval/<n>p` for several."""
    return "eval" if len(counts) == 1 else f"eval/{n}p"


def rating_tag(n: int, counts: Sequence[int]) -> str:
    return "rating/openskill_ordinal" if len(counts) == 1 else f"rating/{n}p/openskill_ordinal"


def exact(tag: str) -> str:
    """An anchored regular expression matching exactly `tag`."""
    return f"^{re.escape(tag)}$"


def layout(bots: Sequence[str], counts: Sequence[int]) -> dict[str, dict[str, list]]:
    """The custom-scalars layout for the panel `bots` at the evaluated `counts`
    (`SummaryWriter.add_custom_scalars` format: category -> chart -> [kind, tags])."""
    out: dict[str, dict[str, list]] = {}
    for n in counts:
        p = eval_prefix(n, counts)
        where = f" ({n} players)"
        charts: dict[str, list] = {
            "win rate vs bots" + where: [
                "Multiline",
                [exact(f"{p}/vs_{b}/win_rate") for b in bots] + [exact(f"{p}/chance")],
            ],
            "mean rank vs bots" + where: [
                "Multiline",
                [exact(f"{p}/vs_{b}/mean_rank") for b in bots] + [exact(f"{p}/chance_mean_rank")],
            ],
        }
        for b in bots:
            charts[f"win rate vs {b} with 95% interval{where}"] = [
                "Margin",
                [f"{p}/vs_{b}/win_rate", f"{p}/vs_{b}/win_rate_lo", f"{p}/vs_{b}/win_rate_hi"],
            ]
        out[p.replace("/", " ")] = charts
    rating = [exact(rating_tag(n, counts)) for n in counts]
    if len(counts) > 1:
        rating.append(exact("rating/openskill_ordinal"))
    means = [exact("eval/mean_win_rate")]
    if len(counts) > 1:
        means += [exact(f"{eval_prefix(n, counts)}/mean_win_rate") for n in counts]
    out["rating"] = {
        "OpenSkill ordinal (anchor: random = 0)": ["Multiline", rating],
        "mean win rate vs the panel": ["Multiline", means],
        "score: win rate over chance (N x win rate), all tables": [
            "Multiline",
            [exact("eval/score")],
        ],
    }
    return out


def eval_scalars(result: dict[str, Any], counts: Sequence[int]) -> dict[str, float]:
    """The evaluation scalars of one `training.train.evaluate` result, by tag."""
    out: dict[str, float] = {}
    for n in counts:
        part = result["by_players"][str(n)]
        p = eval_prefix(n, counts)
        for bot, v in part["vs"].items():
            for k in ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank"):
                out[f"{p}/vs_{bot}/{k}"] = float(v[k])
        out[f"{p}/chance"] = 1.0 / n
        out[f"{p}/chance_mean_rank"] = (n + 1) / 2
        if len(counts) > 1:
            out[f"{p}/mean_win_rate"] = float(part["mean_win_rate"])
            if "openskill_ordinal" in part:
                out[rating_tag(n, counts)] = float(part["openskill_ordinal"])
    out["eval/mean_win_rate"] = float(result["mean_win_rate"])
    if "score" in result:
        out["eval/score"] = float(result["score"])
    out["rating/openskill_ordinal"] = float(result["openskill_ordinal"])
    return out


def record_eval(record: Callable[[str, float], Any], result: dict, counts: Sequence[int]) -> None:
    for tag, value in eval_scalars(result, counts).items():
        record(tag, value)


def _hparam_value(v: Any) -> Any:
    if isinstance(v, bool | int | float | str):
        return v
    return ", ".join(str(x) for x in v) if isinstance(v, list | tuple) else str(v)


def hparams(cfg: TrainConfig) -> dict[str, Any]:
    """The settings as HParams values (lists joined into text)."""
    return {k: _hparam_value(v) for k, v in cfg.to_dict().items()}


def metric_tags(cfg: TrainConfig) -> list[str]:
    counts = eval_counts(cfg)
    tags = ["eval/mean_win_rate", "rating/openskill_ordinal"]
    for n in counts:
        p = eval_prefix(n, counts)
        tags += [f"{p}/vs_{b}/win_rate" for b in cfg.eval_bots]
    return tags


def settings_markdown(cfg: TrainConfig) -> str:
    rows = ["| setting | value |", "|---|---|"]
    rows += [f"| {k} | `{_hparam_value(v)}` |" for k, v in cfg.to_dict().items()]
    return "\n".join(rows)


def write_layout(writer: Any, cfg: TrainConfig) -> None:
    writer.add_custom_scalars(layout(cfg.eval_bots, eval_counts(cfg)))


def write_settings(writer: Any, cfg: TrainConfig, step: int) -> None:
    """The settings as text (at `step`, so a resumed run shows its new settings too)."""
    writer.add_text("run/settings", settings_markdown(cfg), step)


def write_hparams(writer: Any, cfg: TrainConfig) -> None:
    """The HParams entry of the run, in the run's own event file (not a sub-run)."""
    from torch.utils.tensorboard.summary import hparams as hparams_summary

    exp, ssi, sei = hparams_summary(hparams(cfg), {t: 0.0 for t in metric_tags(cfg)})
    for summary in (exp, ssi, sei):
        writer.file_writer.add_summary(summary)


def write_bc(writer: Any, fit: dict[str, Any], step: int = 0) -> None:
    """The warm start's fit (`state.json`'s "bc" entry) as scalars."""
    for key, tag in BC_KEYS.items():
        if key in fit:
            writer.add_scalar(tag, float(fit[key]), step)


def start_run(writer: Any, cfg: TrainConfig, state: dict[str, Any], step: int) -> None:
    """Everything written when training starts: the layout and the settings every time; the
    HParams entry and the warm start's fit once per run (`state["tb_run_info"]` remembers)."""
    write_layout(writer, cfg)
    write_settings(writer, cfg, step)
    if not state.get("tb_run_info"):
        write_hparams(writer, cfg)
        if state.get("bc"):
            write_bc(writer, state["bc"])
        state["tb_run_info"] = True
    writer.flush()


def read_layout(event_dir: str) -> dict[str, dict[str, tuple[str, list[str]]]]:
    """The custom-scalars layout stored in a run's event files: category -> chart ->
    (kind, tags), kind "Multiline" (tag regexes) or "Margin" ([value, lower, upper] tags)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.custom_scalar import layout_pb2
    from tensorboard.util import tensor_util

    acc = EventAccumulator(event_dir, size_guidance={"tensors": 0})
    acc.Reload()
    events = acc.Tensors(LAYOUT_TAG)
    if not events:
        return {}
    raw = tensor_util.make_ndarray(events[-1].tensor_proto).item()
    proto = layout_pb2.Layout.FromString(raw)
    out: dict[str, dict[str, tuple[str, list[str]]]] = {}
    for cat in proto.category:
        charts = out.setdefault(cat.title, {})
        for chart in cat.chart:
            if chart.HasField("multiline"):
                charts[chart.title] = ("Multiline", list(chart.multiline.tag))
            else:
                s = chart.margin.series[0]
                charts[chart.title] = ("Margin", [s.value, s.lower, s.upper])
    return out


def chart_matches(kind: str, tags: list[str], available: set[str]) -> set[str]:
    """The scalar tags (of `available`) a chart draws: regex search for a Multiline chart (as
    TensorBoard does), the named tags for a Margin chart."""
    if kind == "Multiline":
        return {t for t in available if any(re.search(rx, t) for rx in tags)}
    return {t for t in tags if t in available}
