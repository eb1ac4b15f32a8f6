"""Running the review pages (docs/design/web.md §Web): a socket on 127.0.0.1 (another address only
when asked), uvicorn without its access log (a URL may carry a search), one line per request
from :mod:`agentmem.web.app` instead."""

from __future__ import annotations

import errno
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

from agentmem.errors import UsageError
from agentmem.store.repo import name_lock_holder
from agentmem.web.app import build_app, default_log
from agentmem.web.security import Keys

LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    return host.strip("[]") in LOOPBACK


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: a free one). Raises
    :class:`UsageError` when the port is taken or the address is not this machine's."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} is already in use (another agentmem serve?)",
                hint="choose another with --port N, or --port 0 for any free port",
            ) from None
        raise UsageError(
            f"cannot listen on {host}:{port}: {exc.strerror}",
            hint="the default, 127.0.0.1, is this machine only",
        ) from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


def url_of(host: str, port: int, token: str, path: str = "/") -> str:
    shown = f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host
    return f"http://{shown}:{port}{path}?token={token}"


@dataclass
class Running:
    """A server started by :func:`start` (tests, benchmarks, ``--open``): its URL with the
    token, its keys, and how to stop it."""

    url: str
    base: str
    keys: Keys
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _server(app: Any) -> Any:
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )
    return uvicorn.Server(config)


def prepare(
    root: Path, host: str, port: int, log: Callable[[str], None] | None = None
) -> tuple[socket.socket, Keys, Any, str]:
    """The socket, the keys of this run, the application and the URL to open."""
    name_lock_holder("agentmem serve")
    sock = listen(host, port)
    actual = sock.getsockname()[1]
    keys = Keys.new(host, actual, loopback=is_loopback(host))
    app = build_app(root, keys, log if log is not None else default_log)
    return sock, keys, app, url_of(host, actual, keys.token)


def run(sock: socket.socket, app: Any, on_start: Callable[[], None] | None = None) -> None:
    """Serve until Ctrl-C."""
    server = _server(app)
    if on_start is not None:
        threading.Timer(0.2, on_start).start()
    server.run(sockets=[sock])


def start(
    root: Path, host: str = "127.0.0.1", port: int = 0, log: Callable[[str], None] | None = None
) -> Running:
    """Serve ``root`` in a background thread; returns once it answers."""
    sock, keys, app, url = prepare(root, host, port, log or (lambda line: None))
    server = _server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    base = url.split("?", 1)[0].rstrip("/")
    return Running(url, base, keys, server, thread)
