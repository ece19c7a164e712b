"""Ray usage telemetry is off by default where the lab starts Ray (agents.raystart), and a
value the user set is kept. No Ray needed: a stand-in `ray` module records what `init` saw."""

from __future__ import annotations

import os
import sys
import types

import pytest

from agents.raystart import USAGE_STATS_VAR, init_ray, usage_stats_off_by_default


class FakeRay(types.ModuleType):
    """A `ray` stand-in: not initialized; `init` records its arguments and the variable."""

    def __init__(self):
        super().__init__("ray")
        self.calls: list[tuple[dict, str | None]] = []

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs):
        self.calls.append((kwargs, os.environ.get(USAGE_STATS_VAR)))


@pytest.fixture
def fake_ray(monkeypatch):
    ray = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.delenv(USAGE_STATS_VAR, raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return ray


def test_usage_stats_set_off_only_when_absent():
    env: dict[str, str] = {}
    assert usage_stats_off_by_default(env) is True and env == {USAGE_STATS_VAR: "0"}
    env = {USAGE_STATS_VAR: "1"}
    assert usage_stats_off_by_default(env) is False and env == {USAGE_STATS_VAR: "1"}


def test_init_ray_turns_telemetry_off_before_init(fake_ray):
    init_ray(fake_ray, address=None, num_cpus=2)
    assert fake_ray.calls == [({"address": None, "num_cpus": 2}, "0")]


@pytest.mark.parametrize("value", ["1", "0"])
def test_init_ray_keeps_the_users_choice(fake_ray, monkeypatch, value):
    monkeypatch.setenv(USAGE_STATS_VAR, value)
    init_ray(fake_ray)
    assert fake_ray.calls == [({}, value)]


def test_arena_connect_ray_starts_ray_with_telemetry_off(fake_ray):
    from agents.arena import connect_ray

    assert connect_ray() is True
    ((kwargs, seen),) = fake_ray.calls
    assert seen == "0" and kwargs["address"] is None


def test_arena_connect_ray_respects_the_user(fake_ray, monkeypatch):
    from agents.arena import connect_ray

    monkeypatch.setenv(USAGE_STATS_VAR, "1")
    assert connect_ray("10.0.0.1:6379") is True
    assert fake_ray.calls == [
        ({"address": "10.0.0.1:6379", "include_dashboard": False, "log_to_driver": False}, "1")
    ]


@pytest.mark.parametrize(("preset", "seen"), [(None, "0"), ("1", "1")])
def test_rllib_backend_starts_ray_with_telemetry_off_unless_set(
    fake_ray, monkeypatch, preset, seen
):
    from training.rllib_backend import RLlibSettings, _init_ray

    if preset is not None:
        monkeypatch.setenv(USAGE_STATS_VAR, preset)
    assert _init_ray(RLlibSettings(num_cpus=2)) is True
    ((kwargs, got),) = fake_ray.calls
    assert got == seen and kwargs["num_cpus"] == 2
