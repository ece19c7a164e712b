"""Tests of agents.stats: Wilson intervals, summaries, OpenSkill ratings, the plot."""

from __future__ import annotations

import pytest

from agents.stats import openskill_ratings, seat_stats, summarize, wilson_interval


@pytest.mark.parametrize(
    ("wins", "n", "lo", "hi"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 2, 0.0945, 0.9055),
        (30, 400, 0.0530, 0.1050),
    ],
)
def test_wilson_known_values(wins, n, lo, hi):
    got = wilson_interval(wins, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_no_games_is_uninformative():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("wins", "n"), [(-1, 10), (11, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(wins, n):
    with pytest.raises(ValueError):
        wilson_interval(wins, n)


def _row(game, seating, winner, error=None):
    n = len(seating)
    ranks = None
    if error is None:
        ranks = [0] * n
        order = [winner] + [s for s in range(n) if s != winner]
        for r, seat in enumerate(order):
            ranks[seat] = r + 1
    return {
        "game": game,
        "seating": list(seating),
        "winner": None if error else winner,
        "ranks": ranks,
        "error": error,
    }


def _always_wins_log(games=60):
    entrants = ["strong", "random", "weak"]
    rows = [{"type": "header", "entrants": entrants}]
    for g in range(games):
        r = g % 3
        seating = entrants[r:] + entrants[:r]
        rows.append(_row(g, seating, seating.index("strong")))
    return rows


def test_ratings_one_spec_always_wins_anchor_at_zero():
    out = openskill_ratings(_always_wins_log())
    r = out["ratings"]
    assert out["anchor"] == "random"
    assert r["random"]["ordinal"] == pytest.approx(0.0, abs=1e-9)
    assert r["strong"]["ordinal"] > r["random"]["ordinal"]
    assert r["strong"]["ordinal"] > r["weak"]["ordinal"]
    assert list(r)[0] == "strong"  # sorted best first
    assert r["strong"]["games"] == 60


def test_ratings_without_anchor_are_unshifted():
    out = openskill_ratings(_always_wins_log(), anchor="nobody")
    assert out["anchor"] is None and out["shift"] == 0.0


def test_ratings_duplicate_spec_shares_one_rating():
    rows = [_row(g, ["a", "a", "b"], 0) for g in range(10)]
    out = openskill_ratings(rows, anchor="b")
    assert set(out["ratings"]) == {"a", "b"}
    assert out["ratings"]["a"]["games"] == 20
    assert out["ratings"]["a"]["ordinal"] > 0


def test_summarize_counts_and_seats():
    rows = _always_wins_log(30)
    rows.append(_row(30, ["weak", "strong", "random"], None, error={"seat": 0, "player": "weak"}))
    s = {e["spec"]: e for e in summarize(rows)}
    assert s["strong"]["games"] == 30 and s["strong"]["wins"] == 30
    assert s["strong"]["win_rate"] == 1.0 and s["strong"]["mean_rank"] == 1.0
    assert s["random"]["wins"] == 0 and s["random"]["chance"] == pytest.approx(1 / 3)
    assert s["weak"]["errors"] == 1 and s["strong"]["errors"] == 0
    assert s["strong"]["seat_win_rates"] == [1.0, 1.0, 1.0]
    assert s["strong"]["ci_lo"] == pytest.approx(wilson_interval(30, 30)[0])
    seats = seat_stats(rows)
    assert [x["games"] for x in seats] == [30, 30, 30]
    assert sum(x["wins"] for x in seats) == 30


def test_plot_writes_png(tmp_path):
    from agents.stats import plot_win_rates

    path = tmp_path / "w.png"
    plot_win_rates(summarize(_always_wins_log(12)), str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
