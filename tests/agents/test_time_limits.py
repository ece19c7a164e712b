"""Time limits and dead workers (agents.timelimit, agents.workers): an outside agent that
sleeps, calls sys.exit or ends its worker process loses its game as an error row naming it
(arena, eval) or its seat (play, the viewer's live games), and the command ends.

The misbehaving agents live in ``tests/support/unruly_agents.py`` (``unruly_agents:Sleeper`` and so
on); this folder is on sys.path, and spawned workers inherit it."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest
import unruly_agents
from typer.testing import CliRunner

from agents import arena as ar
from agents import registry
from agents.evaluate import EvalError, evaluate
from agents.timelimit import (
    BUILD_FACTOR,
    DEFAULT_MOVE_TIME_LIMIT,
    AgentFault,
    LimitedAgent,
    build_agent,
    call_limited,
    check_time_limit,
    is_lab_spec,
)
from apps.arena_cli import DEFAULT_MOVE_TIME_LIMIT as CLI_DEFAULT
from apps.cli import app
from apps.play import PlayError, bot_step, human_step, load_game, new_play, save_game
from apps.viewer.live import LiveSessions
from lastwill_env.engine import GAME_OVER, GameConfig, legal_actions

HERE = Path(__file__).resolve().parent
LIMIT = 0.2
CFG2 = GameConfig(num_players=2)
OVER = "ran over the time limit of 0.2 s"
runner = CliRunner()


@pytest.fixture
def clean_registry(monkeypatch):
    """Names registered by a test are gone after it."""
    registry._load_builtin()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return registry


def _in_thread(fn, *args):
    """``fn(*args)`` in another thread (as the viewer's requests run): its result or error."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join(30)
    assert not t.is_alive(), "the call did not end"
    if "error" in box:
        raise box["error"]
    return box["value"]


# -- the limit itself ------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 0.25, 5, 3600.0])
def test_a_time_limit_is_a_finite_number_of_seconds(value):
    assert check_time_limit(value) == float(value)


@pytest.mark.parametrize("value", [-1, float("nan"), float("inf"), "5", None, True, 10**400])
def test_a_bad_time_limit_is_refused_naming_the_option(value):
    with pytest.raises(ValueError, match=r"--move-time-limit=.* is not allowed; use a .*0 for no"):
        check_time_limit(value)


def test_the_command_line_default_is_the_libraries_default():
    assert CLI_DEFAULT == DEFAULT_MOVE_TIME_LIMIT == 5.0


def test_lab_bots_are_not_limited_and_outside_agents_are(clean_registry):
    for spec in ("random", "greedy:eps=0.1", "racer", "mc:rollouts=1", "ppo:x.npz", "greedy@me"):
        assert is_lab_spec(spec), spec
    assert type(build_agent("greedy", 0, LIMIT)).__name__ == "GreedyBot"
    registry.register("_tl_sleeper", unruly_agents.Sleeper, "test only")
    for spec in ("unruly_agents:Sleeper", "_tl_sleeper", "nosuchbot"):
        assert not is_lab_spec(spec), spec
    agent = build_agent("_tl_sleeper", 0, LIMIT)
    assert isinstance(agent, LimitedAgent) and agent.limit == LIMIT


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_call_limited_stops_a_sleep_tells_exit_apart_and_lets_ctrl_c_through(where):
    run = call_limited if where == "main thread" else (lambda *a: _in_thread(call_limited, *a))
    assert run(LIMIT, "agent 'x' in act", lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(AgentFault, match=r"agent 'x' in act ran over the time limit of 0\.2 s"):
        run(LIMIT, "agent 'x' in act", time.sleep, unruly_agents.NAP)
    with pytest.raises(AgentFault, match=r"agent 'x' in act called sys\.exit\(3\)"):
        run(LIMIT, "agent 'x' in act", sys.exit, 3)

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(LIMIT, "agent 'x' in act", interrupted)
    with pytest.raises(AgentFault, match="called sys.exit"):  # 0: no deadline, exits still told
        run(0, "agent 'x' in act", sys.exit, 0)


def test_an_agent_that_swallows_the_deadline_still_ran_over_it():
    agent = build_agent("unruly_agents:Swallower", 0, LIMIT, trusted=True)
    with pytest.raises(AgentFault, match=OVER):
        agent.act(None, [1, 2])
    with pytest.raises(AgentFault, match=OVER):  # dropped: not called again
        agent.act(None, [1, 2])
    assert agent.agent.moves == 1


# -- the arena -------------------------------------------------------------------------------

ARENA_CASES = [
    # spec, workers, what the error message says
    ("unruly_agents:Sleeper:after=3", 1, OVER + " (--move-time-limit"),
    ("unruly_agents:Swallower", 1, OVER),
    ("unruly_agents:Exiter:after=1", 1, "in act called sys.exit(3)"),
    ("unruly_agents:SlowObserver", 1, "in observe " + OVER),
    ("unruly_agents:Sleeper", 2, OVER),
    ("unruly_agents:Exiter", 2, "in act called sys.exit(3)"),
    ("unruly_agents:Killer:after=2", 2, "its worker process ended abruptly"),
    ("unruly_agents:Killer:after=2", 1, "its worker process ended abruptly"),
]


@pytest.mark.parametrize(("spec", "workers", "message"), ARENA_CASES)
def test_a_misbehaving_outside_agent_makes_its_games_error_rows(tmp_path, spec, workers, message):
    out = tmp_path / "log.jsonl"
    r = runner.invoke(
        app,
        ["arena", "-p", f"{spec},random", "-g", "2", "-w", str(workers), "-o", str(out), "-q"]
        + ["--move-time-limit", str(LIMIT), "-f", "json"],
    )
    assert r.exit_code == 0, r.output
    header, rows, _ = ar.read_log(out)
    assert header is not None and len(rows) == 2
    for row in rows:
        err = row["error"]
        assert err is not None and err["player"] == spec, err
        assert err["seat"] == row["seating"].index(spec)
        assert message in err["message"] and spec in err["message"], err
        assert row["winner"] is None and row["ranks"] is None
    assert json.loads(r.stdout)["errors"] == 2


def test_a_dead_worker_costs_only_its_games_and_the_log_resumes(tmp_path):
    """Killer ends its process only in games whose agent seed is odd: those are lost rows,
    every other game is played to its end, and --resume accepts the log as it is."""
    spec = "unruly_agents:Killer:parity=1"
    out = tmp_path / "log.jsonl"
    result = ar.run_tournament(
        [spec, "greedy"], CFG2, 6, seed=3, out=out, workers=2, trusted=True, move_time_limit=LIMIT
    )
    kinds = set()
    for row in result.rows:
        seat = row["seating"].index(spec)
        odd = row["agent_seeds"][seat] % 2 == 1
        kinds.add(odd)
        if odd:
            assert "its worker process ended abruptly" in row["error"]["message"]
            assert row["error"]["player"] == spec and row["actions"] == []
        else:
            assert row["error"] is None and row["winner"] is not None
    assert kinds == {True, False}  # seed 3 has both kinds of game
    again = ar.run_tournament(
        [spec, "greedy"], CFG2, 6, seed=3, out=out, resume=True, workers=2, trusted=True
    )
    assert again.played == 0 and again.rows == result.rows


def test_a_worker_that_dies_at_a_table_of_lab_bots_ends_the_run_clearly():
    task = ar.Schedule(("greedy", "random"), CFG2).task(0)
    with pytest.raises(ar.ArenaError, match="every seat is a lab bot.*--workers 1"):
        ar.lost_row(task, "its worker process ended abruptly")
    row = ar.lost_row(ar.Schedule(("greedy", "x.mod:Agent"), CFG2).task(1), "it died")
    assert row["error"] == {
        "seat": 0,
        "player": "x.mod:Agent",
        "message": "the game was lost: it died; the outside agents at this table: "
        "x.mod:Agent (seat 0)",
    }


BUILD_LIMIT = 0.05  # x BUILD_FACTOR for building and reset
BUILD_CASES = [
    ("unruly_agents:SlowReset", f"in reset ran over the time limit of {0.05 * BUILD_FACTOR:g} s"),
    ("unruly_agents:ExitInReset", "in reset called sys.exit(4)"),
]


@pytest.mark.parametrize(("spec", "message"), BUILD_CASES)
def test_an_agent_that_cannot_be_reset_in_time_stops_the_arena_before_any_game(
    tmp_path, spec, message
):
    out = tmp_path / "log.jsonl"
    r = runner.invoke(
        app,
        ["arena", "-p", f"{spec},random", "-g", "2", "-o", str(out), "-q"]
        + ["--move-time-limit", str(BUILD_LIMIT)],
    )
    assert r.exit_code == 2
    assert message in r.output and spec in r.output
    assert not out.exists()


def test_sys_exit_at_import_is_an_error_naming_the_spec(tmp_path, monkeypatch, clean_registry):
    (tmp_path / "lw_exits_at_import.py").write_text("import sys\nsys.exit(7)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "log.jsonl"
    r = runner.invoke(app, ["arena", "-p", "lw_exits_at_import:Agent,random", "-o", str(out), "-q"])
    assert r.exit_code == 2
    assert "'lw_exits_at_import:Agent': importing 'lw_exits_at_import' called sys.exit(7)" in (
        r.output
    )
    assert not out.exists()
    # the same module behind an entry point's name
    factory = registry.ImportFactory("lw_exits_at_import:Agent", "_tl_exits")
    registry._REGISTRY["_tl_exits"] = registry.Entry(
        "_tl_exits", factory, "test only", origin="entry point"
    )
    with pytest.raises(registry.PlayerSpecError, match=r"called sys\.exit\(7\)"):
        registry.make_agent("_tl_exits")


def test_a_bad_move_time_limit_on_the_command_line_exits_2(tmp_path):
    for argv in (
        ["arena", "-p", "random,random", "-o", str(tmp_path / "a.jsonl")],
        ["eval", "greedy@me", "--panel", "random", "-o", str(tmp_path / "e.jsonl")],
        ["play", "--opponents", "greedy", "-o", str(tmp_path / "p.json")],
    ):
        r = runner.invoke(app, [*argv, "--move-time-limit", "nan"], input="quit\n")
        assert r.exit_code == 2, (argv, r.output)
        assert "--move-time-limit=nan is not allowed; use a finite number of seconds >= 0" in (
            r.output
        )
    assert list(tmp_path.iterdir()) == []


# -- eval ------------------------------------------------------------------------------------


def test_eval_records_a_sleeping_agent_as_error_rows(tmp_path):
    spec = "unruly_agents:Sleeper:after=2"
    out = tmp_path / "eval.jsonl"
    r = runner.invoke(
        app,
        ["eval", spec, "--panel", "greedy", "-n", "2", "-g", "2", "-o", str(out), "-q"]
        + ["--move-time-limit", str(LIMIT), "-f", "json"],
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["games"] == 2 and doc["errors"] == 2
    rows = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    assert [row["error"]["player"] for row in rows] == [spec, spec]
    assert all(OVER in row["error"]["message"] for row in rows)


def test_eval_with_workers_records_a_dead_worker(tmp_path):
    spec = "unruly_agents:Killer"
    result = evaluate(
        spec, panel=["greedy"], num_players=[2], games=2, workers=2, trusted=True,
        move_time_limit=LIMIT,
    )  # fmt: skip
    assert len(result.rows) == 2 and [r["table"] for r in result.rows] == ["vs_greedy"] * 2
    assert all("worker process ended abruptly" in r["error"]["message"] for r in result.rows)


def test_eval_with_one_worker_records_a_dead_agent_process(tmp_path):
    spec = "unruly_agents:Killer:after=1"
    result = evaluate(
        spec, panel=["greedy"], num_players=[2], games=2, trusted=True, move_time_limit=LIMIT,
        out=tmp_path / "e.jsonl",
    )  # fmt: skip
    assert len(result.rows) == 2 and [r["table"] for r in result.rows] == ["vs_greedy"] * 2
    assert all("worker process ended abruptly" in r["error"]["message"] for r in result.rows)


def test_eval_refuses_an_agent_that_cannot_be_built_in_time():
    with pytest.raises(EvalError, match="'unruly_agents:SlowReset' in reset ran over"):
        evaluate(
            "unruly_agents:SlowReset", panel=["greedy"], games=2, trusted=True,
            move_time_limit=0.05,
        )  # fmt: skip


# -- play and the viewer ---------------------------------------------------------------------


def _finish(game, observers=None, until: int | None = None) -> list[str]:
    """Play the person's seat with its first legal action to the end (or to decision
    ``until``); the bots' problems."""
    problems = []
    while game.state.phase != GAME_OVER and len(game.state.history) != until:
        if game.state.cur == game.human_seat:
            human_step(game, legal_actions(game.state)[0], observers)
        else:
            _, problem = bot_step(game, observers)
            if problem is not None:
                problems.append(problem)
    return problems


def test_play_drops_a_sleeping_bot_once_and_the_game_ends(tmp_path):
    spec = "unruly_agents:Sleeper:after=2"
    out = tmp_path / "game.json"
    r = runner.invoke(
        app,
        ["play", "--opponents", spec, "-n", "2", "--seed", "4", "-o", str(out)]
        + ["--move-time-limit", str(LIMIT)],
        input="1\n" * 2000,
    )
    assert r.exit_code == 0, r.output[-2000:]
    said = f"agent '{spec}' in act {OVER}"
    assert r.output.count(said) == 1
    assert "its seat plays the first legal action for the rest of the game" in r.output
    record = json.loads(out.read_text())
    assert record["finished"] and record["seating"][1] == spec


def test_play_tells_sys_exit_apart_and_load_drops_a_sleeper(tmp_path, clean_registry):
    game = new_play(["unruly_agents:Exiter"], seed=5, trusted=True, move_time_limit=LIMIT)
    problems = _finish(game)
    assert problems == [
        "agent 'unruly_agents:Exiter' in act called sys.exit(3); an agent must return, not end "
        "the process; its seat plays the first legal action for the rest of the game"
    ]
    patient = unruly_agents.Sleeper
    registry.register("_tl_sleeper", lambda seed=None: patient(seed, after=10**6), "test only")
    game = new_play(["_tl_sleeper"], seed=6, move_time_limit=LIMIT)  # it never sleeps yet
    _finish(game, until=20)
    assert game.agents[1].agent.moves > 0  # the bot has decided: load_game replays it
    saved = save_game(game, tmp_path / "saved.json")
    registry.register("_tl_sleeper", unruly_agents.Sleeper, "test only")  # now it sleeps
    resumed = load_game(saved, move_time_limit=LIMIT)  # its replayed act is over the limit
    problems = _finish(resumed)
    assert len(problems) == 1 and f"agent '_tl_sleeper' in act {OVER}" in problems[0]
    with pytest.raises(PlayError, match="--move-time-limit=-1 is not allowed"):
        load_game(saved, move_time_limit=-1)


def test_a_live_game_in_the_viewer_goes_on_past_a_sleeping_bot(tmp_path, clean_registry):
    """The viewer's requests run in worker threads: the bot is waited for up to the limit,
    then dropped, and the person's game goes on to its saved end."""
    registry.register("_tl_sleeper", unruly_agents.Sleeper, "test only")
    sessions = LiveSessions(tmp_path, move_time_limit=LIMIT)

    def play_it():
        live = sessions.create({"seats": ["human", "_tl_sleeper"], "seed": 8})
        while not live.over:
            live.act(live.choices()[0]["action"], len(live.game.state.history))
        return live.snapshot()

    snap = _in_thread(play_it)
    assert snap["over"] and snap["record"] is not None and Path(snap["record"]).exists()
    dropped = [p for p in snap["problems"] if OVER in p]
    assert len(dropped) == 1 and "_tl_sleeper" in dropped[0], snap["problems"]
    with pytest.raises(ValueError, match="--move-time-limit"):
        LiveSessions(tmp_path, move_time_limit=float("nan"))
