"""Who may talk to ``agentmem serve`` (docs/design/web.md §Web; docs/decisions/): the page acts as
the git identity of the clone it runs in, so whoever can reach it decides as that person.

- it listens on 127.0.0.1 (another address only with ``--host``, and a warning);
- a random token is in the URL printed at start (like Jupyter); the first request that carries
  it gets it back as a cookie (``HttpOnly``, ``SameSite=Strict``, named after the port) and is
  sent on to the same page without it; every request needs the cookie (or the token);
- every form carries a CSRF token, and a request that changes anything must come from the
  page's own origin (``Origin`` and ``Sec-Fetch-Site`` when the browser sends them);
- the ``Host`` header must name the address served (a DNS-rebinding page cannot reach it);
- every answer has a strict Content-Security-Policy (no script at all, nothing from elsewhere,
  no framing), ``no-store``, ``nosniff`` and no referrer to another site.

A refused request gets a 403 page in words and reaches no route: nothing is read or written.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
#: Methods that change nothing (the others must come from the page's own origin with CSRF).
SAFE_METHODS = ("GET", "HEAD")


@dataclass(frozen=True)
class Keys:
    """The secrets of one server run: the URL ``token`` and the forms' ``csrf`` token, both
    random; ``hosts`` the ``Host`` values accepted; ``cookie`` the session cookie's name."""

    token: str
    csrf: str
    hosts: frozenset[str]
    cookie: str
    origins: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def new(cls, host: str, port: int, token: str | None = None, *, loopback: bool = True) -> Keys:
        """The keys of a server on ``host:port``. On a loopback address only ``Host`` values
        naming it are accepted; on another (``--host``), any: the token still decides."""
        names = {host, "127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") else {host}
        if host.strip("[]") == "::1":
            names = {"[::1]", "localhost"}
        hosts = frozenset(f"{name}:{port}" for name in names) if loopback else frozenset()
        return cls(
            token or secrets.token_urlsafe(32),
            secrets.token_urlsafe(32),
            hosts,
            f"agentmem_{port}",
            frozenset(f"http://{h}" for h in hosts),
        )

    def csrf_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.csrf.encode())

    def token_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())


REFUSED = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentmem: not allowed</title></head>
<body><main><h1>Not allowed</h1><p>{reason}</p>
<p>Open the link that <code>agentmem serve</code> printed when it started (it carries a token),
from the terminal where it runs. Nothing was read or written.</p></main></body></html>
"""


async def _refuse(send: Send, reason: str) -> None:
    body = REFUSED.format(reason=reason).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class Gate:
    """ASGI middleware in front of every route: host, token (URL → cookie), origin of a
    change; the security headers on every answer."""

    def __init__(self, app: ASGIApp, keys: Keys, log: Callable[[str], None] | None = None) -> None:
        self.app = app
        self.keys = keys
        self.log = log or (lambda line: None)

    async def _refuse(self, scope: Scope, send: Send, reason: str, why: str) -> None:
        self.log(f"{scope.get('method', '?')} {scope.get('path', '?')} 403 ({why})")
        await _refuse(send, reason)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        keys = self.keys
        host = _header(scope, b"host") or ""
        if keys.hosts and host not in keys.hosts:
            await self._refuse(
                scope, send, "This address is not the one agentmem serve listens on.", "host"
            )
            return
        origins = keys.origins or frozenset({f"http://{host}"})
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [v for k, v in query if k == "token"]
        if given:
            if not keys.token_ok(given[-1]):
                await self._refuse(
                    scope, send, "The token in this link is not this server's.", "token"
                )
                return
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = scope.get("path", "/") + (f"?{rest}" if rest else "")
            cookie = f"{keys.cookie}={keys.token}; Path=/; HttpOnly; SameSite=Strict"
            await send(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [
                        (b"location", location.encode("latin-1")),
                        (b"set-cookie", cookie.encode("latin-1")),
                        (b"content-length", b"0"),
                        *HEADERS,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(_header(scope, b"cookie") or "")
        except Exception:  # a malformed cookie header is no cookie
            jar = SimpleCookie()
        morsel = jar.get(keys.cookie)
        if not keys.token_ok(morsel.value if morsel is not None else None):
            await self._refuse(scope, send, "This page needs the link with its token.", "token")
            return
        if scope.get("method", "GET") not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            site = _header(scope, b"sec-fetch-site")
            if (origin is not None and origin not in origins) or (
                site is not None and site not in ("same-origin", "none")
            ):
                await self._refuse(
                    scope, send, "A change must come from this page itself.", "origin"
                )
                return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
