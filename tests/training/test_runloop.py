"""The run loop every trainer shares (`training.runloop`): a run stopped at any moment is
continued by `--resume`, and a new run in a directory that holds one is refused unless
`--resume` or `--force`.

A Ctrl+C is simulated by a `KeyboardInterrupt` raised from one of the loop's steps (the
evaluation, or the trainer's own training hook)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")

import training.allseat.loop as allseat_loop  # noqa: E402
import training.runloop as runloop  # noqa: E402
from apps.cli import app  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.rundir import TrainError  # noqa: E402
from training.train import resume_config, train  # noqa: E402

runner = CliRunner()


def _cfg(run_dir: Path, **kw) -> TrainConfig:
    base = dict(
        run_dir=str(run_dir),
        mode="all_seat",
        num_players=[2],
        player_weights=[1.0],
        net_arch=[8],
        n_games=2,
        n_steps=64,
        n_envs=1,
        batch_size=64,
        n_epochs=1,
        total_steps=200,
        eval_every=100,
        checkpoint_every=100,
        snapshot_every=100,
        bots=["greedy"],
        eval_bots=["random"],
        eval_games=2,
        eval_num_players=2,
        progress=False,
        torch_threads=1,
    )
    base.update(kw)
    return TrainConfig(**base)


def _stop_at_evaluation(monkeypatch, which: int) -> list[int]:
    """Ctrl+C at the `which`-th evaluation (0: the one at the start); the steps evaluated."""
    calls: list[int] = []
    real = runloop.evaluate

    def evaluate(path, cfg, step, *args, **kwargs):
        calls.append(step)
        if len(calls) == which + 1:
            raise KeyboardInterrupt
        return real(path, cfg, step, *args, **kwargs)

    monkeypatch.setattr(runloop, "evaluate", evaluate)
    return calls


def _state(run: Path) -> dict:
    return json.loads((run / "state.json").read_text())


def _finished(run: Path, state: dict, total: int) -> None:
    assert state["step"] >= total and _state(run)["step"] == state["step"]
    assert (run / state["checkpoint"]).is_file() and (run / "best.npz").is_file()
    steps = [e["step"] for e in state["evals"]]
    assert steps[0] == 0 and steps[-1] == state["step"] and len(set(steps)) == len(steps)
    assert not (run / "trainer.lock").exists()


def test_ctrl_c_at_the_first_evaluation_leaves_a_run_that_resume_continues(tmp_path, monkeypatch):
    run = tmp_path / "run"
    _stop_at_evaluation(monkeypatch, 0)
    with pytest.raises(KeyboardInterrupt):
        train(_cfg(run))
    # the step-0 checkpoint was written before the evaluation, and state.json names it
    assert _state(run)["checkpoint"] == "checkpoints/step_0.npz"
    assert (run / "checkpoints" / "step_0.pt").is_file() and not (run / "trainer.lock").exists()
    monkeypatch.undo()
    state = train(resume_config(run), resume=True)
    _finished(run, state, 200)


def test_ctrl_c_before_the_first_checkpoint_restarts_the_run_on_resume(tmp_path, monkeypatch):
    """Stopped in the trainer's own hook before anything was saved: --resume starts the run
    again from step 0 with its own settings, and ends where an uninterrupted run ends."""
    run, clean = tmp_path / "run", tmp_path / "clean"

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(allseat_loop, "Rollout", stop)
    with pytest.raises(KeyboardInterrupt):
        train(_cfg(run))
    assert _state(run)["checkpoint"] is None and not list(run.glob("checkpoints/*"))
    monkeypatch.undo()
    notes: list[str] = []
    state = train(resume_config(run), resume=True, notify=notes.append)
    assert any("before its first checkpoint" in n for n in notes), notes
    _finished(run, state, 200)
    again = train(_cfg(clean))
    assert state["step"] == again["step"]
    assert [e["score"] for e in state["evals"]] == [e["score"] for e in again["evals"]]


def test_ctrl_c_in_the_middle_leaves_a_run_that_resume_continues(tmp_path, monkeypatch):
    run = tmp_path / "run"
    calls = _stop_at_evaluation(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        train(_cfg(run))
    stopped = _state(run)
    assert calls[0] == 0 and calls[1] > 0 and stopped["step"] < 200
    monkeypatch.undo()
    state = train(resume_config(run), resume=True)
    _finished(run, state, 200)


def test_a_single_seat_run_stopped_at_its_first_evaluation_is_resumed(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "sb3"
    cfg = _cfg(run, mode="single_seat", vec_env="dummy", n_steps=128, total_steps=256)
    _stop_at_evaluation(monkeypatch, 0)
    with pytest.raises(KeyboardInterrupt):
        train(cfg)
    assert _state(run)["checkpoint"] == "checkpoints/step_0.zip"
    monkeypatch.undo()
    state = train(resume_config(run), resume=True)
    assert state["step"] >= 256 and (run / "best.zip").is_file()


def test_a_used_directory_is_refused_unless_resume_or_force(tmp_path):
    run = tmp_path / "run"
    first = train(_cfg(run, total_steps=100))
    mine = run / "notes.txt"  # not a file of the run: --force leaves it
    mine.write_text("mine")
    with pytest.raises(TrainError, match="already holds a run") as e:
        train(_cfg(run, total_steps=100))
    assert str(run) in str(e.value) and "--resume" in str(e.value) and "--force" in str(e.value)
    # the command line: exit 2 naming the directory and both flags
    args = ["train", "--mode", "all_seat", "--run-dir", str(run), "--no-progress"]
    res = runner.invoke(app, args, env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "--resume" in res.output and "--force" in res.output
    # --force: a new run in its place (the old run's files removed, other files kept)
    (run / "snapshots" / "step_stale.npz").parent.mkdir(exist_ok=True)
    (run / "snapshots" / "step_stale.npz").write_bytes(b"x")
    notes: list[str] = []
    forced = train(_cfg(run, total_steps=100, seed=1), force=True, notify=notes.append)
    assert any("--force: removed the earlier run" in n for n in notes), notes
    assert not (run / "snapshots" / "step_stale.npz").exists() and mine.read_text() == "mine"
    assert forced["config"]["seed"] == 1 and [e["step"] for e in forced["evals"]][0] == 0
    assert first["config"]["seed"] == 0
    # --resume: continues it (a longer budget)
    more = train(resume_config(run, total_steps=200), resume=True)
    assert more["step"] >= 200 and more["config"]["seed"] == 1
    with pytest.raises(TrainError, match="give one of them"):
        train(_cfg(run), resume=True, force=True)


def test_force_in_a_directory_without_a_run_touches_nothing(tmp_path):
    from training.rundir import clear_run

    run = tmp_path / "d"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "keep.txt").write_text("not a run")
    assert clear_run(run) == []
    assert (run / "checkpoints" / "keep.txt").exists()


# -- an exact resume -------------------------------------------------------------------------


def _exact(run_dir: Path, **kw) -> TrainConfig:
    """A short all-seat run whose training draws from every source a resume must keep: the
    rollout's seating and sampling, the update's minibatches, a bot that explores, PFSP
    weights over snapshots."""
    base = dict(
        num_players=[2, 3],
        player_weights=[1.0, 1.0],
        n_games=3,
        n_steps=128,
        total_steps=2000,
        bots=["greedy:eps=0.3", "random"],
        p_latest=0.2,
        p_bots_min=0.4,
        snapshot_every=300,
        snapshot_window=2,
        checkpoint_every=350,
        eval_every=100_000,
        seed=3,
    )
    base.update(kw)
    return _cfg(run_dir, **base)


def _digests(run: Path, pattern: str) -> dict[str, str]:
    import hashlib

    return {
        str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run.glob(pattern))
        if p.suffix in (".npz", ".pt")
    }


def _stop_after(monkeypatch, name: str, which: int) -> list[int]:
    """Ctrl+C just after the `which`-th call (0: the first) of the run loop's step `name`."""
    calls: list[int] = []
    real = getattr(runloop.RunLoop, name)

    def stop(self, step, *args):
        real(self, step, *args)
        calls.append(step)
        if len(calls) == which + 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(runloop.RunLoop, name, stop)
    return calls


@pytest.mark.parametrize(
    "where, which, over",
    [
        ("_checkpoint", 0, {}),
        ("_checkpoint", 2, {}),  # the third: two snapshots, their weights set earlier
        # the first evaluation after the start, a checkpoint due at the same step still to do
        ("evaluate", 1, {"eval_every": 350}),
    ],
)
def test_a_run_stopped_at_a_checkpoint_resumes_exactly(tmp_path, monkeypatch, where, which, over):
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    whole = train(_exact(straight, **over))
    calls = _stop_after(monkeypatch, where, which)
    with pytest.raises(KeyboardInterrupt):
        train(_exact(stopped, **over))
    assert _state(stopped)["step"] == calls[-1] > 0 and "random_state" in _state(stopped)
    monkeypatch.undo()
    resumed = train(resume_config(stopped), resume=True)
    assert resumed["step"] == whole["step"]
    assert _digests(stopped, "checkpoints/*") == _digests(straight, "checkpoints/*")
    assert _digests(stopped, "snapshots/*") == _digests(straight, "snapshots/*")
    assert [e["step"] for e in resumed["evals"]] == [e["step"] for e in whole["evals"]]
    pools = [json.loads((r / "pool.json").read_text()) for r in (stopped, straight)]
    assert pools[0] == pools[1]


def test_a_state_without_random_state_resumes_as_before(tmp_path, monkeypatch):
    """A run written before the random state was saved: --resume reseeds from the step and
    goes on to the end."""
    run = tmp_path / "old"
    _stop_after(monkeypatch, "_checkpoint", 0)
    with pytest.raises(KeyboardInterrupt):
        train(_exact(run))
    monkeypatch.undo()
    old = _state(run)
    del old["random_state"]
    (run / "state.json").write_text(json.dumps(old))
    state = train(resume_config(run), resume=True)
    _finished(run, state, 2000)


def test_a_damaged_random_state_is_refused_by_name(tmp_path, monkeypatch):
    run = tmp_path / "bad"
    _stop_after(monkeypatch, "_checkpoint", 0)
    with pytest.raises(KeyboardInterrupt):
        train(_exact(run))
    monkeypatch.undo()
    old = _state(run)
    old["random_state"]["update"] = "not a state"
    (run / "state.json").write_text(json.dumps(old))
    with pytest.raises(TrainError, match="random_state"):
        train(resume_config(run), resume=True)


def test_a_snapshot_the_pool_never_recorded_is_removed_on_resume(tmp_path, monkeypatch):
    """Stopped between writing a snapshot and recording it in pool.json: the snapshot's
    files are removed when the run resumes, with a note, and what stays is what pool.json
    records."""
    from training.pool import PoolRegistry

    run = tmp_path / "run"
    real = PoolRegistry.add
    added: list[int] = []

    def add(self, info):
        if info.step > 700:  # after the first checkpoint
            added.append(info.step)
            raise KeyboardInterrupt
        real(self, info)

    monkeypatch.setattr(PoolRegistry, "add", add)
    with pytest.raises(KeyboardInterrupt):
        train(_exact(run))
    monkeypatch.undo()
    orphan = run / "snapshots" / f"step_{added[0]}.npz"
    assert orphan.is_file() and 0 < _state(run)["step"] < added[0]
    notes: list[str] = []
    stop = _state(run)["step"]
    train(resume_config(run, total_steps=stop), resume=True, notify=notes.append)
    assert not list(run.glob(f"snapshots/step_{added[0]}.*"))
    assert any(f"snapshots/step_{added[0]}" in n for n in notes), notes
    registered = {s["path"] for s in json.loads((run / "pool.json").read_text())["snapshots"]}
    on_disk = {str(p.relative_to(run)) for p in run.glob("snapshots/*.npz")}
    assert on_disk == registered


def test_eval_every_0_evaluates_only_at_the_start_and_the_end(tmp_path):
    """`eval_every = 0` (a range every trainer shares, `training.config.RunConfig`): the
    evaluations at the start and at the end, none between."""
    state = train(_cfg(tmp_path / "run", eval_every=0, total_steps=200))
    assert [e["step"] for e in state["evals"]] == [0, state["step"]] and state["step"] >= 200
    assert state["mode"] == "all_seat"
