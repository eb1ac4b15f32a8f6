"""What an admin approves is what they read (docs/design/doctrine.md §Lifecycle): ``doctrine approve``
shows the changes since the last active version and takes the version it approves; ``doctrine
edit`` says whether limits are added or replaced; ``approve`` and ``check`` name a rule of an
overlapping scope that says the opposite or sets another value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.helpers import git, invoke, set_identity
from typer.testing import CliRunner

OLD = "Never accept a warranty under 24 months."
NEW = "Never accept a warranty under 12 months."
LIMIT = "Not for software licences."


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


def act(root: Path, person: str) -> None:
    set_identity(root, person.capitalize(), f"{person}@example.com")


def ok(runner: CliRunner, *args: str, input: str | None = None):  # noqa: A002
    result = invoke(runner, *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def rule(root: Path, rule_id: str) -> dict:
    return yaml.safe_load((root / "doctrine" / f"{rule_id}.yaml").read_text(encoding="utf-8"))


def propose(runner: CliRunner, rule_id: str, instruction: str, scope: str, *extra: str) -> None:
    ok(runner, "doctrine", "propose", "--id", rule_id, "--title", rule_id.replace("-", " "),
       "--instruction", instruction, "--scope", scope, "--limit", LIMIT, *extra)  # fmt: skip


# -- approval pinned to a version -------------------------------------------------------------


def test_an_approval_of_the_version_read_is_refused_once_the_rule_moved_on(
    team: Path, runner: CliRunner
) -> None:
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    act(team, "carol")
    shown = ok(runner, "doctrine", "diff", "r7").stdout  # what Carol reads: version 1
    assert "r7 version 1 (never active before):" in shown
    assert f"  instruction: {OLD}" in shown
    act(team, "bob")
    ok(runner, "doctrine", "edit", "r7", "--instruction", NEW)
    act(team, "carol")
    head = git(team, "rev-parse", "HEAD")
    result = invoke(runner, "doctrine", "approve", "r7", "--version", "1")
    assert result.exit_code == 1, result.stderr
    assert "not approved: you approve version 1 but r7 is now at version 2" in result.stderr
    assert "agentmem doctrine approve r7 --version 2" in result.stderr
    assert result.stdout.splitlines() == ["  instruction:", f"  - {OLD}", f"  + {NEW}"]
    assert git(team, "rev-parse", "HEAD") == head
    assert rule(team, "r7")["status"] == "draft"

    result = ok(runner, "doctrine", "approve", "r7", "--version", "2")
    assert "approved r7: draft → active, version 2" in result.stdout
    assert "r7 version 2 (never active before):" in result.stdout
    approved = rule(team, "r7")
    assert (approved["status"], approved["approval"]["version"]) == ("active", 2)
    assert approved["instruction"] == NEW


def test_approve_without_a_version_is_refused_outside_a_terminal(
    team: Path, runner: CliRunner
) -> None:
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    act(team, "carol")
    head = git(team, "rev-parse", "HEAD")
    result = invoke(runner, "doctrine", "approve", "r7")
    assert result.exit_code == 2, result.stderr
    assert "r7: not approved: say which version you approve (it is at version 1" in result.stderr
    assert "agentmem doctrine diff r7" in result.stderr
    assert "agentmem doctrine approve r7 --version 1" in result.stderr
    assert f"  instruction: {OLD}" in result.stdout  # the whole rule: it was never active
    assert git(team, "rev-parse", "HEAD") == head
    # the conditions that do not depend on the version come first
    act(team, "bob")
    assert "admin required" in invoke(runner, "doctrine", "approve", "r7").stderr


def test_at_a_terminal_approve_shows_the_changes_since_the_active_version_and_asks(
    team: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentmem.cli.doctrine as cli_doctrine

    monkeypatch.setattr(cli_doctrine, "_interactive", lambda: True)
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    act(team, "carol")
    ok(runner, "doctrine", "approve", "r7", input="y\n")
    act(team, "bob")
    ok(runner, "doctrine", "edit", "r7", "--instruction", NEW, "--limit", "Not in the EU.", "--yes")
    act(team, "carol")
    head = git(team, "rev-parse", "HEAD")
    result = invoke(runner, "doctrine", "approve", "r7", input="n\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:6] == [  # then the runner's echo of the answer
        "r7 version 2: changes since version 1, the last active one:",
        "  instruction:",
        f"  - {OLD}",
        f"  + {NEW}",
        "  limits:",
        "  + Not in the EU.",
    ]
    assert "Approve r7 version 2?" in result.stderr
    assert git(team, "rev-parse", "HEAD") == head
    result = ok(runner, "doctrine", "approve", "r7", input="y\n")
    assert rule(team, "r7")["approval"]["version"] == 2


def test_several_rules_are_pinned_each_with_id_at_version(team: Path, runner: CliRunner) -> None:
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    propose(runner, "r8", "Flag any auto-renewal clause.", "contracts/lease")
    act(team, "carol")
    refused = invoke(runner, "doctrine", "approve", "r7", "r8", "--version", "1")
    assert refused.exit_code == 2
    assert "--version pins ONE rule; to approve several, pin each as ID@N" in refused.stderr
    bad = invoke(runner, "doctrine", "approve", "r7@sk-live-x")
    assert bad.exit_code == 2
    assert "an ID@N argument: N must be a version number" in bad.stderr
    assert "sk-live-x" not in bad.stderr + bad.stdout
    result = invoke(runner, "doctrine", "approve", "r7@1", "r8@2")
    assert result.exit_code == 1
    assert "approved r7: draft → active, version 1" in result.stdout
    assert "r8: doctrine/r8.yaml: cannot approve version 2: r8 is at version 1" in result.stderr
    assert (rule(team, "r7")["status"], rule(team, "r8")["status"]) == ("active", "draft")


# -- edit: limits added or replaced, and the difference shown ----------------------------------


def test_edit_limit_adds_a_limit_and_replace_limits_replaces_them(
    team: Path, runner: CliRunner
) -> None:
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    result = ok(runner, "doctrine", "edit", "r7", "--limit", "Not in the EU.")
    assert rule(team, "r7")["limits"] == [LIMIT, "Not in the EU."]
    assert "r7: limits: 1 added (2 now, 1 before)" in result.stderr
    assert result.stdout.splitlines()[1:] == ["  limits:", "  + Not in the EU."]

    result = ok(
        runner, "doctrine", "edit", "r7", "--replace-limits", "--limit", "Only for hardware."
    )
    assert rule(team, "r7")["limits"] == ["Only for hardware."]
    assert "r7: limits: 1 added, 2 removed (1 now, 2 before)" in result.stderr
    assert result.stdout.splitlines()[1:] == [
        "  limits:",
        f"  - {LIMIT}",
        "  - Not in the EU.",
        "  + Only for hardware.",
    ]
    head = git(team, "rev-parse", "HEAD")
    result = invoke(runner, "doctrine", "edit", "r7", "--replace-limits")
    assert result.exit_code == 1
    assert "--replace-limits needs the new limits" in result.stderr
    assert git(team, "rev-parse", "HEAD") == head


@pytest.mark.slow
def test_editing_an_active_rule_shows_the_change_before_asking(
    team: Path, runner: CliRunner
) -> None:
    act(team, "bob")
    propose(runner, "r7", OLD, "contracts/supply")
    act(team, "carol")
    ok(runner, "doctrine", "approve", "r7", "--version", "1")
    act(team, "bob")
    result = invoke(runner, "doctrine", "edit", "r7", "--instruction", NEW, input="n\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:3] == ["  instruction:", f"  - {OLD}", f"  + {NEW}"]
    assert "r7 is active: this change makes version 2 a draft" in result.stderr


# -- conflicts --------------------------------------------------------------------------------


@pytest.mark.slow
def test_approve_names_five_conflicts_and_counts_the_rest(team: Path, runner: CliRunner) -> None:
    act(team, "bob")
    cap = "Cap late-delivery penalties at {} % of the order value."
    for n in range(1, 9):
        propose(runner, f"penalty-{n}", cap.format(n * 5), "contracts")
    act(team, "carol")
    result = ok(runner, "doctrine", "approve", "penalty-1", "--version", "1")
    named = [ln for ln in result.stderr.splitlines() if "penalty-1 may contradict" in ln]
    assert [ln.split("contradict ")[1].split(" ")[0] for ln in named] == [
        "penalty-2", "penalty-3", "penalty-4", "penalty-5", "penalty-6"
    ]  # fmt: skip
    assert "… and 2 more rule(s): agentmem check lists them (doctrine-conflict)" in result.stderr


@pytest.mark.slow
def test_check_gives_one_finding_for_a_group_of_conflicting_rules(
    team: Path, runner: CliRunner
) -> None:
    """Eight drafts that all set another cap are one doctrine-conflict finding naming them
    (a pair of rules keeps a finding on each, below)."""
    act(team, "bob")
    cap = "Cap late-delivery penalties at {} % of the order value."
    for n in range(1, 9):
        propose(runner, f"penalty-{n}", cap.format(n * 5), "contracts")
    findings = json.loads(invoke(runner, "check", "--format", "json").stdout)
    (found,) = [f for f in findings if f["code"] == "doctrine-conflict"]
    assert found["path"] == "doctrine/penalty-1.yaml"
    assert found["message"] == (
        "8 rules in overlapping scopes conflict with one another: 'penalty-1', 'penalty-2', "
        "'penalty-3', 'penalty-4', 'penalty-5', 'penalty-6', 'penalty-7', 'penalty-8'; e.g. "
        "'penalty-1' (draft) and 'penalty-2' (draft, doctrine/penalty-2.yaml) set another value "
        "than each other: keep the ones that hold (edit, deactivate or archive the others)"
    )


@pytest.mark.slow
def test_approve_and_check_name_a_rule_that_sets_another_value_or_says_the_opposite(
    team: Path, runner: CliRunner
) -> None:
    act(team, "bob")
    propose(runner, "penalty-10", "Cap late-delivery penalties at 10 % of the order value.",
            "contracts")  # fmt: skip
    propose(runner, "penalty-20", "Late-delivery penalties are capped at 20 % of the order value.",
            "contracts/supply")  # fmt: skip
    propose(runner, "penalty-hr", "Cap late-delivery penalties at 30 % of the order value.",
            "hr")  # fmt: skip
    propose(runner, "warranty", OLD, "contracts/supply")
    propose(runner, "warranty-yes", "Accept warranties under 24 months.", "contracts/supply",
            "--distinct")  # fmt: skip
    act(team, "carol")
    result = ok(runner, "doctrine", "approve", "penalty-20", "--version", "1")
    assert (
        "penalty-20 may contradict penalty-10 (draft, scope contracts) sets another value: "
        "Cap late-delivery penalties at 10 % of the order value." in result.stderr
    )
    assert "penalty-hr" not in result.stderr  # another scope
    result = ok(runner, "doctrine", "approve", "warranty-yes", "--version", "1")
    assert (
        "warranty-yes may contradict warranty (draft, scope contracts/supply) says the opposite"
        in (result.stderr)
    )

    result = invoke(runner, "check", "--format", "json")
    assert result.exit_code == 0, result.stdout  # a heuristic never fails the build
    found = {f["path"]: f for f in json.loads(result.stdout) if f["code"] == "doctrine-conflict"}
    assert sorted(found) == [
        "doctrine/penalty-10.yaml",
        "doctrine/penalty-20.yaml",
        "doctrine/warranty-yes.yaml",
        "doctrine/warranty.yaml",
    ]
    assert {f["severity"] for f in found.values()} == {"warning"}
    assert found["doctrine/penalty-20.yaml"]["line"] == 5  # the instruction
    assert found["doctrine/penalty-20.yaml"]["message"] == (
        "rule 'penalty-20' (active) sets another value than rule 'penalty-10' (draft, "
        "doctrine/penalty-10.yaml) in an overlapping scope: keep the one that holds (edit, "
        "deactivate or archive the other)"
    )
    assert (
        "says the opposite of rule 'warranty-yes' (active"
        in (found["doctrine/warranty.yaml"]["message"])
    )
