"""The ``lastwill view`` web server: a Starlette app over :mod:`apps.viewer.core` and
:mod:`apps.viewer.live`, run by uvicorn on 127.0.0.1 by default.

Routes (every answer is JSON but the page and its files; a bad request is answered with a 4xx
status and ``{"error": "what was wrong", "allowed": ...}`` and changes nothing):

- ``GET /`` the page; ``GET /static/...`` its script and style sheet (shipped in the package).
- ``GET /api/meta``: versions, the player registry, the open logs, the save folder, the
  shipped policies, the default opponents of a live game (the strongest players) and the
  players a seat may take (:func:`seat_choices`); ``games``: each installed game with its
  player counts, players and default opponents (:func:`game_choices`).
- ``GET /api/catalogue``: every card, the plan boards, the names of decks and errand spaces.
- ``GET /api/files``: the log and game files the server may open (see below).
- ``GET /api/logs``; ``POST /api/logs {"path"}`` opens one of them.
- ``GET /api/logs/{log}/games?entrant=SPEC&winner=SPEC``: the game list.
- ``GET /api/logs/{log}/games/{game}?seat=all|S``: decisions (named as that view saw them),
  money over the decisions, round starts, results. A game other than Last Will (the log's
  ``game``, :mod:`apps.viewer.tablegame`) answers with its ``game_name`` and the moments of
  that view (another seat's hidden moves one moment each); its frames are numbered by those
  moments, and its analysis is refused (no policy of it is read here).
- ``GET /api/logs/{log}/games/{game}/frames/{k}?seat=all|S``: the table before decision k.
- ``GET /api/logs/{log}/games/{game}/analysis/{k}?seat=all|S&top=N``: what a ``ppo:PATH``
  seat's policy thought at decision k (probabilities, the value estimate and it read as a win
  chance; for a policy over a prior bot, the network's own probabilities beside the played
  ones).
- ``GET /api/logs/{log}/games/{game}/values?seat=all|S``: the policy's win chance at each of
  its seat's decisions (the seats that view may look into).
- ``POST /api/live {"game", "seats", "seed", "starting_money", "board_spaces"}`` (``game``:
  an installed game, Last Will when left out; the last two are Last Will's), or
  ``{"resume": {"log", "game"}}``; ``GET /api/live/{id}``;
  ``POST /api/live/{id}/act {"action", "decision"}``; ``POST /api/live/{id}/save {"name"}``.
  A live game other than Last Will (:mod:`apps.viewer.tablelive`) says its ``game``; its
  ``decision`` counts the person's own decisions (nothing counts the others' hidden moves).

The server serves only what it was given (:mod:`apps.viewer.files`): the files and folders
it was started with, its save folder and the shipped examples; a path outside them is answered
like a missing file. Every ``/api/`` request carries the session token printed in the URL that
``lastwill view`` opens, and requests whose ``Host`` is not this machine's loopback name are
refused (no DNS rebinding; :mod:`apps.viewer.guard`). A POST must carry ``Content-Type:
application/json`` (no cross-site form posts) and a body of at most 1 MiB, nested at most 64
levels (:mod:`apps.viewer.limits`); the page's Content-Security-Policy lets it load and fetch
from this server only.
"""

from __future__ import annotations

import inspect
import math
import re
import socket
import threading
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.policyfiles import known_names
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT
from gamecore import DEFAULT_GAME, game_names, load_game

from ..play import HUMAN
from . import EXAMPLES_DIR, STATIC_DIR, limits
from .core import (
    ALL,
    GameReplay,
    ReplayCache,
    Sources,
    ViewError,
    analyse,
    catalogue,
    parse_view,
    value_series,
)
from .files import Roots
from .guard import LOOPBACK_NAMES, TOKEN_PARAM, Guard, is_loopback, new_token
from .live import LiveSessions
from .tablegame import build_replay

INT_RE = re.compile(r"-?[0-9]{1,18}")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


class ApiJSON(JSONResponse):
    """A JSON answer; a number that JSON cannot hold (NaN, infinity, read from a log) is sent
    as ``null``."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(_finite(content))


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def _cut(text: str, limit: int = limits.ECHO) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _error(e: ViewError) -> JSONResponse:
    return ApiJSON(e.payload(), status_code=e.status)


def _int(value: str, what: str) -> int:
    """An integer written in ASCII digits (at most 18 of them), else a :class:`ViewError`."""
    if not isinstance(value, str) or not INT_RE.fullmatch(value):
        raise ViewError(f"{what} must be an integer, got {limits.shown(value)}")
    return int(value)


def _query(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters (the session token aside), each one of ``allowed``."""
    q = {k: v for k, v in request.query_params.items() if k != TOKEN_PARAM}
    extra = sorted(set(q) - set(allowed))
    if extra:
        raise ViewError(f"unknown query parameter(s) {limits.shown(extra)}", allowed=list(allowed))
    return q


async def _body(request: Request) -> Any:
    """The JSON body: ``Content-Type: application/json``, at most ``limits.MAX_BODY`` bytes,
    nested at most ``limits.MAX_DEPTH`` levels, standard JSON only (no NaN)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ViewError(
            f"send the request body as JSON with Content-Type: application/json (got "
            f"{limits.shown(ctype) if ctype else 'none'})",
            status=415,
            allowed=["application/json"],
        )
    too_big = ViewError(
        f"the request body is larger than {limits.MAX_BODY} bytes",
        status=413,
        allowed={"max_bytes": limits.MAX_BODY},
    )
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limits.MAX_BODY:
        raise too_big
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limits.MAX_BODY:
            raise too_big
    if not raw:
        return {}
    try:
        return limits.loads(bytes(raw), strict=True)
    except ValueError as e:
        raise ViewError(
            f"the request body is not valid JSON ({e})", allowed={"max_depth": limits.MAX_DEPTH}
        ) from None


class SecurityHeaders:
    """ASGI middleware: the Content-Security-Policy (this server only) and no caching of API
    answers."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope.get("path", "").startswith("/api/")

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", CSP)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
                if api:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _start(paths: Any, roots: Roots, sources: Sources):
    """Serve ``paths`` (a file or folder, or a list of them): folders join ``roots``, files
    are opened in order; the first file's :class:`~apps.viewer.core.LogSource` (or None)."""
    if paths is None:
        items: list[Any] = []
    elif isinstance(paths, str | Path):
        items = [paths]
    else:
        items = list(paths)
    first = None
    for item in items:
        p = Path(item).expanduser()
        try:
            folder = p.is_dir()
        except OSError as e:
            raise ViewError(
                f"{limits.shown(str(item))}: not a usable path ({e.strerror})"
            ) from None
        if folder:
            roots.add_folder(p)
            continue
        src = sources.open(roots.add_file(p))
        first = first or src
    return first


def endpoint(fn, body: bool = False):
    """An endpoint around ``fn(request)`` (or ``fn(request, body)`` for a JSON body), run in a
    worker thread (bots and policies may think for a while); a ViewError becomes its JSON
    error answer."""

    async def run(request: Request) -> Response:
        try:
            if body:
                data = await _body(request)
                out = await run_in_threadpool(fn, request, data)
            else:
                out = await run_in_threadpool(fn, request)
        except ViewError as e:
            return _error(e)
        return out if isinstance(out, Response) else ApiJSON(out)

    return run


async def not_found(request: Request, exc: HTTPException) -> Response:
    """A missing endpoint or a method it does not take, in the lab's error shape."""
    if request.url.path.startswith("/api/") or exc.status_code != 404:
        allowed = None
        if exc.status_code == 405:
            allow = (exc.headers or {}).get("Allow", "")
            allowed = [m.strip() for m in allow.split(",") if m.strip()] or None
        msg = {404: "no such endpoint", 405: f"method {request.method} is not allowed here"}
        return _error(
            ViewError(
                f"{request.method} {_cut(request.url.path)}: "
                + msg.get(exc.status_code, str(exc.detail)),
                status=exc.status_code,
                allowed=allowed,
            )
        )
    return JSONResponse({"error": f"{_cut(request.url.path)}: not found"}, status_code=404)


def index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-store"})


def shipped_policies() -> list[str]:
    """The ``ppo:NAME`` specs of the lab's policies by name (`agents.policyfiles`): the shipped
    reference first, then the earlier ones a source checkout has in ``policies/``; Last Will's
    only, the game these pages analyse policies of."""
    return [f"ppo:{name}" for name in known_names(DEFAULT_GAME)]


def default_opponents(game: str = DEFAULT_GAME) -> list[str]:
    """The live page's opponents before anyone changes them: for Last Will the strongest
    players (docs/RESULTS.md), the shipped reference policy first, then the sprinter and the
    racer; for another game its default panel (`gamecore.Game.default_panel`)."""
    if game != DEFAULT_GAME:
        return list(load_game(game).default_panel)
    return ["ppo:reference", "sprinter", "racer"]


def seat_choices(game: str = DEFAULT_GAME) -> list[dict[str, str]]:
    """The players the Play tab offers for a seat of ``game``, each ``{"spec", "label",
    "group"}``: the person, every registered player of that game but ``ppo`` and the search
    players (group ``bots``), the lab's policies (``policies``, Last Will's), then the search
    players at their default budgets, within :data:`~apps.viewer.limits.SEARCH_BUDGETS`
    (``search``; for another game only ``mc``: ``mcts`` needs a policy of the game)."""
    from agents.mcts import DEFAULT_SIMS
    from agents.registry import entries
    from agents.search import MCAgent

    lastwill = game == DEFAULT_GAME
    mc = {k: p.default for k, p in inspect.signature(MCAgent).parameters.items()}
    search = {
        "mcts": ("mcts:policy=reference", f"search over the reference, {DEFAULT_SIMS} simulations"),
        "mc": ("mc", f"flat Monte-Carlo, {mc['rollouts']} rollouts of up to {mc['cands']} moves"),
    }
    out = [{"spec": HUMAN, "label": "human (you)", "group": "you"}]
    bots = [e for e in entries(game) if e.name not in ("ppo", *search)]
    for e in bots:
        what = e.summary.removeprefix(f"{e.name}: ")
        out.append({"spec": e.name, "label": f"{e.name} ({what})", "group": "bots"})
    if not lastwill:
        spec, what = search["mc"]
        return out + [{"spec": spec, "label": f"{spec} ({what})", "group": "search"}]
    for spec in shipped_policies():
        shipped = spec == "ppo:reference"
        what = "the shipped reference" if shipped else "an earlier policy, policies/INDEX.md"
        out.append({"spec": spec, "label": f"{spec} ({what})", "group": "policies"})
    for spec, what in search.values():
        out.append({"spec": spec, "label": f"{spec} ({what})", "group": "search"})
    return out


def game_choices() -> list[dict[str, Any]]:
    """The games the Play tab offers (Last Will first), each with its player counts, its
    default count, the players a seat may take and the default opponents, and the setup fields
    only it takes (``options``)."""
    out = []
    for name in sorted(game_names(), key=lambda g: (g != DEFAULT_GAME, g)):
        game = load_game(name)
        counts = list(game.player_counts)
        out.append(
            {
                "name": name,
                "title": game.title,
                "player_counts": counts,
                "default_players": 4 if 4 in counts else counts[0],
                "seat_choices": seat_choices(name),
                "default_opponents": default_opponents(name),
                "options": ["starting_money", "board_spaces"] if name == DEFAULT_GAME else [],
            }
        )
    return out


class Viewer:
    """What one server holds (the open logs, the replay cache, the live games, the served
    files) and its request handlers, one method per route (:meth:`routes`)."""

    def __init__(self, paths: Any, save_dir: str | Path, move_time_limit: float) -> None:
        self.sources = Sources()
        self.cache = ReplayCache(others=build_replay)
        self.save = Path(save_dir)
        try:  # outside agents in live games play under it (agents.timelimit)
            self.sessions = LiveSessions(self.save, move_time_limit=move_time_limit)
        except ValueError as e:
            raise ViewError(str(e)) from None
        self.roots = Roots(folders=[self.save, EXAMPLES_DIR])
        self.first = _start(paths, self.roots, self.sources)

    def routes(self) -> list:
        api = endpoint
        return [
            Route("/", index),
            Route("/api/meta", api(self.meta)),
            Route("/api/catalogue", api(lambda r: catalogue())),
            Route("/api/files", api(self.files), methods=["GET"]),
            Route("/api/logs", api(self.get_logs), methods=["GET"]),
            Route("/api/logs", api(self.post_logs, body=True), methods=["POST"]),
            Route("/api/logs/{log}/games", api(self.games)),
            Route("/api/logs/{log}/games/{game}", api(self.game)),
            Route("/api/logs/{log}/games/{game}/frames/{k}", api(self.frame)),
            Route("/api/logs/{log}/games/{game}/analysis/{k}", api(self.analysis)),
            Route("/api/logs/{log}/games/{game}/values", api(self.values)),
            Route("/api/live", api(self.live_new, body=True), methods=["POST"]),
            Route("/api/live/{gid}", api(self.live_get), methods=["GET"]),
            Route("/api/live/{gid}/act", api(self.live_act, body=True), methods=["POST"]),
            Route("/api/live/{gid}/save", api(self.live_save, body=True), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]

    # -- the server and its files ------------------------------------------------------------
    def meta(self, request: Request) -> dict[str, Any]:
        import lastwill_env
        from agents.registry import entries

        players = [{"name": e.name, "summary": e.summary, "params": e.params} for e in entries()]
        return {
            "env_name": lastwill_env.ENV_NAME,
            "players": players,
            "logs": self.sources.list(),
            "first_log": self.first.id if self.first is not None else None,
            "save_dir": str(self.save.resolve()),
            "served": self.roots.described(),
            "examples": sorted(str(p) for p in EXAMPLES_DIR.glob("*.json*")),
            "policies": shipped_policies(),
            "default_opponents": default_opponents(),
            "seat_choices": seat_choices(),
            "games": game_choices(),
        }

    def files(self, request: Request) -> dict[str, Any]:
        _query(request, ())
        return {"served": self.roots.described(), "files": self.roots.listing()}

    def get_logs(self, request: Request) -> dict[str, Any]:
        return {"logs": self.sources.list()}

    def post_logs(self, request: Request, body: Any) -> dict[str, Any]:
        if (
            not isinstance(body, dict)
            or set(body) != {"path"}
            or not isinstance(body.get("path"), str)
        ):
            raise ViewError(
                'send {"path": "FILE"}: an arena log or a game file the viewer serves (GET '
                "/api/files lists them)",
                allowed=["path"],
            )
        return self.sources.open(self.roots.find(body["path"])).describe()

    # -- replays -----------------------------------------------------------------------------
    def games(self, request: Request) -> dict[str, Any]:
        q = _query(request, ("entrant", "winner"))
        src = self.sources.get(request.path_params["log"])
        return src.games(q.get("entrant") or None, q.get("winner") or None)

    def _replay(self, request: Request):
        src = self.sources.get(request.path_params["log"])
        rep = self.cache.get(src, _int(request.path_params["game"], "game"))
        return src, rep

    def game(self, request: Request) -> dict[str, Any]:
        q = _query(request, ("seat",))
        _, rep = self._replay(request)
        return rep.detail(parse_view(q.get("seat"), rep.n))

    def frame(self, request: Request) -> dict[str, Any]:
        q = _query(request, ("seat",))
        _, rep = self._replay(request)
        viewer = parse_view(q.get("seat"), rep.n)
        return rep.frame(_int(request.path_params["k"], "decision"), viewer)

    def analysis(self, request: Request) -> dict[str, Any]:
        q = _query(request, ("seat", "top"))
        src, rep = self._replay(request)
        viewer = parse_view(q.get("seat"), rep.n)
        if not isinstance(rep, GameReplay):
            raise ViewError(
                f"the policy panel reads Last Will policies only; this is a game of "
                f"{src.game_name!r}"
            )
        top = _int(q.get("top", "5"), "top")
        k = _int(request.path_params["k"], "decision")
        return analyse(rep, k, viewer, top=top, log_dir=src.path.parent)

    def values(self, request: Request) -> dict[str, Any]:
        q = _query(request, ("seat",))
        src, rep = self._replay(request)
        viewer = parse_view(q.get("seat"), rep.n)
        if not isinstance(rep, GameReplay):  # no policy of another game is read here
            return {"view": ALL if viewer is None else viewer, "seats": {}}
        return value_series(rep, viewer, log_dir=src.path.parent)

    # -- live games --------------------------------------------------------------------------
    def live_new(self, request: Request, body: Any) -> dict[str, Any]:
        if isinstance(body, dict) and "resume" in body:
            live = self._resume(body)
        else:
            live = self.sessions.create(body)
        with live.lock:
            return live.snapshot()

    def _resume(self, body: dict[str, Any]):
        r = body["resume"]
        if set(body) != {"resume"} or not isinstance(r, dict) or set(r) != {"log", "game"}:
            raise ViewError(
                'to continue a saved game send {"resume": {"log": ID, "game": N}}',
                allowed=["resume"],
            )
        src = self.sources.get(str(r["log"]))
        if type(r["game"]) is not int:
            raise ViewError(f"'game' must be an integer, got {r['game']!r}")
        record = src.record(r["game"])  # 404 when there is no such game
        if src.game_name != DEFAULT_GAME:
            raise ViewError(
                f"{src.path.name} is a game of {src.game_name!r}; only a saved Last Will game "
                f"can be continued here (start a new game in the Play tab)"
            )
        if src.describe()["kind"] != "game file":
            raise ViewError(
                f"{src.path.name} is an arena log; only a saved play game (one game file) "
                f"can be continued"
            )
        return self.sessions.resume(src.path, list(record.get("seating") or []))

    def live_get(self, request: Request) -> dict[str, Any]:
        live = self.sessions.get(request.path_params["gid"])
        with live.lock:  # never held while a bot thinks (apps.viewer.live)
            return live.snapshot()

    def live_act(self, request: Request, body: Any) -> dict[str, Any]:
        live = self.sessions.get(request.path_params["gid"])
        if not isinstance(body, dict) or set(body) != {"action", "decision"}:
            raise ViewError(
                'send {"action": A, "decision": K}: a legal action and the number of the '
                "decision it answers",
                allowed=["action", "decision"],
            )
        live.act(body["action"], body["decision"])  # the bots' moves too
        with live.lock:
            return live.snapshot()

    def live_save(self, request: Request, body: Any) -> dict[str, Any]:
        live = self.sessions.get(request.path_params["gid"])
        if not isinstance(body, dict) or not set(body) <= {"name"}:
            raise ViewError('send {"name": "FILE.json"} or {} for a new name', allowed=["name"])
        with live.lock:
            path = live.save(body.get("name"))
        src = self.sources.open(path)
        return {"path": str(path), "log": src.describe()}


def create_app(
    paths: str | Path | Sequence[str | Path] | None = None,
    save_dir: str | Path = "runs/play",
    allowed_hosts: list[str] | None = None,
    token: str | None = None,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> Starlette:
    """The app serving ``paths``: a log or game file, a folder of them, or a list of these
    (the files are opened first, in order), plus the save folder ``save_dir`` and the shipped
    examples. ``token`` is the session token every ``/api/`` request must carry (a fresh one
    when not given: ``app.state.token``). Raises :class:`ViewError` for a bad file."""
    viewer = Viewer(paths, save_dir, move_time_limit)
    token = token or new_token()
    hosts = allowed_hosts if allowed_hosts is not None else LOOPBACK_NAMES
    app = Starlette(
        routes=viewer.routes(),
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(Guard, token=token, hosts=hosts),
        ],
        exception_handlers={HTTPException: not_found},
    )
    app.state.viewer = viewer
    app.state.sources = viewer.sources
    app.state.sessions = viewer.sessions
    app.state.roots = viewer.roots
    app.state.first_log = viewer.first
    app.state.token = token
    return app


# ---------------------------------------------------------------------------------------------
# Serving


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; a clear :class:`ViewError` when the address cannot be used."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        hint = "choose another --port (or --port 0 for a free one)"
        raise ViewError(f"cannot listen on {host}:{port} ({e.strerror or e}); {hint}") from None
    sock.listen(128)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1" if host == "0.0.0.0" else "[::1]"
    return f"http://{shown}:{port}/"


def make_server(app: Starlette, log_level: str = "warning"):
    import uvicorn

    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off")
    return uvicorn.Server(config)


def hosts_for(host: str) -> list[str]:
    """Host names the server answers to: the loopback names (and ``host``) when ``host`` is a
    loopback address; any name when it is not (the user chose to expose the server, and the
    session token is then the only guard)."""
    if is_loopback(host):
        return sorted({*LOOPBACK_NAMES, host.lower()})
    return ["*"]


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse (:class:`ViewError`) a ``host`` that other machines can reach, unless
    ``allow_remote``."""
    if not is_loopback(host) and not allow_remote:
        raise ViewError(
            f"--host {limits.shown(host, 60)} is not a loopback address: other machines could "
            f"reach the viewer, which reads your logs and runs bots and policies; listen on "
            f"127.0.0.1 (the default), or pass --allow-remote as well if you mean it",
            allowed=["127.0.0.1", "localhost", "::1", "--allow-remote"],
        )


def page_url(sock: socket.socket, token: str) -> str:
    """The page's address with the session token (``http://HOST:PORT/?token=...``)."""
    return f"{url_of(sock)}?{TOKEN_PARAM}={token}"


def serve(
    paths: str | Path | Sequence[str | Path] | None,
    host: str = "127.0.0.1",
    port: int = 8765,
    open_browser: bool = True,
    save_dir: str | Path = "runs/play",
    on_ready=None,
    allow_remote: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> None:
    """Open ``paths`` (:func:`create_app`), listen on ``host:port`` and serve until
    interrupted; ``on_ready(url)`` gets the page's address with its session token. A
    ``host`` that is not a loopback address needs ``allow_remote``."""
    check_host(host, allow_remote)
    app = create_app(
        paths, save_dir=save_dir, allowed_hosts=hosts_for(host), move_time_limit=move_time_limit
    )
    sock = bind(host, port)
    url = page_url(sock, app.state.token)
    first = app.state.first_log
    if first is not None:
        url += f"#log={first.id}"
    server = make_server(app)
    if on_ready is not None:
        on_ready(url)
    if open_browser:
        threading.Timer(0.5, lambda: webbrowser.open(url)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


class BackgroundServer:
    """The app served from a thread (for tests and scripts): ``with BackgroundServer(app) as
    url: ...``, where ``url`` is the page's address with the session token
    (``http://127.0.0.1:PORT/?token=...``); binds 127.0.0.1 on a free port."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app, self.host, self.port = app, host, port
        self.url = ""
        self._server = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> str:
        import time

        sock = bind(self.host, self.port)
        self.url = page_url(sock, self.app.state.token)
        self._server = make_server(self.app)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the viewer server did not start")
            time.sleep(0.02)
        self._sock = sock
        return self.url

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._sock.close()


__all__ = [
    "ALL",
    "BackgroundServer",
    "bind",
    "check_host",
    "create_app",
    "make_server",
    "page_url",
    "serve",
    "url_of",
]
