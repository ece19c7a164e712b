"""Tests of agents.stats: Wilson intervals, summaries, ratings (the order-free Plackett-Luce fit),
the plot, paired comparisons, DataFrames."""

from __future__ import annotations

import math

import pytest

from agents.stats import seat_stats, summarize, wilson_interval


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


# --- the order-free Plackett-Luce fit ---------------------------------------------------------


def _table_57(order):
    """Two-player table of 500 paired deals where a wins 57% of the games (+14 points paired):
    a wins both seatings of 170 deals, b both of 100, and each the game it opens on 230. The
    games are numbered in `order`: "deals" (deal by deal), "b_first" (all of b's wins first),
    "a_first" (all of a's wins first) or "shuffled"."""
    import random

    games = []
    for d in range(500):
        won = ("a", "a") if d < 170 else ("b", "b") if d < 270 else ("a", "b")
        for si, seating in enumerate((["a", "b"], ["b", "a"])):
            games.append((d, seating, seating.index(won[si])))
    if order == "b_first":
        games.sort(key=lambda g: g[1][g[2]] == "a")
    elif order == "a_first":
        games.sort(key=lambda g: g[1][g[2]] == "b")
    elif order == "shuffled":
        random.Random(7).shuffle(games)
    rows = []
    for i, (d, seating, winner) in enumerate(games):
        rows.append(dict(_row(i, seating, winner), deal=d, deal_seed=1000 + d))
    return rows


ORDERS = ("deals", "b_first", "a_first", "shuffled")


@pytest.mark.parametrize("order", ORDERS)
def test_fit_ranks_the_clear_paired_winner_first_in_any_game_order(order):
    from agents.stats import fit_ratings, paired_comparison

    rows = _table_57(order)
    paired = paired_comparison(rows, "a", "b")
    assert paired["diff"] == pytest.approx(0.14) and paired["better"] == "a"
    out = fit_ratings(rows, anchor="b")
    r = out["ratings"]
    assert list(r) == ["a", "b"] and out["anchor"] == "b"
    assert r["b"]["rating"] == 0.0 and r["b"]["se"] == 0.0
    # Bradley-Terry on the Elo scale: 57% head to head is 400 log10(57/43) = 49 points
    assert r["a"]["rating"] == pytest.approx(400 * math.log10(57 / 43), abs=1.0)
    assert 0 < r["a"]["ci_lo"] < r["a"]["rating"] < r["a"]["ci_hi"]
    assert 5 < r["a"]["se"] < 40
    assert r["a"]["games"] == r["b"]["games"] == 1000


def test_fit_is_order_free_and_reproducible():
    from agents.stats import fit_ratings

    first = fit_ratings(_table_57("deals"), seed=3)
    assert fit_ratings(_table_57("deals"), seed=3) == first
    for order in ORDERS[1:]:
        assert fit_ratings(_table_57(order), seed=3) == first
    other = fit_ratings(_table_57("deals"), seed=4)
    assert other["ratings"]["a"]["rating"] == first["ratings"]["a"]["rating"]
    assert other["ratings"]["a"]["se"] != first["ratings"]["a"]["se"]  # the bootstrap's draws


def test_fit_uncertainty_shrinks_with_more_deals():
    from agents.stats import fit_ratings

    rows = _table_57("deals")
    few = [r for r in rows if r["deal"] % 10 == 0]  # 50 deals, the same 57%
    big, small = fit_ratings(rows, anchor="b"), fit_ratings(few, anchor="b")
    assert small["ratings"]["a"]["rating"] == pytest.approx(big["ratings"]["a"]["rating"], abs=5)
    assert small["ratings"]["a"]["se"] > 2 * big["ratings"]["a"]["se"]
    with pytest.raises(ValueError, match="level"):
        fit_ratings(rows, level=1.0)
    bare = fit_ratings(rows, anchor="b", resamples=0)
    assert bare["ratings"]["a"]["se"] is None and bare["ratings"]["a"]["ci_lo"] is None
    assert bare["ratings"]["a"]["rating"] == big["ratings"]["a"]["rating"]


def test_fit_one_spec_always_wins_stays_finite_and_anchors():
    from agents.stats import fit_ratings

    out = fit_ratings(_always_wins_log())
    r = out["ratings"]
    assert out["anchor"] == "random" and list(r)[0] == "strong"
    assert r["random"]["rating"] == 0.0
    assert math.isfinite(r["strong"]["rating"]) and r["strong"]["rating"] > 200
    assert r["strong"]["games"] == 60
    by_name = fit_ratings([_row(g, ["strong", "random@R"], int(g % 3 > 0)) for g in range(12)], "R")
    assert by_name["anchor"] == "random@R"
    assert by_name["ratings"]["random@R"]["rating"] == 0.0
    assert by_name["ratings"]["random@R"]["rating"] > by_name["ratings"]["strong"]["rating"]


def test_fit_without_anchor_centres_the_ratings():
    from agents.stats import fit_ratings

    out = fit_ratings(_always_wins_log(), anchor="nobody")
    assert out["anchor"] is None
    assert sum(r["rating"] for r in out["ratings"].values()) == pytest.approx(0.0, abs=1e-9)


def test_fit_multiplayer_ranks_and_ties():
    from agents.stats import fit_ratings

    rows = []
    for g in range(90):  # a and b share first place, c is last; seats rotated
        seating = ["a", "b", "c"][g % 3 :] + ["a", "b", "c"][: g % 3]
        ranks = [3 if s == "c" else 1 for s in seating]
        rows.append({"game": g, "deal": g // 3, "seating": seating, "winner": 0, "ranks": ranks})
    r = fit_ratings(rows, anchor="c")["ratings"]
    assert r["a"]["rating"] == pytest.approx(r["b"]["rating"], abs=1e-6)
    assert r["a"]["rating"] > 100
    # second places count: x always second, y always last, z always first
    order = [_row(g, ["z", "x", "y"][g % 3 :] + ["z", "x", "y"][: g % 3], 0) for g in range(60)]
    for row in order:
        row["ranks"] = [{"z": 1, "x": 2, "y": 3}[s] for s in row["seating"]]
    assert list(fit_ratings(order, anchor=None)["ratings"]) == ["z", "x", "y"]


def test_fit_duplicate_spec_shares_one_rating_and_errors_count_for_nobody():
    from agents.stats import fit_ratings

    rows = []
    for g in range(30):  # every seat takes every rank a third of the time
        row = _row(g, ["a", "a", "b"], g % 3)
        row["ranks"] = [(s - g) % 3 + 1 for s in range(3)]
        rows.append(row)
    rows.append(_row(30, ["a", "a", "b"], None, error={"seat": 2, "player": "b"}))
    out = fit_ratings(rows, anchor="b")
    assert set(out["ratings"]) == {"a", "b"}
    assert out["ratings"]["a"]["games"] == 60 and out["ratings"]["b"]["games"] == 30
    # one seat's chance is 1/3 whoever sits there: the same strength
    assert out["ratings"]["a"]["rating"] == pytest.approx(0.0, abs=1e-6)
    only_errors = fit_ratings(rows + [_row(31, ["c", "b"], None, error={"seat": 0})], "b")
    empty = {"rating": None, "se": None, "ci_lo": None, "ci_hi": None, "games": 0}
    assert only_errors["ratings"]["c"] == empty
    assert list(only_errors["ratings"])[-1] == "c"


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


# --- paired comparisons ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [(0, 0, 1.0), (3, 3, 1.0), (0, 5, 0.0625), (9, 1, 22 / 1024), (1, 9, 22 / 1024)],
)
def test_mcnemar_exact_known_values(b, c, p):
    from agents.stats import mcnemar_exact

    assert mcnemar_exact(b, c) == pytest.approx(p)


def test_mcnemar_rejects_negative_counts():
    from agents.stats import mcnemar_exact

    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 2)


def _duel_log(deals, a_sweeps, b_sweeps):
    """Two-player log: two games per deal (a first, then b first). The first `a_sweeps` deals
    are won twice by a, the next `b_sweeps` twice by b, the rest by the first seat."""
    rows = []
    for d in range(deals):
        for si, seating in enumerate((["a", "b"], ["b", "a"])):
            if d < a_sweeps:
                winner = seating.index("a")
            elif d < a_sweeps + b_sweeps:
                winner = seating.index("b")
            else:
                winner = 0
            row = _row(2 * d + si, seating, winner)
            row.update(deal=d, deal_seed=1000 + d)
            rows.append(row)
    return rows


def test_paired_comparison_two_players_bootstrap_and_mcnemar():
    from agents.stats import paired_comparison

    rows = _duel_log(40, a_sweeps=14, b_sweeps=2)
    out = paired_comparison(rows, "a", "b", seed=3)
    assert out["deals"] == 40 and out["games"] == 80
    # a wins 14*2 + 24*1 = 52 of 80 games: 65% against 35%
    assert out["a_value"] == pytest.approx(0.65) and out["b_value"] == pytest.approx(0.35)
    assert out["diff"] == pytest.approx(0.30)
    assert 0 < out["ci_lo"] < 0.30 < out["ci_hi"] < 0.6
    assert out["better"] == "a"
    assert out["mcnemar"]["a_only"] == 14 and out["mcnemar"]["b_only"] == 2
    assert out["mcnemar"]["p"] == pytest.approx(2 * (1 + 16 + 120) / 2**16)
    assert out["verdict"].startswith("a is better than b on the same deals")
    assert "McNemar exact p" in out["verdict"]
    assert paired_comparison(rows, "a", "b", seed=3) == out  # seeded: reproducible
    flipped = paired_comparison(rows, "b", "a", seed=3)
    assert flipped["diff"] == pytest.approx(-0.30) and flipped["better"] == "a"


def test_paired_comparison_without_a_difference_says_so():
    from agents.stats import paired_comparison

    out = paired_comparison(_duel_log(30, a_sweeps=3, b_sweeps=3), "a", "b")
    assert out["diff"] == pytest.approx(0.0)
    assert out["ci_lo"] < 0 < out["ci_hi"] and out["better"] is None
    assert out["verdict"].startswith("no clear difference between a and b")
    assert out["mcnemar"]["p"] == 1.0


def test_paired_comparison_mean_rank_lower_is_better():
    from agents.stats import paired_comparison

    out = paired_comparison(_always_wins_log(60), "strong", "weak", metric="mean_rank")
    assert out["diff"] < 0 and out["ci_hi"] < 0
    assert out["better"] == "strong"
    assert out["mcnemar"] is None  # three-player tables: no McNemar pairs


def test_paired_comparison_of_two_logs_pairs_games_by_index():
    from agents.stats import paired_comparison

    log_a = [dict(_row(g, ["x", "opp"], 0), deal_seed=g // 2) for g in range(20)]
    log_b = [dict(_row(g, ["y", "opp"], 0 if g < 6 else 1), deal_seed=g // 2) for g in range(20)]
    out = paired_comparison(log_a, "x", "y", rows_b=log_b)
    assert out["games"] == 20 and out["deals"] == 10
    assert out["a_value"] == 1.0 and out["b_value"] == pytest.approx(0.3)
    assert out["mcnemar"] == {"a_only": 14, "b_only": 0, "p": pytest.approx(2 / 2**14)}
    assert out["better"] == "x"
    log_b[3]["deal_seed"] = 99  # a different deal is never paired
    assert paired_comparison(log_a, "x", "y", rows_b=log_b)["games"] == 19


def test_paired_comparison_warns_below_min_deals():
    from agents.stats import MIN_DEALS, paired_comparison

    few = paired_comparison(_duel_log(MIN_DEALS - 1, a_sweeps=3, b_sweeps=1), "a", "b")
    assert few["deals"] == MIN_DEALS - 1
    assert few["warning"].startswith(f"only {MIN_DEALS - 1} deals (fewer than {MIN_DEALS})")
    assert few["verdict"].endswith(few["warning"]) and "; warning: " in few["verdict"]
    enough = paired_comparison(_duel_log(MIN_DEALS, a_sweeps=3, b_sweeps=1), "a", "b")
    assert enough["warning"] is None and "warning" not in enough["verdict"]


def test_paired_comparison_of_agreeing_deals_is_never_a_silent_zero_interval():
    from agents.stats import paired_comparison

    out = paired_comparison(_duel_log(10, a_sweeps=0, b_sweeps=0), "a", "b")  # seat 0 always
    assert (out["diff"], out["ci_lo"], out["ci_hi"]) == (0.0, 0.0, 0.0)
    assert "only 10 deals" in out["warning"]
    assert "every deal gave the same difference (+0.0 points)" in out["warning"]
    many = paired_comparison(_duel_log(40, a_sweeps=40, b_sweeps=0), "a", "b")
    assert many["ci_lo"] == many["ci_hi"] == 1.0 and many["better"] == "a"
    assert many["warning"].startswith("every deal gave the same difference (+100.0 points)")
    ranks = paired_comparison(_duel_log(40, 40, 0), "a", "b", metric="mean_rank")
    assert "(-1.00 in rank)" in ranks["warning"]


def test_paired_table_flattens_mcnemar_and_names():
    from agents.stats import PAIRED_COLUMNS, paired_comparison, paired_table

    rows = _duel_log(40, a_sweeps=14, b_sweeps=2)
    for r in rows:
        r["seating"] = [s + "@" + s.upper() for s in r["seating"]]
    out = paired_comparison(rows, "a@A", "b@B")
    (flat,) = paired_table([out])
    assert tuple(flat) == PAIRED_COLUMNS
    assert (flat["a"], flat["a_name"], flat["b_name"]) == ("a@A", "A", "B")
    assert (flat["mcnemar_a_only"], flat["mcnemar_b_only"]) == (14, 2)
    assert flat["mcnemar_p"] == out["mcnemar"]["p"] and flat["diff"] == out["diff"]
    three = paired_table([paired_comparison(_always_wins_log(30), "strong", "weak")])
    assert three[0]["mcnemar_p"] is None and three[0]["warning"] is not None


def test_paired_comparison_rejects_bad_requests():
    from agents.stats import paired_comparison

    rows = _duel_log(4, 1, 1)
    with pytest.raises(ValueError, match="metric"):
        paired_comparison(rows, "a", "b", metric="elo")
    with pytest.raises(ValueError, match="itself"):
        paired_comparison(rows, "a", "a")
    out = paired_comparison(rows, "a", "nobody")
    assert out["diff"] is None and "no games" in out["verdict"]


def test_paired_comparisons_cover_every_pair_once():
    from agents.stats import paired_comparisons

    pairs = paired_comparisons(_always_wins_log(30))
    assert [(p["a"], p["b"]) for p in pairs] == [
        ("strong", "random"),
        ("strong", "weak"),
        ("random", "weak"),
    ]


# --- DataFrames -----------------------------------------------------------------------------


def test_to_frame_game_rows_one_row_per_seat_game():
    pd = pytest.importorskip("pandas")
    from agents.stats import to_frame

    rows = _always_wins_log(6)
    rows[1]["seating"] = ["strong@S", "random", "weak"]  # a display name
    rows.append(_row(6, ["weak", "strong", "random"], None, error={"seat": 0, "message": "boom"}))
    df = to_frame(rows)
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 7 * 3
    assert list(df.columns[:6]) == ["game", "deal", "deal_seed", "num_players", "seat", "spec"]
    first = df[df.game == 0]
    assert first.won.tolist() == [True, False, False]
    assert first["rank"].tolist() == [1, 2, 3]
    assert first.money.isna().all()  # these rows carry no money
    assert df[df.game == 0].spec.tolist() == ["strong@S", "random", "weak"]
    assert df[df.game == 0].name.tolist() == ["S", "random", "weak"]
    err = df[df.game == 6]
    assert err.error.tolist() == ["boom"] * 3 and err.won.isna().all()
    wins = df[df.won.fillna(False)].groupby("name").size().to_dict()
    assert wins == {"S": 1, "strong": 5}


def test_to_frame_summaries_one_row_each():
    pytest.importorskip("pandas")
    from agents.stats import to_frame

    df = to_frame(summarize(_always_wins_log(9)))
    assert df.spec.tolist() == ["strong", "random", "weak"]
    assert df.set_index("spec").loc["strong", "wins"] == 9
