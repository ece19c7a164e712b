"""Expert iteration trusts none of its files: a samples file is checked array by array when read
(`training.expert.samplefile`), a stray name in `samples/` is ignored, and `lastwill expert` and
`lastwill expert-fit` refuse a damaged file, a bad option or a bad start policy with a one-line
error (exit code 2) that names what is wrong, before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from expert_runs import tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from apps.cli import app  # noqa: E402
from lastwill_env.encoding import OBS_SIZE  # noqa: E402
from lastwill_env.engine import NUM_ACTIONS  # noqa: E402
from training.expert import ExpertConfig, ExpertConfigError, ExpertError, expert  # noqa: E402
from training.expert.refit import RefitError, load_samples, refit  # noqa: E402
from training.expert.samplefile import SampleFileError, read_sample_file  # noqa: E402
from training.expert.selfplay import read_samples  # noqa: E402


def _good() -> dict[str, np.ndarray]:
    """Two searched decisions at 2 players, packed as `selfplay.pack` packs them."""
    return {
        "n": np.array([2, 2]),
        "seat": np.array([0, 1]),
        "obs_len": np.array([3, 2]),
        "obs_idx": np.array([0, 4, 12, 1, 5]),
        "obs_val": np.array([1.0, 1.0, 0.5, 1.0, 0.7], dtype=np.float32),
        "legal_len": np.array([3, 2]),
        "legal": np.array([4, 9, 2, 1, 3]),
        "visits": np.array([1, 5, 2, 0, 4], dtype=np.float32),
        "prior": np.array([9, -1]),
        "net_choice": np.array([4, 3]),
        "result": np.array([1.0, -1.0], dtype=np.float32),
    }


def _write(path: Path, **arrays) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _crafted(path: Path, **change) -> Path:
    data = {**_good(), **change}
    return _write(path, **{k: v for k, v in data.items() if v is not None})


def test_a_sound_file_reads_with_its_own_dtypes(tmp_path):
    data = _good()
    wide = {**data, "obs_val": data["obs_val"].astype(np.float64), "n": data["n"].astype(np.int32)}
    got = read_sample_file(_write(tmp_path / "iter_1.npz", **wide))
    assert sorted(got) == sorted(data)
    assert all(np.array_equal(got[k], data[k]) and got[k].dtype == data[k].dtype for k in data)


BAD = [
    (
        {"visits": np.array([1, 5, 2, -3, 4], dtype=np.float32)},
        r"visits holds -3.0 \(sample 1\).*non-negative",
    ),
    ({"visits": np.array([1, 5, np.nan, 0, 4], dtype=np.float32)}, "visits.*not finite"),
    ({"visits": np.array([1, 5, 2, 0, 0], dtype=np.float32)}, "visits of sample 1 sum to 0"),
    # at most the simulations of a search (`agents.mcts.MAX_SIMS`)
    ({"visits": np.array([1, 5, 2, 0, 1e9], dtype=np.float32)}, "visits.*sum.* 1000000"),
    ({"visits": np.array([1, 5, 2, 0, 1e300])}, "visits.*not finite"),
    ({"result": np.array([1.0, -2.0], dtype=np.float32)}, r"result.*-1 to 1"),
    ({"legal": np.array([4, 9, 2, 1, NUM_ACTIONS])}, f"legal.*0 to {NUM_ACTIONS - 1}"),
    ({"legal": np.array([4, 9, 4, 1, 3])}, "legal.*twice.*sample 0"),
    ({"obs_idx": np.array([0, 4, 12, 1, OBS_SIZE])}, f"obs_idx.*0 to {OBS_SIZE - 1}"),
    ({"obs_idx": np.array([0, 4, 12, 5, 5])}, "obs_idx.*twice.*sample 1"),
    ({"obs_val": np.array([1, 1, np.inf, 1, 1], dtype=np.float32)}, "obs_val.*not finite"),
    ({"n": np.array([2, 7])}, "n.*player count"),
    ({"seat": np.array([0, 2])}, "seat.*sample 1"),
    ({"prior": np.array([9, -2])}, "prior.*-1"),
    ({"net_choice": np.array([4, -1])}, f"net_choice.*0 to {NUM_ACTIONS - 1}"),
    ({"obs_len": np.array([-3, 8])}, "obs_len.*0 to"),
    ({"legal_len": np.array([1, 4])}, "legal_len.*2 to"),
    ({"seat": np.array([0, 1, 1])}, "seat.*3 entries.*2"),
    ({"legal_len": np.array([3, 3])}, "legal.*5 entries.*legal_len.*6"),
    ({"visits": None}, r"no array.*\['visits'\]"),
    ({"extra": np.zeros(2)}, r"unknown array.*\['extra'\]"),
    ({"n": np.array([[2, 2]])}, "n.*one-dimensional"),
    ({"legal": np.array([4.0, 9.0, 2.0, 1.0, 3.0])}, "legal.*integers"),
    ({"n": np.array([True, True])}, "n.*integers"),
    ({"visits": np.array(["1", "5", "2", "0", "4"])}, "visits.*numbers"),
    ({"legal": np.array([4, 9, 2, 1, 2**64 - 1], dtype=np.uint64)}, "legal.*0 to"),
]


@pytest.mark.parametrize("change, says", BAD)
def test_a_damaged_samples_file_is_refused_naming_the_file_and_the_array(tmp_path, change, says):
    path = _crafted(tmp_path / "iter_1.npz", **change)
    with pytest.raises(SampleFileError, match=says) as e:
        read_sample_file(path)
    assert str(path) in str(e.value)
    with pytest.raises(SampleFileError, match=says):
        read_samples([path])


def test_a_file_that_is_no_npz_of_samples_is_refused(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(SampleFileError, match="junk.npz cannot be read"):
        read_sample_file(junk)
    one = tmp_path / "one.npz"
    with open(one, "wb") as f:
        np.save(f, np.arange(3))
    with pytest.raises(SampleFileError, match="one array, not a .npz"):
        read_sample_file(one)
    pickled = _crafted(tmp_path / "pickled.npz", prior=np.array([9, None], dtype=object))
    with pytest.raises(SampleFileError, match="pickled.npz cannot be read.*prior"):
        read_sample_file(pickled)
    with pytest.raises(SampleFileError, match="does not exist"):
        read_sample_file(tmp_path / "none.npz")
    (tmp_path / "dir.npz").mkdir()
    with pytest.raises(SampleFileError, match="dir.npz cannot be read"):
        read_sample_file(tmp_path / "dir.npz")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A two-iteration expert run at 2 players (4 simulations, one game per iteration)."""
    path = tmp_path_factory.mktemp("samples") / "run"
    expert(tiny(path, eval_every=0))
    return path


def _copy(run: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    return dst


def test_stray_names_in_the_samples_folder_are_ignored(run, tmp_path):
    mine = _copy(run, tmp_path)
    folder = mine / "samples"
    for name in ("iter_X.npz", "iter_01.npz", "iter_\u00b2.npz", "iter_3.npz.bak", "notes.txt"):
        (folder / name).write_bytes(b"stray")
    (folder / "iter_4.npz").mkdir()
    assert len(load_samples(mine, [1, 2])["n"]) > 0
    with pytest.raises(RefitError, match=r"no samples of iteration\(s\) \[4\]; it holds \[1, 2\]"):
        load_samples(mine, [1, 4])


def test_a_span_of_missing_iterations_is_named_as_a_span(run, tmp_path):
    with pytest.raises(RefitError, match=r"no samples of iteration\(s\) \[3-900\]; it holds"):
        load_samples(run, list(range(1, 901)))


def test_a_refit_of_damaged_samples_writes_nothing(run, tmp_path):
    mine = _copy(run, tmp_path)
    _crafted(mine / "samples" / "iter_2.npz", visits=np.array([1, -5, 2, 0, 4], dtype=np.float32))
    out = tmp_path / "fit.npz"
    with pytest.raises(RefitError, match="iter_2.npz: visits.*negative"):
        refit(mine, [1, 2], out, epochs=1)
    assert not list(tmp_path.glob("fit.*"))
    _write(mine / "samples" / "iter_2.npz", **{k: v[:0] for k, v in _good().items()})
    with pytest.raises(RefitError, match=r"iteration\(s\) \[2\] hold no samples"):
        refit(mine, [2], out, epochs=1)
    assert not list(tmp_path.glob("fit.*"))


def test_a_run_whose_start_policy_is_gone_is_refused_by_a_refit(run, tmp_path):
    mine = _copy(run, tmp_path)
    state = json.loads((mine / "state.json").read_text())
    state["config"]["init_policy"] = str(tmp_path / "gone.npz")
    (mine / "state.json").write_text(json.dumps(state))
    with pytest.raises(RefitError, match="init_policy.*gone.npz"):
        refit(mine, [1], tmp_path / "fit.npz", epochs=1)
    assert not (tmp_path / "fit.npz").exists()


def test_a_resume_refuses_damaged_samples_before_playing(run, tmp_path):
    mine = _copy(run, tmp_path)
    _crafted(mine / "samples" / "iter_2.npz", result=np.array([1.0, 3.0], dtype=np.float32))
    with pytest.raises(ExpertError, match="iter_2.npz: result"):
        expert(tiny(mine, eval_every=0, iterations=3), resume=True)
    assert not (mine / "samples" / "iter_3.npz").exists()


def test_a_damaged_state_is_refused_on_resume(run, tmp_path):
    mine = _copy(run, tmp_path)
    state = json.loads((mine / "state.json").read_text())
    for entry, value in (("config", [1]), ("history", None), ("iteration", -1)):
        (mine / "state.json").write_text(json.dumps({**state, entry: value}))
        with pytest.raises(ExpertError, match=f"state.json.*{entry}"):
            expert(tiny(mine, eval_every=0, iterations=3), resume=True)
    # the run loop's entries are checked as every trainer's are
    for entry, value in (("next_eval", "soon"), ("step", -2), ("checkpoint", 7)):
        (mine / "state.json").write_text(json.dumps({**state, entry: value}))
        with pytest.raises(ExpertError, match=f"state.json: {entry}="):
            expert(tiny(mine, eval_every=0, iterations=3), resume=True)
    (mine / "state.json").write_text(json.dumps(state))
    (mine / "checkpoints" / "iter_2.pt").write_bytes(b"torn")
    with pytest.raises(ExpertError, match="iter_2.pt does not match its sidecar iter_2.json"):
        expert(tiny(mine, eval_every=0, iterations=3), resume=True)
    assert not (mine / "samples" / "iter_3.npz").exists()


def test_a_start_policy_that_cannot_be_searched_is_refused_before_any_write(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"junk")
    cases = [
        (str(tmp_path / "gone.npz"), "gone.npz"),
        (str(junk), "junk.npz"),
        ("policies/ref_v1.npz", "no critic"),
    ]
    for path, says in cases:
        run = tmp_path / "run"
        with pytest.raises(ExpertConfigError, match=f"init_policy=.*{says}"):
            expert(tiny(run, init_policy=path))
        assert not run.exists()


@pytest.mark.parametrize(
    "over, says",
    [
        ({"seed": 2**31}, "seed=2147483648 is not allowed; use an integer from 0 to 2147483647"),
        ({"batch_size": 1}, "batch_size=1 is not allowed; use an integer from 2"),
        ({"progress": "yes"}, "progress='yes' is not allowed; use true or false"),
        ({"eval_bots": ["greedy", "greedy"]}, "eval_bots=.* list each bot once"),
        ({"eval_bots": ["mixed"]}, "eval_bots=.* list each bot once"),
        ({"eval_bots": ["nosuchbot"]}, "eval_bots: .*nosuchbot"),
        ({"eval_bots": ["greedy:eps=2"]}, "eval_bots: .*eps"),
        ({"run_dir": "  "}, "run_dir='  ' is not allowed"),
    ],
)
def test_every_setting_is_checked_as_training_s_are(tmp_path, over, says):
    with pytest.raises(ExpertConfigError, match=says):
        tiny(tmp_path, **over)


def test_settings_that_are_not_a_table_are_refused():
    with pytest.raises(ExpertConfigError, match="a table of name = value"):
        ExpertConfig.from_dict([1, 2])  # type: ignore[arg-type]


def test_a_run_directory_that_is_a_file_is_refused(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("mine")
    with pytest.raises(ExpertError, match="is a file"):
        expert(tiny(taken))
    assert taken.read_text() == "mine"


def _cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_expert_fit_refuses_damaged_samples_and_huge_spans_with_exit_code_2(run, tmp_path):
    mine = _copy(run, tmp_path)
    _crafted(mine / "samples" / "iter_1.npz", visits=np.array([1, 5, -2, 0, 4], dtype=np.float32))
    out = tmp_path / "fit.npz"
    base = ["expert-fit", "--run-dir", str(mine), "--out", str(out), "--epochs", "1"]
    r = _cli(*base, "--samples", "1,2")
    assert r.exit_code == 2 and "iter_1.npz: visits" in r.output and "negative" in r.output
    assert "Traceback" not in r.output
    r = _cli(*base, "--samples", "0-99999999999")
    assert r.exit_code == 2 and "--samples '0-99999999999' is not allowed" in r.output
    assert "from 1 to 100000" in r.output
    r = _cli(*base, "--samples", "2-100000")
    assert r.exit_code == 2 and "[3-100000]" in r.output
    r = _cli(*base, "--samples", "1", "--seed", "-1")
    assert r.exit_code == 2 and "seed=-1 is not allowed" in r.output
    assert not list(tmp_path.glob("fit.*"))


def test_expert_refuses_a_bad_start_policy_and_bad_options_with_exit_code_2(tmp_path):
    run = tmp_path / "run"
    base = ["expert", "--run-dir", str(run), "--iterations", "1", "--games", "1", "--sims", "2"]
    r = _cli(*base, "--init-policy", str(tmp_path / "gone.npz"))
    assert r.exit_code == 2 and "init_policy=" in r.output and "gone.npz" in r.output
    assert "Traceback" not in r.output and not run.exists()
    r = _cli(*base, "--eval-bots", "nosuchbot")
    assert r.exit_code == 2 and "eval_bots" in r.output and not run.exists()
    r = _cli(*base, "--seed", "3000000000")
    assert r.exit_code == 2 and "seed=3000000000 is not allowed" in r.output
    assert not run.exists()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "state.json").write_text(json.dumps({"iteration": 1}))
    r = _cli("expert", "--run-dir", str(tmp_path / "state"), "--resume")
    assert r.exit_code == 2 and "state.json" in r.output and "config" in r.output
