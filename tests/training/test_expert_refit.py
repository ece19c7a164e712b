"""`lastwill expert-fit` (`training.expert.refit`): the run's start network fitted again on its
saved search samples, written as a checkpoint of its own; the run directory is never written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from expert_runs import REF, tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from agents.registry import make_agent  # noqa: E402
from apps.cli import app  # noqa: E402
from lastwill_env.engine import legal_actions, new_game, player_view  # noqa: E402
from training.expert import expert  # noqa: E402
from training.expert.refit import RefitError, best_move_targets, refit  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A two-iteration expert run at 2 players (4 simulations, one game per iteration)."""
    path = tmp_path_factory.mktemp("refit") / "run"
    cfg = tiny(path, eval_every=0)
    expert(cfg)
    return path


def _listing(path: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in sorted(path.rglob("*")) if p.is_file()}


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_a_refit_writes_a_checkpoint_that_plays_and_leaves_the_run_alone(run, tmp_path):
    before = _listing(run)
    out = tmp_path / "fit" / "a.npz"
    losses = refit(run, [1, 2], out, learning_rate=1e-3, epochs=3, seed=5)
    assert {"policy_loss", "policy_loss_before", "agreement", "value_loss"} <= set(losses)
    assert all(np.isfinite(v) for v in losses.values())
    assert _listing(run) == before
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["trainer"] == "expert_refit" and side["target"] == "visits"
    assert side["samples"]["iterations"] == [1, 2] and side["samples"]["count"] > 0
    assert side["expert"]["learning_rate"] == 1e-3 and side["expert"]["epochs"] == 3
    got, start = _arrays(out), _arrays(Path(REF))
    assert any(not np.array_equal(got[k], start[k]) for k in got if k.startswith("w"))
    s = new_game(2, 11)
    agent = make_agent(f"ppo:{out}", seed=0)
    assert agent.act(player_view(s, s.cur), legal_actions(s)) in legal_actions(s)
    again = tmp_path / "fit" / "b.npz"
    refit(run, [1, 2], again, learning_rate=1e-3, epochs=3, seed=5)
    assert all(np.array_equal(got[k], _arrays(again)[k]) for k in got)


def test_the_best_move_target_differs_from_the_visit_target(run, tmp_path):
    soft, hard = tmp_path / "soft.npz", tmp_path / "hard.npz"
    refit(run, [2], soft, learning_rate=1e-3, epochs=2)
    refit(run, [2], hard, "best", learning_rate=1e-3, epochs=2)
    assert json.loads(hard.with_suffix(".json").read_text())["target"] == "best"
    a, b = _arrays(soft), _arrays(hard)
    assert any(not np.array_equal(a[k], b[k]) for k in a)


def test_best_move_targets_are_one_hot_on_the_most_visited_action():
    data = {
        "legal_len": np.array([3, 2, 3]),
        "legal": np.array([4, 9, 2, 1, 3, 5, 6, 7]),
        "visits": np.array([1, 5, 5, 0, 0, 2, 7, 1], dtype=np.float32),
        "n": np.array([2, 2, 2]),
    }
    out = best_move_targets(data)
    assert out["visits"].tolist() == [0, 1, 0, 0, 0, 0, 1, 0]  # a tie goes to the first
    assert out["visits"].dtype == np.float32 and data["visits"][1] == 5  # the input is kept
    assert out["legal"] is data["legal"]


def test_bad_refits_are_refused_and_write_nothing(run, tmp_path):
    with pytest.raises(RefitError, match=r"no samples of iteration\(s\) \[7\]; it holds \[1, 2\]"):
        refit(run, [1, 7], tmp_path / "x.npz")
    with pytest.raises(RefitError, match="distinct"):
        refit(run, [1, 1], tmp_path / "x.npz")
    with pytest.raises(RefitError, match="ending in .npz"):
        refit(run, [1], tmp_path / "x.pt")
    with pytest.raises(RefitError, match="target 'argmax' is not allowed; choose visits or best"):
        refit(run, [1], tmp_path / "x.npz", "argmax")
    with pytest.raises(RefitError, match="learning_rate=-1.0 is not allowed"):
        refit(run, [1], tmp_path / "x.npz", learning_rate=-1.0)
    with pytest.raises(RefitError, match="epochs=0 would fit nothing"):
        refit(run, [1], tmp_path / "x.npz", epochs=0)
    with pytest.raises(RefitError, match="not an expert-iteration run"):
        refit(tmp_path, [1], tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()
    taken = tmp_path / "taken.npz"
    taken.write_bytes(b"keep me")
    with pytest.raises(RefitError, match="exists; choose a new path"):
        refit(run, [1], taken)
    assert taken.read_bytes() == b"keep me"


def test_the_command_fits_and_refuses_bad_input_with_exit_code_2(run, tmp_path):
    out = tmp_path / "cli.npz"
    args = ["expert-fit", "--run-dir", str(run), "--samples", "1,2", "--out", str(out)]
    r = CliRunner().invoke(app, [*args, "--epochs", "1", "--target", "best"])
    assert r.exit_code == 0, r.output
    assert "wrote" in r.output and out.exists()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2 and "exists; choose a new path" in r.output
    r = CliRunner().invoke(app, [*args[:4], "1,x", "--out", str(tmp_path / "y.npz")])
    assert r.exit_code == 2 and "--samples '1,x' is not allowed" in r.output
    r = CliRunner().invoke(app, [*args[:4], "2-1", "--out", str(tmp_path / "y.npz")])
    assert r.exit_code == 2 and "spans such as 1-40" in r.output
    span = tmp_path / "span.npz"
    r = CliRunner().invoke(app, [*args[:4], "1-2", "--out", str(span), "--epochs", "1"])
    assert r.exit_code == 0, r.output
    assert json.loads(span.with_suffix(".json").read_text())["samples"]["iterations"] == [1, 2]
    assert not (tmp_path / "y.npz").exists()
