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

Standard library, the git runner, the cache and where the judge's walk starts
(:mod:`agentmem.check.history.start`, as light) only: this module is on the hot path, and the
judge is loaded only for a commit it has not judged before.
"""

from __future__ import annotations

import contextlib
import os

from agentmem import trailers
from agentmem.check.history.start import JUDGED_SETTINGS, strict, stricter
from agentmem.errors import AgentmemError, GitError
from agentmem.store import gitrun, regular
from agentmem.store.root import CONFIG_FILE
from agentmem.store.yamlio import MAX_YAML_BYTES

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.doctrine.model import Rule
    from agentmem.store.hotcache import HotCache
    from agentmem.store.root import StrPath

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


#: The decisions that take the whole file as it stands, not one change to it: the owner's
#: ``memory edit`` (the whole file opened, checked and committed) and an admin's erase.
WHOLE_FILE_ACTIONS = frozenset(("edit", "erase"))

Candidate = tuple[str, tuple[str, ...], str | None, bool, bool]


def _candidates(root: StrPath, relpath: str, owner: str) -> list[Candidate]:
    """``(commit, parents, blob, marks, whole)`` of the newest commits of ``HEAD``'s
    first-parent line that changed ``relpath`` (a merge: against its first parent), newest
    first; ``blob`` None when the commit deleted it; ``marks``: whether it carries the owner's
    decision marks (:func:`marked`); ``whole``: marked and a :data:`WHOLE_FILE_ACTIONS`
    decision. One ``git log`` process."""
    args = ["log", "--first-parent", "-m", "--raw", "--no-abbrev", "--no-renames", "--no-color"]
    args += [f"-n{MAX_CANDIDATES}", _FORMAT, "HEAD", "--", relpath]
    proc = gitrun.run(root, args, None, None, text=True)
    if proc.returncode != 0:
        return []
    found: list[Candidate] = []
    for record in proc.stdout.split("\x1e")[1:]:
        lines = record.strip("\n").split("\n")
        ids = lines[0].split()
        if not ids or len(lines) < 2:
            continue
        email, _sep, values = lines[1].partition("\x1f")
        actions, _sep, actors = values.partition("\x1f")
        marks = marked(owner, email, _values(actions), _values(actors))
        whole = marks and not WHOLE_FILE_ACTIONS.isdisjoint(_values(actions))
        blob: str | None = None
        for line in lines[1:]:
            if line.startswith(":") and "\t" in line:
                meta, path = line.split("\t", 1)
                fields = meta.split()
                if path == relpath and len(fields) >= 5:
                    blob = None if fields[4].startswith("D") else fields[3]
        found.append((ids[0], tuple(ids[1:]), blob, marks, whole))
    return found


def _values(text: str) -> list[str]:
    return [v.strip() for v in text.split("\x1d") if v.strip()]


def _judge(root: StrPath, commits: list[tuple[str, tuple[str, ...]]]) -> dict[str, bool]:
    """For each ``(commit, parents)`` (newest first), True when ``check --history`` has no
    error against it (and, for a merge, the commits it brought in): what the history judge's
    walk to it (its ``tip``) finds, never the commits after it — several in one walk where that
    walk finds of each what its own would (:func:`~agentmem.check.history.start.judge_each`)."""
    # lazy: the judge loads only for a commit the cache has no verdict on
    from agentmem.check.findings import ERROR
    from agentmem.check.history.start import judge_each

    found = judge_each(root, commits)
    return {c: not any(f.severity == ERROR for f in found[c]) for c, _p in commits}


def _from_cache(cache: HotCache | None, commit: str, marks: bool) -> bool | None:
    """The verdict on ``commit`` the cache may give: a refusal always, an approval only when
    ``marks``; None: the judge decides."""
    if cache is None:
        return None
    found, value = cache.get(JUDGED, commit)
    if found and (value is False or (value is True and marks)):
        return bool(value)
    return None


def verdicts_of(
    root: StrPath, commits: list[tuple[str, tuple[str, ...], bool]], cache: HotCache | None
) -> dict[str, bool]:
    """The judge's verdict on each ``(commit, parents, marks)`` (newest first). From ``cache``,
    a refusal always counts, an approval only when ``marks`` (the commit carries the owner's
    decision marks: :func:`marked`, and is signed as the signing policy in force requires:
    :func:`unsigned_as_required`); the others are judged together (:func:`_judge`) and their
    verdicts cached."""
    found: dict[str, bool] = {}
    todo: list[tuple[str, tuple[str, ...]]] = []
    for commit, parents, marks in commits:
        known = _from_cache(cache, commit, marks)
        if known is None:
            todo.append((commit, parents))
        else:
            found[commit] = known
    if todo:
        judged = _judge(root, todo)
        found.update(judged)
        if cache is not None:
            for commit, verdict in judged.items():
                cache.put(JUDGED, commit, verdict)
    return found


def cached(cache: HotCache | None, commit: str) -> bool:
    """True when ``cache`` holds an approval of ``commit`` (which counts only as
    :func:`verdicts_of` says)."""
    if cache is None:
        return False
    found, value = cache.get(JUDGED, commit)
    return found and value is True


#: The decisions ``doctrine.require_signed`` signs (the judge: an activation, a resumption, a
#: change of an approved rule's review — ``check.history.walk._Judge.need_sign``).
ACTIVATIONS = frozenset({"approve", "resume", "reconfirm"})
_DECISIONS = "signing.decisions"
_ACTIVATIONS = "doctrine.require_signed"


def unsigned_as_required(
    root: StrPath,
    commits: list[tuple[str, tuple[str, ...]]],
    merge: tuple[str, str] | None = None,
    activations: bool = True,
) -> set[str]:
    """The commits of ``commits`` (``(commit, parents)`` whose approval a cache holds) that the
    signing policy in force does not let count now: under ``signing.decisions: required`` in
    ``agentmem.yaml`` at the commit's first parent (the judge's rule), a decision — and, with
    ``activations``, under ``doctrine.require_signed``, an :data:`ACTIVATIONS` decision — that
    is not signed by a key ``roles.yaml`` lists for its author, verified again each time
    (:func:`agentmem.check.history.signing.verify_decisions`) — a cache cannot say a commit
    is signed (docs/design/served.md §Served view). ``merge``: ``(merge, its first parent)``
    when ``commits`` are what that merge brought in; the judge holds them to the strictest
    settings of their parent, the merge and its first parent, and to the keys listed both at
    their parent and at the merge (:mod:`agentmem.check.history.lineage`), and so does this.
    The settings' history is asked first (:func:`_never_strict`: one ``git log``): when no
    version there is strict, nothing is verified and no settings are read. Else one ``git
    cat-file --batch`` reads the settings; when one of them is lenient, an earlier
    version may have required signatures, held so by the judge after a relaxation no second
    admin approved (:func:`~agentmem.check.history.start.stricter`: one ``git log`` of
    ``agentmem.yaml`` over the history, and one ``git cat-file --batch`` of the versions not
    read already; derived from git each time, never cached: a session start pays it too);
    verified then."""
    with_parent = [(c, p[0]) for c, p in commits if p]
    if not with_parent:
        return set()
    parents = sorted({p for _c, p in with_parent})
    around = list(merge or ())  # their settings hold for what the merge brought in too
    names = [_DECISIONS, _ACTIVATIONS] if activations else [_DECISIONS]
    if _never_strict(root, [*parents, *around], names):
        return set()  # no parent (nor the merge) can require a signature: nothing to verify
    required: dict[str, set[str]] = {}
    texts: dict[str, bytes] = {}
    try:
        keys = [(p, f"{p}:{CONFIG_FILE}") for p in dict.fromkeys([*parents, *around])]
        texts = gitrun.read_objects(root, keys)
        for name in names:
            if any(strict(texts.get(r), name) for r in around):
                required[name] = set(parents)
            else:
                required[name] = {p for p in parents if strict(texts.get(p), name)}
    except GitError:
        required = dict.fromkeys(names, set(parents))  # unreadable: as strict as it can be
    lenient = sorted({p for name in names for p in parents if p not in required[name]})
    if lenient:
        known = [t for r in [*lenient, *around] if (t := texts.get(r)) is not None]
        for name in stricter(root, [*lenient, *around], names, known):
            required[name] = set(parents)  # a relaxation the judge may hold: verified
    decisions = [c for c, p in with_parent if p in required[_DECISIONS]]
    signed = [c for c, p in with_parent if p in required.get(_ACTIVATIONS, set())]
    signed = [c for c in signed if c not in decisions]
    if not decisions and not signed:
        return set()
    # lazy: the signature check only for a repository that requires signatures
    from agentmem.check.history.signing import verify_decisions

    entry = merge[0] if merge else None
    found: set[str] = set()
    for wanted, actions in ((decisions, None), (signed, ACTIVATIONS)):
        if not wanted:
            continue
        try:
            findings = verify_decisions(root, ["--no-walk=unsorted", *wanted], entry, actions)
        except AgentmemError:
            found.update(wanted)
            continue
        found.update(f.commit for f in findings if f.commit)
    return found


def _never_strict(root: StrPath, revs: list[str], names: list[str]) -> bool:
    """True when no version of ``agentmem.yaml`` in the history of ``revs`` gives any of the
    settings ``names`` its strict value, nor do the defaults where the file was absent
    (:func:`~agentmem.check.history.start.stricter` finds none): then it is lenient at every
    one of ``revs``, whose own version is among those its log lists (the root commit's
    included). Asked first, so that the common case — ``agentmem.yaml`` lenient all along —
    costs one ``git log`` and no read of the settings at each rev: the work tree's
    ``agentmem.yaml`` is passed as a text known already (taken only for the version whose blob
    id its bytes have: in the common case, the file written once, git reads no version). False
    without asking git when the work tree's file may give one of ``names`` its strict value
    (its bytes hold the word): the settings at the revs are read then, as they would be after
    this anyway. This decides nothing: False only means that the settings are read as before."""
    try:
        read = regular.read_listed(os.path.join(root, CONFIG_FILE), CONFIG_FILE, MAX_YAML_BYTES)
    except (AgentmemError, OSError):
        return False
    work = read.data if read is not None else b""
    if b"\\" in work or any(JUDGED_SETTINGS[name] in work for name in names):
        return False
    return not stricter(root, revs, names, [work] if read is not None else [])


def _blob_text(root: StrPath, blob: str, work: bytes | None) -> str | None:
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


def _served_version(
    root: StrPath, candidates: list[Candidate], cache: HotCache | None
) -> tuple[tuple[str, str | None] | None, list[str]]:
    """``(commit, blob)`` of the newest version that may be served, with the commits the judge
    does not approve (newest first); None when no version may be.

    An accept approves its own change, not the file it was made on: an accept on top of a line
    bob added with plain git would launder bob's line. So, from the oldest version looked at
    (taken as made on a served one) to the newest, a version may be served when its commit is
    approved and it was made on a version that may be, or takes the whole file
    (:data:`WHOLE_FILE_ACTIONS`: the owner's ``memory edit``, an erase) — or when its bytes are
    those of the last version that may be (``git revert`` of bob's commit changes nothing
    served, and what is built on it is served again)."""
    taken = [(c, parents) for c, parents, _b, marks, _w in candidates if marks and cached(cache, c)]
    # a cached approval counts only signed as the judge holds it (the settings' history too)
    faulty = unsigned_as_required(root, taken, activations=False)
    asked = [(c, parents, marks and c not in faulty) for c, parents, _b, marks, _w in candidates]
    given = verdicts_of(root, asked, cache)  # the commits judged again: one walk, not one each
    verdicts = [given[c[0]] for c in candidates]
    served: tuple[str, str | None] | None = None
    made_on_served = True
    for (commit, _p, blob, _m, whole), ok in zip(
        reversed(candidates), reversed(verdicts), strict=True
    ):
        may = (ok and (whole or made_on_served)) or (served is not None and blob == served[1])
        if may:
            served = (commit, blob)
        made_on_served = may
    not_approved = [c[0] for c, ok in zip(candidates, verdicts, strict=True) if not ok]
    return served, not_approved


def serve_file(
    root: StrPath, relpath: str, owner: str, cache: HotCache | None, fix: str
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
    served, not_approved = _served_version(root, candidates, cache)
    if candidates and (served is None or served[0] != candidates[0][0]):
        since = f"as of commit {served[0][:10]}" if served else "nothing of it"
        if not_approved and not_approved[0] == candidates[0][0]:
            last = not_approved[0][:10]
            notes.append(
                f"{relpath}: the last change (commit {last}) is not {owner}'s own decision "
                f"made with agentmem: given {since}. To fix: agentmem check --history names it; "
                f"git revert {last} undoes it"
            )
        else:  # decisions made on top of a change that was none
            bad = not_approved[0] if not_approved else ""
            notes.append(
                f"{relpath}: decisions were made on top of a change that is not {owner}'s own "
                f"(commit {bad[:10]}): given {since}. To fix: agentmem check --history names it; "
                f"{owner} reviews the whole file with agentmem memory edit"
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
    records = erasure_records(root)
    erased = erased_note(root, relpath, text, records) if records else None
    if erased is not None:  # erased stays erased: withheld whole, never served
        return ServedFile(relpath, None, "", commit, work_text, (*notes, erased))
    kept = blob if text is not None else ""
    return ServedFile(relpath, text, kept, commit, work_text, tuple(notes))


# ---------------------------------------------------------------------------------------------
# erased stays erased (docs/design/served.md §Served view)
# ---------------------------------------------------------------------------------------------

#: The erasure records this clone has seen at ``HEAD`` (local, never committed): a record a
#: later merge dropped from ``HEAD`` (a stale clone's ``git merge -s ours`` of the old history)
#: still withholds what it erased. It only ever withholds: a record holds hashes, never values.
ERASURES_SEEN = ".agentmem/erasures-seen.json"
_ERASURES = "erasures.yaml"


def erasure_records(root: StrPath) -> list[Any]:
    """The erasure records the served view honours (:class:`agentmem.store.erasures.Record`):
    ``HEAD``'s ``erasures.yaml`` (committed bytes) and every one this clone saw there before
    (:data:`ERASURES_SEEN`). No git process, nothing parsed, when the work tree has no record
    and none was ever seen (the common case on the hot path)."""
    seen_path = os.path.join(root, ERASURES_SEEN)
    if not os.path.lexists(os.path.join(root, _ERASURES)) and not os.path.lexists(seen_path):
        return []
    # lazy: a repository that has erased something pays for reading the record (YAML)
    import hashlib
    import json

    from agentmem.store.erasures import parse_record

    try:
        with open(seen_path, encoding="utf-8") as file:
            seen = json.loads(file.read())
        texts: dict[str, str] = seen if isinstance(seen, dict) else {}
    except (OSError, ValueError):
        texts = {}
    proc = gitrun.run(root, ["cat-file", "blob", f"HEAD:{_ERASURES}"], None, None, text=True)
    head = proc.stdout if proc.returncode == 0 else ""
    if head:
        key = hashlib.sha256(head.encode("utf-8")).hexdigest()
        if texts.get(key) != head:
            texts[key] = head
            _replace_text(seen_path, json.dumps(texts))
    records = []
    for text in texts.values():
        if not isinstance(text, str):
            continue
        try:
            records.append(parse_record(text))
        except AgentmemError:
            continue  # an unreadable record is check's erasures-invalid
    return records


def erased_back(root: StrPath, records: list[Any]) -> list[str]:
    """The commits the records list (the first ones an erase rewrote) that ``HEAD`` reaches:
    the old history is back (:func:`agentmem.store.erasures.erased_history`)."""
    # lazy: only with a record
    from agentmem.store.erasures import erased_history

    found: list[str] = []
    for record in records:
        found += [c for c in erased_history(root, record, "HEAD") if c not in found]
    return found


def erased_note(
    root: StrPath,
    relpath: str,
    text: str | None,
    records: list[Any],
    back: list[str] | None = None,
) -> str | None:
    """Why ``relpath`` (served as ``text``) must be withheld whole, or None: ``HEAD``'s history
    holds a commit an erase rewrote (``back``: :func:`erased_back`, computed when None), or the
    text holds a value an erase removed (the record's matcher runs over the served text only).
    The note never quotes the value."""
    back = erased_back(root, records) if back is None else back
    if back:
        return (
            f"{relpath}: the history of HEAD holds commit {back[0][:10]}, which an erase "
            "rewrote (a clone made before the erase merged it back): not given. To fix: "
            "agentmem check --history names the merge; undo it, or an admin runs agentmem "
            "erase again"
        )
    if text is not None and any(record.matcher().find_all(text) for record in records):
        return (
            f"{relpath}: the version given holds a value an erase removed: not given. To fix: "
            "agentmem check --history names the commit that brought it back; an admin runs "
            "agentmem erase again"
        )
    return None


#: What turns a line typed into a memory file into a decision (named by the served view's note).
FIX_MEMORY = 'agentmem remember "…" (and agentmem review) files the line'


#: The served view's local state for ``doctrine/`` (derived, never committed): the ``HEAD`` and
#: ``doctrine`` tree it was computed for, the rule files served otherwise than as at ``HEAD``,
#: and the history judge's verdict on every commit that changed ``doctrine/``, by commit id.
DOCTRINE_STATE = ".agentmem/served-doctrine.json"
_STATE_FORMAT = 2  # 1: HEAD, tree and what was served, trusted whole
#: What turns an edit typed into a rule file into a decision (named by the served view's note).
FIX_DOCTRINE = (
    "agentmem doctrine edit ID (or doctrine propose) makes the change for an admin to approve"
)
_SHOWN = 3  # paths a note names before "and N more"


#: Rule files :meth:`ServedDoctrine.texts` names as ``HEAD:path``; beyond, it lists the tree.
_BY_PATH_MAX = 64


class ServedDoctrine:
    """``doctrine/`` as the served view gives it: every rule file as of ``HEAD`` (``head``, its
    ``doctrine`` tree ``tree``), except the ones in ``changed`` (path → the blob served instead,
    ``""``: none), with ``notes`` one line per thing left out. ``signature``: a digest of what is
    served (the tree and ``changed``): what a derived index of the served rules is keyed by."""

    __slots__ = (
        "root", "head", "tree", "changed", "notes", "signature", "refused", "parsed", "_blobs",
        "_erased", "_read", "_listed",
    )  # fmt: skip

    def __init__(
        self,
        root: StrPath,
        head: str,
        tree: str,
        changed: dict[str, str],
        notes: tuple[str, ...],
        read: dict[str, bytes] | None = None,
        parsed: dict[str, Rule] | None = None,
        listing: Listing | None = None,
    ) -> None:
        # lazy: the served doctrine only (audits), never a chat block's hot path
        import hashlib
        import json

        self.root = root
        self.head = head
        self.tree = tree
        self.changed = changed
        self.notes = notes
        listed = json.dumps(sorted(changed.items()), separators=(",", ":"))
        self.signature = hashlib.sha256(f"{head and tree}\n{listed}".encode()).hexdigest()
        #: ``(path, reason)`` of what ``HEAD`` holds under ``doctrine/`` that is not a regular
        #: file (``doctrine`` itself a symlink, a folder or a link named ``*.yaml``): an audit
        #: refuses to run on part of the doctrine, as the strict reader does.
        self.refused: list[tuple[str, str]] = []
        if head and tree.startswith("!"):
            self.refused.append((DOCTRINE_DIR, f"a symlink; {_READS_ONLY}"))
            self.tree = ""
        self._blobs: dict[str, str] | None = None
        self._erased: list[Any] | None = None
        #: blob id → its bytes, read from git by this process already (the judge's walk):
        #: content-addressed, so a blob served is the same bytes whoever read it
        self._read = read or {}
        #: blob id → the rule the judge's walk parsed from it (valid UTF-8): content-addressed,
        #: so it is the rule any reader of those bytes gets (not parsed twice)
        self.parsed = parsed or {}
        #: HEAD's tree listed already (:func:`_list_tree`), or None
        self._listed = listing if self.tree else None

    def blobs(self) -> dict[str, str]:
        """``doctrine/<name>.yaml`` → the blob served, for every rule file served (one ``git
        ls-tree`` of the served tree, computed once)."""
        if self._blobs is None:
            found: dict[str, str] = {}
            if self.tree:
                listed = self._listed or _list_tree(self.root, self.tree)
                found.update(listed[0])
                self.refused += listed[1]
            for path, blob in self.changed.items():
                if blob:
                    found[path] = blob
                else:
                    found.pop(path, None)
            self._blobs = {p: b for p, b in found.items() if _RULE_FILE.match(p)}
        return self._blobs

    def texts(self, paths: list[str]) -> dict[str, bytes]:
        """The served bytes of ``paths`` (those served at all), in ONE ``git cat-file --batch``:
        a path not in ``changed`` is read by its blob id when the tree is listed (:meth:`blobs`,
        listed for more than :data:`_BY_PATH_MAX` paths: git finds ``HEAD:path`` by reading the
        folder's tree from the start, so thousands of names in a big doctrine cost the square of
        it), else as ``HEAD:path``."""
        listed = self._blobs
        if listed is None and len(paths) > _BY_PATH_MAX and self.tree:
            listed = self.blobs()
        names: list[tuple[str, str]] = []
        for path in paths:
            if path in self.changed:
                if self.changed[path]:
                    names.append((path, self.changed[path]))
            elif listed is not None and path in listed:
                names.append((path, listed[path]))
            elif self.head:
                names.append((path, f"{self.head}:{path}"))
        return self.objects(names)

    def objects(self, names: list[tuple[str, str]]) -> dict[str, bytes]:
        """:func:`agentmem.store.gitrun.read_objects` of ``names`` (``(key, object name)``),
        except that a blob id this process read already (the judge's walk) is not read again."""
        known = self._read
        found: dict[str, bytes] = {}
        rest: list[tuple[str, str]] = []
        for key, name in names:
            data = known.get(name)
            if data is None:
                rest.append((key, name))
            else:
                found[key] = data
        if rest:
            found.update(gitrun.read_objects(self.root, rest))
        return found

    def erased(self, texts: dict[str, str]) -> set[str]:
        """The paths of ``texts`` (path → a served rule's text) to withhold because an erase
        removed what they hold (:func:`erased_note`, each named in :attr:`notes`)."""
        if self._erased is None:
            self._erased = erasure_records(self.root)
        if not self._erased or not texts:
            return set()
        notes = list(self.notes)
        back = erased_back(self.root, self._erased)
        withheld = set()
        for path, text in texts.items():
            note = erased_note(self.root, path, text, self._erased, back)
            if note is not None:
                withheld.add(path)
                notes.append(note)
        self.notes = tuple(dict.fromkeys(notes))
        return withheld


#: A ``doctrine`` tree's rule files (path → blob id) and what it holds that is not a regular
#: file (``(path, reason)``).
Listing = tuple[dict[str, str], list[tuple[str, str]]]


def _list_tree(root: StrPath, tree: str) -> Listing:
    """The :data:`Listing` of the ``doctrine`` tree ``tree`` (one ``git ls-tree``)."""
    found: dict[str, str] = {}
    refused: list[tuple[str, str]] = []
    proc = gitrun.run(root, ["ls-tree", "-z", tree], None, None, text=True)
    for item in proc.stdout.split("\0"):
        meta, _, name = item.partition("\t")
        fields = meta.split()
        if len(fields) != 3 or not name.endswith(".yaml"):
            continue
        if fields[1] == "blob" and fields[0] in _FILE_MODES:
            found[f"{DOCTRINE_DIR}/{name}"] = fields[2]
        else:
            what = _KINDS.get(fields[0], "not a regular file")
            refused.append((f"{DOCTRINE_DIR}/{name}", f"{what}; {_READS_ONLY}"))
    return found, refused


DOCTRINE_DIR = "doctrine"
_FILE_MODES = ("100644", "100755")
_KINDS = {"120000": "a symlink", "040000": "a folder", "160000": "a submodule"}
_READS_ONLY = "agentmem reads only regular files"


class _Pattern:
    """The rule file paths (compiled on first use: ``re`` stays off the chat hot path)."""

    def match(self, path: str) -> bool:
        return path.startswith("doctrine/") and path.endswith(".yaml") and "/" not in path[9:]


_RULE_FILE = _Pattern()


def _head_and_tree(root: StrPath) -> tuple[str, str]:
    """``HEAD``'s commit id and its ``doctrine`` tree id (``""`` for none; ``"!"`` and the id
    when ``doctrine`` is not a folder there), one git process."""
    proc = gitrun.run(root, ["cat-file", "--batch-check"], "HEAD\nHEAD:doctrine\n", None, text=True)
    lines = proc.stdout.split("\n")
    head = tree = ""
    if " commit " in lines[0]:
        head = lines[0].split()[0]
    if head and len(lines) > 1 and " tree " in lines[1]:
        tree = lines[1].split()[0]
    elif head and len(lines) > 1 and " blob " in lines[1]:
        tree = "!" + lines[1].split()[0]
    return head, tree


def _dirty(root: StrPath) -> tuple[list[str], list[str]]:
    """The rule files whose work tree (or index) differs from ``HEAD``, and those git does not
    track: one ``git status`` of ``doctrine/`` (git's own stat test of changed files)."""
    args = ["status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all"]
    proc = gitrun.run(root, [*args, "--", f"{DOCTRINE_DIR}/"], None, None, text=True)
    changed: list[str] = []
    new: list[str] = []
    if proc.returncode != 0:
        return changed, new
    for item in proc.stdout.split("\0"):
        if len(item) < 4:
            continue
        code, path = item[:2], item[3:]
        (new if code == "??" else changed).append(path)
    return sorted(changed), sorted(new)


def _named(paths: list[str]) -> str:
    shown = ", ".join(paths[:_SHOWN])
    more = len(paths) - _SHOWN
    return f"{shown} and {more:,} more rule files" if more > 0 else shown


#: Only the rule files (``doctrine/<name>.yaml``, not below): what both logs of ``doctrine/`` read.
_RULES_PATHSPEC = f":(glob){DOCTRINE_DIR}/*.yaml"

#: What the log of ``doctrine/`` prints of each commit: ids, then (one line) the author's email
#: and the values of the three trailers every decision carries (:func:`doctrine_marked`).
_DOCTRINE_FORMAT = (
    f"--format=%x1e%H %P%n%ae%x1f%(trailers:key={trailers.ACTION},valueonly,separator=%x1d)"
    f"%x1f%(trailers:key={trailers.ACTOR},valueonly,separator=%x1d)"
    f"%x1f%(trailers:key={trailers.ROLE},valueonly,separator=%x1d)"
)

Marked = tuple[str, tuple[str, ...], bool]


def doctrine_marked(email: str, actions: list[str], actors: list[str], roles: list[str]) -> bool:
    """True when a commit carries the marks every decision on ``doctrine/`` carries (the
    judge refuses a commit that changes a rule file without them): an ``Agentmem-Action``, an
    ``Agentmem-Role`` and, as its ``Agentmem-Actor``, its author's email. Only then may a
    cached approval of it count (docs/design/served.md §Served doctrine: the state only
    withholds); a commit made with plain git carries none of this."""
    if not actions or not roles:
        return False
    return any(
        (found := trailers.actor_email(actor)) is not None
        and found.strip().lower() == email.strip().lower()
        for actor in actors
    )


def _marked_log(root: StrPath, rev: str) -> list[Marked]:
    """``(commit, parents, marks)`` of the commits of ``rev`` that changed a rule file, newest
    first (``rev`` a range: every commit of it; else ``rev``'s first-parent line, a merge
    against its first parent); ``marks``: :func:`doctrine_marked`. One ``git log``, no diff."""
    args = ["log", "--no-color", _DOCTRINE_FORMAT]
    args += [rev] if ".." in rev or " " in rev else ["--first-parent", "-m", rev]
    proc = gitrun.run(root, [*args, "--", _RULES_PATHSPEC], None, None, text=True)
    found: list[Marked] = []
    if proc.returncode != 0:
        return found
    for record in proc.stdout.split("\x1e")[1:]:
        lines = record.strip("\n").split("\n")
        ids = lines[0].split()
        if not ids or len(lines) < 2:
            continue
        email, _sep, values = lines[1].partition("\x1f")
        fields = (values.split("\x1f") + ["", "", ""])[:3]
        marks = doctrine_marked(email, *(_values(v) for v in fields))
        found.append((ids[0], tuple(ids[1:]), marks))
    return found


def _doctrine_log(
    root: StrPath, rev: str
) -> list[tuple[str, tuple[str, ...], dict[str, str | None]]]:
    """``(commit, parents, {rule file: blob or None})`` of the commits of ``rev``'s first-parent
    line that changed a rule file (a merge: against its first parent), newest first. One
    ``git log`` process."""
    args = ["-c", "core.quotePath=false", "log", "--first-parent", "-m", "--raw", "-z"]
    args += ["--no-abbrev", "--no-renames", "--no-color", "--format=%x1e%H %P", rev]
    proc = gitrun.run(root, [*args, "--", _RULES_PATHSPEC], None, None, text=True)
    found: list[tuple[str, tuple[str, ...], dict[str, str | None]]] = []
    if proc.returncode != 0:
        return found
    for record in proc.stdout.split("\x1e")[1:]:
        head, _, rest = record.partition("\0")
        ids = head.split()
        if not ids:
            continue
        changes: dict[str, str | None] = {}
        items = rest.lstrip("\n\0").split("\0")
        for meta, path in zip(items[::2], items[1::2], strict=False):
            fields = meta.split()
            if not meta.startswith(":") or len(fields) < 5 or not _RULE_FILE.match(path):
                continue
            kept = not fields[4].startswith("D") and fields[1] in _FILE_MODES
            changes[path] = fields[3] if kept else None
        found.append((ids[0], tuple(ids[1:]), changes))
    return found


#: The judge's codes that concern one rule file (the finding's path): any other error refuses
#: every change of its commit (missing trailers, a signature, an erased value…).
_PER_RULE = frozenset({
    "history-not-admin", "history-not-member", "history-self-approval", "history-incomplete",
    "history-approval-mismatch", "history-proposer-mismatch", "history-link", "history-path-case",
})  # fmt: skip


def _judge_range(
    root: StrPath,
    since: str | None,
    tip: str,
    commits: list[tuple[str, tuple[str, ...]]],
    read: dict[str, bytes] | None = None,
    parse: set[str] | None = None,
    parsed: dict[str, Rule] | None = None,
) -> dict[str, bool | list[str]]:
    """The history judge's verdict on each of ``commits`` (first-parent commits of
    ``since..tip``), from ONE walk of ``check --history`` over that range: True when no error
    names the commit (a merge: nor a commit it brought in); the rule files refused when every
    error names one rule file (:data:`_PER_RULE`); False otherwise. ``read``: filled with the
    bytes of the blobs the walk read (by blob id); ``parse``, ``parsed``: the rule files to
    parse whole and the rules parsed (:func:`~agentmem.check.history.walk.check_history`)."""
    # lazy: the judge loads only for commits never judged before
    from agentmem.check.findings import ERROR
    from agentmem.check.history.start import judge_range

    result = judge_range(root, since, tip, read=read, parse=parse, parsed=parsed)
    bad: dict[str, set[str] | None] = {}  # commit → refused rule files (None: all of it)
    for f in result.findings:
        if f.severity != ERROR or not f.commit:
            continue
        if f.code in _PER_RULE and _RULE_FILE.match(f.path):
            paths = bad.setdefault(f.commit, set())
            if paths is not None:
                paths.add(f.path)
        else:
            bad[f.commit] = None
    verdicts: dict[str, bool | list[str]] = {}
    for commit, parents in commits:
        refused = bad.get(commit, set())
        if refused is not None and bad and len(parents) > 1:
            listed = gitrun.run(root, ["rev-list", f"{parents[0]}..{commit}"], None, None, True)
            if set(listed.stdout.split()) & set(bad):
                refused = None  # a commit it brought in is refused: so is the merge
        verdicts[commit] = False if refused is None else sorted(refused) or True
    return verdicts


Verdict = bool | list[str]


def _load_state(root: StrPath) -> dict[str, Verdict]:
    """The verdicts kept in :data:`DOCTRINE_STATE` (commit id → True, False or the rule files
    refused), ``{}`` when it is missing, damaged, not UTF-8 JSON, a symlink or of another
    format: the commits are judged again (it only saves work)."""
    # lazy: the served doctrine only (audits), never a chat block's hot path
    import json

    path = os.path.join(root, DOCTRINE_STATE)
    try:
        if os.path.islink(path):
            return {}
        with open(path, "rb") as file:
            data = json.loads(file.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _STATE_FORMAT:
        return {}
    judged = data.get("judged")
    if not isinstance(judged, dict):
        return {}
    return {
        c: v
        for c, v in judged.items()
        if isinstance(c, str)
        and (isinstance(v, bool) or (isinstance(v, list) and all(isinstance(p, str) for p in v)))
    }


def _save_state(root: StrPath, judged: dict[str, Verdict]) -> None:
    """Write the verdicts (temporary file, then ``os.replace``, which replaces a symlink
    rather than follow it); failures are ignored: it only saves work."""
    # lazy: the served doctrine only (audits), never a chat block's hot path
    import json

    state = {"format": _STATE_FORMAT, "judged": judged}
    _replace_text(os.path.join(root, DOCTRINE_STATE), json.dumps(state, separators=(",", ":")))


def _replace_text(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` (its folder made if missing), then
    ``os.replace`` it over ``path`` (which replaces a symlink rather than follow it); an
    ``OSError`` leaves ``path`` as it was (a local record that only saves work)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


class _Trusted:
    """What the served view takes of the cached verdicts (the state only withholds:
    docs/design/served.md §Served doctrine): a refusal always counts; an approval only for a
    commit carrying the marks of a decision (:func:`doctrine_marked`), read from the log
    this audit ran — a commit made with plain git is refused whatever the state says (the
    judge refuses a rule file changed without the trailers). A merge carries no trailers: its
    cached approval counts when every commit it brought in that changed a rule file is a
    marked commit, signed as the signing policy requires (:func:`unsigned_as_required`: a
    cache cannot say a commit is signed; one ``git log`` of what it brought in, only for a
    merge whose verdict decides what is served), else the judge decides it again."""

    def __init__(self, root: StrPath, judged: dict[str, Verdict], log: list[Marked]) -> None:
        self.root = root
        self.judged = judged
        self.parents = {c: p for c, p, _m in log}
        self.marks = {c: m for c, _p, m in log}
        self.merges: dict[str, Verdict] = {}

    def plain(self, commit: str) -> Verdict | None:
        """The verdict without looking at a merge's commits (None: a merge's approval, to
        check with :meth:`__call__`)."""
        verdict = self.judged.get(commit, False)
        if verdict is False:
            return False
        if len(self.parents.get(commit, ())) > 1:
            return None
        return verdict if self.marks.get(commit) else False

    def __call__(self, commit: str) -> Verdict:
        verdict = self.plain(commit)
        if verdict is not None:
            return verdict
        if commit not in self.merges:
            self.merges[commit] = self._merge(commit)
        return self.merges[commit]

    def _merge(self, commit: str) -> Verdict:
        parents = self.parents[commit]
        brought = _marked_log(self.root, f"{parents[0]}..{commit}")
        inner = [(c, p) for c, p, _m in brought if c != commit]
        if (
            brought
            and all(m and len(p) == 1 for c, p, m in brought if c != commit)
            # signed as the judge asks of what a merge brings in
            and not unsigned_as_required(self.root, inner, merge=(commit, parents[0]))
        ):
            return self.judged.get(commit, False)
        return _judge_range(self.root, parents[0], commit, [(commit, parents)])[commit]


def _derive(
    root: StrPath, log: list[tuple[str, tuple[str, ...], dict[str, str | None]]], verdict: _Trusted
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """``changed`` (rule file → the blob served instead of ``HEAD``'s, ``""``: none) and
    ``late`` (rule file → [its last change, the commit it is served as of, ``""``: none]) from
    the whole first-parent log of the rule files and the trusted verdicts."""
    newest: dict[str, tuple[str, str | None]] = {}  # path → (commit, blob) of its last change
    served: dict[str, tuple[str, str | None]] = {}  # path → (commit, blob) of its last decision
    for commit, _parents, changes in log:
        for path, blob in changes.items():
            newest.setdefault(path, (commit, blob))
            if path in served:
                continue
            ok = verdict(commit)
            if ok is True or (isinstance(ok, list) and path not in ok):
                served[path] = (commit, blob)
    changed: dict[str, str] = {}
    late: dict[str, list[str]] = {}
    for path, (last, blob) in newest.items():
        since, kept = served.get(path, ("", None))
        if kept != blob:
            changed[path] = kept or ""
            late[path] = [last, since]
    return changed, late


def read_ids(root: StrPath, names: list[tuple[str, str]]) -> dict[str, str]:
    """``key → blob id`` of the objects named (``commit:path``), ONE ``cat-file --batch-check``."""
    if not names:
        return {}
    payload = "".join(f"{name}\n" for _, name in names)
    proc = gitrun.run(root, ["cat-file", "--batch-check"], payload, None, text=True)
    found: dict[str, str] = {}
    for (key, _name), line in zip(names, proc.stdout.split("\n"), strict=False):
        fields = line.split()
        if len(fields) == 3 and fields[1] == "blob":
            found[key] = fields[0]
    return found


def _late_notes(late: dict[str, list[str]]) -> list[str]:
    """One line per commit whose change of rule files is not a decision the judge accepts."""
    by_commit: dict[tuple[str, str], list[str]] = {}
    for path, (last, since) in sorted(late.items()):
        by_commit.setdefault((last, since), []).append(path)
    notes = []
    for (last, since), paths in sorted(by_commit.items(), key=lambda item: item[1][0]):
        given = f"given as of commit {since[:10]}" if since else "not given"
        notes.append(
            f"{_named(paths)}: the last change (commit {last[:10]}) is not a decision "
            f"check --history accepts: {given}. To fix: agentmem check --history names it; "
            f"git revert {last[:10]} undoes it"
        )
    return notes


def serve_doctrine(root: StrPath) -> ServedDoctrine:
    """``doctrine/`` as the served view gives it (docs/design/served.md §Served doctrine):
    every rule file as committed at ``HEAD`` whose last change (on the first-parent line) is a
    decision ``check --history`` accepts — else as of its newest change that is, or not at
    all —, never the work tree; a rule file the work tree changes (or adds) is named in a note.
    The judge runs once per commit (verdicts kept by commit id in :data:`DOCTRINE_STATE`);
    each audit reads the log of the rule files (one ``git log``, no diff) and takes from the
    state a refusal, or an approval of a commit that carries a decision's marks
    (:class:`_Trusted`): what is served is derived again every time, never read from it.
    When every commit of that log is so approved, every rule file is served as at ``HEAD``
    and nothing more is read; else the log with its changes (one more ``git log``)."""
    head, tree = _head_and_tree(root)
    notes: list[str] = []
    changed: dict[str, str] = {}
    read: dict[str, bytes] = {}  # blob id → bytes the judge read: not read from git twice
    parsed: dict[str, Rule] = {}  # blob id → the rule the judge parsed: not parsed twice
    listed: Listing | None = None
    if head:
        judged = _load_state(root)
        marked = _marked_log(root, head)
        unknown = [(c, p) for c, p, _m in marked if c not in judged]
        if unknown:
            first = unknown[-1][1]
            since = first[0] if first else None
            if tree and not tree.startswith("!"):
                listed = _list_tree(root, tree)  # HEAD's rule files: the index parses them
            wanted = set(listed[0].values()) if listed else set()
            judged.update(_judge_range(root, since, head, unknown, read, wanted, parsed))
            _save_state(root, judged)
        fresh = {c for c, _p in unknown}
        taken = [(c, p) for c, p, m in marked if m and c not in fresh and judged.get(c, False)]
        faulty = unsigned_as_required(root, taken)  # a cached approval counts only signed so
        if faulty:
            redo = [(c, p) for c, p, _m in marked if c in faulty]
            first = redo[-1][1]
            judged.update(_judge_range(root, first[0] if first else None, head, redo))
            _save_state(root, judged)
        verdict = _Trusted(root, judged, marked)
        if any(verdict.plain(c) is not True for c, _p, _m in marked):
            changed, late = _derive(root, _doctrine_log(root, head), verdict)
            notes += _late_notes(late)
    edited, new = _dirty(root)
    if edited:
        verb = "has" if len(edited) == 1 else "have"
        notes.append(
            f"{_named(edited)} {verb} changes that are not committed: given as committed. "
            f"To fix: {FIX_DOCTRINE}, then git checkout -- {edited[0] if len(edited) == 1 else DOCTRINE_DIR}"
        )
    if new:
        verb = "is" if len(new) == 1 else "are"
        notes.append(
            f"{_named(new)} {verb} not committed: not given. To fix: agentmem doctrine propose "
            f"files a rule for an admin to approve, then remove {new[0] if len(new) == 1 else 'them'}"
        )
    return ServedDoctrine(root, head, tree, changed, tuple(notes), read, parsed, listed)
