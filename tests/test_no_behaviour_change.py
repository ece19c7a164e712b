"""Moving code does not change what it computes: a short all-seat run, a short single-seat (SB3)
run, a short all-seat run over a prior with shaping and kickstarting, a league run with
exploiters and a `lastwill exploit` run give the same checkpoints, byte for byte, as the code
gave when these digests were pinned; and the shipped reference plays the same moves (its
behaviour fingerprint, `agents.fingerprint`).

A digest here changes only with a deliberate change of behaviour; then say so in the commit and
pin the new one. The training digests depend on torch's float kernels, which differ between
CPU instruction sets, so they are pinned for the instruction set they were made on (torch's
`get_cpu_capability`) and the test says so when it runs elsewhere; the fingerprint is integer
play and holds everywhere.
"""

# ruff: noqa: E501  (the pinned digests are long strings)
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
LEAGUE = {
    "best.npz": "6eddbea76bfc78ca319b17bf202822d825545c2292fa4745b4729ebf6f2e849b",
    "best.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_0.npz": "6eddbea76bfc78ca319b17bf202822d825545c2292fa4745b4729ebf6f2e849b",
    "checkpoints/step_0.pt": "3da46596ea44941ad2dfb27131b67f767c8c78898b9ad07408013e8f410b41e6",
    "checkpoints/step_1473.npz": "08e94a3eb4ec1bd584478b60da14c245b56c4abdf6787b428707e1ccb830aa91",
    "checkpoints/step_1473.pt": "96ef53987ae5501023d0318a008dfba106f0f4b53b2751316c05db801d0c02d8",
    "checkpoints/step_617.npz": "acd0345cc2cac69d66180e2bcee176cf5a4108f5fc53dc9d557868137900ffd4",
    "checkpoints/step_617.pt": "71826b4fc25165567321aaa163749c17e683b2cc686543ea69dd772e5280ff7f",
    "exploiters/exploiter_1473_2p/best.npz": "459de9d6e23dd0093b6ef51aa0e4bf57a1bb43b29a968bd656b3a3bc53af355d",
    "exploiters/exploiter_1473_2p/best.pt": "94ce40f304e1dc1cc0f471b4843138b81cab73dae7484d529e4366f818f09dd8",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.npz": "459de9d6e23dd0093b6ef51aa0e4bf57a1bb43b29a968bd656b3a3bc53af355d",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.pt": "94ce40f304e1dc1cc0f471b4843138b81cab73dae7484d529e4366f818f09dd8",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.npz": "634c0dadaa30efc7044f4a88d76fafaa8ea22ffc76dac1cfc3dc9cf88fcaefbd",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.pt": "6e47aeba82db6864febc0b57767a8aefb93b1b4a42817ff790ece8b873484a87",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.npz": "9752577cda22299ce810e2131e8ccbc2559b64d05891130779f6f89d2ce30607",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.pt": "9b3a6163298f78588a0b7e8b1ee829a25b79407c6d13ecc71fc30fef30631e9c",
    "exploiters/exploiter_617_3p/best.npz": "3238d1c9d33abca061dc7606312d1fc2fd62f7a263bb3572f1fb18bfbb33017a",
    "exploiters/exploiter_617_3p/best.pt": "9da07aaede830a58997d15ef3d14901a8e8ae3c0f917f5e67549aaeea1f3cf8a",
    "exploiters/exploiter_617_3p/checkpoints/step_0.npz": "3238d1c9d33abca061dc7606312d1fc2fd62f7a263bb3572f1fb18bfbb33017a",
    "exploiters/exploiter_617_3p/checkpoints/step_0.pt": "9da07aaede830a58997d15ef3d14901a8e8ae3c0f917f5e67549aaeea1f3cf8a",
    "exploiters/exploiter_617_3p/checkpoints/step_291.npz": "04db85b91606d1ed9d779c6341b3f7e6a4a0671a842ed53b2c3b324cac117b02",
    "exploiters/exploiter_617_3p/checkpoints/step_291.pt": "98fd5bfc466c037a3710063610019c79e345fed2ba9dd262e99f2d9bbd6dcabf",
    "exploiters/exploiter_617_3p/checkpoints/step_593.npz": "e18444706512b84e21735544c46173d2ff99696e060dcc960b3574c10e00c4b4",
    "exploiters/exploiter_617_3p/checkpoints/step_593.pt": "62291c25c8b28ce775d0fc8b68d5197a0a3a5619196ea5d6c50d47b9650eae7e",
    "snapshots/step_1473.npz": "08e94a3eb4ec1bd584478b60da14c245b56c4abdf6787b428707e1ccb830aa91",
    "snapshots/step_1473.pt": "96ef53987ae5501023d0318a008dfba106f0f4b53b2751316c05db801d0c02d8",
    "snapshots/step_617.npz": "acd0345cc2cac69d66180e2bcee176cf5a4108f5fc53dc9d557868137900ffd4",
    "snapshots/step_617.pt": "71826b4fc25165567321aaa163749c17e683b2cc686543ea69dd772e5280ff7f",
}
EXPLOIT = {
    "best.npz": "52e598e536af6acf47a70f72f1912502a5d576daa813b7635d183e5b0a1e7f90",
    "best.pt": "f25789799035c6b8cca95539bc5cdef7e67da6eb85fe473b0cd8d2d0b185a32d",
    "checkpoints/step_0.npz": "52e598e536af6acf47a70f72f1912502a5d576daa813b7635d183e5b0a1e7f90",
    "checkpoints/step_0.pt": "f25789799035c6b8cca95539bc5cdef7e67da6eb85fe473b0cd8d2d0b185a32d",
    "checkpoints/step_1036.npz": "5e8af641d38dc8f24ab1a988ff15eda4627b1664f30caea619d8e3b2f620e592",
    "checkpoints/step_1036.pt": "cfaee57db0e3af1059c53691ad5a26a9a93d4439a0fa8a58b87cbccdfe48ad6a",
    "checkpoints/step_524.npz": "f3f6968fbb1709e6a97d7de3dfc1feaedaf86dd30ccbbb88e7a8f7194992623b",
    "checkpoints/step_524.pt": "89406527dbbd9ebc4849bc4f7286a963b7412690aac9467dd5541de8d1ba3661",
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
        if p.is_file() and p.suffix in (".npz", ".pt", ".zip")
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


def test_league_run_with_exploiters_is_unchanged(tmp_path: Path):
    _same_cpu()
    cfg = _small(
        tmp_path,
        mode="all_seat",
        n_games=4,
        n_envs=1,
        exploiter_every=600,
        exploiter_steps=500,
        exploiter_games=4,
    )
    train(cfg)
    assert _digests(tmp_path) == LEAGUE


def test_exploit_run_is_unchanged(tmp_path: Path):
    _same_cpu()
    from training.exploit import exploit

    run = tmp_path / "x"
    small = dict(net_arch=[16, 16], n_steps=256, batch_size=128, n_epochs=2, n_games=4)
    rep = exploit(
        "greedy",
        2,
        600,
        run,
        seed=3,
        eval_games=6,
        train_eval_games=4,
        panel=["random"],
        progress=False,
        overrides={**small, "torch_threads": 1},
    )
    assert _digests(run) == EXPLOIT
    # the report names the best of the start and the checkpoints (here the start, step 0)
    assert rep["best_response"]["checkpoint"] == str(run / "checkpoints/step_0.npz")
    assert (rep["best_response"]["games"], rep["best_response"]["wins"]) == (6, 0)
    assert rep["train_state"]["step"] == 1036


def test_reference_plays_the_same_moves():
    from agents.fingerprint import play_fingerprint

    assert play_fingerprint("ppo:agents/policies/reference.npz") == REFERENCE_FINGERPRINT
