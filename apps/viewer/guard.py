"""Who may talk to the ``lastwill view`` server: the Host check and the session token.

:class:`Guard` is ASGI middleware in front of every route. A request whose ``Host`` is not a
name the server answers to is refused (400: no DNS rebinding; a server bound to a loopback
address answers only to loopback names). An ``/api/`` request must carry the session token
(generated when the server starts, printed in the URL ``lastwill view`` opens) in the
``X-Lastwill-Token`` header or the ``token`` query parameter; without it, or with another
one, the answer is 403. The page itself and its script are not secret and need no token. Both
refusals use the lab's error shape ``{"error": ..., "allowed": ...}``.
"""

from __future__ import annotations

import ipaddress
import secrets

from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse

TOKEN_HEADER = "X-Lastwill-Token"
TOKEN_PARAM = "token"
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def new_token() -> str:
    """A fresh session token (URL-safe, 32 random bytes)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The name part of a ``Host`` header (``[::1]:8765`` -> ``[::1]``, ``a:80`` -> ``a``)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[: end + 1] if end > 0 else value
    return value.split(":")[0]


def token_matches(given: str | None, token: str) -> bool:
    if given is None:
        return False
    return secrets.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


class Guard:
    """ASGI middleware: the Host check (``hosts``; ``["*"]`` turns it off) and the session
    token on every ``/api/`` request."""

    def __init__(self, app, token: str, hosts: list[str]) -> None:
        self.app = app
        self.token = token
        self.hosts = [h.lower() for h in hosts]

    def _refusal(self, scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        if "*" not in self.hosts:
            host = host_name(headers.get("host", ""))
            if host not in self.hosts:
                return JSONResponse(
                    {
                        "error": "this server answers only requests addressed to this machine "
                        "by a loopback name (Host header)",
                        "allowed": self.hosts,
                    },
                    status_code=400,
                )
        path = scope.get("path", "")
        if path == "/api" or path.startswith("/api/"):
            given = headers.get(TOKEN_HEADER)
            if given is None:
                given = QueryParams(scope.get("query_string", b"")).get(TOKEN_PARAM)
            if not token_matches(given, self.token):
                what = "a wrong" if given is not None else "no"
                return JSONResponse(
                    {
                        "error": f"this request carries {what} session token: open the URL that "
                        f"`lastwill view` printed (it ends in ?token=...), or send the token in "
                        f"the {TOKEN_HEADER} header",
                        "allowed": [TOKEN_HEADER, TOKEN_PARAM],
                    },
                    status_code=403,
                )
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
