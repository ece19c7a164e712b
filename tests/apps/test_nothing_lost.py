"""Nothing is lost late (docs/TRUST.md, "Nothing lost late"): the lock of a run directory, the
removal of temporary files that killed writes left, `lastwill exploit --resume`, the
evaluation log written as games finish (with `--resume` and a fallback file) and schedules
that are streamed, never built whole.

Every test asserts the exception or exit code with its message and what is on disk; no timing
or statistical assertion.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO
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
        cwd=REPO,
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
    from apps.cli import app

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
    from apps.cli import app

    res = runner.invoke(app, ["exploit", "--target", "greedy", "--resume"])
    assert res.exit_code == 2 and "--resume needs --run-dir" in res.output


# ---------------------------------------------------------------------------------------------
# lastwill eval: rows as games finish, --resume, a fallback file

EVAL = {"panel": ["random", "greedy"], "num_players": [2, 3], "games": 3, "seed": 5}


class Stop(KeyboardInterrupt):
    """Stands in for Ctrl+C (or a kill) after some games."""


def _stop_after(n: int, seen: list):
    def on_game(row: dict) -> None:
        seen.append(row)
        if len(seen) == n:
            raise Stop

    return on_game


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted evaluation and its log."""
    from agents import evaluate as ev

    out = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    return ev.evaluate("random@me", out=out, **EVAL), out


def test_eval_rows_are_on_disk_as_games_finish(tmp_path: Path, whole):
    from agents import evaluate as ev

    full, _ = whole
    out = tmp_path / "e.jsonl"
    seen: list = []
    with pytest.raises(Stop):
        ev.evaluate("random@me", out=out, on_game=_stop_after(4, seen), **EVAL)
    lines = _lines(out)
    assert lines[0]["type"] == "header" and lines[0]["kind"] == "eval"
    assert lines[1:] == full.rows[:4]  # every finished game is in the log


def test_eval_resume_plays_only_the_missing_games(tmp_path: Path, whole):
    from agents import evaluate as ev

    full, full_log = whole
    out = tmp_path / "e.jsonl"
    with pytest.raises(Stop):
        ev.evaluate("random@me", out=out, on_game=_stop_after(7, []), **EVAL)
    with open(out, "a") as f:
        f.write('{"game": 1, "torn')  # a write cut short by the kill
    seen: list = []
    notes: list[str] = []
    res = ev.evaluate(
        "random@me", out=out, resume=True, on_game=seen.append, on_note=notes.append, **EVAL
    )
    assert len(seen) == len(full.rows) - 7  # only the missing games were played
    assert res.rows == full.rows and res.out == out
    assert _lines(out)[1:] == _lines(full_log)[1:]
    assert any("dropped the torn last line" in n for n in notes)
    again: list = []
    ev.evaluate("random@me", out=out, resume=True, on_game=again.append, **EVAL)
    assert again == [] and _lines(out)[1:] == full.rows  # a complete log: nothing to play


def test_eval_resume_refuses_another_evaluations_log(tmp_path: Path, whole):
    from apps.cli import app

    _, full_log = whole
    before = full_log.read_bytes()
    args = ["eval", "-q", "random@me", "--panel", "random,greedy", "-n", "2,3", "-g", "3"]
    res = runner.invoke(app, [*args, "-s", "6", "--resume", "-o", str(full_log)])
    assert res.exit_code == 2, res.output
    assert "different evaluation" in res.output and "seed: log has 5, this run has 6" in res.output
    res = runner.invoke(app, [*args, "-s", "5", "-o", str(full_log)])
    assert res.exit_code == 2 and "--resume" in res.output
    res = runner.invoke(app, ["eval", "-q", "random@me", "--resume"])
    assert res.exit_code == 2 and "--resume needs --out" in res.output
    assert full_log.read_bytes() == before


def test_eval_cli_resume_completes_an_interrupted_log(tmp_path: Path, whole):
    from agents import evaluate as ev
    from apps.cli import app

    full, _ = whole
    out = tmp_path / "e.jsonl"
    with pytest.raises(Stop):
        ev.evaluate("random@me", out=out, on_game=_stop_after(2, []), **EVAL)
    args = ["eval", "-q", "random@me", "--panel", "random,greedy", "-n", "2,3", "-g", "3"]
    res = runner.invoke(app, [*args, "-s", "5", "--resume", "-o", str(out), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games"] == len(full.rows)
    assert _lines(out)[1:] == full.rows


def test_eval_without_play_reads_a_partial_log_and_changes_nothing(tmp_path: Path, whole):
    """`play=False` (`--no-play`) summarises a log still being written: its games are checked
    as a resume checks them, nothing is played, and no byte on disk changes (a torn last line
    and a leftover temporary file, which a running writer may own, stay)."""
    from agents import evaluate as ev

    full, full_log = whole
    out = tmp_path / "e.jsonl"
    with pytest.raises(Stop):
        ev.evaluate("random@me", out=out, on_game=_stop_after(7, []), **EVAL)
    with open(out, "a") as f:
        f.write('{"game": 1, "torn')
    (tmp_path / f".e.tmp-{_dead_pid()}-abcdef.jsonl").write_text("x")
    before = _files(tmp_path)
    seen: list = []
    notes: list[str] = []
    res = ev.evaluate(
        "random@me", out=out, play=False, on_game=seen.append, on_note=notes.append, **EVAL
    )
    assert seen == [] and _files(tmp_path) == before
    assert res.rows == full.rows[:7] and res.out == out and not res.complete
    assert any("dropped the torn last line" in n for n in notes)
    lines = {(x["num_players"], x["table"]): x for x in res.summary()}
    assert [lines[2, "vs_random"]["games"], lines[2, "vs_greedy"]["games"]] == [4, 3]
    assert lines[3, "vs_random"]["games"] == 0 and lines[3, "vs_random"]["win_rate"] is None
    assert {x["planned"] for x in res.summary()} == {4, 3}
    assert [x["logged"] for x in res.summary()] == [4, 3, 0, 0, 0]
    doc = res.to_dict()
    assert doc["complete"] is False and doc["games"] == 7
    # the whole log reads as the evaluation that wrote it
    whole_read = ev.evaluate("random@me", out=full_log, play=False, **EVAL)
    assert whole_read.complete and whole_read.summary() == full.summary()
    assert full.to_dict()["complete"] is True


def test_eval_cli_no_play_names_partial_tables_and_refuses_bad_requests(tmp_path: Path, whole):
    from agents import evaluate as ev
    from apps.cli import app

    _, full_log = whole
    out = tmp_path / "e.jsonl"
    with pytest.raises(Stop):
        ev.evaluate("random@me", out=out, on_game=_stop_after(5, []), **EVAL)
    before = out.read_bytes()
    args = ["eval", "random@me", "--panel", "random,greedy", "-n", "2,3", "-g", "3", "-s", "5"]
    res = runner.invoke(app, [*args, "--no-play", "-o", str(out), "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["games"] == 5 and doc["complete"] is False
    assert "partial: 2p vs_greedy holds 1 of its 4 games" in res.stderr
    assert "partial: 3p mixed holds 0 of its 3 games" in res.stderr
    res = runner.invoke(app, [*args, "--no-play", "-o", str(out), "-f", "csv"])
    assert res.exit_code == 0, res.output
    rows = {(r["num_players"], r["table"]): r for r in csv.DictReader(io.StringIO(res.stdout))}
    assert (rows[("2", "vs_greedy")]["logged"], rows[("2", "vs_greedy")]["planned"]) == ("1", "4")
    assert (rows[("3", "mixed")]["logged"], rows[("3", "mixed")]["planned"]) == ("0", "3")
    res = runner.invoke(app, [*args, "--no-play", "-o", str(full_log), "-f", "json"])
    assert res.exit_code == 0 and "partial" not in res.stderr
    assert json.loads(res.stdout)["complete"] is True
    for bad, message in [
        ([*args, "--no-play"], "--no-play reads the evaluation log at --out, and no --out"),
        ([*args, "--no-play", "-o", str(tmp_path / "none.jsonl")], "none.jsonl is not a file"),
        ([*args[:-1], "6", "--no-play", "-o", str(out)], "seed: log has 5, this run has 6"),
    ]:
        res = runner.invoke(app, bad)
        assert res.exit_code == 2, res.output
        assert message in " ".join(res.output.split()), res.output
    assert out.read_bytes() == before and not (tmp_path / "none.jsonl").exists()


def test_eval_moves_to_a_fallback_file_when_its_log_appears_meanwhile(
    tmp_path: Path, whole, monkeypatch
):
    from agents import evaluate as ev

    full, _ = whole
    out = tmp_path / "e.jsonl"
    real = ev.remove_leftover_temps

    def and_another_writer(directory, **kw):  # after the check, before the log is opened
        out.write_text("someone else's file\n")
        return real(directory, **kw)

    monkeypatch.setattr(ev, "remove_leftover_temps", and_another_writer)
    notes: list[str] = []
    res = ev.evaluate("random@me", out=out, on_note=notes.append, **EVAL)
    assert out.read_text() == "someone else's file\n"  # never replaced
    assert res.out != out and res.out.parent == tmp_path and res.out.name.startswith("lastwill-e-")
    assert len(notes) == 1 and str(res.out) in notes[0] and "FileExistsError" in notes[0]
    assert _lines(res.out)[1:] == full.rows  # every game is in the fallback file


def test_a_log_whose_file_fails_mid_run_goes_on_in_a_fallback(tmp_path: Path):
    from agents.rowlog import RowLog

    class Broken:
        def write(self, text):
            raise OSError(28, "No space left on device")

        def close(self):
            pass

    notes: list[str] = []
    log = RowLog(tmp_path / "log.jsonl", {"type": "header"}, on_note=notes.append)
    log.write({"game": 0})
    log._f = Broken()  # the disk fills up
    log.write({"game": 1})
    log.write({"game": 2})
    log.close()
    assert log.out != log.path and "No space left on device" in notes[0]
    assert _lines(log.out) == [{"type": "header"}, {"game": 0}, {"game": 1}, {"game": 2}]
    assert _lines(log.path) == [{"type": "header"}, {"game": 0}]  # what reached it is kept


@pytest.mark.parametrize("when", ["mid-run", "after the last row"])
def test_a_log_whose_folder_is_deleted_goes_on_in_a_fallback(tmp_path: Path, when):
    import shutil

    from agents.rowlog import RowLog

    notes: list[str] = []
    folder = tmp_path / "out"
    log = RowLog(folder / "log.jsonl", {"type": "header"}, on_note=notes.append)
    log.write({"game": 0})
    if when == "mid-run":
        shutil.rmtree(folder)
        log.write({"game": 1})
    log.write({"game": 2})
    if when != "mid-run":
        shutil.rmtree(folder)
    log.close()
    assert log.out != log.path and log.out.is_file() and not folder.exists()
    rows = [{"game": 0}, *([{"game": 1}] if when == "mid-run" else []), {"game": 2}]
    assert _lines(log.out) == [{"type": "header"}, *rows]
    assert len(notes) == 1 and str(log.out) in notes[0] and "was deleted" in notes[0]


def test_eval_whose_output_folder_is_deleted_says_where_its_games_went(
    tmp_path: Path, whole, monkeypatch
):
    import shutil

    from agents import evaluate as ev
    from agents.rowlog import RowLog
    from apps.cli import app

    class Vanishing(RowLog):
        """The log's folder is deleted after its first game."""

        def write(self, row: dict) -> None:
            super().write(row)
            if len(self.rows) == 1:
                shutil.rmtree(self.path.parent)

    monkeypatch.setattr(ev, "RowLog", Vanishing)
    full, _ = whole
    out = tmp_path / "gone" / "e.jsonl"
    args = ["eval", "random@me", "--panel", "random,greedy", "-n", "2,3", "-g", "3", "-s", "5"]
    res = runner.invoke(app, [*args, "-q", "-o", str(out), "-f", "json"])
    assert res.exit_code == 0, res.output
    fallback = Path(json.loads(res.stdout)["log"])
    assert fallback != out and fallback.is_file() and not out.parent.exists()
    assert f"log: {fallback}" in res.stderr and "go to " + str(fallback) in res.stderr
    assert _lines(fallback)[1:] == full.rows  # every game is in the fallback file


# ---------------------------------------------------------------------------------------------
# Schedules are streamed: a huge --games starts playing at once


def test_a_schedule_of_any_length_is_made_as_it_is_read():
    from agents import arena as ar
    from lastwill_env.engine import GameConfig

    sched = ar.Schedule(("random", "greedy"), GameConfig(num_players=2), seed=1)
    tasks = sched.tasks(10**12)
    assert len(tasks) == 10**12
    assert tasks[-1].game == 10**12 - 1 and tasks[-1] == sched.task(10**12 - 1)
    assert [t.game for t in tasks.skip(10**12 - 2)] == [10**12 - 2, 10**12 - 1]
    first = next(ar.play_in_order(tasks))
    assert first["game"] == 0 and first["error"] is None


@pytest.mark.parametrize("workers", [1, 2])
def test_arena_with_a_huge_games_count_logs_its_first_game(tmp_path: Path, workers):
    from agents import arena as ar
    from lastwill_env.engine import GameConfig

    out = tmp_path / "a.jsonl"
    with pytest.raises(Stop):
        ar.run_tournament(
            ["random", "greedy"],
            GameConfig(num_players=2),
            10**12,
            out=out,
            workers=workers,
            on_game=_stop_after(2, []),
        )
    lines = _lines(out)
    assert lines[0]["games"] == 10**12 and [r["game"] for r in lines[1:]] == [0]


def test_eval_with_a_huge_games_count_logs_its_first_game(tmp_path: Path):
    from agents import evaluate as ev

    out = tmp_path / "e.jsonl"
    totals: list[int] = []
    with pytest.raises(Stop):
        ev.evaluate(
            "random@me",
            panel=["greedy"],
            num_players=[2],
            games=10**12,
            out=out,
            on_start=totals.append,
            on_game=_stop_after(1, []),
        )
    assert totals == [10**12]
    lines = _lines(out)
    assert lines[0]["games_per_table"] == 10**12 and len(lines) == 2
