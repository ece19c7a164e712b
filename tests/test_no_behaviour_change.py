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
the training tests skip and say so. The fingerprint is integer play and holds everywhere.
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
    "checkpoints/step_1316.npz": "36d4d07b89c198c04f1f2f54c348029b4352da1958dcf4b3119dfeda0dff42d1",
    "checkpoints/step_1316.pt": "0c90620b72c4e568258595a22ee66d5e1a57f9e648a42fd876f645e42f6d2a88",
    "checkpoints/step_826.npz": "74f0a2d17c92ee1b3d5bdc5cec7c83a19fec537bc8b1f8181306c6ead267e82f",
    "checkpoints/step_826.pt": "c82f8ec3ee1c1e12ca6f25318d3e1d9906827eb9ac771e7aeffb86dffda80dd5",
    "snapshots/step_826.npz": "74f0a2d17c92ee1b3d5bdc5cec7c83a19fec537bc8b1f8181306c6ead267e82f",
    "snapshots/step_826.pt": "c82f8ec3ee1c1e12ca6f25318d3e1d9906827eb9ac771e7aeffb86dffda80dd5",
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
    "checkpoints/step_1272.npz": "c3de4487f17eaea8e5186f3893d87defe2fbc2acd5ff39ea8f8a0e2a9aafc88a",
    "checkpoints/step_1272.pt": "7dbc2efdf9666d776a68152895df26a994f7bbfecc9a43d564960704f0f6b842",
    "checkpoints/step_814.npz": "426cb446bc8e88db970a398810523e91e4d4ed336c121b1aba589fc93e2b68e9",
    "checkpoints/step_814.pt": "00d2eb3b75e609c35b92f002253f85a85e3a309f800c3008bcb0d7a89d0f9d68",
    "snapshots/step_814.npz": "426cb446bc8e88db970a398810523e91e4d4ed336c121b1aba589fc93e2b68e9",
    "snapshots/step_814.pt": "00d2eb3b75e609c35b92f002253f85a85e3a309f800c3008bcb0d7a89d0f9d68",
}
LEAGUE = {
    "best.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "best.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_0.npz": "8e42784c48d027f0c344d302b625be19f0b68133a402603a55bdf5fb4b3bd1d0",
    "checkpoints/step_0.pt": "4485fc3482f7a5dcb1833ba555553f505a483140b9d971215ffd546aa8beb0bc",
    "checkpoints/step_1473.npz": "50f8c0908e2533571b08fe918cc5d7e0f91cb94e081e65ea6d3e0f4b1676d7ec",
    "checkpoints/step_1473.pt": "b6bea21ff448a73f7c098710b92ecae0d8884b71fa8dab9121e03a35d86ce057",
    "checkpoints/step_617.npz": "3f297c9a31f48bb89b0ddb02ec6832fa6fcbbfaa6125eaa37cd5e6c9f4966306",
    "checkpoints/step_617.pt": "8126ea30ee0de0d84bf508c44f06b0039153fa16d72e21b93a46799145fc535c",
    "exploiters/exploiter_1473_2p/best.npz": "7d45e48ea0df21d252a6850b05a5e1d5ea6a0c4d7a4dd1b784ef984c20dfd0c6",
    "exploiters/exploiter_1473_2p/best.pt": "618778e6eee24e57e2e8c3599ae7cab12e91d1c4ee5c7db34013d7d9f1e11572",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.npz": "7d45e48ea0df21d252a6850b05a5e1d5ea6a0c4d7a4dd1b784ef984c20dfd0c6",
    "exploiters/exploiter_1473_2p/checkpoints/step_0.pt": "618778e6eee24e57e2e8c3599ae7cab12e91d1c4ee5c7db34013d7d9f1e11572",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.npz": "59e950b301f8b3372b8cc2781ef4975e999a20678b7b95534db16a7111a2445b",
    "exploiters/exploiter_1473_2p/checkpoints/step_344.pt": "b532ea5a93e1990d14d4d85e187cd36ef53521e3badd8119c8b3e1be4e7d348e",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.npz": "abec44d3e6ddd2e0f3fea8aebb67be01e8c5641de684208d2b74b26b43449857",
    "exploiters/exploiter_1473_2p/checkpoints/step_614.pt": "82d433777bf16fa3f9b8c2b659dee7c818b760483210432d17424ac33520f4d0",
    "exploiters/exploiter_617_3p/best.npz": "13fa6506e2667516e26df6c8ca12dfa35e083196baf6ba2cfc9742393c913bdb",
    "exploiters/exploiter_617_3p/best.pt": "ef29ff2bfe9deb90acdad3374dc4cfede85e145a945607d252e0fa4cab20caaf",
    "exploiters/exploiter_617_3p/checkpoints/step_0.npz": "13fa6506e2667516e26df6c8ca12dfa35e083196baf6ba2cfc9742393c913bdb",
    "exploiters/exploiter_617_3p/checkpoints/step_0.pt": "ef29ff2bfe9deb90acdad3374dc4cfede85e145a945607d252e0fa4cab20caaf",
    "exploiters/exploiter_617_3p/checkpoints/step_291.npz": "745aed6db1bca97735b018cfda64dda2c637c7bbbd8e300ae8ab5db1d9229b44",
    "exploiters/exploiter_617_3p/checkpoints/step_291.pt": "04c7550b0947b0f444f1e70d8991c1b2278e1cb457febb72e4d675020a6faf10",
    "exploiters/exploiter_617_3p/checkpoints/step_593.npz": "71d8e68d5477da454515bd5aef7896b89b4e0386ba2e17b1e79812c985dfd917",
    "exploiters/exploiter_617_3p/checkpoints/step_593.pt": "41dac43438d1b768d3959c45b64b2b624e90a9d475126a26d477a48a3ae1b31d",
    "snapshots/step_1473.npz": "50f8c0908e2533571b08fe918cc5d7e0f91cb94e081e65ea6d3e0f4b1676d7ec",
    "snapshots/step_1473.pt": "b6bea21ff448a73f7c098710b92ecae0d8884b71fa8dab9121e03a35d86ce057",
    "snapshots/step_617.npz": "3f297c9a31f48bb89b0ddb02ec6832fa6fcbbfaa6125eaa37cd5e6c9f4966306",
    "snapshots/step_617.pt": "8126ea30ee0de0d84bf508c44f06b0039153fa16d72e21b93a46799145fc535c",
}
EXPLOIT = {
    "best.npz": "e622f294e03b3f0a9e6779291e46001c035ecd606419036cc64d18925bdc34e4",
    "best.pt": "06fd52a6badb1d0bd8a2e7170836064e9dfbd8418358c7c2ef183aaabf7edc9a",
    "checkpoints/step_0.npz": "e622f294e03b3f0a9e6779291e46001c035ecd606419036cc64d18925bdc34e4",
    "checkpoints/step_0.pt": "06fd52a6badb1d0bd8a2e7170836064e9dfbd8418358c7c2ef183aaabf7edc9a",
    "checkpoints/step_1036.npz": "47dafda227ca8c49409bc8ce39b147e975c2616f86ba4ce8a6766f9d40fb8340",
    "checkpoints/step_1036.pt": "3fc5aefcbefc123fe100b07f7d2be6a09b7d926d79259b0f69a392ad7e5ca312",
    "checkpoints/step_524.npz": "a3e303b21f0a3211d2a7cc4ae31a6240a6744a4eeab5200a9d0e598f8d41efce",
    "checkpoints/step_524.pt": "a50d9067383069bdbd4d5f8305e41c4063df4916f1ad6dda6a3ba59cf55e216a",
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
