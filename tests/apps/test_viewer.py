"""`lastwill view`: the viewer's data (apps.viewer.core), live games and the server's
endpoints (Starlette TestClient), the policy's probabilities and value, and the CLI."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner
from viewer_util import EXAMPLE_LOG, REPO, make_checkpoint, make_policy_log

from agents import registry
from agents.arena import read_log, replay_row
from agents.base import BaseAgent
from agents.policy import NumpyPolicy, load_policy, without_prior
from apps.cli import app as cli_app
from apps.play import load_game
from apps.replay import load_record
from apps.viewer import STATIC_DIR, limits
from apps.viewer.core import GameReplay, LogSource, ViewError, read_records
from apps.viewer.guard import TOKEN_HEADER
from apps.viewer.server import create_app, default_opponents
from lastwill_env.encoding import encode_observation
from lastwill_env.engine import (
    GAME_OVER,
    GameConfig,
    decode,
    describe_action,
    legal_actions,
    new_game,
    player_view,
    replay,
)
from lastwill_env.engine.text import describe_step

runner = CliRunner()


@pytest.fixture(scope="module")
def policy_log(tmp_path_factory) -> tuple[Path, Path]:
    return make_policy_log(tmp_path_factory.mktemp("viewer"))


def _client(app, **kw) -> TestClient:
    """A test client that sends the app's session token with every request."""
    return TestClient(app, headers={TOKEN_HEADER: app.state.token}, **kw)


@pytest.fixture()
def client(tmp_path) -> TestClient:
    """The shipped log opened; ``tmp_path`` served as a folder; saves in ``tmp_path/saves``."""
    app = create_app(
        [EXAMPLE_LOG, tmp_path], save_dir=tmp_path / "saves", allowed_hosts=["testserver"]
    )
    return _client(app)


def _rows(path: Path) -> list[dict]:
    return read_log(path)[1]


# ---------------------------------------------------------------------------------------------
# The shipped log and the table picture


def test_shipped_example_log_replays_in_this_engine() -> None:
    """Every game of the shipped log rebuilds to its recorded result (regenerate it with the
    command in apps/viewer/examples/README.md when the rules change)."""
    header, rows = read_records(EXAMPLE_LOG)
    assert header is not None and len(rows) == 8
    for row in rows:
        rep = GameReplay.build(row)
        assert rep.states[-1].results["money"] == row["money"]
        assert rep.states[-1].results["winner"] == row["winner"]


def test_frame_money_and_hands_follow_the_engine() -> None:
    row = _rows(EXAMPLE_LOG)[1]
    cfg = GameConfig.from_dict(row["config"])
    rep = GameReplay.build(row)
    assert rep.total == len(row["actions"])
    for k in range(0, rep.total + 1, 7):
        state = replay(cfg, row["deal_seed"], row["actions"][:k])
        table = rep.frame(k, None)
        assert [s["money"] for s in table["seats"]] == state.money
        assert [s["hand"] for s in table["seats"]] == [sorted(h) for h in state.hands]
        assert table["round"] == state.round and table["k"] == k
        for seat in range(cfg.num_players):
            fr = rep.frame(k, seat)
            view = player_view(state, seat)
            assert [s["money"] for s in fr["seats"]] == state.money
            assert fr["seats"][seat]["hand"] == list(view.hand)
            # docs/RULES.md §10: no other hand, only its size and the offer cards seen going in
            for s in fr["seats"]:
                if s["seat"] != seat:
                    assert s["hand"] is None
                assert s["hand_size"] == len(state.hands[s["seat"]])
                rel = (s["seat"] - seat) % cfg.num_players
                assert s["known"] == list(view.known_hands[rel])
                assert set(s["known"]) <= set(state.hands[s["seat"]])
            boards = [[b["card"] for b in s["board"]] for s in fr["seats"]]
            assert boards == state.boards
    final = rep.frame(rep.total, None)
    assert final["over"] and final["next"] is None
    assert final["results"]["money"] == row["money"]


def test_decisions_are_named_as_each_view_saw_them() -> None:
    row = _rows(EXAMPLE_LOG)[0]
    rep = GameReplay.build(row)
    omni = rep.detail(None)
    for d, a, seat in zip(omni["decisions"], row["actions"], rep.seats, strict=True):
        assert d["name"] == describe_action(a) and d["action"] == a and d["seat"] == seat
    seen = rep.detail(2)
    hidden = 0
    for d, a, seat in zip(seen["decisions"], row["actions"], rep.seats, strict=True):
        assert d["name"] == describe_step(a, seat, 2)
        if decode(a)[0] == "keep" and seat != 2:
            hidden += 1
            assert d["action"] is None and "hidden" in d["name"]
    assert hidden == 6  # three other seats keep two starting cards each
    # money over the decisions, one point per state
    cfg = GameConfig.from_dict(row["config"])
    for k in (0, 50, rep.total):
        state = replay(cfg, row["deal_seed"], row["actions"][:k])
        assert [m[k] for m in omni["money"]] == state.money
    starts = omni["round_starts"]
    assert starts["1"] == 0 and list(starts) == [str(r) for r in range(1, row["rounds"] + 1)]


def test_game_list_filters_by_entrant_and_winner() -> None:
    header, rows = read_records(EXAMPLE_LOG)
    src = LogSource("1", EXAMPLE_LOG, 0.0, header, rows)
    assert len(src.games()["games"]) == 8
    for entrant in src.entrants:
        got = [g["game"] for g in src.games(entrant=entrant)["games"]]
        assert got == [r["game"] for r in rows if entrant in r["seating"]]
        won = [g["game"] for g in src.games(winner=entrant)["games"]]
        assert won == [r["game"] for r in rows if r["winner_spec"] == entrant]
    with pytest.raises(ViewError) as e:
        src.games(entrant="nobody")
    assert e.value.status == 400 and "greedy" in e.value.allowed


# ---------------------------------------------------------------------------------------------
# The policy's view of a decision


def test_numpy_policy_critic_round_trip_and_evaluate(tmp_path) -> None:
    path = make_checkpoint(tmp_path)
    pol = NumpyPolicy.load_npz(path)
    assert pol.has_value
    obs = np.random.default_rng(1).uniform(-1, 1, pol.weights[0].shape[1]).astype(np.float32)
    vw, vb = pol.value_weights, pol.value_biases
    want_v = float((vw[1] @ np.tanh(vw[0] @ obs + vb[0]) + vb[1])[0])
    legal = [0, 3, 17, 40]
    probs, value = pol.evaluate(obs, legal)
    assert value == pytest.approx(want_v, rel=1e-5)
    z = pol.logits(obs)[legal].astype(np.float64)
    p = np.exp(z - z.max())
    assert np.allclose(probs, p / p.sum()) and probs.sum() == pytest.approx(1.0)
    # the state shipped to workers keeps the critic
    assert NumpyPolicy.from_state(pol.state()).value(obs) == pytest.approx(value)
    # a checkpoint without the critic still plays; it has no value
    old = NumpyPolicy.load_npz(make_checkpoint(tmp_path, critic=False))
    assert not old.has_value and old.value(obs) is None
    assert old.evaluate(obs, legal)[1] is None


def test_analysis_gives_the_policys_probabilities_and_value(policy_log) -> None:
    log, ckpt = policy_log
    pol, _ = load_policy(ckpt)
    checked = 0
    for row in _rows(log):
        rep = GameReplay.build(row)
        seat = row["seating"].index(f"ppo:{ckpt}")
        for k in [k for k, s in enumerate(rep.seats) if s == seat][::9]:
            a = _analyse(rep, k, log.parent)
            state = rep.states[k]
            legal = legal_actions(state)
            probs, value = pol.evaluate(encode_observation(player_view(state, seat)), legal)
            assert a["value"] == pytest.approx(value)
            assert a["legal"] == len(legal) and a["seat"] == seat
            got = [t["prob"] for t in a["top"]]
            assert got == sorted(got, reverse=True)
            assert got[0] == pytest.approx(float(probs.max()))
            # the recorded action is the policy's arg-max (ppo:PATH plays deterministically)
            assert a["chosen"]["action"] == row["actions"][k] == a["argmax"]
            assert a["chosen"]["rank"] == 1 and a["top"][0]["chosen"]
            assert a["step"] == 1234 and a["value_note"] is None
            checked += 1
    assert checked >= 10


def test_a_seat_playing_the_network_alone_is_shown_without_its_prior() -> None:
    """A `ppo:PATH:net` seat played its network without the prior bot: the viewer reads its
    thoughts the same way, and a spec with repeated options is refused."""
    from apps.viewer.core import load_seat_policy

    alone, _, ckpt, mode = load_seat_policy("ppo:reference:net:sample", None)
    full, *_ = load_seat_policy("ppo:reference", None)
    assert (alone.prior, alone.prior_weight, mode) == ("", 0.0, "sample")
    assert full.prior == "sprinter" and ckpt.name == "reference.npz"
    with pytest.raises(ViewError, match="options repeat"):
        load_seat_policy("ppo:reference:net:net", None)


def _analyse(rep: GameReplay, k: int, log_dir: Path) -> dict:
    from apps.viewer.core import analyse

    return analyse(rep, k, None, top=5, log_dir=log_dir)


def test_analysis_refuses_what_it_cannot_or_may_not_show(policy_log, tmp_path) -> None:
    from apps.viewer.core import analyse

    log, ckpt = policy_log
    row = _rows(log)[0]
    rep = GameReplay.build(row)
    seat = row["seating"].index(f"ppo:{ckpt}")
    mine = next(k for k, s in enumerate(rep.seats) if s == seat)
    other = next(k for k, s in enumerate(rep.seats) if s != seat)
    with pytest.raises(ViewError, match="not by a ppo:PATH policy") as e:
        analyse(rep, other, None)
    assert e.value.allowed == [seat]
    with pytest.raises(ViewError, match="hidden") as e:  # another seat's view: its hand
        analyse(rep, mine, (seat + 1) % 3)
    assert e.value.status == 403
    assert analyse(rep, mine, seat, log_dir=log.parent)["seat"] == seat
    with pytest.raises(ViewError, match="after the last"):
        analyse(rep, rep.total, None)
    with pytest.raises(ViewError, match="top"):
        analyse(rep, mine, None, top=0)
    # a checkpoint without a critic: probabilities, and a note instead of the value
    actor = make_checkpoint(tmp_path, critic=False)
    row2 = dict(
        row, seating=[f"ppo:{actor}" if s.startswith("ppo:") else s for s in row["seating"]]
    )
    a = analyse(GameReplay.build(row2), mine, None, log_dir=tmp_path)
    assert a["value"] is None and "no critic" in a["value_note"] and a["top"]


# ---------------------------------------------------------------------------------------------
# Endpoints


def test_endpoints_serve_the_log_games_frames_and_catalogue(client) -> None:
    meta = client.get("/api/meta").json()
    assert meta["first_log"] == "1" and meta["logs"][0]["games"] == 8
    assert any(p["name"] == "greedy" for p in meta["players"])
    cat = client.get("/api/catalogue").json()
    assert len(cat["cards"]) == 140 and cat["cards"][72]["name"] == "Farm_3"
    games = client.get("/api/logs/1/games", params={"entrant": "greedy"}).json()["games"]
    assert len(games) == 8 and games[0]["money"] == _rows(EXAMPLE_LOG)[0]["money"]
    row = _rows(EXAMPLE_LOG)[3]
    g = client.get("/api/logs/1/games/3", params={"seat": "all"}).json()
    assert g["total"] == len(row["actions"]) and g["seats"][0]["spec"] == row["seating"][0]
    assert [s["policy"] for s in g["seats"]] == [s.startswith("ppo:") for s in row["seating"]]
    fr = client.get("/api/logs/1/games/3/frames/120", params={"seat": "1"}).json()
    state = replay(GameConfig.from_dict(row["config"]), row["deal_seed"], row["actions"][:120])
    assert [s["money"] for s in fr["seats"]] == state.money
    assert fr["seats"][1]["hand"] == sorted(state.hands[1])
    assert fr["seats"][0]["hand"] is None
    assert fr["next"]["name"] == describe_step(row["actions"][120], fr["next"]["seat"], 1)
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js"' in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200


def test_meta_lists_the_players_a_seat_may_take(client) -> None:
    """The Play tab's list of players: the person, every bot, the shipped policies and the
    search players with their default budgets, each a spec a live game accepts."""
    choices = client.get("/api/meta").json()["seat_choices"]
    specs = [c["spec"] for c in choices]
    assert specs[0] == "human" and len(specs) == len(set(specs))
    bots = {"random", "greedy", "speculator", "planner", "combiner", "racer", "sprinter"}
    assert bots | {"mc", "mcts:policy=reference", "ppo:reference", "ppo:ref_v1"} <= set(specs)
    assert set(default_opponents()) <= set(specs)
    assert {c["group"] for c in choices} == {"you", "bots", "policies", "search"}
    assert all(c["label"] for c in choices)
    for spec in specs[1:]:
        r = _human_first(client, spec)
        assert r.status_code == 200 and r.json()["seats"][1]["spec"] == spec, r.json()


def test_policy_analysis_endpoint(tmp_path, policy_log) -> None:
    log, ckpt = policy_log
    c = _client(create_app(log, save_dir=tmp_path, allowed_hosts=["testserver"]))
    row = _rows(log)[0]
    seat = row["seating"].index(f"ppo:{ckpt}")
    rep = GameReplay.build(row)
    k = [k for k, s in enumerate(rep.seats) if s == seat][5]
    a = c.get(f"/api/logs/1/games/0/analysis/{k}", params={"seat": "all", "top": "3"}).json()
    assert len(a["top"]) == min(3, a["legal"]) and isinstance(a["value"], float)
    # no prior bot: the played distribution is the network's own, given once
    assert a["prior"] is None and a["net_argmax"] is None
    assert all(t["net_prob"] is None and not t["prior_pick"] for t in a["top"])
    r = c.get(f"/api/logs/1/games/0/analysis/{k}", params={"seat": str((seat + 1) % 3)})
    assert r.status_code == 403 and r.json()["allowed"] == ["all", str(seat)]


def test_policy_analysis_shows_the_networks_own_distribution(client) -> None:
    """The reference plays over the sprinter's bonus, which saturates its distribution: beside
    each move's played probability the answer gives the network's own (without the bonus,
    what `ppo:PATH:net` plays), and which move the prior bot picked."""
    from apps.viewer.core import load_seat_policy

    row = _rows(EXAMPLE_LOG)[0]
    seat = next(s for s, spec in enumerate(row["seating"]) if spec.startswith("ppo:"))
    played, *_ = load_seat_policy(row["seating"][seat], EXAMPLE_LOG.parent)
    net = without_prior(played)
    rep = GameReplay.build(row)
    mine = [
        k for k, s in enumerate(rep.seats) if s == seat and len(legal_actions(rep.states[k])) > 2
    ]
    for k in mine[:6]:
        url = f"/api/logs/1/games/0/analysis/{k}"
        a = client.get(url, params={"seat": "all", "top": "50"}).json()
        state = rep.states[k]
        view, legal = player_view(state, seat), legal_actions(state)
        want, _ = net.evaluate(encode_observation(view), legal)
        pick = played.prior_choice(view, legal)
        assert a["prior"]["bot"] == "sprinter" and a["prior"]["weight"] == played.prior_weight
        assert a["prior"]["action"] == pick and a["prior"]["name"]
        assert len(a["top"]) == len(legal)
        for item in a["top"]:
            assert item["net_prob"] == pytest.approx(want[legal.index(item["action"])], abs=1e-6)
            assert item["prior_pick"] == (item["action"] == pick)
        assert sum(t["net_prob"] for t in a["top"]) == pytest.approx(1.0)
        assert a["net_argmax"] == legal[int(np.argmax(want))]
        lifted = next(t for t in a["top"] if t["prior_pick"])
        assert lifted["prob"] > lifted["net_prob"]  # the bonus, not the network, puts it there
        assert a["chosen"]["net_prob"] == pytest.approx(want[legal.index(row["actions"][k])])


@pytest.mark.parametrize(
    ("url", "status", "needle"),
    [
        ("/api/logs/1/games/0", 400, "seat=all"),
        ("/api/logs/1/games/0?seat=9", 400, "not a view"),
        ("/api/logs/1/games/0?seat=all&x=1", 400, "unknown query parameter"),
        ("/api/logs/1/games/0/frames/99999?seat=all", 400, "not in this game"),
        ("/api/logs/1/games/0/frames/abc?seat=all", 400, "must be an integer"),
        ("/api/logs/1/games/77?seat=all", 404, "no game 77"),
        ("/api/logs/9/games", 404, "no open log"),
        ("/api/logs/1/games?entrant=nobody", 400, "not an entrant"),
        ("/api/nothing", 404, "no such endpoint"),
        ("/api/logs/1/games/0/analysis/0?seat=all", 400, "not by a ppo:PATH"),
    ],
)
def test_bad_requests_get_a_clear_json_error(client, url, status, needle) -> None:
    r = client.get(url)
    assert r.status_code == status
    body = r.json()
    assert needle in body["error"], body


def test_requests_from_other_hosts_and_cross_site_posts_are_refused(tmp_path) -> None:
    c = _client(create_app(EXAMPLE_LOG, save_dir=tmp_path))  # loopback names only
    assert c.get("/api/meta").status_code == 400  # Host: testserver
    ok = c.get("/api/meta", headers={"host": "127.0.0.1:8765"})
    assert ok.status_code == 200
    r = c.post(
        "/api/live",
        content='{"seats": ["human", "greedy"]}',
        headers={"host": "127.0.0.1", "content-type": "text/plain"},
    )
    assert r.status_code == 415 and r.json()["allowed"] == ["application/json"]
    r = c.delete("/api/live", headers={"host": "127.0.0.1"})
    assert r.status_code == 405 and r.json()["allowed"] == ["POST"]


def test_opening_logs(tmp_path, policy_log) -> None:
    served = policy_log[0].parent
    client = _client(
        create_app([EXAMPLE_LOG, served], save_dir=tmp_path, allowed_hosts=["testserver"])
    )
    bad = served / "bad.jsonl"
    bad.write_text('{"a": 1}\nnot json\n{"b": 2}\n')
    r = client.post("/api/logs", json={"path": str(bad)})
    assert r.status_code == 400 and "line 2" in r.json()["error"]
    assert client.post("/api/logs", json={"file": "x"}).status_code == 400
    info = client.post("/api/logs", json={"path": str(policy_log[0])}).json()
    assert info["id"] == "2" and info["games"] == 3
    again = client.post("/api/logs", json={"path": policy_log[0].name}).json()  # by its name
    assert again["id"] == "2"
    assert len(client.get("/api/logs").json()["logs"]) == 2
    listed = {f["path"] for f in client.get("/api/files").json()["files"]}
    assert {str(policy_log[0].resolve()), str(EXAMPLE_LOG.resolve())} <= listed


def test_a_log_with_an_error_row_or_a_foreign_action_is_reported(tmp_path) -> None:
    rows = _rows(EXAMPLE_LOG)
    broken = dict(rows[0], game=0, actions=rows[0]["actions"][:30] + [0] * 5)
    err = dict(rows[1], game=1, error={"seat": 1, "player": "greedy", "message": "boom"})
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (broken, err)))
    c = _client(create_app(path, save_dir=tmp_path, allowed_hosts=["testserver"]))
    games = c.get("/api/logs/1/games").json()["games"]
    assert games[1]["error"]["message"] == "boom"
    r = c.get("/api/logs/1/games/1", params={"seat": "all"})
    assert r.status_code == 422 and "error row" in r.json()["error"]
    r = c.get("/api/logs/1/games/0", params={"seat": "all"})
    assert r.status_code == 422 and "not legal here" in r.json()["error"]


# ---------------------------------------------------------------------------------------------
# Live play


def _new(client, **body):
    return client.post("/api/live", json={"seats": ["greedy", "human", "planner"], **body})


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"seats": ["greedy", "planner"]}, "exactly one 'human'"),
        ({"seats": ["human", "human"]}, "exactly one 'human'"),
        ({"seats": ["human"]}, "2, 3, 4 or 5"),
        ({"seats": ["human"] + ["greedy"] * 5}, "2, 3, 4 or 5"),
        ({"seats": ["human", "nobot"]}, "unknown player 'nobot'"),
        ({"seats": ["human", "greedy"], "seed": -1}, "'seed'"),
        ({"seats": ["human", "greedy"], "starting_money": 12}, "starting_money"),
        ({"seats": ["human", "greedy"], "colour": "red"}, "unknown field"),
        ({"seats": ["human", "ppo:missing.npz"]}, "does not exist"),
        (
            {"seats": ["human", "greedy:eps=" + "9" * 400]},
            "eps=99999999999999999999...99999999 (400 digits) is not allowed",
        ),
        (
            {"seats": ["human", "mcts:policy=reference:sims=" + "9" * 400]},
            "sims=99999999999999999999...99999999 (400 digits) is not allowed",
        ),
        ({"seats": ["human", "ppo:reference:net:net"]}, "options repeat"),
    ],
)
def test_bad_live_setups_are_refused(client, body, needle) -> None:
    r = client.post("/api/live", json=body)
    assert r.status_code == 400 and needle in r.json()["error"], r.json()


def test_live_game_refuses_illegal_and_stale_moves_and_changes_nothing(client) -> None:
    snap = _new(client, seed=11).json()
    assert snap["your_turn"] and snap["human_seat"] == 1
    gid, k = snap["id"], snap["decision"]
    legal = [c["action"] for c in snap["choices"]]
    assert legal
    # every decision before the human's is a bot's; the human's hand only
    assert all(d["seat"] != 1 for d in snap["decisions"])
    assert snap["frame"]["seats"][0]["hand"] is None and snap["frame"]["seats"][1]["hand"]
    illegal = next(a for a in range(600) if a not in legal)
    for body, status, needle in [
        ({"action": illegal, "decision": k}, 400, "not legal now"),
        ({"action": "x", "decision": k}, 400, "not legal now"),
        ({"action": legal[0], "decision": k - 1}, 409, f"at decision {k}"),
        ({"action": legal[0], "decision": "now"}, 400, "'decision'"),
        ({"action": legal[0]}, 400, "send"),
    ]:
        r = client.post(f"/api/live/{gid}/act", json=body)
        assert r.status_code == status and needle in r.json()["error"], r.json()
    r = client.post(f"/api/live/{gid}/act", json={"action": illegal, "decision": k})
    assert [c["action"] for c in r.json()["allowed"]] == legal
    after = client.get(f"/api/live/{gid}").json()
    assert after["decision"] == k and after["frame"] == snap["frame"]
    ok = client.post(f"/api/live/{gid}/act", json={"action": legal[0], "decision": k}).json()
    assert ok["decision"] > k and ok["decisions"][k]["seat"] == 1
    assert client.get("/api/live/nope").status_code == 404


def test_live_game_to_the_end_is_saved_as_a_play_record(client, tmp_path) -> None:
    snap = _new(client, seed=3).json()
    gid = snap["id"]
    mid_path = None
    while not snap["over"]:
        if snap["decision"] > 40 and mid_path is None:
            saved = client.post(f"/api/live/{gid}/save", json={"name": "mid"}).json()
            mid_path = Path(saved["path"])
            assert mid_path.name == "mid.json" and saved["log"]["kind"] == "game file"
            mid_decisions = snap["decision"]
        choice = snap["choices"][-1]["action"]
        snap = client.post(
            f"/api/live/{gid}/act", json={"action": choice, "decision": snap["decision"]}
        ).json()
    assert snap["choices"] == [] and snap["frame"]["over"]
    record_path = Path(snap["record"])
    assert record_path.parent == tmp_path / "saves"
    record = json.loads(record_path.read_text())
    assert record["type"] == "play" and record["finished"] and record["human_seat"] == 1
    state = replay_row(record)
    assert state.results["money"] == snap["frame"]["results"]["money"] == record["money"]
    assert [m[-1] for m in snap["money"]] == state.money
    assert load_record(record_path)["actions"] == record["actions"]
    # the live game refuses further moves; the record opens as a replay
    r = client.post(f"/api/live/{gid}/act", json={"action": 0, "decision": snap["decision"]})
    assert r.status_code == 409 and "over" in r.json()["error"]
    info = client.post("/api/logs", json={"path": str(record_path)}).json()
    g = client.get(f"/api/logs/{info['id']}/games/0", params={"seat": "1"}).json()
    assert g["finished"] and g["total"] == len(record["actions"])
    # the mid-game save resumes, in `lastwill play --load` and here
    game = load_game(mid_path)
    assert len(game.state.history) == mid_decisions
    src = client.post("/api/logs", json={"path": str(mid_path)}).json()
    resumed = client.post("/api/live", json={"resume": {"log": src["id"], "game": 0}}).json()
    assert resumed["decision"] == mid_decisions and resumed["your_turn"]
    r = client.post("/api/live", json={"resume": {"log": "1", "game": 0}})
    assert r.status_code == 400 and "arena log" in r.json()["error"]


def test_saving_never_overwrites_a_file(client, tmp_path) -> None:
    gid = _new(client, seed=4).json()["id"]
    target = tmp_path / "saves" / "keep.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("precious")
    r = client.post(f"/api/live/{gid}/save", json={"name": "keep.json"})
    assert r.status_code == 409 and "refusing to overwrite" in r.json()["error"]
    assert target.read_text() == "precious"
    for name in ("../escape.json", "a/b.json", "/tmp/x.json", ".hidden", 5):
        r = client.post(f"/api/live/{gid}/save", json={"name": name})
        assert r.status_code == 400 and "not allowed" in r.json()["error"], name
    assert not (tmp_path / "escape.json").exists()
    first = client.post(f"/api/live/{gid}/save", json={}).json()["path"]
    second = client.post(f"/api/live/{gid}/save", json={}).json()["path"]
    assert first != second and Path(first).exists() and Path(second).exists()


def test_a_finished_game_that_cannot_be_written_says_so(tmp_path) -> None:
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("x")
    c = _client(create_app(None, save_dir=blocker, allowed_hosts=["testserver"]))
    snap = c.post("/api/live", json={"seats": ["human", "greedy"], "seed": 8}).json()
    while not snap["over"]:
        body = {"action": snap["choices"][0]["action"], "decision": snap["decision"]}
        snap = c.post(f"/api/live/{snap['id']}/act", json=body).json()
    assert snap["record"] is None and "not saved" in snap["problems"][-1]
    r = c.post(f"/api/live/{snap['id']}/save", json={"name": "x.json"})
    assert r.status_code == 500 and "cannot write" in r.json()["error"]
    assert blocker.read_text() == "x"


# ---------------------------------------------------------------------------------------------
# Search budgets, and bots that think outside the game's lock


def _human_first(client, spec: str):
    """A 2-player game of the person and ``spec`` on a deal where the person acts first (seed
    0), so a game that is wrongly accepted answers at once instead of letting ``spec``
    think."""
    assert new_game(GameConfig(num_players=2), 0).cur == 0
    return client.post("/api/live", json={"seats": ["human", spec], "seed": 0})


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("mcts:policy=reference:ms=600000", "ms=600000"),
        ("mcts:policy=reference:sims=100000", "sims=100000"),
        ("mcts:policy=reference:sims=64:ms=9999", "ms=9999"),
        ("mc:rollouts=5000", "rollouts=5000"),
        ("mc:samples=5000", "rollouts=5000"),  # samples is another name of rollouts
        ("mc:cands=500", "cands=500"),
    ],
)
def test_search_budgets_over_the_viewers_limit_are_refused(client, spec, needle) -> None:
    r = _human_first(client, spec)
    body = r.json()
    assert r.status_code == 400, body
    assert needle in body["error"] and "at most" in body["error"], body
    assert body["allowed"] == limits.SEARCH_BUDGETS
    assert client.app.state.sessions._games == {}  # nothing was created


@pytest.mark.parametrize(
    "spec",
    ["mcts:policy=reference:sims=32", "mcts:policy=reference:ms=50", "mc:rollouts=2:cands=3"],
)
def test_search_budgets_within_the_limit_are_played(client, spec) -> None:
    snap = _human_first(client, spec).json()
    assert snap["your_turn"] and snap["seats"][1]["spec"] == spec
    legal = snap["choices"][0]["action"]
    after = client.post(f"/api/live/{snap['id']}/act", json={"action": legal, "decision": 0})
    assert after.status_code == 200 and after.json()["decision"] > 0


def test_a_saved_game_whose_seat_searches_too_long_is_not_resumed(client, tmp_path) -> None:
    gid = _human_first(client, "greedy").json()["id"]
    path = Path(client.post(f"/api/live/{gid}/save", json={"name": "slow"}).json()["path"])
    record = json.loads(path.read_text())
    record["seating"][1] = "mcts:policy=reference:ms=600000"
    path.write_text(json.dumps(record))
    log = client.post("/api/logs", json={"path": str(path)}).json()
    r = client.post("/api/live", json={"resume": {"log": log["id"], "game": 0}})
    assert r.status_code == 400 and "ms=600000" in r.json()["error"], r.json()


class _Gated(BaseAgent):
    """A test bot that thinks until its gate opens (``GATE``), saying when it starts."""

    needs_view = False
    GATE = threading.Event()
    THINKING = threading.Event()

    def act(self, view, legal):
        _Gated.THINKING.set()
        assert _Gated.GATE.wait(60), "the gate never opened"
        return legal[0]


def _bot_moves_next(live, action: int) -> bool:
    g = live.game
    after = replay(g.config, g.deal_seed, [*g.state.history, action])
    return after.phase != GAME_OVER and after.cur != g.human_seat


def test_a_game_is_answered_while_its_bot_thinks(tmp_path, monkeypatch) -> None:
    """The bots' moves are computed outside the game's lock: while one thinks, the same game
    is shown, saved and refuses a move with a clear answer; then its move is applied."""
    registry.entries()  # the built-ins loaded first, into the registry kept after the test
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("_gated", _Gated, "test only: thinks until its gate opens")
    _Gated.GATE.set()
    app = create_app(None, save_dir=tmp_path, allowed_hosts=["testserver"], move_time_limit=0)
    c = _client(app)
    snap = c.post("/api/live", json={"seats": ["human", "_gated"], "seed": 0}).json()
    live = app.state.sessions.get(snap["id"])
    while True:  # play until a move of the person's hands the turn to the bot
        action = next(
            (x["action"] for x in snap["choices"] if _bot_moves_next(live, x["action"])), None
        )
        if action is not None:
            break
        body = {"action": snap["choices"][0]["action"], "decision": snap["decision"]}
        snap = c.post(f"/api/live/{snap['id']}/act", json=body).json()
    _Gated.GATE.clear()
    _Gated.THINKING.clear()
    k, answers = snap["decision"], {}

    def move() -> None:
        body = {"action": action, "decision": k}
        answers["act"] = c.post(f"/api/live/{snap['id']}/act", json=body)

    mover = threading.Thread(target=move, daemon=True)
    mover.start()
    try:
        assert _Gated.THINKING.wait(30), "the bot never started thinking"
        t0 = time.monotonic()
        shown = c.get(f"/api/live/{snap['id']}")
        saved = c.post(f"/api/live/{snap['id']}/save", json={"name": "meanwhile"})
        again = c.post(f"/api/live/{snap['id']}/act", json={"action": action, "decision": k})
        assert time.monotonic() - t0 < 30  # answered, not held until the bot is done
        assert mover.is_alive() and "act" not in answers
    finally:
        _Gated.GATE.set()
        mover.join(60)
    assert shown.status_code == 200, shown.json()
    assert shown.json()["decision"] == k + 1 and not shown.json()["your_turn"]
    assert saved.status_code == 200, saved.json()
    record = json.loads(Path(saved.json()["path"]).read_text())
    assert len(record["actions"]) == k + 1  # the game as it stood while the bot thought
    assert again.status_code == 409, again.json()
    done = answers["act"]
    assert done.status_code == 200 and done.json()["decision"] > k + 1
    assert done.json()["decisions"][k + 1]["seat"] == 1


def test_a_bot_move_is_applied_only_to_the_position_it_was_computed_for(tmp_path) -> None:
    app = create_app(None, save_dir=tmp_path, allowed_hosts=["testserver"])
    c = _client(app)
    snap = c.post("/api/live", json={"seats": ["greedy", "human"], "seed": 0}).json()
    live = app.state.sessions.get(snap["id"])
    k = snap["decision"]
    c.post(
        f"/api/live/{snap['id']}/act", json={"action": snap["choices"][0]["action"], "decision": k}
    )
    g = live.game
    before, move = list(g.state.history), (legal_actions(g.state)[0], None)
    stale = (g.state.cur, len(before) - 1)  # a decision that has been made since
    assert not live.apply_bot_move(stale, move)
    assert list(g.state.history) == before and len(live.steps) == len(before)
    assert live.apply_bot_move((g.state.cur, len(before)), move)  # the position it is at
    assert list(g.state.history) == [*before, move[0]]


# ---------------------------------------------------------------------------------------------
# Assets and the command


def test_assets_ship_in_the_package_and_fetch_nothing_from_elsewhere() -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    files = sorted(p for p in STATIC_DIR.iterdir() if p.is_file())
    assert {p.name for p in files} >= {"index.html", "app.js", "style.css"}
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["apps"]
    for p in files + [EXAMPLE_LOG]:
        rel = p.relative_to(REPO / "apps").as_posix()
        assert any(fnmatch(rel, pat) for pat in patterns), rel
    svg_ns = "http://www.w3.org/2000/svg"
    for p in files:
        text = p.read_text(encoding="utf-8").replace(svg_ns, "")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), p.name
        assert "@import" not in text and "url(" not in text, p.name


def test_view_command_errors(tmp_path) -> None:
    r = runner.invoke(cli_app, ["view", str(tmp_path / "none.jsonl"), "--no-browser"])
    assert r.exit_code == 2 and "does not exist" in r.output
    r = runner.invoke(cli_app, ["view", "--port", "70000", "--no-browser"])
    assert r.exit_code == 2 and "--port" in r.output
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        port = busy.getsockname()[1]
        r = runner.invoke(cli_app, ["view", "--port", str(port), "--no-browser"])
        assert r.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in r.output
    finally:
        busy.close()


def test_view_command_serves_the_log(tmp_path) -> None:
    cmd = [sys.executable, "-c", "from apps.cli import app; app()", "view", str(EXAMPLE_LOG)]
    cmd += ["--port", "0", "--no-browser", "--save-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"serving (http://127\.0\.0\.1:\d+/)\?token=([A-Za-z0-9_-]{40,})#log=1", line)
        assert m, line
        deadline = time.monotonic() + 30
        while True:
            try:
                url = f"{m.group(1)}api/meta?token={m.group(2)}"
                with urllib.request.urlopen(url, timeout=5) as resp:
                    meta = json.loads(resp.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert meta["logs"][0]["path"] == str(EXAMPLE_LOG.resolve())
    finally:
        proc.terminate()
        proc.wait(timeout=20)
