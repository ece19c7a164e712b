"""training.progress: the notes and bars of `lastwill train` (warm start, training,
evaluations), and the warm start's progress hooks."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from training.bc import collect  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.progress import TrainProgress  # noqa: E402

FIT = {"bc_accuracy_before": 0.25, "bc_accuracy": 0.75, "bc_nll_before": 2.0, "bc_nll": 1.0}


def test_notes_for_every_long_step(capsys):
    with TrainProgress(True, 100, label="training") as p:
        p.bc_collect("planner", 3)
        for _ in range(3):
            p.advance()
        p.bc_collected(120, 4.0)
        p.bc_fit(2)
        p.advance()
        p.advance()
        p.bc_done(FIT)
        p.training(10)
        p.eval_start(10, 12, "greedy, planner at 4 players")
        for _ in range(12):
            p.advance()
        p.eval_done(10, {"mean_win_rate": 0.5, "rating": 48.26, "rating_se": 12.04}, 2.0)
        p.eval_done(20, {"mean_win_rate": 0.0, "rating": None, "rating_se": None}, 1.0)
        p.training(100, "best 0.50")
    err = capsys.readouterr().err
    for text in (
        "warm start: collecting 3 games of the teacher planner",
        "warm start: 120 teacher decisions collected in 4s",
        "warm start: teacher's choice ranked first 25.0% -> 75.0% (NLL 2.000 -> 1.000)",
        "step 10: evaluating against greedy, planner at 4 players (12 games)",
        "step 10: mean win rate vs the panel 0.500, rating +48.3 ± 12.0 Elo (2s)",
        "step 20: mean win rate vs the panel 0.000, rating - (no scored game) (1s)",
    ):
        assert text in err, text
    assert "training" in err and "100/100" in err


def test_disabled_progress_prints_nothing(capsys):
    with TrainProgress(False, 100) as p:
        p.bc_collect("planner", 3)
        p.advance()
        p.bc_done(FIT)
        p.training(50)
        p.eval_start(50, 3, "greedy")
        p.eval_done(50, {"mean_win_rate": 0.1, "rating": 0.0, "rating_se": 1.0}, 1.0)
    assert capsys.readouterr().err == ""


def test_collect_reports_every_game():
    calls = []
    cfg = TrainConfig(bc_teacher="greedy", bots=["greedy"], num_players=[2], player_weights=[1.0])
    data = collect(cfg, games=3, seed=1, on_game=lambda: calls.append(1))
    assert len(calls) == 3 and len(data["actions"]) > 0


def test_the_training_bar_ends_at_its_total_when_the_last_rollout_overshoots(capsys):
    # rollouts end on whole games, so a run of 300,000 steps stops at 302,680: the bar's total
    # follows the steps done, and it never shows more steps than its total
    with TrainProgress(True, 300_000, label="training") as p:
        p.training(150_000)
        p.training(302_680)
        task = p.progress.tasks[0]
        assert (task.completed, task.total) == (302_680, 302_680)
    err = capsys.readouterr().err
    assert "302680/302680" in err and "302680/300000" not in err
