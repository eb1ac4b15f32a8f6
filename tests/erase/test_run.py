"""``agentmem erase`` on real repositories with a bare remote: the data leaves
the work tree, every commit, the inbox, the local logs; the checks of the issue find nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
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
        "verified: every commit message; every path; every file of every commit; reflog; "
        "the rewritten files parse; search index; agentmem's local files; erase work folders "
        "find nothing" in result.stdout
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
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["erasures.yaml"]
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


@pytest.mark.slow
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
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["erasures.yaml"]
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


@pytest.mark.slow
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


# -- erased stays erased: the record, check --history, sync ------------------------------------
def _stale_setup(root: Path, tmp_path: Path) -> Path:
    """The e-mail committed then removed, pushed; a second clone made; then erased here, the
    rewrite force-pushed and the host's old objects pruned. Returns the stale clone."""
    notes = root / "notes.md"
    notes.write_text(f"Supplier contact: {EMAIL}\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "notes")
    git(root, "rm", "-q", "notes.md")
    git(root, "commit", "-qm", "drop the notes")
    git(root, "push", "-q")
    stale = tmp_path / "stale"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(stale))
    set_identity(stale, "Alice Martin", "alice@example.com")
    assert invoke(CliRunner(), "erase", "--text", EMAIL, "--yes").exit_code == 0
    git(root, "push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*")
    remote = tmp_path / "remote.git"
    git(remote, "reflog", "expire", "--expire=now", "--all")
    git(remote, "gc", "-q", "--prune=now")
    assert EMAIL.encode() not in _objects(remote)
    return stale


def _history_codes(runner: CliRunner) -> tuple[int, list[dict[str, object]], str]:
    result = invoke(runner, "check", "--history", "--format", "json")
    findings = json.loads(result.stdout)
    return result.exit_code, findings, result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("how", ["pull", "ours"])
def test_a_stale_clone_that_merges_the_old_history_back_fails_check_history(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    stale = _stale_setup(shared, tmp_path)
    record = (shared / "erasures.yaml").read_text(encoding="utf-8")
    assert EMAIL not in record and "bob" not in record.lower()
    if how == "pull":  # an ordinary pull and push from the stale clone
        git(stale, "pull", "-q", "--no-rebase")
        git(stale, "push", "-q")
    else:  # someone on the new history merges the stale branch with -s ours
        git(shared, "fetch", "-q", str(stale), "main:stale")
        git(shared, "merge", "-q", "-s", "ours", "--no-edit", "stale")
        git(shared, "branch", "-q", "-D", "stale")
        git(shared, "push", "-q")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(fresh))
    assert EMAIL.encode() in _objects(fresh)  # the data is back on the host...
    monkeypatch.chdir(fresh)
    code, findings, shown = _history_codes(runner)
    assert code == 1  # ...and the team's check says so, without repeating it
    assert EMAIL not in shown
    codes = {f["code"] for f in findings}
    assert "history-erased-commit" in codes
    first = yaml.safe_load((fresh / "erasures.yaml").read_text(encoding="utf-8"))["erasures"][0][
        "commits"
    ]
    assert {f["commit"] for f in findings if f["code"] == "history-erased-commit"} >= set(first)
    old = [f for f in findings if f["code"] == "history-erased-value"]
    assert [f["path"] for f in old] == ["notes.md"]  # the commit that held the e-mail


@pytest.mark.slow
def test_sync_refuses_to_push_a_merge_of_the_old_history(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = _stale_setup(shared, tmp_path)
    git(stale, "pull", "-q", "--no-rebase")
    remote_head = git(tmp_path / "remote.git", "rev-parse", "main")
    monkeypatch.chdir(stale)
    result = invoke(runner, "sync")
    assert result.exit_code == 1
    assert "sync refused" in result.stderr and "[history-erased-commit]" in result.stderr
    assert "clone the repository again" in result.stderr
    assert EMAIL not in result.stderr
    assert git(tmp_path / "remote.git", "rev-parse", "main") == remote_head


@pytest.mark.slow
def test_the_record_survives_later_erases_and_refuses_the_value_typed_again(
    shared: Path, runner: CliRunner
) -> None:
    root = shared
    (root / "notes.md").write_text(f"{EMAIL}\nDave Chen, 555 0100\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "notes")
    assert invoke(runner, "erase", "--text", EMAIL, "--yes").exit_code == 0
    first = (root / "erasures.yaml").read_text(encoding="utf-8")
    assert invoke(runner, "erase", "--text", "Dave Chen", "--yes").exit_code == 0
    second = (root / "erasures.yaml").read_text(encoding="utf-8")
    assert second.startswith(first.split("\n- at:")[0])  # same salt, first entry kept as it was
    assert first.split("erasures:\n", 1)[1] in second
    assert second.count("\n- at: ") == 2
    assert invoke(runner, "check", "--history").exit_code == 0  # the rewritten history is clean
    # the same value typed again, in another case and form, in a later commit
    (root / "notes.md").write_text("Ask DAVE-CHEN.\n", encoding="utf-8")
    git(root, "commit", "-qam", "notes again")
    code, findings, shown = _history_codes(runner)
    assert code == 1 and "Dave" not in shown and "DAVE" not in shown
    assert [(f["code"], f["path"]) for f in findings] == [("history-erased-value", "notes.md")]
    git(root, "reset", "-q", "--hard", "HEAD^")
    # a hand edit of the record that drops an entry
    record = root / "erasures.yaml"
    record.write_text(first, encoding="utf-8")
    git(root, "commit", "-qam", "trim the record")
    code, findings, _shown = _history_codes(runner)
    assert [f["code"] for f in findings] == ["history-erasure-record"]


@pytest.mark.slow
def test_a_person_erasure_is_recorded_and_a_stale_merge_of_it_refused(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = shared
    _as(root, "bob")
    assert invoke(runner, "remember", "Bob prefers bullet points.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    _as(root, "alice")
    git(root, "push", "-q")
    stale = tmp_path / "stale"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(stale))
    set_identity(stale, "Alice Martin", "alice@example.com")
    assert invoke(runner, "erase", "--person", "bob", "--yes").exit_code == 0
    record = yaml.safe_load((root / "erasures.yaml").read_text(encoding="utf-8"))
    (entry,) = record["erasures"]
    assert entry["erased"] == "memory and inbox of bob" and entry["values"] == []
    assert len(entry["commits"]) == 1
    git(root, "push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*")
    git(stale, "pull", "-q", "--no-rebase")
    git(stale, "push", "-q")
    git(root, "pull", "-q", "--no-rebase")
    code, findings, _shown = _history_codes(runner)
    assert code == 1
    assert {f["commit"] for f in findings if f["code"] == "history-erased-commit"} >= set(
        entry["commits"]
    )


# -- every form, through agentmem's own serialisers ---------------------------------------------
def _escalation_rule(root: Path, runner: CliRunner) -> None:
    """bob (member) proposes a rule naming a client, Initech; alice (admin) approves it.

    A client's name, not a person's: the guard refuses a person's name in a rule (pii:name)."""
    _as(root, "bob")
    result = invoke(
        runner, "doctrine", "propose", "--id", "escalate-to-initech-desk",
        "--title", "Escalate to the Initech desk",
        "--instruction", "Escalate supplier disputes over 10k EUR to the Initech desk.",
        "--scope", "contracts", "--limit", "Not for software licences.",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _as(root, "alice")
    approved = invoke(runner, "doctrine", "approve", "escalate-to-initech-desk", "--version", "1")
    assert approved.exit_code == 0, approved.stderr


@pytest.mark.slow
def test_a_rule_naming_the_text_is_renamed_and_still_applies(
    shared: Path, runner: CliRunner
) -> None:
    root = shared
    _escalation_rule(root, runner)
    result = invoke(runner, "erase", "--text", "initech", "--yes")  # lower case
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in (root / "doctrine").glob("*.yaml")) == [
        "escalate-to-removed-desk.yaml"
    ]
    rule = (root / "doctrine" / "escalate-to-removed-desk.yaml").read_text(encoding="utf-8")
    assert "id: escalate-to-removed-desk\n" in rule
    assert "title: Escalate to the ***REMOVED*** desk\n" in rule
    audit = invoke(runner, "context", "audit", "--scope", "contracts")
    assert audit.exit_code == 0 and "1 active rule" in audit.stdout
    assert "Rule escalate-to-removed-desk, version 1" in audit.stdout
    subjects = git(root, "log", "--format=%s").splitlines()
    assert "doctrine(escalate-to-removed-desk): approve v1 (draft → active)" in subjects
    objects = _objects(root).lower()
    assert b"initech" not in objects
    checked = invoke(runner, "check", "--history")
    assert checked.exit_code == 0, checked.stdout  # approvals were sealed again for the new content


@pytest.mark.slow
def test_matching_ignores_case_and_finds_the_slug_form(shared: Path, runner: CliRunner) -> None:
    root = shared
    (root / "notes.md").write_text("DAVE  CHEN\nsee dave_chen and Dave-Chen\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "ask dave chen")
    result = invoke(runner, "erase", "--text", "Dave Chen", "--yes")
    assert result.exit_code == 0, result.stderr
    assert (root / "notes.md").read_text(encoding="utf-8") == (
        "***REMOVED***\nsee removed and removed\n"
    )
    assert git(root, "log", "--format=%s", "HEAD^").splitlines()[0] == "ask ***REMOVED***"


@pytest.mark.slow
def test_an_inbox_value_that_starts_with_the_text_stays_readable(
    shared: Path, runner: CliRunner
) -> None:
    root = shared
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    (inbox_file,) = (root / "inbox" / "alice").glob("*.yaml")
    text = inbox_file.read_text(encoding="utf-8")
    inbox_file.write_text(
        text.replace("text: Quote clause numbers.", "text: Dave Chen wants clause numbers quoted."),
        encoding="utf-8",
    )
    git(root, "commit", "-qam", "hand edit")
    result = invoke(runner, "erase", "--text", "Dave Chen", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "text: '***REMOVED*** wants clause numbers quoted.'\n" in inbox_file.read_text(
        encoding="utf-8"
    )
    listed = invoke(runner, "inbox")
    assert listed.exit_code == 0, listed.stderr
    assert "***REMOVED*** wants clause numbers quoted." in listed.stdout


def test_the_verification_looks_for_every_form(
    shared: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.erase import run as erase_module

    root = shared
    (root / "notes.md").write_text("nothing here\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "Ask DAVE-CHEN")  # only the message holds it, as a slug
    monkeypatch.setattr(
        erase_module, "_rewrite_history", lambda *_args: []
    )  # a rewrite that missed it
    result = invoke(runner, "erase", "--text", "Dave Chen", "--yes")
    assert result.exit_code == 1
    assert "erase incomplete: still found by every commit message" in result.stderr
    assert "DAVE" not in result.stderr


def test_the_erasure_record_always_changes_so_an_erase_always_commits(
    shared: Path, runner: CliRunner
) -> None:
    """The erase commit needs no fallback for "nothing changed": the record gains an entry
    every time, even the same class of data erased again by the same admin on the same day."""
    from agentmem.apply.writer import apply_changes
    from agentmem.erase import run as erase_module
    from agentmem.store import erasures
    from agentmem.store.repo import open_repository

    repo = open_repository(shared)
    alice = repo.people()["alice"]
    target = erase_module.EraseTarget(person="bob", data_class="memory and inbox of bob")
    first = erase_module._record_change(shared, alice, target)
    assert first.old is None and first.new is not None
    assert apply_changes(shared, [first], "erase: test") is not None
    again = erase_module._record_change(shared, alice, target)
    assert again.old == first.new and again.new != again.old
    assert again.new is not None
    assert [e.erased for e in erasures.parse_record(again.new).erasures] == [
        "memory and inbox of bob",
        "memory and inbox of bob",
    ]


def test_an_unreadable_erasure_record_is_a_check_error(shared: Path, runner: CliRunner) -> None:
    (shared / "erasures.yaml").write_text("salt: 12\nerasures: []\n", encoding="utf-8")
    result = invoke(runner, "check", "--format", "json")
    assert result.exit_code == 1
    assert [(f["path"], f["code"]) for f in json.loads(result.stdout)] == [
        ("erasures.yaml", "erasures-invalid")
    ]


@pytest.mark.slow
def test_a_memory_entry_keeps_its_record_and_the_file_its_shape(
    shared: Path, runner: CliRunner
) -> None:
    root = shared
    assert (
        invoke(runner, "remember", "Project Falcon reports go to the board first.").exit_code == 0
    )
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    result = invoke(runner, "erase", "--text", "PROJECT FALCON", "--yes")
    assert result.exit_code == 0, result.stderr
    lines = (root / "memories" / "alice.md").read_text(encoding="utf-8").splitlines()
    (entry,) = [ln for ln in lines if "reports go to the board" in ln]
    assert entry.startswith(
        "- ***REMOVED*** reports go to the board first. <!-- am: basis=declared"
    )
    shown = invoke(runner, "memory", "show")
    assert shown.exit_code == 0 and "***REMOVED*** reports go to the board first." in shown.stdout
    assert invoke(runner, "check", "--history").exit_code == 0


def test_a_renamed_path_never_takes_an_existing_name() -> None:
    from agentmem.erase.scrub import Scrubber, rename_map, rule_ids

    paths = {
        "doctrine/escalate-to-dave-chen.yaml",
        "doctrine/escalate-to-removed.yaml",
        "notes/Dave Chen.md",
        "README.md",
    }
    renames = rename_map(Scrubber("Dave Chen"), paths)
    assert renames == {
        "doctrine/escalate-to-dave-chen.yaml": "doctrine/escalate-to-removed-2.yaml",
        "notes/Dave Chen.md": "notes/removed.md",
    }
    scrubber = Scrubber("Dave Chen", renames, rule_ids(renames))
    assert (
        scrubber.message("doctrine(escalate-to-dave-chen): approve v1\n\nAsk dave chen.\n")
        == "doctrine(escalate-to-removed-2): approve v1\n\nAsk ***REMOVED***.\n"
    )


# -- the corners: worktrees, unreadable and non-UTF-8 local files, identifiers, killed erases ----
def _committed_notes(root: Path, text: str) -> None:
    (root / "notes.md").write_text(f"Supplier contact: {text}\n", encoding="utf-8")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "notes")


def test_a_linked_worktree_is_refused_before_anything_is_rewritten(
    shared: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _committed_notes(shared, EMAIL)
    git(shared, "worktree", "add", "-q", "--detach", str(tmp_path / "old"), "HEAD~1")
    head = git(shared, "rev-parse", "HEAD")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 1
    assert "linked worktrees share this repository's history" in result.stderr
    assert "git worktree remove" in result.stderr and EMAIL not in result.stderr
    assert git(shared, "rev-parse", "HEAD") == head  # nothing committed, nothing rewritten
    assert not (shared / "erasures.yaml").exists()


def test_an_unreadable_local_file_fails_the_erase_loudly(
    shared: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _committed_notes(shared, EMAIL)
    local = shared / ".agentmem"
    local.mkdir(exist_ok=True)
    locked = local / "usage.jsonl"
    locked.write_text('{"actor": "alice"}\n', encoding="utf-8")
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == locked:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    head = git(shared, "rev-parse", "HEAD")
    result = invoke(runner, "erase", "--text", EMAIL, "--yes")
    assert result.exit_code == 1
    assert ".agentmem/usage.jsonl: cannot be read (Permission denied)" in result.stderr
    assert git(shared, "rev-parse", "HEAD") == head


@pytest.mark.slow
def test_local_files_are_read_as_bytes_and_an_identifier_without_its_spaces_is_found(
    shared: Path, runner: CliRunner
) -> None:
    spaced = "1 85 05 78 006 084 36"
    _committed_notes(shared, f"NIR {spaced}")
    git(shared, "push", "-q")
    local = shared / ".agentmem"
    local.mkdir(exist_ok=True)
    usage = local / "usage.jsonl"
    kept = b'{"actor": "alice", "note": "caf\xe9"}\n'  # one byte that is not UTF-8
    usage.write_bytes(kept + b'{"actor": "alice", "query": "NIR 1.85.05.78.006.084.36"}\n')
    # a folder an erase killed mid-way left, with the value in plain text
    stale = shared / ".git" / "agentmem" / "erase-killed"
    stale.mkdir(parents=True)
    (stale / "spec.json").write_text(json.dumps({"text": "185057800608436"}), encoding="utf-8")

    result = invoke(runner, "erase", "--text", "185057800608436", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "agentmem's local files; erase work folders find nothing" in result.stdout
    assert usage.read_bytes() == kept  # the line holding it gone, the other kept byte for byte
    assert not stale.exists()
    assert list((shared / ".git" / "agentmem").glob("erase-*")) == []
    assert (shared / "notes.md").read_text(
        encoding="utf-8"
    ) == "Supplier contact: NIR ***REMOVED***\n"
    objects = _objects(shared)
    assert b"006 084 36" not in objects and b"185057800608436" not in objects
    # the record matches the value with or without its separators
    from agentmem.store.erasures import parse_record

    record = parse_record((shared / "erasures.yaml").read_text(encoding="utf-8"))
    assert record.matcher().find_all(f"call about {spaced} today")
    assert record.matcher().find_all("ref 185057800608436")


def _bob_clone(tmp_path: Path, name: str) -> Path:
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(clone))
    set_identity(clone, "Bob Stone", "bob@example.com")
    return clone


@pytest.mark.slow
def test_a_colleague_push_after_the_forced_push_is_kept_by_the_erasers_sync(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _committed_notes(shared, EMAIL)
    git(shared, "push", "-q")
    assert invoke(runner, "erase", "--text", EMAIL, "--yes").exit_code == 0
    git(shared, "push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*")
    bob = _bob_clone(tmp_path, "bob")  # cloned after the rewrite
    monkeypatch.chdir(bob)
    assert invoke(runner, "remember", "Answer in French for client Leroy.").exit_code == 0
    assert invoke(runner, "sync").exit_code == 0
    bobs = git(bob, "rev-parse", "HEAD").strip()
    monkeypatch.chdir(shared)
    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    result = invoke(runner, "sync")
    assert result.exit_code == 0, result.stderr  # it blocked for good before
    remote = tmp_path / "remote.git"
    assert git(remote, "merge-base", "--is-ancestor", bobs, "main") == ""  # bob's commit kept
    assert not (shared / ".git" / "agentmem" / "erased.json").exists()
    assert list((shared / ".git" / "agentmem").glob("probe-*")) == []
    assert EMAIL.encode() not in _objects(shared)


@pytest.mark.slow
def test_a_push_on_the_old_history_is_never_discarded_by_the_hint(
    shared: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _committed_notes(shared, EMAIL)
    git(shared, "push", "-q")
    git(shared, "fetch", "-q")  # alice knows the remote's tip before the erase
    bob = _bob_clone(tmp_path, "bob")  # cloned before the rewrite
    assert invoke(runner, "erase", "--text", EMAIL, "--yes").exit_code == 0
    monkeypatch.chdir(bob)
    assert invoke(runner, "remember", "Answer in French for client Leroy.").exit_code == 0
    assert invoke(runner, "sync").exit_code == 0  # on the old history, before the forced push
    bobs = git(bob, "rev-parse", "HEAD").strip()
    monkeypatch.chdir(shared)
    result = invoke(runner, "sync")
    assert result.exit_code == 1
    assert "1 commit(s) were pushed on it since the erase" in result.stderr
    assert bobs[:10] in result.stderr and "a forced push would discard them" in result.stderr
    assert "git push --force origin" not in result.stderr  # the old hint would drop bob's work
    assert EMAIL.encode() not in _objects(shared)  # the probe brought nothing in
    assert list((shared / ".git" / "agentmem").glob("probe-*")) == []


@pytest.mark.slow
def test_erase_person_removes_their_exported_blocks_and_whole_inbox(
    shared: Path, runner: CliRunner, tmp_path: Path
) -> None:
    root = shared
    _as(root, "bob")
    assert invoke(runner, "remember", "Bob prefers bullet points.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    # bob's block exported into the repository's CLAUDE.md (committed) and another project's
    claude = root / "CLAUDE.md"
    claude.write_text("# Team notes\n\nKeep answers short.\n", encoding="utf-8")
    exported = invoke(runner, "export", "--to", "claude-md", "--output", str(claude))
    assert exported.exit_code == 0, exported.stderr
    elsewhere = tmp_path / "project" / "CLAUDE.md"
    elsewhere.parent.mkdir()
    exported = invoke(runner, "export", "--to", "claude-md", "--output", str(elsewhere))
    assert exported.exit_code == 0, exported.stderr
    assert b"Bob prefers bullet points." in claude.read_bytes()
    git(root, "add", "CLAUDE.md")
    git(root, "commit", "-qm", "CLAUDE.md: bob's memory for the agents")
    stray = root / "inbox" / "bob" / "p-untracked.yaml"  # never committed
    stray.write_text("text: Bob reads contracts at night.\n", encoding="utf-8")
    _as(root, "alice")

    result = invoke(runner, "erase", "--person", "bob", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "exported blocks; inbox folder" in result.stdout
    assert claude.read_text(encoding="utf-8") == "# Team notes\n\nKeep answers short.\n"
    assert not elsewhere.exists()  # nothing but bob's block was in it
    assert not (root / "inbox" / "bob").exists()
    objects = _objects(root)
    assert b"Bob prefers bullet points." not in objects
    assert b"agentmem:begin memory person=bob" not in objects
    assert git(root, "status", "--porcelain") == ""
