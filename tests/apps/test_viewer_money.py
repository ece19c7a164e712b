"""`lastwill view` shows and plays Money!: its replays (apps.viewer.tablegame, the board of
apps.viewer.money) and live games (apps.viewer.tablelive) through the server's endpoints.

The seat being watched sees only its own `player_view`: before the reveal, two games that differ
only in another seat's hidden bid (its cards, even its size) give that seat identical answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from viewer_util import EXAMPLE_LOG

from agents import registry
from agents.arena import run_tournament
from agents.base import BaseAgent
from apps.viewer.guard import TOKEN_HEADER
from apps.viewer.money import seat_board
from apps.viewer.server import create_app, default_opponents, seat_choices
from apps.viewer.tablegame import moments
from gamecore import game_names, load_game
from money_env.engine import COMMIT, GAME_OVER, player_view, replay
from money_env.text import move_text, view_text

MONEY = load_game("money")
SEED = 7  # the deal of the hidden-bid records


def _client(app) -> TestClient:
    return TestClient(app, headers={TOKEN_HEADER: app.state.token})


def _play_record(actions: list[int], seed: int = SEED, seating=None) -> dict:
    """An unfinished Money! game file as `lastwill play --game money` writes it."""
    return {
        "type": "play",
        "game": "money",
        "deal_seed": seed,
        "seating": seating or ["value", "human", "bluffer"],
        "num_players": 3,
        "config": {"num_players": 3},
        "human_seat": 1,
        "finished": False,
        "ranks": None,
        "decisions": len(actions),
        "error": None,
        "actions": actions,
    }


def _adds(state) -> list[int]:
    return [a for a in MONEY.legal_actions(state) if a < COMMIT]


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict:
    """A folder with a Money! arena log (random players: some game ends in a tie) and three
    unfinished game files whose seat 0 bid differently before seat 1's first decision."""
    folder = tmp_path_factory.mktemp("money")
    log = folder / "money_log.jsonl"
    run_tournament(["random"] * 3, MONEY.make_config(3), 12, seed=3, out=log, game_name="money")
    start = MONEY.new_game(MONEY.make_config(3), SEED)
    x, y = _adds(start)[:2]
    bids = {"x": [x, COMMIT], "y": [y, COMMIT], "xy": [x, y, COMMIT]}
    for name, actions in bids.items():
        (folder / f"bid_{name}.json").write_text(json.dumps(_play_record(actions)))
    return {"dir": folder, "log": log, "bids": bids}


@pytest.fixture()
def client(served, tmp_path) -> TestClient:
    app = create_app(
        [EXAMPLE_LOG, served["dir"]], save_dir=tmp_path / "saves", allowed_hosts=["testserver"]
    )
    return _client(app)


def _open(client, path: Path) -> str:
    r = client.post("/api/logs", json={"path": str(path)})
    assert r.status_code == 200, r.json()
    return r.json()["id"]


# ---------------------------------------------------------------------------------------------
# Replays


def test_a_money_log_is_listed_with_its_game_and_scores(client, served) -> None:
    log = _open(client, served["log"])
    logs = {x["id"]: x for x in client.get("/api/logs").json()["logs"]}
    assert logs[log]["game"] == "money" and logs["1"]["game"] == "lastwill"
    rows = client.get(f"/api/logs/{log}/games").json()["games"]
    assert len(rows) == 12 and all(r["scores"] and r["money"] is None for r in rows)
    # a play record names its game where an arena row numbers it: it is game 0 of its file
    one = _open(client, served["dir"] / "bid_x.json")
    assert client.get(f"/api/logs/{one}/games").json()["games"][0]["game"] == 0


def test_each_decision_shows_the_seats_own_view(client, served) -> None:
    log = _open(client, served["log"])
    row = [json.loads(x) for x in served["log"].read_text().splitlines()][1]
    seat = 2
    g = client.get(f"/api/logs/{log}/games/0", params={"seat": str(seat)}).json()
    assert g["game_name"] == "money" and g["title"] == "Money!" and g["finished"]
    assert g["total"] < len(row["actions"])  # the others' hidden bids are one moment each
    ms = moments(MONEY, _seats(row), row["actions"], seat)
    assert len(ms) == g["total"]
    checked_exchange = False
    for i, m in enumerate(ms[:40]):
        state = replay(MONEY.make_config(3), row["deal_seed"], row["actions"][: m.start])
        view = player_view(state, seat)
        fr = client.get(f"/api/logs/{log}/games/0/frames/{i}", params={"seat": str(seat)})
        fr = fr.json()
        b = fr["board"]
        assert fr["text"] == view_text(view) and fr["k"] == i
        assert [c["id"] for c in b["seats"][seat]["hand"]] == sorted(state.hands[seat])
        assert b["right"]["text"].startswith(_cards_text(state.right))
        assert b["pile"] == len(state.pile)
        for other in range(3):
            if other != seat:  # another hand is hidden, its bid too: only what all know
                s = b["seats"][other]
                assert s["hand"] is None and s["bid"] is None
                assert [c["id"] for c in s["known"]] == sorted(state.known[other])
        d = g["decisions"][i]
        if m.seat == seat:
            assert d["name"] == "you: " + move_text(view, row["actions"][m.start])
        elif m.hidden:
            assert d["hidden"] and "bids in secret" in d["name"]
        if b["phase_name"] == "exchange":  # the bids at the reveal and the order to act
            checked_exchange = True
            for p in range(3):
                assert [c["id"] for c in b["seats"][p]["revealed"]["cards"]] == state.revealed[p]
    assert checked_exchange


def _seats(row: dict) -> list[int]:
    state = MONEY.new_game(MONEY.make_config(3), row["deal_seed"])
    seats = []
    for a in row["actions"]:
        seats.append(state.cur)
        MONEY.apply_action(state, a)
    return seats


def _cards_text(cards) -> str:
    from money_env.text import cards_text

    return cards_text(cards)


def test_the_end_shows_every_hand_and_shared_places(client, served) -> None:
    log = _open(client, served["log"])
    rows = [json.loads(x) for x in served["log"].read_text().splitlines()][1:]
    tied = next(i for i, r in enumerate(rows) if len(set(r["ranks"])) < 3)
    row = rows[tied]
    g = client.get(f"/api/logs/{log}/games/{tied}", params={"seat": "0"}).json()
    assert g["results"]["ranks"] == row["ranks"] and g["results"]["scores"] == row["scores"]
    fr = client.get(f"/api/logs/{log}/games/{tied}/frames/{g['total']}", params={"seat": "0"})
    b = fr.json()["board"]
    assert b["over"] and fr.json()["next"] is None
    final = replay(MONEY.make_config(3), row["deal_seed"], row["actions"])
    for r in b["results"]:
        s = r["seat"]
        assert r["place"] == row["ranks"][s] and r["score"] == row["scores"][s]
        assert r["shared"] == (row["ranks"].count(row["ranks"][s]) > 1)
        assert [c["id"] for c in b["seats"][s]["final_hand"]] == sorted(final.hands[s])
    assert any(r["shared"] for r in b["results"])
    assert "(shared)" in fr.json()["text"]


def test_a_tie_is_a_shared_place_in_the_board() -> None:
    row = _play_record([])
    state = replay(MONEY.make_config(3), row["deal_seed"], [])
    state.phase = GAME_OVER  # a finished table where seats 0 and 1 hold the same cards' worth
    state.hands[0], state.hands[1] = [69], [70]  # each its bluff: both score 0
    b = seat_board(player_view(state, 1), row["seating"])
    places = {r["seat"]: (r["place"], r["shared"]) for r in b["results"]}
    assert places[0] == places[1] == (2, True) and places[2] == (1, False)


def _answers(client, log: str, seat: int) -> list:
    g = client.get(f"/api/logs/{log}/games/0", params={"seat": str(seat)}).json()
    frames = [
        client.get(f"/api/logs/{log}/games/0/frames/{i}", params={"seat": str(seat)}).json()
        for i in range(g["total"] + 1)
    ]
    return [g, *frames]


def test_another_seats_hidden_bid_never_reaches_the_watching_seat(client, served) -> None:
    """Three records differ only in seat 0's sealed bid (its cards; its size): seats 1 and 2
    get identical answers, byte for byte; seat 0, which sees its bid, does not."""
    logs = {n: _open(client, served["dir"] / f"bid_{n}.json") for n in served["bids"]}
    for seat in (1, 2):
        answers = {n: json.dumps(_answers(client, log, seat)) for n, log in logs.items()}
        assert answers["x"] == answers["y"] == answers["xy"], seat
    own = {n: json.dumps(_answers(client, log, 0)) for n, log in logs.items()}
    assert len(set(own.values())) == 3
    # the watching seat's own picture holds its own hand, and the others' bids show nowhere
    fr = client.get(f"/api/logs/{logs['xy']}/games/0/frames/1", params={"seat": "1"}).json()
    assert fr["board"]["seats"][0]["bid"] is None and fr["board"]["seats"][1]["bid"] == []
    assert fr["board"]["to_act"] == 1 and fr["board"]["seats"][0]["hand_size"] == 7


def test_the_omniscient_view_shows_every_hidden_bid(client, served) -> None:
    log = _open(client, served["dir"] / "bid_xy.json")
    g = client.get(f"/api/logs/{log}/games/0", params={"seat": "all"}).json()
    assert g["total"] == 3  # every decision its own moment
    fr = client.get(f"/api/logs/{log}/games/0/frames/2", params={"seat": "all"}).json()
    x, y = served["bids"]["xy"][:2]
    state = replay(MONEY.make_config(3), SEED, [x, y])
    assert [c["id"] for c in fr["board"]["seats"][0]["bid"]] == sorted(state.sel[0])


def test_money_replays_refuse_what_only_last_will_has(client, served) -> None:
    log = _open(client, served["dir"] / "bid_x.json")
    r = client.get(f"/api/logs/{log}/games/0/analysis/0", params={"seat": "0"})
    assert r.status_code == 400 and "Last Will policies only" in r.json()["error"]
    assert client.get(f"/api/logs/{log}/games/0/values", params={"seat": "0"}).json() == {
        "view": 0,
        "seats": {},
    }
    r = client.get(f"/api/logs/{log}/games/0/frames/99", params={"seat": "1"})
    assert r.status_code == 400 and r.json()["allowed"] == {"min": 0, "max": 1}  # one moment
    r = client.post("/api/live", json={"resume": {"log": log, "game": 0}})
    assert r.status_code == 400 and "only a saved Last Will game" in r.json()["error"]


# ---------------------------------------------------------------------------------------------
# Live play


def test_the_play_tab_offers_each_games_players_and_counts(client) -> None:
    games = {g["name"]: g for g in client.get("/api/meta").json()["games"]}
    # every installed game (a test may have registered another in this process)
    assert {"lastwill", "money"} <= set(games) and set(games) <= set(game_names())
    m = games["money"]
    assert m["player_counts"] == [3, 4, 5] and m["title"] == "Money!" and m["options"] == []
    specs = [c["spec"] for c in m["seat_choices"]]
    assert specs[0] == "human" and {"value", "collector", "bluffer", "mc"} <= set(specs)
    assert not any(s.startswith(("ppo:", "mcts")) for s in specs)  # Last Will's policies
    assert m["default_opponents"] == default_opponents("money") == ["value", "collector", "bluffer"]
    lw = games["lastwill"]
    assert lw["player_counts"] == [2, 3, 4, 5] and lw["seat_choices"] == seat_choices()


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"game": "chess", "seats": ["human", "value", "value"]}, "'chess' is not installed"),
        ({"game": 5, "seats": ["human", "value", "value"]}, "is not a game name"),
        ({"game": "x" * 5000, "seats": ["human", "value"]}, "(5002 characters) is not a game"),
        ({"game": "money", "seats": ["human", "value"]}, "3, 4 or 5 players"),
        ({"game": "money", "seats": ["human"] + ["value"] * 5}, "3, 4 or 5 players"),
        ({"game": "money", "seats": "human,value,value"}, "3, 4 or 5 players"),
        ({"game": "money", "seats": ["value", "value", "value"]}, "exactly one 'human'"),
        ({"game": "money", "seats": ["human", "human", "value"]}, "exactly one 'human'"),
        ({"game": "money", "seats": ["human", "nobot", "value"]}, "unknown player 'nobot'"),
        ({"game": "money", "seats": ["human", "greedy", "value"]}, "unknown player 'greedy'"),
        ({"game": "money", "seats": ["human", "value:eps=2", "value"]}, "eps"),
        ({"game": "money", "seats": ["human", "ppo:reference", "value"]}, "not for 'money'"),
        ({"game": "money", "seats": ["human", "os:system", "value"]}, "never imported"),
        ({"game": "money", "seats": ["human", "value", "value"], "seed": -1}, "'seed'"),
        ({"game": "money", "seats": ["human", "value", "value"], "board_spaces": 5}, "unknown"),
        ({"game": "money", "seats": ["human", "mc:rollouts=99", "value"]}, "over the limit"),
        ({"game": "lastwill", "seats": ["human"]}, "2, 3, 4 or 5"),
    ],
)
def test_bad_live_setups_are_refused_with_a_clear_400(client, body, needle) -> None:
    r = client.post("/api/live", json=body)
    assert r.status_code == 400 and needle in r.json()["error"], r.json()
    assert client.app.state.sessions._games == {}


def test_last_will_takes_its_game_named(client) -> None:
    body = {"game": "lastwill", "seats": ["greedy", "human"], "seed": 3}
    snap = client.post("/api/live", json=body).json()
    assert snap["your_turn"] and "game" not in snap and snap["frame"]["seats"][1]["hand"]


def test_a_live_money_game_is_played_to_the_end_over_http(client, tmp_path) -> None:
    body = {"game": "money", "seats": ["value", "human", "collector", "bluffer"], "seed": 11}
    snap = client.post("/api/live", json=body).json()
    gid = snap["id"]
    assert snap["game"] == "money" and snap["your_turn"] and snap["decision"] == 0
    assert snap["deal_seed"] is None  # it decides every hand: sent once the game is over
    live = client.app.state.sessions.get(gid)
    moves = 0
    while not snap["over"]:
        state = live.tg.state
        assert snap["frame"]["text"] == view_text(player_view(state, 1))
        legal = MONEY.legal_actions(state)
        assert [c["action"] for c in snap["choices"]] == legal
        view = player_view(state, 1)
        assert [c["label"] for c in snap["choices"]] == [move_text(view, a) for a in legal]
        k = snap["decision"]
        pick = snap["choices"][moves % len(snap["choices"])]["action"]
        r = client.post(f"/api/live/{gid}/act", json={"action": pick, "decision": k})
        assert r.status_code == 200, r.json()
        snap = r.json()
        moves += 1
        assert snap["decision"] == k + 1 or snap["over"]
        assert moves < 2000
    assert snap["deal_seed"] == 11 and snap["choices"] == [] and snap["frame"]["board"]["over"]
    record_path = Path(snap["record"])
    assert record_path.parent == tmp_path / "saves"
    record = json.loads(record_path.read_text())
    assert record["type"] == "play" and record["game"] == "money" and record["finished"]
    final = replay(MONEY.make_config(4), 11, record["actions"])
    results = {r["seat"]: r for r in snap["frame"]["board"]["results"]}
    assert [results[s]["place"] for s in range(4)] == MONEY.ranks(final) == record["ranks"]
    assert [results[s]["score"] for s in range(4)] == record["scores"]
    r = client.post(f"/api/live/{gid}/act", json={"action": 0, "decision": snap["decision"]})
    assert r.status_code == 409 and "over" in r.json()["error"]
    # the record opens as a replay of the person's view
    log = _open(client, record_path)
    g = client.get(f"/api/logs/{log}/games/0", params={"seat": "1"}).json()
    assert g["finished"] and g["game_name"] == "money"
    assert sum(1 for d in g["decisions"] if d["seat"] == 1) == moves


def test_live_moves_are_checked_and_change_nothing_when_refused(client) -> None:
    body = {"game": "money", "seats": ["human", "value", "value"], "seed": 2}
    snap = client.post("/api/live", json=body).json()
    gid, k = snap["id"], snap["decision"]
    legal = [c["action"] for c in snap["choices"]]
    illegal = next(a for a in range(50) if a not in legal)
    for b, status, needle in [
        ({"action": illegal, "decision": k}, 400, "not legal now"),
        ({"action": "x", "decision": k}, 400, "not legal now"),
        ({"action": legal[0], "decision": k + 1}, 409, "your decision 0"),
        ({"action": legal[0], "decision": "now"}, 400, "'decision'"),
        ({"action": legal[0]}, 400, "send"),
    ]:
        r = client.post(f"/api/live/{gid}/act", json=b)
        assert r.status_code == status and needle in r.json()["error"], r.json()
    assert client.get(f"/api/live/{gid}").json() == snap
    r = client.post(f"/api/live/{gid}/act", json={"action": legal[0], "decision": k})
    assert r.json()["decision"] == 1
    again = client.post(f"/api/live/{gid}/act", json={"action": legal[0], "decision": k})
    assert again.status_code == 409  # a second click on a decision already made
    saved = client.post(f"/api/live/{gid}/save", json={"name": "mid"}).json()
    assert Path(saved["path"]).name == "mid.json" and saved["log"]["game"] == "money"
    r = client.post(f"/api/live/{gid}/save", json={"name": "mid"})
    assert r.status_code == 409 and "refusing to overwrite" in r.json()["error"]


class _Sealer(BaseAgent):
    """Test only: seals a bid of one card (the first kind in hand), or of two (`TWO`: the
    last kinds), then plays its first legal move."""

    TWO = False

    def act(self, view, legal):
        adds = [a for a in legal if a < COMMIT]
        if adds and len(view.bid) < (2 if _Sealer.TWO else 1):
            return adds[-1] if _Sealer.TWO else adds[0]
        return COMMIT if COMMIT in legal else legal[0]


def test_a_live_snapshot_tells_nothing_of_a_bots_sealed_bid(client, monkeypatch) -> None:
    entry = registry.Entry("_sealer", _Sealer, "test only: seals one card")
    monkeypatch.setitem(registry._REGISTRY, "_sealer", entry)
    body = {"game": "money", "seats": ["_sealer", "human", "value"], "seed": 5}
    snaps, bids = [], []
    for two in (False, True):
        monkeypatch.setattr(_Sealer, "TWO", two)
        snap = client.post("/api/live", json=body).json()
        bids.append(sorted(client.app.state.sessions.get(snap["id"]).tg.state.sel[0]))
        snaps.append({k: v for k, v in snap.items() if k != "id"})
    assert len(bids[0]) == 1 and len(bids[1]) == 2  # seat 0 sealed different bids ...
    assert json.dumps(snaps[0]) == json.dumps(snaps[1])  # ... and the person sees the same
    assert [d["hidden"] for d in snaps[0]["decisions"]] == [True]
