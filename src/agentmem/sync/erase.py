"""``agentmem erase`` (docs/design.md §Sync): remove a person's memory, or a text, everywhere.

Admin only. The caller holds :meth:`Repository.locked`. In order:

1. the work tree: ``--person P`` deletes ``memories/P.md`` and ``inbox/P/``; ``--text T`` replaces
   T by ``***REMOVED***`` in every tracked file — in ONE audit commit whose trailers say who
   erased what class of data (``Agentmem-Action: erase``), never the data (an empty commit
   when only the history held it);
2. agentmem's local files (``.agentmem/*.jsonl``: queue, harvested, usage log; other caches):
   lines holding the data are dropped, other files holding it deleted; the search index
   (``.agentmem/search.sqlite``, derived: the next search rebuilds it) is always deleted;
3. every commit: ``git filter-repo --sensitive-data-removal`` on a fresh ``--mirror`` clone in
   ``.git/agentmem/``, then the rewritten branches and tags are fetched back, the
   remote-tracking refs dropped (they describe the old remote), reflogs expired, ``gc --prune=now``;
4. verification: ``git log --all -S``/``--grep``, the reflog and ``git cat-file
   --batch-all-objects --batch`` no longer find it and the search index is gone, else
   :class:`EraseError`;
5. the steps left for the remote host and the other clones (:attr:`EraseResult.steps`).

Commits keep their place (``--prune-empty never``): the audit trail of who decided what stays,
only the data goes; with ``--person``, the ``Agentmem-Justification`` of that person's memory
and inbox decisions goes too (a model-written reason may quote them). The text itself is never printed, logged or committed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from agentmem import governance, guard
from agentmem import trailers as tr
from agentmem.errors import AgentmemError, GovernanceError, UsageError
from agentmem.search import index as search_index
from agentmem.store import gitio
from agentmem.store.atomic import atomic_delete, atomic_write
from agentmem.store.change import FileChange
from agentmem.store.paths import check_slug
from agentmem.store.repo import INBOX_DIR, LOCAL_DIR, MEMORY_DIR, Person, Repository
from agentmem.store.writer import apply_changes, read_current
from agentmem.sync.replay import ERASE_MARKER

REMOVED = "***REMOVED***"
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
    """``commit``: the erase commit; ``files``: work-tree files changed; ``local``: agentmem
    local files cleaned; ``first_changed``: first rewritten commits (filter-repo's report, for
    the host); ``checks``: verifications passed; ``steps``: what is left to do elsewhere;
    ``untracked``: untracked files still holding the text (not touched)."""

    target: EraseTarget
    commit: str
    files: list[str] = field(default_factory=list)
    local: list[str] = field(default_factory=list)
    first_changed: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)


def make_target(
    repo: Repository, actor: Person, person: str | None, text: str | None
) -> EraseTarget:
    """Validate the request: admin only, exactly one of ``person``/``text``. Raises
    :class:`GovernanceError` (naming the role needed and the actor's) or :class:`UsageError`."""
    if not governance.may(actor.role, governance.ERASE):
        raise GovernanceError(
            f"erase needs the {governance.needed(governance.ERASE)} role; you are {actor.id} ({actor.role})",
            hint="ask an admin of this repository (see roles.yaml) to run it",
        )
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
    return EraseTarget(text=text, data_class=f"text ({_text_class(text)})")


def _text_class(text: str) -> str:
    codes = sorted(
        {f.code for f in guard.scan(text, kind="file") if f.code.startswith(("pii", "secret"))}
    )
    return ", ".join(codes) or "free text"


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


def survey(repo: Repository, target: EraseTarget) -> Survey:
    """Look, change nothing (for the confirmation and to refuse erasing what is not there)."""
    root = repo.root
    files = [c.path for c in _work_tree_changes(root, target)]
    if target.text:
        commits = set(
            gitio.run_git(root, ["log", "--all", "--format=%H", "-S", target.text]).stdout.split()
        )
        commits |= set(
            gitio.run_git(
                root, ["log", "--all", "--format=%H", "-F", f"--grep={target.text}"]
            ).stdout.split()
        )
        blobs = gitio.run_git_bytes(root, ["cat-file", "--batch-all-objects", "--batch"])
        objects = target.text.encode("utf-8") in blobs
    else:
        commits = set(
            gitio.run_git(
                root, ["log", "--all", "--format=%H", "--", *target.paths()]
            ).stdout.split()
        )
        objects = False
    local = [p.relative_to(root).as_posix() for p, _ in _local_edits(root, repo, target)]
    return Survey(files, len(commits), local, objects)


def erase(repo: Repository, actor: Person, target: EraseTarget) -> EraseResult:
    """Run steps 1–5 of the module docstring. Raises :class:`EraseError` (refused before any
    change, or a verification that failed) or :class:`GitError`."""
    root = repo.root
    _preflight(root)
    if survey(repo, target).empty:
        raise EraseError(
            f"nothing to erase: no {target.data_class} in the work tree, the history, the git "
            "objects or agentmem's local files",
            hint="check the person id or the exact text (it is matched byte for byte)",
        )
    changes = _work_tree_changes(root, target)
    trailers = [
        (tr.ACTION, "erase"),
        (tr.ERASED, target.data_class),
        *tr.audit(actor),
    ]
    message = tr.message(f"erase: {target.data_class}", trailers)
    commit = apply_changes(root, changes, message) or gitio.commit_paths(root, [], message)
    result = EraseResult(target, commit, [c.path for c in changes])
    folder = root / INBOX_DIR / (target.person or "")
    if target.person and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    result.local = _clean_local(root, repo, target)
    result.local += [p for p in search_index.purge(root) if p not in result.local]
    result.first_changed = _rewrite_history(root, target)
    result.commit = gitio.head(root) or commit  # the erase commit, rewritten like the others
    _purge(root)
    result.checks = _verify(root, target)
    result.untracked = _untracked_holding(root, target)
    result.steps = _steps(root, target, result.first_changed)
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
    proc = subprocess.run(
        [sys.executable, "-m", "git_filter_repo", "--version"], capture_output=True
    )
    if proc.returncode != 0:
        raise EraseError("git-filter-repo is not installed", hint="pip install git-filter-repo")


def _work_tree_changes(root: Path, target: EraseTarget) -> list[FileChange]:
    if target.person:
        rels = [f"{MEMORY_DIR}/{target.person}.md"]
        rels += gitio.run_git(
            root, ["ls-files", "-z", "--", f"{INBOX_DIR}/{target.person}/"]
        ).stdout.split("\0")
        return [
            FileChange(r, read_current(root, r), None) for r in rels if r and (root / r).is_file()
        ]
    assert target.text is not None
    proc = gitio.run_git(root, ["grep", "-l", "-z", "-F", "-e", target.text], check=False)
    changes = []
    for rel in (r for r in proc.stdout.split("\0") if r):
        try:
            old = read_current(root, rel)
        except UnicodeDecodeError:
            raise EraseError(
                f"{rel}: a binary file holds the text; erase edits text files only",
                hint="remove that file by hand, commit, then retry",
            ) from None
        if old is not None:
            changes.append(FileChange(rel, old, old.replace(target.text, REMOVED)))
    return changes


# -- local files ------------------------------------------------------------------------------
def _local_edits(
    root: Path, repo: Repository, target: EraseTarget
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
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".jsonl":
            kept = [ln for ln in text.splitlines(keepends=True) if not _holds(ln, needles, target)]
            if len(kept) != len(text.splitlines()):
                edits.append((path, "".join(kept)))
        elif any(n in text for n in needles) or (target.person and target.person in path.parts):
            edits.append((path, None))
    return edits


def _clean_local(root: Path, repo: Repository, target: EraseTarget) -> list[str]:
    """Apply :func:`_local_edits`; returns the files changed, relative to the root."""
    changed = []
    for path, text in _local_edits(root, repo, target):
        if text is None:
            atomic_delete(path)
        else:
            atomic_write(path, text)
        changed.append(path.relative_to(root).as_posix())
    return changed


def _needles(repo: Repository, target: EraseTarget) -> list[str]:
    if target.text:
        escaped = json.dumps(target.text)[1:-1]
        raw = json.dumps(target.text, ensure_ascii=False)[1:-1]
        return list(dict.fromkeys([target.text, escaped, raw]))
    person = repo.people().get(target.person or "")
    return [f"{target.person} <"] + ([person.email] if person else [])


def _holds(line: str, needles: list[str], target: EraseTarget) -> bool:
    if any(n in line for n in needles):
        return True
    if not target.person:
        return False
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return target.person in _strings(record)


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


# -- history ----------------------------------------------------------------------------------
def _rewrite_history(root: Path, target: EraseTarget) -> list[str]:
    """filter-repo on a fresh mirror, then its branches and tags back here. Returns the first
    changed commits filter-repo reports."""
    gdir = gitio.git_dir(root)
    (gdir / "agentmem").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="erase-", dir=gdir / "agentmem"))
    try:
        mirror = work / "mirror.git"
        gitio.run_git(work, ["clone", "--quiet", "--mirror", "--no-local", str(root), str(mirror)])
        for ref in gitio.run_git(mirror, ["for-each-ref", "--format=%(refname)"]).stdout.split():
            if not ref.startswith(KEPT_REF_PREFIXES):
                gitio.run_git(mirror, ["update-ref", "-d", ref])
        args = ["--sensitive-data-removal", "--no-fetch", "--prune-empty", "never", "--quiet"]
        if target.text:
            texts = work / "texts"
            texts.write_text(f"literal:{target.text}==>{REMOVED}\n", encoding="utf-8")
            args += ["--replace-text", str(texts), "--replace-message", str(texts)]
        else:
            args += ["--invert-paths", *[x for p in target.paths() for x in ("--path", p)]]
            args += ["--message-callback", _justification_scrubber(target.person or "")]
        proc = subprocess.run(
            [sys.executable, "-m", "git_filter_repo", *args],
            cwd=mirror,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise EraseError(
                f"git filter-repo failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}",
                hint="nothing in history was changed yet; fix the cause and run agentmem erase again",
            )
        _take_back(root, mirror)
        return _first_changed(proc.stdout + proc.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


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


def _first_changed(report: str) -> list[str]:
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if "First Changed Commit(s)" in line:
            return [ln.strip() for ln in lines[i + 1 :] if len(ln.strip()) == 40][:20]
    return []


def _purge(root: Path) -> None:
    gdir = gitio.git_dir(root)
    gitio.run_git(root, ["reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all"])
    for name in ("ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG"):
        (gdir / name).unlink(missing_ok=True)
    shutil.rmtree(gdir / "filter-repo", ignore_errors=True)
    gitio.run_git(root, ["gc", "--quiet", "--prune=now"])


# -- after ------------------------------------------------------------------------------------
def _verify(root: Path, target: EraseTarget) -> list[str]:
    """Each check that passed; raises :class:`EraseError` naming one that did not."""
    failed: list[str] = []
    checks: list[str] = []
    if target.text:
        needles = [target.text.encode("utf-8")]
        hits = gitio.run_git(
            root, ["log", "--all", "--format=%h", "-S", target.text]
        ).stdout.split()
        hits += gitio.run_git(
            root, ["log", "--all", "--format=%h", "-F", f"--grep={target.text}"]
        ).stdout.split()
        (failed if hits else checks).append("git log --all -S / --grep")
    else:
        needles = []
        hits = gitio.run_git(
            root, ["log", "--all", "--format=%h", "--", *target.paths()]
        ).stdout.split()
        (failed if hits else checks).append(f"git log --all -- {' '.join(target.paths())}")
    reflog = gitio.run_git(
        root, ["reflog", "show", "--all", "--format=%H"], check=False
    ).stdout.split()
    (failed if any(_commit_holds(root, sha, target) for sha in set(reflog)) else checks).append(
        "reflog"
    )
    objects = gitio.run_git_bytes(root, ["cat-file", "--batch-all-objects", "--batch"])
    found = any(n in objects for n in needles)
    if target.person:
        listed = gitio.run_git(root, ["rev-list", "--all", "--objects"]).stdout
        prefixes = (f" {target.paths()[0]}", f" {target.paths()[1]}")
        found = found or any(ln[40:].startswith(prefixes) for ln in listed.splitlines())
    (failed if found else checks).append("git cat-file --batch-all-objects --batch")
    index = search_index.index_path(root)
    (failed if index.exists() else checks).append("search index")
    if failed:
        raise EraseError(
            f"erase incomplete: still found by {', '.join(failed)}",
            hint="another ref, a worktree or an alternate object store may hold it; inspect with "
            "git for-each-ref and git worktree list, then run agentmem erase again",
        )
    return checks


def _commit_holds(root: Path, sha: str, target: EraseTarget) -> bool:
    if target.text:
        in_tree = (
            gitio.run_git(
                root, ["grep", "-q", "-F", "-e", target.text, sha], check=False
            ).returncode
            == 0
        )
        message = gitio.run_git(root, ["log", "-1", "--format=%B", sha]).stdout
        return in_tree or target.text in message
    return bool(
        gitio.run_git(
            root, ["ls-tree", "-r", "--name-only", sha, "--", *target.paths()]
        ).stdout.strip()
    )


def _untracked_holding(root: Path, target: EraseTarget) -> list[str]:
    if not target.text:
        return []
    proc = gitio.run_git(
        root, ["grep", "-l", "-z", "-F", "--untracked", "-e", target.text], check=False
    )
    return [p for p in proc.stdout.split("\0") if p]


def _steps(root: Path, target: EraseTarget, first_changed: list[str]) -> list[str]:
    remotes = gitio.run_git(root, ["remote"]).stdout.split()
    commits = ", ".join(c[:12] for c in first_changed) or "see git log"
    steps = []
    for remote in remotes:
        steps.append(
            f"replace the history on {remote} (agentmem sync never force-pushes): "
            f"git push --force {remote} 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'"
        )
    if remotes:
        _write_marker(root, remotes, first_changed)
    steps += [
        "ask the hosting service to purge cached views and references to the old commits "
        f"(pull-request refs, forks, caches); first changed commit(s): {commits}. On a bare "
        "repository you host yourself, run there: git reflog expire --expire=now --all && "
        "git gc --prune=now",
        "every other clone must be deleted and cloned again: a pull or merge would bring the data "
        "back (agentmem sync refuses to replay the old history)",
        "backups, CI caches and transcripts outside the repository are not touched by agentmem",
    ]
    if target.person:
        steps.append(
            f"if {target.person} leaves the team, remove them from roles.yaml (their name "
            "and e-mail stay in the authorship of their commits)"
        )
    return steps


def _write_marker(root: Path, remotes: list[str], first_changed: list[str]) -> None:
    marker = gitio.git_dir(root) / ERASE_MARKER
    record = {"remotes": remotes, "first_changed": first_changed}
    atomic_write(marker, json.dumps(record, indent=1) + "\n")
