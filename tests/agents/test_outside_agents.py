"""Outside agents: `module.path:ClassName` specs, the `lastwill.agents` entry-point group, names
registered at run time, with worker processes; every spec is built before the first game."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import REPO
from typer.testing import CliRunner

from agents import arena as ar
from agents import registry
from agents.base import BaseAgent
from apps.cli import app
from lastwill_env.engine import GameConfig

CFG2 = GameConfig(num_players=2)

AGENT_SRC = '''
from agents.base import BaseAgent


class {cls}(BaseAgent):
    """Plays the highest-numbered legal action (or a random one with chance eps)."""

    def __init__(self, seed=None, eps=0.0):
        super().__init__(seed)
        self.eps = float(eps)

    def act(self, view, legal):
        if self.eps and self.rng.random() < self.eps:
            return self.rng.choice(legal)
        return max(legal)


class NoSeed:
    name = "noseed"

    def reset(self, seed=None):
        pass

    def act(self, view, legal):
        return legal[0]


class NotAnAgent:
    pass
'''


@pytest.fixture
def clean_registry(monkeypatch):
    """Restore sys.path and the registry after the test."""
    registry._load_builtin()
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return registry


def _write_module(root: Path, name: str, cls: str = "MaxAgent") -> None:
    (root / f"{name}.py").write_text(AGENT_SRC.format(cls=cls))


def _lines(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head.pop("created")
    return [head] + [json.loads(x) for x in lines[1:]]


# -- module:Class specs ----------------------------------------------------------------------


def test_module_class_spec_from_the_current_directory(tmp_path, monkeypatch, clean_registry):
    _write_module(tmp_path, "lw_cwd_agents")
    monkeypatch.chdir(tmp_path)
    agent = registry.make_agent("lw_cwd_agents:MaxAgent:eps=0.25", seed=3, trusted=True)
    assert type(agent).__name__ == "MaxAgent" and agent.eps == 0.25
    assert agent.name == "lw_cwd_agents:MaxAgent:eps=0.25"
    assert agent.act(None, [3, 9, 4]) in (3, 9, 4)
    # a class without a seed parameter is built without one; the harness calls reset(seed)
    noseed = registry.make_agent("lw_cwd_agents:NoSeed", seed=1, trusted=True)
    assert type(noseed).__name__ == "NoSeed"


def test_module_class_spec_errors_are_clear(tmp_path, monkeypatch, clean_registry):
    _write_module(tmp_path, "lw_err_agents")
    monkeypatch.chdir(tmp_path)
    cases = {
        "lw_no_such_module:Agent": "no module named 'lw_no_such_module'",
        "lw_err_agents:Missing": "has no attribute 'Missing'",
        "lw_err_agents:NotAnAgent": "is not an agent",
        "lw_err_agents:MaxAgent:color=red": "bad parameters",
        "nosuchbot": "unknown player 'nosuchbot'",
    }
    for spec, message in cases.items():
        with pytest.raises(registry.PlayerSpecError, match=message):
            registry.make_agent(spec, trusted=True)
    with pytest.raises(registry.PlayerSpecError, match="module.path:ClassName"):
        registry.make_agent("nosuchbot")


def test_a_spec_that_cannot_be_built_stops_the_tournament_before_any_game(
    tmp_path, monkeypatch, clean_registry
):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "never.jsonl"
    with pytest.raises(ar.ArenaError, match="no module named 'lw_missing'"):
        ar.run_tournament(["random", "lw_missing:Agent"], CFG2, 4, out=out, workers=2, trusted=True)
    assert not out.exists()

    class Broken(registry.RandomAgent):
        def __init__(self, seed=None):
            raise RuntimeError("no weights here")

    registry.register("_broken", Broken, "test only")
    with pytest.raises(ar.ArenaError, match="'_broken' cannot be built: RuntimeError"):
        ar.run_tournament(["random", "_broken"], CFG2, 4, out=out)
    assert not out.exists()


def test_module_class_spec_with_workers_gives_the_rows_of_one_process(
    tmp_path, monkeypatch, clean_registry
):
    _write_module(tmp_path, "lw_pool_agents")
    monkeypatch.chdir(tmp_path)
    entrants = ["lw_pool_agents:MaxAgent:eps=0.3", "random"]
    one = ar.run_tournament(entrants, CFG2, 6, seed=4, out=tmp_path / "w1.jsonl", trusted=True)
    two = ar.run_tournament(
        entrants, CFG2, 6, seed=4, out=tmp_path / "w2.jsonl", workers=2, trusted=True
    )
    assert one.errors == 0 and two.errors == 0
    assert _lines(one.out) == _lines(two.out)
    assert {r["winner_spec"] for r in one.rows} <= set(entrants)


def test_cli_runs_a_module_class_spec_and_rejects_a_broken_one(tmp_path, monkeypatch):
    _write_module(tmp_path, "lw_cli_agents")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    runner = CliRunner()
    out = tmp_path / "cli.jsonl"
    res = runner.invoke(
        app, ["arena", "-q", "-p", "lw_cli_agents:MaxAgent,random", "-g", "4", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "lw_cli_agents:MaxAgent" in res.stdout
    bad = runner.invoke(
        app, ["arena", "-q", "-p", "lw_cli_agents:Nope,random", "-g", "4", "-o", str(out) + "2"]
    )
    assert bad.exit_code == 2
    assert "has no attribute 'Nope'" in bad.stderr
    assert not Path(str(out) + "2").exists()


# -- entry points ----------------------------------------------------------------------------


def _fake_dist(site: Path, ep_name: str, module: str) -> None:
    """A tiny installed distribution: a dist-info with an entry point, and its module."""
    info = site / f"lw_fake_dist_{ep_name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: lw-fake-dist-{ep_name}\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(f"[lastwill.agents]\n{ep_name} = {module}:MaxAgent\n")
    _write_module(site, module)


def test_entry_point_names_an_agent_in_the_registry_and_in_workers(
    tmp_path, monkeypatch, clean_registry
):
    site = tmp_path / "site"
    _fake_dist(site, "lw_ep_bot", "lw_ep_module")
    monkeypatch.syspath_prepend(str(site))
    registry._load_entry_points()
    assert "lw_ep_bot" in registry.names()
    assert "lw-fake-dist-lw_ep_bot" in registry.legend()
    agent = registry.make_agent("lw_ep_bot:eps=0.5", seed=1)
    assert type(agent).__name__ == "MaxAgent" and agent.eps == 0.5
    entrants = ["lw_ep_bot", "random"]
    one = ar.run_tournament(entrants, CFG2, 4, seed=9, out=tmp_path / "e1.jsonl")
    two = ar.run_tournament(entrants, CFG2, 4, seed=9, out=tmp_path / "e2.jsonl", workers=2)
    assert one.errors == 0 and _lines(one.out) == _lines(two.out)


def test_entry_points_never_replace_a_built_in_name(monkeypatch, clean_registry):
    class FakeEP:
        name = "greedy"
        value = "os:getcwd"
        dist = None

    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [FakeEP()])
    registry._load_entry_points()
    assert registry.resolve("greedy")[0].origin == "built-in"


# -- names registered at run time --------------------------------------------------------------


def test_a_lambda_registered_name_cannot_go_to_workers_and_says_so(tmp_path, clean_registry):
    registry.register("_lambda_bot", lambda seed=None: registry.RandomAgent(seed), "test only")
    with pytest.raises(ar.ArenaError, match="cannot be sent to worker processes"):
        ar.run_tournament(["_lambda_bot", "random"], CFG2, 4, out=tmp_path / "l.jsonl", workers=2)
    assert not (tmp_path / "l.jsonl").exists()


def test_a_run_time_name_beside_an_imported_agent_keeps_one_worker_in_process(
    tmp_path, clean_registry
):
    # an imported agent alone is played in a worker process even with --workers 1 (it may end
    # its process); beside a name registered at run time, whose factory need not pickle, the
    # tournament stays in this process and plays, as it did before
    (tmp_path / "lw_mix_agents.py").write_text(
        "from agents.base import BaseAgent\n"
        "class Low(BaseAgent):\n"
        "    def act(self, view, legal):\n"
        "        return min(legal)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:

        class Local(BaseAgent):
            def act(self, view, legal):
                return legal[-1]

        registry.register("_local_bot", Local, "test only")
        assert ar.in_own_process(["lw_mix_agents:Low", "greedy"])
        assert not ar.in_own_process(["lw_mix_agents:Low", "_local_bot"])
        res = ar.run_tournament(
            ["lw_mix_agents:Low", "_local_bot"], CFG2, 4, out=tmp_path / "m.jsonl", trusted=True
        )
        assert res.errors == 0 and len(res.rows) == 4
    finally:
        sys.path.remove(str(tmp_path))


def test_register_under_main_reaches_spawned_workers(tmp_path):
    """The reported case: `register()` under `if __name__ == "__main__"`, then workers=2."""
    script = tmp_path / "my_tournament.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            from agents.arena import run_tournament
            from agents.base import BaseAgent
            from agents.registry import register
            from lastwill_env.engine import GameConfig


            class Mine(BaseAgent):
                def act(self, view, legal):
                    return min(legal)


            if __name__ == "__main__":
                register("mine", Mine, "my agent")
                res = run_tournament(["mine", "random"], GameConfig(2), 8, seed=1,
                                     out=sys.argv[1], workers=2)
                print(json.dumps({"errors": res.errors, "games": len(res.rows)}))
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "m.jsonl")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"errors": 0, "games": 8}


# -- the example package of docs/BOTS.md -----------------------------------------------------------


def test_the_example_package_plays_by_module_spec_and_declares_its_entry_point(
    tmp_path, monkeypatch, clean_registry
):
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    example = REPO / "examples" / "myagent"
    eps = tomllib.loads((example / "pyproject.toml").read_text())["project"]["entry-points"]
    assert eps["lastwill.agents"] == {"myagent": "myagent.agent:MyAgent"}
    monkeypatch.chdir(example)  # as in docs/BOTS.md: run from the package's folder
    entrants = ["myagent.agent:MyAgent:switch=4", "greedy", "planner", "random"]
    cfg = GameConfig(num_players=4)
    one = ar.run_tournament(entrants, cfg, 4, seed=1, out=tmp_path / "x1.jsonl", trusted=True)
    two = ar.run_tournament(
        entrants, cfg, 4, seed=1, out=tmp_path / "x2.jsonl", workers=2, trusted=True
    )
    assert one.errors == 0 and _lines(one.out) == _lines(two.out)
    module, _, attr = eps["lastwill.agents"]["myagent"].partition(":")
    assert registry.import_object(module, attr).__name__ == "MyAgent"
