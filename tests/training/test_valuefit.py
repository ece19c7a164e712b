"""`lastwill value-fit` (`training.valuefit`): self-play games of a policy recorded with every
seat's observation and result, a critic fitted on those results with the actor untouched, its
calibration against held-out games, and the checkpoint the search reads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

import agents.registry  # noqa: E402,F401  (installs the prior bots)
from agents.leafeval import LeafEvaluator  # noqa: E402
from agents.policy import load_policy  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from apps.cli import app  # noqa: E402
from lastwill_env.encoding import OBS_SIZE, encode_seats_sparse  # noqa: E402
from lastwill_env.engine import GameConfig, legal_actions, new_game, player_view  # noqa: E402
from lastwill_env.engine.game import GAME_OVER  # noqa: E402
from training.valuefit import games as G  # noqa: E402
from training.valuefit.fit import calibration, held_out, start_scores  # noqa: E402
from training.valuefit.run import ValueFitError, game_list, record, value_fit  # noqa: E402

# a start whose critic was trained with potential shaping (the reference before ref_d1)
REF = "policies/ref_v7.npz"
SETTINGS = {"epochs": 2, "learning_rate": 1e-3, "batch_size": 64, "holdout": 0.3, "seed": 4}


@pytest.fixture(scope="module")
def rows() -> dict[str, np.ndarray]:
    """Rows of 10 reference games, 5 at 3 and 5 at 4 players."""
    return record(REF, game_list([3, 4], 5, seed=1), sample_rate=0.2, explore=0.1)


def _no_constant(name: str):
    raise AssertionError(f"the sidecar holds {name}, which strict JSON does not allow")


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_a_game_is_a_function_of_its_seed_and_keeps_every_seat_with_its_result():
    pol = load_policy(REF, need_value=True)[0]
    a = G.play(pol, 3, 77, 0.3, 0.2)
    b = G.play(pol, 3, 77, 0.3, 0.2)
    assert all(np.array_equal(a[k], b[k]) for k in G.FIELDS)
    other = G.play(pol, 3, 78, 0.3, 0.2)
    assert not np.array_equal(a["obs_idx"][:200], other["obs_idx"][:200])
    rows = len(a["n"])
    assert rows > 0 and rows % 3 == 0  # every seat at each kept decision
    assert list(a["seat"][:3]) == [0, 1, 2] and set(a["n"]) == {3} and set(a["game"]) == {77}
    # one winner: each kept decision's three results are +1 once and -1/2 twice
    triples = a["result"].reshape(-1, 3)
    assert np.allclose(np.sort(triples, axis=1), [-0.5, -0.5, 1.0])
    assert len(set(map(tuple, triples))) == 1  # the same final result all game long
    assert a["obs_len"].sum() == len(a["obs_idx"]) == len(a["obs_val"])
    assert a["obs_idx"].min() >= 0 and a["obs_idx"].max() < OBS_SIZE
    assert np.all(np.diff(a["round"]) >= 0) and a["round"].min() >= 1


def test_the_recorded_observations_are_the_searchs_own_encoding():
    state = new_game(GameConfig(num_players=4), 5)
    rows: dict[str, list] = {k: [] for k in G.FIELDS}
    G._keep(rows, state, 4)
    want = encode_seats_sparse(state, range(4), ordered=False)
    for p, (nz, v) in enumerate(want):
        assert np.array_equal(rows["obs_idx"][p], np.asarray(nz))
        assert np.array_equal(rows["obs_val"][p], np.asarray(v, dtype=np.float32))
    assert rows["seat"] == [0, 1, 2, 3] and rows["round"] == [state.round] * 4


def test_the_start_critic_is_scored_as_the_search_reads_it():
    pol, meta = load_policy(REF, need_value=True)
    leaf = LeafEvaluator(pol, meta)
    assert leaf.shaping > 0  # ref_v7's critic was trained with shaping: it is added back
    state = new_game(GameConfig(num_players=3), 9)
    checked = 0
    while state.phase != GAME_OVER and checked < 6:
        legal = sorted(legal_actions(state))
        if len(legal) > 1 and state.round >= 2:
            rows: dict[str, list] = {k: [] for k in G.FIELDS}
            G._keep(rows, state, 3)
            rows["result"] = [0.0] * 3
            rows["game"] = [0] * 3
            got = start_scores(pol, meta, G.pack([rows]), np.arange(3))
            np.testing.assert_allclose(got, leaf.evaluate(state, legal)[1], atol=1e-5)
            some = start_scores(pol, meta, G.pack([rows]), np.array([2, 0]))
            assert np.array_equal(some, got[[2, 0]])
            checked += 1
        view = player_view(state, state.cur)
        state.apply_action(make_agent("sprinter").act(view, legal))
    assert checked == 6


def test_workers_record_the_same_rows_as_one_process(rows):
    two = record(REF, game_list([3, 4], 5, seed=1), sample_rate=0.2, explore=0.1, workers=2)
    assert all(np.array_equal(rows[k], two[k]) for k in G.FIELDS)
    assert sorted(set(rows["n"])) == [3, 4] and len(np.unique(rows["game"])) == 10


def test_game_seeds_are_never_test_deals():
    from agents.deals import TEST, deals_of

    assert all(deals_of(seed) != TEST for _, seed in game_list([2, 3, 4, 5], 200, seed=3))


def test_held_out_rows_are_whole_games(rows):
    mask = held_out(rows, 0.4, seed=2)
    for g in np.unique(rows["game"]):
        part = mask[rows["game"] == g]
        assert part.all() or not part.any()
    assert 0 < mask.sum() < len(mask)
    assert np.array_equal(mask, held_out(rows, 0.4, seed=2))
    assert not held_out(rows, 0.0, seed=2).any() and held_out(rows, 1.0, seed=2).all()


def test_calibration_is_one_for_the_outcome_and_zero_for_the_even_chance(rows):
    sel = np.arange(len(rows["n"]))
    perfect = calibration(rows["result"].astype(np.float64), rows, sel)
    assert all(c["brier_skill"] == 1.0 and c["correlation"] == 1.0 for c in perfect.values())
    even = np.zeros(len(sel))  # zero_sum 0 is the chance 1/n at any count
    flat = calibration(even, rows, sel)
    assert all(c["brier_skill"] == 0.0 and c["correlation"] is None for c in flat.values())
    assert {k: c["games"] for k, c in flat.items()} == {"3": 5, "4": 5}


def test_the_fit_learns_the_critic_only_and_writes_a_checkpoint_the_search_plays(rows, tmp_path):
    out = tmp_path / "vf" / "a.npz"
    report = value_fit(REF, out, rows, SETTINGS, {"played": "test"})
    got, start = _arrays(out), _arrays(Path(REF))
    for k in start:
        if k.startswith(("w", "b")):
            assert np.array_equal(got[k], start[k]), k  # the actor, bit for bit
    assert any(not np.array_equal(got[k], start[k]) for k in start if k.startswith("vw"))
    hist = report["history"]
    assert [h["pass"] for h in hist] == [0, 1, 2]
    best = min(hist, key=lambda h: h["held_out_mse"])
    assert report["best_pass"] == best["pass"]
    assert hist[0]["train_mse"] is None and all(h["train_mse"] > 0 for h in hist[1:])
    side = json.loads(out.with_suffix(".json").read_text(), parse_constant=_no_constant)
    assert side["trainer"] == "value_fit"
    assert side["step"] == json.loads(Path(REF).with_suffix(".json").read_text())["step"] > 0
    assert side["config"]["reward"] == "zero_sum" and side["config"]["shaping"] == 0.0
    assert set(side["value_fit"]["held_out"]) == {"start", "fitted"}
    # the search reads the new critic as the result itself (no shaping added back)
    pol, meta = load_policy(out, need_value=True)
    assert LeafEvaluator(pol, meta).shaping == 0.0
    s = new_game(3, 12)
    agent = make_agent(f"mcts:policy={out}:sims=4", seed=0)
    assert agent.act(player_view(s, s.cur), legal_actions(s)) in legal_actions(s)
    # the same rows and settings give the same weights; the file is never replaced
    again = tmp_path / "vf" / "b.npz"
    value_fit(REF, again, rows, SETTINGS, {"played": "test"})
    b = _arrays(again)
    assert all(np.array_equal(got[k], b[k]) for k in got)
    with pytest.raises(ValueFitError, match="exists"):
        value_fit(REF, out, rows, SETTINGS, {})


def test_a_fit_without_rows_or_without_held_out_games_is_refused(rows, tmp_path):
    empty = G.concat([])
    with pytest.raises(ValueFitError, match="no rows"):
        value_fit(REF, tmp_path / "a.npz", empty, SETTINGS, {})
    with pytest.raises(ValueFitError, match="held-out"):
        value_fit(REF, tmp_path / "b.npz", rows, {**SETTINGS, "holdout": 1e-9}, {})
    assert not list(tmp_path.iterdir())


def _cli(*args: str):
    return CliRunner().invoke(app, ["value-fit", *args])


def test_the_command_plays_saves_and_refits_from_saved_games(tmp_path):
    games = tmp_path / "g.npz"
    common = ["--players", "3", "--games", "4", "--sample-rate", "0.3", "--holdout", "0.5"]
    common += ["--epochs", "1", "--seed", "2"]
    res = _cli("--out", str(tmp_path / "a.npz"), "--save-games", str(games), *common)
    assert res.exit_code == 0, res.output
    assert "held-out Brier skill of the fitted critic: 3p" in res.output
    assert games.exists() and (tmp_path / "a.json").exists()
    res = _cli("--out", str(tmp_path / "c.npz"), "--games-from", str(games), "--games", "4")
    assert res.exit_code == 2 and "--games-from learns from saved games; --games" in res.output
    fit = ["--holdout", "0.5", "--epochs", "1", "--seed", "2"]
    res = _cli("--out", str(tmp_path / "b.npz"), "--games-from", str(games), *fit)
    assert res.exit_code == 0, res.output
    a, b = _arrays(tmp_path / "a.npz"), _arrays(tmp_path / "b.npz")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    side = json.loads((tmp_path / "b.json").read_text())
    played = json.loads((tmp_path / "a.json").read_text())["value_fit"]["games"]
    assert played["players"] == [3] and played["games"] == 4 and played["seed"] == 2
    assert played["policy"] == "reference" and played["sample_rate"] == 0.3
    assert side["value_fit"]["games"] == {"from": [{"path": str(games), "played": played}]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "6"], "--players '6'"),
        (["--players", "3,3"], "distinct player counts"),
        (["--sample-rate", "0"], "--sample-rate 0.0"),
        (["--explore", "1.5"], "--explore 1.5"),
        (["--holdout", "1"], "--holdout 1.0"),
        (["--epochs", "0"], "--epochs 0"),
        (["--learning-rate", "0"], "--learning-rate 0.0"),
        (["--games", "0"], "--games 0"),
        (["--policy", "nosuchpolicy.npz", "--games", "1"], "nosuchpolicy"),
        (["--policy", "ref_v1"], "holds no critic"),
    ],
)
def test_bad_settings_exit_2_and_name_what_was_wrong(tmp_path, args, message):
    res = _cli("--out", str(tmp_path / "a.npz"), *args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "a.npz").exists()


def test_bad_paths_and_bad_saved_games_exit_2(tmp_path):
    taken = tmp_path / "taken.npz"
    taken.write_bytes(b"keep")
    res = _cli("--out", str(taken))
    assert res.exit_code == 2 and "exists" in res.output and taken.read_bytes() == b"keep"
    res = _cli("--out", str(tmp_path / "a.txt"))
    assert res.exit_code == 2 and "ending in .npz" in res.output
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not an archive")
    res = _cli("--out", str(tmp_path / "a.npz"), "--games-from", str(junk))
    assert res.exit_code == 2 and "cannot read saved games" in res.output
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    res = _cli("--out", str(tmp_path / "a.npz"), "--games-from", str(other))
    assert res.exit_code == 2 and "not saved value-fit games" in res.output
    pickled = tmp_path / "pickled.npz"
    arrays = {k: np.zeros(0, dtype=t) for k, t in G.FIELDS.items()}
    np.savez(pickled, **{**arrays, "n": np.array([object()], dtype=object)})
    res = _cli("--out", str(tmp_path / "a.npz"), "--games-from", str(pickled))
    assert res.exit_code == 2 and "cannot read saved games" in res.output
    bad = tmp_path / "bad.npz"
    rows = {k: np.zeros(1, dtype=t) for k, t in G.FIELDS.items()}
    np.savez(bad, **{**rows, "n": np.array([3]), "seat": np.array([7]), "obs_len": np.array([1])})
    res = _cli("--out", str(tmp_path / "a.npz"), "--games-from", str(bad))
    assert res.exit_code == 2 and "out of range" in res.output
    assert not (tmp_path / "a.npz").exists()
