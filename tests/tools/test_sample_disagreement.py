"""labreports.sample_disagreement: an expert run's samples by how sure the network was."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from expert_runs import tiny  # noqa: E402

from labreports import sample_disagreement as script  # noqa: E402
from training.expert import expert  # noqa: E402
from training.expert.refit import load_samples  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    path = tmp_path_factory.mktemp("exit") / "run"
    expert(tiny(path, iterations=1, games=2, sims=6, eval_every=0))
    return path


def test_the_table_agrees_with_the_searches_own_record(run, capsys):
    """On iteration 1 the searches ran over the start network itself, so the script's
    disagreement is exactly where the most visited move is not the recorded network choice."""
    assert script.main(["--run", str(run), "--samples", "1", "--bins", "0.6,0.9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    data = load_samples(run, [1])
    starts = np.concatenate([[0], np.cumsum(data["legal_len"])])
    differs = []
    for r in range(len(data["legal_len"])):
        legal = data["legal"][starts[r] : starts[r + 1]]
        visits = data["visits"][starts[r] : starts[r + 1]]
        best = max(range(len(legal)), key=lambda j: (visits[j], -legal[j]))
        differs.append(int(legal[best]) != int(data["net_choice"][r]))
    assert out["count"] == len(differs) > 0
    assert out["disagree_rate"] == pytest.approx(np.mean(differs))
    assert sum(b["share"] for b in out["bins"]) == pytest.approx(1.0)
    assert [b["full_below"] for b in out["below"]] == [0.6, 0.9]
    shares = [b["share_searched"] for b in out["below"]]
    assert shares == sorted(shares) and 0.0 <= out["mean_top"] <= 1.0
    assert out["policy"].endswith("iter_0.npz")
    counts = [b["share"] * out["count"] for b in out["bins"]]
    pooled = sum(c * b["kl"] for c, b in zip(counts, out["bins"], strict=True) if c > 0)
    assert out["kl"] >= 0.0 and pooled / out["count"] == pytest.approx(out["kl"])


def test_divergence_is_the_kl_of_the_normalised_target_from_the_softmax():
    logits = np.log(np.array([0.5, 0.25, 0.25]))
    assert script.divergence(np.array([2.0, 1.0, 1.0]), logits) == pytest.approx(0.0, abs=1e-12)
    # all the target on the second move: KL = log(1 / 0.25)
    assert script.divergence(np.array([0.0, 3.0, 0.0]), logits) == pytest.approx(np.log(4.0))
    half = 0.5 * np.log(0.5 / 0.5) + 0.5 * np.log(0.5 / 0.25)
    assert script.divergence(np.array([1.0, 1.0, 0.0]), logits + 7.0) == pytest.approx(half)


@pytest.mark.parametrize(
    "args, says",
    [
        (["--samples", "7"], "holds no samples of iteration(s) [7]"),
        (["--samples", "1", "--bins", "0.5,1.5"], "strictly between 0 and 1"),
        (["--samples", "x"], "comma-separated numbers"),
    ],
)
def test_bad_requests_exit_2_naming_what_was_wrong(run, capsys, args, says):
    try:
        code = script.main(["--run", str(run), *args])
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    assert code == 2 and says in capsys.readouterr().err
