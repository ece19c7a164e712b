"""The `lastwill` entry point (`apps.console:main`): a bad choice of compiled module is one
line of error naming the variable and its allowed values, exit code 2, no traceback, and it
writes nothing; a good one runs the command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _lastwill(args: list[str], cwd, **env: str) -> subprocess.CompletedProcess:
    code = "import sys; from apps.console import main; sys.argv[0] = 'lastwill'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("var", "allowed"),
    [("LASTWILL_VIEW", "auto, python, compiled"), ("LASTWILL_WRITER", "auto, python, compiled")],
)
def test_a_bad_build_choice_is_a_clear_error_with_exit_code_2(var, allowed, tmp_path):
    out = _lastwill(["--help"], tmp_path, **{var: "fast"})
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == f"Error: {var}='fast': allowed values are {allowed}"
    assert "Traceback" not in out.stderr


def test_a_bad_gradient_choice_stops_a_torch_command_before_it_writes(tmp_path):
    run = tmp_path / "run"
    args = ["train", "--mode", "all_seat", "--total-steps", "64", "--run-dir", str(run)]
    out = _lastwill(args, tmp_path, LASTWILL_BAG_GRAD="fast")
    assert out.returncode == 2, out.stderr
    assert "LASTWILL_BAG_GRAD='fast': allowed values are auto, torch, compiled" in out.stderr
    assert "Traceback" not in out.stderr
    assert not run.exists()


def test_a_good_choice_runs_the_command(tmp_path):
    out = _lastwill(["--version"], tmp_path, LASTWILL_VIEW="python", LASTWILL_WRITER="python")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
