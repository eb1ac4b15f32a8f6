"""Erased stays erased (docs/design.md §Check, §Sync): the history walk against the erasure
record ``erasures.yaml`` (:mod:`agentmem.store.erasures`).

A clone made before an ``agentmem erase`` still holds the old commits; a plain pull and push,
or a ``-s ours`` merge, publishes them again. With the record (as HEAD holds it, plus every
version the walk sees, so deleting it does not help):

- ``history-erased-commit``: a commit the record lists (the first commits an erase rewrote) is
  in the walk — the old history is back; the merge that brought it back is named too;
- ``history-erased-value``: a commit that is not an ancestor of the erase that recorded a value
  holds that value (its tokens, in any case or form) in a file it commits, a path or its
  message. Ancestors of that erase were rewritten by it, so only what came after, or from
  elsewhere, is read: two git processes, only when the record holds a value; none at all when
  a whole walk never touched the record.

No message quotes the value; a value found in a file name is reported on ``erasures.yaml``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agentmem.check.findings import ERROR, Finding
from agentmem.check.history.gitread import CommitRecord
from agentmem.errors import AgentmemError
from agentmem.store import gitio
from agentmem.store.erasures import ERASURES_FILE, Erasure, Matcher, Record, parse_record

CODE_COMMIT = "history-erased-commit"
CODE_VALUE = "history-erased-value"


def records(
    root: Path, commits: list[CommitRecord], texts: dict[str, str], since: str | None
) -> list[Record]:
    """Every readable version of the record: HEAD's and each one a walked commit wrote. A whole
    walk (``since`` None) that never touched it needs no git process: HEAD cannot hold it."""
    found: list[str | None] = []
    for commit in commits:
        found += [texts.get(c.new or "") for c in commit.changes if c.path == ERASURES_FILE]
    if found or since is not None:
        found.append(gitio.show_file(root, "HEAD", ERASURES_FILE))
    parsed: list[Record] = []
    for text in dict.fromkeys(t for t in found if t):
        try:
            parsed.append(parse_record(text))
        except AgentmemError:
            continue  # an unreadable record is check's erasures-invalid / the judge's finding
    return parsed


def check_erasures(
    root: Path, commits: list[CommitRecord], texts: dict[str, str], since: str | None
) -> list[Finding]:
    """The findings of the module docstring for the walked ``commits`` (parents first);
    ``texts``: the blobs the walk read (the record's versions among them)."""
    recs = records(root, commits, texts, since)
    if not recs:
        return []
    return _old_history(commits, recs) + _values(root, commits, recs, texts, since)


def _when(erasure: Erasure) -> str:
    return f"the erase of {erasure.at} by {erasure.by} ({erasure.erased})"


def _old_history(commits: list[CommitRecord], recs: list[Record]) -> list[Finding]:
    listed: dict[str, Erasure] = {}
    for rec in recs:
        listed.update(rec.commits())
    if not listed:
        return []
    findings: list[Finding] = []
    old: dict[str, Erasure] = {}
    for commit in commits:
        erasure = listed.get(commit.sha) or next((old[p] for p in commit.parents if p in old), None)
        if erasure is None:
            continue
        old[commit.sha] = erasure
        if commit.sha in listed:
            message = (
                f"commit {commit.sha[:10]} by {commit.who} is from the history that "
                f"{_when(erasure)} rewrote: it and every commit built on it hold erased data "
                "(a clone made before the erase brought it back)"
            )
            findings.append(Finding(ERASURES_FILE, 1, ERROR, CODE_COMMIT, message, commit.sha))
        elif len(commit.parents) > 1 and any(p not in old for p in commit.parents):
            message = (
                f"commit {commit.sha[:10]} by {commit.who} merges back the history that "
                f"{_when(erasure)} rewrote (a clone made before the erase): undo the merge and "
                "clone the repository again"
            )
            findings.append(Finding(ERASURES_FILE, 1, ERROR, CODE_COMMIT, message, commit.sha))
    return findings


def _ancestry(commits: list[CommitRecord], tips: Iterable[str]) -> set[str]:
    """``tips`` and their ancestors among the walked commits."""
    parents = {c.sha: c.parents for c in commits}
    seen: set[str] = set()
    todo = [t for t in tips if t in parents]
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        todo += [p for p in parents.get(sha, ()) if p in parents]
    return seen


def _recorders(commits: list[CommitRecord], texts: dict[str, str]) -> dict[str, set[str]]:
    """Value hash → the walked commits that added it to the record."""
    added: dict[str, set[str]] = {}
    for commit in commits:
        for change in commit.changes:
            if change.path != ERASURES_FILE or change.new is None:
                continue
            try:
                after = parse_record(texts.get(change.new, ""))
                before = parse_record(texts[change.old]) if change.old in texts else None
            except (AgentmemError, KeyError):
                continue
            had = {v.sha256 for e in before.erasures for v in e.values} if before else set()
            for erasure in after.erasures:
                for value in erasure.values:
                    if value.sha256 not in had:
                        added.setdefault(value.sha256, set()).add(commit.sha)
    return added


def _values(
    root: Path,
    commits: list[CommitRecord],
    recs: list[Record],
    texts: dict[str, str],
    since: str | None,
) -> list[Finding]:
    entries = [(rec, e, v) for rec in recs for e in rec.erasures for v in e.values]
    if not entries:
        return []
    recorders = _recorders(commits, texts)
    walked = [c.sha for c in commits]
    clean: dict[str, set[str]] = {}  # value hash → commits it cannot be in (rewritten by it)
    for _rec, _e, value in entries:
        if value.sha256 not in clean:
            clean[value.sha256] = _ancestry(commits, recorders.get(value.sha256, ()))
    suspects = [s for s in walked if any(s not in c for c in clean.values())]
    if not suspects:
        return []
    matchers = [rec.matcher() for rec in recs]
    by_sha = {c.sha: c for c in commits}
    findings: list[Finding] = []
    messages, changes = _read(root, suspects)
    blob_text = _blobs(root, {oid for found in changes.values() for _p, oid in found})
    for sha in suspects:
        hit = _first_hit(
            matchers, clean, sha, messages.get(sha, ""), changes.get(sha, []), blob_text
        )
        if hit is None:
            continue
        where, erasure = hit
        commit = by_sha[sha]
        path = where if where not in ("", "\0name") else ERASURES_FILE
        place = {"": "in its message", "\0name": "in a file name"}.get(where, "")
        message = (
            f"commit {sha[:10]} by {commit.who} holds a value that {_when(erasure)} removed"
            f"{' ' + place if place else ''}: remove it (or drop the commit) before it is "
            "published"
        )
        findings.append(Finding(path, 1, ERROR, CODE_VALUE, message, sha))
    return findings


def _first_hit(
    matchers: list[Matcher],
    clean: dict[str, set[str]],
    sha: str,
    message: str,
    found: list[tuple[str, str]],
    blob_text: dict[str, str],
) -> tuple[str, Erasure] | None:
    """(where, erasure): ``""`` the message, ``"\\0name"`` a path, else the file's path."""
    places: list[tuple[str, str]] = [("", message)]
    places += [("\0name", path) for path, _oid in found]
    places += [(path, blob_text.get(oid, "")) for path, oid in found]
    for where, text in places:
        for matcher in matchers:
            for value, erasure in matcher.find_all(text):
                if sha not in clean.get(value.sha256, set()):
                    return where, erasure
    return None


def _read(root: Path, shas: list[str]) -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    """Messages and ``(path, new blob id)`` of each commit (a merge against its first parent:
    what it brings into the line)."""
    out = gitio.run_git_bytes(
        root,
        ["log", "--no-walk=unsorted", "--stdin", "-z", "--raw", "--no-abbrev", "--no-renames",
         "--root", "--diff-merges=first-parent", "--format=%x01%H%x00%B"],
        input_bytes="".join(f"{s}\n" for s in shas).encode(),
    )  # fmt: skip
    messages: dict[str, str] = {}
    changes: dict[str, list[tuple[str, str]]] = {}
    tokens = out.split(b"\0")
    current = ""
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip(b"\n")
        if token.startswith(b"\x01"):
            current = token[1:].decode().strip()
            messages[current] = (
                tokens[i + 1].decode("utf-8", "replace") if i + 1 < len(tokens) else ""
            )
            changes.setdefault(current, [])
            i += 2
            continue
        if token.startswith(b":") and i + 1 < len(tokens):
            fields = token.decode().split()
            path = tokens[i + 1].decode("utf-8", "surrogateescape")
            new, mode = (fields[3], fields[1]) if len(fields) >= 5 else ("0", "")
            if not set(new) <= {"0"} and mode != "160000" and path != ERASURES_FILE:
                changes[current].append((path, new))
            i += 2
            continue
        i += 1
    return messages, changes


def _blobs(root: Path, oids: set[str]) -> dict[str, str]:
    if not oids:
        return {}
    out = gitio.run_git_bytes(
        root, ["cat-file", "--batch"], input_bytes="".join(f"{o}\n" for o in sorted(oids)).encode()
    )
    texts: dict[str, str] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        fields = out[pos:end].decode().split()
        if len(fields) != 3:  # "<oid> missing"
            pos = end + 1
            continue
        size = int(fields[2])
        texts[fields[0]] = out[end + 1 : end + 1 + size].decode("utf-8", "replace")
        pos = end + 2 + size
    return texts
