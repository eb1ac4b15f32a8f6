"""``signing.decisions: required`` (docs/design/settings.md §Settings, §Check, §Trust boundary): every
decision commit — an accept, an approval and the other rule transitions, an erase — is signed
with git's SSH signing, refused without a key, and ``check --history`` (and
``signing.verify_decisions``, for a server hook on a commit range) reports an unsigned one.
Real ed25519 keys made in ``tmp_path``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from tests.helpers.team import (
    MERGES,
    alice_signs,
    bob_as_second_admin,
    relaxed_on_a_branch,
    ssh_key,
    use_key,
)
from typer.testing import CliRunner

from agentmem import governance as gov
from agentmem.check.history.signing import verify_decisions

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")


def _signed(root: Path, rev: str = "HEAD") -> bool:
    return "\ngpgsig " in git(root, "cat-file", "commit", rev).partition("\n\n")[0]


def _history(runner: CliRunner) -> list[dict[str, str]]:
    found: list[dict[str, str]] = json.loads(
        invoke(runner, "check", "--history", "--format", "json").stdout
    )
    return found


def _bob_proposes(root: Path, runner: CliRunner) -> None:
    set_identity(root, "Bob", "bob@example.com")
    result = invoke(
        runner, "doctrine", "propose", "--id", "warranty-floor", "--title", "Warranty floor",
        "--instruction", "Refuse warranties under 24 months.", "--scope", "contracts",
        "--limit", "Not for software licences.",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    set_identity(root, "Alice", "alice@example.com")


def test_without_a_key_a_decision_is_refused_and_nothing_is_written(
    signed_team: tuple[Path, Path], runner: CliRunner
) -> None:
    root, _key = signed_team
    _bob_proposes(root, runner)
    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    head = git(root, "rev-parse", "HEAD")
    accept = invoke(runner, "review", "--accept", "all")
    assert accept.exit_code == 1
    assert "signing.decisions is required" in accept.stderr
    approve = invoke(runner, "doctrine", "approve", "warranty-floor", "--version", "1")
    assert approve.exit_code == 1
    assert "signing.decisions is required: a decision is a signed commit" in approve.stderr
    assert "git config user.signingkey" in approve.stderr
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "status", "--porcelain", "--", "memories", "doctrine", "inbox") == ""


@pytest.mark.slow
def test_with_a_key_every_decision_is_signed_and_check_accepts_them(
    signed_team: tuple[Path, Path], runner: CliRunner
) -> None:
    root, key = signed_team
    _bob_proposes(root, runner)
    assert not _signed(root)  # a proposal decides nothing: not signed
    use_key(root, key)
    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    accepted = invoke(runner, "review", "--accept", "all")
    assert accepted.exit_code == 0, accepted.stderr
    assert _signed(root)
    approved = invoke(
        runner, "doctrine", "approve", "warranty-floor", "-v", "1", "--reason", "Agreed."
    )
    assert approved.exit_code == 0, approved.stderr
    assert ", signed)" in approved.stdout and _signed(root)
    suspended = invoke(runner, "doctrine", "suspend", "warranty-floor")
    assert suspended.exit_code == 0 and _signed(root)
    assert _history(runner) == []
    assert verify_decisions(root, ["HEAD"]) == []


def test_an_unsigned_decision_is_reported_by_check_and_the_range_verifier(
    signed_team: tuple[Path, Path], runner: CliRunner
) -> None:
    root, key = signed_team
    _bob_proposes(root, runner)
    use_key(root, key)
    assert invoke(runner, "doctrine", "approve", "warranty-floor", "-v", "1").exit_code == 0
    before = git(root, "rev-parse", "HEAD~1").strip()
    # the approval made again without its signature, as a hand or another tool would
    git(root, "-c", "commit.gpgsign=false", "commit", "-q", "--amend", "--no-edit", "--no-gpg-sign")
    unsigned = git(root, "rev-parse", "HEAD").strip()
    assert not _signed(root)
    findings = _history(runner)
    assert [f["code"] for f in findings] == ["history-decision-unsigned"]
    assert findings[0]["commit"] == unsigned
    assert (
        "(a decision: approve) is not signed; signing.decisions is required"
        in findings[0]["message"]
    )
    ranged = verify_decisions(root, [f"{before}..HEAD"])
    assert [(f.code, f.commit, f.path) for f in ranged] == [
        ("history-decision-unsigned", unsigned, "doctrine/warranty-floor.yaml")
    ]
    assert verify_decisions(root, [f"{unsigned}..HEAD"]) == []


def test_a_decision_signed_with_a_key_roles_yaml_does_not_list_is_reported(
    signed_team: tuple[Path, Path], runner: CliRunner, tmp_path: Path
) -> None:
    root, _key = signed_team
    other, _public = ssh_key(tmp_path, "stranger")
    _bob_proposes(root, runner)
    use_key(root, other)
    assert invoke(runner, "doctrine", "approve", "warranty-floor", "-v", "1").exit_code == 0
    findings = _history(runner)
    assert [f["code"] for f in findings] == ["history-decision-unsigned"]
    assert "which roles.yaml at the parent commit does not list for alice" in findings[0]["message"]
    assert len(verify_decisions(root, ["HEAD"])) == 1


def test_turning_required_signatures_off_is_a_relaxation() -> None:
    before = {"signing.decisions": "required"}
    assert gov.relaxations(before, {"signing.decisions": "optional"}) == ["signing.decisions"]
    assert gov.relaxations({"signing.decisions": "optional"}, before) == []
    assert gov.is_decision("approve", None, False, "doctrine")
    assert gov.is_decision("add", "accepted", True, "memory")
    assert gov.is_decision("propose", None, True, "doctrine")  # a draft from an accepted proposal
    assert not gov.is_decision("propose", None, True, None)  # a harvest into the inbox
    assert not gov.is_decision("reject", "rejected", True, None)


def test_a_bad_setting_is_refused_with_the_choices(memrepo: Path, runner: CliRunner) -> None:
    config = memrepo / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "signing:\n  decisions: always\n", encoding="utf-8"
    )
    result = invoke(runner, "inbox")
    assert result.exit_code == 1
    assert "signing.decisions" in result.stderr and "required" in result.stderr


@pytest.mark.slow
def test_an_erase_under_required_signing_is_signed(
    signed_team: tuple[Path, Path], runner: CliRunner
) -> None:
    root, key = signed_team
    use_key(root, key)
    assert invoke(runner, "remember", "Call the Bluefin desk before the audit.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    erased = invoke(runner, "erase", "--text", "Bluefin desk", "--yes")
    assert erased.exit_code == 0, erased.stderr
    assert git(root, "log", "-1", "--format=%(trailers:key=Agentmem-Action,valueonly)").strip() == (
        "erase"
    )
    assert _signed(root)
    # the accept it rewrote lost its signature (a rewritten commit's would not verify): named
    found = _history(runner)
    assert [f["code"] for f in found] == ["history-decision-unsigned"]
    assert "(a decision: add) is not signed" in found[0]["message"]


def test_an_approved_relaxation_to_the_same_bytes_does_not_approve_an_earlier_one(
    signed_team: tuple[Path, Path], runner: CliRunner, tmp_path: Path
) -> None:
    """alice drops ``signing.decisions: required`` without a second admin (R1) and accepts
    unsigned; she puts it back, drops it again (R2: the same bytes as R1) and bob, a second
    admin, approves R2. What the judge holds a settings text to is keyed by its blob: R2's
    approval must not reach back to the commits made while R1's unapproved relaxation held."""
    root, alice_key = signed_team
    bob_key = bob_as_second_admin(root, tmp_path)
    config = root / "agentmem.yaml"
    required = config.read_text(encoding="utf-8")
    optional = required.replace("signing:\n  decisions: required\n", "")
    config.write_text(optional, encoding="utf-8")
    git(root, "commit", "-qm", "settings: no more signatures (R1)", "--", "agentmem.yaml")
    r1 = git(root, "rev-parse", "HEAD").strip()
    assert invoke(runner, "remember", "Answer in French.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    unsigned = git(root, "rev-parse", "HEAD").strip()
    assert not _signed(root, unsigned)
    config.write_text(required, encoding="utf-8")
    git(root, "commit", "-qm", "settings: signatures again", "--", "agentmem.yaml")
    config.write_text(optional, encoding="utf-8")
    git(root, "commit", "-qm", "settings: no more signatures (R2)", "--", "agentmem.yaml")
    r2 = git(root, "rev-parse", "HEAD").strip()
    use_key(root, bob_key)
    set_identity(root, "Bob", "bob@example.com")
    approved = invoke(runner, "settings", "approve", r2)
    assert approved.exit_code == 0, approved.stderr
    set_identity(root, "Alice Martin", "alice@example.com")
    use_key(root, alice_key)
    errors = {(f["code"], f["commit"]) for f in _history(runner) if f["severity"] == "error"}
    assert ("history-settings-relaxed", r1) in errors
    assert ("history-settings-relaxed", r2) not in errors
    assert ("history-decision-unsigned", unsigned) in errors


def test_a_relaxation_back_to_earlier_bytes_does_not_reach_back_to_the_commits_made_on_them(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    """alice turns ``doctrine.require_signed`` on, then off again by restoring the very bytes
    of before, without a second admin: the judge holds it on after the relaxation, and only
    after — the commits made on those bytes before it asked for no signature."""
    key = alice_signs(memrepo, tmp_path, None, "roles: alice signs, bob")  # unsigned
    config = memrepo / "agentmem.yaml"
    before = config.read_text(encoding="utf-8")
    config.write_text(before.replace("doctrine:\n", "doctrine:\n  require_signed: true\n", 1))
    git(memrepo, "commit", "-qm", "settings: activations are signed", "--", "agentmem.yaml")
    config.write_text(before, encoding="utf-8")  # the same bytes as before
    use_key(memrepo, key)
    git(memrepo, "commit", "-qS", "-m", "settings: no more signatures", "--", "agentmem.yaml")
    relaxing = git(memrepo, "rev-parse", "HEAD").strip()
    errors = {(f["code"], f["commit"]) for f in _history(runner) if f["severity"] == "error"}
    assert errors == {("history-settings-relaxed", relaxing)}


# a relaxation made on a branch and merged (docs/decisions/0118): the merge's version of
# agentmem.yaml is held as strictly as the branch's version it takes the setting from


@pytest.mark.parametrize("how", MERGES)
def test_a_relaxation_no_second_admin_approved_on_a_merged_branch_keeps_decisions_signed(
    signed_team: tuple[Path, Path], runner: CliRunner, how: str
) -> None:
    """alice drops ``signing.decisions: required`` on a branch with plain git (no second admin
    approves it) and main merges the branch, taking its ``agentmem.yaml`` (clean, combined
    with main's own change of the file, or the branch's whole): an unsigned accept after the
    merge is refused, and only it and the relaxing commit are named."""
    root, _key = signed_team
    relaxing, _merge = relaxed_on_a_branch(root, ("signing:\n  decisions: required\n", ""), how)
    assert "decisions: required" not in (root / "agentmem.yaml").read_text(encoding="utf-8")
    assert invoke(runner, "remember", "Answer in French.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    accept = git(root, "rev-parse", "HEAD").strip()
    assert not _signed(root, accept)
    errors = {(f["code"], f["commit"]) for f in _history(runner) if f["severity"] == "error"}
    assert errors == {
        ("history-settings-relaxed", relaxing),
        ("history-decision-unsigned", accept),
    }


@pytest.mark.parametrize("how", MERGES)
def test_a_relaxation_a_second_admin_approved_on_a_merged_branch_counts_after_the_merge(
    signed_team: tuple[Path, Path], runner: CliRunner, tmp_path: Path, how: str
) -> None:
    """The same, with bob (a second admin) approving the relaxation on the branch before the
    merge (signed: decisions are still required there): it counts on main after the merge,
    and the unsigned accept is let in."""
    root, _key = signed_team
    bob_key = bob_as_second_admin(root, tmp_path)

    def bob_approves(relaxing: str) -> None:
        set_identity(root, "Bob", "bob@example.com")
        use_key(root, bob_key)
        approved = invoke(runner, "settings", "approve", relaxing)
        assert approved.exit_code == 0, approved.stderr
        use_key(root, None)
        set_identity(root, "Alice", "alice@example.com")

    relax = ("signing:\n  decisions: required\n", "")
    relaxed_on_a_branch(root, relax, how, then=bob_approves)
    assert invoke(runner, "remember", "Answer in French.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert not _signed(root)
    assert {f["code"] for f in _history(runner) if f["severity"] == "error"} == set()
