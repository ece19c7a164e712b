"""`lastwill view` at its trust boundary: the session token, the Host check, the files it
serves (only those it was given, with one answer for missing and forbidden), the bounds on
bodies, JSON depth and query values, bad game records, and a property test that no request
gets a 5xx or changes a file."""

from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from typer.testing import CliRunner
from viewer_util import EXAMPLE_LOG

from agents.arena import read_log
from apps.cli import app as cli_app
from apps.viewer import limits
from apps.viewer.core import ViewError
from apps.viewer.files import Roots
from apps.viewer.guard import TOKEN_HEADER, host_name, is_loopback
from apps.viewer.server import create_app, hosts_for

runner = CliRunner()
ROW = read_log(EXAMPLE_LOG)[1][0]


def _client(app, token: str | None = "own", **kw) -> TestClient:
    headers = {TOKEN_HEADER: app.state.token if token == "own" else token} if token else {}
    return TestClient(app, headers=headers, **kw)


@pytest.fixture()
def served(tmp_path) -> dict[str, Path]:
    """A served folder (with a copy of the shipped log), an outside folder with a secret and a
    game, and the save folder; the app serves the first folder only."""
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (inside / "log.jsonl").write_bytes(EXAMPLE_LOG.read_bytes())
    (outside / "creds.json").write_text(json.dumps({"password": "hunter2", "user": "root"}))
    (outside / "game.json").write_text(json.dumps(ROW))
    return {"root": tmp_path, "inside": inside, "outside": outside, "saves": tmp_path / "saves"}


@pytest.fixture()
def app(served):
    return create_app([served["inside"]], save_dir=served["saves"], allowed_hosts=["testserver"])


def _snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for top, _dirs, names in os.walk(folder):
        for n in names:
            p = Path(top) / n
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# ---------------------------------------------------------------------------------------------
# The session token and the Host check


def test_every_api_call_needs_the_session_token(app) -> None:
    for token, status in [(None, 403), ("wrong", 403), ("own", 200)]:
        c = _client(app, token)
        for url in ("/api/meta", "/api/logs", "/api/files", "/api/nothing"):
            r = c.get(url)
            want = 404 if (url == "/api/nothing" and status == 200) else status
            assert r.status_code == want, (token, url)
            if want == 403:
                body = r.json()
                assert "session token" in body["error"] and TOKEN_HEADER in body["allowed"]
        r = c.post("/api/live", json={"seats": ["human", "greedy"]})
        assert r.status_code == (403 if status == 403 else 200)
    # the token may come as a query parameter instead (the page's own URL carries it)
    bare = TestClient(app)
    assert bare.get("/api/meta", params={"token": app.state.token}).status_code == 200
    assert bare.get("/api/logs/x/games", params={"token": "nope"}).status_code == 403
    # the page and its script are not secret
    assert bare.get("/").status_code == 200 and bare.get("/static/app.js").status_code == 200
    # two apps never share a token
    other = create_app(None, save_dir=app.state.sessions.save_dir)
    assert other.state.token != app.state.token and len(app.state.token) >= 40


def test_a_refused_request_runs_nothing(app, served) -> None:
    before = _snapshot(served["root"])
    r = _client(app, None).post(
        "/api/live", json={"seats": ["human", "greedy"], "seed": 1}
    )  # a legal setup, but no token
    assert r.status_code == 403
    assert len(app.state.sessions._games) == 0 and _snapshot(served["root"]) == before


def test_other_host_names_are_refused_in_the_labs_error_shape(served) -> None:
    app = create_app(None, save_dir=served["saves"])  # loopback names only
    c = _client(app)
    r = c.get("/api/meta")  # Host: testserver
    assert (
        r.status_code == 400 and "Host" in r.json()["error"] and "127.0.0.1" in r.json()["allowed"]
    )
    assert c.get("/api/meta", headers={"host": "localhost:8765"}).status_code == 200
    assert c.get("/api/meta", headers={"host": "[::1]:8765"}).status_code == 200
    assert c.get("/api/meta", headers={"host": "evil.example:8765"}).status_code == 400


def test_host_helpers() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert is_loopback("127.0.0.2") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")
    assert not is_loopback("example.org") and not is_loopback("::")
    assert host_name("[::1]:8765") == "[::1]" and host_name("LocalHost:80") == "localhost"
    assert "127.0.0.2" in hosts_for("127.0.0.2") and "localhost" in hosts_for("127.0.0.1")
    assert hosts_for("0.0.0.0") == ["*"]


def test_a_remote_host_needs_allow_remote(tmp_path) -> None:
    r = runner.invoke(cli_app, ["view", "--host", "0.0.0.0", "--no-browser"])
    assert r.exit_code == 2 and "--allow-remote" in r.output and "not a loopback" in r.output
    busy = socket.socket()
    busy.bind(("0.0.0.0", 0))
    busy.listen(1)
    try:
        port = str(busy.getsockname()[1])
        args = ["view", "--host", "0.0.0.0", "--allow-remote", "--port", port, "--no-browser"]
        r = runner.invoke(cli_app, [*args, "--save-dir", str(tmp_path)])
        assert "warning: --host 0.0.0.0 --allow-remote" in r.output  # warned, then tried
        assert r.exit_code == 2 and "cannot listen on 0.0.0.0" in r.output
    finally:
        busy.close()


# ---------------------------------------------------------------------------------------------
# The files it serves


def test_only_files_under_the_served_folders_open(app, served) -> None:
    c = _client(app)
    inside, outside = served["inside"], served["outside"]
    info = c.post("/api/logs", json={"path": str(inside / "log.jsonl")}).json()
    assert info["games"] == 8 and c.post("/api/logs", json={"path": "log.jsonl"}).json() == info
    # outside: existing or not, a file or a folder, by .. or by a link: one answer
    (inside / "link.json").symlink_to(outside / "game.json")
    names = [
        str(outside / "creds.json"),
        str(outside / "game.json"),
        str(outside / "none.json"),
        str(inside / "none.json"),
        str(outside),
        "../outside/game.json",
        "../outside/none.json",
        "link.json",
        "/etc/passwd",
        "/nonexistent/passwd",
    ]
    answers = set()
    for name in names:
        r = c.post("/api/logs", json={"path": name})
        assert r.status_code == 404, name
        body = r.json()
        assert "hunter2" not in r.text and "password" not in r.text
        answers.add((body["error"].replace(repr(name), "NAME"), tuple(body["allowed"])))
    assert len(answers) == 1, answers
    assert str(inside) + os.sep in next(iter(answers))[1]
    assert [lg["path"] for lg in c.get("/api/logs").json()["logs"]] == [str(inside / "log.jsonl")]


def test_the_file_list_shows_only_served_files(app, served) -> None:
    (served["inside"] / ".hidden").mkdir()
    (served["inside"] / ".hidden" / "x.json").write_text("{}")
    (served["inside"] / "notes.txt").write_text("x")
    files = _client(app).get("/api/files").json()
    paths = [f["path"] for f in files["files"]]
    assert str(served["inside"] / "log.jsonl") in paths
    assert not any("outside" in p or ".hidden" in p or p.endswith(".txt") for p in paths)
    assert str(EXAMPLE_LOG.resolve()) in paths  # the shipped examples are served


def test_files_in_hidden_folders_or_too_deep_are_not_served(app, served) -> None:
    """Only what the file list shows opens: nothing under a folder or with a name that starts
    with '.', nothing more than four folder levels below a served folder."""
    inside = served["inside"]
    fine = inside / "a" / "b" / "c" / "d" / "four.json"
    refused = [
        inside / ".cache" / "hidden.json",
        inside / "a" / ".b" / "hidden_mid.json",
        inside / ".hidden_name.json",
        inside / "a" / "b" / "c" / "d" / "e" / "five.json",
    ]
    for p in [fine, *refused]:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(ROW))
    c = _client(app)
    listed = {f["path"] for f in c.get("/api/files").json()["files"]}
    assert str(fine.resolve()) in listed and not {str(p.resolve()) for p in refused} & listed
    assert c.post("/api/logs", json={"path": str(fine)}).json()["games"] == 1
    for p in refused:
        for name in (str(p), str(p.relative_to(inside))):
            r = c.post("/api/logs", json={"path": name})
            assert r.status_code == 404 and "not a log or game file" in r.json()["error"], name
    assert len(c.get("/api/logs").json()["logs"]) == 1
    # a file named on the command line is served wherever it is
    named = create_app([refused[0]], save_dir=served["saves"], allowed_hosts=["testserver"])
    assert _client(named).get("/api/logs").json()["logs"][0]["path"] == str(refused[0])


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("x" * 70_000, 400, "70000 characters"),
        ("a\x00b.json", 400, "NUL"),
        ("", 400, "non-empty"),
        ("/" + "a" * 300 + ".json", 404, "not a log or game file"),  # ENAMETOOLONG
    ],
)
def test_unusable_paths_get_a_clear_error(app, name, status, needle) -> None:
    r = _client(app).post("/api/logs", json={"path": name})
    assert r.status_code == status and needle in r.json()["error"]
    assert len(r.text) < 2000  # a long path is never echoed whole


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ({"password": "hunter2", "seating": ["x"]}, "lacks config"),
        ({"password": "hunter2"}, "'seating' must list"),
        (dict(ROW, deal_seed=True, note="hunter2"), "'deal_seed' must be an integer"),
        (dict(ROW, deal_seed="7", note="hunter2"), "'deal_seed' must be an integer"),
        (dict(ROW, deal_seed=2**64), "'deal_seed' must be an integer from 0 to 2**64 - 1"),
        (dict(ROW, deal_seed=-1), "'deal_seed' must be an integer from 0 to 2**64 - 1"),
        (dict(ROW, game="hunter2"), "'game' must be an integer"),
        (dict(ROW, seating=[1, 2, 3, 4]), "'seating'"),
        (dict(ROW, type="hunter2"), "not a game record"),
    ],
)
def test_only_real_game_files_are_accepted(app, served, content, needle) -> None:
    path = served["inside"] / "thing.json"
    path.write_text(json.dumps(content))
    r = _client(app).post("/api/logs", json={"path": str(path)})
    assert r.status_code == 400 and needle in r.json()["error"], r.json()
    assert "hunter2" not in r.text and "password" not in r.text
    assert _client(app).get("/api/logs").json()["logs"] == []
    if "type" in content:
        return  # a log's rows of other types (not games) are left out of its game list
    # the same record in an arena log is refused the same way
    log = served["inside"] / "thing.jsonl"
    log.write_text(json.dumps(ROW) + "\n" + json.dumps(content) + "\n")
    r = _client(app).post("/api/logs", json={"path": str(log)})
    assert r.status_code == 400 and "thing.jsonl: line 2" in r.json()["error"]


@pytest.mark.parametrize("seed", [True, 2**64, -1, 1.5])
def test_a_game_with_a_bad_deal_seed_is_refused_by_replay_too(tmp_path, seed) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(dict(ROW, deal_seed=seed)))
    r = runner.invoke(cli_app, ["replay", str(path)])
    assert r.exit_code == 2 and "'deal_seed' must be an integer" in r.output
    assert isinstance(r.exception, SystemExit)  # a clean exit, nothing raised


def test_deeply_nested_files_are_refused(app, served) -> None:
    deep = "[" * 5000 + "]" * 5000
    cases = {
        "deep.json": deep,
        "deep_row.jsonl": json.dumps(ROW)
        + "\n"
        + json.dumps(dict(ROW, x=None)).replace("null", deep)
        + "\n",
        "deep_ok_json.json": json.dumps(dict(ROW, x=json.loads("[" * 70 + "]" * 70))),
    }
    for name, text in cases.items():
        (served["inside"] / name).write_text(text)
        r = _client(app).post("/api/logs", json={"path": name})
        assert r.status_code == 400 and "nested" in r.json()["error"], (name, r.json())
    with pytest.raises(ViewError, match="nested"):
        create_app(served["inside"] / "deep.json", save_dir=served["saves"])
    r = runner.invoke(cli_app, ["replay", str(served["inside"] / "deep.json")])
    assert r.exit_code == 2 and "nested" in r.output
    r = runner.invoke(cli_app, ["replay", str(served["inside"] / "deep_row.jsonl"), "-g", "0"])
    assert r.exit_code == 2 and "nested" in r.output


def test_a_number_json_cannot_hold_is_sent_as_null(served) -> None:
    path = served["inside"] / "nan.jsonl"
    path.write_text(json.dumps(dict(ROW, money=[float("nan"), 1, 2, 3])) + "\n")
    app = create_app(path, save_dir=served["saves"], allowed_hosts=["testserver"])
    games = _client(app).get("/api/logs/1/games").json()["games"]
    assert games[0]["money"] == [None, 1, 2, 3]


def test_roots_admit_their_folders_only(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text("")
    (tmp_path / "b.json").write_text("{}")
    roots = Roots(files=[tmp_path / "b.json"], folders=[tmp_path / "a"])
    assert roots.find(str(tmp_path / "a" / "x.jsonl")) == (tmp_path / "a" / "x.jsonl").resolve()
    assert roots.find(str(tmp_path / "b.json")) == (tmp_path / "b.json").resolve()
    for bad in (str(tmp_path / "a"), str(tmp_path), "x.txt", 5, None):
        with pytest.raises(ViewError) as e:
            roots.find(bad)
        assert e.value.status in (400, 404)


# ---------------------------------------------------------------------------------------------
# Bodies and queries


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        (b"[" * 100_000 + b"]" * 100_000, 400, "nested deeper than 64"),
        (b'{"seats": ' + b"[" * 70 + b"]" * 70 + b"}", 400, "nested deeper than 64"),
        (b'{"path": "' + b"x" * (limits.MAX_BODY + 10) + b'"}', 413, "larger than"),
        (b'{"seats": NaN}', 400, "NaN is not a JSON number"),
        (b"\xff\xfe", 400, "not valid JSON"),
    ],
)
def test_bodies_are_bounded(app, body, status, needle) -> None:
    c = _client(app)
    for url in ("/api/logs", "/api/live"):
        r = c.post(url, content=body, headers={"content-type": "application/json"})
        assert r.status_code == status and needle in r.json()["error"], r.text[:300]
        assert len(r.text) < 2000


@pytest.mark.parametrize(
    "url",
    [
        "/api/logs/1/games/0?seat=%C2%B2",  # a superscript two: a digit, but not an ASCII one
        "/api/logs/1/games/0?seat=%D9%A3",  # an Arabic-Indic three
        "/api/logs/1/games/0?seat=01",
        "/api/logs/1/games/%C2%B2?seat=all",
        "/api/logs/1/games/0/frames/%D9%A3?seat=all",
        "/api/logs/1/games/0/frames/1_0?seat=all",
        "/api/logs/1/games/0/analysis/0?seat=all&top=%C2%B2",
        "/api/logs/1/games/99999999999999999999999?seat=all",
    ],
)
def test_non_ascii_digits_are_refused(served, url) -> None:
    app = create_app(EXAMPLE_LOG, save_dir=served["saves"], allowed_hosts=["testserver"])
    r = _client(app, raise_server_exceptions=False).get(url)
    assert r.status_code == 400, r.text
    assert "integer" in r.json()["error"] or "not a view" in r.json()["error"]


# ---------------------------------------------------------------------------------------------
# Random requests: never a 5xx, never a changed file

DIGITS = st.sampled_from(["²", "¹", "①", "٣", "๓", "𝟙", "1²", "0٣"])  # digits, none ASCII
NUMBERISH = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "all", "-1", "1e3", "NaN", "1_0", " 1"]),
    DIGITS,
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=2),
    st.integers(-(10**30), 10**30).map(str),
)
SEGMENT = st.one_of(
    NUMBERISH,
    st.sampled_from(["..", "%2e%2e", "x" * 300, "%C2%B2", "%00", "%", ""]),
    st.text(min_size=0, max_size=12),
)
ROUTES = [
    ("GET", "/"),
    ("GET", "/static/{}"),
    ("GET", "/api/meta"),
    ("GET", "/api/files"),
    ("GET", "/api/logs"),
    ("POST", "/api/logs"),
    ("GET", "/api/logs/{}/games"),
    ("GET", "/api/logs/{}/games/{}"),
    ("GET", "/api/logs/{}/games/{}/frames/{}"),
    ("GET", "/api/logs/{}/games/{}/analysis/{}"),
    ("POST", "/api/live"),
    ("GET", "/api/live/{}"),
    ("POST", "/api/live/{}/act"),
    ("POST", "/api/live/{}/save"),
    ("GET", "/api/{}"),
]
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_subnormal=False)
    | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4)
    ),
    max_leaves=12,
)
BODY_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "path": st.one_of(SEGMENT, st.sampled_from(["../outside/creds.json", "/etc/passwd"])),
        "seats": st.lists(st.sampled_from(["human", "greedy", "nobot", "ppo:x.npz"]), max_size=6),
        "action": JSONISH,
        "decision": JSONISH,
        "name": SEGMENT,
        "resume": JSONISH,
        "seed": JSONISH,
    },
)
REQUEST = st.fixed_dictionaries(
    {
        "route": st.sampled_from(ROUTES),
        "method": st.sampled_from(["route", "GET", "POST", "PUT", "DELETE"]),
        "segments": st.lists(SEGMENT, min_size=3, max_size=3),
        "query": st.dictionaries(
            st.sampled_from(["seat", "top", "entrant", "winner", "token", "x", "é"]),
            SEGMENT,
            max_size=3,
        ),
        "body": st.one_of(JSONISH, BODY_FIELDS, st.binary(max_size=40)),
        "ctype": st.sampled_from(["application/json", "text/plain", None]),
        "token": st.sampled_from(["own", None, "wrong"]),
    }
)


def _send(c: TestClient, req: dict, token: str):
    method, pattern = req["route"]
    if req["method"] != "route":
        method = req["method"]
    url = pattern.format(*(quote(s, safe="%") for s in req["segments"]))
    headers = {"content-type": req["ctype"]} if req["ctype"] else {}
    if req["token"] == "own":
        headers[TOKEN_HEADER] = token
    elif req["token"] == "wrong":
        headers[TOKEN_HEADER] = "wrong"
    body = req["body"]
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return c.request(method, url, params=req["query"], content=content, headers=headers)


def _checked(r) -> None:
    assert r.status_code < 500, (r.request.url, r.status_code, r.text[:300])
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/"):
        assert isinstance(r.json().get("error"), str), r.text[:300]
    assert "hunter2" not in r.text


def test_random_views_of_a_game_get_no_5xx(served) -> None:
    """Game, decision, seat and top drawn from number-like text (Unicode digits among them)."""
    app = create_app(EXAMPLE_LOG, save_dir=served["saves"], allowed_hosts=["testserver"])
    c = _client(app, raise_server_exceptions=False)

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        kind=st.sampled_from(["games/{}", "games/{}/frames/{}", "games/{}/analysis/{}"]),
        game=st.sampled_from(["0", "1"]) | NUMBERISH,
        k=st.sampled_from(["0", "5"]) | NUMBERISH,
        query=st.fixed_dictionaries(
            {"seat": st.sampled_from(["all", "0", "1"]) | NUMBERISH}, optional={"top": NUMBERISH}
        ),
    )
    def check(kind, game, k, query) -> None:
        url = "/api/logs/1/" + kind.format(quote(game, safe=""), quote(k, safe=""))
        _checked(c.get(url, params=query))

    check()


def test_random_requests_get_no_5xx_and_change_no_file(served) -> None:
    app = create_app(
        [EXAMPLE_LOG, served["inside"]], save_dir=served["saves"], allowed_hosts=["testserver"]
    )
    c = TestClient(app, raise_server_exceptions=False)
    token = app.state.token
    live = _client(app).post("/api/live", json={"seats": ["human", "greedy"], "seed": 5})
    gid = live.json()["id"]
    before = _snapshot(served["root"])

    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(req=REQUEST, use_gid=st.booleans())
    def check(req, use_gid) -> None:
        if use_gid:
            req["segments"][0] = gid
        _checked(_send(c, req, token))

    check()
    after = _snapshot(served["root"])
    # a save request can only add a file to the save folder; nothing else changes
    assert {k: v for k, v in after.items() if k in before} == before
    assert all(Path(k).parent == served["saves"] for k in set(after) - set(before))


def test_a_file_removed_while_it_is_opened_is_a_clear_error(app, served, monkeypatch) -> None:
    import apps.viewer.core as core

    path = served["inside"] / "log.jsonl"
    read = core.read_records

    def read_then_remove(p):
        out = read(p)
        p.unlink()
        return out

    monkeypatch.setattr(core, "read_records", read_then_remove)
    r = _client(app, raise_server_exceptions=False).post("/api/logs", json={"path": str(path)})
    assert r.status_code == 400 and "cannot read it" in r.json()["error"]


def test_a_logs_policy_path_resolves_only_inside_the_served_folders(tmp_path, monkeypatch):
    from apps.viewer.core import ViewError, resolve_checkpoint

    work, logs, outside = tmp_path / "work", tmp_path / "logs", tmp_path / "outside"
    for d in (work, logs, outside):
        d.mkdir()
    (work / "mine.npz").write_bytes(b"x")
    (logs / "near.npz").write_bytes(b"x")
    (outside / "secret.npz").write_bytes(b"x")
    monkeypatch.chdir(work)
    assert resolve_checkpoint("mine.npz", logs) == (work / "mine.npz").resolve()
    assert resolve_checkpoint("near.npz", logs) == (logs / "near.npz").resolve()
    assert resolve_checkpoint(str(logs / "near.npz"), logs) == (logs / "near.npz").resolve()
    shipped = resolve_checkpoint("agents/policies/reference.npz", logs)
    assert shipped.name == "reference.npz" and shipped.is_file()
    (work / "link.npz").symlink_to(outside / "secret.npz")
    answers = set()
    for path in [
        str(outside / "secret.npz"),  # absolute, exists
        str(outside / "nothing.npz"),  # absolute, missing
        "../outside/secret.npz",  # escapes, exists
        "../outside/nothing.npz",  # escapes, missing
        "link.npz",  # a link out of the folder
        "x" * 5000,  # over-long
    ]:
        with pytest.raises(ViewError) as e:
            resolve_checkpoint(path, logs)
        assert e.value.status == 404
        answers.add(str(e.value).split(" (seat spec path")[0])
    assert len(answers) == 1  # one answer: whether an outside file exists is never told
    assert "not available to the viewer" in answers.pop()
