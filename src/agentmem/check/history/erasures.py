"""Erased stays erased (docs/design/check.md §Check, §Sync): the history walk against the erasure
record ``erasures.yaml`` (:mod:`agentmem.store.erasures`).

A clone made before an ``agentmem erase`` still holds the old commits; a plain pull and push,
or a ``-s ours`` merge, publishes them again. With the record (as HEAD holds it, plus every
version the walk sees, so deleting it does not help):

- ``history-erased-commit``: a commit the record lists (the first commits an erase rewrote) is
  in the walk — the old history is back; the merge that brought it back is named too;
- ``history-erased-value``: a commit that is not an ancestor of the erase that recorded a value
  adds that value (its tokens, in any case or form) in the lines it adds to a file, a path or
  its message (a merge: what it brings in against its first parent). Ancestors of that erase were rewritten by it, so only what came after, or from
  elsewhere, is read: one ``git log -p -U0`` over those commits, only when the record holds a
  value; no git process at all when a whole walk never touched the record.

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
    root: Path,
    commits: list[CommitRecord],
    texts: dict[str, str],
    since: str | None,
    tip: str = "HEAD",
) -> list[Record]:
    """Every readable version of the record: HEAD's and each one a walked commit wrote. A whole
    walk (``since`` None) that never touched it needs no git process: HEAD cannot hold it.
    With a ``tip`` other than HEAD (a push a server judges), the record at HEAD (the server's
    branch), at ``since`` (the ref's old value) and at ``tip`` all count: a push that deletes
    the record erases nothing from it."""
    found: list[str | None] = []
    for commit in commits:
        found += [texts.get(c.new or "") for c in commit.changes if c.path == ERASURES_FILE]
    if found or since is not None or tip != "HEAD":
        for rev in dict.fromkeys(["HEAD", tip] + ([since] if since and tip != "HEAD" else [])):
            found.append(gitio.show_file(root, rev, ERASURES_FILE))
    parsed: list[Record] = []
    for text in dict.fromkeys(t for t in found if t):
        try:
            parsed.append(parse_record(text))
        except AgentmemError:
            continue  # an unreadable record is check's erasures-invalid / the judge's finding
    return parsed


def check_erasures(
    root: Path,
    commits: list[CommitRecord],
    texts: dict[str, str],
    since: str | None,
    tip: str = "HEAD",
) -> list[Finding]:
    """The findings of the module docstring for the walked ``commits`` (parents first);
    ``texts``: the blobs the walk read (the record's versions among them); ``tip``: the walked
    commit when it is not HEAD (:func:`records`)."""
    recs = records(root, commits, texts, since, tip)
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
    for sha in suspects:
        hit = _first_hit(matchers, clean, sha, messages.get(sha, ""), changes.get(sha, []))
        if hit is None:
            continue
        where, erasure = hit
        commit = by_sha[sha]
        path = where if where not in ("", "\0name") else ERASURES_FILE
        place = {"": "in its message", "\0name": "in a file name"}.get(where, "")
        message = (
            f"commit {sha[:10]} by {commit.who} brings back a value that {_when(erasure)} removed"
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
    added: list[tuple[str, str]],
) -> tuple[str, Erasure] | None:
    """(where, erasure): ``""`` the message, NUL + ``name`` a path, else the file's path."""
    places: list[tuple[str, str]] = [("", message)]
    places += [("\0name", path) for path, _text in added]
    places += added
    for where, text in places:
        for matcher in matchers:
            for value, erasure in matcher.find_all(text):
                if sha not in clean.get(value.sha256, set()):
                    return where, erasure
    return None


def _read(root: Path, shas: list[str]) -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    """Each commit's message and, per file it changes, the path and the lines it ADDS (a merge
    against its first parent: what it brings into the line). What a commit adds is what it
    brings: a value already in its parent came from an earlier commit, judged on its own. One
    ``git log -p -U0`` process; binary files are not read."""
    out = gitio.run_git_bytes(
        root,
        ["-c", "core.quotePath=false", "log", "--no-walk=unsorted", "--stdin", "-p", "-U0",
         "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--root",
         "--diff-merges=first-parent", "--format=%x01%H%n%B%x02"],
        input_bytes="".join(f"{s}\n" for s in shas).encode(),
    ).decode("utf-8", "replace")  # fmt: skip
    messages: dict[str, str] = {}
    changes: dict[str, list[tuple[str, str]]] = {}
    for chunk in out.split("\x01")[1:]:
        sha, _nl, rest = chunk.partition("\n")
        message, _sep, patch = rest.partition("\x02")
        messages[sha] = message
        files: list[tuple[str, list[str]]] = []
        for line in patch.split("\n"):
            if line.startswith("+++ "):
                path = line[4:].rstrip("\t").removeprefix("b/")
                files.append((path, []) if path != "/dev/null" else ("", []))
            elif line.startswith("+") and files:
                files[-1][1].append(line[1:])
        changes[sha] = [
            (path, "\n".join(lines)) for path, lines in files if path and path != ERASURES_FILE
        ]
    return messages, changes
