"""``check --history`` and the governance settings of ``agentmem.yaml``: relaxing one needs a
second admin, and approvals made under a relaxed setting are named (docs/design/check.md §Check)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from tests.helpers.history import approve, findings, history_errors, setup_team
from tests.helpers.team import PEOPLE, commit_as, make_rule, trailers, write_rule

from agentmem import governance


@pytest.fixture
def team(memrepo: Path) -> Path:
    return setup_team(memrepo)


def _settings(root: Path, person: str, text: str, subject: str = "settings") -> str:
    (root / "agentmem.yaml").write_text(text, encoding="utf-8")
    return commit_as(root, person, subject, "agentmem.yaml")


def _approve_settings(root: Path, person: str, role: str, sha: str) -> str:
    """A second admin's approval: an empty commit with the approve-settings trailers."""
    body = trailers("approve-settings", person, role, approves=sha)
    args = ["git", "-C", str(root), "-c", f"user.name={person.title()}"]
    args += ["-c", f"user.email={PEOPLE[person]}", "commit", "-q", "--allow-empty", "-F", "-"]
    subprocess.run(args, input=f"settings: approve {sha[:10]}\n\n{body}\n", text=True, check=True)
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def _own_rule_approved(root: Path, person: str) -> str:
    """``person`` proposes rule 'own' and approves it herself."""
    write_rule(root, make_rule("own", proposed_by=person))
    commit_as(root, person, "propose own", "doctrine/own.yaml",
              body=trailers("propose", person, "admin"))  # fmt: skip
    return approve(root, person, "own", proposed_by=person)


def test_an_admin_who_relaxes_distinct_approver_and_approves_her_own_rule_is_found(
    team: Path, runner
) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    own = _own_rule_approved(team, "alice")
    errors = history_errors(runner)
    assert [(f["commit"], f["code"]) for f in errors] == [
        (relax, "history-settings-relaxed"),
        (own, "history-self-approval"),
    ]
    assert errors[0]["path"] == "agentmem.yaml"
    assert (
        "relaxes the governance setting(s) doctrine.distinct_approver without a second "
        "admin's approval" in errors[0]["message"]
    )
    assert f"Agentmem-Approves: {relax}" in errors[0]["message"]
    assert errors[1]["message"].endswith(
        f"alice proposed it (an admin who did not propose it must approve); "
        f"doctrine.distinct_approver: false does not count, relaxed by commit {relax[:10]} "
        "without a second admin's approval"
    )
    # An unrelated edit of agentmem.yaml afterwards does not launder the relaxation.
    _settings(
        team, "alice", "doctrine:\n  distinct_approver: false\nmemory:\n  budget_chars: 9000\n"
    )
    write_rule(team, make_rule("own2", proposed_by="alice"))
    commit_as(team, "alice", "propose own2", "doctrine/own2.yaml",
              body=trailers("propose", "alice", "admin"))  # fmt: skip
    own2 = approve(team, "alice", "own2", proposed_by="alice")
    assert (own2, "history-self-approval") in [
        (f["commit"], f["code"]) for f in history_errors(runner)
    ]


def test_a_second_admins_approval_accepts_the_relaxation_and_names_what_it_allowed(
    team: Path, runner
) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    # Neither the author herself nor a member can approve it.
    _approve_settings(team, "alice", "admin", relax)
    _approve_settings(team, "bob", "member", relax)
    assert [f["code"] for f in history_errors(runner)] == ["history-settings-relaxed"]
    approval = _approve_settings(team, "carol", "admin", relax)
    own = _own_rule_approved(team, "alice")
    code, found = findings(runner)
    assert code == 0, found
    named = [f for f in found if f["code"] == "history-relaxed-approval"]
    assert [(f["commit"], f["severity"]) for f in named] == [(own, "warning")]
    assert named[0]["message"].endswith(
        "approves rule 'own', which alice proposed: allowed only because "
        f"doctrine.distinct_approver is false (relaxed by commit {relax[:10]}, approved by "
        f"carol in {approval[:10]})"
    )
    # Tightening again needs nobody's approval.
    _settings(team, "alice", "doctrine:\n  distinct_approver: true\n")
    assert history_errors(runner) == []


def test_an_activation_under_relaxed_signatures_is_named(team: Path, runner) -> None:
    _settings(team, "alice", "doctrine:\n  require_signed: true\n")
    relax = _settings(team, "alice", "doctrine:\n  require_signed: false\n")
    approval = _approve_settings(team, "carol", "admin", relax)
    sha = approve(team, "alice")  # bob's draft, unsigned
    _, found = findings(runner)
    named = [f for f in found if f["commit"] == sha]
    assert [(f["code"], f["severity"]) for f in named] == [("history-relaxed-approval", "warning")]
    assert named[0]["message"].endswith(
        "sets rule 'warranty' to active while doctrine.require_signed is false (relaxed by "
        f"commit {relax[:10]}, approved by carol in {approval[:10]}): no signature was asked for"
    )


@pytest.mark.parametrize(
    ("strict", "loose", "setting"),
    [
        ("doctrine:\n  distinct_approver: true\n", "doctrine:\n  distinct_approver: false\n",
         "doctrine.distinct_approver"),
        ("doctrine:\n  require_signed: true\n", "doctrine: {}\n", "doctrine.require_signed"),
        ("doctrine:\n  on_review_due: suspend\n", "doctrine:\n  on_review_due: alert\n",
         "doctrine.on_review_due"),
        ("doctrine:\n  review_days: 90\n", "doctrine:\n  review_days: 365\n",
         "doctrine.review_days"),
        ("doctrine:\n  duplicate_threshold: 85\n", "doctrine:\n  duplicate_threshold: 99\n",
         "doctrine.duplicate_threshold"),
        ("context:\n  doctrine_for_roles: [user, member, admin]\n",
         "context:\n  doctrine_for_roles: [admin]\n", "context.doctrine_for_roles"),
        ("memory:\n  on_review_due: suspend\n", "memory:\n  on_review_due: alert\n",
         "memory.on_review_due"),
        ("memory:\n  retention:\n    inferred: {expire_days: 90}\n",
         "memory:\n  retention:\n    inferred: {expire_days: null}\n",
         "memory.retention.inferred.expire_days"),
        ("retired_scopes:\n  contracts/supply: 2026-11-01\n", "{}\n", "retired_scopes"),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_every_governance_setting_relaxed_alone_is_a_finding(
    team: Path, runner, strict: str, loose: str, setting: str
) -> None:
    _settings(team, "alice", strict, "tighten")  # tightening needs no second admin
    assert history_errors(runner) == []
    relax = _settings(team, "alice", loose, "relax")
    # (switching signatures off must itself be signed while they are required)
    unsigned = [(relax, "history-signature")] if setting == "doctrine.require_signed" else []
    errors = history_errors(runner)
    assert [(f["commit"], f["code"]) for f in errors] == [
        (relax, "history-settings-relaxed"),
        *unsigned,
    ]
    assert f"relaxes the governance setting(s) {setting} without" in errors[0]["message"]
    _approve_settings(team, "carol", "admin", relax)
    assert [(f["commit"], f["code"]) for f in history_errors(runner)] == unsigned


def test_the_relaxable_table_covers_every_governance_setting() -> None:
    assert list(governance.RELAXABLE) == [
        "doctrine.distinct_approver",
        "doctrine.require_signed",
        "doctrine.on_review_due",
        "doctrine.review_days",
        "doctrine.duplicate_threshold",
        "context.doctrine_for_roles",
        "memory.on_review_due",
        "memory.retention.declared.review_days",
        "memory.retention.declared.expire_days",
        "memory.retention.inferred.review_days",
        "memory.retention.inferred.expire_days",
        "retired_scopes",
        "signing.decisions",
    ]
    old = {"doctrine.review_days": 90, "memory.retention.inferred.expire_days": 90}
    assert governance.relaxations(old, {**old, "doctrine.review_days": 30}) == []
    assert governance.relaxations(old, {**old, "memory.retention.inferred.expire_days": None}) == [
        "memory.retention.inferred.expire_days"
    ]


def test_settings_approve_is_the_second_admins_command(team: Path, runner) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    mine = invoke(runner, "settings", "approve", relax)  # alice, who relaxed it
    assert mine.exit_code == 1
    assert "a relaxed setting is approved by a second admin" in mine.stderr
    unchanged = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n# same\n")
    nothing = invoke(runner, "settings", "approve", unchanged)
    assert nothing.exit_code == 2 and "relaxes no governance setting" in nothing.stderr
    set_identity(team, "Carol", PEOPLE["carol"])
    done = invoke(runner, "settings", "approve", relax[:12])
    assert done.exit_code == 0, done.stderr
    assert f"approved doctrine.distinct_approver relaxed by alice in {relax[:10]}" in done.stdout
    assert history_errors(runner) == []
    message = git(team, "log", "-1", "--format=%B")
    assert f"Agentmem-Approves: {relax}" in message
    assert "Agentmem-Action: approve-settings" in message
    assert git(team, "show", "--stat", "--format=", "HEAD").strip() == ""  # an empty commit
