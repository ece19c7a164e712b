"""A policy over a prior bot (`prior`, `prior_weight`): a residual policy.

The prior bot's own choice gets `prior_weight` added to its logit at every decision: in the
rollout's sampling and log-probabilities, in the PPO update, in the numpy player (`ppo:PATH`),
for frozen snapshots, in the viewer's probabilities and for the target of `lastwill exploit`.
The prior travels in the policy file, and settings that do not fit are refused.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paths import REPO  # noqa: E402
from test_allseat import _cfg as _allseat_cfg  # noqa: E402

from agents.arena import play_game  # noqa: E402
from agents.policy import CheckpointError, NumpyPolicy, PolicyAgent, env_signature  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.residual import check_prior_weight  # noqa: E402
from lastwill_env.encoding import OBS_SIZE, encode_observation  # noqa: E402
from lastwill_env.engine import (  # noqa: E402
    NUM_ACTIONS,
    ConfigError,
    GameConfig,
    new_game,
    player_view,
)
from lastwill_env.engine.game import GAME_OVER  # noqa: E402
from training.allseat import (  # noqa: E402
    LEARNER,
    Rollout,
    build_model,
    flatten,
    make_optimizer,
    ppo_update,
    sparse_batch,
)
from training.config import TrainConfig, TrainConfigError  # noqa: E402


def _cfg(**kw) -> TrainConfig:
    """`tests/training/test_allseat.py`'s tiny all-seat settings, over the racer with weight 5."""
    return _allseat_cfg(**{"prior": "racer", "prior_weight": 5.0, **kw})


def _flat_policy(prior: str = "racer", weight: float = 5.0, seed: int = 0) -> NumpyPolicy:
    """Small random weights whose logits are all but flat: the prior decides the arg-max."""
    g = np.random.default_rng(seed)
    ws = [g.normal(0, 1e-4, (8, OBS_SIZE)), g.normal(0, 1e-4, (NUM_ACTIONS, 8))]
    bs = [np.zeros(8), np.zeros(NUM_ACTIONS)]
    return NumpyPolicy(ws, bs, "tanh", prior=prior, prior_weight=weight)


def _decisions(n: int, count: int, seed: int):
    """(view, legal) at the first `count` decisions with a choice of greedy games."""
    rng = random.Random(seed)
    bots = [make_agent("greedy", seed=p) for p in range(n)]
    out = []
    while len(out) < count:
        s = new_game(GameConfig(num_players=n), rng.randrange(2**62))
        while s.phase != GAME_OVER and len(out) < count:
            legal = s.legal_actions()
            view = player_view(s, s.cur)
            if len(legal) > 1:
                out.append((view, legal))
            s.apply_action(bots[s.cur].act(view, legal))
    return out


def test_numpy_policy_adds_the_weight_to_the_prior_bots_choice():
    pol = _flat_policy(weight=3.0)
    racer = make_agent("racer", seed=0)
    buf = np.zeros(OBS_SIZE, dtype=np.float32)
    for view, legal in _decisions(3, 60, seed=1):
        obs = encode_observation(view, buf)
        want = racer.act(view, legal)
        assert pol.choose(obs, legal, True, view=view) == want
        probs, _ = pol.evaluate(obs, legal, view)
        base = pol.logits(obs)[legal].astype(np.float64)
        base[legal.index(want)] += 3.0
        expect = np.exp(base - base.max())
        np.testing.assert_allclose(probs, expect / expect.sum(), rtol=1e-6)
        assert probs[legal.index(want)] > 0.5 or len(legal) > 20
    # without the view it cannot play, and says why
    view, legal = _decisions(3, 1, seed=2)[0]
    with pytest.raises(ValueError, match="prior 'racer'.*view"):
        pol.choose(encode_observation(view, buf), legal)


def test_ppo_net_plays_the_network_alone_and_leaves_the_shared_policy_as_it_is():
    """`ppo:PATH:net` plays the arg-max of the network's own logits, without the prior bot's
    bonus; the options come in any order, repeated ones are refused, and the policy that
    `ppo:PATH` (with its prior) shares through the load cache is not changed."""
    from agents.registry import PlayerSpecError, ppo_options

    assert ppo_options("reference") == ("reference", "det", False)
    assert ppo_options("reference:net") == ("reference", "det", True)
    assert ppo_options("x/y.npz:sample:net") == ("x/y.npz", "sample", True)
    assert ppo_options("x/y.npz:net:sample") == ("x/y.npz", "sample", True)
    for bad in ("reference:net:net", "reference:sample:det", "reference:det:net:det"):
        with pytest.raises(PlayerSpecError, match="options repeat"):
            ppo_options(bad)
    alone, full = make_agent("ppo:reference:net", seed=0), make_agent("ppo:reference", seed=0)
    assert (alone.policy.prior, alone.policy.prior_weight) == ("", 0.0)
    assert (full.policy.prior, full.policy.prior_weight) == ("sprinter", 3.0)
    assert make_agent("ppo:reference", seed=0).policy.prior == "sprinter"  # cache untouched
    buf = np.zeros(OBS_SIZE, dtype=np.float32)
    differ = 0
    for view, legal in _decisions(2, 80, seed=3):
        logits = full.policy.logits(encode_observation(view, buf))
        assert alone.act(view, legal) == legal[int(np.argmax(logits[legal]))]
        differ += alone.act(view, legal) != full.act(view, legal)
    assert differ > 0  # the prior's bonus changes some choices: the two are different players


def test_the_prior_travels_in_the_policy_file_and_bad_priors_are_refused(tmp_path: Path):
    pol = _flat_policy(weight=4.5)
    path = tmp_path / "p.npz"
    pol.save_npz(path)
    back = NumpyPolicy.load_npz(path)
    assert (back.prior, back.prior_weight) == ("racer", 4.5)
    st = NumpyPolicy.from_state(pol.state())
    assert (st.prior, st.prior_weight) == ("racer", 4.5)
    plain = _flat_policy(prior="", weight=0.0)
    plain.save_npz(tmp_path / "q.npz")
    assert NumpyPolicy.load_npz(tmp_path / "q.npz").prior == ""
    with pytest.raises(CheckpointError, match="positive weight"):
        _flat_policy(prior="racer", weight=0.0)
    with pytest.raises(CheckpointError, match="needs a prior"):
        _flat_policy(prior="", weight=2.0)
    unknown = _flat_policy(prior="nosuchbot", weight=1.0)
    view, legal = _decisions(2, 1, seed=3)[0]
    with pytest.raises(CheckpointError, match="nosuchbot"):
        unknown.choose(encode_observation(view), legal, view=view)


def test_a_policy_over_a_prior_without_a_source_of_bots_says_what_to_install(monkeypatch):
    from agents import priors

    monkeypatch.setattr(priors, "_DEFAULT", [])
    with pytest.raises(CheckpointError, match="prior 'racer'.*no source of prior bots"):
        _flat_policy(prior="racer", weight=2.0)
    shipped = REPO / "agents" / "policies" / "reference.npz"
    with pytest.raises(CheckpointError, match="prior 'sprinter'.*import agents.registry"):
        NumpyPolicy.load_npz(shipped)


def test_a_flat_policy_over_the_racer_plays_the_racers_games(tmp_path: Path):
    """`ppo:PATH` with a prior: a policy with (almost) flat logits plays every game exactly as
    the racer does (same deals, same seats, same results)."""
    path = tmp_path / "flat.npz"
    _flat_policy(weight=5.0).save_npz(path)
    path.with_suffix(".json").write_text(json.dumps({**env_signature(), "step": 1}))
    assert PolicyAgent(str(path)).policy.prior == "racer"
    for n, seed in ((2, 11), (4, 12)):
        others = ["planner", "greedy", "combiner"][: n - 1]
        a = play_game([f"ppo:{path}", *others], GameConfig(num_players=n), seed)
        b = play_game(["racer", *others], GameConfig(num_players=n), seed)
        assert "error" not in a or not a["error"], a.get("error")
        assert a["actions"] == b["actions"] and a["ranks"] == b["ranks"]


def test_prior_settings_are_checked():
    with pytest.raises(TrainConfigError, match="prior_weight"):
        _cfg(prior_weight=0.0)
    with pytest.raises(TrainConfigError, match="prior_weight"):
        _cfg(prior="", prior_weight=2.0)
    with pytest.raises(TrainConfigError, match="prior_weight"):
        _cfg(prior_weight=-1.0)
    with pytest.raises(TrainConfigError, match="all_seat"):
        _cfg(mode="single_seat")
    with pytest.raises(TrainConfigError, match="prior"):
        _cfg(prior="nosuchbot")
    with pytest.raises(TrainConfigError, match="scripted bot"):
        _cfg(prior="random")
    assert _cfg().prior == "racer"


@pytest.mark.parametrize("weight", [1000.5, 1e39, np.inf, np.nan, -0.5])
def test_settings_exploit_and_policy_files_share_one_prior_weight_range(tmp_path: Path, weight):
    """`agents.residual.check_prior_weight`: a weight the settings refuse, `lastwill exploit`
    and a policy refuse too, and the bound itself is allowed by all three."""
    from training.exploit import ExploitError, exploit

    with pytest.raises(TrainConfigError, match="use a number from 0 to 1000"):
        _cfg(prior_weight=weight)
    with pytest.raises(ExploitError, match="use a number from 0 to 1000"):
        exploit("racer", 2, 10, tmp_path / "x", prior="racer", prior_weight=weight)
    with pytest.raises(CheckpointError, match="bad prior 'racer' with weight"):
        _flat_policy(weight=weight)
    assert not (tmp_path / "x").exists()
    assert _cfg(prior_weight=1000.0).prior_weight == _flat_policy(weight=1000).prior_weight


@pytest.mark.parametrize("weight", [True, np.float32(2.0), "2", None, [2.0]])
def test_a_prior_weight_is_a_plain_int_or_float(weight):
    with pytest.raises(ConfigError, match=r"prior_weight=.* is not allowed; use a number from 0"):
        check_prior_weight(weight)
    assert check_prior_weight(2) == 2.0 and isinstance(check_prior_weight(2), float)
    assert check_prior_weight(np.float64(0.0)) == 0.0


def test_the_rollout_samples_over_the_prior_and_the_update_uses_the_same_logits():
    cfg = _cfg(num_players=[2, 4], player_weights=[1.0, 1.0], n_games=4)
    model = build_model(cfg, 0)
    assert (model.prior, model.prior_weight) == ("racer", 5.0)
    roll = Rollout(cfg, seed=3)
    trajs, _ = roll.collect(model, target=120)
    buf = flatten(trajs)
    n = len(buf["actions"])
    prior = buf["prior"]
    assert (prior >= 0).all() and buf["masks"][np.arange(n), prior].all()
    # the stored log-probabilities are the update's, prior included (not without it)
    rows = sparse_batch(buf["obs"])
    masks, acts = torch.as_tensor(buf["masks"]), torch.as_tensor(buf["actions"])
    with torch.no_grad():
        _, lp, _ = model.evaluate(*rows, masks, acts, prior=torch.as_tensor(prior))
        _, lp0, _ = model.evaluate(*rows, masks, acts)
    np.testing.assert_allclose(lp.numpy(), buf["logps"], atol=1e-4)
    assert not np.allclose(lp0.numpy(), buf["logps"], atol=1e-2)
    # a fresh network over a prior of weight 5 mostly plays the prior's choice
    assert (buf["actions"] == prior).mean() > 0.7
    # the forward adds exactly the weight to the prior's logit, nothing elsewhere
    with torch.no_grad():
        with_p, _ = model(*rows, masks, torch.as_tensor(prior))
        without, _ = model(*rows, masks)
    diff = (with_p - without).numpy()
    legal = buf["masks"]
    assert np.allclose(diff[np.arange(n), prior], 5.0, atol=1e-4)
    diff[np.arange(n), prior] = 0.0
    assert np.allclose(diff[legal], 0.0)
    # and a PPO update runs on it
    stats = ppo_update(model, make_optimizer(model, cfg), buf, cfg, np.random.default_rng(0))
    assert np.isfinite(stats["policy_loss"])


def test_snapshots_over_a_prior_play_the_prior_bot():
    """A frozen snapshot with a prior (flat logits) holds its seats as the racer would."""
    cfg = _cfg(num_players=[2], p_latest=0.0, p_bots_min=0.0, n_games=2)
    model = build_model(cfg, 0)
    roll = Rollout(cfg, seed=9)
    roll.set_snapshots({"s": _flat_policy(weight=8.0)}, {"s": 1.0})
    racer = make_agent("racer", seed=0)
    played = []
    orig = roll._advance

    def spy(g):
        orig(g)
        s = g.state
        if s.phase != GAME_OVER and isinstance(g.ctrl[s.cur], tuple):
            legal = s.legal_actions()
            played.append((racer.act(player_view(s, s.cur), legal), s, len(s.history)))

    roll._advance = spy
    roll.collect(model, target=60)
    assert played, "no snapshot decision was seen"
    for want, s, k in played[:40]:
        assert s.history[k] == want  # what the snapshot then played


def test_a_network_and_a_policy_must_agree_on_the_prior():
    model = build_model(_cfg(net_arch=[8]), 0)
    with pytest.raises(ValueError, match="prior"):
        model.load_actor_numpy(_flat_policy(prior="", weight=0.0))
    model.load_actor_numpy(_flat_policy(weight=5.0))
    pol = model.actor_numpy()
    assert (pol.prior, pol.prior_weight) == ("racer", 5.0)
    assert LEARNER == "learner"


def test_exploit_of_a_policy_over_a_prior_learns_over_the_same_prior(tmp_path: Path):
    """`lastwill exploit` against a policy with a prior: the learner starts from its weights
    and plays over the same prior, and its best response is saved with it."""
    import json as _json

    from agents.policy import load_policy
    from training.exploit import exploit
    from training.train import train

    small = dict(n_games=4, n_steps=100, n_envs=1, batch_size=64, n_epochs=1, torch_threads=1)
    base = tmp_path / "base"
    cfg = _cfg(
        run_dir=str(base),
        total_steps=150,
        num_players=[2],
        eval_games=2,
        eval_every=10**6,
        checkpoint_every=10**6,
        snapshot_every=10**6,
        prior_weight=4.0,
        **small,
    )
    target = base / train(cfg)["checkpoint"]
    assert load_policy(target)[0].prior == "racer"
    run = tmp_path / "br"
    rep = exploit(f"ppo:{target}", 2, 120, run, eval_games=2, train_eval_games=2, panel=[],
                  progress=False, overrides=small)  # fmt: skip
    state = _json.loads((run / "state.json").read_text())
    assert (state["config"]["prior"], state["config"]["prior_weight"]) == ("racer", 4.0)
    br, _ = load_policy(rep["best_response"]["checkpoint"])
    assert (br.prior, br.prior_weight) == ("racer", 4.0)


def test_exploit_of_a_bot_can_learn_over_a_prior_and_a_start_policy_decides_its_own(
    tmp_path: Path,
):
    import json as _json

    from training.exploit import ExploitError, exploit

    small = dict(n_games=4, n_steps=100, n_envs=1, batch_size=64, n_epochs=1, torch_threads=1)
    run = tmp_path / "br"
    exploit("greedy", 2, 100, run, eval_games=2, train_eval_games=2, panel=[], progress=False,
            overrides=small, prior="racer", prior_weight=2.5)  # fmt: skip
    state = _json.loads((run / "state.json").read_text())
    assert (state["config"]["prior"], state["config"]["prior_weight"]) == ("racer", 2.5)
    # a start policy without a prior cannot be given one
    path = tmp_path / "plain.npz"
    _flat_policy(prior="", weight=0.0).save_npz(path)
    path.with_suffix(".json").write_text(_json.dumps({**env_signature(), "step": 1}))
    with pytest.raises(ExploitError, match="plays over 'no prior'"):
        exploit(f"ppo:{path}", 2, 100, tmp_path / "x", prior="racer", prior_weight=2.0,
                progress=False, overrides=small)  # fmt: skip
    assert not (tmp_path / "x" / "state.json").exists()


def test_a_policy_file_records_its_priors_fingerprint_and_refuses_a_changed_bot(
    tmp_path: Path, monkeypatch
):
    from agents.fingerprint import play_fingerprint
    from agents.policy import CheckpointMismatchError
    from lastwill_env.bots.racer import RacerBot

    pol = _flat_policy()
    path = tmp_path / "p.npz"
    pol.save_npz(path)
    with np.load(path) as z:
        recorded = str(z["prior_fingerprint"])
    assert recorded == play_fingerprint("racer") != play_fingerprint("greedy")
    assert NumpyPolicy.load_npz(path).prior == "racer"  # the same racer: it loads
    # a file without a fingerprint (written before them) loads unchecked
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "prior_fingerprint"}
    old = tmp_path / "old.npz"
    np.savez(old, **arrays)
    # the racer changes how it plays one phase: the file no longer loads
    monkeypatch.setattr(RacerBot, "turn_rule", lambda self, v, legal: legal[-1])
    play_fingerprint.cache_clear()
    try:
        assert play_fingerprint("racer") != recorded
        with pytest.raises(CheckpointMismatchError, match="plays differently") as e:
            NumpyPolicy.load_npz(path)
        assert recorded in str(e.value) and "'racer'" in str(e.value)
        assert NumpyPolicy.load_npz(old).prior == "racer"
    finally:
        monkeypatch.undo()
        play_fingerprint.cache_clear()
    assert NumpyPolicy.load_npz(path).prior == "racer"
