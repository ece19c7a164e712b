"""TensorBoard for training runs: the custom-scalars layout, the run's settings, the warm
start's fit, and the evaluation scalars.

The evaluation against each panel bot is a sub-run of the run's event directory (`tb/PPO_1/`,
`tb/RLlib_1/`): `vs_<bot>/` (the bot's spec with every character other than letters, digits,
`.`, `=` and `-` written `_`), plus `chance/` for the chance rates, so TensorBoard draws each
bot in its own colour and one chart overlays every bot. The tags are the same in every sub-run
and do not depend on which player counts are evaluated (`<n>` below is the count):

- in `vs_<bot>/`: `eval/win_rate/<n>p` with `eval/win_rate_lo/<n>p` and `eval/win_rate_hi/<n>p`
  (Wilson 95%), `eval/mean_rank/<n>p` (the learner alone against n-1 copies of the bot);
- in `chance/`: `eval/win_rate/<n>p` = 1/n (its interval the same) and `eval/mean_rank/<n>p` =
  (n+1)/2;
- in the run itself: `eval/mean_win_rate/<n>p` (mean over the panel at n players),
  `eval/score` (n x win rate, averaged over every table: what picks the best checkpoint),
  `rating/elo` (the learner's rating over every evaluation game: `agents.stats.fit_ratings`,
  one Plackett-Luce fit on the Elo scale, `random` = 0) and `rating/elo/<n>p` (over the games
  at n players). Runs before these logged an OpenSkill ordinal under `rating/openskill_ordinal`
  instead; `agents.scalars.rating_curves` reads either.

The trainers evaluate at step 0 (before the first update), every `eval_every` steps and at the
last step. The behaviour-cloning warm start's fit is the text `bc/fit` at step 0 (a table:
accuracy and negative log-likelihood before and after, samples, seconds, teacher).

The "Custom Scalars" tab (:func:`layout`) has, per evaluated count, the win rates against every
panel bot with the chance line (each tag is an anchored regular expression, so `win_rate` never
also matches `win_rate_lo`), the same within their 95% intervals, and the mean ranks; then the
ratings, the mean win rate per count and the score. The "HParams" tab gets the run's settings
(lists as text) with the metrics `eval/mean_win_rate/<n>p` (one per evaluated count),
`eval/score` and `rating/elo`, and the "Text" tab a table of every setting
(`run/settings`), so runs can be compared inside TensorBoard.

The functions take a `torch.utils.tensorboard.SummaryWriter` (SB3's `TensorBoardOutputFormat`
holds one); :class:`EvalBoard` adds the sub-runs beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .config import TrainConfig

LAYOUT_TAG = "custom_scalars__config__"  # where add_custom_scalars stores the layout
CHANCE_RUN = "chance"
BOT_STATS = ("win_rate", "win_rate_lo", "win_rate_hi", "mean_rank")
BC_ROWS = (  # (row, key before, key after) of the warm start's fit
    ("accuracy", "bc_accuracy_before", "bc_accuracy"),
    ("negative log-likelihood", "bc_nll_before", "bc_nll"),
)


def eval_counts(cfg: TrainConfig) -> list[int]:
    """The evaluated player counts (`eval_num_players` is one count or a list)."""
    return cfg.eval_counts()


def count_tag(stat: str, n: int) -> str:
    """The tag of an evaluation statistic at `n` players: `eval/<stat>/<n>p`."""
    return f"eval/{stat}/{n}p"


def rating_tag(n: int | None = None) -> str:
    """The learner's rating over every evaluation game, or over the games at `n` players."""
    return "rating/elo" + ("" if n is None else f"/{n}p")


def subrun_names(bots: Sequence[str]) -> dict[str, str]:
    """The sub-run directory of each panel bot: `vs_<spec>` with every character other than
    letters, digits, `.`, `=` and `-` written `_` (a path keeps its last 60), made unique."""
    out: dict[str, str] = {}
    for bot in bots:
        name = "vs_" + re.sub(r"[^A-Za-z0-9.=-]+", "_", bot).strip("_")[-60:]
        base, k = name, 2
        while name in out.values() or name == CHANCE_RUN:
            name, k = f"{base}_{k}", k + 1
        out[bot] = name
    return out


def exact(tag: str) -> str:
    """An anchored regular expression matching exactly `tag`."""
    return f"^{re.escape(tag)}$"


def layout(counts: Sequence[int]) -> dict[str, dict[str, list]]:
    """The custom-scalars layout for the evaluated `counts` (`SummaryWriter.add_custom_scalars`
    format: category -> chart -> [kind, tags]); every chart draws each sub-run (bot) in its own
    colour."""
    charts: dict[str, list] = {}
    for n in counts:
        where = f" ({n} players; chance: the {CHANCE_RUN} run)"
        charts["win rate vs each bot" + where] = ["Multiline", [exact(count_tag("win_rate", n))]]
        charts["win rate vs each bot with 95% interval" + where] = [
            "Margin",
            [count_tag(s, n) for s in ("win_rate", "win_rate_lo", "win_rate_hi")],
        ]
        charts["mean rank vs each bot" + where] = ["Multiline", [exact(count_tag("mean_rank", n))]]
    return {
        "evaluation": charts,
        "rating": {
            "rating: Plackett-Luce fit, Elo scale (anchor: random = 0)": [
                "Multiline",
                [exact(rating_tag())] + [exact(rating_tag(n)) for n in counts],
            ],
            "mean win rate vs the panel, per player count": [
                "Multiline",
                [exact(count_tag("mean_win_rate", n)) for n in counts],
            ],
            "score: win rate over chance (N x win rate), all tables": [
                "Multiline",
                [exact("eval/score")],
            ],
        },
    }


def eval_scalars(result: dict[str, Any], counts: Sequence[int]) -> dict[str, dict[str, float]]:
    """The evaluation scalars of one `training.train.evaluate` result: sub-run -> tag -> value,
    the sub-run "" being the run itself (module docstring)."""
    bots = {b: None for n in counts for b in result["by_players"][str(n)]["vs"]}
    names = subrun_names(list(bots))
    out: dict[str, dict[str, float]] = {"": {}, CHANCE_RUN: {}}
    for n in counts:
        part = result["by_players"][str(n)]
        for bot, v in part["vs"].items():
            sub = out.setdefault(names[bot], {})
            for k in BOT_STATS:
                sub[count_tag(k, n)] = float(v[k])
        for k in ("win_rate", "win_rate_lo", "win_rate_hi"):
            out[CHANCE_RUN][count_tag(k, n)] = 1.0 / n
        out[CHANCE_RUN][count_tag("mean_rank", n)] = (n + 1) / 2
        out[""][count_tag("mean_win_rate", n)] = float(part["mean_win_rate"])
        if part.get("rating") is not None:
            out[""][rating_tag(n)] = float(part["rating"])
    if "score" in result:
        out[""]["eval/score"] = float(result["score"])
    if result.get("rating") is not None:
        out[""][rating_tag()] = float(result["rating"])
    return out


class EvalBoard:
    """The evaluation's TensorBoard writers: the run's own `writer` (the mean win rates, score
    and ratings) and, beside it, one sub-run writer per panel bot and one for the chance rates,
    made when first written (a resumed run appends new event files to the same sub-runs)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.subruns: dict[str, Any] = {}

    def _sub(self, name: str) -> Any:
        if name not in self.subruns:
            from torch.utils.tensorboard import SummaryWriter

            self.subruns[name] = SummaryWriter(str(Path(self.writer.log_dir) / name))
        return self.subruns[name]

    def write(self, result: dict[str, Any], counts: Sequence[int], step: int) -> None:
        """One evaluation's scalars (:func:`eval_scalars`) at `step`, flushed."""
        for name, scalars in eval_scalars(result, counts).items():
            w = self._sub(name) if name else self.writer
            for tag, value in scalars.items():
                w.add_scalar(tag, value, step)
            w.flush()

    def close(self) -> None:
        """Close the sub-run writers (the run's own writer belongs to its trainer)."""
        for w in self.subruns.values():
            w.close()
        self.subruns.clear()


def _hparam_value(v: Any) -> Any:
    if isinstance(v, bool | int | float | str):
        return v
    return ", ".join(str(x) for x in v) if isinstance(v, list | tuple) else str(v)


def hparams(cfg: TrainConfig) -> dict[str, Any]:
    """The settings as HParams values (lists joined into text)."""
    return {k: _hparam_value(v) for k, v in cfg.to_dict().items()}


def metric_tags(cfg: TrainConfig) -> list[str]:
    """The HParams metrics: the mean win rate vs the panel at each evaluated count, the score
    and the rating (scalars of the run itself, not of a sub-run)."""
    return [count_tag("mean_win_rate", n) for n in eval_counts(cfg)] + [
        "eval/score",
        rating_tag(),
    ]


def settings_markdown(cfg: TrainConfig) -> str:
    """Every setting as a markdown table (the "Text" tab's `run/settings`)."""
    rows = ["| setting | value |", "|---|---|"]
    rows += [f"| {k} | `{_hparam_value(v)}` |" for k, v in cfg.to_dict().items()]
    return "\n".join(rows)


def bc_markdown(fit: dict[str, Any]) -> str:
    """The warm start's fit (`state.json`'s "bc" entry) as a markdown table."""
    rows = ["| | before | after |", "|---|---|---|"]
    for label, before, after in BC_ROWS:
        if before in fit or after in fit:
            rows.append(f"| {label} | {_num(fit.get(before))} | {_num(fit.get(after))} |")
    for label, key in (("samples", "bc_samples"), ("seconds", "seconds"), ("teacher", "teacher")):
        if key in fit:
            rows.append(f"| {label} | | {_num(fit[key])} |")
    return "\n".join(rows)


def _num(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def write_layout(writer: Any, cfg: TrainConfig) -> None:
    """The custom-scalars layout (:func:`layout`) of the run's evaluated counts."""
    writer.add_custom_scalars(layout(eval_counts(cfg)))


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
    """The warm start's fit as the text `bc/fit` (:func:`bc_markdown`)."""
    writer.add_text("bc/fit", bc_markdown(fit), step)


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
