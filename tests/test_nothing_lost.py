"""Nothing is lost late (docs/TRUST.md, "Nothing lost late"): the lock of a run directory, the
removal of temporary files that killed writes left, `lastwill exploit --resume`, the
evaluation log written as games finish (with `--resume` and a fallback file) and schedules
that are streamed, never built whole.

Every test asserts the exception or exit code with its message and what is on disk; no timing
or statistical assertion.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.safeio import remove_leftover_temps, temp_owner, temp_path

runner = CliRunner()


def _dead_pid() -> int:
    """The PID of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# ---------------------------------------------------------------------------------------------
# Temporary files of interrupted writes


def test_temp_names_name_their_writer():
    name = temp_path(Path("run/checkpoints/step_100.npz")).name
    assert temp_owner(name) == ("step_100", os.getpid(), ".npz")
    assert temp_owner(".log.tmp-12-abcdef") == ("log", 12, "")
    for other in ("step_100.npz", ".log.tmp-12-xyz123.npz", "log.tmp-12-abcdef", ".tmp-1-abcdef"):
        assert temp_owner(other) is None, other


def test_leftover_temps_of_ended_writers_are_removed_and_nothing_else(tmp_path: Path):
    dead, live = _dead_pid(), os.getppid()
    (tmp_path / "sub").mkdir()
    stale = [tmp_path / f".a.tmp-{dead}-abcdef.jsonl", tmp_path / "sub" / f".b.tmp-{dead}-012345"]
    kept = [
        tmp_path / f".a.tmp-{live}-abcdef.jsonl",  # a writer still running
        tmp_path / f".a.tmp-{os.getpid()}-abcdef.jsonl",  # this process's own
        tmp_path / ".a.tmp-notes.jsonl",  # not a name the lab makes
        tmp_path / "a.jsonl",
    ]
    for p in stale + kept:
        p.write_text("x")
    # `of` narrows it to one destination: only the .jsonl temp of a.jsonl, not sub/'s
    assert remove_leftover_temps(tmp_path, of=tmp_path / "a.jsonl") == [stale[0]]
    assert stale[1].exists()
    assert remove_leftover_temps(tmp_path, recursive=True) == [stale[1]]
    assert all(p.exists() for p in kept)
    assert remove_leftover_temps(tmp_path / "missing") == []


# ---------------------------------------------------------------------------------------------
# The lock of a run directory

HOLD = """
import sys, time
from training.runlock import run_lock
with run_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def held(tmp_path: Path):
    """A run directory whose lock another process holds; yields (run, that PID)."""
    run = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert proc.stdout.readline().strip() == "held"
        yield run, proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert not (run / "trainer.lock").exists()  # released: the file is removed


def test_a_second_trainer_is_refused_naming_the_holder(held):
    from training.rundir import TrainError
    from training.runlock import run_lock

    run, pid = held
    before = _files(run)
    with (
        pytest.raises(TrainError, match=f"in use by another trainer \\(PID {pid}"),
        run_lock(run),
    ):
        raise AssertionError("the block must not run")
    assert _files(run) == before


def test_train_and_exploit_commands_refuse_a_locked_run_directory(held):
    from training.cli import app

    run, pid = held
    before = _files(run)
    res = runner.invoke(
        app, ["train", "--run-dir", str(run), "--mode", "all_seat", "--no-progress"]
    )
    assert res.exit_code == 2, res.output
    assert f"PID {pid}" in res.output and "another trainer" in res.output
    res = runner.invoke(
        app, ["exploit", "--target", "greedy", "--steps", "10", "--run-dir", str(run)]
    )
    assert res.exit_code == 2, res.output
    assert f"PID {pid}" in res.output
    assert _files(run) == before  # nothing written, the holder's lock untouched


def test_a_stale_lock_is_taken_over_with_a_note(tmp_path: Path):
    from training.runlock import run_lock

    run = tmp_path / "run"
    run.mkdir()
    dead = _dead_pid()
    (run / "trainer.lock").write_text(json.dumps({"pid": dead, "host": "h"}))
    (run / "state.json").write_text("{}")
    notes: list[str] = []
    with run_lock(run, notes.append):
        holder = json.loads((run / "trainer.lock").read_text())
        assert holder["pid"] == os.getpid()
        with run_lock(run, notes.append):  # the holder may enter again
            pass
        assert (run / "trainer.lock").exists()
    assert len(notes) == 1 and f"stale lock of {run} (PID {dead} on h" in notes[0]
    assert not (run / "trainer.lock").exists()
    assert (run / "state.json").read_text() == "{}"


def test_a_run_start_removes_the_temps_of_killed_writes(tmp_path: Path):
    from training.runlock import run_lock

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    dead = _dead_pid()
    left = run / "checkpoints" / f".step_100.tmp-{dead}-a1b2c3.npz"
    left.write_bytes(b"part")
    mine = run / "checkpoints" / "notes.tmp"
    mine.write_text("keep")
    notes: list[str] = []
    with run_lock(run, notes.append):
        assert not left.exists() and mine.read_text() == "keep"
    assert notes == [
        f"note: removed 1 temporary file(s) left by interrupted writes in {run}: "
        f"checkpoints/.step_100.tmp-{dead}-a1b2c3.npz"
    ]


# ---------------------------------------------------------------------------------------------
# lastwill exploit --resume

SMALL = {
    "n_games": 4,
    "n_steps": 100,
    "n_envs": 1,
    "batch_size": 64,
    "n_epochs": 1,
    "torch_threads": 1,
    "net_arch": [16],
}


def _exploit(run: Path, **kw):
    from training.exploit import exploit

    return exploit(
        "greedy",
        2,
        400,
        run,
        eval_games=2,
        train_eval_games=2,
        panel=[],
        progress=False,
        overrides=SMALL,
        **kw,
    )


def test_a_killed_exploit_resumes_from_its_last_checkpoint(tmp_path: Path, monkeypatch):
    pytest.importorskip("torch")
    from training.allseat import Rollout
    from training.exploit import ExploitError

    run = tmp_path / "br"
    collect = Rollout.collect
    calls = []

    def killed_at_the_third(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # the run is stopped during its third rollout
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(Rollout, "collect", killed_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        _exploit(run)
    state = json.loads((run / "state.json").read_text())
    done = state["step"]
    assert 0 < done < 400 and (run / state["checkpoint"]).exists()
    assert not (run / "exploit.json").exists() and not (run / "trainer.lock").exists()
    with pytest.raises(ExploitError, match="pass --resume to continue it"):
        _exploit(run)
    with pytest.raises(ExploitError, match="nothing to resume"):
        _exploit(tmp_path / "fresh", resume=True)
    from training.rundir import TrainError

    with pytest.raises(TrainError, match="eval_games"):  # a setting that differs
        from training.exploit import exploit

        exploit(
            "greedy",
            2,
            400,
            run,
            eval_games=2,
            train_eval_games=3,
            panel=[],
            progress=False,
            overrides=SMALL,
            resume=True,
        )
    checkpoint = (run / state["checkpoint"]).stat().st_ino
    calls.clear()
    rep = _exploit(run, resume=True)
    # it went on from the checkpoint (kept, not written again) to the end of its budget
    assert rep["train_state"]["step"] >= 400 and calls
    assert (run / state["checkpoint"]).stat().st_ino == checkpoint
    assert json.loads((run / "exploit.json").read_text()) == json.loads(json.dumps(rep))
    with pytest.raises(ExploitError, match="finished exploit"):
        _exploit(run, resume=True)


def test_exploit_resume_needs_a_run_directory():
    from training.cli import app

    res = runner.invoke(app, ["exploit", "--target", "greedy", "--resume"])
    assert res.exit_code == 2 and "--resume needs --run-dir" in res.output
