"""The viewer's data that makes the page read at a glance: card text, `pass` last in live play,
the policy's value as a win chance (one decision, and over the game), the default opponents."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from viewer_util import EXAMPLE_LOG, make_policy_log

from agents.arena import read_log
from agents.leafeval import LeafEvaluator
from agents.policy import load_policy
from agents.winchance import expected_rank, outcome, win_chance
from apps.play import ordered_choices
from apps.viewer.core import GameReplay, analyse, value_series
from apps.viewer.guard import TOKEN_HEADER
from apps.viewer.server import create_app, default_opponents
from lastwill_env.cardref import card_text
from lastwill_env.encoding import encode_state
from lastwill_env.engine import CATALOGUE, PASS, legal_actions


@pytest.fixture(scope="module")
def policy_log(tmp_path_factory):
    return make_policy_log(tmp_path_factory.mktemp("glance"))


def _client(app) -> TestClient:
    return TestClient(app, headers={TOKEN_HEADER: app.state.token})


@pytest.fixture()
def client(tmp_path) -> TestClient:
    return _client(create_app(EXAMPLE_LOG, save_dir=tmp_path, allowed_hosts=["testserver"]))


def test_catalogue_sends_each_cards_text(client) -> None:
    cards = client.get("/api/catalogue").json()["cards"]
    assert [c["text"] for c in cards] == [card_text(c.id) for c in CATALOGUE.cards]
    by_name = {c["name"]: c["text"] for c in cards}
    assert "buy £8" in by_name["Farm_3"] and "slots dog" in by_name["Farm_3"]  # price, slots
    assert "spend £2" in by_name["CarriageRide_1"]  # an event's spend
    assert "privilege" in by_name["SchoolChum_4"]  # a helper's privilege
    assert "use 1 action: spend £4" in by_name["Reservation_4"]  # an expense's option


def test_live_choices_put_pass_last(client) -> None:
    body = {"seats": ["human", "greedy"], "seed": 5}
    snap = client.post("/api/live", json=body).json()
    seen_pass = 0
    for _ in range(60):
        if snap["over"]:
            break
        actions = [c["action"] for c in snap["choices"]]
        live = client.app.state.sessions.get(snap["id"])
        assert actions == ordered_choices(legal_actions(live.game.state))
        if PASS in actions and len(actions) > 1:
            assert actions[-1] == PASS
            seen_pass += 1
        act = {"action": actions[0], "decision": snap["decision"]}
        snap = client.post(f"/api/live/{snap['id']}/act", json=act).json()
    assert seen_pass  # some decision offered pass among other choices


def test_default_opponents_are_the_strongest_players(client) -> None:
    meta = client.get("/api/meta").json()
    opp = meta["default_opponents"]
    assert opp == default_opponents()
    assert opp == ["ppo:reference", "sprinter", "racer"]
    assert meta["policies"][0] == "ppo:reference"
    assert {"ppo:ref_v1", "ppo:ref_v6"} <= set(meta["policies"])  # the checkout's, by name
    assert not {"greedy", "planner", "combiner", "speculator", "random"} & set(opp)


def test_win_chance_reads_the_reward_scale() -> None:
    for n in (2, 3, 4, 5):
        assert win_chance(1.0, n) == 1.0 and win_chance(-1.0 / (n - 1), n) == 0.0
        assert win_chance(0.0, n) == pytest.approx(1.0 / n)  # a zero-sum table's even chance
        assert win_chance(5.0, n) == 1.0 and win_chance(-5.0, n) == 0.0
        assert expected_rank(1.0, n) == 1.0 and expected_rank(-1.0, n) == n
    assert outcome(0.5, 3, "zero_sum") == {
        "reward": 0.5,
        "win_chance": pytest.approx(2 / 3),
        "expected_rank": None,
    }
    assert outcome(0.0, 3, "rank")["expected_rank"] == 2.0


def _policy_game(policy_log):
    log, ckpt = policy_log
    row = read_log(log)[1][0]
    rep = GameReplay.build(row)
    return log, ckpt, rep, row["seating"].index(f"ppo:{ckpt}")


def test_analysis_shows_the_value_as_a_win_chance(policy_log) -> None:
    log, ckpt, rep, seat = _policy_game(policy_log)
    pol, meta = load_policy(ckpt)
    ev = LeafEvaluator(pol, meta)  # the search's reading of a critic value
    for k in [k for k, s in enumerate(rep.seats) if s == seat][::7]:
        a = analyse(rep, k, seat, log_dir=log.parent)
        want = ev.score(a["value"], rep.states[k], seat)
        assert a["estimate"]["reward"] == pytest.approx(want)
        assert a["estimate"]["win_chance"] == pytest.approx(win_chance(want, rep.n))
        assert 0.0 <= a["estimate"]["win_chance"] <= 1.0


def test_value_series_follows_the_seats_decisions_and_its_view(policy_log) -> None:
    log, ckpt, rep, seat = _policy_game(policy_log)
    pol, meta = load_policy(ckpt)
    ev = LeafEvaluator(pol, meta)
    out = value_series(rep, seat, log.parent)
    series = out["seats"][str(seat)]
    assert series["measure"] == "win_chance" and series["note"] is None
    mine = [k for k, s in enumerate(rep.seats) if s == seat]
    assert [k for k, _ in series["points"]] == mine
    for k, p in series["points"][::11]:
        v = pol.value(encode_state(rep.states[k], seat))
        assert p == pytest.approx(win_chance(ev.score(v, rep.states[k], seat), rep.n))
        assert p == pytest.approx(
            analyse(rep, k, seat, log_dir=log.parent)["estimate"]["win_chance"]
        )
    # another seat's view holds no policy seat: nothing of the policy's hand leaks
    other = (seat + 1) % rep.n
    assert value_series(rep, other, log.parent)["seats"] == {}
    assert set(value_series(rep, None, log.parent)["seats"]) == {str(seat)}


def test_values_endpoint(tmp_path, policy_log) -> None:
    log, _, rep, seat = _policy_game(policy_log)
    c = _client(create_app(log, save_dir=tmp_path, allowed_hosts=["testserver"]))
    got = c.get("/api/logs/1/games/0/values", params={"seat": str(seat)}).json()
    assert (
        got["seats"][str(seat)]["points"]
        == value_series(rep, seat, log.parent)["seats"][str(seat)]["points"]
    )
    r = c.get("/api/logs/1/games/0/values", params={"seat": "9"})
    assert r.status_code == 400 and "not a view" in r.json()["error"]
    r = c.get("/api/logs/1/games/0/values")
    assert r.status_code == 400 and "seat=all" in r.json()["error"]
