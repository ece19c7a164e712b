"""Moving code does not change what it computes: a short all-seat run, a short single-seat (SB3)
run, a short all-seat run over a prior with shaping and kickstarting, a league run with
exploiters and a `lastwill exploit` run give the same checkpoints, byte for byte, as the code
gave when these digests were pinned; and the shipped reference plays the same moves (its
behaviour fingerprint, `agents.fingerprint`).

A digest here changes only with a deliberate change of behaviour; then say so in the commit and
pin the new one. The training digests depend on torch's float kernels, which differ between
machines: not only between instruction sets (two AVX512 machines gave different initial
weights). So the digests are pinned with a canary, the digest of a short fixed torch
computation with the kernels these runs use (orthogonal initialisation, an `EmbeddingBag`,
linear layers, tanh, log-softmax, fused and plain Adam, one thread); where the canary differs,
the training tests skip and say so. The all-seat digests were pinned with the compiled weight
gradient of the network's first layer (`training.allseat.firstlayer`, the same bits on every
machine); where it was not built they skip too. The fingerprint is integer play and holds
everywhere.
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

# the canary (`_kernel_canary()`) on the machine the training digests below were pinned on
PINNED_KERNELS = "f4980043b8bd55d7bfe30679e72d27e10b2bde241ceef7209c9c6016cc359433"

# sha256 of each checkpoint file of the runs below (relative path -> digest)
ALL_SEAT = {
    "best.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "best.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_0.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "checkpoints/step_0.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_1316.npz": "853d6eed23890e689c3f9d92ae19558089c6123bde75478925f1c6b806a3d4b7",
    "checkpoints/step_1316.pt": "8722abdfc618f4f3dba634426c7de613a5a0e9c529d0acf6b65b84852e864328",
    "checkpoints/step_826.npz": "d31348598bbfedeaa88c284c1646ea9c18675990dbe8da96fbdc36ad655308c5",
    "checkpoints/step_826.pt": "a4a466a4204a53c8574901ea29d622bee7433ec68428f1c438bfcf453a4afd58",
    "snapshots/step_826.npz": "d31348598bbfedeaa88c284c1646ea9c18675990dbe8da96fbdc36ad655308c5",
    "snapshots/step_826.pt": "a4a466a4204a53c8574901ea29d622bee7433ec68428f1c438bfcf453a4afd58",
}
SINGLE_SEAT = {
    "best.npz": "1ce4ee8df1403ed1c42b53d679efafdcc695eb2654fa4ae9aa747c630c3ef771",
    "best.zip": "47a87090f26a75c1c7b7f1c3deaac67584e295a9839b6007ac4ecf97b65515ee",
    "checkpoints/step_0.npz": "1ce4ee8df1403ed1c42b53d679efafdcc695eb2654fa4ae9aa747c630c3ef771",
    "checkpoints/step_0.zip": "47a87090f26a75c1c7b7f1c3deaac67584e295a9839b6007ac4ecf97b65515ee",
    "checkpoints/step_1280.npz": "1745edfc1f826d0fe92e56572d48fdd23956049fe48cfe7b121419a8dcf4ada0",
    "checkpoints/step_1280.zip": "1327417686f85f9943daa2c3a0a944cb295e3a9591aa9cc5ccb42118cfb72c82",
    "checkpoints/step_768.npz": "8783feef51ba3c4a647960c82ad154ae29490cfedcedbb2b4dd9f02ab241514c",
    "checkpoints/step_768.zip": "34ee29b87c44c5d589c62af19a2b098b83fceeffe98b98147fabefaea7ad7ef2",
    "snapshots/step_768.npz": "8783feef51ba3c4a647960c82ad154ae29490cfedcedbb2b4dd9f02ab241514c",
    "snapshots/step_768.zip": "34ee29b87c44c5d589c62af19a2b098b83fceeffe98b98147fabefaea7ad7ef2",
}
PRIOR_SHAPED = {
    "best.npz": "0487ccd66f4e364ff66a92f414b93029c0134301089786f5cb11c5e5454a4c57",
    "best.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_0.npz": "0487ccd66f4e364ff66a92f414b93029c0134301089786f5cb11c5e5454a4c57",
    "checkpoints/step_0.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_1272.npz": "d09f4d6f81372733f31c387c803d0e10f7b80071d8274609e5d56e96a0313244",
    "checkpoints/step_1272.pt": "504b47a5667a64d107cf43362057d1f88af7688ff15a9d7694ee7790e6786c54",
    "checkpoints/step_814.npz": "96e18d112d9ef91c0c00d2c516d396110988e05279bb74f3100d52bb53f7938d",
    "checkpoints/step_814.pt": "f1e3c44bfcba6dc22b4efbc8a1ac3e567c228462c519c823810d737730a127ef",
    "snapshots/step_814.npz": "96e18d112d9ef91c0c00d2c516d396110988e05279bb74f3100d52bb53f7938d",
    "snapshots/step_814.pt": "f1e3c44bfcba6dc22b4efbc8a1ac3e567c228462c519c823810d737730a127ef",
}
LEAGUE = {
    "best.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "best.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_0.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "checkpoints/step_0.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_1473.npz": "d6feb2afe59123e8ea9e999a87cd2a456b1dfef6feddfffac3d034a76de006a6",
    "checkpoints/step_1473.pt": "d2a5bc156bc73eb3f72006398cb7de752e93148d265af7d3dba19ec97f258c0b",
    "checkpoints/step_617.npz": "48dce4a5abe0a89ab5800a632feeefaac72a83f1379a0d9616e7b33ae5e7534a",
    "checkpoints/step_617.pt": "5772dfa12f72edad559fe36d4eb7fd66333cd835563f01e05e291bb53004766d",
    "exploiters/exploiter_1473_2p/best.npz": "b3709df3f637e88d5293d5e9b76262154098823ac59935aad635ab12bc452251",
    "exploiters/exploiter_1473_2p/best.pt": "8d1abf53210c78c980f4955c4a74dd5c4855b4e9c0d58d994d0d3c1950fcb026",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.npz": "b3709df3f637e88d5293d5e9b76262154098823ac59935aad635ab12bc452251",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.pt": "8d1abf53210c78c980f4955c4a74dd5c4855b4e9c0d58d994d0d3c1950fcb026",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.npz": "6f5bc6902bc3b783cc398a1367d29ce77ee685f3674e2cc7b4739deed1ecd241",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.pt": "115d0a84cf54f920fe0dbc36c26d67fb209cf606f949282f7295ac481e95bcac",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.npz": "a33ef5497e129599bd0f9ffb75c09857e5509cf100fb1432a9de123a92d20f82",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.pt": "d29bd08bb92387d928238e2418259f4027c89f75ee3eb986d110d168b738b727",
    "exploiters/exploiter_617_3p/best.npz": "28abc12212c654ac67c1ce4e599dc2800c6d0c0797b25d849c64e1745853ccbe",
    "exploiters/exploiter_617_3p/best.pt": "e2e5fbdc05724f9bd03d7536966c8231d60668fc497b2891f1e326a8e0ce1597",
    "exploiters/exploiter_617_3p/checkpoints/step_0.npz": "28abc12212c654ac67c1ce4e599dc2800c6d0c0797b25d849c64e1745853ccbe",
    "exploiters/exploiter_617_3p/checkpoints/step_0.pt": "e2e5fbdc05724f9bd03d7536966c8231d60668fc497b2891f1e326a8e0ce1597",
    "exploiters/exploiter_617_3p/checkpoints/step_291.npz": "4ac2d86d3d588c844b7588cd4a858d136a71bb35a63cf83fe6742c20750848e5",
    "exploiters/exploiter_617_3p/checkpoints/step_291.pt": "7643ce338678c611f18bb8d9934c03f7e5e3ec87468726463fcc0c7d16cffb68",
    "exploiters/exploiter_617_3p/checkpoints/step_593.npz": "c81e790824c32408d7821f790be2de5bb7d45eeaf5d4bd76347759010717a1ff",
    "exploiters/exploiter_617_3p/checkpoints/step_593.pt": "723e5e301ec67bedd22e5f422b4e6c841e5773831d6045bcb692332ef9f23fe6",
    "snapshots/step_1473.npz": "d6feb2afe59123e8ea9e999a87cd2a456b1dfef6feddfffac3d034a76de006a6",
    "snapshots/step_1473.pt": "d2a5bc156bc73eb3f72006398cb7de752e93148d265af7d3dba19ec97f258c0b",
    "snapshots/step_617.npz": "48dce4a5abe0a89ab5800a632feeefaac72a83f1379a0d9616e7b33ae5e7534a",
    "snapshots/step_617.pt": "5772dfa12f72edad559fe36d4eb7fd66333cd835563f01e05e291bb53004766d",
}
EXPLOIT = {
    "best.npz": "e622f294e03b3f0a9e6779291e46001c035ecd606419036cc64d18925bdc34e4",
    "best.pt": "06fd52a6badb1d0bd8a2e7170836064e9dfbd8418358c7c2ef183aaabf7edc9a",
    "checkpoints/step_0.npz": "e622f294e03b3f0a9e6779291e46001c035ecd606419036cc64d18925bdc34e4",
    "checkpoints/step_0.pt": "06fd52a6badb1d0bd8a2e7170836064e9dfbd8418358c7c2ef183aaabf7edc9a",
    "checkpoints/step_1036.npz": "e4614aa296b4da9fca4a0ecddc233f1bd8c53df396ff04f10120e96c025b2ff0",
    "checkpoints/step_1036.pt": "4b34b418c7b69ac438360d43490046a096dab6a03dde73c5d687a2b181f0b5c2",
    "checkpoints/step_524.npz": "734ecb36f7b9a5d64719a7713e92ee564dc0e5412792a33c012536f8d2cb8480",
    "checkpoints/step_524.pt": "a0b442efaa372043c2027afb9342b0670dd189295c2358b6bcd25aa491477f44",
}
# the reference's behaviour fingerprint (agents.fingerprint.play_fingerprint), and that of
# the reference before it, kept as policies/ref_v7
REFERENCE_FINGERPRINT = "7e5547e351ce270f"
REF_V7_FINGERPRINT = "981dc28b52a42965"


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


def _kernel_canary() -> str:
    """sha256 of a short fixed torch computation with the kernels the pinned runs use."""
    nn = torch.nn
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        g = torch.Generator().manual_seed(1)
        bag = nn.EmbeddingBag(300, 32, mode="sum")
        lin = nn.Linear(32, 24)
        for w in (bag.weight, lin.weight):
            nn.init.orthogonal_(w, gain=2**0.5)
        idx = torch.randint(0, 300, (400,), generator=g)
        vals = torch.rand(400, generator=g)
        offsets = torch.arange(0, 400, 20)
        fused = torch.optim.Adam(bag.parameters(), lr=1e-2, eps=1e-5, fused=True)
        plain = torch.optim.Adam(lin.parameters(), lr=1e-2, eps=1e-5)
        for _ in range(3):
            out = torch.tanh(lin(bag(idx, offsets, per_sample_weights=vals)))
            loss = -torch.log_softmax(out, dim=-1)[:, 0].mean()
            fused.zero_grad()
            plain.zero_grad()
            loss.backward()
            fused.step()
            plain.step()
        h = hashlib.sha256()
        for t in (bag.weight, lin.weight, lin.bias):
            h.update(t.detach().numpy().tobytes())
        return h.hexdigest()
    finally:
        torch.set_num_threads(threads)


def _same_cpu() -> None:
    canary = _kernel_canary()
    if canary != PINNED_KERNELS:
        pytest.skip(
            "training digests pinned on a machine whose torch kernels give the canary "
            f"{PINNED_KERNELS[:16]}; this one gives {canary[:16]}"
        )


def _same_all_seat_kernels() -> None:
    _same_cpu()
    from training.allseat import firstlayer

    if firstlayer.KERNEL != "compiled":
        pytest.skip(
            "all-seat digests pinned with the compiled first-layer gradient; this install "
            f"uses {firstlayer.KERNEL!r}"
        )


def test_all_seat_run_is_unchanged(tmp_path: Path):
    _same_all_seat_kernels()
    train(_small(tmp_path, mode="all_seat", n_games=4, n_envs=1, p_bot_table=0.3))
    assert _digests(tmp_path) == ALL_SEAT


def test_single_seat_run_is_unchanged(tmp_path: Path):
    _same_cpu()
    train(_small(tmp_path, mode="single_seat", n_envs=1, vec_env="dummy"))
    assert _digests(tmp_path) == SINGLE_SEAT


def test_all_seat_run_with_prior_shaping_and_kickstart_is_unchanged(tmp_path: Path):
    _same_all_seat_kernels()
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
    _same_all_seat_kernels()
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
    _same_all_seat_kernels()
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
    assert play_fingerprint("ppo:ref_d1") == REFERENCE_FINGERPRINT  # the same file
    assert play_fingerprint("ppo:ref_v7") == REF_V7_FINGERPRINT
