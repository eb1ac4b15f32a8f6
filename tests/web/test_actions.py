"""Each action of the review pages and its CLI command make the same commit (docs/design/web.md
§Web): the same tree and the same message with its ``Agentmem-*`` trailers, on two copies of
one repository (times aside: an approval's ``at`` is masked). The default run keeps the accept;
the others are slow-marked (a CLI run and a page run each: seconds under load)."""

from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from tests.helpers import git, invoke, set_identity
from tests.helpers.web import form_fields, head, seeded_once, serve, twin
from typer.testing import CliRunner

PREFER = "Prefer short sentences in the contract summaries."
FLAG = "Always flag a liability cap under one million euros."


def remember(runner: CliRunner, text: str, section: str = "Writing style") -> str:
    result = invoke(runner, "remember", text, "--section", section)
    assert result.exit_code == 0, result.stderr
    pending = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
    return next(p["id"] for p in pending if p["text"] == text)


def ok(runner: CliRunner, *args: str) -> None:
    result = invoke(runner, *args)
    assert result.exit_code == 0, (result.stdout, result.stderr)


def same_commit(cli: Path, page: Path) -> None:
    assert head(cli) == head(page)


@pytest.fixture
def seeded(
    memrepo: Path,
    runner: CliRunner,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """alice's memory with one entry, and two proposals pending (seeded once per process)."""

    def seed() -> None:
        first = remember(runner, FLAG, "Priorities & scope")
        ok(runner, "review", "--accept", first)
        remember(runner, PREFER)
        remember(runner, "Quote the clause number when flagging a clause.", "Recurring patterns")

    seeded_once("same-commit", memrepo, tmp_path_factory, monkeypatch, seed)
    return memrepo


def _pending(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "inbox" / "alice").glob("*.yaml"))


@pytest.mark.slow
def test_accept_from_the_page_is_the_commit_of_review_accept(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    page = twin(seeded, tmp_path)
    pid = _pending(seeded)[0]
    ok(runner, "review", "--accept", pid)
    web = serve(page)
    html = web.get("/inbox")
    web.post(f"/inbox/{pid}/accept", form_fields(html, f"/inbox/{pid}/accept"))
    same_commit(seeded, page)


@pytest.mark.slow
def test_an_edit_and_a_correction_from_the_page_are_the_commit_of_review_edit_and_section(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    page = twin(seeded, tmp_path)
    pid = next(
        p for p in _pending(seeded) if PREFER in (seeded / "inbox/alice" / f"{p}.yaml").read_text()
    )
    new = "Prefer short, active sentences in the contract summaries."
    ok(runner, "review", "--edit", f"{pid}={new}", "--section", f"{pid}=Recurring patterns")
    web = serve(page)
    html = web.get(f"/inbox/{pid}")
    fields = dict(form_fields(html, f"/inbox/{pid}/accept"))
    web.post(
        f"/inbox/{pid}/accept",
        {
            **fields,
            "text": new,
            "route": "memory",
            "section": "Recurring patterns",
            "scope": "everywhere",
        },
    )
    same_commit(seeded, page)
    message = head(page)[1]
    assert "Agentmem-Edited: yes" in message
    assert "Agentmem-Corrected: section: Writing style -> Recurring patterns" in message


@pytest.mark.slow
def test_a_reject_from_the_page_is_the_commit_of_review_reject(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    page = twin(seeded, tmp_path)
    pid = _pending(seeded)[1]
    ok(runner, "review", "--reject", pid)
    web = serve(page)
    web.post(f"/inbox/{pid}/reject", {})
    same_commit(seeded, page)


@pytest.mark.slow
def test_a_route_correction_to_doctrine_is_the_commit_of_review_route(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    page = twin(seeded, tmp_path)
    pid = next(
        p for p in _pending(seeded) if PREFER in (seeded / "inbox/alice" / f"{p}.yaml").read_text()
    )
    ok(runner, "review", "--route", f"{pid}=doctrine")
    web = serve(page)
    html = web.get(f"/inbox/{pid}")
    fields = dict(form_fields(html, f"/inbox/{pid}/accept"))
    web.post(
        f"/inbox/{pid}/accept",
        {**fields, "text": PREFER, "route": "doctrine", "scope": "everywhere"},
    )
    _tree, cli_message = head(seeded)
    _tree, page_message = head(page)
    mask = re.compile(r"proposed_at: \S+")
    assert cli_message == page_message
    rule = next((seeded / "doctrine").glob("*.yaml")).name
    assert mask.sub("", (seeded / "doctrine" / rule).read_text()) == mask.sub(
        "", (page / "doctrine" / rule).read_text()
    )


def _edit_script(tmp_path: Path, old: str, new: str | None) -> str:
    """An $EDITOR that replaces (or, with None, removes) the line holding ``old``."""
    script = tmp_path / "editor.py"
    body = (
        "import sys\n"
        "p = sys.argv[1]\n"
        "lines = open(p, encoding='utf-8').read().splitlines(keepends=True)\n"
        f"old, new = {old!r}, {new!r}\n"
        "out = []\n"
        "for line in lines:\n"
        "    if old in line:\n"
        "        if new is None:\n"
        "            continue\n"
        "        line = line.replace(old, new)\n"
        "    out.append(line)\n"
        "open(p, 'w', encoding='utf-8').write(''.join(out))\n"
    )
    script.write_text(body, encoding="utf-8")
    return f"{sys.executable} {script}"


@pytest.mark.slow
@pytest.mark.parametrize("removed", [False, True], ids=["edit", "remove"])
def test_an_entry_edited_or_removed_on_the_page_is_the_commit_of_memory_edit(
    seeded: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, removed: bool
) -> None:
    page = twin(seeded, tmp_path)
    new = None if removed else "Always flag a liability cap under two million euros."
    monkeypatch.setenv("EDITOR", _edit_script(tmp_path, FLAG, new))
    ok(runner, "memory", "edit")
    web = serve(page)
    html = web.get("/memory")
    action = "/memory/1/remove" if removed else "/memory/1/edit"
    fields = form_fields(html, action)
    if not removed:
        fields.append(("text", new or ""))
    web.post(action, fields)
    same_commit(seeded, page)


@pytest.mark.slow
def test_keep_on_the_page_is_the_commit_of_memory_reconfirm(
    seeded: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past the yearly review of an entry the fixture accepted today, whatever today is
    later = datetime.date.today() + datetime.timedelta(days=400)
    monkeypatch.setenv("AGENTMEM_TODAY", later.isoformat())
    page = twin(seeded, tmp_path)
    ok(runner, "memory", "reconfirm", "1")
    web = serve(page)
    html = web.get("/memory")
    assert "review due" in html
    web.post("/memory/1/keep", form_fields(html, "/memory/1/keep"))
    same_commit(seeded, page)


@pytest.fixture
def team(memrepo: Path) -> Path:
    """alice and carol admins, bob a member."""
    people = {
        pid: {"email": f"{pid}@example.com", "role": role}
        for pid, role in {"alice": "admin", "bob": "member", "carol": "admin"}.items()
    }
    (memrepo / "roles.yaml").write_text(yaml.safe_dump(people, sort_keys=False), encoding="utf-8")
    git(memrepo, "add", "roles.yaml")
    git(memrepo, "commit", "-q", "-m", "roles")
    return memrepo


def propose(runner: CliRunner, rule_id: str = "warranty-24") -> None:
    ok(runner, "doctrine", "propose", "--id", rule_id, "--title", "Warranty of 24 months",
       "--instruction", "Never accept a warranty under 24 months.", "--scope",
       "contracts/supply", "--limit", "Not for software licences.")  # fmt: skip


def _masked(root: Path, rule_id: str) -> str:
    text = (root / "doctrine" / f"{rule_id}.yaml").read_text(encoding="utf-8")
    return re.sub(r"at: '?[0-9T:-]+Z'?", "at: …", text)


@pytest.mark.slow
def test_an_approval_on_the_page_is_the_commit_of_doctrine_approve(
    team: Path, runner: CliRunner, tmp_path: Path
) -> None:
    set_identity(team, "Bob", "bob@example.com")
    propose(runner)
    set_identity(team, "Alice", "alice@example.com")
    page = twin(team, tmp_path)
    ok(runner, "doctrine", "approve", "warranty-24", "--version", "1")
    web = serve(page)
    html = web.get("/doctrine/rule/warranty-24")
    web.post(
        "/doctrine/rule/warranty-24/approve",
        form_fields(html, "/doctrine/rule/warranty-24/approve"),
    )
    assert head(team)[1] == head(page)[1]
    assert _masked(team, "warranty-24") == _masked(page, "warranty-24")
    # then suspend, from the queue's twin: the same commit as doctrine suspend
    page2 = twin(team, tmp_path, "twin2")
    ok(runner, "doctrine", "suspend", "warranty-24")
    web2 = serve(page2)
    html = web2.get("/doctrine/rule/warranty-24")
    web2.post(
        "/doctrine/rule/warranty-24/suspend",
        form_fields(html, "/doctrine/rule/warranty-24/suspend"),
    )
    same_commit(team, page2)


@pytest.mark.slow
def test_a_reason_given_on_the_page_is_the_commit_of_approve_with_reason(
    team: Path, runner: CliRunner, tmp_path: Path
) -> None:
    set_identity(team, "Bob", "bob@example.com")
    propose(runner)
    set_identity(team, "Alice", "alice@example.com")
    page = twin(team, tmp_path)
    why = "Agreed with legal on Monday."
    ok(runner, "doctrine", "approve", "warranty-24", "--version", "1", "--reason", why)
    web = serve(page)
    html = web.get("/doctrine/rule/warranty-24")
    fields = [
        f for f in form_fields(html, "/doctrine/rule/warranty-24/approve") if f[0] != "reason"
    ]
    web.post("/doctrine/rule/warranty-24/approve", [*fields, ("reason", why)])
    assert head(team)[1] == head(page)[1]
    assert f"Agentmem-Reason: {why}" in git(page, "log", "-1", "--format=%B")


@pytest.mark.slow
@pytest.mark.parametrize(
    "steps",
    [("suspend", "resume"), ("deactivate",), ("archive",), ("reconfirm",)],
    ids=["resume", "deactivate", "archive", "reconfirm"],
)
def test_each_transition_on_the_page_is_the_commit_of_its_doctrine_command(
    team: Path, runner: CliRunner, tmp_path: Path, steps: tuple[str, ...]
) -> None:
    set_identity(team, "Bob", "bob@example.com")
    propose(runner)
    set_identity(team, "Alice", "alice@example.com")
    ok(runner, "doctrine", "approve", "warranty-24", "--version", "1")
    page = twin(team, tmp_path)
    web = serve(page)
    for step in steps:
        ok(runner, "doctrine", step, "warranty-24")
        html = web.get("/doctrine/rule/warranty-24")
        action = f"/doctrine/rule/warranty-24/{step}"
        web.post(action, form_fields(html, action))
        same_commit(team, page)


@pytest.mark.slow
def test_replacing_the_contradicted_entry_on_the_page_is_the_commit_of_review_modify(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    other = remember(runner, "Never flag a liability cap under one million euros.",
                     "Priorities & scope")  # fmt: skip
    page = twin(seeded, tmp_path)
    ok(runner, "review", "--modify", f"{other}=1")
    web = serve(page)
    html = web.get("/inbox")
    card = html[html.index(f'id="p-{other}"') :]
    match = re.search(r'<input type="hidden" name="modify" value="1">', card)
    assert match, "no replace form"
    forms = re.findall(
        rf'<form method="post" action="/inbox/{other}/accept"[^>]*>(.*?)</form>', card, re.S
    )
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', forms[1])
    web.post(f"/inbox/{other}/accept", fields)
    same_commit(seeded, page)


@pytest.mark.slow
def test_accept_all_on_the_page_is_the_commits_of_review_accept_all(
    seeded: Path, runner: CliRunner, tmp_path: Path
) -> None:
    page = twin(seeded, tmp_path)
    ok(runner, "review", "--accept", "all")
    web = serve(page)
    web.post("/inbox/accept-all", form_fields(web.get("/inbox"), "/inbox/accept-all"))
    assert _pending(seeded) == _pending(page) == []
    for rev in ("HEAD~1", "HEAD"):
        assert git(seeded, "log", "-1", "--format=%T%n%B", rev) == git(
            page, "log", "-1", "--format=%T%n%B", rev
        )


@pytest.mark.slow
def test_a_restore_on_the_page_is_the_commit_of_doctrine_restore(
    team: Path, runner: CliRunner, tmp_path: Path
) -> None:
    propose(runner)
    ok(runner, "doctrine", "edit", "warranty-24", "--instruction",
       "Never accept a warranty under 36 months.", "--yes")  # fmt: skip
    page = twin(team, tmp_path)
    ok(runner, "doctrine", "restore", "warranty-24", "--version", "1", "--yes")
    web = serve(page)
    html = web.get("/doctrine/rule/warranty-24")
    fields = form_fields(html, "/doctrine/rule/warranty-24/restore")
    web.post("/doctrine/rule/warranty-24/restore", [*fields, ("restore", "1"), ("reason", "")])
    same_commit(team, page)
    assert "under 24 months" in (page / "doctrine" / "warranty-24.yaml").read_text()
