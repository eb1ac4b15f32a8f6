"""A person's decision is recorded whole (docs/design/doctrine.md §Lifecycle, §Trailers): approve and the
other rule transitions take ``--reason`` and ``--session`` (``Agentmem-Reason``,
``Agentmem-Session``), the API passes them, ``check --history`` accepts them; and the library's
governance functions take the actor from the repository's identity, never from an argument."""

from __future__ import annotations

import inspect
import json
from datetime import date, timedelta
from pathlib import Path

import pytest
import yaml
from tests.helpers import git, invoke, set_identity
from typer.testing import CliRunner

import agentmem
from agentmem.errors import GovernanceError

SESSION = "0b5b3c1e-1111-4222-8333-944455556666"


def _team(root: Path) -> None:
    people = {
        "alice": {"email": "alice@example.com", "role": "admin"},
        "bob": {"email": "bob@example.com", "role": "member"},
    }
    (root / "roles.yaml").write_text(yaml.safe_dump(people), encoding="utf-8")
    git(root, "add", "roles.yaml")
    git(root, "commit", "-qm", "roles: bob, member")


def _as(root: Path, person: str) -> None:
    set_identity(root, person.capitalize(), f"{person}@example.com")


def _bob_proposes(root: Path, runner: CliRunner, rule_id: str = "warranty-floor") -> None:
    _as(root, "bob")
    result = invoke(
        runner, "doctrine", "propose", "--id", rule_id, "--title", "Warranty floor",
        "--instruction", "Refuse warranties under 24 months.", "--scope", "contracts",
        "--limit", "Not for software licences.",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _as(root, "alice")


def _trailers(root: Path, rev: str = "HEAD") -> dict[str, list[str]]:
    out = git(root, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line.strip():
            key, value = line.split(": ", 1)
            found.setdefault(key, []).append(value)
    return found


@pytest.fixture
def team(memrepo: Path) -> Path:
    _team(memrepo)
    return memrepo


@pytest.mark.slow
def test_approve_and_every_transition_record_the_reason_and_the_session(
    team: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bob_proposes(team, runner)
    earlier = (date.today() - timedelta(days=40)).isoformat()
    monkeypatch.setenv("AGENTMEM_TODAY", earlier)  # so that a reconfirmation today moves the date
    approved = invoke(
        runner, "doctrine", "approve", "warranty-floor", "--version", "1",
        "--reason", "Agreed at the  supply\nreview.", "--session", SESSION,
    )  # fmt: skip
    assert approved.exit_code == 0, approved.stderr
    said = _trailers(team)
    assert said["Agentmem-Action"] == ["approve"]
    assert said["Agentmem-Reason"] == ["Agreed at the supply review."]
    assert said["Agentmem-Session"] == [SESSION]
    assert said["Agentmem-Actor"] == ["alice <alice@example.com>"]
    monkeypatch.delenv("AGENTMEM_TODAY")

    for command, reason in [
        ("suspend", "Paused while legal rereads it."),
        ("resume", "Legal agreed."),
        ("reconfirm", "Still right after a year."),
        ("deactivate", "Replaced by the new supply policy."),
        ("archive", "Kept for the record."),
    ]:
        result = invoke(runner, "doctrine", command, "warranty-floor", "--reason", reason)
        assert result.exit_code == 0, (command, result.stderr)
        assert _trailers(team)["Agentmem-Reason"] == [reason]
        assert "Agentmem-Session" not in _trailers(team)

    history = invoke(runner, "doctrine", "history", "warranty-floor")
    assert "why: Agreed at the supply review." in history.stdout
    assert "why: Kept for the record." in history.stdout
    rows = json.loads(invoke(runner, "doctrine", "history", "warranty-floor", "-f", "json").stdout)
    assert rows[1]["reason"] == "Agreed at the supply review." and rows[1]["session"] == SESSION

    check = invoke(runner, "check", "--history", "--format", "json")
    assert check.exit_code == 0, check.stdout
    assert json.loads(check.stdout) == []


def test_restore_records_the_reason(team: Path, runner: CliRunner) -> None:
    _bob_proposes(team, runner)
    _as(team, "bob")
    edited = invoke(runner, "doctrine", "edit", "warranty-floor", "--title", "Warranty minimum")
    assert edited.exit_code == 0, edited.stderr
    restored = invoke(
        runner, "doctrine", "restore", "warranty-floor", "--version", "1",
        "--reason", "The old title is the team's word.",
    )  # fmt: skip
    assert restored.exit_code == 0, restored.stderr
    said = _trailers(team)
    assert said["Agentmem-Restored-From"] == ["1"]
    assert said["Agentmem-Reason"] == ["The old title is the team's word."]


def test_a_reason_the_guard_refuses_is_not_recorded_nor_echoed(
    team: Path, runner: CliRunner
) -> None:
    _bob_proposes(team, runner)
    head = git(team, "rev-parse", "HEAD")
    secret = "sk-ant-api03-" + "Q" * 40
    result = invoke(
        runner, "doctrine", "approve", "warranty-floor", "-v", "1", "--reason", f"key {secret}"
    )
    assert result.exit_code == 1
    assert "--reason: refused" in result.stderr
    assert secret not in result.stdout + result.stderr
    assert git(team, "rev-parse", "HEAD") == head
    bad_session = invoke(
        runner, "doctrine", "suspend", "warranty-floor", "--session", "not a session id!"
    )
    assert bad_session.exit_code == 2
    assert "--session: invalid session id (value not shown)" in bad_session.stderr


def test_the_api_passes_the_reason_and_the_session(team: Path, runner: CliRunner) -> None:
    _bob_proposes(team, runner)
    mem = agentmem.open(team)
    approved = mem.approve_rule(
        "warranty-floor", 1, reason="Approved on the page.", session="web-1"
    )
    assert approved.rule.status == "active"
    assert _trailers(team)["Agentmem-Reason"] == ["Approved on the page."]
    assert _trailers(team)["Agentmem-Session"] == ["web-1"]
    suspended = mem.decide_rule("suspend", "warranty-floor", reason="On hold.")
    assert suspended.rule.status == "suspended"
    assert _trailers(team)["Agentmem-Reason"] == ["On hold."]
    with pytest.raises(agentmem.errors.UsageError, match="unknown decision 'approve'"):
        mem.decide_rule("approve", "warranty-floor")


def test_a_member_cannot_approve_through_the_library_in_an_admins_name(
    team: Path, runner: CliRunner
) -> None:
    """The hole: ``lifecycle.approve(repo, Person("bob", …, "admin"), …)`` took the actor from
    the caller, so a member activated a rule and ``context audit`` served it until CI ran."""
    from agentmem.doctrine import lifecycle
    from agentmem.store.repo import Person, open_repository

    _bob_proposes(team, runner, "other-rule")
    _as(team, "bob")
    repo = open_repository(team)
    head = git(team, "rev-parse", "HEAD")
    with pytest.raises(GovernanceError, match="admin required: approving doctrine needs the admin"):
        lifecycle.approve(repo, "other-rule", version=1)
    with pytest.raises(TypeError):
        lifecycle.approve(repo, Person("bob", "bob@example.com", "admin"), "other-rule", version=1)  # type: ignore[call-arg]
    assert git(team, "rev-parse", "HEAD") == head
    audit = invoke(runner, "context", "audit", "--scope", "contracts")
    assert "Refuse warranties" not in audit.stdout

    _as(team, "alice")  # the admin: the same call, the same words as the command line
    repo = open_repository(team)
    done = lifecycle.approve(repo, "other-rule", version=1)
    assert done.rule.approval is not None and done.rule.approval.by == "alice"


def test_no_governance_function_takes_a_person() -> None:
    from agentmem.doctrine import drafts, lifecycle, settings
    from agentmem.erase import run as erase
    from agentmem.proposals import review
    from agentmem.tidy import retire

    functions = [
        lifecycle.approve, lifecycle.preview_approval, lifecycle.suspend, lifecycle.resume,
        lifecycle.deactivate, lifecycle.archive, lifecycle.reconfirm, lifecycle.due,
        drafts.propose, drafts.plan_draft, drafts.plan_from_proposal, drafts.draft_from_proposal,
        drafts.edit, drafts.assign, drafts.restore, settings.approve_relaxation,
        retire.retire_scope, erase.make_target, erase.erase, review.commit_accept,
        review.commit_reject, review.drop_broken, review.commit_hand_edit, review.accept_doctrine,
    ]  # fmt: skip
    for function in functions:
        params = inspect.signature(function).parameters
        assert "actor" not in params, function.__qualname__
        assert not any("Person" in str(p.annotation) for p in params.values())
