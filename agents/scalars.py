"""The scalars of a training run: read from its TensorBoard event files, or from a compact export.

A run directory (`lastwill train`) holds TensorBoard event files under `tb/` (one folder per
segment: a resumed run adds `PPO_2`, ...; inside it the evaluation's sub-runs `vs_<bot>/` and
`chance/`) and `state.json` (configuration, warm-start fit). :func:`read_run` merges the
scalars of every segment by step (a later segment wins a repeated step); a sub-run's tags are
named `<sub-run>/<tag>` (`vs_greedy/eval/win_rate/4p`). :func:`export_run` keeps the tags
worth sharing (evaluation, ratings, warm start, pool, speed, rollout and training diagnostics)
with the run's configuration in one small JSON document (``"format": "lastwill-scalars/1"``),
or a long CSV (``tag,step,value``); :func:`load_export` reads either back.
``python -m labreports.export_scalars RUN_DIR OUT`` is the command line.

:func:`win_rate_curves` picks the evaluation curves out of the scalars: per evaluated player
count and panel bot, the steps, win rates and Wilson 95% bounds, and the chance rate 1/N; it
understands the sub-run layout of `training.tblog` (`vs_<bot>/eval/win_rate/<n>p`) and the
earlier flat ones of shipped exports (`eval/vs_<bot>/...` for one count, `eval/<n>p/vs_<bot>/...`
for several). :func:`rating_curves` picks the learner's rating: `rating/elo` and
`rating/elo/<n>p` (`agents.stats.fit_ratings`, Elo scale), or in the scalars of runs made
before it, such as the shipped `notebooks/data/quick_run_scalars.json`, the OpenSkill ordinal
they logged under `rating/openskill_ordinal` (another scale, labelled as such).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

FORMAT = "lastwill-scalars/1"
DEFAULT_TAGS = (
    r"^(eval|rating|bc|selfplay|time)/|^(vs_[^/]+|chance)/eval/"
    r"|^rollout/(ep_rew_mean|ep_len_mean|invalid_action_rate)$"
    r"|^train/(approx_kl|clip_fraction|entropy_loss|explained_variance|value_loss)$"
)
_WIN = re.compile(r"^eval/(?:(\d+)p/)?vs_(.+)/win_rate$")
_SUB_WIN = re.compile(r"^vs_(.+)/eval/win_rate/(\d+)p$")
_RATING = re.compile(r"^rating/(elo|openskill_ordinal)(?:/(\d+)p)?$")
RATING_LABELS = {
    "elo": "rating (Elo scale, random = 0)",
    "openskill_ordinal": "OpenSkill ordinal (earlier runs, random = 0)",
}
"""The label of each kind of rating tag; the first is the one runs log now."""

Scalars = dict[str, list[tuple[int, float]]]


class ScalarsError(ValueError):
    """A run directory or an export that cannot be read; the message says why."""


def read_run(run_dir: str | Path) -> Scalars:
    """Every scalar of a run's event files: tag -> [(step, value)] sorted by step."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tb = Path(run_dir) / "tb"
    dirs = sorted({p.parent for p in tb.rglob("events.out.tfevents.*")})
    if not dirs:
        raise ScalarsError(f"no TensorBoard event files under {tb}")
    merged: dict[str, dict[int, float]] = {}
    for d in dirs:
        sub = "/".join(d.relative_to(tb).parts[1:])  # "" for a segment, "vs_greedy" inside it
        acc = EventAccumulator(str(d), size_guidance={"scalars": 0})  # 0: keep every point
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            for ev in acc.Scalars(tag):
                merged.setdefault(f"{sub}/{tag}" if sub else tag, {})[ev.step] = ev.value
    return {tag: sorted(points.items()) for tag, points in sorted(merged.items())}


def export_run(run_dir: str | Path, tags: str = DEFAULT_TAGS, note: str = "") -> dict[str, Any]:
    """The compact export of a run (module docstring)."""
    run = Path(run_dir)
    keep = re.compile(tags)
    scalars = {t: v for t, v in read_run(run).items() if keep.search(t)}
    state: dict[str, Any] = {}
    if (run / "state.json").exists():
        state = json.loads((run / "state.json").read_text())
    config = state.get("config")
    if config is None and (run / "config.json").exists():
        config = json.loads((run / "config.json").read_text())
    return {
        "format": FORMAT,
        "run": run.name,
        "note": note,
        "step": state.get("step"),
        "config": config,
        "bc": state.get("bc"),
        "best": state.get("best"),
        "scalars": {t: [[s, round(float(v), 6)] for s, v in pts] for t, pts in scalars.items()},
    }


def write_export(doc: dict[str, Any], out: str | Path) -> Path:
    """JSON (or, for a ``.csv`` path, the long ``tag,step,value`` table), written atomically."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["tag", "step", "value"])
        for tag, pts in doc["scalars"].items():
            w.writerows([tag, s, v] for s, v in pts)
        text = buf.getvalue()
    else:
        text = json.dumps(doc, indent=None, separators=(",", ":")) + "\n"
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out


def load_export(path: str | Path) -> dict[str, Any]:
    """An export written by :func:`write_export` (JSON, or the CSV with scalars only)."""
    path = Path(path)
    if not path.is_file():
        raise ScalarsError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        scalars: dict[str, list[list[float]]] = {}
        rows = list(csv.DictReader(io.StringIO(text)))
        if rows and set(rows[0]) != {"tag", "step", "value"}:
            raise ScalarsError(f"{path}: expected the columns tag,step,value")
        for r in rows:
            scalars.setdefault(r["tag"], []).append([int(r["step"]), float(r["value"])])
        return {"format": FORMAT, "run": path.stem, "config": None, "scalars": scalars}
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ScalarsError(f"{path} is not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ScalarsError(f"{path} is not a scalars export (format {FORMAT!r})")
    return doc


def scalars_of(doc_or_scalars: dict[str, Any]) -> Scalars:
    """The tag -> [(step, value)] mapping of an export (or of :func:`read_run`'s result)."""
    raw = doc_or_scalars.get("scalars", doc_or_scalars)
    return {t: [(int(s), float(v)) for s, v in pts] for t, pts in raw.items()}


def win_rate_curves(scalars: Scalars) -> dict[int | None, dict[str, dict[str, list[float]]]]:
    """Per evaluated count (None: the count is not in the tags, the flat one-count layout)
    and bot: ``steps``, ``win_rate``, ``lo``, ``hi`` (missing bounds repeat the rate) and
    ``chance`` (from the `chance` sub-run, or `eval/chance`, when logged; else empty)."""
    out: dict[int | None, dict[str, dict[str, list[float]]]] = {}
    for tag, pts in scalars.items():
        sub = _SUB_WIN.match(tag)
        m = sub or _WIN.match(tag)
        if not m:
            continue
        if sub:  # vs_<bot>/eval/win_rate/<n>p, the chance rate in the chance sub-run
            bot, n = sub.group(1), int(sub.group(2))
            lo_tag, hi_tag = (f"vs_{bot}/eval/win_rate_{k}/{n}p" for k in ("lo", "hi"))
            chance_tag = f"chance/eval/win_rate/{n}p"
        else:
            bot, n = m.group(2), int(m.group(1)) if m.group(1) else None
            lo_tag, hi_tag = tag + "_lo", tag + "_hi"
            chance_tag = ("eval" if n is None else f"eval/{n}p") + "/chance"
        lo = dict(scalars.get(lo_tag, []))
        hi = dict(scalars.get(hi_tag, []))
        chance = dict(scalars.get(chance_tag, []))
        steps = [s for s, _ in pts]
        out.setdefault(n, {})[bot] = {
            "steps": steps,
            "win_rate": [v for _, v in pts],
            "lo": [lo.get(s, v) for s, v in pts],
            "hi": [hi.get(s, v) for s, v in pts],
            "chance": [chance[s] for s in steps if s in chance],
        }
    return out


def rating_curves(scalars: Scalars) -> dict[int | None, dict[str, Any]]:
    """The learner's rating over a run, per evaluated count (None: over every count's games):
    ``tag``, ``label`` (:data:`RATING_LABELS`), ``steps`` and ``rating``. `rating/elo[/<n>p]`
    where a run logged it, else an earlier run's `rating/openskill_ordinal[/<n>p]`; empty
    when there is neither."""
    out: dict[int | None, dict[str, Any]] = {}
    for tag, pts in sorted(scalars.items()):
        m = _RATING.match(tag)
        if not m:
            continue
        n = int(m.group(2)) if m.group(2) else None
        if n in out and out[n]["tag"].startswith("rating/elo"):
            continue  # a run resumed across the change: its current rating wins
        out[n] = {
            "tag": tag,
            "label": RATING_LABELS[m.group(1)],
            "steps": [s for s, _ in pts],
            "rating": [v for _, v in pts],
        }
    return out
