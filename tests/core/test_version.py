"""The lab's version has one home (`gamecore.__version__`): the package metadata,
`lastwill --version`, CITATION.cff, CHANGELOG.md and freshly written policy sidecars all carry
it; loading a sidecar never requires it."""

from __future__ import annotations

import json
import re
import sys
from importlib.metadata import PackageNotFoundError, version
from types import SimpleNamespace

import numpy as np
import pytest
from paths import REPO
from typer.testing import CliRunner

import gamecore
from agents.policy import load_policy
from apps.cli import app
from lastwill_env.encoding import OBS_SIZE
from lastwill_env.engine import NUM_ACTIONS

ROOT = REPO
VERSION = gamecore.__version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_the_version_is_a_release_number_read_by_the_package_metadata():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"] and "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gamecore.__version__"}
    try:
        installed = version("lastwill-lab")
    except PackageNotFoundError:
        pytest.skip("lastwill-lab is not installed")
    assert installed == VERSION, "the installed metadata is stale: pip install -e . again"


def test_lastwill_version_prints_the_package_version():
    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output.split()[:2] == ["lastwill-lab", VERSION]


def _cff() -> dict[str, str]:
    """CITATION.cff's top-level scalar keys (PyYAML when installed, else line by line)."""
    text = (ROOT / "CITATION.cff").read_text()
    try:
        import yaml
    except ImportError:
        found = re.findall(r"^([a-z-]+):[ \t]*(.*)$", text, flags=re.MULTILINE)
        return {k: v.strip().strip('"') for k, v in found}
    data = yaml.safe_load(text)
    return {k: v if isinstance(v, (list, dict)) else str(v) for k, v in data.items()}


def test_citation_cff_has_the_required_keys_and_the_package_version():
    cff = _cff()
    for key in ("cff-version", "message", "title", "authors", "version", "date-released"):
        assert key in cff, f"CITATION.cff lacks {key}"
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "MIT"
    assert cff["version"] == VERSION
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", cff["date-released"])
    assert "The Last Will RL lab authors" in (ROOT / "CITATION.cff").read_text()


def test_the_changelogs_latest_release_is_the_package_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.MULTILINE)
    assert releases and releases[0][0] == VERSION
    assert releases[0][1] == _cff()["date-released"]
    assert "0.1.0" in [v for v, _ in releases]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_a_freshly_written_all_seat_checkpoint_records_the_lab_version(tmp_path):
    pytest.importorskip("torch")
    from training.allseat import build_model, make_optimizer
    from training.allseat.loop import save_checkpoint
    from training.config import TrainConfig

    cfg = TrainConfig(mode="all_seat", net_arch=[8], num_players=[2], player_weights=[1.0])
    model = build_model(cfg, seed=0)
    path = save_checkpoint(model, make_optimizer(model, cfg), tmp_path / "step_1", cfg, 1)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["lab_version"] == VERSION and meta["step"] == 1


def test_an_rllib_export_records_the_lab_version(tmp_path):
    from training.config import TrainConfig
    from training.rllib_export import MODULE_ID, export_policy

    rng = np.random.default_rng(0)
    state = {
        "encoder.actor_encoder.net.mlp.0.weight": rng.normal(size=(4, OBS_SIZE)),
        "encoder.actor_encoder.net.mlp.0.bias": np.zeros(4),
        "pi.net.mlp.0.weight": rng.normal(size=(NUM_ACTIONS, 4)),
        "pi.net.mlp.0.bias": np.zeros(NUM_ACTIONS),
    }
    group = SimpleNamespace(get_weights=lambda module_ids: {MODULE_ID: state})
    algo = SimpleNamespace(learner_group=group)
    npz = export_policy(algo, tmp_path / "step_5", TrainConfig(), 5, "checkpoint")
    meta = json.loads(npz.with_suffix(".json").read_text())
    assert meta["lab_version"] == VERSION and meta["source"] == "rllib"


def test_shipped_sidecars_without_the_field_still_load():
    side = ROOT / "policies" / "ref_v7.json"  # written before sidecars named the lab version
    assert "lab_version" not in json.loads(side.read_text())
    policy, meta = load_policy(side.with_suffix(".npz"))
    assert meta["step"] > 0 and policy is not None


def test_the_rllib_export_helpers_keep_their_earlier_home():
    from training import rllib_backend, rllib_export

    assert rllib_backend.export_rllib_checkpoint is rllib_export.export_rllib_checkpoint
    assert rllib_backend.numpy_policy_from_state is rllib_export.numpy_policy_from_state
