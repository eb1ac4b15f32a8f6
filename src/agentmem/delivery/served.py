"""The served view (docs/design/served.md §Served view): the one place that decides which bytes of an
agentmem file any reader may give an agent.

A reader never serves the work tree. It serves the blob of the file at ``HEAD`` when the last
commit that changed the file (on the first-parent line, a merge judged as what it brought in)
is a decision ``check --history`` finds nothing to say against — for a memory file, its
owner's own agentmem commit, or an admin's erase; otherwise the blob of the newest commit that
is, and a one-line note says what was left out and the command that fixes it. A work tree that
differs from ``HEAD`` is named the same way. The verdict on each commit comes from the history
judge itself (:func:`agentmem.check.history.check_history` over that commit), never from a
second judge here; it is kept in the hot path's cache (:mod:`agentmem.store.hotcache`) by the
commit id, which only saves the walk (a commit's verdict depends on that commit and its
ancestors alone). A cached verdict can only withhold: a refusal counts, an approval only for a
commit carrying the owner's decision marks (:func:`marked`), so one planted for a commit made
with plain git is never read (docs/design/served.md §Served view).

Standard library, the git runner and the cache only: this module is on the hot path, and the
judge is loaded only for a commit it has not judged before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentmem import trailers
from agentmem.store import gitrun, regular

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentmem.store.hotcache import HotCache

#: How many commits that changed a file are looked at for its last approved version.
MAX_CANDIDATES = 50
#: The cache's kind for verdicts on commits (``<commit>:<path>`` → True/False).
JUDGED = "judged"


class ServedFile:
    """One file as the served view gives it: ``text`` (None: nothing approved to give, or no
    such file at ``HEAD``), ``blob`` (the served blob id, ``""`` when none), ``commit`` (the
    commit it is served as of, ``""`` when none), ``head`` (``HEAD`` when read), ``work`` (the
    work tree's text, None when absent or unreadable as UTF-8), ``notes`` (one line per thing
    left out). A plain class: the hot path builds no dataclass."""

    __slots__ = ("path", "text", "blob", "commit", "work", "notes")

    def __init__(
        self,
        path: str,
        text: str | None,
        blob: str,
        commit: str,
        work: str | None,
        notes: tuple[str, ...],
    ) -> None:
        self.path = path
        self.text = text
        self.blob = blob
        self.commit = commit
        self.work = work
        self.notes = notes

    def __repr__(self) -> str:
        return f"ServedFile(path={self.path!r}, blob={self.blob!r}, notes={self.notes!r})"


def blob_of(data: bytes, like: str = "") -> str:
    """The git blob id of ``data`` (SHA-256 when ``like`` is a 64-digit id, else SHA-1)."""
    # lazy: hashlib only when a file is served
    import hashlib

    algorithm = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algorithm(b"blob %d\x00" % len(data) + data).hexdigest()


#: What ``git log`` prints of each candidate commit: ids, then (one line) the author's email
#: and the values of the two trailers that mark a decision (:func:`marked`).
_FORMAT = (
    f"--format=%x1e%H %P%n%ae%x1f%(trailers:key={trailers.ACTION},valueonly,separator=%x1d)"
    f"%x1f%(trailers:key={trailers.ACTOR},valueonly,separator=%x1d)"
)


def marked(owner: str, email: str, actions: list[str], actors: list[str]) -> bool:
    """True when a commit carries the marks of a decision the served view may take from the
    cache: an ``Agentmem-Action`` and, as its ``Agentmem-Actor``, the owner with the commit's
    author email — or an erase. Only then may a cached approval of it count: a commit made
    with plain git carries none of this, so a verdict planted for it is never read
    (docs/design/served.md §Served view: a cached verdict can only withhold); the judge
    decides it again. This decides nothing alone: without a verdict the judge runs."""
    if not actions:
        return False
    if "erase" in actions:
        return True
    for actor in actors:
        name, _space, rest = actor.partition(" <")
        if name == owner and rest.rstrip(">").strip().lower() == email.strip().lower():
            return True
    return False


def _candidates(
    root: Path, relpath: str, owner: str
) -> list[tuple[str, tuple[str, ...], str | None, bool]]:
    """``(commit, parents, blob, marks)`` of the newest commits of ``HEAD``'s first-parent line
    that changed ``relpath`` (a merge: against its first parent), newest first; ``blob`` None
    when the commit deleted it; ``marks``: whether it carries the owner's decision marks
    (:func:`marked`). One ``git log`` process."""
    args = ["log", "--first-parent", "-m", "--raw", "--no-abbrev", "--no-renames", "--no-color"]
    args += [f"-n{MAX_CANDIDATES}", _FORMAT, "HEAD", "--", relpath]
    proc = gitrun.run(root, args, None, None, text=True)
    if proc.returncode != 0:
        return []
    found: list[tuple[str, tuple[str, ...], str | None, bool]] = []
    for record in proc.stdout.split("\x1e")[1:]:
        lines = record.strip("\n").split("\n")
        ids = lines[0].split()
        if not ids or len(lines) < 2:
            continue
        email, _sep, values = lines[1].partition("\x1f")
        actions, _sep, actors = values.partition("\x1f")
        marks = marked(owner, email, _values(actions), _values(actors))
        blob: str | None = None
        for line in lines[1:]:
            if line.startswith(":") and "\t" in line:
                meta, path = line.split("\t", 1)
                fields = meta.split()
                if path == relpath and len(fields) >= 5:
                    blob = None if fields[4].startswith("D") else fields[3]
        found.append((ids[0], tuple(ids[1:]), blob, marks))
    return found


def _values(text: str) -> list[str]:
    return [v.strip() for v in text.split("\x1d") if v.strip()]


def _judge(root: Path, commit: str, parents: tuple[str, ...]) -> bool:
    """True when ``check --history`` has no error against ``commit`` (and, for a merge, the
    commits it brought in): the history judge walks exactly ``first parent..commit`` (its
    ``tip``), never the commits after it."""
    # lazy: the judge loads only for a commit the cache has no verdict on
    from agentmem.check.findings import ERROR
    from agentmem.check.history.walk import check_history

    since = parents[0] if parents else None
    result = check_history(root, since=since, tip=commit)
    return not any(f.severity == ERROR and f.commit for f in result.findings)


def approved(
    root: Path,
    commit: str,
    parents: tuple[str, ...],
    cache: HotCache | None,
    marks: bool = False,
) -> bool:
    """The judge's verdict on ``commit`` (:func:`_judge`). From ``cache``, a refusal always
    counts, an approval only when ``marks`` (the commit carries the owner's decision marks:
    :func:`marked`); anything else is judged again."""
    key = commit
    if cache is not None:
        found, value = cache.get(JUDGED, key)
        if found and (value is False or (value is True and marks)):
            return bool(value)
    verdict = _judge(root, commit, parents)
    if cache is not None:
        cache.put(JUDGED, key, verdict)
    return verdict


def _blob_text(root: Path, blob: str, work: bytes | None) -> str | None:
    """The text of ``blob``: the work tree's bytes when they are that blob, else git's."""
    if work is not None and blob_of(work, blob) == blob:
        data = work
    else:
        proc = gitrun.run(root, ["cat-file", "blob", blob], None, None, text=False)
        if proc.returncode != 0:
            return None
        data = proc.stdout
    try:
        return regular.universal(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def serve_file(
    root: Path, relpath: str, owner: str, cache: HotCache | None, fix: str
) -> ServedFile:
    """``relpath`` (a memory file of ``owner``) as the served view gives it (module docstring).
    ``fix``: the command that turns a work-tree change into a decision (named in the note).
    Raises the area's error when the work-tree file is a symlink or not a regular file."""
    work = regular.read_bytes(root, relpath)
    try:
        work_text = None if work is None else regular.universal(work.decode("utf-8"))
    except UnicodeDecodeError:
        work_text = None
    notes: list[str] = []
    candidates = _candidates(root, relpath, owner)  # none on an unborn branch
    served: tuple[str, str | None] | None = None
    for commit, parents, blob, marks in candidates:
        if approved(root, commit, parents, cache, marks):
            served = (commit, blob)
            break
    if candidates and (served is None or served[0] != candidates[0][0]):
        last = candidates[0][0][:10]
        since = f"as of commit {served[0][:10]}" if served else "nothing of it"
        notes.append(
            f"{relpath}: the last change (commit {last}) is not {owner}'s own decision made "
            f"with agentmem: given {since}. To fix: agentmem check --history names it; "
            f"git revert {last} undoes it"
        )
    head_blob = candidates[0][2] if candidates else None
    if work is not None and (head_blob is None or blob_of(work, head_blob) != head_blob):
        notes.append(
            f"{relpath} has changes that are not committed: given as committed. To fix: {fix}, "
            f"then git checkout -- {relpath}"
        )
    commit, blob = served if served is not None else ("", None)
    if blob is None:
        return ServedFile(relpath, None, "", commit, work_text, tuple(notes))
    text = _blob_text(root, blob, work)
    kept = blob if text is not None else ""
    return ServedFile(relpath, text, kept, commit, work_text, tuple(notes))


#: What turns a line typed into a memory file into a decision (named by the served view's note).
FIX_MEMORY = 'agentmem remember "…" (and agentmem review) files the line'
MEMORY_OPEN = '<agentmem-memory person="{}">'
MEMORY_CLOSE = "</agentmem-memory>"
_PREAMBLE = (
    "Remembered preferences of {} [",
    "## Remembered preferences of {} [",
    "The numbered entry below is a working preference that {} approved, ",
    "This block holds no working preference of {}'s, ",
    "No entries yet.",
    "None of {}'s ",
)


def consistent(printed: str, source: str | None, person: str) -> bool:
    """True when ``printed`` (a chat block as the hot path's memo stored it: the text block, a
    hook's JSON, or empty) could have been rendered from ``source``, the served text of
    ``person``'s memory: one block of that person, nothing outside it, no delimiter inside,
    every entry line the text of an entry of ``source`` and every heading one of its sections
    (docs/design/served.md §Served view: a cache's answer is checked against its source)."""
    # lazy: the memo's check only (the records module reads an entry line as the parser does)
    import json
    import re

    from agentmem.memory.records import split_entry

    block = printed
    if printed.startswith("{"):
        try:
            data = json.loads(printed)
        except ValueError:
            return False
        if not isinstance(data, dict):
            return False
        if "context" in data:  # context chat --format json
            text = data.get("text")
            entries = data.get("entries")
            if not isinstance(text, str) or not isinstance(entries, list):
                return False
            texts = [e.get("text") for e in entries if isinstance(e, dict)]
            if not all(isinstance(t, str) and _an_entry(t, source, split_entry) for t in texts):
                return False
            block = text
        else:
            extra = data.get("hookSpecificOutput")
            if extra is None:
                return set(data) == {"systemMessage"}  # shown to the person, never the model
            if not isinstance(extra, dict) or not isinstance(extra.get("additionalContext"), str):
                return False
            block = extra["additionalContext"]
    if not block:
        return True
    lines = block.split("\n")
    if lines[0] != MEMORY_OPEN.format(person) or lines[-1] != MEMORY_CLOSE:
        return False
    sections = {line[3:].strip() for line in (source or "").split("\n") if line.startswith("## ")}
    numbered = re.compile(r"^\d+\. (?:\[(?P<tags>[^\]\n]*)\] )?(?P<text>.*)$")
    delimiter = re.compile(r"<\s*/?\s*agentmem-(?:memory|doctrine)", re.IGNORECASE)
    preamble = tuple(start.format(person) for start in _PREAMBLE)
    many = re.compile(
        rf"^The \d+ numbered entries below are working preferences that {re.escape(person)} approved, "
    )
    for line in lines[1:-1]:
        if delimiter.search(line):
            return False
        if not line or line.startswith(preamble) or many.match(line):
            continue
        if re.match(r"^\d+ more entr(?:y|ies) \(#\d+–#\d+\) not shown here", line):
            continue
        heading = line[4:] if line.startswith("### ") else line[:-1] if line.endswith(":") else None
        if heading is not None and heading in sections:
            continue
        if re.match(r"^\d+\. \[withheld: the entry [^\]\n]*; run agentmem check\]$", line):
            continue
        match = numbered.match(line)
        if match is None or (match.group("tags") or "").startswith("withheld"):
            return False
        if not _an_entry(match.group("text"), source, split_entry):
            return False
    return True


def _an_entry(
    text: str, source: str | None, split: Callable[[str], tuple[str, str | None]]
) -> bool:
    """True when ``text`` is the text of an entry line of ``source``."""
    for line in (source or "").split("\n"):
        if line.startswith("- ") and split(line)[0] == text:
            return True
    return False
