"""``check --history`` on what merges decide themselves, on the roles a commit brought in
by a merge counts, and on misspelt watched paths, each on a real
temporary repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.helpers import git
from tests.helpers.history import (
    approve,
    findings,
    head,
    history_errors,
    merge,
    merge_taking,
    only,
)
from tests.helpers.team import PEOPLE, commit_as, make_rule, set_people, trailers, write_rule

from agentmem.check.history.merges import _base_in_walk


@pytest.fixture
def team(history_team: Path) -> Path:
    """alice and carol admins, bob member, dave user; bob's draft 'warranty' committed."""
    return history_team


TEAM = {"alice": "admin", "bob": "member", "carol": "admin", "dave": "user"}


def as_person(person: str) -> list[str]:
    return ["-c", f"user.name={person.title()}", "-c", f"user.email={PEOPLE[person]}"]


def deactivate_and_demote(root: Path) -> str:
    """alice approves bob's 'warranty' (tag ``fork``), deactivates it, demotes carol; returns
    the tip (the accepted main before the attack)."""
    approve(root, "alice")
    git(root, "tag", "fork")
    rule = make_rule("warranty", status="deactivated", approved_by="alice")
    write_rule(root, rule)
    commit_as(root, "alice", "deactivate", rule.path, body=trailers("deactivate", "alice", "admin"))
    set_people(root, {**TEAM, "carol": "member"})
    commit_as(root, "alice", "carol steps down", "roles.yaml")
    return head(root)


def side_with_notes(root: Path, person: str = "bob") -> None:
    git(root, "switch", "-q", "-c", "side", "fork")
    (root / "notes.txt").write_text("hi\n", encoding="utf-8")
    commit_as(root, person, "notes", "notes.txt")


# -- a merge that takes an old version ------------------------------------------------------
def test_n1_a_merge_ours_then_fast_forward_reverts_a_deactivation_and_a_demotion(
    team: Path, runner
) -> None:
    before = deactivate_and_demote(team)
    side_with_notes(team)
    git(team, *as_person("bob"), "merge", "-q", "-s", "ours", "main", "-m", "Merge main")
    evil = head(team)
    git(team, "switch", "-q", "main")
    git(team, "merge", "-q", "--ff-only", "side")
    for args in ((), ("--since", before)):
        code, found = findings(runner, *args)
        assert code == 1
        mine = [f for f in found if f["commit"] == evil and f["code"] == "history-not-admin"]
        assert sorted((f["path"], f["message"]) for f in mine) == [
            ("doctrine/warranty.yaml",
             f"commit {evil[:10]} by Bob <bob@example.com> sets rule 'warranty' to active, but "
             "bob was member in roles.yaml at the parent commit (admin required)"),
            ("roles.yaml",
             f"commit {evil[:10]} by Bob <bob@example.com> changes roles.yaml, but bob was "
             "member in roles.yaml at the parent commit (admin required)"),
        ]  # fmt: skip


def test_n1_a_pull_request_merge_bringing_back_old_versions(team: Path, runner) -> None:
    before = deactivate_and_demote(team)
    side_with_notes(team, "dave")
    git(team, *as_person("dave"), "merge", "-q", "-s", "ours", "main", "-m", "Merge main")
    evil = head(team)  # the revert happens here; the pull request merge below is then clean
    git(team, "switch", "-q", "main")
    merge(team, "bob", "side", "--no-ff")
    for args in ((), ("--since", before)):
        code, found = findings(runner, *args)
        assert code == 1
        assert {(f["path"], f["code"]) for f in found if f["commit"] == evil} == {
            ("doctrine/warranty.yaml", "history-not-admin"),
            ("doctrine/warranty.yaml", "history-trailers"),
            ("roles.yaml", "history-not-admin"),
        }
        assert {f["commit"] for f in found if f["severity"] == "error"} == {evil}


def test_n1_a_hand_made_merge_restoring_roles(team: Path, runner) -> None:
    start = head(team)
    set_people(team, {**TEAM, "carol": "member"})
    commit_as(team, "alice", "carol steps down", "roles.yaml")
    git(team, "checkout", "-q", start, "--", "roles.yaml")
    tree = git(team, "write-tree").strip()
    git(team, "checkout", "-q", "HEAD", "--", "roles.yaml")
    evil = git(team, *as_person("carol"), "commit-tree", tree, "-p", "HEAD", "-p", start,
               "-m", "Merge branch 'old'").strip()  # fmt: skip
    git(team, "reset", "-q", "--hard", evil)
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-not-admin")["message"] == (
        f"commit {evil[:10]} by Carol <carol@example.com> changes roles.yaml, but carol was "
        "member in roles.yaml at the parent commit (admin required)"
    )


def test_n1_a_merge_with_an_empty_orphan_deleting_a_rule_and_a_memory(team: Path, runner) -> None:
    approve(team, "alice")
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    commit_as(team, "bob", "memory(bob): add", "memories/bob.md",
              body=trailers("add", "bob", "member"))  # fmt: skip
    empty = subprocess.run(["git", "-C", str(team), "mktree"], input="", text=True,
                           capture_output=True, check=True).stdout.strip()  # fmt: skip
    orphan = git(team, "commit-tree", empty, "-m", "empty").strip()
    git(team, "rm", "-q", "doctrine/warranty.yaml", "memories/bob.md")
    tree = git(team, "write-tree").strip()
    evil = git(team, *as_person("dave"), "commit-tree", tree, "-p", "HEAD", "-p", orphan,
               "-m", "Merge branch 'tooling'").strip()  # fmt: skip
    git(team, "reset", "-q", "--hard", evil)
    code, found = findings(runner)
    assert code == 1
    codes = {(f["path"], f["code"]) for f in found if f["commit"] == evil}
    assert codes >= {("doctrine/warranty.yaml", "history-not-admin"),
                     ("memories/bob.md", "history-memory-owner")}  # fmt: skip
    assert (
        "sets rule 'warranty' from active to deleted" in only(found, "history-not-admin")["message"]
    )


def test_n1_a_merge_dropping_the_sides_deactivation(team: Path, runner) -> None:
    approve(team, "alice")
    git(team, "switch", "-q", "-c", "side")
    rule = make_rule("warranty", status="deactivated", approved_by="alice")
    write_rule(team, rule)
    commit_as(team, "alice", "deactivate", rule.path, body=trailers("deactivate", "alice", "admin"))
    git(team, "switch", "-q", "main")
    (team / "notes.txt").write_text("x\n", encoding="utf-8")
    commit_as(team, "bob", "notes", "notes.txt")
    subprocess.run(["git", "-C", str(team), "merge", "-q", "--no-commit", "side"],
                   capture_output=True, check=False)  # fmt: skip
    git(team, "checkout", "main", "--", "doctrine/warranty.yaml")
    git(team, *as_person("bob"), "commit", "-qm", "Merge side")
    evil = head(team)
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-not-admin")["message"] == (
        f"commit {evil[:10]} by Bob <bob@example.com> sets rule 'warranty' to active, but bob "
        "was member in roles.yaml at the parent commit (admin required)"
    )


def test_n1_an_admin_resolving_a_merge_is_judged_like_any_edit(team: Path, runner) -> None:
    before = deactivate_and_demote(team)
    git(team, "switch", "-q", "-c", "side", "fork")
    git(team, *as_person("alice"), "merge", "-q", "-s", "ours", "main", "-m", "Merge main")
    git(team, "switch", "-q", "main")
    git(team, "merge", "-q", "--ff-only", "side")
    errors = history_errors(runner, "--since", before)
    # an admin may reactivate and promote; the merge lacks only the doctrine trailers
    assert [f["code"] for f in errors] == ["history-trailers"]


def test_clean_merges_add_nothing(team: Path, runner) -> None:
    git(team, "switch", "-q", "-c", "side")
    approve(team, "alice")
    git(team, "switch", "-q", "main")
    set_people(team, {**TEAM, "dave": "member"})
    commit_as(team, "alice", "dave joins", "roles.yaml")
    merge(team, "bob", "side")
    assert history_errors(runner) == []


# -- roles at the entry merge's result --------------------------------------------------------
def test_f1_a_colleague_added_upstream_and_a_plain_pull(team: Path, runner) -> None:
    start = head(team)
    git(team, "switch", "-q", "-c", "upstream")
    set_people(team, {**TEAM, "dave": "member"})
    commit_as(team, "alice", "roles: dave joins", "roles.yaml",
              body=trailers("roles", "alice", "admin"))  # fmt: skip
    (team / "memories" / "dave.md").write_text("# Memory: dave\n", encoding="utf-8")
    commit_as(team, "dave", "memory(dave): add", "memories/dave.md",
              body=trailers("add", "dave", "member"))  # fmt: skip
    git(team, "switch", "-q", "main")
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    commit_as(team, "bob", "memory(bob): add", "memories/bob.md",
              body=trailers("add", "bob", "member"))  # fmt: skip
    merge(team, "bob", "upstream")
    assert history_errors(runner) == []
    assert history_errors(runner, "--since", start) == []


def test_f1_an_onboarding_branch(team: Path, runner) -> None:
    start = head(team)
    git(team, "switch", "-q", "-c", "onboard")
    set_people(team, {**TEAM, "dave": "member"})
    commit_as(team, "alice", "roles: dave joins", "roles.yaml",
              body=trailers("roles", "alice", "admin"))  # fmt: skip
    (team / "memories" / "dave.md").write_text("# Memory: dave\n", encoding="utf-8")
    commit_as(team, "dave", "memory(dave): add", "memories/dave.md",
              body=trailers("add", "dave", "member"))  # fmt: skip
    git(team, "switch", "-q", "main")
    merge(team, "alice", "onboard", "--no-ff")
    assert history_errors(runner) == []
    assert history_errors(runner, "--since", start) == []


def test_f1_a_merge_dropping_the_promotion_still_counts_no_power(team: Path, runner) -> None:
    git(team, "switch", "-q", "-c", "onboard")
    set_people(team, {**TEAM, "dave": "admin"})
    commit_as(team, "alice", "roles: dave admin", "roles.yaml",
              body=trailers("roles", "alice", "admin"))  # fmt: skip
    approved = approve(team, "dave")
    git(team, "switch", "-q", "main")
    merge_taking(team, "onboard", "roles.yaml")  # dave stays a user on main
    assert only(history_errors(runner), "history-not-admin")["commit"] == approved


# -- misspelt watched paths -------------------------------------------------------------------
def test_n2_a_misspelt_watched_path(team: Path, runner) -> None:
    (team / "Doctrine").mkdir()
    rule = make_rule("sneaky", status="active", approved_by="alice")
    (team / "Doctrine" / "sneaky.yaml").write_text(
        (team / "doctrine" / "warranty.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (team / "ROLES.yaml").write_text(
        "bob: {email: bob@example.com, role: admin}\n", encoding="utf-8"
    )
    sha = commit_as(team, "bob", "docs", "Doctrine/sneaky.yaml", "ROLES.yaml")
    code, found = findings(runner)
    assert code == 1 and rule.id == "sneaky"
    assert sorted((f["path"], f["code"], f["commit"]) for f in found) == [
        ("Doctrine/sneaky.yaml", "history-path-case", sha),
        ("ROLES.yaml", "history-path-case", sha),
    ]
    assert only([f for f in found if f["path"] == "ROLES.yaml"], "history-path-case")[
        "message"
    ] == (
        f"commit {sha[:10]} by Bob <bob@example.com> commits ROLES.yaml: on a case-insensitive "
        "checkout (macOS, Windows) this file becomes an agentmem file (roles.yaml); rename or "
        "remove it"
    )


def test_merge_base_in_the_walk() -> None:
    pos = {"r": 0, "a": 1, "b": 2, "c": 3, "m": 4}
    parents = {"r": [], "a": ["r"], "b": ["a"], "c": ["a"], "m": ["b", "c"]}
    assert _base_in_walk("b", "c", pos, parents) == ("a", True)
    assert _base_in_walk("a", "c", pos, parents) == ("a", True)
    assert _base_in_walk("b", "c", {"b": 0, "c": 1}, {"b": ["x"], "c": ["x"]}) == (None, False)
    assert _base_in_walk("b", "c", {"b": 0, "c": 1}, {"b": [], "c": []}) == (None, True)


def test_n2_two_spellings_of_one_path(team: Path, runner) -> None:
    start = head(team)
    text = (team / "doctrine" / "warranty.yaml").read_text(encoding="utf-8")
    (team / "doctrine" / "Warranty.yaml").write_text(text, encoding="utf-8")
    sha = commit_as(team, "bob", "propose", "doctrine/Warranty.yaml",
                    body=trailers("propose", "bob", "member"))  # fmt: skip
    (team / "doctrine" / "Warranty.yaml").write_text(text + "\n", encoding="utf-8")
    commit_as(team, "bob", "again", "doctrine/Warranty.yaml",
              body=trailers("propose", "bob", "member"))  # fmt: skip
    for args in ((), ("--since", start)):
        code, found = findings(runner, *args)
        assert code == 1
        case = [f for f in found if f["code"] == "history-path-case"]
        assert [(f["commit"], f["path"], f["message"]) for f in case] == [
            (sha, "doctrine/Warranty.yaml",
             f"commit {sha[:10]} by Bob <bob@example.com> puts doctrine/Warranty.yaml beside "
             "doctrine/warranty.yaml: on a case-insensitive checkout (macOS, Windows) they "
             "become one file"),
        ]  # fmt: skip
