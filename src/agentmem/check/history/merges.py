"""What a merge decided itself (``check --history``): the watched paths
whose result is not what a clean merge gives.

With ``B`` the merge base of the parents (octopus: of all of them; none for unrelated
histories), a path is **clean** when at most one version other than ``B``'s is found among the
parents and the result is that version (or ``B``'s when no parent changed it). Anything else — the
result is ``B``'s although a parent changed it (a revert by merge), the result is one parent's
although another parent made another change (a change dropped), a content no parent has — is a
change made BY the merge's author, judged like any edit (:mod:`agentmem.check.history.walk`) from the
first parent's version (or, when the result is the first parent's, from the first other parent's
version it throws away) to the result. ``git log --diff-merges=combined`` shows only the last
kind; this module adds the others to the merge's :attr:`CommitRecord.changes`.

Git processes: one ``git diff-tree --stdin`` for every ``merge parent`` and ``merge base`` pair,
plus one ``git merge-base`` per merge whose base is not found inside the walk (only with
``--since``); the bases are otherwise computed here from the parents already read.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentmem.check.history.gitread import Change, CommitRecord, pathspecs, watched
from agentmem.store.gitio import run_git

Version = tuple[str, str] | None
"""A path's version at one commit: (blob id, mode), None when absent."""


@dataclass
class _Diffs:
    """Per merge: ``{path: (old version, new version)}`` from each parent, and from the base."""

    parents: list[dict[str, tuple[Version, Version]]]
    base: dict[str, tuple[Version, Version]] | None


def add_merge_changes(root: Path, commits: Sequence[CommitRecord]) -> None:
    """Add to every merge of ``commits`` (parents before children) a :class:`Change` per watched
    path it resolved otherwise than a clean merge would (see the module docstring), unless the
    combined diff already lists the path. Raises :class:`~agentmem.errors.GitError`."""
    merges = [c for c in commits if len(c.parents) > 1]
    if not merges:
        return
    bases = merge_bases(root, commits, merges)
    diffs = _read_diffs(root, merges, bases)
    for merge in merges:
        listed = {c.path for c in merge.changes}
        for change in _unclean(diffs[merge.sha], bases[merge.sha] is not None):
            if change.path not in listed:
                merge.changes.append(change)


def merge_bases(
    root: Path, commits: Sequence[CommitRecord], merges: Sequence[CommitRecord]
) -> dict[str, str | None]:
    """``{merge: its parents' merge base or None (unrelated)}``: computed from the walk's parent
    graph when a base is found inside it (or the walk holds every ancestor), else ONE ``git
    merge-base`` for that merge."""
    pos = {c.sha: i for i, c in enumerate(commits)}
    parents = {c.sha: c.parents for c in commits}
    found: dict[str, str | None] = {}
    for merge in merges:
        base: str | None = merge.parents[0]
        known = True
        for other in merge.parents[1:]:
            if base is None:
                break
            base, known = _base_in_walk(base, other, pos, parents)
            if not known:
                break
        found[merge.sha] = base if known else _git_merge_base(root, merge.parents)
    return found


def _base_in_walk(
    a: str, b: str, pos: dict[str, int], parents: dict[str, list[str]]
) -> tuple[str | None, bool]:
    """(a best common ancestor of ``a`` and ``b``, True), or (None, True) when they have none,
    or (None, False) when the walk does not hold enough of the graph to say. Paints down from
    both in topological order: the first commit reached from both is a best common ancestor."""
    if a == b:
        return a, True
    if a not in pos or b not in pos:
        return None, False
    flags = {a: 1, b: 2}
    heap = sorted([(-pos[a], a), (-pos[b], b)])
    escaped = False
    while heap:
        _, sha = heapq.heappop(heap)
        flag = flags[sha]
        if flag == 3:
            return sha, True
        for parent in parents[sha]:
            if parent not in pos:
                escaped = True
                continue
            old = flags.get(parent, 0)
            if old | flag != old:
                flags[parent] = old | flag
                if not old:
                    heapq.heappush(heap, (-pos[parent], parent))
    return None, not escaped


def _git_merge_base(root: Path, parents: Sequence[str]) -> str | None:
    args = ["merge-base", *(["--octopus"] if len(parents) > 2 else []), *parents]
    proc = run_git(root, args, check=False)
    out = proc.stdout.split()
    return out[0] if proc.returncode == 0 and out else None


def _read_diffs(
    root: Path, merges: Sequence[CommitRecord], bases: dict[str, str | None]
) -> dict[str, _Diffs]:
    """ONE ``git diff-tree --stdin``: a line ``<merge> <other>`` diffs ``other`` (read as the
    merge's parent) against the merge; each follows a marker line ``@ <merge index> <parent index
    or b>`` that git echoes unchanged (not a commit), which tells the blocks apart."""
    lines: list[str] = []
    diffs: dict[str, _Diffs] = {}
    for k, merge in enumerate(merges):
        for i, parent in enumerate(merge.parents):
            lines += [f"@ {k} {i}", f"{merge.sha} {parent}"]
        base = bases[merge.sha]
        if base is not None:
            lines += [f"@ {k} b", f"{merge.sha} {base}"]
        diffs[merge.sha] = _Diffs([{} for _ in merge.parents], {} if base is not None else None)
    args = ["-c", "core.quotePath=false", "diff-tree", "--stdin", "-r", "--raw", "--no-renames",
            "--no-abbrev", "-z", "--", *pathspecs()]  # fmt: skip
    out = run_git(root, args, input_text="".join(f"{line}\n" for line in lines)).stdout
    tokens = out.split("\0")
    target: dict[str, tuple[Version, Version]] | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        while token.startswith("@ "):
            marker, _, token = token.partition("\n")
            _, index, which = marker.split()
            entry = diffs[merges[int(index)].sha]
            target = entry.base if which == "b" else entry.parents[int(which)]
        if token.startswith(":") and i + 1 < len(tokens) and target is not None:
            path = tokens[i + 1]
            fields = token[1:].split()
            if watched(path):
                target[path] = (_version(fields[2], fields[0]), _version(fields[3], fields[1]))
            i += 2
            continue
        i += 1
    return diffs


def _version(oid: str, mode: str) -> Version:
    return None if set(oid) == {"0"} else (oid, mode)


def _unclean(diffs: _Diffs, has_base: bool) -> list[Change]:
    paths = sorted({p for d in diffs.parents for p in d})
    changes = []
    for path in paths:
        result = next(d[path][1] for d in diffs.parents if path in d)
        versions = [d[path][0] if path in d else result for d in diffs.parents]
        if diffs.base is not None and path in diffs.base:
            base = diffs.base[path][0]
        else:
            base = result if has_base else None
        changed = {v for v in versions if v != base}
        if len(changed) <= 1 and result == (next(iter(changed)) if changed else base):
            continue
        old = next((v for v in versions if v != result), versions[0])
        mode = result[1] if result else "000000"
        olds = tuple(_oid(v) for v in versions)
        changes.append(Change(path, _oid(old), _oid(result), mode, olds))
    return changes


def _oid(version: Version) -> str | None:
    return version[0] if version else None
