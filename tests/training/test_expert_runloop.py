"""Expert iteration on the shared run loop (`training.expert.trainer.ExpertTrainer`): chosen by
`mode` like every trainer, stopped at any moment and resumed to the files a straight run
writes, a state written before the run loop resumed as the same run, `--force`, and a resume
by another trainer refused by name."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from expert_runs import tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from apps.cli import app  # noqa: E402
from training import runloop  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.expert import ExpertError, expert  # noqa: E402
from training.rundir import TrainError  # noqa: E402
from training.train import resumed_mode, train  # noqa: E402


def _digests(run: Path) -> dict[str, str]:
    """sha256 of the run's network and samples files (no timestamps in them): of the bytes of
    the `.npz` files, of the values of the `.pt` learner states (torch writes a state loaded
    on a resume with other bytes, the same values: so did expert iteration before the run
    loop)."""
    return {
        str(p.relative_to(run)): _learner(p) if p.suffix == ".pt" else _sha(p.read_bytes())
        for p in sorted(run.rglob("*"))
        if p.suffix in (".npz", ".pt") and p.is_file()
    }


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _learner(path: Path) -> str:
    import torch

    saved = torch.load(path, weights_only=True)
    parts = [json.dumps(saved["optimizer"]["param_groups"], sort_keys=True).encode()]
    parts += [v.numpy().tobytes() for _, v in sorted(saved["model"].items())]
    for _, st in sorted(saved["optimizer"]["state"].items()):
        parts += [st[k].numpy().tobytes() for k in sorted(st)]
    return _sha(b"".join(parts) + str(saved["step"]).encode())


def _state(run: Path) -> dict:
    return json.loads((run / "state.json").read_text())


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    """Three iterations without a stop."""
    run = tmp_path_factory.mktemp("straight") / "run"
    st = train(tiny(run, iterations=3))  # the front door: mode "expert"
    assert st["mode"] == "expert" and st["step"] == st["iteration"] == 3
    return run


def test_the_front_door_runs_expert_iteration_by_its_mode(straight):
    st = _state(straight)
    assert resumed_mode(straight) == "expert"
    assert [r["iteration"] for r in st["history"]] == [1, 2, 3]
    assert [e["step"] for e in st["evals"]] == [0, 1, 2, 3]
    assert all("eval/score" in r for r in st["history"])  # each row has its evaluation
    assert sorted(p.name for p in (straight / "eval").iterdir()) == [
        f"iter_{k}.jsonl" for k in range(4)
    ]
    assert not (straight / "trainer.lock").exists()


@pytest.mark.parametrize("where, which", [("evaluate", 2), ("_checkpoint", 1)])
def test_a_run_stopped_anywhere_resumes_to_the_files_of_a_straight_run(
    straight, tmp_path, monkeypatch, where, which
):
    run = tmp_path / "run"
    calls: list[int] = []
    real = getattr(runloop.RunLoop, where)

    def stop(self, step, *args):
        if len(calls) == which:
            raise KeyboardInterrupt
        calls.append(step)
        real(self, step, *args)

    monkeypatch.setattr(runloop.RunLoop, where, stop)
    with pytest.raises(KeyboardInterrupt):
        expert(tiny(run, iterations=3))
    monkeypatch.undo()
    assert _state(run)["step"] < 3 and not (run / "trainer.lock").exists()
    st = expert(tiny(run, iterations=3), resume=True)
    assert st["step"] == 3 and [r["iteration"] for r in st["history"]] == [1, 2, 3]
    assert _digests(run) == _digests(straight)
    assert [e["step"] for e in st["evals"]] == [0, 1, 2, 3]


def test_a_state_from_before_the_run_loop_resumes_as_the_same_run(straight, tmp_path):
    run = tmp_path / "old"
    notes: list[str] = []
    expert(tiny(run, iterations=2))
    new = _state(run)
    best = new["best"]
    old = {
        "iteration": 2,
        "config": new["config"],
        "best": {
            "iteration": best["step"],
            "score": best["score"],
            "checkpoint": best["checkpoint"],
        },
        "history": new["history"],
    }
    (run / "state.json").write_text(json.dumps(old))
    (run / "config.json").unlink()
    assert resumed_mode(run) == "expert"
    st = expert(tiny(run, iterations=3), resume=True, notify=notes.append)
    assert any("rewritten in the run loop's form" in n for n in notes), notes
    assert st["step"] == 3 and st["mode"] == "expert" and st["best"]["step"] == best["step"]
    assert [e["step"] for e in st["evals"]] == [0, 1, 2, 3]
    assert _digests(run) == _digests(straight)


def test_force_starts_a_new_run_in_place_of_the_old_one(tmp_path):
    run = tmp_path / "run"
    expert(tiny(run, iterations=2, eval_every=0))
    notes: list[str] = []
    st = expert(tiny(run, iterations=1, eval_every=0, seed=5), force=True, notify=notes.append)
    assert st["step"] == 1 and st["config"]["seed"] == 5
    assert sorted(p.name for p in (run / "samples").iterdir()) == ["iter_1.npz"]
    assert not (run / "checkpoints" / "iter_2.npz").exists()
    assert any("--force: removed" in n for n in notes), notes


def test_another_trainer_does_not_resume_an_expert_run(tmp_path):
    run = tmp_path / "run"
    expert(tiny(run, iterations=1, eval_every=0))
    cfg = TrainConfig(run_dir=str(run), num_players=[2], player_weights=[1.0], progress=False)
    with pytest.raises(TrainError, match="holds a run of mode expert"):
        train(cfg, resume=True)
    with pytest.raises(ExpertError, match="holds no expert-iteration run"):
        expert(tiny(tmp_path / "none", iterations=1), resume=True)


def test_lastwill_train_mode_expert_runs_and_resumes_it(tmp_path):
    toml = tmp_path / "e.toml"
    toml.write_text(
        '[expert]\ninit_policy = "agents/policies/reference.npz"\ngames = 1\nsims = 4\n'
        "num_players = [2]\nplayer_weights = [1.0]\nepochs = 1\nbatch_size = 64\n"
        'eval_games = 2\neval_bots = ["greedy"]\neval_num_players = [2]\neval_every = 0\n'
    )
    run = tmp_path / "run"
    base = ["train", "-c", str(toml), "--run-dir", str(run), "--no-progress"]
    res = CliRunner().invoke(app, [*base, "--mode", "expert", "--total-steps", "1"])
    assert res.exit_code == 0, res.output
    assert "1 iterations" in res.output and _state(run)["mode"] == "expert"
    again = shutil.copytree(run, tmp_path / "again")
    args = ["train", "--resume", "--run-dir", str(again), "--total-steps", "2", "--no-progress"]
    res = CliRunner().invoke(app, args)  # the run's own trainer, without --mode
    assert res.exit_code == 0, res.output
    assert _state(again)["step"] == 2 and (again / "samples" / "iter_2.npz").is_file()
