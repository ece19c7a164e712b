"""Moving code does not change what it computes: a short all-seat run, a short single-seat (SB3)
run and a short all-seat run over a prior with shaping and kickstarting give the same
checkpoints, byte for byte, as the code gave when these digests were pinned; and the shipped
reference plays the same moves (its behaviour fingerprint, `agents.fingerprint`).

A digest here changes only with a deliberate change of behaviour; then say so in the commit and
pin the new one. The training digests depend on torch's float kernels, which differ between
CPU instruction sets, so they are pinned for the instruction set they were made on (torch's
`get_cpu_capability`) and the test says so when it runs elsewhere; the fingerprint is integer
play and holds everywhere.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training.config import TrainConfig  # noqa: E402
from training.train import train  # noqa: E402

PINNED_ON = "AVX512"

# sha256 of each checkpoint file of the runs below (relative path -> digest)
ALL_SEAT = {
    "best.npz": "6eddbea76bfc78ca319b17bf202822d825545c2292fa4745b4729ebf6f2e849b",
    "best.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_0.npz": "6eddbea76bfc78ca319b17bf202822d825545c2292fa4745b4729ebf6f2e849b",
    "checkpoints/step_0.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_1316.npz": "b5269c62690678ea03da8e9de112ea3e64941c53adf7f9ee9f382c29424946e3",
    "checkpoints/step_1316.pt": "467d186530e5818b061007066e7588d4fc5d2b6292ccedf4d27ad3cde58b6576",
    "checkpoints/step_826.npz": "4eb84eb42deb739f66bea55dfe202a5d3d5b8aec4c17f3fb28a98b7079e1df48",
    "checkpoints/step_826.pt": "c0b6e9883bf01d8d5f3719f04a764e7b8a5c62c992033050bdac8660be2ee6cf",
    "snapshots/step_826.npz": "4eb84eb42deb739f66bea55dfe202a5d3d5b8aec4c17f3fb28a98b7079e1df48",
    "snapshots/step_826.pt": "c0b6e9883bf01d8d5f3719f04a764e7b8a5c62c992033050bdac8660be2ee6cf",
}
SINGLE_SEAT = {
    "best.npz": "2e719a96cf1ed8faf0b298cd897d1ff3107652f017a89d172221ecbd0b3033c0",
    "best.zip": "1b53a9bf84e1089d988782f0018ef6564d1755147f680ab6a05570b6d255946a",
    "checkpoints/step_0.npz": "2e719a96cf1ed8faf0b298cd897d1ff3107652f017a89d172221ecbd0b3033c0",
    "checkpoints/step_0.zip": "1b53a9bf84e1089d988782f0018ef6564d1755147f680ab6a05570b6d255946a",
    "checkpoints/step_1280.npz": "3664ccc2eeb20629426457824877a2db269851625be9d1dbdf70437c4c3b8cef",
    "checkpoints/step_1280.zip": "a00b81082ef91f721ecbb44edc3e3c08da32f138f4c1c0daa7c8d41a1904dbbf",
    "checkpoints/step_768.npz": "7767c0388c51e70397f4da462b9ef10a71017eb916b81689e5da10213b5f7289",
    "checkpoints/step_768.zip": "c5dd4944a02746c0a5f97f5a42c48eff547f5fa9478b4731ac2421601a12ce02",
    "snapshots/step_768.npz": "7767c0388c51e70397f4da462b9ef10a71017eb916b81689e5da10213b5f7289",
    "snapshots/step_768.zip": "c5dd4944a02746c0a5f97f5a42c48eff547f5fa9478b4731ac2421601a12ce02",
}
PRIOR_SHAPED = {
    "best.npz": "e8b49c865314476411482d00681661c94650fabe53275a5bed184df84a872c39",
    "best.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_0.npz": "e8b49c865314476411482d00681661c94650fabe53275a5bed184df84a872c39",
    "checkpoints/step_0.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_1272.npz": "f6fa645408f77e75ba87da50dc739c97e6f9c6cb636200158298f509132ffbc1",
    "checkpoints/step_1272.pt": "5446dc2b587ff2b9ad664c59692a6fdca573456a962c68ea4f86fbd1e09b97ec",
    "checkpoints/step_814.npz": "84a0a34a2ec413a09d2b6f02f628a028619986b7d9930af3ec6c27bacf8fb2cb",
    "checkpoints/step_814.pt": "98e1947601989c1cdf671d4a12cdcdf55e568c81b4fee72d2b263cc2b0c25f92",
    "snapshots/step_814.npz": "84a0a34a2ec413a09d2b6f02f628a028619986b7d9930af3ec6c27bacf8fb2cb",
    "snapshots/step_814.pt": "98e1947601989c1cdf671d4a12cdcdf55e568c81b4fee72d2b263cc2b0c25f92",
}
# the reference's behaviour fingerprint (agents.fingerprint.play_fingerprint)
REFERENCE_FINGERPRINT = "981dc28b52a42965"


def _digest(path: Path) -> str:
    """sha256 of a file; of an SB3 `.zip`, of its tensors (its `data` member holds times)."""
    if path.suffix != ".zip":
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256()
    with zipfile.ZipFile(path) as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".pth")):
            h.update(name.encode() + z.read(name))
    return h.hexdigest()


def _digests(run_dir: Path) -> dict[str, str]:
    return {
        str(p.relative_to(run_dir)): _digest(p)
        for p in sorted(run_dir.rglob("*"))
        if p.suffix in (".npz", ".pt", ".zip")
    }


def _small(run_dir: Path, **over) -> TrainConfig:
    base = dict(
        run_dir=str(run_dir),
        seed=5,
        num_players=[2, 3],
        player_weights=[1.0, 1.0],
        net_arch=[16, 16],
        n_steps=256,
        batch_size=128,
        n_epochs=2,
        total_steps=1200,
        bots=["greedy", "random"],
        eval_bots=["greedy"],
        eval_games=2,
        eval_num_players=[2, 3],
        eval_every=600,
        checkpoint_every=600,
        snapshot_every=600,
        progress=False,
        torch_threads=1,
    )
    base.update(over)
    return TrainConfig(**base)


def _same_cpu() -> None:
    cap = torch.backends.cpu.get_cpu_capability()
    if cap != PINNED_ON:
        pytest.skip(f"training digests pinned on {PINNED_ON} CPUs; this one is {cap}")


def test_all_seat_run_is_unchanged(tmp_path: Path):
    _same_cpu()
    train(_small(tmp_path, mode="all_seat", n_games=4, n_envs=1, p_bot_table=0.3))
    assert _digests(tmp_path) == ALL_SEAT


def test_single_seat_run_is_unchanged(tmp_path: Path):
    _same_cpu()
    train(_small(tmp_path, mode="single_seat", n_envs=1, vec_env="dummy"))
    assert _digests(tmp_path) == SINGLE_SEAT


def test_all_seat_run_with_prior_shaping_and_kickstart_is_unchanged(tmp_path: Path):
    _same_cpu()
    cfg = _small(
        tmp_path,
        mode="all_seat",
        n_games=4,
        n_envs=1,
        prior="greedy",
        prior_weight=2.0,
        shaping=0.5,
        kickstart_teacher="greedy",
        kickstart_coef=0.3,
        kickstart_steps=1000,
        p_bot_seat=0.3,
        reward="rank",
    )
    train(cfg)
    assert _digests(tmp_path) == PRIOR_SHAPED


def test_reference_plays_the_same_moves():
    from agents.fingerprint import play_fingerprint

    assert play_fingerprint("ppo:agents/policies/reference.npz") == REFERENCE_FINGERPRINT
