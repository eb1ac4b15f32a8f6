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
def test_a_disk_that_fills_while_a_series_of_accepts_commits_is_exit_1_and_recoverable(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``review --accept all`` commits its accepts as a series (one fast-import, all land or
    none): git runs out of space writing the series' objects, and the memory file can no
    longer be written back either. Exit 1 with the disk named, nothing committed, and the next
    command puts the files back from the journal: the six proposals are pending again."""
    for text in ENTRIES:
        assert invoke(runner, "remember", text).exit_code == 0
    before = git(memrepo, "rev-parse", "HEAD").strip()
    full = {"now": False}
    real_series, real_write = gitio.commit_series, os.write

    def commit_series(*args: object, **kwargs: object) -> list[str]:
        full["now"] = True  # git runs out of space writing the series' objects
        raise gitio.GitError("git fast-import failed: error: No space left on device")

    def write(fd: int, data: bytes) -> int:
        # Once full, the memory file can no longer be written (its restore fails too), so the
        # journal stays for the next command.
        if full["now"] and ".alice.md." in os.path.basename(os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(gitio, "commit_series", commit_series)
    monkeypatch.setattr(os, "write", write)
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 1, result.stderr
    assert "unexpected error" not in result.stderr and "Traceback" not in result.stderr
    assert "No space left on device" in result.stderr
    assert "6 proposals not applied" in result.stderr, result.stderr
    assert git(memrepo, "rev-list", f"{before}..HEAD").split() == []

    # Space freed: the next command completes or undoes what the journal holds; all pending.
    monkeypatch.setattr(os, "write", real_write)
    monkeypatch.setattr(gitio, "commit_series", real_series)
    listing = invoke(runner, "inbox", "--format", "json")
    assert listing.exit_code == 0, listing.stderr
    assert not journal.has_pending(memrepo)
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    assert listing.stdout.count('"id"') == 6
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert len(git(memrepo, "rev-list", f"{before}..HEAD").split()) == 6


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
