"""`lastwill train` flags (generated from TrainConfig), the one switch of the trainer (`--mode`,
and `--backend`, its deprecated alias) and `lastwill --version`, through typer's CliRunner;
training itself is replaced by stubs that record the configuration."""

from __future__ import annotations

from dataclasses import fields

import pytest
from typer.testing import CliRunner

pytest.importorskip("sb3_contrib")

import training.train as tr  # noqa: E402
from apps import expert_cli, train_cli  # noqa: E402
from apps.cli import app  # noqa: E402
from training.config import TrainConfig  # noqa: E402

runner = CliRunner()


@pytest.fixture
def seen(monkeypatch):
    got = {}

    def fake_train(cfg, resume=False, notify=None, force=False):
        got["cfg"], got["resume"], got["force"] = cfg, resume, force
        return {"step": cfg.total_steps, "checkpoint": "checkpoints/step_1.zip", "best": None}

    def fake_resume_config(run_dir, total_steps=None, given=None):
        got["given"] = given
        return TrainConfig(run_dir=str(run_dir), total_steps=total_steps or 5, seed=9)

    def fake_train_rllib(config, overrides, resume, ray_address, env_runners, force=False):
        got["rllib"] = {"overrides": overrides, "resume": resume, "env_runners": env_runners}

    def fake_run_expert(cfg, resume, force=False):
        got["expert"], got["resume"], got["force"] = cfg, resume, force

    monkeypatch.setattr(tr, "train", fake_train)
    monkeypatch.setattr(tr, "resume_config", fake_resume_config)
    monkeypatch.setattr(tr, "resumed_mode", lambda run_dir: got.get("run_mode", "all_seat"))
    monkeypatch.setattr(train_cli, "_train_rllib", fake_train_rllib)
    monkeypatch.setattr(expert_cli, "run_expert", fake_run_expert)
    return got


def test_every_setting_has_a_flag_listed_in_help():
    res = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for f in fields(TrainConfig):
        assert "--" + f.name.replace("_", "-") in res.output, f.name
    assert "--no-pfsp" in res.output and "--no-progress" in res.output


def test_flags_reach_the_configuration(seen, tmp_path):
    res = runner.invoke(
        app,
        [
            "train",
            "--run-dir", str(tmp_path / "r"),
            "--learning-rate", "1e-4",
            "--net-arch", "64,32",
            "--player-weights", "1,2",
            "--num-players", "2,4",
            "--bots", "greedy,random",
            "--eval-num-players", "2,3",
            "--no-pfsp",
            "--activation", "relu",
            "--bc-teacher", "planner",
            "--no-progress",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    cfg = seen["cfg"]
    assert cfg.learning_rate == 1e-4 and cfg.net_arch == [64, 32]
    assert cfg.player_weights == [1.0, 2.0] and cfg.num_players == [2, 4]
    assert cfg.bots == ["greedy", "random"] and cfg.eval_num_players == [2, 3]
    assert cfg.pfsp is False and cfg.activation == "relu" and cfg.bc_teacher == "planner"
    assert cfg.progress is False and seen["resume"] is False
    res = runner.invoke(app, ["train", "--eval-num-players", "5", "--no-progress"])
    assert res.exit_code == 0 and seen["cfg"].eval_num_players == 5


def test_flags_override_the_config_file(seen, tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text("[train]\nseed = 3\nent_coef = 0.05\nnet_arch = [16]\n")
    res = runner.invoke(app, ["train", "-c", str(toml), "--ent-coef", "0.02", "--no-progress"])
    assert res.exit_code == 0, res.output
    cfg = seen["cfg"]
    assert cfg.seed == 3 and cfg.ent_coef == 0.02 and cfg.net_arch == [16]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--net-arch", "64,x"], "--net-arch takes comma-separated integers"),
        (["--player-weights", "1,a"], "comma-separated numbers"),
        (["--activation", "sigmoid"], "choose tanh or relu"),
        (["--eval-num-players", "7"], "eval_num_players"),
        (["--gamma", "2"], "from 0 to 1"),
        (["--resume"], "--resume needs --run-dir"),
        (["--resume", "--force", "--run-dir", "r"], "give one of them"),
        # settings given with --resume that differ from the run's: tests/apps/test_bad_input.py
    ],
)
def test_bad_flags_exit_2_with_a_clear_message(seen, args, message):
    res = runner.invoke(app, ["train", *args])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "cfg" not in seen  # nothing was trained


def test_resume_takes_total_steps_and_progress(seen, tmp_path):
    res = runner.invoke(
        app,
        ["train", "--resume", "--run-dir", str(tmp_path), "--total-steps", "77", "--no-progress"],
    )
    assert res.exit_code == 0, res.output
    assert seen["resume"] is True and seen["cfg"].total_steps == 77 and seen["cfg"].seed == 9
    assert seen["cfg"].progress is False


def test_version():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    import lastwill_env

    assert res.output.startswith("lastwill-lab ") and lastwill_env.ENV_NAME in res.output


def test_force_reaches_the_trainer(seen, tmp_path):
    res = runner.invoke(app, ["train", "--run-dir", str(tmp_path / "r"), "--force"])
    assert res.exit_code == 0, res.output
    assert seen["force"] is True and seen["resume"] is False


# -- the one switch of the trainer -----------------------------------------------------------


def test_the_default_mode_is_the_shipped_configs_all_seat(seen, tmp_path):
    assert TrainConfig().mode == "all_seat"
    res = runner.invoke(app, ["train", "--run-dir", str(tmp_path / "r"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert seen["cfg"].mode == "all_seat"
    res = runner.invoke(app, ["train", "--mode", "single_seat", "--no-progress"])
    assert res.exit_code == 0 and seen["cfg"].mode == "single_seat"


def test_mode_rllib_and_its_deprecated_spelling_choose_the_rllib_trainer(seen):
    res = runner.invoke(app, ["train", "--mode", "rllib", "--env-runners", "2"])
    assert res.exit_code == 0, res.output
    assert seen["rllib"]["overrides"]["mode"] == "rllib" and seen["rllib"]["env_runners"] == 2
    assert "deprecated" not in res.output
    seen.clear()
    res = runner.invoke(app, ["train", "--backend", "rllib", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "--backend is deprecated" in res.output and "--mode rllib" in res.output
    assert seen["rllib"]["overrides"]["mode"] == "rllib" and "cfg" not in seen
    res = runner.invoke(app, ["train", "--backend", "lab", "--no-progress"])
    assert res.exit_code == 0 and seen["cfg"].mode == "all_seat"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backend", "rllib", "--mode", "all_seat"], "name different trainers"),
        (["--backend", "ray"], "--backend 'ray' is not allowed"),
        (["--mode", "alpha_zero"], "--mode 'alpha_zero' is not allowed"),
        (["--env-runners", "2"], "settings of --mode rllib"),
        (["--mode", "expert", "--n-envs", "3"], "--n-envs: not a setting of expert iteration"),
    ],
)
def test_a_switch_that_names_no_trainer_or_two_exits_2(seen, args, message):
    res = runner.invoke(app, ["train", *args], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not {"cfg", "rllib", "expert"} & set(seen)


def test_mode_expert_takes_its_table_and_the_shared_flags(seen, tmp_path):
    toml = tmp_path / "e.toml"
    toml.write_text('[expert]\nsims = 12\ngames = 3\neval_bots = ["greedy"]\n')
    args = ["train", "-c", str(toml), "--run-dir", str(tmp_path / "x"), "--seed", "4"]
    res = runner.invoke(app, [*args, "--eval-num-players", "3", "--total-steps", "5"])
    assert res.exit_code == 0, res.output
    cfg = seen["expert"]
    assert (cfg.sims, cfg.games, cfg.seed, cfg.iterations) == (12, 3, 4, 5)
    assert cfg.eval_num_players == 3 and cfg.eval_counts() == [3] and cfg.mode == "expert"
    # a file of expert settings chooses expert iteration by itself; `mode` may name it
    seen.clear()
    toml.write_text('[train]\nmode = "expert"\nsims = 9\neval_bots = ["greedy"]\n')
    res = runner.invoke(app, ["train", "-c", str(toml), "--force"])
    assert res.exit_code == 0, res.output
    assert seen["expert"].sims == 9 and seen["force"] is True


def test_a_resumed_run_keeps_its_own_trainer(seen, tmp_path):
    seen["run_mode"] = "single_seat"
    args = ["train", "--resume", "--run-dir", str(tmp_path), "--no-progress"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert seen["cfg"].mode == "single_seat" and "mode" not in seen["given"]
    res = runner.invoke(app, [*args, "--mode", "all_seat"])
    assert res.exit_code == 2 and "holds a run of mode single_seat" in res.output
    seen["run_mode"] = "rllib"
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and seen["rllib"]["resume"] is True
    assert "mode" not in seen["rllib"]["overrides"]
    seen["run_mode"] = "expert"
    res = runner.invoke(app, [*args, "--total-steps", "9"])
    assert res.exit_code == 2 and "holds no expert-iteration run" in res.output
