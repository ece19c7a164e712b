"""Expert iteration, value-fit, exploit and the behaviour-cloning warm start take a game.

- a tiny expert-iteration round on the tiny test game "tally" (tests/support/tinygame.py): search
  self-play over a fresh random tally network, a learning step; its samples file says game
  "tally", holds tally's observations and actions, and is refused when read as Last Will's (a
  file naming no game is Last Will's, refused when read as tally's); the checkpoints are
  tally policies that the search plays;
- value-fit records tally games and fits the tally network's critic, its actor untouched;
  saved rows name their game;
- a tally exploit trains a best response against tally's bot, and the warm start's
  demonstrations are tally's;
- a bad `game` value fails naming the allowed games (settings, Python API, command lines).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import tinygame  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from agents.mcts import MCTSAgent  # noqa: E402
from agents.policy import load_policy  # noqa: E402
from apps.cli import app  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.expert import ExpertConfig, ExpertConfigError, expert  # noqa: E402
from training.expert.samplefile import SampleFileError, read_sample_file  # noqa: E402
from training.expert.selfplay import pack, play  # noqa: E402

TALLY = tinygame.install()


def _tally_train_config(run: Path) -> TrainConfig:
    return TrainConfig(
        game="tally",
        mode="all_seat",
        run_dir=str(run),
        num_players=[2, 3, 4],
        player_weights=[1.0, 1.0, 1.0],
        bots=["high"],
        eval_bots=["high"],
        eval_num_players=[2],
        net_arch=[16],
        progress=False,
        torch_threads=1,
    )


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """A fresh random tally network with its critic, saved as a policy checkpoint."""
    from training.allseat import build_model, make_optimizer
    from training.allseat.loop import save_checkpoint

    folder = tmp_path_factory.mktemp("tally")
    cfg = _tally_train_config(folder)
    model = build_model(cfg, 3)
    return save_checkpoint(model, make_optimizer(model, cfg), folder / "fresh.npz", cfg, 0)


def _expert_config(run: Path, policy: Path, **over) -> ExpertConfig:
    base = dict(
        game="tally",
        run_dir=str(run),
        init_policy=str(policy),
        iterations=1,
        games=3,
        sims=6,
        num_players=[2, 3],
        epochs=2,
        batch_size=8,
        learning_rate=1e-2,
        eval_games=2,
        eval_bots=["high"],
        eval_every=1,
        progress=False,
    )
    base.update(over)
    return ExpertConfig(**base)


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def test_tally_settings_take_tally_s_player_counts(fresh, tmp_path):
    cfg = ExpertConfig(game="tally", init_policy=str(fresh), eval_bots=["high"])
    assert cfg.num_players == [2, 3, 4] and cfg.player_weights == [1.0, 1.0, 1.0]
    assert cfg.eval_num_players == [2] and cfg.to_dict()["game"] == "tally"
    assert ExpertConfig().num_players == [2, 3, 4, 5] and ExpertConfig().game == "lastwill"
    with pytest.raises(ExpertConfigError, match=r"num_players=\[2, 5\].*2, 3 or 4"):
        _expert_config(tmp_path, fresh, num_players=[2, 5])
    with pytest.raises(ExpertConfigError, match="eval_bots: .*greedy"):
        _expert_config(tmp_path, fresh, eval_bots=["greedy"])  # Last Will's bot


def test_self_play_on_tally_samples_tally_s_searched_decisions(fresh):
    searcher = MCTSAgent(policy=str(fresh), sims=5, seed=1, game=TALLY)
    rec = play(searcher, 3, seed=11, explore=2)
    assert rec.decisions == 3 * tinygame.HAND and rec.samples
    assert len(rec.ranks) == 3 and min(rec.ranks) == 1
    rewards = TALLY.terminal_rewards(rec.ranks, "zero_sum")
    for s in rec.samples:
        assert len(s.legal) > 1 and max(s.legal) < TALLY.num_actions
        assert sum(s.visits) == 5 and s.prior == -1  # a fresh network plays over no prior
        assert s.idx.max() < TALLY.obs_size and s.result == rewards[s.seat]
    again = play(MCTSAgent(policy=str(fresh), sims=5, seed=1, game=TALLY), 3, seed=11, explore=2)
    assert all(
        np.array_equal(a, b)
        for a, b in zip(pack(rec.samples).values(), pack(again.samples).values(), strict=True)
    )


def test_an_expert_round_on_tally_learns_and_records_its_game(fresh, tmp_path):
    run = tmp_path / "run"
    st = expert(_expert_config(run, fresh))
    assert st["iteration"] == 1 and st["config"]["game"] == "tally"
    samples = run / "samples" / "iter_1.npz"
    raw = _arrays(samples)
    assert str(raw["game"]) == "tally"
    data = read_sample_file(samples, TALLY)
    assert len(data["n"]) == st["history"][0]["samples"] > 0
    assert set(data["n"].tolist()) <= {2, 3} and data["obs_idx"].max() < TALLY.obs_size
    assert data["legal"].max() < TALLY.num_actions
    with pytest.raises(SampleFileError, match=r"game 'tally', not of 'lastwill'"):
        read_sample_file(samples)  # Last Will's reader
    row = st["history"][0]
    assert np.isfinite(row["policy_loss"]) and "eval/win_rate/2p" in row
    start, learned = (
        _arrays(run / "checkpoints" / "iter_0.npz"),
        _arrays(run / "checkpoints" / "iter_1.npz"),
    )
    assert any(not np.array_equal(start[k], learned[k]) for k in start)
    side = json.loads((run / "checkpoints" / "iter_1.json").read_text())
    assert (side["game"], side["obs_size"], side["num_actions"]) == ("tally", 9, 5)
    agent = MCTSAgent(policy=str(run / "checkpoints" / "iter_1.npz"), sims=3, game=TALLY)
    state = TALLY.new_game(TALLY.make_config(2), 4)
    legal = TALLY.legal_actions(state)
    assert agent.act(TALLY.player_view(state, 0), legal) in legal


def test_a_samples_file_naming_no_game_is_last_will_s(fresh, tmp_path):
    data = pack(play(MCTSAgent(policy=str(fresh), sims=3, seed=2, game=TALLY), 2, 5).samples)
    bare = tmp_path / "iter_1.npz"
    np.savez(bare, **data)
    with pytest.raises(SampleFileError, match=r"game 'lastwill', not of 'tally'"):
        read_sample_file(bare, TALLY)
    odd = tmp_path / "iter_2.npz"
    np.savez(odd, **data, game=np.array([1, 2]))
    with pytest.raises(SampleFileError, match="not a game's name"):
        read_sample_file(odd, TALLY)


def test_value_fit_on_tally_fits_the_critic_alone(fresh, tmp_path):
    from training.valuefit import games as G
    from training.valuefit.run import ValueFitError, check_policy, game_list, record, value_fit

    rows = record(str(fresh), game_list([2, 3], 6, seed=1), 0.6, 0.2, game="tally")
    assert set(rows["n"].tolist()) == {2, 3} and rows["round"].min() >= 1
    assert rows["obs_idx"].max() < TALLY.obs_size
    settings = {"epochs": 2, "learning_rate": 1e-2, "batch_size": 16, "holdout": 0.4, "seed": 0}
    out = tmp_path / "vf.npz"
    report = value_fit(str(fresh), out, rows, settings, {"played": "test"}, game="tally")
    assert set(report["held_out"]) == {"start", "fitted"}
    got, start = _arrays(out), _arrays(fresh)
    assert all(np.array_equal(got[k], start[k]) for k in start if k.startswith(("w", "b")))
    assert json.loads(out.with_suffix(".json").read_text())["game"] == "tally"
    load_policy(out, need_value=True, game=TALLY)
    with pytest.raises(ValueFitError, match="tally"):
        check_policy(str(fresh))  # not a Last Will policy
    saved = tmp_path / "rows.npz"
    G.save(saved, rows, {"played": "test"}, TALLY)
    back, _ = G.load([saved], TALLY)
    assert all(np.array_equal(back[k], rows[k]) for k in G.FIELDS)
    with pytest.raises(G.GamesError, match=r"game 'tally', not of 'lastwill'"):
        G.load([saved])


def test_value_fit_command_plays_tally(fresh, tmp_path):
    out = tmp_path / "a.npz"
    args = ["value-fit", "--game", "tally", "--policy", str(fresh), "--out", str(out)]
    args += ["--games", "4", "--sample-rate", "0.5", "--holdout", "0.5", "--epochs", "1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "at 2,3,4 players" in res.output  # tally's own counts by default
    assert json.loads(out.with_suffix(".json").read_text())["game"] == "tally"


def test_a_tally_exploit_and_tally_demonstrations(tmp_path):
    from training.bc import collect
    from training.exploit import exploit

    small = {
        "n_games": 4,
        "n_steps": 64,
        "n_envs": 1,
        "batch_size": 32,
        "n_epochs": 1,
        "torch_threads": 1,
        "net_arch": [16],
    }
    rep = exploit(
        "high",
        2,
        64,
        tmp_path / "x",
        seed=1,
        eval_games=3,
        train_eval_games=2,
        progress=False,
        overrides=small,
        game="tally",
    )
    assert rep["cheap_bound"]["tables"] == {}  # tally's panel is the target alone
    assert rep["best_response"]["chance"] == 0.5 and rep["best_response"]["games"] >= 3
    side = json.loads((tmp_path / "x" / "best.json").read_text())
    assert side["game"] == "tally"
    cfg = copy.copy(_tally_train_config(tmp_path / "bc"))
    cfg.bc_teacher = "high"  # a warm start is Last Will's only in a run; its demonstrations
    data = collect(cfg, 3, seed=2)
    assert data["obs"].shape[1] == TALLY.obs_size and data["masks"].shape[1] == 5
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()


def test_a_bad_game_is_refused_naming_the_allowed_games(fresh, tmp_path):
    from training.exploit import ExploitError, exploit
    from training.valuefit.run import ValueFitError, check_policy

    for bad in ("nosuchgame", 3, None):
        with pytest.raises(ExpertConfigError) as e:
            _expert_config(tmp_path, fresh, game=bad)
        assert "lastwill" in str(e.value) and "tally" in str(e.value) and "game=" in str(e.value)
    with pytest.raises(ValueFitError, match=r"game='nosuchgame'.*lastwill.*tally"):
        check_policy(str(fresh), "nosuchgame")
    with pytest.raises(ExploitError, match=r"game='nosuchgame'.*lastwill.*tally"):
        exploit("high", 2, 10, tmp_path / "x", game="nosuchgame")
    assert not (tmp_path / "x").exists()
    runner = CliRunner()
    for args in (
        ["expert", "--game", "nosuchgame", "--run-dir", str(tmp_path / "e")],
        ["value-fit", "--game", "nosuchgame", "--out", str(tmp_path / "v.npz")],
        ["exploit", "--game", "nosuchgame", "--target", "greedy", "--run-dir", str(tmp_path / "x")],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert "nosuchgame" in res.output and "lastwill" in res.output, res.output
        assert "Traceback" not in res.output
    assert not any(tmp_path.iterdir())
