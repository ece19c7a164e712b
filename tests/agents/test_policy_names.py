"""Policies by name (`agents.policyfiles`): ``ppo:reference`` plays the shipped reference from any
directory, ``ppo:ref_v5`` the checkout's earlier policy, an unknown name lists the known ones,
the old spelled-out paths keep working (the reference) or name their new form (the others), and
the package ships the reference only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from paths import REPO

from agents import policyfiles
from agents.arena import play_game
from agents.registry import PlayerSpecError, make_agent
from lastwill_env.engine import GameConfig

ROOT = REPO


def test_reference_by_name_plays_from_any_directory(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = make_agent("ppo:reference", seed=1)
    assert agent.policy.prior == "sprinter"
    row = play_game(["ppo:reference", "racer"], GameConfig(num_players=2), 7)
    assert row["error"] is None and row["winner"] in (0, 1)
    # the options follow the name as they follow a path
    assert make_agent("ppo:reference:sample", seed=1).deterministic is False
    assert make_agent("ppo:reference:det@ref", seed=1).name == "ref"
    # the spelled-out path of the shipped file still plays, from here too
    old = make_agent("ppo:agents/policies/reference.npz", seed=1)
    assert old.policy.weights[0].shape == agent.policy.weights[0].shape


def test_the_checkouts_earlier_policies_play_by_name(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = policyfiles.known_names()
    assert names[0] == "reference" and {f"ref_v{k}" for k in range(1, 7)} <= set(names)
    assert make_agent("ppo:ref_v5", seed=0).policy.prior == "racer"
    assert Path(policyfiles.resolve("ref_v3")) == ROOT / "policies" / "ref_v3.npz"


def test_an_unknown_name_lists_the_known_ones(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PlayerSpecError, match="unknown policy name 'ref_v99'; known names: "
                       "reference, money_v1, money_v2, ref_d1, ref_v1") as e:  # fmt: skip
        make_agent("ppo:ref_v99")
    assert "policies/INDEX.md" in str(e.value)


def test_an_old_path_of_a_moved_policy_names_its_new_form(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PlayerSpecError, match=r"name it ppo:ref_v5 \(mcts:policy=ref_v5\)"):
        make_agent("ppo:agents/policies/ref_v5.npz")
    # a path that is no spelling of the old folder is used as it is
    assert policyfiles.resolve("runs/x/best.npz") == "runs/x/best.npz"
    assert policyfiles.resolve("agents/policies/ref_v5.npz.bak") == "agents/policies/ref_v5.npz.bak"


def test_the_cli_refuses_an_old_path_with_exit_2_and_the_new_form(tmp_path: Path):
    code = "from apps.cli import app; app()"
    out = subprocess.run(
        [sys.executable, "-c", code, "arena", "-p", "ppo:agents/policies/ref_v5.npz,racer",
         "-n", "2", "-g", "1", "--out", str(tmp_path / "a.jsonl")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "ppo:ref_v5" in out.stderr


def test_mcts_takes_a_policy_name(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = make_agent("mcts:policy=reference:sims=2", seed=0)
    assert agent.evaluator.policy.prior == "sprinter"


def test_names_are_the_labs_own_files_for_readers_of_data():
    assert policyfiles.lab_file("reference") == policyfiles.SHIPPED / "reference.npz"
    assert policyfiles.lab_file("ref_v5") == ROOT / "policies" / "ref_v5.npz"
    assert policyfiles.lab_file("/somewhere/agents/policies/reference.npz") == (
        policyfiles.SHIPPED / "reference.npz"
    )
    for other in ("nosuch", "../x.npz", "runs/best.npz", "agents/policies/ref_v5.npz"):
        assert policyfiles.lab_file(other) is None


def test_the_package_ships_the_reference_only():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["agents"]
    shipped = sorted(
        p.name
        for p in (ROOT / "agents" / "policies").iterdir()
        if any(fnmatch(f"policies/{p.name}", g) for g in globs)
    )
    assert shipped == ["reference.json", "reference.npz"]
    assert not any(fnmatch("policies/ref_v5.npz", g) for g in globs)


def test_the_index_lists_every_policy_with_its_sidecars_step():
    index = json.loads((ROOT / "policies" / "index.json").read_text(encoding="utf-8"))
    rows = {r["name"]: r for r in index["policies"]}
    assert set(rows) == set(policyfiles.known_names())
    for name, row in rows.items():
        side = json.loads((ROOT / row["file"]).with_suffix(".json").read_text(encoding="utf-8"))
        assert (row["step"], row["env_version"]) == (side["step"], side["env_version"]), name
        assert row["spec"] == f"ppo:{name}" and row["recipe"] and row["commit"]
    text = (ROOT / "policies/INDEX.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in text for name in rows)


def test_the_viewer_opens_a_named_policy_of_a_log(tmp_path: Path, monkeypatch):
    from apps.viewer.core import ViewError, resolve_checkpoint

    monkeypatch.chdir(tmp_path)
    assert resolve_checkpoint("reference", tmp_path) == policyfiles.SHIPPED / "reference.npz"
    with pytest.raises(ViewError):
        resolve_checkpoint("nosuchname", tmp_path)


def test_names_by_game_follow_each_policys_sidecar():
    lastwill = policyfiles.known_names("lastwill")
    assert "reference" in lastwill and "scratch_v1" in lastwill and "money_v1" not in lastwill
    assert policyfiles.known_names("money") == ["money_v1", "money_v2"]
    assert policyfiles.game_of_name("money_v1") == "money"
    assert policyfiles.game_of_name("ref_v1") == "lastwill"  # a sidecar from before the key
