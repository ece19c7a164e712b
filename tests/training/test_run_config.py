"""One base of settings (`training.config.RunConfig`): the fields every trainer shares have one
range whichever trainer reads them (`TrainConfig`, `ExpertConfig`), the search's simulations
are capped where the search caps them, settings written before still load, and `mode` names
the trainer (all_seat by default, as the shipped configs say)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from agents import mcts
from training.config import (
    MAX_SEED,
    MODES,
    RunConfig,
    RunConfigError,
    TrainConfig,
    TrainConfigError,
    load_config,
)
from training.expert.config import ExpertConfig, ExpertConfigError

REF = "agents/policies/reference.npz"
SHARED = [f.name for f in fields(RunConfig)]

# the settings each kind wrote before the base existed (state.json "config", sidecars)
TRAIN_NAMES_BEFORE = {
    "run_dir", "total_steps", "seed", "game", "mode", "n_envs", "vec_env", "n_games",
    "torch_threads", "init_policy", "init_new_prior", "init_critic", "critic_warmup",
    "exploiter_every", "exploiter_steps", "exploiter_games", "exploiter_gate", "num_players",
    "player_weights", "reward", "shaping", "learning_rate", "n_steps", "batch_size", "n_epochs",
    "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef", "net_arch", "activation",
    "bc_teacher", "bc_games", "bc_epochs", "kickstart_teacher", "kickstart_coef",
    "kickstart_steps", "kickstart_players", "prior", "prior_weight", "p_latest", "p_bots_min",
    "p_bot_table", "p_bot_seat", "bots", "pfsp", "snapshot_every", "snapshot_window",
    "milestone_every", "eval_every", "eval_games", "eval_bots", "eval_num_players",
    "eval_workers", "checkpoint_every", "progress",
}  # fmt: skip
EXPERT_BEFORE = {
    "run_dir": "runs/expert/x", "game": "lastwill", "init_policy": REF, "iterations": 3,
    "games": 2, "sims": 16, "full_share": 1.0, "fast_sims": 8, "full_below": 1.0,
    "policy_target": "visits", "c_puct": 1.5, "noise": 0.0, "alpha": 0.3, "explore": 8,
    "num_players": [2], "player_weights": [1.0], "epochs": 1, "batch_size": 64,
    "learning_rate": 0.0001, "vf_coef": 0.5, "anchor_coef": 0.0, "buffer": 4, "eval_every": 0,
    "eval_games": 4, "eval_bots": ["greedy"], "eval_num_players": [2], "torch_threads": 1,
    "workers": 1, "seed": 7, "progress": False,
}  # fmt: skip


def _expert(**over) -> ExpertConfig:
    return ExpertConfig(**{**EXPERT_BEFORE, **over})


def _refusal(make, **over) -> str:
    with pytest.raises(RunConfigError) as e:
        make(**over)
    return str(e.value)


def test_both_trainers_extend_the_base_and_share_its_fields():
    assert issubclass(TrainConfig, RunConfig) and issubclass(ExpertConfig, RunConfig)
    assert issubclass(TrainConfigError, RunConfigError)
    assert issubclass(ExpertConfigError, RunConfigError)
    assert len(SHARED) == 14 and "run_dir" in SHARED and "eval_bots" in SHARED
    assert set(SHARED) <= set(TrainConfig.names()) and set(SHARED) <= set(ExpertConfig.names())


@pytest.mark.parametrize(
    "name, bad",
    [
        ("seed", MAX_SEED + 1),
        ("seed", -1),
        ("seed", True),
        ("batch_size", 1),
        ("eval_every", -1),
        ("eval_games", 0),
        ("torch_threads", 1025),
        ("learning_rate", 0.0),
        ("learning_rate", float("nan")),
        ("vf_coef", -0.5),
        ("progress", "yes"),
        ("run_dir", " "),
        ("game", "nosuchgame"),
        ("game", None),
        ("num_players", [2, 6]),
        ("eval_num_players", 6),
        ("eval_bots", []),
        ("eval_bots", ["greedy", "greedy"]),
        ("eval_bots", ["nosuchbot"]),
    ],
)
def test_a_shared_setting_has_one_range_and_one_message(name, bad):
    train = _refusal(TrainConfig, **{name: bad})
    expert = _refusal(_expert, **{name: bad})
    assert train == expert and f"{name}" in train


def test_the_edges_of_the_shared_ranges_are_the_same_in_both():
    for over in ({"seed": MAX_SEED}, {"eval_every": 0}, {"batch_size": 2}, {"eval_games": 1}):
        assert getattr(TrainConfig(**over), next(iter(over))) == next(iter(over.values()))
        assert getattr(_expert(**over), next(iter(over))) == next(iter(over.values()))
    assert MAX_SEED == 2**31 - 1  # what a training run always allowed


def test_the_search_s_simulations_are_capped_where_the_search_caps_them():
    assert _expert(sims=mcts.MAX_SIMS).sims == mcts.MAX_SIMS
    assert f"from 1 to {mcts.MAX_SIMS}" in _refusal(_expert, sims=mcts.MAX_SIMS + 1)
    assert f"from 1 to {mcts.MAX_SIMS}" in _refusal(_expert, fast_sims=mcts.MAX_SIMS + 1)
    with pytest.raises(ValueError, match="sims"):
        mcts.MCTSAgent(policy=REF, sims=mcts.MAX_SIMS + 1)


def test_settings_written_before_the_base_still_load():
    assert set(TrainConfig.names()) == TRAIN_NAMES_BEFORE
    cfg = ExpertConfig.from_dict(json.loads(json.dumps(EXPERT_BEFORE)))
    assert cfg.to_dict() == EXPERT_BEFORE and set(ExpertConfig.names()) == set(EXPERT_BEFORE)
    # an integer read where a real number is expected is the same value
    assert ExpertConfig.from_dict({**EXPERT_BEFORE, "learning_rate": 1}).learning_rate == 1.0


def test_mode_names_the_trainer_and_defaults_to_the_shipped_configs_all_seat():
    assert MODES == ("all_seat", "single_seat", "rllib", "expert")
    assert TrainConfig().mode == "all_seat" and ExpertConfig.mode == "expert"
    assert TrainConfig(mode="rllib").mode == "rllib"
    assert "ExpertConfig" in _refusal(TrainConfig, mode="expert")
    shipped = sorted(Path("training/configs").glob("*.toml"))
    modes = {}
    for path in shipped:
        if "[expert]" in path.read_text():
            modes[path.name] = "expert"
            continue
        modes[path.name] = load_config(path).mode
    assert modes["ref_v1.toml"] == "single_seat" and modes["collect_vf2p.toml"] == "expert"
    others = [m for name, m in modes.items() if name not in ("ref_v1.toml", "collect_vf2p.toml")]
    assert others and set(others) == {"all_seat"}
    assert ExpertConfig.from_dict({**EXPERT_BEFORE, "mode": "expert"}).sims == 16
    with pytest.raises(ExpertConfigError, match="mode='all_seat' is not allowed"):
        ExpertConfig.from_dict({**EXPERT_BEFORE, "mode": "all_seat"})


def test_expert_settings_keep_their_own_defaults():
    cfg = ExpertConfig()
    assert (cfg.run_dir, cfg.torch_threads, cfg.eval_bots, cfg.eval_every) == (
        "runs/expert/default",
        1,
        ["sprinter"],
        2,
    )
    assert cfg.num_players == [2, 3, 4, 5] and cfg.eval_num_players == [2]
    assert cfg.total_steps == cfg.iterations and cfg.checkpoint_every == 1
    assert _expert(eval_num_players=3).eval_counts() == [3]  # one count, as training's
