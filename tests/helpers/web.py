"""Helpers for the ``agentmem serve`` tests (no tests here): an in-process client of the review
pages with this run's token, forms read back from the HTML, commits compared with the CLI's."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

from starlette.testclient import TestClient
from tests.helpers import git

from agentmem.web.app import build_app
from agentmem.web.security import Keys

HOST = "127.0.0.1"
PORT = 8765
BASE = f"http://{HOST}:{PORT}"


@dataclass
class Web:
    """A client of the pages of ``root``: logged in (the token's cookie), its ``keys`` and the
    server's ``log`` lines."""

    root: Path
    client: TestClient
    keys: Keys
    log: list[str] = field(default_factory=list)

    def get(self, path: str, status: int = 200) -> str:
        response = self.client.get(path)
        assert response.status_code == status, (response.status_code, text_of(response.text))
        return response.text

    def post(
        self, path: str, data: dict[str, str] | list[tuple[str, str]], status: int | None = 303
    ):  # type: ignore[no-untyped-def]
        fields = list(data.items()) if isinstance(data, dict) else list(data)
        if not any(k == "csrf" for k, _ in fields):
            fields.append(("csrf", self.keys.csrf))
        response = self.client.post(
            path,
            content=urlencode(fields),
            headers={"content-type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        if status is not None:
            assert response.status_code == status, (response.status_code, text_of(response.text))
        return response

    def follow(self, response) -> str:  # type: ignore[no-untyped-def]
        """The page a decision redirected to (it says what was done)."""
        return self.get(response.headers["location"].replace(BASE, ""))


def serve(root: Path) -> Web:
    """The review pages of ``root`` in process (Starlette's TestClient), logged in."""
    keys = Keys.new(HOST, PORT)
    lines: list[str] = []
    client = TestClient(build_app(root, keys, lines.append), base_url=BASE)
    client.cookies.set(keys.cookie, keys.token)
    return Web(root, client, keys, lines)


def text_of(html: str) -> str:
    """A page's words (tags dropped, entities decoded, white space collapsed)."""
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def form_fields(html: str, action: str) -> list[tuple[str, str]]:
    """The hidden fields of the first form posting to ``action`` (what the page would send)."""
    match = re.search(
        rf'<form method="post" action="{re.escape(action)}"[^>]*>(.*?)</form>', html, re.S
    )
    assert match, f"no form to {action}"
    return [
        (unescape(name), unescape(value))
        for name, value in re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)">', match.group(1)
        )
    ]


def twin(root: Path, tmp_path: Path, name: str = "twin") -> Path:
    """A copy of the repository ``root`` (work tree and history): one takes a decision through
    the CLI, the other through the page."""
    dest = tmp_path / name
    shutil.copytree(root, dest, symlinks=True)
    return dest


def head(root: Path) -> tuple[str, str]:
    """The last commit's tree and message (its subject and trailers)."""
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    return tree, git(root, "log", "-1", "--format=%B")


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


_SEEDS: dict[str, tuple[Path, object]] = {}


def seeded_once(key: str, memrepo: Path, factory, monkeypatch, seed):  # type: ignore[no-untyped-def]
    """``seed()`` run through the CLI in ``memrepo`` once per test process (its result kept);
    for each later test, ``memrepo`` becomes a copy of the repository it made: seeding through
    the real path costs seconds, a copy milliseconds. Returns ``seed()``'s result."""
    if key not in _SEEDS:
        result = seed()
        _SEEDS[key] = (twin(memrepo, factory.mktemp(f"seed-{key}"), "mem"), result)
        return result
    template, result = _SEEDS[key]
    monkeypatch.chdir(memrepo.parent)
    shutil.rmtree(memrepo)
    shutil.copytree(template, memrepo, symlinks=True)
    monkeypatch.chdir(memrepo)
    return result
