"""Crash consistency: a real ``agentmem review`` process is killed with SIGKILL
at each step of the write (``AGENTMEM_TEST_CRASH_AT``, read only by ``apply.writer``); the next
command recovers from ``.git/agentmem/pending.json`` and the approved change is either fully
committed or not at all, with ``git status`` clean. Also: a full disk, git mid-operation."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.apply import writer
from agentmem.memory.records import strip_markers
from agentmem.store import journal

ENTRY = "Keep answers short and lead with the decision."


def _agentmem(
    root: Path, *args: str, crash_at: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop(writer.CRASH_ENV, None)
    if crash_at:
        env[writer.CRASH_ENV] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "agentmem", *args], cwd=root, env=env, capture_output=True, text=True
    )


def _pending_id(runner: CliRunner) -> str:
    assert invoke(runner, "remember", ENTRY).exit_code == 0
    (proposal,) = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
    return proposal["id"]


def _assert_consistent(root: Path, before: str, pid: str, committed: bool) -> None:
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert not journal.has_pending(root)
    assert not (root / ".git" / "index.lock").exists()
    memory = root / "memories" / "alice.md"
    inbox_file = root / "inbox" / "alice" / f"{pid}.yaml"
    head = git(root, "rev-parse", "HEAD").strip()
    if committed:
        assert git(root, "rev-parse", "HEAD^").strip() == before
        assert f"- {ENTRY}\n" in strip_markers(memory.read_text(encoding="utf-8"))
        assert not inbox_file.exists()
        changed = git(root, "show", "--name-only", "--format=", "HEAD").split()
        assert changed == [f"inbox/alice/{pid}.yaml", "memories/alice.md"]
        trailers = git(root, "log", "-1", "--format=%(trailers:key=Agentmem-Proposal,valueonly)")
        assert trailers.strip() == pid
    else:
        assert head == before
        assert not memory.exists() or ENTRY not in memory.read_text(encoding="utf-8")
        assert inbox_file.exists()


# Each case starts two interpreters: one kill in the default run, the whole matrix when slow
# tests run too.
_slow = pytest.mark.slow


@pytest.mark.parametrize(
    ("step", "committed"),
    [
        pytest.param("after-journal", False, marks=_slow),
        pytest.param("after-temp-write", False, marks=_slow),
        pytest.param("after-replace", False, marks=_slow),
        ("before-commit", True),
        pytest.param("after-ref-update", True, marks=_slow),
    ],
)
@pytest.mark.parametrize(
    "next_command",
    [("inbox",), pytest.param(("remember", "Prefer tables to lists."), marks=_slow)],
)
@pytest.mark.slow
def test_sigkill_at_each_step_then_the_next_command_recovers(
    memrepo: Path, runner: CliRunner, step: str, committed: bool, next_command: tuple[str, ...]
) -> None:
    pid = _pending_id(runner)
    before = git(memrepo, "rev-parse", "HEAD").strip()
    killed = _agentmem(memrepo, "review", "--accept", pid, crash_at=step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert journal.has_pending(memrepo)

    after = _agentmem(memrepo, *next_command)
    assert after.returncode == 0, after.stderr
    assert "recovered an interrupted agentmem change" in after.stderr
    if next_command[0] == "remember":
        # the new proposal is one more commit on top of the recovered state: set it aside
        assert git(memrepo, "log", "-1", "--format=%s").startswith("inbox(alice)")
        git(memrepo, "update-ref", "HEAD", "HEAD^")
        git(memrepo, "reset", "-q")
        for path in (memrepo / "inbox" / "alice").glob("*.yaml"):
            if pid not in path.name:
                path.unlink()
    _assert_consistent(memrepo, before, pid, committed)


@pytest.mark.slow
def test_the_killed_process_left_debris_that_recovery_removes(
    memrepo: Path, runner: CliRunner
) -> None:
    pid = _pending_id(runner)
    _agentmem(memrepo, "review", "--accept", pid, crash_at="after-temp-write")
    leftovers = list((memrepo / "memories").glob(".alice.md.*.agentmem-tmp"))
    assert len(leftovers) == 1
    record = json.loads(journal.journal_path(memrepo).read_text(encoding="utf-8"))
    assert record["old_head"] == git(memrepo, "rev-parse", "HEAD").strip()
    assert [f["path"] for f in record["files"]] == ["memories/alice.md", f"inbox/alice/{pid}.yaml"]
    assert record["files"][1]["new"] is None and f"- {ENTRY}" in record["files"][0]["new"]
    assert record["message"].startswith('memory(alice): add to "Writing style"\n')
    assert _agentmem(memrepo, "inbox").returncode == 0
    assert list((memrepo / "memories").glob(".alice.md.*")) == []


@pytest.mark.slow
def test_check_warns_about_an_interrupted_change_and_leaves_it_alone(
    memrepo: Path, runner: CliRunner
) -> None:
    pid = _pending_id(runner)
    _agentmem(memrepo, "review", "--accept", pid, crash_at="after-replace")
    result = _agentmem(memrepo, "check")
    assert result.returncode == 0, result.stdout  # a warning: CI clones never have one
    assert (
        ".git/agentmem/pending.json:1: warning: an agentmem change was interrupted" in result.stdout
    )
    assert "[interrupted-change]" in result.stdout
    assert journal.has_pending(memrepo)  # check only reads
    assert _agentmem(memrepo, "inbox").returncode == 0
    assert "interrupted" not in _agentmem(memrepo, "check").stdout


@pytest.mark.slow
def test_after_recovery_the_proposal_can_still_be_accepted(
    memrepo: Path, runner: CliRunner
) -> None:
    pid = _pending_id(runner)
    _agentmem(memrepo, "review", "--accept", pid, crash_at="after-replace")
    result = _agentmem(memrepo, "review", "--accept", pid)
    assert result.returncode == 0, result.stderr
    assert "recovered an interrupted agentmem change" in result.stderr
    assert f"- {ENTRY}\n" in strip_markers(
        (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    )
    assert git(memrepo, "status", "--porcelain") == ""


@pytest.mark.slow
def test_a_file_edited_by_hand_after_the_crash_is_left_alone(
    memrepo: Path, runner: CliRunner
) -> None:
    pid = _pending_id(runner)
    _agentmem(memrepo, "review", "--accept", pid, crash_at="after-replace")
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "my own note\n", encoding="utf-8")
    result = _agentmem(memrepo, "inbox")
    assert "left untouched (changed by hand since): memories/alice.md" in result.stderr
    assert memory.read_text(encoding="utf-8").endswith("my own note\n")
    assert not journal.has_pending(memrepo)


def _fail_writes_to(monkeypatch: pytest.MonkeyPatch, marker: str) -> None:
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if marker in os.path.basename(target):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="needs /proc to know which file a write targets"
)
@pytest.mark.parametrize("marker", [".alice.md.", ".pending.json."])
def test_a_full_disk_leaves_the_file_byte_for_byte_and_nothing_committed(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, marker: str
) -> None:
    original = "# Memory: alice\n\n## Writing style\n- Be brief.\n\n## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n"
    (memrepo / "memories" / "alice.md").write_bytes(original.encode("utf-8"))
    git(memrepo, "add", "memories/alice.md")
    git(memrepo, "commit", "-qm", "seed")
    pid = _pending_id(runner)
    before = git(memrepo, "rev-parse", "HEAD").strip()
    _fail_writes_to(monkeypatch, marker)
    result = invoke(runner, "review", "--accept", pid)
    assert result.exit_code == 1
    assert "No space left on device (ENOSPC); nothing was changed or committed" in result.stderr
    assert "free some disk space" in result.stderr
    assert "Traceback" not in result.stderr and "unexpected" not in result.stderr
    assert (memrepo / "memories" / "alice.md").read_bytes() == original.encode("utf-8")
    assert git(memrepo, "rev-parse", "HEAD").strip() == before
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    assert not journal.has_pending(memrepo)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda gdir: (gdir / "MERGE_HEAD").write_text("0" * 40 + "\n"), "a merge is in progress"),
        (lambda gdir: (gdir / "rebase-merge").mkdir(), "a rebase is in progress"),
        pytest.param(
            lambda gdir: (gdir / "index.lock").write_text(""),
            "index.lock exists",
            marks=pytest.mark.slow,  # waits INDEX_LOCK_WAIT_SECONDS (2 s) before it refuses
        ),
    ],
)
def test_git_mid_operation_is_explained_before_any_write(
    memrepo: Path, runner: CliRunner, make, said: str
) -> None:
    pid = _pending_id(runner)
    before = git(memrepo, "rev-parse", "HEAD").strip()
    make(memrepo / ".git")
    result = invoke(runner, "review", "--accept", pid)
    assert result.exit_code == 1
    assert said in result.stderr
    assert git(memrepo, "rev-parse", "HEAD").strip() == before
    assert not (memrepo / "memories" / "alice.md").exists()


def test_a_detached_head_is_explained_before_any_write(memrepo: Path, runner: CliRunner) -> None:
    pid = _pending_id(runner)
    git(memrepo, "checkout", "-q", "--detach")
    result = invoke(runner, "review", "--accept", pid)
    assert result.exit_code == 1
    assert "HEAD is detached" in result.stderr and "git switch main" in result.stderr


@pytest.mark.slow
def test_head_moved_by_hand_after_the_crash_means_the_change_is_rolled_back(
    memrepo: Path, runner: CliRunner
) -> None:
    pid = _pending_id(runner)
    _agentmem(memrepo, "review", "--accept", pid, crash_at="before-commit")
    git(memrepo, "commit", "-q", "--allow-empty", "-m", "someone else's commit")
    moved = git(memrepo, "rev-parse", "HEAD").strip()
    result = _agentmem(memrepo, "inbox")
    assert "put the base versions back (the change was not applied)" in result.stderr
    _assert_consistent(memrepo, moved, pid, committed=False)


def test_an_unreadable_journal_is_explained_not_guessed(memrepo: Path, runner: CliRunner) -> None:
    path = journal.journal_path(memrepo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    result = invoke(runner, "remember", "Prefer tables to lists.")
    assert result.exit_code == 1
    assert (
        "unreadable agentmem journal" in result.stderr and "then delete the file" in result.stderr
    )
    assert path.exists()


def test_an_atomic_write_keeps_the_file_mode(tmp_path: Path) -> None:
    existing = tmp_path / "kept.md"
    existing.write_text("old\n", encoding="utf-8")
    existing.chmod(0o640)
    writer.atomic_write(existing, "new\n")
    assert existing.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.md"
    writer.atomic_write(fresh, "new\n")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.slow
@pytest.mark.parametrize(
    ("step", "committed"), [("after-temp-write", False), ("before-commit", True)]
)
def test_a_crash_while_writing_to_the_inbox_is_recovered_too(
    memrepo: Path, step: str, committed: bool
) -> None:
    before = git(memrepo, "rev-parse", "HEAD").strip()
    killed = _agentmem(memrepo, "remember", "Prefer tables to lists.", crash_at=step)
    assert killed.returncode == -signal.SIGKILL
    assert _agentmem(memrepo, "inbox").returncode == 0
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    pending = (
        list((memrepo / "inbox" / "alice").glob("*.yaml"))
        if (memrepo / "inbox" / "alice").is_dir()
        else []
    )
    assert len(pending) == (1 if committed else 0)
    assert (
        (git(memrepo, "rev-parse", "HEAD^").strip() == before)
        if committed
        else (git(memrepo, "rev-parse", "HEAD").strip() == before)
    )


SERIES = ["Keep answers short.", "List the clauses first.", "Quote article numbers."]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("step", "committed", "outcome"),
    [
        ("after-journal", False, "put the base versions back"),
        ("after-replace", False, "put the base versions back"),
        ("before-commit", True, "finished its commit"),
        ("after-ref-update", True, "had landed"),
    ],
)
def test_a_series_of_accepts_killed_at_each_step_lands_whole_or_not_at_all(
    memrepo: Path, runner: CliRunner, step: str, committed: bool, outcome: str
) -> None:
    """``review --accept all`` of three proposals is ONE journaled series of three commits
    (one ``fast-import``): killed anywhere, the next command lands the three commits, each
    with its own proposal's trailers, or none of them."""
    for text in SERIES:
        assert invoke(runner, "remember", text).exit_code == 0
    ids = [p["id"] for p in json.loads(invoke(runner, "inbox", "--format", "json").stdout)]
    before = git(memrepo, "rev-parse", "HEAD").strip()
    killed = _agentmem(memrepo, "review", "--accept", "all", crash_at=step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    record = json.loads(journal.journal_path(memrepo).read_text(encoding="utf-8"))
    assert len(record["steps"]) == 3 and record["old_head"] == before

    after = _agentmem(memrepo, "inbox")
    assert after.returncode == 0, after.stderr
    assert "recovered an interrupted agentmem change" in after.stderr and outcome in after.stderr
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    assert not journal.has_pending(memrepo)
    path = memrepo / "memories" / "alice.md"
    memory = path.read_text(encoding="utf-8") if path.exists() else ""
    if not committed:
        assert git(memrepo, "rev-parse", "HEAD").strip() == before
        assert not any(text in memory for text in SERIES)
        assert len(list((memrepo / "inbox" / "alice").glob("*.yaml"))) == 3
        return
    assert git(memrepo, "rev-parse", "HEAD~3").strip() == before
    said = git(
        memrepo, "log", "-3", "--reverse", "--format=%(trailers:key=Agentmem-Proposal,valueonly)"
    )
    assert said.split() == ids  # one commit per proposal, in order
    for n, text in enumerate(SERIES):  # each commit adds its own entry and removes its file
        shown = git(memrepo, "show", f"HEAD~{2 - n}", "--format=", "--stat")
        assert f"inbox/alice/{ids[n]}.yaml" in shown and "memories/alice.md" in shown
        assert f"- {text}" in git(memrepo, "show", f"HEAD~{2 - n}:memories/alice.md")
    assert all(f"- {text}" in strip_markers(memory) for text in SERIES)
    assert not list((memrepo / "inbox" / "alice").glob("*.yaml"))
