"""Where a walk of the history judge that judges the commits after ``since`` starts
(docs/design/check.md §Check, docs/design/served.md §Served view), and that walk.

The judge holds a relaxation of a governance setting that no second admin approved (the
setting keeps its stricter value: ``check.history.walk._relaxations``) only when it walks the
relaxing commit. A walk that starts at ``since`` reads the settings there as they are written,
so it would take such a relaxation made before ``since`` as approved. :func:`walk_start` says
where the walk must start instead (the root) and :func:`judge_range` walks from there and keeps
what it found about the commits of ``since..tip`` alone: the server gate
(``check --pre-receive``) and the served view's judge give what the whole ``check --history``
gives of those commits.

Standard library, the git runner and the vocabulary modules only: the served view imports it on
the hot path, and the judge loads only in :func:`judge_range` and :func:`judge_each`.
"""

from __future__ import annotations

from agentmem import governance, trailers
from agentmem.errors import GitError
from agentmem.store import gitrun
from agentmem.store.root import CONFIG_FILE

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from agentmem.check.findings import Finding
    from agentmem.check.history.gitread import CommitRecord
    from agentmem.check.history.walk import HistoryResult
    from agentmem.store.root import StrPath

__all__ = [
    "CONCERNS",
    "INERT",
    "JUDGED_SETTINGS",
    "judge_each",
    "judge_range",
    "nearest_start",
    "start_of",
    "strict",
    "stricter",
    "walk_start",
]


#: The settings of ``agentmem.yaml`` that decide what the judge accepts (``lineage.Settings``),
#: each with the bytes a text must hold to give it its strict value — signed decisions, signed
#: activations — or (``distinct_approver``, strict by default) its lenient one; the other
#: settings ``governance.RELAXABLE`` lists decide what is served or reviewed, not what the
#: judge accepts (docs/design/served.md §Served view).
JUDGED_SETTINGS = {
    "signing.decisions": b"required",
    "doctrine.require_signed": b"require_signed",
    "doctrine.distinct_approver": b"distinct_approver",
}


#: What each setting of :data:`JUDGED_SETTINGS` can change the verdict on, by the paths a
#: commit touches (None: any commit — a decision anywhere is signed under ``required``): the
#: distinct-approver rule judges rule files only; ``require_signed`` rule files, ``roles.yaml``,
#: ``agentmem.yaml`` and ``.gitattributes`` (``check.history.walk._Judge.need_sign``).
CONCERNS: dict[str, tuple[str, ...] | None] = {
    "signing.decisions": None,
    "doctrine.require_signed": ("doctrine/", "roles.yaml", CONFIG_FILE, ".gitattributes"),
    "doctrine.distinct_approver": ("doctrine/",),
}


def walk_start(root: StrPath, since: str | None, tip: str | None = None) -> str | None:
    """Where the judge's walk that judges the commits after ``since`` starts: ``since``, or
    the root (None) when a setting the judge applies (:data:`JUDGED_SETTINGS`) is lenient at
    ``since`` and some version of ``agentmem.yaml`` before was stricter (:func:`stricter`):
    the walk holds a relaxation no second admin approved only when it walks the relaxing
    commit. ``tip``: the walk's tip; a setting that can change nothing the commits of
    ``since..tip`` touch (:data:`CONCERNS`: a memory accept under ``distinct_approver:
    false``) starts no walk at the root. Costs one ``git cat-file`` and, when a setting is
    lenient there (``signing.decisions`` and ``doctrine.require_signed`` are by default), one
    ``git log`` of ``agentmem.yaml`` and one ``git cat-file --batch`` of its versions; one
    ``git log`` of the range's paths only when a walk from the root is in question."""
    if since is None:
        return None
    try:
        text = gitrun.read_objects(root, [(since, f"{since}:{CONFIG_FILE}")]).get(since)
    except GitError:
        return None
    lenient = [name for name in JUDGED_SETTINGS if not strict(text, name)]
    found = stricter(root, [since], lenient) if lenient else []
    if found and tip is not None and all(CONCERNS[name] for name in found):
        touched = _touched(root, since, tip)
        found = [name for name in found if touched is None or _concerns(name, touched)]
    return None if found else since


def _concerns(name: str, paths: set[str]) -> bool:
    prefixes = CONCERNS[name]
    if prefixes is None:
        return True
    return any(p.startswith(prefixes) or p.endswith("/.gitattributes") for p in paths)


def _touched(root: StrPath, since: str, tip: str) -> set[str] | None:
    """Every path a commit of ``since..tip`` changes (a merge: against each parent), or None
    when git cannot say. One ``git log``."""
    args = ["-c", "core.quotePath=false", "log", "-m", "--name-only", "--no-renames", "-z"]
    proc = gitrun.run(root, [*args, "--format=", f"{since}..{tip}"], None, None, text=True)
    if proc.returncode != 0:
        return None
    return {p.strip("\n") for p in proc.stdout.split("\0") if p.strip("\n")}


def strict(text: bytes | None, name: str) -> bool:
    """Whether the ``agentmem.yaml`` text (None: absent, the defaults) gives setting ``name``
    of :data:`JUDGED_SETTINGS` its strict value, read with the judge's own reader
    (:func:`agentmem.check.history.lineage.parse_settings_text`), which loads only for a text
    that could say otherwise than the default (YAML cannot spell a key or a value without its
    letters or an escape). A text that is not UTF-8: strict (as strict as it can be)."""
    word = JUDGED_SETTINGS[name]
    default = name == "doctrine.distinct_approver"
    if text is None or (word not in text and b"\\" not in text):
        return default
    # lazy: the judge's settings reader (PyYAML) only for a text that names the setting
    from agentmem.check.history.lineage import parse_settings_text

    try:
        settings = parse_settings_text(text.decode("utf-8"))
    except UnicodeDecodeError:
        return True
    if name == "signing.decisions":
        return settings.decisions_signed
    if name == "doctrine.require_signed":
        return settings.require_signed
    return settings.distinct_approver


def stricter(
    root: StrPath, revs: list[str], names: list[str], known: Iterable[bytes] = ()
) -> list[str]:
    """Those of the settings ``names`` (:data:`JUDGED_SETTINGS`) that some version of
    ``agentmem.yaml`` in the history of ``revs`` (every commit that changed it, merges and side
    branches included, and the root commit's whatever ``log.showRoot`` says) gave their strict
    value — the defaults count as a version where the file was absent after a first commit —;
    all of them when git cannot say. Strict here only
    costs work (a walk from the root), never lets a relaxation count. One ``git log --raw``
    of ``agentmem.yaml`` and one ``git cat-file --batch`` of its versions, but for those among
    ``known`` (texts already read, matched by their blob id: a session start that reads the
    settings at the decisions' parents reads no version twice)."""
    args = ["log", "--full-history", "-m", "--root", "--raw", "--no-abbrev", "--no-renames"]
    args += ["--no-color", "--format=%x1e%P", *revs, "--", CONFIG_FILE]
    proc = gitrun.run(root, args, None, None, text=True)
    if proc.returncode != 0:
        return list(names)
    versions: set[str] = set()
    absent = False  # the file absent (the defaults) at a commit with a parent
    for record in proc.stdout.split("\x1e")[1:]:
        parents, _sep, rest = record.partition("\n")
        for line in rest.splitlines():
            fields = line.split("\t", 1)[0].split()
            if not line.startswith(":") or len(fields) < 5:
                continue
            for oid in fields[2:4]:
                if oid.strip("0"):
                    versions.add(oid)
            gone = not fields[2].strip("0") or not fields[3].strip("0")
            absent = absent or (gone and bool(parents.strip()))
    texts = _blob_ids(known, next(iter(versions), ""))
    texts = {oid: texts[oid] for oid in versions if oid in texts}
    try:
        wanted = [(oid, oid) for oid in sorted(versions) if oid not in texts]
        texts.update(gitrun.read_objects(root, wanted))
    except GitError:
        return list(names)
    if len(texts) != len(versions):
        return list(names)  # a version git cannot read: as strict as it can be
    seen: list[bytes | None] = [*texts.values(), *([None] if absent else [])]
    return [name for name in names if any(strict(text, name) for text in seen)]


def _blob_ids(texts: Iterable[bytes], like: str) -> dict[str, bytes]:
    """``blob id → text`` of ``texts``, hashed as ``like`` (a 64-digit id: SHA-256)."""
    # lazy: hashlib only when a settings version may be known already
    import hashlib

    algorithm = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return {algorithm(b"blob %d\x00" % len(t) + t).hexdigest(): t for t in texts}


def judge_range(
    root: StrPath, since: str | None, tip: str = "HEAD", **options: Any
) -> HistoryResult:
    """:func:`~agentmem.check.history.walk.check_history` of the commits of ``since..tip``
    (all of ``tip``'s when ``since`` is None), walked from :func:`start_of`: when that is
    not ``since``, only the findings about the commits of ``since..tip`` are kept, and
    ``commits`` counts those (one ``git rev-list`` more). ``options``: passed on to
    ``check_history``. Raises :class:`~agentmem.errors.GitError` when git fails."""
    # lazy: the judge loads only for a walk (the served view's hot path imports this module)
    from agentmem.check.history.walk import HistoryResult, check_history

    start = start_of(root, since, tip)
    result = check_history(root, since=start, tip=tip, **options)
    if start == since or since is None:
        return result
    proc = gitrun.run(root, ["rev-list", f"{since}..{tip}"], None, None, text=True)
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise GitError(f"git rev-list failed: {said}", hint="check the repository with git fsck")
    inside = set(proc.stdout.split())
    kept = [f for f in result.findings if f.commit is None or f.commit in inside]
    return HistoryResult(kept, len(inside))


#: The paths a commit may change after the one a walk judges without changing what the walk
#: finds about it (:func:`judge_each`), when it has one parent and approves no relaxation.
#: Of the commits after it, what the judge finds about a commit depends on (``check.history.
#: walk``): a second admin's ``approve-settings`` (it approves an earlier relaxation, so what
#: was made under it is judged with the relaxed value), a version of ``erasures.yaml`` (a value
#: it records is looked for in every commit it did not rewrite; its recorder's ancestors are
#: taken as rewritten), a merge (what it brings in is walked too, some of it before the commit).
#: Changes to ``agentmem.yaml``, ``roles.yaml``, rule files and ``.gitattributes`` are left out
#: as well (what a settings text is held to, the signing keys read, who created a rule), so
#: that a judge rule that reads them later cannot make one walk say what two would not.
INERT = ("memories/", "inbox/")


def judge_each(
    root: StrPath, commits: Sequence[tuple[str, tuple[str, ...]]]
) -> dict[str, list[Finding]]:
    """For each ``(commit, parents)`` of ``commits`` (newest first), the findings naming a
    commit that :func:`judge_range` from its first parent to it gives — in fewer walks, and
    shorter ones. The newest not judged yet is the tip of a walk: from its parent when
    :func:`walk_start` says so (a short walk), else from the nearest commit below where a walk
    may start (:func:`nearest_start`: before the relaxation the judge may hold, not the root).
    That walk judges too each other commit given that it walked, when what it finds about that
    commit is what a walk to it finds: every commit after it up to the tip is on the tip's
    first-parent line and :data:`INERT` (memory and inbox files only, one parent, no approval
    of a relaxation). A commit that is not so (a merge above it, a rule approved between two
    accepts) is the tip of a walk of its own. So the unsigned accepts made after a relaxation a
    second admin approved, which a session start must judge again (only the judge knows the
    relaxation was approved), cost one walk, from the relaxation, not one each from the root
    (docs/design/served.md §Served view). Raises :class:`~agentmem.errors.GitError`."""
    # lazy: the judge loads only for a walk (the served view's hot path imports this module)
    from agentmem.check.history.walk import check_history

    todo = dict(commits)
    found: dict[str, list[Finding]] = {}
    while todo:
        tip, parents = next(iter(todo.items()))
        del todo[tip]
        since = parents[0] if parents else None
        start = walk_start(root, since, tip)
        if start is not None:  # from its parent: a walk of its own
            result = check_history(root, since=start, tip=tip)
            found[tip] = [f for f in result.findings if f.commit]
            continue
        start = nearest_start(root, since, tip) if since is not None else None
        walked: list[CommitRecord] = []
        result = check_history(root, since=start, tip=tip, walked=walked)
        by_sha = {c.sha: c for c in walked}
        named: dict[str, list[Finding]] = {}
        for finding in result.findings:
            if finding.commit:
                named.setdefault(finding.commit, []).append(finding)
        found[tip] = [f for sha in _brought(by_sha, tip) for f in named.get(sha, [])]
        record = by_sha.get(tip)
        while record is not None and record.parents and _inert(record):
            record = by_sha.get(record.parents[0])  # every commit above it is inert
            if record is None or len(record.parents) > 1:
                break
            if record.sha in todo:
                del todo[record.sha]
                found[record.sha] = named.get(record.sha, [])
    return found


def start_of(root: StrPath, since: str | None, tip: str) -> str | None:
    """Where the walk that judges ``since..tip`` starts: :func:`walk_start`, or when that is
    the root, :func:`nearest_start` (None: the root)."""
    start = walk_start(root, since, tip)
    if start is None and since is not None:
        return nearest_start(root, since, tip)
    return start


#: How many versions of ``agentmem.yaml`` :func:`nearest_start` steps back over.
NEAREST_STEPS = 8


def nearest_start(root: StrPath, since: str, tip: str) -> str | None:
    """Where a walk that judges ``since..tip`` may start when :func:`walk_start` says not at
    ``since``: the newest commit of ``since``'s first-parent line where it says a walk may
    start, looked for from ``since`` back through the commits that made the versions of
    ``agentmem.yaml`` — the first parent of the commit that made the version held at
    ``since`` (the relaxation the judge may hold is then walked), then of the one that made
    the version there, at most :data:`NEAREST_STEPS` times; None (the root) past that. At
    such a commit every setting the judge applies is as strict as written or never was
    stricter before, so a walk from it holds what a walk from the root holds (what
    :func:`walk_start` starts any walk on). One ``git log -1`` and what :func:`walk_start`
    costs per step."""
    rev = since
    for _step in range(NEAREST_STEPS):
        args = ["log", "--first-parent", "-m", "-1", "--format=%P", rev, "--", CONFIG_FILE]
        proc = gitrun.run(root, args, None, None, text=True)
        parents: list[str] = str(proc.stdout).split() if proc.returncode == 0 else []
        if not parents:
            return None  # made by the root commit, or git cannot say: the root
        rev = parents[0]
        if walk_start(root, rev, tip) == rev:
            return rev
    return None


def _inert(record: CommitRecord) -> bool:
    """Whether ``record`` is :data:`INERT` for the commits before it (:func:`judge_each`)."""
    if len(record.parents) != 1:
        return False
    if record.trailer(trailers.ACTION) == governance.APPROVE_SETTINGS:
        return False
    return all(change.path.startswith(INERT) for change in record.changes)


def _brought(by_sha: dict[str, CommitRecord], sha: str) -> set[str]:
    """``sha`` and, for a merge, the walked commits it brings in (not reached from its first
    parent): the commits ``judge_range`` from its first parent keeps the findings of."""
    parents = by_sha[sha].parents if sha in by_sha else []
    if len(parents) <= 1:
        return {sha}
    base = _ancestry(by_sha, parents[:1])
    return {sha} | (_ancestry(by_sha, parents[1:]) - base)


def _ancestry(by_sha: dict[str, CommitRecord], tips: Sequence[str]) -> set[str]:
    seen: set[str] = set()
    stack = [t for t in tips if t in by_sha]
    while stack:
        sha = stack.pop()
        if sha not in seen:
            seen.add(sha)
            stack.extend(p for p in by_sha[sha].parents if p in by_sha)
    return seen
