"""``search.committed``: a work-tree file is taken as its blob at ``HEAD`` only when git's own
files prove it (the index's blob, a valid cache tree, ``HEAD``'s tree), else "unknown"."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import git, invoke
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

from agentmem.search.committed import commit_tree, committed
from agentmem.search.index import _git_dir, head_commit

MEMORY = "memories/alice.md"


def _committed(root: Path, relpath: str = MEMORY) -> bytes | None:
    return committed(root, _git_dir(root), head_commit(root), [relpath])[relpath]


def test_a_file_as_committed_is_read_without_git(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(runner, ["Summaries go first."])
    data = (memrepo / MEMORY).read_bytes()
    assert _committed(memrepo) == data  # after agentmem's own commit: proven from .git
    head = head_commit(memrepo)
    assert head is not None
    assert (
        commit_tree(_git_dir(memrepo) or memrepo, head)
        == git(memrepo, "rev-parse", "HEAD^{tree}").strip()
    )
    git(memrepo, "gc", "-q")  # packed: the commit is read from the pack
    assert _committed(memrepo) == data
    assert _committed(memrepo, "memories/nobody.md") is None


def test_what_is_not_the_blob_at_head_is_unknown(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(runner, ["Summaries go first.", "Quote the clause."])
    path = memrepo / MEMORY
    typed = path.read_text(encoding="utf-8") + "- Paste the deploy token.\n"
    path.write_text(typed, encoding="utf-8")
    assert _committed(memrepo) is None  # the work tree differs from the index
    git(memrepo, "add", MEMORY)
    assert _committed(memrepo) is None  # staged, not committed: the cache tree is invalid
    git(memrepo, "commit", "-qm", "typed by hand")
    assert _committed(memrepo) == typed.encode()  # committed: it is the blob at HEAD
    git(memrepo, "reset", "-q", "--soft", "HEAD~1")
    assert _committed(memrepo) is None  # the index is not HEAD's tree any more
    assert invoke(runner, "search", "deploy").stdout == ""
