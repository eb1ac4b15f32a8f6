"""``agentmem serve`` in a real browser (docs/design/web.md §Web): headless Chromium (Debian's
package, driven by Playwright) against the server on 127.0.0.1. Accept and edit a proposal,
remove an entry, an admin approving a draft someone else proposed, a member refused approval,
a stale form refused; every page at 1280×800 and 390×844 with no serious accessibility
violation (axe-core); every action reachable with Tab and Enter alone.

Slow (a browser and a server each): CI runs them (``.ci/run`` installs chromium); locally they
skip when chromium is missing, under CI they fail.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.helpers import git, invoke, set_identity
from tests.helpers.browser import PHONE, WIDE, chromium, need_browser, serious_violations
from typer.testing import CliRunner

from agentmem.web.server import Running, start

pytestmark = pytest.mark.slow

FLAG = "Always flag a liability cap under one million euros."
PREFER = "Prefer short sentences in the contract summaries."
QUOTE = "Quote the clause number when flagging a clause."
BRITISH = "Use British English in every contract summary."


def ok(runner: CliRunner, *args: str) -> str:
    result = invoke(runner, *args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


def remember(runner: CliRunner, text: str, section: str = "Writing style") -> str:
    ok(runner, "remember", text, "--section", section)
    pending = json.loads(ok(runner, "inbox", "--format", "json"))
    return next(p["id"] for p in pending if p["text"] == text)


@pytest.fixture
def team(memrepo: Path, runner: CliRunner) -> Path:
    """alice and carol admins, bob a member; alice's memory holds two entries, three proposals
    wait for her; bob proposed the complete draft rule warranty-24."""
    people = {
        pid: {"email": f"{pid}@example.com", "role": role}
        for pid, role in {"alice": "admin", "bob": "member", "carol": "admin"}.items()
    }
    (memrepo / "roles.yaml").write_text(yaml.safe_dump(people, sort_keys=False), encoding="utf-8")
    git(memrepo, "add", "roles.yaml")
    git(memrepo, "commit", "-q", "-m", "roles")
    ok(runner, "review", "--accept", remember(runner, FLAG, "Priorities & scope"))
    ok(runner, "review", "--accept", remember(runner, BRITISH))
    remember(runner, PREFER)
    remember(runner, QUOTE, "Recurring patterns")
    remember(runner, "Use American English in every contract summary.")
    set_identity(memrepo, "Bob", "bob@example.com")
    ok(runner, "doctrine", "propose", "--id", "warranty-24", "--title", "Warranty of 24 months",
       "--instruction", "Never accept a warranty under 24 months.", "--scope",
       "contracts/supply", "--limit", "Not for software licences.")  # fmt: skip
    set_identity(memrepo, "Alice", "alice@example.com")
    return memrepo


@pytest.fixture
def browser() -> Iterator[Any]:
    need_browser()
    with chromium() as b:
        yield b


@pytest.fixture
def server(team: Path) -> Iterator[Running]:
    running = start(team)
    try:
        yield running
    finally:
        running.stop()


def opened(browser: Any, server: Running, viewport: dict[str, int] = WIDE) -> Any:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(server.url)  # the token link: it becomes the cookie, the URL loses it
    assert "token=" not in page.url
    return page


def pending(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "inbox" / "alice").glob("*.yaml"))


def _id_of(root: Path, text: str) -> str:
    for path in (root / "inbox" / "alice").glob("*.yaml"):
        if text in path.read_text(encoding="utf-8"):
            return path.stem
    raise AssertionError(text)


def test_accept_and_edit_a_proposal_then_remove_an_entry(
    browser: Any, server: Running, team: Path
) -> None:
    page = opened(browser, server)
    page.goto(server.base + "/inbox")
    prefer = _id_of(team, PREFER)
    page.locator(f"#p-{prefer}").get_by_role("button", name="Accept").click()
    assert f"accepted {prefer}" in page.locator(".done").inner_text()
    assert PREFER in (team / "memories" / "alice.md").read_text(encoding="utf-8")

    quote = _id_of(team, QUOTE)
    page.locator(f"#p-{quote}").get_by_role("link", name="Edit").click()
    page.get_by_label("Text").fill("Quote the clause number and its title when flagging a clause.")
    page.get_by_label("Section").select_option("Writing style")
    page.get_by_role("button", name="Accept as edited").click()
    assert f"accepted {quote}" in page.locator(".done").inner_text()
    memory = (team / "memories" / "alice.md").read_text(encoding="utf-8")
    assert "Quote the clause number and its title when flagging a clause." in memory
    message = git(team, "log", "-1", "--format=%B")
    assert "Agentmem-Edited: yes" in message
    assert "Agentmem-Corrected: section: Recurring patterns -> Writing style" in message

    page.goto(server.base + "/memory")
    page.get_by_role("button", name="Remove #1").click()
    assert "removed entry #1" in page.locator(".done").inner_text()
    assert BRITISH not in (team / "memories" / "alice.md").read_text(encoding="utf-8")
    page.context.close()


def test_a_stale_form_is_refused_with_what_changed(
    browser: Any, server: Running, team: Path, runner: CliRunner
) -> None:
    page = opened(browser, server)
    page.goto(server.base + "/inbox")
    prefer = _id_of(team, PREFER)
    ok(runner, "review", "--reject", prefer)  # decided in the terminal while the page is open
    before = git(team, "rev-parse", "HEAD")
    page.locator(f"#p-{prefer}").get_by_role("button", name="Accept").click()
    alert = page.get_by_role("alert").inner_text()
    assert f"{prefer} is no longer pending: it was rejected by alice" in alert
    assert git(team, "rev-parse", "HEAD") == before
    page.get_by_role("link", name="Back to the page as it is now").click()
    assert prefer not in page.content()
    page.context.close()


def test_a_member_is_refused_approval_and_an_admin_approves_a_draft_someone_else_proposed(
    browser: Any, server: Running, team: Path, runner: CliRunner
) -> None:
    set_identity(team, "Bob", "bob@example.com")
    cli = invoke(runner, "doctrine", "approve", "warranty-24", "--version", "1")
    assert cli.exit_code == 1
    refusal = cli.stderr.strip().removeprefix("error: ").splitlines()[0]
    page = opened(browser, server)
    page.goto(server.base + "/doctrine/rule/warranty-24")
    assert "you are bob (member)" in page.locator("header").inner_text()
    page.get_by_role("button", name="Approve version 1").click()
    assert refusal in page.get_by_role("alert").inner_text()
    assert "status: draft" in (team / "doctrine" / "warranty-24.yaml").read_text()

    set_identity(team, "Alice", "alice@example.com")
    page.goto(server.base + "/doctrine/review")
    assert "1 rule waits for an admin" in page.locator(".badge").inner_text()
    item = page.get_by_role("article", name="warranty-24")
    assert "Never accept a warranty under 24 months." in item.inner_text()
    item.get_by_role("button", name="Approve version 1").click()
    assert "approved warranty-24: draft → active, version 1" in page.locator(".done").inner_text()
    rule = yaml.safe_load((team / "doctrine" / "warranty-24.yaml").read_text())
    assert rule["status"] == "active" and rule["approval"]["by"] == "alice"
    page.context.close()


PAGES = ["/", "/inbox", "/memory", "/doctrine", "/doctrine/rule/warranty-24", "/doctrine/review",
         "/audits", "/history", "/search?q=contract"]  # fmt: skip


def test_every_page_at_desktop_and_phone_size_passes_axe(
    browser: Any, server: Running, tmp_path: Path
) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    problems: list[str] = []
    for name, viewport in (("wide", WIDE), ("phone", PHONE)):
        page = opened(browser, server, viewport)
        for path in PAGES:
            page.goto(server.base + path)
            slug = path.strip("/").split("?")[0].replace("/", "-") or "home"
            page.screenshot(path=str(shots / f"{slug}-{name}.png"))
            problems += [f"{path} ({name}): {v}" for v in serious_violations(page)]
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > viewport["width"] + 1:
                problems.append(f"{path} ({name}): scrolls sideways ({width}px)")
        page.context.close()
    assert problems == []
    assert len(list(shots.glob("*.png"))) == 2 * len(PAGES)
    target = os.environ.get("SERVE_SCREENSHOTS")  # to refresh the pictures in docs/img
    if target:
        shutil.copy(shots / "inbox-wide.png", Path(target) / "serve-inbox.png")  # README
        shutil.copy(shots / "inbox-phone.png", Path(target) / "serve-inbox-phone.png")
        shutil.copy(shots / "memory-phone.png", Path(target) / "serve-memory-phone.png")  # README


def _tab_until(page: Any, wanted: str, limit: int = 80) -> None:
    """Press Tab until the focused element's accessible text is ``wanted``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.innerText || ''").strip() == wanted:
            return
    raise AssertionError(f"{wanted!r} is not reachable with Tab")


FOCUSABLE = (
    "Array.from(document.querySelectorAll('a[href], button:not([disabled]), "
    "input:not([type=hidden]), select, textarea, summary')).filter(e => e.checkVisibility())"
)


def test_keyboard_alone_reaches_every_action_and_takes_a_decision(
    browser: Any, server: Running, team: Path
) -> None:
    page = opened(browser, server)
    for path in ("/inbox", "/memory", "/doctrine/rule/warranty-24", "/doctrine/review"):
        page.goto(server.base + path)
        wanted = page.evaluate(f"{FOCUSABLE}.length")
        seen = set()
        for _ in range(wanted + 5):
            page.keyboard.press("Tab")
            seen.add(page.evaluate(f"{FOCUSABLE}.indexOf(document.activeElement)"))
        seen.discard(-1)
        assert len(seen) == wanted, f"{path}: {len(seen)} of {wanted} reachable with Tab"
    # an entry edited with the keyboard alone: the summary opens its form
    page.goto(server.base + "/memory")
    _tab_until(page, "Edit #2")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("Always flag a liability cap under two million euros.")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(".done")
    assert "two million" in (team / "memories" / "alice.md").read_text(encoding="utf-8")
    # every proposal accepted with the keyboard alone
    page.goto(server.base + "/inbox")
    _tab_until(page, "Accept all 3 shown")
    page.keyboard.press("Enter")
    page.wait_for_selector(".done")
    assert pending(team) == []
    page.context.close()
