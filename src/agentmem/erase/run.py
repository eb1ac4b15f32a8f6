"""``agentmem erase`` (docs/design/sync.md §Sync): remove a person's memory, or a text, everywhere.

Admin only. The caller holds :meth:`Repository.locked`. In order:

1. the work tree: ``--person P`` deletes ``memories/P.md`` and ``inbox/P/``; ``--text T`` removes
   every form of T (any letter case, any white space between its words, its slug form
   ``dave-chen``: :mod:`agentmem.erase.scrub`) from every tracked file, agentmem's own files
   rewritten through their own serialisers, and renames the paths (and rule ids) that hold it.
   In ONE audit commit whose trailers say who erased what class of data (``Agentmem-Action:
   erase``), never the data, and which adds an entry to the erasure record ``erasures.yaml``
   (:mod:`agentmem.store.erasures`: hashes, never the values);
2. agentmem's local files (``.agentmem/*.jsonl``: queue, harvested, usage log; other caches):
   lines holding the data are dropped, other files holding it deleted; the search index
   (``.agentmem/search.sqlite``), the rule index (``.agentmem/rules-index.json``) and the hot
   path's cache (``.agentmem/hotcache.json``, and the memo ``hotread.json`` an older version
   wrote), all derived and rebuilt on next use, are always deleted;
3. every commit: git-filter-repo (``--sensitive-data-removal``) on a fresh ``--mirror`` clone in
   ``.git/agentmem/``, driven by the same scrubber (:mod:`agentmem.erase.rewrite`) for
   ``--text``; then the rewritten branches and tags are fetched back, the remote-tracking refs
   dropped (they describe the old remote); the erase commit's record entry gets the ids of the
   first rewritten commits (the old ids: any commit that descends from one holds the data);
   reflogs expired, ``gc --prune=now``;
4. verification: no form of the text in any blob, path or commit message (``git cat-file
   --batch-all-objects``), nothing in the reflog, the rewritten agentmem files still parse, the
   search index gone, else :class:`EraseError`;
5. the steps left for the remote host and the other clones (:attr:`EraseResult.steps`).

Commits keep their place (``--prune-empty never``): the audit trail of who decided what stays,
only the data goes; with ``--person``, the ``Agentmem-Justification`` of that person's memory
and inbox decisions goes too (a model-written reason may quote them). Authors and committers
are kept. The text itself is never printed, logged or committed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import agentmem
from agentmem import governance, guard
from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes, read_current
from agentmem.delivery import export
from agentmem.doctrine import index as rule_index
from agentmem.doctrine.model import today
from agentmem.doctrine.parse import parse_rule_text
from agentmem.erase.scrub import PLACEHOLDER, Scrubber, rename_map, rule_ids
from agentmem.errors import AgentmemError, GovernanceError, UsageError
from agentmem.memory.file import parse_memory
from agentmem.proposals.model import proposal_from_stored
from agentmem.search import index as search_index
from agentmem.store import erasures, gitio, hotcache
from agentmem.store.atomic import atomic_delete, atomic_write, atomic_write_bytes
from agentmem.store.paths import check_slug
from agentmem.store.repo import INBOX_DIR, LOCAL_DIR, MEMORY_DIR, Person, Repository
from agentmem.store.sign import signing_wanted
from agentmem.store.yamlio import load_yaml_text
from agentmem.sync.replay import ERASE_MARKER

REMOVED = PLACEHOLDER
MIN_TEXT_CHARS = 4
KEPT_REF_PREFIXES = ("refs/heads/", "refs/tags/")
DROPPED_REF_PREFIXES = ("refs/remotes/",)


class EraseError(AgentmemError):
    """Erase refused before it started, or could not finish (the message says what is left)."""


@dataclass(frozen=True)
class EraseTarget:
    """What to erase: a person's memory and inbox, or a literal text. ``data_class`` is what the
    commit and the output name (``memory and inbox of bob``, ``text (pii:email)``) — never the
    text itself."""

    person: str | None = None
    text: str | None = None
    data_class: str = ""

    def paths(self) -> list[str]:
        return (
            [f"{MEMORY_DIR}/{self.person}.md", f"{INBOX_DIR}/{self.person}/"] if self.person else []
        )


@dataclass
class EraseResult:
    """``commit``: the erase commit; ``files``: work-tree files changed (their new names);
    ``local``: agentmem local files cleaned; ``first_changed``: the first rewritten commits (old
    ids, as the erasure record keeps them); ``checks``: verifications passed; ``steps``: what is
    left to do elsewhere; ``untracked``: untracked files still holding the text (not touched;
    their names shown scrubbed)."""

    target: EraseTarget
    commit: str
    files: list[str] = field(default_factory=list)
    local: list[str] = field(default_factory=list)
    first_changed: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)


def eraser(repo: Repository) -> Person:
    """The repository's actor, when they may erase (an admin). Raises :class:`GovernanceError`
    naming the role needed and the actor's."""
    actor = repo.actor()
    if not governance.may(actor.role, governance.ERASE):
        raise GovernanceError(
            f"erase needs the {governance.needed(governance.ERASE)} role; you are {actor.id} ({actor.role})",
            hint="ask an admin of this repository (see roles.yaml) to run it",
        )
    return actor


def make_target(repo: Repository, person: str | None, text: str | None) -> EraseTarget:
    """Validate the request: admin only (the repository's actor, :func:`eraser`), exactly one
    of ``person``/``text``. Raises :class:`GovernanceError` or :class:`UsageError`."""
    eraser(repo)
    if (person is None) == (text is None):
        raise UsageError("erase takes exactly one of --person P or --text TEXT")
    if person is not None:
        check_slug(person, "person id")
        return EraseTarget(person=person, data_class=f"memory and inbox of {person}")
    assert text is not None
    if text != text.strip() or "\n" in text or "\r" in text or "\0" in text:
        raise UsageError("--text must be one line without leading or trailing spaces")
    if len(text) < MIN_TEXT_CHARS:
        raise UsageError(
            f"--text must be at least {MIN_TEXT_CHARS} characters (it would erase too much)"
        )
    if not erasures.tokens(text):
        raise UsageError("--text must hold at least one letter or digit")
    return EraseTarget(text=text, data_class=f"text ({_text_class(text)})")


def _text_class(text: str) -> str:
    codes = sorted(
        {f.code for f in guard.scan(text, kind="file") if f.code.startswith(("pii", "secret"))}
    )
    return ", ".join(codes) or "free text"


def scrubber_for(root: Path, text: str) -> Scrubber:
    """The scrubber of ``text`` with the renames of every path history and the work tree ever
    held (:func:`agentmem.erase.scrub.rename_map`). Refuses a text that names a person's memory
    or inbox file (``erase --person`` erases those)."""
    listed = gitio.run_git(
        root, ["log", "--all", "--format=", "--name-only", "-z", "--no-renames"]
    ).stdout.split("\0")
    listed += gitio.run_git(root, ["ls-files", "-z"]).stdout.split("\0")
    paths = {p.strip("\n") for p in listed if p.strip("\n")}
    renames = rename_map(Scrubber(text), paths)
    if any(p.startswith((f"{MEMORY_DIR}/", f"{INBOX_DIR}/")) for p in renames):
        raise EraseError(
            "the text is part of the name of a memory or inbox file (a person id or a proposal "
            "id); erase --text does not rename a person's files",
            hint="to remove a person's memory and inbox, run agentmem erase --person P",
        )
    return Scrubber(text, renames, rule_ids(renames))


@dataclass(frozen=True)
class Survey:
    """Where the data is now: tracked ``files``, ``commits`` holding it (any ref), agentmem
    ``local`` files, and whether any git object (even unreachable) holds it."""

    files: list[str]
    commits: int
    local: list[str]
    objects: bool

    @property
    def empty(self) -> bool:
        return not (self.files or self.commits or self.local or self.objects)


def survey(repo: Repository, target: EraseTarget, scrubber: Scrubber | None = None) -> Survey:
    """Look, change nothing (for the confirmation and to refuse erasing what is not there)."""
    root = repo.root
    if target.text:
        scrubber = scrubber or scrubber_for(root, target.text)
        files = [c.path for c in _work_tree_changes(root, target, scrubber) if c.old is not None]
        hits = _object_hits(root, scrubber)
        commits = _commits_holding(root, scrubber, hits)
        objects = bool(hits.blobs or hits.trees or hits.messages)
    else:
        files = [c.path for c in _work_tree_changes(root, target, None)]
        commits = set(
            gitio.run_git(
                root, ["log", "--all", "--format=%H", "--", *target.paths()]
            ).stdout.split()
        )
        objects = False
    local = [p.relative_to(root).as_posix() for p, _ in _local_edits(root, repo, target, scrubber)]
    return Survey(files, len(commits), local, objects)


def erase(repo: Repository, target: EraseTarget, found: Survey | None = None) -> EraseResult:
    """Run steps 1–5 of the module docstring as the repository's actor (an admin:
    :func:`eraser`). ``found`` is the :func:`survey` the caller already made under the same
    lock (it reads every object once; not done again). Raises :class:`GovernanceError`,
    :class:`EraseError` (refused before any change, or a verification that failed) or
    :class:`GitError`."""
    actor = eraser(repo)
    root = repo.root
    _preflight(root)
    scrubber = scrubber_for(root, target.text) if target.text else None
    if (found or survey(repo, target, scrubber)).empty:
        raise EraseError(
            f"nothing to erase: no {target.data_class} in the work tree, the history, the git "
            "objects or agentmem's local files",
            hint="check the person id or the text (matched in any letter case, and as a slug)",
        )
    changes = _work_tree_changes(root, target, scrubber)
    _refuse_broken(repo, changes)
    record = _record_change(root, actor, target)
    trailers = [
        (tr.ACTION, "erase"),
        (tr.ERASED, target.data_class),
        *tr.audit(actor),
    ]
    message = tr.message(f"erase: {target.data_class}", trailers)
    signed = signing_wanted(repo)
    commit = apply_changes(root, [*changes, record], message, sign=signed)
    assert commit is not None  # the record gains an entry: an erase is never a no-op
    result = EraseResult(target, commit, [c.path for c in changes if c.new is not None])
    folder = root / INBOX_DIR / (target.person or "")
    if target.person and folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)  # the person's inbox, untracked proposals included
    if target.person:
        for path in _exports_outside(root, target.person):  # exports this clone wrote elsewhere
            export.drop_block(path, "memory", target.person)
            result.files.append(str(path))
    result.local = _clean_local(root, repo, target, scrubber)
    result.local += [p for p in search_index.purge(root) if p not in result.local]
    result.local += [p for p in rule_index.purge(root) if p not in result.local]
    result.local += [p for p in hotcache.purge(root) if p not in result.local]
    tips = _remote_tips(root)  # what this clone knew of each remote before the rewrite
    result.first_changed = _rewrite_history(root, target, scrubber)
    _amend_record(root, result.first_changed, signed)
    result.commit = gitio.head(root) or commit  # the erase commit, rewritten like the others
    _purge(root)
    result.checks = _verify(repo, target, scrubber, result.files)
    result.untracked = _untracked_holding(root, target, scrubber)
    result.steps = _steps(root, target, result.first_changed, tips)
    return result


# -- before -----------------------------------------------------------------------------------
def _preflight(root: Path) -> None:
    status = gitio.run_git(root, ["status", "--porcelain", "--untracked-files=no"]).stdout
    if status.strip():
        raise EraseError(
            "erase rewrites history and needs a clean work tree; you have uncommitted changes",
            hint="commit them or set them aside (git stash is refused too: see below), then retry",
        )
    refs = gitio.run_git(root, ["for-each-ref", "--format=%(refname)"]).stdout.split()
    odd = [r for r in refs if not r.startswith(KEPT_REF_PREFIXES + DROPPED_REF_PREFIXES)]
    if odd:
        raise EraseError(
            f"refs that erase would not rewrite: {', '.join(odd)}",
            hint="apply or drop stashes (git stash list), notes and other refs first, then retry",
        )
    listed = gitio.run_git(root, ["worktree", "list", "--porcelain"]).stdout
    trees = [ln[len("worktree ") :] for ln in listed.splitlines() if ln.startswith("worktree ")]
    if len(trees) > 1:
        others = [t for t in trees if Path(t).resolve() != root.resolve()]
        raise EraseError(
            f"linked worktrees share this repository's history: {', '.join(others)}; erase "
            "would rewrite the branches they have checked out and leave their old commits",
            hint="commit or set aside their work, remove them (git worktree remove PATH; "
            "git worktree prune), then retry; nothing was changed",
        )
    _remove_work_folders(root)
    proc = subprocess.run(
        [sys.executable, "-m", "git_filter_repo", "--version"], capture_output=True
    )
    if proc.returncode != 0:
        raise EraseError("git-filter-repo is not installed", hint="pip install git-filter-repo")


def _work_folders(root: Path) -> list[Path]:
    """The folders an erase works in (``.git/agentmem/erase-*``: a mirror of the old history),
    left behind only by an erase that was killed."""
    base = gitio.git_dir(root) / "agentmem"
    return sorted(p for p in base.glob("erase-*") if p.is_dir()) if base.is_dir() else []


def _remove_work_folders(root: Path) -> None:
    """Delete what a killed erase left (:func:`_work_folders`); raises :class:`EraseError`
    when one cannot be deleted (it may hold the old history, erased values included)."""
    for folder in _work_folders(root):
        shutil.rmtree(folder, ignore_errors=True)
        if folder.exists():
            raise EraseError(
                f"{folder}: a folder left by an interrupted erase cannot be deleted",
                hint="delete it by hand (it holds a copy of the old history), then retry",
            )


def _work_tree_changes(
    root: Path, target: EraseTarget, scrubber: Scrubber | None
) -> list[FileChange]:
    if target.person:
        rels = [f"{MEMORY_DIR}/{target.person}.md"]
        rels += gitio.run_git(
            root, ["ls-files", "-z", "--", f"{INBOX_DIR}/{target.person}/"]
        ).stdout.split("\0")
        found = [
            FileChange(r, read_current(root, r), None) for r in rels if r and (root / r).is_file()
        ]
        return found + _exported_blocks(root, target.person, {c.path for c in found})
    assert scrubber is not None
    changes: list[FileChange] = []
    for rel in gitio.run_git(root, ["ls-files", "-z"]).stdout.split("\0"):
        path = root / rel
        if not rel or rel == erasures.ERASURES_FILE or path.is_symlink() or not path.is_file():
            continue
        try:
            old = read_current(root, rel)
        except UnicodeDecodeError:
            if scrubber.found_bytes(path.read_bytes()):
                raise EraseError(
                    f"{scrubber.path(rel)}: a binary file holds the text; erase edits text files only",
                    hint="remove that file by hand, commit, then retry",
                ) from None
            continue
        if old is None:
            continue
        new_rel = scrubber.path(rel)
        new = scrubber.file(rel, old)
        if new_rel != rel:
            changes += [FileChange(rel, old, None), FileChange(new_rel, None, new)]
        elif new != old:
            changes.append(FileChange(rel, old, new))
    return changes


def _exported_blocks(root: Path, person: str, skip: set[str]) -> list[FileChange]:
    """The tracked files holding an exported memory block of ``person`` (``CLAUDE.md``,
    ``AGENTS.md``, rules: :mod:`agentmem.delivery.export`), without it (deleted when nothing
    else is left)."""
    marker = export.person_marker(person).encode("utf-8")
    changes: list[FileChange] = []
    for rel in gitio.run_git(root, ["ls-files", "-z"]).stdout.split("\0"):
        path = root / rel
        if not rel or rel in skip or path.is_symlink() or not path.is_file():
            continue
        try:
            if marker not in path.read_bytes():
                continue
            old = read_current(root, rel)
        except (OSError, UnicodeDecodeError):
            continue
        if old is None:
            continue
        new = export.without_person(old, person)
        if new != old:
            changes.append(FileChange(rel, old, new))
    return changes


def _exports_outside(root: Path, person: str) -> list[Path]:
    """Files outside this repository's tracked ones that an export wrote and that still hold a
    memory block of ``person`` (``.agentmem/exports.jsonl``: another project's ``CLAUDE.md``)."""
    marker = export.person_marker(person)
    found = []
    for path in export.exported_paths(root):
        try:
            if path.is_file() and not path.is_symlink() and marker in path.read_text("utf-8"):
                found.append(path)
        except (OSError, UnicodeDecodeError):
            continue
    return found


def _parse_problem(repo: Repository, path: str, text: str) -> bool:
    """True when ``text`` does not read as the agentmem file ``path`` is (other files: False)."""
    parts = path.split("/")
    try:
        if parts[0] == MEMORY_DIR and len(parts) == 2 and path.endswith(".md"):
            parse_memory(text, parts[1][:-3], repo.config.memory, path)
        elif parts[0] == INBOX_DIR and len(parts) == 3 and path.endswith(".yaml"):
            proposal_from_stored(load_yaml_text(text, path, AgentmemError), path)
        elif parts[0] == "doctrine" and len(parts) == 2 and path.endswith(".yaml"):
            rule = parse_rule_text(text, path)
            if rule.path != path:
                return True
        elif path == erasures.ERASURES_FILE:
            erasures.parse_record(text)
    except AgentmemError:
        return True
    return False


def _refuse_broken(repo: Repository, changes: list[FileChange]) -> None:
    """Refuse, before anything is written, a rewrite that would leave an agentmem file that read
    before unreadable (the name shown is the new one: the old may hold the text)."""
    pairs: list[tuple[str, str, str, str]] = []  # old path, old text, new path, new text
    for i, change in enumerate(changes):
        if change.old is None or change.new is not None and change.new == change.old:
            continue
        if change.new is not None:
            pairs.append((change.path, change.old, change.path, change.new))
        elif i + 1 < len(changes) and changes[i + 1].old is None:  # a rename: delete, create
            after = changes[i + 1]
            pairs.append((change.path, change.old, after.path, after.new or ""))
    for old_path, old, new_path, new in pairs:
        if not _parse_problem(repo, old_path, old) and _parse_problem(repo, new_path, new):
            raise EraseError(
                f"{new_path}: would no longer be readable after the erase; nothing was changed",
                hint="edit that file by hand to remove the text, commit, then run erase again",
            )


def _record_change(root: Path, actor: Person, target: EraseTarget) -> FileChange:
    """The erasure record with one more entry: the hash of the text (none for ``--person``:
    a person's entries are ordinary sentences others may write too), the commits come after the
    rewrite (:func:`_amend_record`)."""
    old = read_current(root, erasures.ERASURES_FILE)
    record = erasures.parse_record(old) if old is not None else erasures.new_record()
    value = record.value(target.text) if target.text else None
    record.erasures.append(
        erasures.Erasure(
            today().isoformat(), actor.id, target.data_class, (value,) if value else (), ()
        )
    )
    return FileChange(erasures.ERASURES_FILE, old, erasures.render_record(record))


# -- local files ------------------------------------------------------------------------------
def _local_edits(
    root: Path, repo: Repository, target: EraseTarget, scrubber: Scrubber | None
) -> list[tuple[Path, str | None]]:
    """Files of ``.agentmem/`` (never the lock) holding the data, with their new text (None:
    delete): JSON-lines files lose the lines holding it, other files (caches) go."""
    base = root / LOCAL_DIR
    if not base.is_dir():
        return []
    needles = _needles(repo, target)
    edits: list[tuple[Path, str | None]] = []
    for path in sorted(p for p in base.rglob("*") if p.is_file() and p.name != "lock"):
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise EraseError(
                f"{path.relative_to(root).as_posix()}: cannot be read ({exc.strerror}); erase "
                "cannot tell whether it holds the data; nothing was changed",
                hint="make it readable or delete it, then run agentmem erase again",
            ) from None
        # bytes, not text: one byte that is not UTF-8 must not hide a line that holds the data
        text = data.decode("utf-8", "surrogateescape")
        if path.suffix == ".jsonl":
            kept = [
                ln
                for ln in text.splitlines(keepends=True)
                if not _holds(ln, needles, target, scrubber)
            ]
            if len(kept) != len(text.splitlines()):
                edits.append((path, "".join(kept)))
        elif (
            any(n in text for n in needles)
            or (scrubber is not None and scrubber.found(text))
            or (target.person and target.person in path.parts)
        ):
            edits.append((path, None))
    return edits


def _clean_local(
    root: Path, repo: Repository, target: EraseTarget, scrubber: Scrubber | None
) -> list[str]:
    """Apply :func:`_local_edits`; returns the files changed, relative to the root."""
    changed = []
    for path, text in _local_edits(root, repo, target, scrubber):
        if text is None:
            atomic_delete(path)
        else:
            atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"))
        changed.append(path.relative_to(root).as_posix())
    return changed


def _needles(repo: Repository, target: EraseTarget) -> list[str]:
    if target.text:
        escaped = json.dumps(target.text)[1:-1]
        raw = json.dumps(target.text, ensure_ascii=False)[1:-1]
        return list(dict.fromkeys([target.text, escaped, raw]))
    person = repo.people().get(target.person or "")
    return [f"{target.person} <"] + ([person.email] if person else [])


def _holds(line: str, needles: list[str], target: EraseTarget, scrubber: Scrubber | None) -> bool:
    if any(n in line for n in needles):
        return True
    if scrubber is not None and scrubber.found(line):
        return True
    try:
        record = json.loads(line)
    except ValueError:
        return False
    strings = _strings(record)
    if scrubber is not None:
        return any(scrubber.found(s) for s in strings)
    return bool(target.person) and target.person in strings


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


# -- history ----------------------------------------------------------------------------------
def _rewrite_history(root: Path, target: EraseTarget, scrubber: Scrubber | None) -> list[str]:
    """filter-repo on a fresh mirror, then its branches and tags back here. Returns the first
    rewritten commits (old ids, oldest first): every other rewritten commit descends from one."""
    gdir = gitio.git_dir(root)
    (gdir / "agentmem").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="erase-", dir=gdir / "agentmem"))
    try:
        mirror = work / "mirror.git"
        gitio.run_git(work, ["clone", "--quiet", "--mirror", "--no-local", str(root), str(mirror)])
        for ref in gitio.run_git(mirror, ["for-each-ref", "--format=%(refname)"]).stdout.split():
            if not ref.startswith(KEPT_REF_PREFIXES):
                gitio.run_git(mirror, ["update-ref", "-d", ref])
        order = gitio.run_git(
            mirror, ["rev-list", "--all", "--parents", "--topo-order", "--reverse"]
        ).stdout.splitlines()
        parents = {ln.split()[0]: ln.split()[1:] for ln in order if ln.strip()}
        env = dict(os.environ)
        package_root = str(Path(agentmem.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, env.get("PYTHONPATH", "")) if p
        )
        spec: str | None = None  # through a pipe: the text never touches the disk
        if scrubber is not None:
            spec = json.dumps({"text": scrubber.text, "renames": scrubber.renames})
            command = [sys.executable, "-m", "agentmem.erase.rewrite", "-"]
        else:
            args = ["--sensitive-data-removal", "--no-fetch", "--prune-empty", "never", "--quiet"]
            args += ["--invert-paths", *[x for p in target.paths() for x in ("--path", p)]]
            args += ["--message-callback", _justification_scrubber(target.person or "")]
            args += ["--blob-callback", _export_scrubber(target.person or "")]
            command = [sys.executable, "-m", "git_filter_repo", *args]
        proc = subprocess.run(
            command,
            cwd=mirror,
            capture_output=True,
            text=True,
            env=env,
            input=spec if spec is not None else "",
        )
        if proc.returncode != 0:
            said = (proc.stderr.strip().splitlines() or ["?"])[-1]
            raise EraseError(
                f"git filter-repo failed: {scrubber.string(said) if scrubber else said}",
                hint="nothing in history was changed yet; fix the cause and run agentmem erase again",
            )
        _take_back(root, mirror)
        return _roots(mirror, parents)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _roots(mirror: Path, parents: dict[str, list[str]]) -> list[str]:
    """The rewritten commits none of whose parents was rewritten, oldest first (from
    filter-repo's ``commit-map``: old id, new id)."""
    lines = (mirror / "filter-repo" / "commit-map").read_text(encoding="utf-8").splitlines()
    changed = {
        pair[0]
        for pair in (ln.split() for ln in lines[1:])
        if len(pair) == 2 and pair[0] != pair[1]
    }
    return [c for c in parents if c in changed and not any(p in changed for p in parents[c])]


def _justification_scrubber(person: str) -> str:
    """A filter-repo ``--message-callback`` body: in the person's memory and inbox decisions
    (subjects ``memory(P):`` and ``inbox(P):``), the ``Agentmem-Justification`` value — a
    model-written reason that may quote them — becomes ``***REMOVED***``. Subjects and every
    other trailer (who decided what, when) stay. ``person`` is a checked slug."""
    check_slug(person, "person id")
    return (
        "import re\n"
        f"if message.startswith((b'memory({person}):', b'inbox({person}):')):\n"
        f"    message = re.sub(rb'(?m)^({tr.JUSTIFICATION}:)[^\\n]*', "
        f"rb'\\1 {REMOVED}', message)\n"
        "return message\n"
    )


def _export_scrubber(person: str) -> str:
    """A filter-repo ``--blob-callback`` body: the person's exported memory blocks
    (:mod:`agentmem.delivery.export`) removed from every file of every commit. ``person`` is a
    checked slug."""
    check_slug(person, "person id")
    return (
        "import re\n"
        f"blob.data = re.sub(rb'<!-- agentmem:begin memory person={person} sha256=[0-9a-f]{{12}} "
        f"-->\\n.*?<!-- agentmem:end memory person={person} -->\\n?', b'', blob.data, "
        "flags=re.S)\n"
    )


def _take_back(root: Path, mirror: Path) -> None:
    refs = gitio.run_git(root, ["for-each-ref", "--format=%(refname)"]).stdout.split()
    gitio.run_git(
        root,
        [
            "fetch",
            "--quiet",
            "--force",
            "--update-head-ok",
            "--no-tags",
            str(mirror),
            "+refs/heads/*:refs/heads/*",
            "+refs/tags/*:refs/tags/*",
        ],
    )
    kept = set(gitio.run_git(mirror, ["for-each-ref", "--format=%(refname)"]).stdout.split())
    for ref in refs:
        if ref not in kept:
            gitio.run_git(root, ["update-ref", "-d", ref])
    gitio.run_git(root, ["reset", "-q"])


def _amend_record(root: Path, first_changed: list[str], signed: bool) -> None:
    """Give the erase commit's (HEAD's) record entry the first rewritten commits: the same
    commit, author and message, its ``erasures.yaml`` completed (HEAD is local and was just
    rewritten anyway), signed again when ``signed`` (the rewrite drops signatures)."""
    text = read_current(root, erasures.ERASURES_FILE)
    if text is None or not first_changed:
        if signed:
            _sign_head(root)
        return
    record = erasures.parse_record(text)
    last = record.erasures[-1]
    record.erasures[-1] = erasures.Erasure(
        last.at, last.by, last.erased, last.values, tuple(first_changed)
    )
    new_text = erasures.render_record(record)
    old = gitio.head(root)
    assert old is not None
    blob = (
        gitio.run_git_bytes(
            root, ["hash-object", "-w", "--stdin"], input_bytes=new_text.encode("utf-8")
        )
        .decode()
        .strip()
    )
    tree = gitio.tree_with(root, old, [(erasures.ERASURES_FILE, ("100644", blob))])
    new = gitio.commit_like(root, old, tree, sign=signed or None)
    atomic_write(root / erasures.ERASURES_FILE, new_text)
    gitio.run_git(root, ["update-ref", "-m", "agentmem: erase record", "HEAD", new, old])
    gitio.run_git(root, ["reset", "-q"])


def _sign_head(root: Path) -> None:
    """HEAD (the erase commit) signed again when the history rewrite dropped its signature."""
    old = gitio.head(root)
    assert old is not None
    raw = gitio.run_git(root, ["cat-file", "commit", old]).stdout
    if "\ngpgsig " in raw.partition("\n\n")[0]:
        return
    tree = gitio.run_git(root, ["rev-parse", f"{old}^{{tree}}"]).stdout.strip()
    new = gitio.commit_like(root, old, tree, sign=True)
    gitio.run_git(root, ["update-ref", "-m", "agentmem: erase signed", "HEAD", new, old])


def _purge(root: Path) -> None:
    gdir = gitio.git_dir(root)
    gitio.run_git(root, ["reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all"])
    for name in ("ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG"):
        (gdir / name).unlink(missing_ok=True)
    shutil.rmtree(gdir / "filter-repo", ignore_errors=True)
    gitio.run_git(root, ["gc", "--quiet", "--prune=now"])


# -- looking for the text in git objects ------------------------------------------------------
@dataclass
class _Hits:
    """Objects holding a form of the text: blob ids, tree ids (a path), commits or tags (their
    message; authorship is not looked at: it is kept)."""

    blobs: set[str] = field(default_factory=set)
    trees: set[str] = field(default_factory=set)
    messages: set[str] = field(default_factory=set)


def _object_hits(root: Path, scrubber: Scrubber) -> _Hits:
    """Every object of the repository (reachable or not), read once."""
    data = gitio.run_git_bytes(root, ["cat-file", "--batch-all-objects", "--batch"])
    hits = _Hits()
    pos, size_all = 0, len(data)
    header_of_record = erasures.HEADER.encode("utf-8")
    while pos < size_all:
        end = data.index(b"\n", pos)
        oid, kind, size = data[pos:end].decode().split()
        body = data[end + 1 : end + 1 + int(size)]
        pos = end + 2 + int(size)
        if kind == "blob":
            if not body.startswith(header_of_record) and scrubber.found_bytes(body):
                hits.blobs.add(oid)
        elif kind == "tree":
            if scrubber.found_bytes(_tree_names(body)):
                hits.trees.add(oid)
        elif kind in ("commit", "tag") and scrubber.found_bytes(body.partition(b"\n\n")[2]):
            hits.messages.add(oid)
    return hits


def _tree_names(body: bytes) -> bytes:
    names, pos = [], 0
    while pos < len(body):
        space = body.index(b" ", pos)
        nul = body.index(b"\0", space)
        names.append(body[space + 1 : nul])
        pos = nul + 21
    return b"\n".join(names)


def _commits_holding(root: Path, scrubber: Scrubber, hits: _Hits) -> set[str]:
    """Commits (any ref) whose message holds the text, or that commit a blob or a path holding
    it."""
    out = gitio.run_git_bytes(
        root,
        ["log", "--all", "-z", "--raw", "--no-abbrev", "--no-renames", "--root",
         "--format=%x01%H"],
    )  # fmt: skip
    found = set(hits.messages)
    current = ""
    tokens = out.split(b"\0")
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip(b"\n")
        if token.startswith(b"\x01"):
            current = token[1:].decode().strip()
            i += 1
            continue
        if token.startswith(b":") and i + 1 < len(tokens):
            fields = token.decode().split()
            path = tokens[i + 1].decode("utf-8", "surrogateescape")
            if len(fields) >= 4 and (fields[3] in hits.blobs or scrubber.found(path)):
                found.add(current)
            i += 2
            continue
        i += 1
    return found


# -- after ------------------------------------------------------------------------------------
def _verify(
    repo: Repository, target: EraseTarget, scrubber: Scrubber | None, files: list[str]
) -> list[str]:
    """Each check that passed; raises :class:`EraseError` naming one that did not."""
    root = repo.root
    failed: list[str] = []
    checks: list[str] = []
    reflog = set(
        gitio.run_git(root, ["reflog", "show", "--all", "--format=%H"], check=False).stdout.split()
    )
    if scrubber is not None:
        hits = _object_hits(root, scrubber)
        (failed if hits.messages else checks).append("every commit message")
        (failed if hits.trees else checks).append("every path")
        (failed if hits.blobs else checks).append("every file of every commit")
        (failed if reflog & _commits_holding(root, scrubber, hits) else checks).append("reflog")
        (failed if _unreadable(repo, files) else checks).append("the rewritten files parse")
    else:
        hits_log = gitio.run_git(
            root, ["log", "--all", "--format=%h", "--", *target.paths()]
        ).stdout.split()
        (failed if hits_log else checks).append(f"git log --all -- {' '.join(target.paths())}")
        listed = gitio.run_git(root, ["rev-list", "--all", "--objects"]).stdout
        prefixes = (f" {target.paths()[0]}", f" {target.paths()[1]}")
        found = any(ln[40:].startswith(prefixes) for ln in listed.splitlines())
        found = found or any(_person_files_at(root, sha, target) for sha in reflog)
        (failed if found else checks).append("git rev-list --all --objects; reflog")
        marker = export.person_marker(target.person or "")
        exported = gitio.run_git(root, ["log", "--all", "--format=%h", "-S", marker]).stdout
        exported_now = _exported_blocks(root, target.person or "", set())
        outside = _exports_outside(root, target.person or "")
        (failed if exported.strip() or exported_now or outside else checks).append(
            "exported blocks"
        )
        inbox = root / INBOX_DIR / (target.person or "")
        (failed if inbox.exists() else checks).append("inbox folder")
    index = search_index.index_path(root)
    (failed if index.exists() else checks).append("search index")
    (failed if _local_edits(root, repo, target, scrubber) else checks).append(
        "agentmem's local files"
    )
    (failed if _work_folders(root) else checks).append("erase work folders")
    if failed:
        raise EraseError(
            f"erase incomplete: still found by {', '.join(failed)}",
            hint="another ref, a worktree or an alternate object store may hold it; inspect with "
            "git for-each-ref and git worktree list, then run agentmem erase again",
        )
    return checks


def _unreadable(repo: Repository, files: list[str]) -> list[str]:
    bad = []
    for rel in [*files, erasures.ERASURES_FILE]:
        text = gitio.show_file(repo.root, "HEAD", rel)
        if text is not None and _parse_problem(repo, rel, text):
            bad.append(rel)
    return bad


def _person_files_at(root: Path, sha: str, target: EraseTarget) -> bool:
    return bool(
        gitio.run_git(
            root, ["ls-tree", "-r", "--name-only", sha, "--", *target.paths()], check=False
        ).stdout.strip()
    )


def _untracked_holding(root: Path, target: EraseTarget, scrubber: Scrubber | None) -> list[str]:
    if scrubber is None:
        return []
    listed = gitio.run_git(root, ["ls-files", "-z", "--others", "--exclude-standard"]).stdout.split(
        "\0"
    )
    found = []
    for rel in (r for r in listed if r):
        path = root / rel
        try:
            holds = scrubber.found(rel) or (
                path.is_file() and scrubber.found_bytes(path.read_bytes())
            )
        except OSError:
            continue
        if holds:
            found.append(scrubber.string(rel, slug=True))
    return found


def _remote_tips(root: Path) -> dict[str, dict[str, str]]:
    """``{remote: {refs/heads/B: commit}}`` from this clone's remote-tracking refs."""
    out = gitio.run_git(
        root, ["for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/"]
    ).stdout
    tips: dict[str, dict[str, str]] = {}
    for line in out.splitlines():
        name, _sp, sha = line.partition(" ")
        parts = name.split("/", 3)  # refs, remotes, <remote>, <branch>
        if len(parts) == 4 and parts[3] != "HEAD":
            tips.setdefault(parts[2], {})[f"refs/heads/{parts[3]}"] = sha
    return tips


def _steps(
    root: Path,
    target: EraseTarget,
    first_changed: list[str],
    tips: dict[str, dict[str, str]] | None = None,
) -> list[str]:
    remotes = gitio.run_git(root, ["remote"]).stdout.split()
    shown = ", ".join(c[:12] for c in first_changed[:5])
    more = f" and {len(first_changed) - 5} more" if len(first_changed) > 5 else ""
    commits = f"{shown}{more} (also in {erasures.ERASURES_FILE})" if shown else "see git log"
    steps = []
    for remote in remotes:
        steps.append(
            f"replace the history on {remote} (agentmem sync never force-pushes): "
            f"git push --force {remote} 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'"
        )
    if remotes:
        _write_marker(root, remotes, first_changed, tips or {})
    steps += [
        "ask the hosting service to purge cached views and references to the old commits "
        f"(pull-request refs, forks, caches); first changed commit(s): {commits}. On a bare "
        "repository you host yourself, run there: git reflog expire --expire=now --all && "
        "git gc --prune=now",
        "every other clone must be deleted and cloned again: a pull or merge would bring the data "
        f"back, and check --history and agentmem sync refuse it ({erasures.ERASURES_FILE})",
        "backups, CI caches and transcripts outside the repository are not touched by agentmem",
    ]
    if target.person:
        steps.append(
            f"if {target.person} leaves the team, remove them from roles.yaml (their name "
            "and e-mail stay in the authorship of their commits)"
        )
    elif target.text:
        steps.append(
            "the authors and committers of commits are kept: if the text is someone's name or "
            "e-mail in them, it stays there"
        )
    return steps


def _write_marker(
    root: Path, remotes: list[str], first_changed: list[str], tips: dict[str, dict[str, str]]
) -> None:
    """The marker ``agentmem sync`` reads (:func:`agentmem.sync.replay._refuse_if_erase_unpushed`):
    the remotes, the first rewritten commits (old ids) and the remotes' branch tips this clone
    knew before the rewrite (a forced push discards nobody's work while the remote is there)."""
    marker = gitio.git_dir(root) / ERASE_MARKER
    record = {"remotes": remotes, "first_changed": first_changed, "tips": tips}
    atomic_write(marker, json.dumps(record, indent=1) + "\n")
