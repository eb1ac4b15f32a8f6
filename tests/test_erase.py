"""``agentmem erase`` on real repositories with a bare remote: the data leaves
the work tree, every commit, the inbox, the local logs; the checks of the issue find nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from typer.testing import CliRunner

EMAIL = "bob.stone@example.org"


@pytest.fixture
def shared(memrepo: Path, tmp_path: Path) -> Path:
    """memrepo with bob (member) in roles.yaml and a bare remote ``origin`` holding it."""
    roles = memrepo / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8") + "bob:\n  email: bob@example.com\n  role: member\n",
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qm", "add bob", "--", "roles.yaml")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(memrepo, "remote", "add", "origin", str(remote))
    git(memrepo, "push", "-q", "-u", "origin", "main")
    return memrepo


def _objects(root: Path) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout


def _as(root: Path, who: str) -> None:
    if who == "bob":
        set_identity(root, "Bob Stone", "bob@example.com")
    else:
        set_identity(root, "Alice Martin", "alice@example.com")


def test_erase_is_for_admins_only(shared: Path, runner: CliRunner) -> None:
    _as(shared, "bob")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 1
    assert "erase needs the admin role; you are bob (member)" in result.stderr


@pytest.mark.slow
def test_erase_text_of_an_email_committed_then_removed(shared: Path, runner: CliRunner) -> None:
    root = shared
    notes = root / "notes.md"
    notes.write_text(f"Supplier contact: {EMAIL}\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", f"notes, ask {EMAIL}")
    git(root, "rm", "-q", "notes.md")
    git(root, "commit", "-qm", "drop the notes")
    git(root, "push", "-q")
    local = root / ".agentmem"
    local.mkdir(exist_ok=True)
    (local / "queue.jsonl").write_text(
        json.dumps({"session_id": "s1", "transcript_path": f"/tmp/{EMAIL}.jsonl"})
        + "\n"
        + json.dumps({"session_id": "s2", "transcript_path": "/tmp/other.jsonl"})
        + "\n",
        encoding="utf-8",
    )
    (local / "cache").mkdir()
    (local / "cache" / "last-prompt.txt").write_text(f"write to {EMAIL}\n", encoding="utf-8")
    commits_before = int(git(root, "rev-list", "--count", "HEAD"))
    assert EMAIL.encode() in _objects(root)

    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 0, result.stderr
    assert EMAIL not in result.stdout + result.stderr
    assert (
        "verified: git log --all -S / --grep; reflog; git cat-file --batch-all-objects --batch; search index find nothing"
        in result.stdout
    )
    assert "git push --force origin 'refs/heads/*:refs/heads/*'" in result.stdout
    assert "every other clone must be deleted and cloned again" in result.stdout

    # the checks of the issue, run here too
    assert git(root, "log", "--all", "--oneline", "-S", EMAIL) == ""
    assert git(root, "log", "--all", "--oneline", "-F", f"--grep={EMAIL}") == ""
    assert EMAIL not in git(root, "reflog", "show", "--all")
    assert EMAIL.encode() not in _objects(root)
    assert git(root, "log", "--format=%s", "HEAD~2").splitlines()[0] == "notes, ask ***REMOVED***"
    # the erase commit: who erased what class of data, never the data; every commit kept
    head = git(root, "log", "-1", "--format=%B")
    assert head.startswith("erase: text (pii:email)\n")
    assert (
        "Agentmem-Action: erase\n" in head and "Agentmem-Actor: alice <alice@example.com>" in head
    )
    assert int(git(root, "rev-list", "--count", "HEAD")) == commits_before + 1
    assert git(root, "status", "--porcelain") == ""
    # local files
    assert (local / "queue.jsonl").read_text(encoding="utf-8").count("\n") == 1
    assert not (local / "cache" / "last-prompt.txt").exists()
    # sync waits for the forced push, then carries on
    blocked = invoke(runner, "sync")
    assert (
        blocked.exit_code == 1 and "fetching it would bring the erased data back" in blocked.stderr
    )
    git(root, "push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*")
    assert invoke(runner, "sync").exit_code == 0
    assert EMAIL.encode() not in _objects(root)


def test_erase_text_in_the_work_tree_and_the_inbox(shared: Path, runner: CliRunner) -> None:
    root = shared
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    (inbox_file,) = (root / "inbox" / "alice").glob("*.yaml")
    inbox_file.write_text(
        inbox_file.read_text(encoding="utf-8") + f"# seen by {EMAIL}\n", encoding="utf-8"
    )
    git(root, "commit", "-qam", "hand edit")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 0, result.stderr
    assert inbox_file.read_text(encoding="utf-8").endswith("# seen by ***REMOVED***\n")
    rel = inbox_file.relative_to(root).as_posix()
    # history was rewritten under the erase commit too: it records the erasure, the diff is gone
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == []
    assert git(root, "show", f"HEAD^:{rel}").endswith("# seen by ***REMOVED***\n")
    assert EMAIL.encode() not in _objects(root)


@pytest.mark.slow
def test_erase_person_removes_their_memory_everywhere_and_keeps_the_audit_trail(
    shared: Path, runner: CliRunner
) -> None:
    root = shared
    _as(root, "bob")
    assert invoke(runner, "remember", "Bob prefers bullet points.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert (
        invoke(runner, "remember", "Bob reads contracts at night.").exit_code == 0
    )  # still pending
    _as(root, "alice")
    assert invoke(runner, "remember", "Alice quotes clause numbers.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    (root / ".agentmem" / "usage.jsonl").write_text(
        json.dumps({"run_id": "r1", "actor": "bob", "scope": "contracts"})
        + "\n"
        + json.dumps({"run_id": "r2", "actor": "alice", "scope": "contracts"})
        + "\n",
        encoding="utf-8",
    )
    alice_before = (root / "memories" / "alice.md").read_text(encoding="utf-8")
    count = int(git(root, "rev-list", "--count", "HEAD"))

    result = invoke(runner, "erase", "--person", "bob", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "erased memory and inbox of bob" in result.stdout
    assert "remove them from roles.yaml" in result.stdout
    assert not (root / "memories" / "bob.md").exists() and not (root / "inbox" / "bob").exists()
    assert git(root, "log", "--all", "--oneline", "--", "memories/bob.md", "inbox/bob") == ""
    assert "memories/bob.md" not in git(root, "rev-list", "--all", "--objects")
    objects = _objects(root)
    assert (
        b"Bob prefers bullet points." not in objects
        and b"Bob reads contracts at night." not in objects
    )
    assert (root / "memories" / "alice.md").read_text(encoding="utf-8") == alice_before
    assert int(git(root, "rev-list", "--count", "HEAD")) == count + 1
    assert "memory(bob): add to" in git(
        root, "log", "--format=%s"
    )  # the decision stays, not the data
    justifications = git(
        root, "log", "--format=%s|%(trailers:key=Agentmem-Justification,valueonly)"
    ).splitlines()
    assert [j for j in justifications if j.startswith("memory(bob)")] == [
        'memory(bob): add to "Writing style"|***REMOVED***'
    ]  # a model-written reason may quote bob
    assert [j for j in justifications if j.startswith("memory(alice)")] == [
        'memory(alice): add to "Writing style"|asked with agentmem remember'
    ]
    checked = invoke(runner, "check", "--history")
    assert checked.exit_code == 0, checked.stdout  # the rewritten history still follows the rules
    assert (
        git(root, "log", "-1", "--format=%(trailers:key=Agentmem-Erased,valueonly)").strip()
        == "memory and inbox of bob"
    )
    assert [
        json.loads(ln)["actor"]
        for ln in (root / ".agentmem" / "usage.jsonl").read_text().splitlines()
    ] == ["alice"]
    assert git(root, "status", "--porcelain") == ""


def test_nothing_to_erase_is_refused(shared: Path, runner: CliRunner) -> None:
    head = git(shared, "rev-parse", "HEAD")
    result = invoke(runner, "erase", "--person", "nobody", "--yes")
    assert result.exit_code == 1 and "nothing to erase" in result.stderr
    assert git(shared, "rev-parse", "HEAD") == head


def test_uncommitted_changes_and_stashes_are_refused(shared: Path, runner: CliRunner) -> None:
    roles = shared / "roles.yaml"
    roles.write_text(roles.read_text(encoding="utf-8") + f"# {EMAIL}\n", encoding="utf-8")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 1 and "needs a clean work tree" in result.stderr
    git(shared, "stash", "-q")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 1 and "refs/stash" in result.stderr


@pytest.mark.parametrize("text", ["abc", " padded ", "two\nlines"])
def test_a_text_too_short_or_not_one_line_is_refused(
    shared: Path, runner: CliRunner, text: str
) -> None:
    result = invoke(runner, "erase", "--text", text, "--yes")
    assert result.exit_code == 2


@pytest.mark.slow
def test_a_clone_that_predates_the_erase_refuses_to_replay_the_old_history(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = shared
    notes = root / "notes.md"
    notes.write_text(f"{EMAIL}\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "notes")
    git(root, "push", "-q")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    assert invoke(runner, "erase", "--text", EMAIL, "--yes").exit_code == 0
    git(root, "push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*")
    monkeypatch.chdir(other)
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    result = invoke(runner, "sync")
    assert result.exit_code == 1
    assert (
        "was rewritten by agentmem erase" in result.stderr
        and "clone the repository again" in result.stderr
    )


def test_the_text_can_come_from_stdin_so_it_stays_out_of_shell_history(
    shared: Path, runner: CliRunner
) -> None:
    (shared / "notes.md").write_text(f"{EMAIL}\n", encoding="utf-8")
    git(shared, "add", "notes.md")
    git(shared, "commit", "-qm", "notes")
    result = invoke(runner, "erase", "--text", "-", "--yes", input=f"{EMAIL}\n")
    assert result.exit_code == 0, result.stderr
    assert (shared / "notes.md").read_text(encoding="utf-8") == "***REMOVED***\n"
    assert EMAIL.encode() not in _objects(shared)
