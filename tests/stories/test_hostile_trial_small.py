"""The smaller holes a hostile trial found: a disk that fills in the middle of a review, and a
member deleting another member's draft. (End of input in ``review --interactive``, a refused
``memory edit``'s scratch copy, ``harvest`` with every proposal rejected and a future-dated
``doctrine approve`` are proved in tests/stories/test_hostile_trial.py and
tests/doctrine/test_lifecycle.py.)"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.history import history_errors, setup_team
from tests.helpers.team import commit_as, make_rule, set_people, trailers, write_rule
from typer.testing import CliRunner

from agentmem.store import gitio, journal

ENTRIES = [
    "Quote clause numbers first.",
    "Prefer tables to bullet lists.",
    "Answer in British English.",
    "Name the supplier in the first line.",
    "Give penalties as a percentage.",
    "Keep summaries under ten lines.",
]


@pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="needs /proc to know which file a write targets"
)
@pytest.mark.slow
def test_a_disk_that_fills_after_two_of_six_commits_is_exit_1_and_recoverable(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in ENTRIES:
        assert invoke(runner, "remember", text).exit_code == 0
    before = git(memrepo, "rev-parse", "HEAD").strip()
    full = {"now": False}
    real_commit, real_write = gitio.commit_paths, os.write
    done: list[str] = []

    def commit_paths(*args: object, **kwargs: object) -> str:
        if len(done) == 2:  # git runs out of space writing the third commit's objects
            full["now"] = True
            raise gitio.GitError("git write-tree failed: error: No space left on device")
        sha = real_commit(*args, **kwargs)  # type: ignore[arg-type]
        done.append(sha)
        return sha

    def write(fd: int, data: bytes) -> int:
        # Once full, the memory file can no longer be written (its restore fails too), so the
        # journal stays with the memory file holding the approved text and the inbox file back.
        if full["now"] and ".alice.md." in os.path.basename(os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(gitio, "commit_paths", commit_paths)
    monkeypatch.setattr(os, "write", write)
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 1, result.stderr
    assert "unexpected error" not in result.stderr and "Traceback" not in result.stderr
    assert "No space left on device" in result.stderr
    assert "free some disk space" in result.stderr
    assert len(git(memrepo, "rev-list", f"{before}..HEAD").split()) == 2

    # Space freed: the next command finishes what the journal holds, and the rest is pending.
    monkeypatch.setattr(os, "write", real_write)
    monkeypatch.setattr(gitio, "commit_paths", real_commit)
    listing = invoke(runner, "inbox", "--format", "json")
    assert listing.exit_code == 0, listing.stderr
    assert not journal.has_pending(memrepo)
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    assert listing.stdout.count('"id"') == 4
    assert invoke(runner, "review", "--accept", "all").exit_code == 0


def test_a_member_may_not_delete_another_members_draft(memrepo: Path, runner: CliRunner) -> None:
    team = setup_team(memrepo)  # bob's draft 'warranty'
    set_people(team, {"alice": "admin", "bob": "member", "carol": "admin", "dave": "member"})
    commit_as(team, "alice", "dave is a member", "roles.yaml")
    (team / "doctrine" / "warranty.yaml").unlink()
    sha = commit_as(team, "dave", "doctrine: drop warranty", "doctrine/warranty.yaml",
                    body=trailers("delete", "dave", "member"))  # fmt: skip
    errors = history_errors(runner)
    assert [(f["commit"], f["code"]) for f in errors] == [(sha, "history-not-admin")]
    assert errors[0]["message"].endswith(
        "deletes the draft rule 'warranty', which bob created, but dave was member in roles.yaml "
        "at the parent commit (its creator or an admin required)"
    )
    # Its creator may withdraw it, and an admin may delete it.
    git(team, "reset", "-q", "--hard", "HEAD~1")
    (team / "doctrine" / "warranty.yaml").unlink()
    commit_as(team, "bob", "doctrine: withdraw warranty", "doctrine/warranty.yaml",
              body=trailers("delete", "bob", "member"))  # fmt: skip
    write_rule(team, make_rule("other", proposed_by="dave"))
    commit_as(team, "dave", "propose other", "doctrine/other.yaml",
              body=trailers("propose", "dave", "member"))  # fmt: skip
    (team / "doctrine" / "other.yaml").unlink()
    commit_as(team, "carol", "doctrine: drop other", "doctrine/other.yaml",
              body=trailers("delete", "carol", "admin"))  # fmt: skip
    assert history_errors(runner) == []
