"""labreports.sure_share: the share of a player's decisions that `sure=F` would search."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from paths import REPO
from typer.testing import CliRunner

from agents.registry import make_agent
from apps.cli import app
from apps.replay import iter_steps
from labreports import sure_share as script
from lastwill_env.engine import legal_actions, player_view

runner = CliRunner()
ROOT = REPO
REF = "agents/policies/reference.npz"
ME = f"ppo:{REF}@me"


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("sure") / "games.jsonl"
    res = runner.invoke(app, ["arena", "-q", "-p", f"{ME},greedy", "-n", "2", "-g", "2", "-s", "3",
                              "-o", str(path)])  # fmt: skip
    assert res.exit_code == 0, res.output
    return path


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def test_the_shares_are_those_of_the_searchs_own_priors(log, capsys):
    """Every decision with a choice of the seat `--player` holds is read, and its top
    probability is the top of the priors a search over the same policy starts from."""
    edges = [0.6, 0.8, 1.0]
    args = [str(log), "--player", ME, "--policy", REF, "--bins", "0.8,0.6,1", "--json"]
    assert script.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    searcher = make_agent(f"mcts:policy={REF}:sims=2")
    tops = []
    for row in _rows(log):
        me = row["seating"].index(ME)
        for step in iter_steps(row):
            legal = sorted(legal_actions(step.state))
            if step.seat == me and len(legal) > 1:
                tops.append(max(searcher.policy_priors(player_view(step.state, me)).values()))
    assert out["games"] == 2 and out["decisions"] == len(tops) > 0
    assert [s["sure"] for s in out["shares"]] == edges
    for s, f in zip(out["shares"], edges, strict=True):
        assert s["share_searched"] == pytest.approx(sum(t < f for t in tops) / len(tops))
    assert out["shares"][0]["share_searched"] < out["shares"][2]["share_searched"]


def test_the_script_runs_on_its_own(log):
    """Run as a command, in a fresh interpreter: nothing it needs comes from a test's imports
    (a policy over a prior bot needs the lab's bots)."""
    done = subprocess.run(
        [sys.executable, "-m", "labreports.sure_share", str(log), "--player", ME, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decisions"] > 0


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["--player", "random"],
            f"no player 'random' in its first 60 games; name one of its "
            f"seatings' specs with --player: greedy, {ME}",
        ),
        ([], "no evaluated player in its header"),
        (["--bins", "0.5,1.5"], "must lie in (0, 1]"),
        (["--bins", "x"], "comma-separated numbers"),
        (["--games", "0"], "at least 1"),
    ],
)
def test_bad_requests_exit_2_naming_what_was_wrong(log, capsys, args, says):
    try:
        code = script.main([str(log), *args])
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    assert code == 2 and says in capsys.readouterr().err


def test_a_file_that_is_not_a_log_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": 0, "seating": "greedy"}\n{"game": 1, "seating": "greedy"}\n')
    assert script.main([str(bad), "--player", ME]) == 2
    assert "cannot be read as a game log" in capsys.readouterr().err
