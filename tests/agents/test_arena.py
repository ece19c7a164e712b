"""Tests of the arena: match runner, schedule, JSONL log, resume, workers, errors, replay."""

from __future__ import annotations

import json
import pickle

import pytest

from agents import arena as ar
from agents import registry
from agents.base import BaseAgent
from lastwill_env.engine import GameConfig, PlayerView, player_view

CFG2 = GameConfig(num_players=2)
CFG3 = GameConfig(num_players=3)


def _game_lines(path):
    """The log's lines without the header's timestamp."""
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head.pop("created")
    return [head] + [json.loads(x) for x in lines[1:]]


# -- the match runner ----------------------------------------------------------------------


def test_play_game_row_fields_and_replay():
    row = ar.play_game(["random", "random", "random"], CFG3, deal_seed=7, agent_seeds=[1, 2, 3])
    assert row["error"] is None
    assert row["seating"] == ["random"] * 3 and row["num_players"] == 3
    assert sorted(row["ranks"]) == [1, 2, 3]
    assert row["ranks"][row["winner"]] == 1 and row["winner_spec"] == "random"
    assert row["decisions"] == len(row["actions"]) > 0
    state = ar.replay_row(row)
    assert state.is_over
    assert state.results["ranks"] == row["ranks"]
    assert state.results["money"] == row["money"]
    assert state.results["property_value"] == row["property_value"]
    assert row == ar.play_game(["random"] * 3, CFG3, 7, [1, 2, 3])  # pure
    json.dumps(row)


def test_play_game_is_picklable_for_workers():
    task = ar.Schedule(("random", "random"), CFG2, seed=3).task(5)
    assert pickle.loads(pickle.dumps(task)) == task
    assert pickle.loads(pickle.dumps(ar.run_task)) is ar.run_task


class _ViewKeeper(BaseAgent):
    name = "keeper"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.kept = []
        self.events = []

    def act(self, view, legal):
        self.kept.append((view, view.round if len(self.kept) % 2 else None))
        return legal[self.rng.randrange(len(legal))]

    def observe(self, event):
        self.events.append(event)


def test_views_kept_by_an_agent_show_their_decision():
    keeper = _ViewKeeper(0)
    registry._load_builtin()
    registry.register("_keeper", lambda seed=None: keeper, "test only")
    try:
        row = ar.play_game(["_keeper", "random"], CFG2, deal_seed=11, agent_seeds=[0, 1])
    finally:
        registry._REGISTRY.pop("_keeper", None)
    assert row["error"] is None
    # Rebuild every decision of seat 0 and compare with the views the agent kept.
    from lastwill_env.engine import apply_action, new_game

    state = new_game(CFG2, 11)
    expected = []
    for a in row["actions"]:
        if state.cur == 0:
            expected.append(player_view(state, 0))
        apply_action(state, a)
    assert len(expected) == len(keeper.kept)
    for (view, _), want in zip(keeper.kept, expected, strict=True):
        assert isinstance(view, PlayerView)
        assert view == want
    assert pickle.loads(pickle.dumps(keeper.kept[0][0])) == expected[0]
    # observe: every action of the other seat, then the end of the game
    others = sum(1 for _ in keeper.events if _["type"] == "action")
    assert others == len(row["actions"]) - len(expected)
    assert keeper.events[-1]["type"] == "game_over"
    assert keeper.events[-1]["results"]["ranks"][0] == row["ranks"][0]


# -- error rows ----------------------------------------------------------------------------


class _Crasher(BaseAgent):
    name = "crasher"

    def act(self, view, legal):
        if view.round >= 2:
            raise RuntimeError("boom")
        return legal[0]


class _Cheater(BaseAgent):
    name = "cheater"

    def act(self, view, legal):
        return 10**6  # never a legal action


@pytest.fixture
def test_bots():
    registry._load_builtin()
    registry.register("_crasher", lambda seed=None: _Crasher(seed), "test only: crashes")
    registry.register("_cheater", lambda seed=None: _Cheater(seed), "test only: illegal")
    yield
    registry._REGISTRY.pop("_crasher", None)
    registry._REGISTRY.pop("_cheater", None)


def test_error_rows_and_the_tournament_goes_on(tmp_path, test_bots):
    out = tmp_path / "err.jsonl"
    res = ar.run_tournament(["_crasher", "random", "_cheater"], CFG3, 6, seed=1, out=out)
    assert len(res.rows) == 6
    for row in res.rows:
        err = row["error"]
        assert err is not None and row["ranks"] is None and row["winner"] is None
        assert err["player"] == row["seating"][err["seat"]]
        if err["player"] == "_cheater":
            assert "illegal action 1000000" in err["message"]
        else:
            assert err["player"] == "_crasher"
            assert "RuntimeError: boom" in err["message"]
        ar.replay_row(row)  # the actions before the failure replay
    assert res.errors == 6
    res2 = ar.run_tournament(["random", "random"], CFG2, 2, seed=1, out=tmp_path / "ok.jsonl")
    assert res2.errors == 0


def test_unknown_spec_in_a_worker_is_an_error_row():
    row = ar.play_game(["random", "nosuchbot"], CFG2, 1, [1, 2])
    assert row["error"]["seat"] == 1 and "unknown player" in row["error"]["message"]


# -- the schedule --------------------------------------------------------------------------


def test_schedule_rotations_permutations_and_paired_deals():
    s = ar.Schedule(("a", "b", "c"), CFG3, seed=5)
    assert s.seatings == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert len(ar.Schedule(("a", "b", "c"), CFG3, 5, all_seatings=True).seatings) == 6
    assert ar.Schedule(("a", "a", "b"), CFG3, 5, all_seatings=True).seatings == [
        ("a", "a", "b"),
        ("a", "b", "a"),
        ("b", "a", "a"),
    ]
    assert ar.Schedule(("r", "r"), CFG2).seatings == [("r", "r")]
    assert s.num_games(10) == 12 and s.num_games(12) == 12 and s.num_games(1) == 3
    tasks = s.tasks(7)
    assert len(tasks) == 9
    for d in range(3):
        deal = tasks[3 * d : 3 * d + 3]
        assert len({t.deal_seed for t in deal}) == 1  # every seating replays the same deal
        assert [t.seating for t in deal] == s.seatings
    assert len({t.deal_seed for t in tasks}) == 3
    with pytest.raises(ar.ArenaError, match="exactly 3 player specs"):
        ar.Schedule(("a", "b"), CFG3)


# -- the log: determinism, resume, workers --------------------------------------------------


def test_same_seed_gives_identical_log(tmp_path):
    a = ar.run_tournament(["random"] * 3, CFG3, 6, seed=9, out=tmp_path / "a.jsonl")
    b = ar.run_tournament(["random"] * 3, CFG3, 6, seed=9, out=tmp_path / "b.jsonl")
    assert _game_lines(a.out) == _game_lines(b.out)
    c = ar.run_tournament(["random"] * 3, CFG3, 6, seed=10, out=tmp_path / "c.jsonl")
    assert _game_lines(a.out)[1:] != _game_lines(c.out)[1:]


def test_existing_log_is_never_overwritten(tmp_path):
    out = tmp_path / "x.jsonl"
    ar.run_tournament(["random", "random"], CFG2, 2, out=out)
    before = out.read_bytes()
    with pytest.raises(ar.ArenaError, match="--resume"):
        ar.run_tournament(["random", "random"], CFG2, 2, out=out)
    with pytest.raises(ar.ArenaError, match="different tournament"):
        ar.run_tournament(["random", "random"], CFG2, 2, seed=1, out=out, resume=True)
    with pytest.raises(ar.ArenaError, match="different tournament"):
        ar.run_tournament(["random"] * 3, CFG3, 3, out=out, resume=True)
    assert out.read_bytes() == before


def test_interrupted_and_resumed_equals_uninterrupted(tmp_path):
    entrants = ["random", "random", "random"]
    full = ar.run_tournament(entrants, CFG3, 8, seed=4, out=tmp_path / "full.jsonl")
    assert full.total == 8  # three identical entrants: one distinct seating
    lines = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])  # header+3 rows+torn
    res = ar.run_tournament(entrants, CFG3, 8, seed=4, out=cut, resume=True)
    assert res.resumed == 3 and res.played == full.total - 3
    assert _game_lines(cut) == _game_lines(tmp_path / "full.jsonl")
    again = ar.run_tournament(entrants, CFG3, 8, seed=4, out=cut, resume=True)
    assert again.played == 0 and len(again.rows) == full.total
    more = ar.run_tournament(entrants, CFG3, 12, seed=4, out=cut, resume=True)  # extend
    assert more.played == 4 and [r["game"] for r in more.rows] == list(range(12))


def test_read_log_rejects_corruption_in_the_middle(tmp_path):
    out = tmp_path / "x.jsonl"
    ar.run_tournament(["random", "random"], CFG2, 4, out=out)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text(lines[0] + "{not json\n" + "".join(lines[2:]))
    with pytest.raises(ar.ArenaError, match="line 2"):
        ar.run_tournament(["random", "random"], CFG2, 4, out=out, resume=True)


def test_workers_give_the_same_rows(tmp_path):
    entrants = ["random", "greedy"] if "greedy" in registry.names() else ["random", "random"]
    one = ar.run_tournament(entrants, CFG2, 12, seed=2, out=tmp_path / "w1.jsonl")
    two = ar.run_tournament(entrants, CFG2, 12, seed=2, out=tmp_path / "w2.jsonl", workers=2)
    assert sorted(one.rows, key=lambda r: r["game"]) == sorted(two.rows, key=lambda r: r["game"])
    assert _game_lines(one.out) == _game_lines(two.out)  # written in game order either way


def test_ray_missing_is_a_clear_error(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ar.ArenaError, match=r"pip install -e '\.\[ray\]'"):
        ar.run_tournament(["random", "random"], CFG2, 2, out=tmp_path / "r.jsonl", use_ray=True)


def test_observers_never_learn_which_starting_cards_another_seat_keeps():
    """docs/RULES.md §10: another player's hand is hidden, so its keep decisions are too."""
    from lastwill_env.engine.actions import KEEP

    keeper = _ViewKeeper(0)
    registry._load_builtin()
    registry.register("_keeper", lambda seed=None: keeper, "test only")
    try:
        row = ar.play_game(["_keeper", "random", "random"], GameConfig(num_players=3), 5)
    finally:
        registry._REGISTRY.pop("_keeper", None)
    assert row["error"] is None
    seen = [e["action"] for e in keeper.events if e["type"] == "action"]
    keeps = set(KEEP.values())
    assert seen.count(None) == 4  # two other seats keep two cards each
    assert not keeps & {a for a in seen if a is not None}


def test_in_memory_tournament_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = ar.run_tournament(["greedy", "random"], CFG2, 4, seed=3)
    assert res.out is None and len(res.rows) == 4
    assert list(tmp_path.iterdir()) == []
    logged = ar.run_tournament(["greedy", "random"], CFG2, 4, seed=3, out=tmp_path / "l.jsonl")
    assert [r["actions"] for r in logged.rows] == [r["actions"] for r in res.rows]
    with pytest.raises(ar.ArenaError, match="resume needs the log"):
        ar.run_tournament(["greedy", "random"], CFG2, 4, resume=True)
