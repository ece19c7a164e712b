"""The trust model (docs/TRUST.md): nothing a request, a saved game, a log or a policy file
names runs as code. A `module:Class` spec imports only where the user typed it (or the Python
API passed ``trusted=True``), and even then only an agent class is called; an SB3 `.zip` (a
pickle) loads only where the user named it. Each path is tried with hostile specs: the error
is clear, no marker file appears, no module is imported and no file changes."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from agents import arena as ar
from agents import registry, trust
from agents.evaluate import evaluate
from agents.policy import CheckpointError, NumpyPolicy, env_signature, load_policy
from apps.cli import app
from apps.play import PlayError, load_game, new_play, save_game
from apps.viewer.core import GameReplay, ViewError, analyse
from apps.viewer.live import LiveSessions
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import NUM_ACTIONS, GameConfig

CFG2 = GameConfig(num_players=2)
MODULE = "lw_trust_mod"
SYSTEM = "os:system:command=touch PWNED"
IMPORT = f"{MODULE}:Agent"
HOSTILE = (SYSTEM, IMPORT)
MARKERS = ("PWNED", "IMPORTED", "BUILT", "UNPICKLED")

MODULE_SRC = """
from pathlib import Path

Path("IMPORTED").write_text("imported")

from agents.base import BaseAgent


class Agent(BaseAgent):
    def __init__(self, seed=None):
        super().__init__(seed)
        Path("BUILT").write_text("built")

    def act(self, view, legal):
        return legal[0]
"""


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A working directory holding a module whose import and whose class leave marker files;
    the module is never left imported."""
    (tmp_path / f"{MODULE}.py").write_text(MODULE_SRC)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    sys.modules.pop(MODULE, None)
    yield tmp_path
    sys.modules.pop(MODULE, None)


def _nothing_ran(root: Path, before: dict[str, bytes]) -> None:
    assert [m for m in MARKERS if (root / m).exists()] == []
    assert MODULE not in sys.modules
    assert _tree(root) == before


def _hostile_zip(folder: Path, name: str = "evil") -> Path:
    """An SB3-style `.zip` whose "data" holds a cloudpickled object that, once unpickled,
    writes the marker UNPICKLED (as SB3's loader unpickles it); with a valid sidecar."""
    payload = pickle.dumps(_Touch(str(folder / "UNPICKLED")))
    data = {"policy_class": {":type:": "x", ":serialized:": base64.b64encode(payload).decode()}}
    path = folder / f"{name}.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
    path.with_suffix(".json").write_text(json.dumps(env_signature()))
    return path


class _Touch:
    """Unpickles into a call that writes a file: what a hostile pickle would do."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self):
        return (Path.write_text, (Path(self.target), "unpickled"))


def _prior_policy(folder: Path, prior: str) -> Path:
    """A policy file (and sidecar) whose recorded prior is `prior`."""
    rng = np.random.default_rng(0)
    arrays = {
        "w0": rng.normal(0, 0.05, (8, OBS_SIZE)),
        "w1": rng.normal(0, 0.5, (NUM_ACTIONS, 8)),
        "b0": np.zeros(8),
        "b1": np.zeros(NUM_ACTIONS),
        "prior": np.array(prior),
        "prior_weight": np.array(2.0),
    }
    path = folder / "prior.npz"
    np.savez(path, activation=np.array("tanh"), **arrays)
    path.with_suffix(".json").write_text(json.dumps(env_signature()))
    return path


def _saved_game(folder: Path, spec: str) -> Path:
    """A saved, unfinished `lastwill play` game whose bot seat names `spec`."""
    game = new_play(["random"], human_seat=0, seed=3)
    path = save_game(game, folder / "save.json")
    record = json.loads(path.read_text())
    record["seating"][1] = spec
    path.write_text(json.dumps(record))
    return path


# -- the marker mechanism works (so the refusals below can fail) ------------------------------


def test_a_typed_module_spec_imports_and_the_hostile_zip_really_runs_code(sandbox):
    agent = registry.make_agent(IMPORT, seed=1, trusted=True)
    assert type(agent).__name__ == "Agent"
    assert (sandbox / "IMPORTED").exists() and (sandbox / "BUILT").exists()
    evil = _hostile_zip(sandbox)
    with pytest.raises(CheckpointError):
        load_policy(evil, allow_pickle=True)  # what the lab refuses to do with data
    assert (sandbox / "UNPICKLED").exists()


# -- specs from data --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", HOSTILE)
def test_the_python_api_refuses_a_module_spec_unless_trusted(sandbox, spec):
    before = _tree(sandbox)
    with pytest.raises(registry.PlayerSpecError, match="never imported") as e:
        registry.make_agent(spec, seed=0)
    assert spec in str(e.value) and "docs/TRUST.md" in str(e.value) and "greedy" in str(e.value)
    row = ar.play_game([spec, "random"], CFG2, deal_seed=1)
    assert row["error"]["seat"] == 0 and "never imported" in row["error"]["message"]
    with pytest.raises(ar.ArenaError, match="never imported"):
        ar.run_tournament([spec, "random"], CFG2, 2, out=sandbox / "t.jsonl")
    with pytest.raises(registry.PlayerSpecError, match="never imported"):
        evaluate(spec, panel=["random"], num_players=[2], games=2)
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_a_viewer_live_game_refuses_a_module_spec(sandbox, spec):
    saves = sandbox / "saves"
    before = _tree(sandbox)
    with pytest.raises(ViewError, match="never imported") as e:
        LiveSessions(saves).create({"seats": ["human", spec]})
    assert e.value.status == 400 and spec in str(e.value)
    assert not saves.exists()
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_the_viewers_live_routes_refuse_a_module_spec(sandbox, spec):
    from starlette.testclient import TestClient

    from apps.viewer.guard import TOKEN_HEADER
    from apps.viewer.server import create_app

    saves = sandbox / "saves"
    saves.mkdir()
    save = _saved_game(saves, spec)
    view = create_app([saves], save_dir=saves, allowed_hosts=["testserver"])
    client = TestClient(view, headers={TOKEN_HEADER: view.state.token})
    before = _tree(sandbox)
    r = client.post("/api/live", json={"seats": ["human", spec]})
    assert r.status_code == 400 and "never imported" in r.json()["error"]
    src = client.post("/api/logs", json={"path": str(save)}).json()
    r = client.post("/api/live", json={"resume": {"log": src["id"], "game": 0}})
    assert r.status_code == 400 and "never imported" in r.json()["error"]
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_resuming_a_saved_game_refuses_its_module_spec(sandbox, spec):
    save = _saved_game(sandbox, spec)
    before = _tree(sandbox)
    with pytest.raises(PlayError, match="never imported"):
        load_game(save)
    with pytest.raises(ViewError, match="never imported") as e:
        LiveSessions(sandbox / "saves").resume(save, ["human", spec])
    assert e.value.status == 400
    res = CliRunner().invoke(app, ["play", "--load", str(save), "-o", "out.json"], input="quit\n")
    assert res.exit_code == 2, res.output
    assert "never imported" in res.stderr and spec in res.stderr
    _nothing_ran(sandbox, before)


def test_arena_resume_builds_only_the_typed_entrants_never_the_logs(sandbox):
    log = sandbox / "t.jsonl"
    ar.run_tournament(["random", "greedy"], CFG2, 2, out=log)
    lines = log.read_text().splitlines()
    head = json.loads(lines[0])
    head["entrants"] = list(HOSTILE)
    head["seatings"] = [list(HOSTILE), list(HOSTILE[::-1])]
    log.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    before = _tree(sandbox)
    runner = CliRunner()
    res = runner.invoke(app, ["arena", "-q", "-p", "random,greedy", "-g", "4", "-o", str(log)])
    assert res.exit_code == 2 and "already exists" in res.stderr
    res = runner.invoke(
        app, ["arena", "-q", "-p", "random,greedy", "-g", "4", "-o", str(log), "--resume"]
    )
    assert res.exit_code == 2, res.output
    assert "cannot resume" in res.stderr and "different" in res.stderr
    _nothing_ran(sandbox, before)


def test_a_typed_spec_naming_a_function_is_imported_but_never_called(sandbox):
    before = _tree(sandbox)
    runner = CliRunner()
    res = runner.invoke(app, ["arena", "-q", "-p", f"{SYSTEM},random", "-g", "2", "-o", "a.jsonl"])
    assert res.exit_code == 2, res.output
    assert "os:system is a builtin_function_or_method, not a class" in res.stderr
    res = runner.invoke(app, ["eval", SYSTEM, "--panel", "random", "-n", "2", "-g", "2"])
    assert res.exit_code == 2 and "not a class" in res.stderr
    with pytest.raises(registry.PlayerSpecError, match="not a class, so it is not called"):
        registry.make_agent(SYSTEM, trusted=True)
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_replay_shows_a_module_spec_as_text_and_runs_nothing(sandbox, spec):
    save = _saved_game(sandbox, spec)
    before = _tree(sandbox)
    res = CliRunner().invoke(app, ["replay", str(save)])
    assert res.exit_code == 0, res.output
    assert f"P1 {spec}" in res.stdout
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_a_policy_files_prior_never_names_code(sandbox, spec):
    path = _prior_policy(sandbox, spec)
    before = _tree(sandbox)
    with pytest.raises(CheckpointError, match="a prior read from a policy file"):
        NumpyPolicy.load_npz(path)
    with pytest.raises(registry.PlayerSpecError, match="prior"):
        registry.make_agent(f"ppo:{path}", seed=0)
    with pytest.raises(CheckpointError, match="would import"):
        w = [np.zeros((8, OBS_SIZE)), np.zeros((NUM_ACTIONS, 8))]
        NumpyPolicy(w, [np.zeros(8), np.zeros(NUM_ACTIONS)], "tanh", prior=spec, prior_weight=1)
    _nothing_ran(sandbox, before)


@pytest.mark.parametrize("spec", HOSTILE)
def test_training_settings_and_the_exploit_target_take_registered_players_only(sandbox, spec):
    from training.config import TrainConfig, TrainConfigError
    from training.exploit import ExploitError, exploit

    before = _tree(sandbox)
    for field in ("bots", "eval_bots"):
        with pytest.raises(TrainConfigError, match=f"{field}: .*never imported"):
            TrainConfig(**{field: ["greedy", spec]})
    with pytest.raises(TrainConfigError, match="kickstart_teacher: .*never imported"):
        TrainConfig(mode="all_seat", kickstart_teacher=spec)
    with pytest.raises(ExploitError, match="target: .*never imported"):
        exploit(spec, 2, 10, sandbox / "run")
    _nothing_ran(sandbox, before)


def test_workers_receive_only_the_grants_the_parent_holds(sandbox):
    assert registry.worker_setup([IMPORT, "random"]).imports == ()
    with registry.trusting([IMPORT]):
        assert trust.allows_import(IMPORT)
        assert registry.worker_setup([IMPORT, "random"]).imports == (IMPORT,)
    assert not trust.allows_import(IMPORT)
    setup = registry.WorkerSetup(imports=(IMPORT,))
    with registry.worker_setup_applied(setup):
        assert trust.allows_import(IMPORT)
    assert not trust.allows_import(IMPORT)


# -- no pickle from data ------------------------------------------------------------------------


def test_a_zip_named_by_data_is_never_unpickled(sandbox):
    evil = _hostile_zip(sandbox)
    spec = f"ppo:{evil}"
    before = _tree(sandbox)
    with pytest.raises(CheckpointError, match="pickle") as e:
        load_policy(evil)
    assert "docs/TRUST.md" in str(e.value) and "evil.npz" in str(e.value)
    with pytest.raises(registry.PlayerSpecError, match="pickle"):
        registry.make_agent(spec, seed=0)
    with pytest.raises(ViewError, match="pickle"):
        LiveSessions(sandbox / "saves").create({"seats": ["human", spec]})
    save = _saved_game(sandbox, spec)
    with pytest.raises(PlayError, match="pickle"):
        load_game(save)
    save.unlink()
    _nothing_ran(sandbox, before)


def test_a_critic_is_never_completed_from_a_zip_unless_allowed(sandbox):
    evil = _hostile_zip(sandbox, "actor")
    w = [np.zeros((8, OBS_SIZE)), np.zeros((NUM_ACTIONS, 8))]
    NumpyPolicy(w, [np.zeros(8), np.zeros(NUM_ACTIONS)], "tanh").save_npz(evil.with_suffix(".npz"))
    before = _tree(sandbox)
    pol, _ = load_policy(evil.with_suffix(".npz"), need_value=True)
    assert not pol.has_value
    _nothing_ran(sandbox, before)


def test_the_viewer_analysis_never_unpickles_a_logs_zip(sandbox):
    evil = _hostile_zip(sandbox)
    log = sandbox / "t.jsonl"
    ar.run_tournament(["random", "greedy"], CFG2, 2, out=log)
    lines = log.read_text().splitlines()
    row = json.loads(lines[1])
    row["seating"][0] = f"ppo:{evil}"
    log.write_text("\n".join([lines[0], json.dumps(row)]) + "\n")
    before = _tree(sandbox)
    rep = GameReplay.build(row)
    k = rep.seats.index(0)
    with pytest.raises(ViewError, match="pickle") as e:
        analyse(rep, k, None, log_dir=sandbox)
    assert e.value.status == 422
    _nothing_ran(sandbox, before)


def test_a_typed_zip_loads_on_the_command_line(sandbox):
    """The same hostile file, typed by the user: the lab does what it was told (and the load
    then fails as a damaged checkpoint), which is why a .zip from data is never loaded."""
    evil = _hostile_zip(sandbox)
    res = CliRunner().invoke(
        app, ["arena", "-q", "-p", f"ppo:{evil},random", "-g", "2", "-o", "a.jsonl"]
    )
    assert res.exit_code == 2 and "cannot load checkpoint" in res.stderr
    assert (sandbox / "UNPICKLED").exists()
