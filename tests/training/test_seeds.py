"""The legacy-valued random streams of training (`training.seeds`) keep their values: each
function returns what its formula always gave, for a few run seeds and steps, so a checkpoint,
an evaluation or a pinned run made before still comes out the same."""

from __future__ import annotations

import pytest

from training import seeds

SEEDS = (0, 1, 7, 123, 2**31 - 1, 2**40 + 5)
STEPS = (0, 1, 1000, 40_960)

# (function, the formula its value has always had)
ONE = [
    (seeds.teacher_seed, lambda s: s + 7717),
    (seeds.prior_bot_seed, lambda s: s + 7919),
    (seeds.evaluation_seed, lambda s: s + 17),
    (seeds.exploit_eval_seed, lambda s: s * 7 + 1_000_003),
    (seeds.playout_cap_seed, lambda s: s ^ 0xCA9),
    (seeds.search_seed, lambda s: s ^ 0x5EA5C4),
]
TWO = [
    (seeds.env_worker_seed, lambda s, k: s * 1000 + k),
    (seeds.vec_env_seed, lambda s, k: s + k),
    (seeds.opponent_bot_seed, lambda s, k: s + k),
    (seeds.rollout_seed, lambda s, k: s * 1_000_003 + k),
    (seeds.update_seed, lambda s, k: s * 7919 + k),
    (seeds.exploiter_seed, lambda s, k: s + k),
]


@pytest.mark.parametrize(("stream", "formula"), ONE, ids=[f.__name__ for f, _ in ONE])
def test_a_stream_of_the_run_seed_keeps_its_value(stream, formula):
    for s in SEEDS:
        assert stream(s) == formula(s)


@pytest.mark.parametrize(("stream", "formula"), TWO, ids=[f.__name__ for f, _ in TWO])
def test_a_stream_of_the_run_seed_and_a_step_or_index_keeps_its_value(stream, formula):
    for s in SEEDS:
        for k in (*STEPS, 3):
            assert stream(s, k) == formula(s, k)


def test_pinned_values():
    """A few values written out, so that formula and function cannot drift together."""
    assert seeds.rollout_seed(3, 200) == 3_000_209
    assert seeds.update_seed(3, 200) == 23_957
    assert seeds.env_worker_seed(5, 2) == 5002
    assert seeds.teacher_seed(1) == 7718 and seeds.prior_bot_seed(1) == 7920
    assert seeds.evaluation_seed(0) == 17 and seeds.exploit_eval_seed(2) == 1_000_017
    assert seeds.playout_cap_seed(0) == 3241 and seeds.search_seed(0) == 6_202_820


def test_every_stream_is_tested():
    named = {f.__name__ for f, _ in (*ONE, *TWO)}
    public = {n for n, v in vars(seeds).items() if callable(v) and not n.startswith("_")}
    assert public == named
