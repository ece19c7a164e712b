"""agents.scalars and labreports.export_scalars: a run's TensorBoard scalars, merged over
resumed segments, exported compactly and read back; the evaluation curves picked out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from paths import REPO  # noqa: E402

from agents.scalars import (  # noqa: E402
    ScalarsError,
    export_run,
    load_export,
    rating_curves,
    read_run,
    scalars_of,
    win_rate_curves,
    write_export,
)

ROOT = REPO


def _segment(run: Path, name: str, points: dict[str, list[tuple[int, float]]]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(run / "tb" / name))
    for tag, pts in points.items():
        for step, value in pts:
            w.add_scalar(tag, value, step)
    w.close()


@pytest.fixture
def run(tmp_path: Path) -> Path:
    run = tmp_path / "myrun"
    _segment(
        run,
        "PPO_1",
        {
            "eval/vs_greedy/win_rate": [(100, 0.2), (200, 0.3)],
            "eval/vs_greedy/win_rate_lo": [(100, 0.1), (200, 0.2)],
            "eval/vs_greedy/win_rate_hi": [(100, 0.35), (200, 0.45)],
            "eval/chance": [(100, 0.25), (200, 0.25)],
            "train/learning_rate": [(100, 3e-4)],
        },
    )
    _segment(  # a resumed segment: step 200 again (it wins), then 300
        run, "PPO_2", {"eval/vs_greedy/win_rate": [(200, 0.5), (300, 0.6)]}
    )
    (run / "state.json").write_text(
        json.dumps({"step": 300, "config": {"eval_num_players": 4}, "bc": {"bc_accuracy": 0.9}})
    )
    return run


def test_read_run_merges_segments_by_step(run):
    scalars = read_run(run)
    got = [(s, round(v, 6)) for s, v in scalars["eval/vs_greedy/win_rate"]]
    assert got == [(100, 0.2), (200, 0.5), (300, 0.6)]
    with pytest.raises(ScalarsError, match="no TensorBoard event files"):
        read_run(run.parent / "nothing")


def test_export_keeps_the_chosen_tags_and_round_trips(run, tmp_path):
    doc = export_run(run, note="a test run")
    assert doc["run"] == "myrun" and doc["step"] == 300 and doc["note"] == "a test run"
    assert doc["bc"] == {"bc_accuracy": 0.9} and doc["config"]["eval_num_players"] == 4
    assert "train/learning_rate" not in doc["scalars"]  # not in the default tags
    assert "eval/chance" in doc["scalars"]
    back = load_export(write_export(doc, tmp_path / "e.json"))
    assert back == json.loads(json.dumps(doc))
    csv_back = load_export(write_export(doc, tmp_path / "e.csv"))
    assert scalars_of(csv_back) == scalars_of(doc)
    only = export_run(run, tags=r"^train/")
    assert list(only["scalars"]) == ["train/learning_rate"]


def test_win_rate_curves_both_layouts(run):
    curves = win_rate_curves(read_run(run))
    c = curves[None]["greedy"]
    assert c["steps"] == [100, 200, 300]
    assert c["lo"][:2] == pytest.approx([0.1, 0.2]) and c["lo"][2] == pytest.approx(0.6)
    assert c["chance"] == [0.25, 0.25]
    per_count = {
        "eval/2p/vs_planner/win_rate": [(10, 0.7)],
        "eval/2p/vs_planner/win_rate_lo": [(10, 0.6)],
        "eval/4p/vs_planner/win_rate": [(10, 0.4)],
        "eval/4p/chance": [(10, 0.25)],
        "eval/4p/vs_planner/mean_rank": [(10, 2.0)],
    }
    curves = win_rate_curves(per_count)
    assert set(curves) == {2, 4}
    assert curves[2]["planner"]["lo"] == [0.6] and curves[4]["planner"]["chance"] == [0.25]


def test_sub_runs_are_read_under_their_names_and_give_curves(tmp_path):
    """The evaluation's sub-runs of `training.tblog` (one per bot, and `chance`) keep the same
    tags apart: read as `<sub-run>/<tag>`, exported by default, and picked out as curves."""
    run = tmp_path / "subruns"
    _segment(run, "PPO_1", {"eval/score": [(0, 1.0)], "train/learning_rate": [(0, 1e-4)]})
    for bot, rates in (("greedy", [0.2, 0.4]), ("planner", [0.1, 0.3])):
        _segment(
            run,
            f"PPO_1/vs_{bot}",
            {
                "eval/win_rate/2p": [(0, rates[0]), (50, rates[1])],
                "eval/win_rate_lo/2p": [(0, rates[0] - 0.1), (50, rates[1] - 0.1)],
                "eval/win_rate_hi/2p": [(0, rates[0] + 0.1), (50, rates[1] + 0.1)],
            },
        )
    _segment(run, "PPO_1/chance", {"eval/win_rate/2p": [(0, 0.5), (50, 0.5)]})
    scalars = read_run(run)
    assert {"eval/score", "vs_greedy/eval/win_rate/2p", "vs_planner/eval/win_rate/2p"} <= set(
        scalars
    )
    assert "eval/win_rate/2p" not in scalars  # never merged across bots
    assert [round(v, 6) for _, v in scalars["vs_planner/eval/win_rate/2p"]] == [0.1, 0.3]
    doc = export_run(run)
    assert (
        "chance/eval/win_rate/2p" in doc["scalars"]
        and "vs_greedy/eval/win_rate_lo/2p" in (doc["scalars"])
    )
    assert "train/learning_rate" not in doc["scalars"]
    curves = win_rate_curves(scalars_of(doc))
    assert set(curves) == {2} and set(curves[2]) == {"greedy", "planner"}
    c = curves[2]["greedy"]
    assert c["steps"] == [0, 50] and c["win_rate"] == pytest.approx([0.2, 0.4])
    assert c["lo"] == pytest.approx([0.1, 0.3]) and c["chance"] == [0.5, 0.5]


def test_rating_curves_read_the_elo_tags_and_an_earlier_runs_openskill_ones():
    new = {
        "rating/elo": [(0, -20.0), (50, 35.5)],
        "rating/elo/2p": [(0, -10.0), (50, 40.0)],
        "rating/elo_x": [(0, 1.0)],
        "eval/score": [(0, 1.0)],
    }
    curves = rating_curves(new)
    assert set(curves) == {None, 2}
    assert curves[None] == {
        "tag": "rating/elo",
        "label": "rating (Elo scale, random = 0)",
        "steps": [0, 50],
        "rating": [-20.0, 35.5],
    }
    assert curves[2]["tag"] == "rating/elo/2p" and curves[2]["rating"] == [-10.0, 40.0]
    old = {"rating/openskill_ordinal": [(0, 1.5)], "rating/openskill_ordinal/2p": [(0, 2.0)]}
    curves = rating_curves(old)
    assert curves[None]["tag"] == "rating/openskill_ordinal" and curves[2]["rating"] == [2.0]
    assert "OpenSkill" in curves[None]["label"] and "earlier" in curves[None]["label"]
    both = rating_curves({**old, "rating/elo": [(100, 7.0)]})  # resumed across the change
    assert both[None]["tag"] == "rating/elo" and both[2]["tag"] == "rating/openskill_ordinal/2p"
    assert rating_curves({"eval/score": [(0, 1.0)]}) == {}


def test_the_shipped_export_has_a_rating_curve():
    doc = load_export(ROOT / "notebooks" / "data" / "quick_run_scalars.json")
    curve = rating_curves(scalars_of(doc))[None]
    assert curve["tag"] == "rating/openskill_ordinal" and len(curve["steps"]) >= 3


def test_load_export_rejects_other_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "something else"}')
    with pytest.raises(ScalarsError, match="not a scalars export"):
        load_export(p)
    p.write_text("nope")
    with pytest.raises(ScalarsError, match="not JSON"):
        load_export(p)
    with pytest.raises(ScalarsError, match="no such file"):
        load_export(tmp_path / "missing.json")


def _script(*args):
    return subprocess.run(
        [sys.executable, "-m", "labreports.export_scalars", *map(str, args)],
        capture_output=True,
        text=True,
    )


def test_export_script(run, tmp_path):
    res = _script(run, tmp_path / "out.json", "--note", "n")
    assert res.returncode == 0, res.stderr
    assert "wrote" in res.stdout and load_export(tmp_path / "out.json")["note"] == "n"
    bad = _script(run, tmp_path / "out.txt")
    assert bad.returncode == 2 and "must end in .json or .csv" in bad.stderr
    missing = _script(tmp_path / "none", tmp_path / "o.json")
    assert missing.returncode == 2 and "no TensorBoard event files" in missing.stderr
    regex = _script(run, tmp_path / "o.json", "--tags", "(")
    assert regex.returncode == 2 and "not a regular expression" in regex.stderr


def test_the_shipped_export_is_a_real_run():
    doc = load_export(ROOT / "notebooks" / "data" / "quick_run_scalars.json")
    curves = win_rate_curves(scalars_of(doc))
    assert curves and doc["step"] >= doc["config"]["total_steps"] > 0
    for c in next(iter(curves.values())).values():
        assert len(c["steps"]) >= 3 and all(
            lo <= w <= hi for w, lo, hi in zip(c["win_rate"], c["lo"], c["hi"], strict=True)
        )


def test_the_quick_recipe_is_the_shipped_run_and_it_learns():
    from training.config import load_config

    cfg = load_config(ROOT / "training" / "configs" / "quick.toml")
    doc = load_export(ROOT / "notebooks" / "data" / "quick_run_scalars.json")
    assert {k: doc["config"][k] for k in ("total_steps", "seed", "num_players", "eval_bots")} == {
        "total_steps": cfg.total_steps,
        "seed": cfg.seed,
        "num_players": cfg.num_players,
        "eval_bots": cfg.eval_bots,
    }
    curves = win_rate_curves(scalars_of(doc))
    for bot, c in curves[2].items():  # the last evaluation clears the first, intervals apart
        assert c["lo"][-1] > c["hi"][0], bot
