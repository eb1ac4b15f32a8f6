"""Paths that only letter case tells apart (``check --history``): two files
under a watched folder in one commit's tree, such as ``doctrine/x.yaml`` and ``doctrine/X.yaml``,
become ONE file on a case-insensitive checkout (macOS, Windows), whichever git writes last.

Costs nothing when no two spellings meet in the walk (the usual case); otherwise ONE ``git
cat-file --batch-check`` for the commits that touch them. With ``--since``, the files at the
``--since`` commit are listed too (ONE ``git ls-tree``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentmem.check.history.gitread import CommitRecord, object_ids
from agentmem.store.gitio import run_git

FOLDERS = ("doctrine", "memories", "inbox", ".agentmem")


def _folded(path: str) -> str | None:
    folded = path.lower()
    return folded if folded.split("/", 1)[0] in FOLDERS and "/" in folded else None


def collisions(
    root: Path, commits: Sequence[CommitRecord], since: str | None
) -> list[tuple[CommitRecord, str, list[str]]]:
    """``(commit, path, other spellings)`` for each commit whose tree holds ``path`` and another
    spelling of it, while its first parent did not (a commit that writes one spelling beside
    another, or a merge that joins them). Raises :class:`~agentmem.errors.GitError`."""
    groups: dict[str, set[str]] = {}
    for commit in commits:
        for change in commit.changes:
            folded = _folded(change.path)
            if folded is not None and change.new is not None:
                groups.setdefault(folded, set()).add(change.path)
    if since is not None and groups:
        out = run_git(root, ["-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", "-z",
                             since, "--", *FOLDERS]).stdout  # fmt: skip
        for path in out.split("\0"):
            folded = _folded(path)
            if folded in groups:
                groups[folded].add(path)
    clashing = {k: sorted(v) for k, v in groups.items() if len(v) > 1}
    if not clashing:
        return []
    asked: list[tuple[CommitRecord, str, list[str]]] = []
    for commit in commits:
        touched = {_folded(c.path) for c in commit.changes if c.new is not None}
        for folded, names in clashing.items():
            if folded in touched or len(commit.parents) > 1:
                asked.append((commit, folded, names))
    names_asked = sorted(
        {f"{sha}:{name}" for commit, _, names in asked
         for sha in (commit.sha, *commit.parents[:1]) for name in names}
    )  # fmt: skip
    found = object_ids(root, names_asked)
    result = []
    for commit, _, names in asked:
        here = [n for n in names if found.get(f"{commit.sha}:{n}")]
        before = [n for n in names if commit.parents and found.get(f"{commit.parents[0]}:{n}")]
        if len(here) > 1 and (len(before) < 2 or set(here) - set(before)):
            path = next((n for n in here if n not in before), here[-1])
            result.append((commit, path, [n for n in here if n != path]))
    return result
