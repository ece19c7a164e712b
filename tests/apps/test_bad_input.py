"""Bad input never loses data (issue: files, run directories, settings).

One case per bad input: each runs the `lastwill` command (typer's CliRunner, in-process) and
asserts exit code 2, a message naming what was wrong, no traceback, and that no file under
the test's directory changed (bytes and modification times, and no file added or removed).
API cases (`GameState.from_dict`, the safe-write helpers, checkpoints) assert the error and
its message the same way.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agents import arena as ar
from agents import safeio
from agents.policy import CheckpointError, env_signature, load_policy
from apps import play as pl
from apps.cli import app
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import (
    GAME_OVER,
    NUM_ACTIONS,
    GameConfig,
    GameState,
    StateError,
    apply_action,
    legal_actions,
    new_game,
)

runner = CliRunner()


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root`: its bytes and modification time."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def refused(tmp_path: Path, argv: list[str], message: str, stdin: str | None = None) -> str:
    """Run `lastwill ARGV`; exit code 2, `message` on stderr, no traceback, no file changed."""
    before = tree(tmp_path)
    res = runner.invoke(app, argv, input=stdin)
    assert res.exit_code == 2, res.output
    assert message in res.stderr, res.stderr
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert tree(tmp_path) == before, "a file changed"
    return res.stderr


# ---------------------------------------------------------------------------------------------
# Fixtures: a small arena log, a checkpoint sidecar, a run directory with real checkpoints


def _arena_log(path: Path, games: int = 8, players: str = "random,greedy") -> Path:
    entrants = players.split(",")
    ar.run_tournament(entrants, GameConfig(len(entrants)), games, seed=3, out=path)
    return path


@pytest.fixture(scope="module")
def arena_log(tmp_path_factory) -> Path:
    return _arena_log(tmp_path_factory.mktemp("log") / "log.jsonl")


def _policy_files(d: Path, name: str, weights: list[np.ndarray] | None = None) -> Path:
    """A `.npz` policy of the right shapes and a current sidecar; returns the `.npz`."""
    rng = np.random.default_rng(0)
    if weights is None:
        weights = [rng.normal(size=(8, OBS_SIZE)), rng.normal(size=(NUM_ACTIONS, 8))]
    arrays = {f"w{i}": w.astype(np.float32) for i, w in enumerate(weights)}
    arrays.update({f"b{i}": np.zeros(w.shape[0], np.float32) for i, w in enumerate(weights)})
    npz = d / f"{name}.npz"
    np.savez(npz, activation=np.array("tanh"), **arrays)
    (d / f"{name}.json").write_text(json.dumps({**env_signature(), "step": 1}))
    return npz


@pytest.fixture(scope="module")
def run_template(tmp_path_factory) -> Path:
    """A run directory as `lastwill train` leaves it after 64 steps (checkpoint, snapshot,
    best, pool, state), made without training."""
    from sb3_contrib import MaskablePPO

    from lastwill_env.single_seat import SingleSeatEnv
    from training.checkpoint import promote_best, save_model_checkpoint
    from training.config import TrainConfig
    from training.pool import PoolRegistry, SnapshotInfo
    from training.rundir import new_state, write_state

    run = tmp_path_factory.mktemp("runs") / "run"
    cfg = TrainConfig(
        run_dir=str(run),
        mode="single_seat",  # SB3 checkpoints (all_seat is the default)
        total_steps=128,
        n_envs=1,
        vec_env="dummy",
        n_steps=64,
        batch_size=64,
        net_arch=[8],
        eval_bots=["greedy"],
        bots=["random"],
        progress=False,
    )
    model = MaskablePPO(
        "MlpPolicy",
        SingleSeatEnv(num_players=2),
        n_steps=64,
        batch_size=64,
        policy_kwargs={"net_arch": [8]},
        device="cpu",
    )
    for kind, step in (("snapshots", 32), ("checkpoints", 64)):
        save_model_checkpoint(model, run / kind / f"step_{step}.zip", cfg, step, {"kind": kind})
        model.policy.action_net.bias.data += 1.0  # the two checkpoints differ
    promote_best(run / "checkpoints/step_64", run / "best")
    state = new_state(cfg)
    state.update(
        step=64,
        checkpoint="checkpoints/step_64.zip",
        best={"step": 64, "mean_win_rate": 0.5, "checkpoint": "checkpoints/step_64.zip"},
    )
    write_state(run, state)
    reg = PoolRegistry(window=cfg.snapshot_window)
    reg.add(SnapshotInfo("step_32", "snapshots/step_32.zip", 32))
    reg.save(run / "pool.json")
    safeio.write_json(run / "config.json", cfg.to_dict())
    return run


@pytest.fixture()
def run(run_template: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(run_template, dst)
    return dst


# ---------------------------------------------------------------------------------------------
# `lastwill play`: the destination is checked before the game


def test_play_out_existing_file_is_refused_before_the_game(tmp_path):
    rec = tmp_path / "game.json"
    rec.write_text("my notes\n")
    args = ["play", "-p", "greedy", "-n", "2", "--seed", "1", "--out", str(rec)]
    msg = refused(tmp_path, args, "already exists; refusing to overwrite it", "1\n" * 3000)
    assert "--force" in msg


def test_play_out_a_directory_is_refused_before_the_game(tmp_path):
    (tmp_path / "some_dir").mkdir()
    args = ["play", "-p", "greedy", "-n", "2", "--out", str(tmp_path / "some_dir")]
    refused(tmp_path, args, "is a directory; give a file name", "1\n" * 3000)


def test_play_out_unwritable_place_is_refused_before_the_game(tmp_path):
    (tmp_path / "afile").write_text("x")
    args = ["play", "-p", "greedy", "-n", "2", "--out", str(tmp_path / "afile" / "x.json")]
    refused(tmp_path, args, "is a file, not a directory", "1\n" * 3000)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any directory")
def test_play_out_read_only_directory_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        args = ["play", "-p", "greedy", "-n", "2", "--out", str(ro / "x.json")]
        refused(tmp_path, args, "is not writable", "1\n" * 3000)
    finally:
        ro.chmod(0o700)


def test_play_force_replaces_an_existing_record(tmp_path):
    rec = tmp_path / "game.json"
    rec.write_text("old\n")
    args = ["play", "-p", "greedy", "-n", "2", "--seed", "1", "--out", str(rec), "--force"]
    res = runner.invoke(app, args, input="1\n" * 3000)
    assert res.exit_code == 0, res.output
    assert json.loads(rec.read_text())["finished"] is True


def test_save_at_the_prompt_never_overwrites_unless_forced(tmp_path):
    keep = tmp_path / "keep.json"
    keep.write_text("precious\n")
    before = tree(tmp_path)
    args = ["play", "-p", "greedy", "-n", "2", "--seed", "1", "--out", str(tmp_path / "o.json")]
    res = runner.invoke(app, args, input=f"save {keep}\nsave {tmp_path}\nquit\n")
    assert res.exit_code == 0, res.output
    assert f"{keep} already exists; refusing to overwrite it" in res.stdout
    assert "save --force PATH" in res.stdout and "is a directory" in res.stdout
    assert tree(tmp_path) == before
    res = runner.invoke(app, args, input=f"save --force {keep}\nquit\n")
    assert res.exit_code == 0 and f"saved to {keep}" in res.stdout
    assert json.loads(keep.read_text())["type"] == "play"


def test_failed_final_write_goes_to_a_fallback_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    game = pl.new_play(["greedy"], num_players=2, seed=2)
    blocked = tmp_path / "blocked"
    out = io.StringIO()
    target = blocked / "game.json"
    blocked.write_text("a file where the directory should be")  # the write must fail
    outcome = pl.run(game, io.StringIO("1\n" * 3000), out, out_path=target)
    text = out.getvalue()
    assert outcome.finished and outcome.record_path is not None
    assert f"could not write the game record to {target}" in text
    assert f"it was written to {outcome.record_path}" in text
    assert outcome.record_path.parent == Path("runs/play")
    assert json.loads(outcome.record_path.read_text())["actions"] == game.state.history
    assert blocked.read_text() == "a file where the directory should be"


# ---------------------------------------------------------------------------------------------
# `lastwill arena`: destinations, --resume, checkpoints, player specs

_P = ["arena", "-q", "-p", "random,greedy", "-g", "4"]


def _npz_case(kind: str) -> Callable[[Path], str]:
    def make(d: Path) -> str:
        npz = _policy_files(d, "pol")
        if kind == "truncated":
            npz.write_bytes(npz.read_bytes()[:200])
        elif kind == "empty":
            npz.write_bytes(b"")
        elif kind == "sidecar-list":
            (d / "pol.json").write_text("[1, 2, 3]\n")
        elif kind == "nan":
            w = [np.full((8, OBS_SIZE), np.nan), np.ones((NUM_ACTIONS, 8))]
            _policy_files(d, "pol", w)
        return f"ppo:{npz},random"

    return make


@dataclass
class ArenaCase:
    id: str
    setup: Callable[[Path], list[str]]
    message: str


def _resume_into(content: bytes) -> Callable[[Path], list[str]]:
    def setup(d: Path) -> list[str]:
        (d / "notes.txt").write_bytes(content)
        return [*_P, "-o", str(d / "notes.txt"), "--resume"]

    return setup


def _with_file(name: str, argv: Callable[[Path], list[str]]) -> Callable[[Path], list[str]]:
    """Setup: a file `name` holding one line, then the command line."""

    def setup(d: Path) -> list[str]:
        (d / name).write_text("my notes\n")
        return argv(d)

    return setup


def _with_policy(kind: str) -> Callable[[Path], list[str]]:
    return lambda d: ["arena", "-q", "-p", _npz_case(kind)(d), "-o", str(d / "l.jsonl")]


def _spec(spec: str) -> Callable[[Path], list[str]]:
    return lambda d: ["arena", "-q", "-p", spec, "-o", str(d / "l.jsonl")]


NINES = "9" * 400  # a number no option allows, too long to print whole
NINES_SHOWN = "99999999999999999999...99999999 (400 digits)"

ARENA_CASES = [
    ArenaCase(
        "resume-into-a-text-file",
        _resume_into(b"my notes, one line\n"),
        "line 1 is not an arena log header",
    ),
    ArenaCase(
        "resume-into-one-line-of-text-without-newline",
        _resume_into(b"my notes"),
        "line 1 is not a complete arena log header",
    ),
    ArenaCase(
        "resume-into-one-line-json-without-newline",
        _resume_into(b'{"note": "mine"}'),
        "line 1 is not a complete arena log header",
    ),
    ArenaCase(
        "resume-into-one-line-json",
        _resume_into(b'{"note": "mine"}\n'),
        "line 1 is not an arena log header",
    ),
    ArenaCase(
        "resume-out-a-directory",
        lambda d: [*_P, "-o", str(d), "--resume"],
        "is a directory; give a file name",
    ),
    ArenaCase(
        "out-a-directory",
        lambda d: [*_P, "-o", str(d)],
        "is a directory; give a file name",
    ),
    ArenaCase(
        "out-under-a-file",
        _with_file("afile", lambda d: [*_P, "-o", str(d / "afile" / "x.jsonl")]),
        "is a file, not a directory",
    ),
    ArenaCase(
        "out-existing-without-resume",
        _with_file("x.jsonl", lambda d: [*_P, "-o", str(d / "x.jsonl")]),
        "pass --resume to continue that tournament",
    ),
    ArenaCase(
        "plot-under-a-file",
        _with_file(
            "afile", lambda d: [*_P, "-o", str(d / "l.jsonl"), "--plot", str(d / "afile" / "w")]
        ),
        "cannot write the plot",
    ),
    ArenaCase(
        "plot-existing-without-force",
        _with_file("w.png", lambda d: [*_P, "-o", str(d / "l.jsonl"), "--plot", str(d / "w.png")]),
        "pass --force to replace it",
    ),
    ArenaCase(
        "plot-a-directory",
        lambda d: [*_P, "-o", str(d / "l.jsonl"), "--plot", str(d)],
        "is a directory",
    ),
    ArenaCase("truncated-npz", _with_policy("truncated"), "cannot read policy weights"),
    ArenaCase("empty-npz", _with_policy("empty"), "cannot read policy weights"),
    ArenaCase(
        "sidecar-a-json-list", _with_policy("sidecar-list"), "holds a JSON list, not an object"
    ),
    ArenaCase("nan-policy-weights", _with_policy("nan"), "holds NaN or infinite weights"),
    ArenaCase("greedy-eps-2", _spec("greedy:eps=2,random"), "eps=2 is not allowed; use a prob"),
    ArenaCase("greedy-eps-negative", _spec("greedy:eps=-0.5,random"), "eps=-0.5 is not allowed"),
    ArenaCase("greedy-eps-nan", _spec("greedy:eps=nan,random"), "eps=nan is not allowed"),
    ArenaCase("mc-rollouts-float", _spec("mc:rollouts=2.5,random"), "rollouts=2.5 is not"),
    ArenaCase(
        "greedy-eps-400-digits",
        _spec(f"greedy:eps={NINES},random"),
        f"eps={NINES_SHOWN} is not allowed; use a probability from 0 to 1",
    ),
    ArenaCase(
        "mcts-sims-400-digits",
        _spec(f"mcts:policy=reference:sims={NINES},random"),
        f"sims={NINES_SHOWN} is not allowed; use an integer from 1 to 1000000",
    ),
    ArenaCase("greedy-eps-1e400", _spec("greedy:eps=1e400,random"), "eps='1e400' is not allowed"),
    ArenaCase("greedy-eps-inf", _spec("greedy:eps=inf,random"), "eps=inf is not allowed"),
    ArenaCase(
        "ppo-net-twice", _spec("ppo:reference:net:net,random"), "options repeat; give at most"
    ),
    ArenaCase(
        "ppo-sample-and-det", _spec("ppo:reference:sample:det,random"), "options repeat; give"
    ),
    ArenaCase(
        "label-in-the-middle-of-a-ppo-spec",
        _spec("ppo:reference@x:net,random"),
        "the display name '@x' goes last: 'ppo:reference:net@x'",
    ),
    ArenaCase(
        "label-after-the-name",
        _spec("greedy@x:eps=0.1,random"),
        "the display name '@x' goes last: 'greedy:eps=0.1@x'",
    ),
    ArenaCase(
        "seed-negative",
        lambda d: ["arena", "-q", "-p", "random,greedy", "-o", str(d / "l.jsonl"), "-s", "-1"],
        "--seed=-1 is not allowed; use an integer from 0 to 2**64 - 1",
    ),
]


@pytest.mark.parametrize("case", ARENA_CASES, ids=lambda c: c.id)
def test_arena_refuses(tmp_path, case):
    argv = case.setup(tmp_path)
    refused(tmp_path, argv, case.message)


BAD_NUMBERS = [NINES, "-" + NINES, "1e400", "-1e400", "nan", "inf", "9" * 5000, "True"]
NUMERIC_OPTIONS = [
    ("greedy:eps={}", "eps=", "use a probability from 0 to 1"),
    ("racer:base_rate={}", "base_rate=", "use a number of 0 or more"),
    ("sprinter:eps={}", "eps=", "use a probability from 0 to 1"),
    ("mc:rollouts={}", "rollouts=", "use an integer from 1 to 10000"),
    ("mc:cands={}", "cands=", "use an integer from 1 to 10000"),
    ("mcts:policy=reference:sims={}", "sims=", "use an integer from 1 to 1000000"),
    ("mcts:policy=reference:ms={}", "ms=", "use a number from 0.001 to 600000.0"),
    ("mcts:policy=reference:c_puct={}", "c_puct=", "use a number from 0.001 to 1000.0"),
]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda v: v[:12])
@pytest.mark.parametrize(("spec", "option", "allowed"), NUMERIC_OPTIONS, ids=lambda x: x[:20])
def test_every_numeric_option_refuses_huge_and_non_finite_values(spec, option, allowed, value):
    from agents.registry import PlayerSpecError, make_agent

    with pytest.raises(PlayerSpecError) as info:
        make_agent(spec.format(value))
    text = str(info.value)
    assert f"{option}" in text and f"is not allowed; {allowed}" in text, text
    assert "9" * 100 not in text  # a huge value is shown by its ends


def test_arena_plot_checked_before_games_and_written_atomically(tmp_path):
    """--plot into a missing directory creates it; an existing image needs --force."""
    log = tmp_path / "l.jsonl"
    png = tmp_path / "new" / "w.png"
    res = runner.invoke(app, [*_P, "-o", str(log), "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:4] == b"\x89PNG"
    res = runner.invoke(app, [*_P, "-o", str(tmp_path / "l2.jsonl"), "--plot", str(png), "--force"])
    assert res.exit_code == 0, res.output
    assert not [p for p in png.parent.iterdir() if p.name != "w.png"]  # no temporary left


# --resume: each row is checked (line numbers are 1-based; line 1 is the header)


def _edit_row(k: int, edit: Callable[[dict], None]) -> Callable[[list[str]], list[str]]:
    def apply(lines: list[str]) -> list[str]:
        row = json.loads(lines[k])
        edit(row)
        lines[k] = json.dumps(row, separators=(",", ":")) + "\n"
        return lines

    return apply


def _cut_actions(row: dict) -> None:
    row["actions"] = row["actions"][:-5]
    row["decisions"] = len(row["actions"])


def _other_winner(row: dict) -> None:
    row["winner"] = 1 - row["winner"]
    row["winner_spec"] = row["seating"][row["winner"]]


RESUME_CASES = [
    ("winner-edited", _edit_row(3, _other_winner), "line 4 (game 2): its winner is"),
    ("ranks-edited", _edit_row(3, lambda r: r["ranks"].reverse()), "line 4 (game 2): its ranks"),
    ("money-edited", _edit_row(2, lambda r: r["money"].__setitem__(0, 999)), "its money is"),
    ("actions-cut", _edit_row(4, _cut_actions), "stop before the end of the game"),
    (
        "decisions-disagree",
        _edit_row(4, lambda r: r["actions"].pop()),
        "decisions but holds",
    ),
    ("deal-seed-edited", _edit_row(2, lambda r: r.update(deal_seed=5)), "its deal_seed is 5"),
    ("seating-edited", _edit_row(2, lambda r: r["seating"].reverse()), "its seating is"),
    ("duplicated-row", lambda ls: ls[:4] + ls[3:], "line 5 holds game 2 again"),
    ("missing-game-0", lambda ls: ls[:1] + ls[2:], "line 2 holds game 1 but game 0 is missing"),
    ("out-of-order", lambda ls: ls[:2] + [ls[3], ls[2]] + ls[4:], "game 1 is missing"),
    ("gap", lambda ls: ls[:5] + ls[6:], "line 6 holds game 5 but game 4 is missing"),
    ("damaged-line", lambda ls: ls[:3] + ["{not json\n"] + ls[4:], "line 4 is not a JSON"),
    ("blank-line", lambda ls: ls[:3] + ["\n"] + ls[3:], "line 4 is not a JSON"),
    ("header-not-first", lambda ls: ls[1:2] + ls[:1] + ls[2:], "line 1 is not an arena log"),
    (
        "other-tournament",
        _edit_row(0, lambda h: h.update(seed=99)),
        "records a different tournament",
    ),
]


@pytest.mark.parametrize(
    ("name", "damage", "message"), RESUME_CASES, ids=[c[0] for c in RESUME_CASES]
)
def test_arena_resume_refuses_a_damaged_log(tmp_path, arena_log, name, damage, message):
    log = tmp_path / "log.jsonl"
    lines = arena_log.read_text().splitlines(keepends=True)
    log.write_text("".join(damage(lines)))
    argv = ["arena", "-q", "-p", "random,greedy", "-g", "12", "-s", "3", "-o", str(log)]
    refused(tmp_path, [*argv, "--resume"], message)


def test_arena_resume_drops_only_a_torn_last_line_and_says_so(tmp_path, arena_log):
    log = tmp_path / "log.jsonl"
    lines = arena_log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:5]) + lines[5][:40])
    argv = ["arena", "-q", "-p", "random,greedy", "-g", "8", "-s", "3", "-o", str(log)]
    res = runner.invoke(app, [*argv, "--resume"])
    assert res.exit_code == 0, res.output
    assert "dropped the torn last line 6" in res.stderr
    assert log.read_text() == arena_log.read_text()  # the games replayed are identical


def test_arena_resume_of_an_empty_file_starts_afresh(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"")
    res = runner.invoke(app, [*_P, "-o", str(log), "--resume"])
    assert res.exit_code == 0, res.output
    assert "is empty: starting the log afresh" in res.stderr
    assert len(log.read_text().splitlines()) == 1 + 4


# ---------------------------------------------------------------------------------------------
# `lastwill train`: settings, run directories, checkpoints


@dataclass
class TrainCase:
    id: str
    toml: str
    message: str


TRAIN_CONFIG_CASES = [
    TrainCase("run-dir-5", "run_dir = 5", "run_dir=5 is not allowed"),
    TrainCase("bots-a-string", 'bots = "greedy"', "bots='greedy' is not allowed; use a list"),
    TrainCase("eval-bots-empty", "eval_bots = []", "eval_bots=[] is not allowed"),
    TrainCase("learning-rate-nan", "learning_rate = nan", "learning_rate=nan is not allowed"),
    TrainCase("learning-rate-true", "learning_rate = true", "learning_rate=True is not allowed"),
    TrainCase("ent-coef-inf", "ent_coef = inf", "ent_coef=inf is not allowed"),
    TrainCase(
        "player-weights-nan",
        "num_players = [2, 3]\nplayer_weights = [1, nan]",
        "player_weights=[1, nan] is not allowed",
    ),
    TrainCase(
        "bc-games-0",
        'bc_teacher = "planner"\nbc_games = 0',
        "bc_games=0 is not allowed; use a positive integer",
    ),
    TrainCase("bc-epochs-negative", "bc_epochs = -2", "bc_epochs=-2 is not allowed"),
    TrainCase("pfsp-a-string", 'pfsp = "no"', "pfsp='no' is not allowed; use true or false"),
    TrainCase("net-arch-a-number", "net_arch = 64", "net_arch=64 is not allowed"),
    TrainCase("gamma-above-1", "gamma = 1.5", "gamma=1.5 is not allowed"),
    TrainCase("total-steps-float", "total_steps = 1e6", "total_steps=1000000.0 is not allowed"),
    TrainCase("bots-with-bad-eps", 'bots = ["greedy:eps=2"]', "eps=2 is not allowed"),
    TrainCase("train-not-a-table", "train = 3", "[train] must be a table"),
]


@pytest.mark.parametrize("case", TRAIN_CONFIG_CASES, ids=lambda c: c.id)
def test_train_refuses_bad_settings(tmp_path, case):
    cfg = tmp_path / "bad.toml"
    head = "" if "run_dir" in case.toml else f'run_dir = "{tmp_path / "r"}"\n'
    cfg.write_text(head + case.toml + "\n")
    refused(tmp_path, ["train", "-c", str(cfg)], case.message)
    assert not (tmp_path / "r").exists()


def test_train_run_dir_naming_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    refused(tmp_path, ["train", "--run-dir", str(tmp_path / "afile")], "is a file, not a directory")
    refused(
        tmp_path,
        ["train", "--run-dir", str(tmp_path / "afile"), "--resume"],
        "is a file, not a run directory",
    )


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


RUN_DAMAGE = [
    ("state-truncated", lambda r: _truncate(r / "state.json"), "state.json is not valid JSON"),
    ("state-empty", lambda r: (r / "state.json").write_text(""), "state.json is empty"),
    (
        "state-without-config",
        lambda r: (r / "state.json").write_text(
            json.dumps(
                {
                    k: v
                    for k, v in json.loads((r / "state.json").read_text()).items()
                    if k != "config"
                }
            )
        ),
        "has no 'config' entry",
    ),
    (
        "state-a-list",
        lambda r: (r / "state.json").write_text("[]"),
        "holds a JSON list, not the run's state",
    ),
    ("pool-corrupt", lambda r: (r / "pool.json").write_text("{not json"), "pool.json is not valid"),
    (
        "pool-entry-wrong",
        lambda r: (r / "pool.json").write_text('{"snapshots": [{"id": 3}]}'),
        "missing fields",
    ),
    (
        "checkpoint-zip-missing",
        lambda r: (r / "checkpoints/step_64.zip").unlink(),
        "step_64.zip does not exist",
    ),
    (
        "checkpoint-zip-truncated",
        lambda r: _truncate(r / "checkpoints/step_64.zip"),
        "does not match its sidecar step_64.json",
    ),
    (
        "checkpoint-sidecar-a-list",
        lambda r: (r / "checkpoints/step_64.json").write_text("[]"),
        "holds a JSON list, not an object",
    ),
    (
        "snapshot-npz-truncated",
        lambda r: _truncate(r / "snapshots/step_32.npz"),
        "pool snapshot step_32",
    ),
]


@pytest.mark.parametrize(("name", "damage", "message"), RUN_DAMAGE, ids=[c[0] for c in RUN_DAMAGE])
def test_train_resume_refuses_a_damaged_run(tmp_path, run, name, damage, message):
    damage(run)
    refused(tmp_path, ["train", "--run-dir", str(run), "--resume"], message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "5"], "seed (the run has 0, given 5)"),
        (["--n-envs", "3"], "n_envs (the run has 1, given 3)"),
        (
            ["--num-players", "2,3,4,5", "--player-weights", "1,1,1,1"],
            "player_weights (the run has [1.0, 1.0, 2.0, 1.0], given [1.0, 1.0, 1.0, 1.0])",
        ),
        (["--config", "{cfg}"], "learning_rate (the run has 0.0003, given 0.1)"),
    ],
)
def test_train_resume_refuses_settings_that_differ_from_the_run(tmp_path, run, args, message):
    cfg = tmp_path / "other.toml"
    cfg.write_text("learning_rate = 0.1\n")
    argv = ["train", "--run-dir", str(run), "--resume", *[a.format(cfg=cfg) for a in args]]
    msg = refused(tmp_path, argv, message)
    assert "--resume continues a run with its own settings" in msg


def test_resume_config_accepts_the_run_s_own_settings(run):
    from training.rundir import resume_config

    cfg = resume_config(run, total_steps=256, given={"seed": 0, "n_envs": 1, "progress": True})
    assert cfg.total_steps == 256 and cfg.seed == 0 and cfg.progress is True


def test_arena_refuses_a_best_copy_left_half_replaced(tmp_path, run):
    """A kill between the renames of best.* leaves companions of different checkpoints: the
    digest manifest in best.json names the file, and a resumed run rebuilds best.* from the
    checkpoint its state names."""
    from training.checkpoint import load_checkpoint, repair_best

    shutil.copyfile(run / "snapshots/step_32.zip", run / "best.zip")
    argv = ["arena", "-q", "-p", f"ppo:{run / 'best.npz'},random", "-o", str(tmp_path / "l")]
    refused(tmp_path, argv, "best.zip does not match its sidecar best.json")
    with pytest.raises(CheckpointError, match="best.zip does not match"):
        load_checkpoint(run / "best")
    state = json.loads((run / "state.json").read_text())
    note = repair_best(run, state["best"])
    assert note and "rebuilt" in note and "does not match" in note
    assert load_checkpoint(run / "best")["step"] == 64
    assert (run / "best.zip").read_bytes() == (run / "checkpoints/step_64.zip").read_bytes()
    assert repair_best(run, state["best"]) is None  # sound now


def test_checkpoint_companions_are_written_before_the_manifest(tmp_path):
    """An interrupted save (the sidecar not yet written) leaves no loadable checkpoint."""
    from training.checkpoint import checkpoint_meta, load_checkpoint, save_checkpoint

    base = tmp_path / "ck"
    writers = {".npz": lambda p: p.write_bytes(b"x"), ".zip": lambda p: p.write_bytes(b"y")}
    save_checkpoint(base, checkpoint_meta(1, 0, {}), writers)
    meta = load_checkpoint(base)
    assert set(meta["files"]) == {".npz", ".zip"} and meta["step"] == 1

    def boom(p: Path) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(
            base, checkpoint_meta(2, 0, {}), {".npz": lambda p: p.write_bytes(b"z"), ".zip": boom}
        )
    with pytest.raises(CheckpointError, match="ck.npz does not match its sidecar"):
        load_checkpoint(base)  # the new .npz beside the old manifest is refused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.json", "ck.npz", "ck.zip"]


def test_policy_loading_refuses_non_finite_weights(tmp_path):
    w = [np.ones((8, OBS_SIZE)), np.full((NUM_ACTIONS, 8), np.inf)]
    with pytest.raises(CheckpointError, match="layer 1 holds NaN or infinite weights"):
        load_policy(_policy_files(tmp_path, "inf", w))


# ---------------------------------------------------------------------------------------------
# The safe-write helpers


def test_write_never_replaces_unless_asked_and_leaves_no_temporary(tmp_path):
    p = tmp_path / "f.json"
    safeio.write_json(p, {"a": 1}, overwrite=False)
    with pytest.raises(FileExistsError):
        safeio.write_json(p, {"a": 2}, overwrite=False)
    assert json.loads(p.read_text()) == {"a": 1}
    safeio.write_json(p, {"a": 3})
    assert json.loads(p.read_text()) == {"a": 3}
    with pytest.raises(RuntimeError), safeio.open_atomic(p) as f:
        f.write("half")
        raise RuntimeError("interrupted")
    assert json.loads(p.read_text()) == {"a": 3}
    assert [x.name for x in tmp_path.iterdir()] == ["f.json"]


def test_check_destination_names_the_problem(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(safeio.DestinationError, match="already exists"):
        safeio.check_destination(tmp_path / "f")
    assert safeio.check_destination(tmp_path / "f", exists_ok=True) == tmp_path / "f"
    with pytest.raises(safeio.DestinationError, match="is a directory"):
        safeio.check_destination(tmp_path)
    with pytest.raises(safeio.DestinationError, match="is a file, not a directory"):
        safeio.check_destination(tmp_path / "f" / "deeper" / "x.json")
    assert safeio.check_destination(tmp_path / "new" / "dir" / "x.json")
    with pytest.raises(safeio.DestinationError, match="is a file, not a directory"):
        safeio.check_directory(tmp_path / "f")
    assert [x.name for x in tmp_path.iterdir()] == ["f"]  # checking writes nothing


# ---------------------------------------------------------------------------------------------
# GameState.from_dict validates what it loads


def _mid_game(n: int = 3, steps: int = 120) -> dict:
    import random

    s = new_game(GameConfig(n), 4)
    rnd = random.Random(0)
    for _ in range(steps):
        apply_action(s, rnd.choice(legal_actions(s)))
    return json.loads(json.dumps(s.to_dict()))


def _owner() -> dict:
    """A hand-made position (builders): seat 0 owns Farm_3, its money set directly."""
    from lastwill_env.engine.builders import turn_state

    s = turn_state(board=["Farm_3"], money=10, modifiers=(0, 0, 0, 0))
    return json.loads(json.dumps(s.to_dict()))


def _over() -> dict:
    import random

    s = new_game(GameConfig(2), 5)
    rnd = random.Random(0)
    while s.phase != GAME_OVER:
        apply_action(s, rnd.choice(legal_actions(s)))
    return json.loads(json.dumps(s.to_dict()))


def _dup_card(d: dict) -> None:
    d["hands"][1].append(d["hands"][0][0])


def _lose_card(d: dict) -> None:
    d["decks"][0].pop()


def _add(values: list, i: int, delta: int) -> None:
    values[i] += delta


def _wrong_pile(d: dict) -> None:
    d["decks"][0].append(d["decks"][1].pop())


STATE_CASES = [
    ("card-twice", _mid_game, _dup_card, "hands", "is in hands[0] and in hands[1]"),
    ("card-missing", _mid_game, _lose_card, "decks", "are in no place"),
    ("card-in-wrong-deck", _mid_game, _wrong_pile, "decks", "cannot be in decks[0]"),
    ("owner-in-debt", _owner, lambda d: d["money"].__setitem__(0, -5), "money", "docs/RULES.md §5"),
    ("money-not-int", _mid_game, lambda d: d["money"].__setitem__(1, "5"), "money", "entry 1"),
    ("round-9", _mid_game, lambda d: d.update(round=9), "round", "out of range"),
    ("phase-99", _mid_game, lambda d: d.update(phase=99), "phase", "out of range"),
    ("cur-7", _mid_game, lambda d: d.update(cur=7), "cur", "expected a seat"),
    (
        "over-without-results",
        _mid_game,
        lambda d: d.update(phase=GAME_OVER, cur=-1),
        "phase",
        "results",
    ),
    ("nprops-wrong", _mid_game, lambda d: _add(d["nprops"], 0, 1), "nprops", "owns"),
    ("tokens-wrong", _mid_game, lambda d: _add(d["tokens"], 0, -1), "tokens", "there are"),
    ("history-bad", _mid_game, lambda d: d["history"].append(99999), "history", "out of range"),
    ("hands-not-list", _mid_game, lambda d: d.update(hands=5), "hands", "expected a list"),
    ("seats-count", _mid_game, lambda d: d["money"].append(1), "money", "expected 3 entries"),
    ("ledger-entry", _mid_game, lambda d: d["ledger"].append([0, 0]), "ledger", "expected [seat"),
    ("mods-not-ints", _mid_game, lambda d: d.update(mods=[1, 1, "x", 1]), "mods", "entry 2"),
    ("builder-position-loads", _owner, lambda d: None, None, ""),
    ("unknown-field", _mid_game, lambda d: d.update(colour="red"), "colour", "not a field"),
    ("missing-field", _mid_game, lambda d: d.pop("offer"), "offer", "missing"),
    ("n-vs-config", _mid_game, lambda d: d.update(n=4), "n", "the config has 3"),
    ("config-bad", _mid_game, lambda d: d.update(config={"num_players": 9}), "config", "9"),
    ("turn-seat", _mid_game, lambda d: d.update(cur=(d["cur"] + 1) % 3), "phase", "to act"),
    (
        "results-edited",
        _over,
        lambda d: d["results"].update(winner=1 - d["results"]["winner"]),
        "results",
        "not those of the final state",
    ),
    (
        "extensions",
        _mid_game,
        lambda d: d["ext"].__setitem__(0, 1 + d["ext"][0]),
        "ext_left",
        "on boards",
    ),
]


@pytest.mark.parametrize(
    ("name", "make", "damage", "field", "text"), STATE_CASES, ids=[c[0] for c in STATE_CASES]
)
def test_from_dict_refuses_a_corrupt_state_naming_the_field(name, make, damage, field, text):
    data = make()
    assert GameState.from_dict(json.loads(json.dumps(data))).to_dict() == data  # sound first
    damage(data)
    if field is None:  # a position the rules allow (a hand-made one) loads as it is
        assert GameState.from_dict(data).to_dict() == data
        return
    with pytest.raises(StateError) as info:
        GameState.from_dict(data)
    assert info.value.field == field, str(info.value)
    assert f"game state field {field!r}" in str(info.value) and text in str(info.value)


def test_every_state_field_has_a_check():
    from lastwill_env.engine.validate import FIELDS

    fields = [k for k in GameState.__slots__ if k not in ("cfg", "_legal")]
    assert sorted(FIELDS) == sorted(fields), set(fields) ^ set(FIELDS)
