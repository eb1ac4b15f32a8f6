"""``agentmem sync`` (docs/design/sync.md §Sync): fetch, replay local commits onto the remote head, push.

Under the repository lock (the caller holds :meth:`Repository.locked`):

1. fetch the branch's remote head (``branch.<b>.remote``/``merge``, else ``origin`` and the same
   branch name);
2. if both sides moved, replay every local commit onto the remote head, one new commit each,
   keeping its author, date, message and trailers (signed again when it was signed). Each
   changed file is merged with :func:`agentmem.sync.merge.merge_file`; a real conflict raises
   :class:`SyncPausedError` — "sync paused" — and nothing local or remote changes;
3. before anything moves, check what would be published (:mod:`agentmem.sync.gate`): the
   commits ``remote head..result`` against their NEW parents with ``check --history``'s rules
   (an approval replayed onto a ``roles.yaml`` that demoted its author), and the memory files
   they change with the check's memory-file code (two entries merged over the budget). An
   error raises :class:`~agentmem.sync.gate.SyncRefusedError`: nothing pushed, the local
   branch untouched;
4. push the result without force; a rejected push (someone pushed meanwhile) starts again from
   1, up to ``attempts`` times, always from the local commits as they were, after a pause of
   exponential back-off with full jitter (:func:`backoff`: a random time up to
   ``BACKOFF_BASE_S`` × 2^(n-1), at most ``BACKOFF_CAP_S``), so that clones racing for one
   remote spread out instead of colliding again;
5. once pushed, move the local branch to the result (``read-tree -m -u`` then ``update-ref``
   with the old value: the person's staged and unstaged work on other files is kept; a file
   they changed that the sync must update stops the sync before the push — a dry run).

Never force-pushes. Refuses while an ``agentmem erase`` here waits for its forced push (the
remote still on the old history), and when the remote was rewritten by an erase that this clone
predates (re-clone then). Once the remote holds the rewrite, commits colleagues pushed on it
are fetched and this clone's replayed on top, as in any sync.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentmem import trailers as tr
from agentmem.check.findings import Finding
from agentmem.errors import AgentmemError, GitError
from agentmem.store import gitio
from agentmem.store.repo import Repository
from agentmem.sync.gate import verify
from agentmem.sync.merge import MergeConflict, merge_file

ATTEMPTS = 32
BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 8.0
RETRYABLE = (
    "fetch first",
    "non-fast-forward",
    "stale info",
    "failed to update ref",
    "cannot lock ref",
)
ERASE_MARKER = "agentmem/erased.json"


class SyncError(AgentmemError):
    """Sync cannot proceed (no remote, a rejected push after the retries, local changes…)."""


class SyncPausedError(SyncError):
    """A real conflict: local commits are kept, the remote is untouched."""


@dataclass(frozen=True)
class SyncResult:
    """What sync did. ``outcome``: up-to-date | pushed | pulled | replayed; ``replayed`` local
    commits rewritten onto the remote head, ``pulled`` remote commits brought in, ``head`` the
    branch's commit on both sides afterwards, ``attempts`` pushes tried, ``warnings`` the
    check's warnings on what was pushed (e.g. a memory file at 80 % of its budget)."""

    remote: str
    branch: str
    outcome: str
    replayed: int
    pulled: int
    head: str | None
    attempts: int
    warnings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class _Plan:
    """The candidate ``head``, commits ``replayed`` and ``pulled``, and ``origin``: each replayed
    commit's local original (a commit absent from it is its own original)."""

    head: str
    replayed: int = 0
    pulled: int = 0
    origin: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Target:
    remote: str
    branch: str  # local branch name
    remote_branch: str  # branch name on the remote

    @property
    def tracking(self) -> str:
        return f"refs/remotes/{self.remote}/{self.remote_branch}"


def backoff(rejected: int, rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait after the ``rejected``-th rejected push: full jitter over an exponential
    window (``BACKOFF_BASE_S`` × 2^(rejected-1), capped at ``BACKOFF_CAP_S``)."""
    window = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** (rejected - 1))
    return float(window * rand())


def sync(
    repo: Repository,
    remote: str | None = None,
    attempts: int = ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> SyncResult:
    """Run the sync loop (module docstring). Raises :class:`SyncPausedError`,
    :class:`~agentmem.sync.gate.SyncRefusedError`, :class:`SyncError` or :class:`GitError`."""
    root = repo.root
    target = _target(root, remote)
    _refuse_if_erase_unpushed(root, target)
    local = gitio.head(root)
    if local is None:
        raise SyncError("this branch has no commit yet", hint="run agentmem init first")
    for attempt in range(1, attempts + 1):
        remote_head = _fetch(root, target)
        plan = _integrate(root, target, local, remote_head)
        if plan.head == remote_head:
            if plan.head != local:
                _move_branch(root, local, plan.head)
            outcome = "pulled" if plan.pulled else "up-to-date"
            return SyncResult(
                target.remote, target.branch, outcome, 0, plan.pulled, plan.head, attempt - 1
            )
        warnings = verify(
            root, f"{target.remote}/{target.remote_branch}", remote_head, plan.head, plan.origin
        )
        if plan.head != local:
            _move_branch(root, local, plan.head, dry_run=True)
        if _push(root, target, plan.head):
            gitio.run_git(root, ["update-ref", target.tracking, plan.head])
            if plan.head != local:
                _move_branch(root, local, plan.head, pushed=True)
            outcome = "replayed" if plan.replayed else "pushed"
            done = (outcome, plan.replayed, plan.pulled, plan.head, attempt, tuple(warnings))
            return SyncResult(target.remote, target.branch, *done)
        if attempt < attempts:
            sleep(backoff(attempt))
    raise SyncError(
        f"{target.remote} rejected the push {attempts} times: others keep pushing meanwhile",
        hint="run agentmem sync again in a moment; your commits are kept locally",
    )


# -- where to ---------------------------------------------------------------------------------
def _config(root: Path, key: str) -> str | None:
    proc = gitio.run_git(root, ["config", "--get", key], check=False)
    return proc.stdout.strip() or None


def _target(root: Path, remote: str | None) -> _Target:
    proc = gitio.run_git(root, ["symbolic-ref", "-q", "--short", "HEAD"], check=False)
    branch = proc.stdout.strip()
    if not branch:
        raise SyncError("HEAD is detached", hint="check out a branch first (git switch main)")
    name = remote or _config(root, f"branch.{branch}.remote") or "origin"
    if gitio.run_git(root, ["remote", "get-url", name], check=False).returncode != 0:
        raise SyncError(
            f"no remote named '{name}'",
            hint=f"add one: git remote add {name} URL (or pass --remote NAME)",
        )
    merge = _config(root, f"branch.{branch}.merge") if not remote else None
    remote_branch = merge.removeprefix("refs/heads/") if merge else branch
    return _Target(name, branch, remote_branch)


def _fetch(root: Path, target: _Target) -> str | None:
    """Fetch the remote branch into its tracking ref; None when the remote has no such branch."""
    refspec = f"+refs/heads/{target.remote_branch}:{target.tracking}"
    proc = gitio.run_git(
        root, ["fetch", "--quiet", "--no-tags", target.remote, refspec], check=False
    )
    if proc.returncode != 0:
        if "couldn't find remote ref" in proc.stderr:
            return None
        said = (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise GitError(
            f"git fetch {target.remote} failed: {said}",
            hint="check the remote's address and your access, then retry",
        )
    return gitio.run_git(root, ["rev-parse", target.tracking]).stdout.strip()


def _push(root: Path, target: _Target, head: str) -> bool:
    """Push ``head`` without force. True when pushed, False when rejected by a race."""
    refspec = f"{head}:refs/heads/{target.remote_branch}"
    proc = gitio.run_git(root, ["push", "--porcelain", target.remote, refspec], check=False)
    if proc.returncode == 0:
        return True
    said = proc.stdout + proc.stderr
    if any(reason in said for reason in RETRYABLE):
        return False
    last = (
        [ln for ln in said.splitlines() if ln.startswith("!")] or said.strip().splitlines() or ["?"]
    )
    raise SyncError(
        f"{target.remote} refused the push: {last[-1].strip()}",
        hint="your commits are kept locally; fix the cause (access, protected branch, hook), "
        "then run agentmem sync again",
    )


# -- integrate --------------------------------------------------------------------------------
def _integrate(root: Path, target: _Target, local: str, remote: str | None) -> _Plan:
    """What this branch would become on top of ``remote`` (see :class:`_Plan`)."""
    if remote is None or remote == local:
        return _Plan(local)
    base = _merge_base(root, local, remote)
    if base is None:
        raise SyncError(
            f"this branch and {target.remote}/{target.remote_branch} share no history",
            hint="if the remote was rewritten by agentmem erase, re-clone it; otherwise check "
            "that --remote names the right repository",
        )
    pulled = _count(root, f"{base}..{remote}")
    if base == remote:
        return _Plan(local)  # only local commits: a plain push
    if base == local:
        return _Plan(remote, pulled=pulled)  # only remote commits: fast-forward
    _refuse_if_remote_erased(root, target, base, remote)
    mine = gitio.run_git(
        root, ["rev-list", "--reverse", "--topo-order", f"{base}..{local}"]
    ).stdout.split()
    if gitio.run_git(root, ["rev-list", "--merges", f"{base}..{local}"]).stdout.strip():
        raise SyncError(
            "a local merge commit: sync replays straight histories only",
            hint=f"integrate by hand (git pull --rebase {target.remote} {target.remote_branch}), then push",
        )
    tip = remote
    origin: dict[str, str] = {}
    for commit in mine:
        new = _replay(root, target, commit, tip)
        if new != tip:
            origin[new] = commit
        tip = new
    return _Plan(tip, len(origin), pulled, origin)


def _merge_base(root: Path, a: str, b: str) -> str | None:
    proc = gitio.run_git(root, ["merge-base", a, b], check=False)
    return proc.stdout.strip() or None


def _count(root: Path, spec: str) -> int:
    return int(gitio.run_git(root, ["rev-list", "--count", spec]).stdout.strip())


def _replay(root: Path, target: _Target, commit: str, tip: str) -> str:
    """One local commit re-made on top of ``tip``; ``tip`` itself when it brings nothing new."""
    parent = f"{commit}^"
    raw = gitio.run_git_bytes(
        root, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", parent, commit]
    )
    paths = [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]
    at_parent, in_commit, at_tip = (_entries(root, rev, paths) for rev in (parent, commit, tip))
    updates: list[tuple[str, tuple[str, str] | None]] = []
    for path in paths:
        try:  # ours: the remote side (published); theirs: this local commit
            merged = merge_file(
                path,
                _blob(root, at_parent.get(path)),
                _blob(root, at_tip.get(path)),
                _blob(root, in_commit.get(path)),
            )
        except MergeConflict as exc:
            raise _paused(root, target, commit, exc) from None
        entry = None if merged is None else (_mode(path, in_commit, at_tip), _hash(root, merged))
        if entry != at_tip.get(path):
            updates.append((path, entry))
    if not updates:
        return tip
    tree = gitio.tree_with(root, tip, updates)
    return gitio.commit_like(root, commit, tree, [tip])


def _entries(root: Path, rev: str, paths: list[str]) -> dict[str, tuple[str, str]]:
    """``{path: (mode, blob sha)}`` at ``rev`` for the given paths (absent paths are left out)."""
    if not paths:
        return {}
    out = gitio.run_git_bytes(root, ["ls-tree", "-z", rev, "--", *paths])
    found: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _tab, name = record.partition(b"\t")
        mode, _type, sha = meta.decode().split(" ")
        found[name.decode("utf-8", "surrogateescape")] = (mode, sha)
    return found


def _blob(root: Path, entry: tuple[str, str] | None) -> bytes | None:
    return None if entry is None else gitio.run_git_bytes(root, ["cat-file", "blob", entry[1]])


def _hash(root: Path, data: bytes) -> str:
    return (
        gitio.run_git_bytes(root, ["hash-object", "-w", "--stdin"], input_bytes=data)
        .decode()
        .strip()
    )


def _mode(path: str, mine: dict[str, tuple[str, str]], theirs: dict[str, tuple[str, str]]) -> str:
    return (mine.get(path) or theirs.get(path) or ("100644", ""))[0]


def _paused(root: Path, target: _Target, commit: str, exc: MergeConflict) -> SyncPausedError:
    subject = gitio.run_git(root, ["log", "-1", "--format=%h %s", commit]).stdout.strip()
    where = f"{target.remote}/{target.remote_branch}"
    return SyncPausedError(
        f"sync paused: {exc.path}: {exc.reason} (here: {subject}; and on {where}). "
        "Your local commits are kept; nothing was pushed",
        hint=f"see both sides with: git log -p {where} -- {exc.path}; then redo your change on "
        f"top of theirs (git rebase {where}, resolve, git rebase --continue) and run agentmem sync",
    )


def _move_branch(
    root: Path, old: str, new: str, *, dry_run: bool = False, pushed: bool = False
) -> None:
    """Local branch ``old`` → ``new``, updating only the files that differ; other work is kept.
    ``dry_run``: only find out whether the person's uncommitted changes are in the way."""
    args = ["read-tree", "-m", "-u", *(["-n"] if dry_run else []), old, new]
    proc = gitio.run_git(root, args, check=False)
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["?"])[-1].removeprefix("error: ")
        if pushed:
            raise SyncError(
                f"pushed, but this clone could not be updated: your uncommitted changes are in "
                f"the way: {said}",
                hint="commit or set those changes aside, then run agentmem sync again to bring "
                "the pushed commits in",
            )
        raise SyncError(
            f"your uncommitted changes are in the way: {said}",
            hint="commit or set those changes aside, then run agentmem sync again (nothing was pushed)",
        )
    if not dry_run:
        gitio.run_git(root, ["update-ref", "-m", "agentmem: sync", "HEAD", new, old])


# -- after an erase ---------------------------------------------------------------------------
def _refuse_if_erase_unpushed(root: Path, target: _Target) -> None:
    """An erase here rewrote history: fetching the old remote history would bring the data back.

    The remote's branch is looked at first in a scratch repository (``.git/agentmem/probe-*``,
    borrowing this clone's objects, deleted after), so nothing of it enters this clone's
    objects until it is known to be the rewritten history: a tip that descends from none of
    the old commits the erase lists (its marker) is the rewrite, with what colleagues pushed on
    it since — the marker goes, and the sync replays this clone's commits on top of theirs.
    A remote still on the old history is refused; the hint says to force-push only when that
    discards nobody's work (its tip is the one this clone knew before the erase)."""
    marker = gitio.git_dir(root) / ERASE_MARKER
    if not marker.exists():
        return
    ref = f"refs/heads/{target.remote_branch}"
    listed = gitio.run_git(root, ["ls-remote", target.remote, ref], check=False).stdout.split()
    remote_sha = listed[0] if listed else None
    if remote_sha is None or _is_ancestor(root, remote_sha, "HEAD"):  # empty, or rewritten already
        marker.unlink()
        return
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    old_commits = [str(c) for c in record.get("first_changed") or []]
    known = (record.get("tips") or {}).get(target.remote, {}).get(ref)
    pushed_on_old: list[str] = []
    if remote_sha != known:
        on_old, pushed_on_old = _probe(root, target.remote, ref, old_commits, known)
        if old_commits and not on_old:
            marker.unlink()  # the rewrite, and colleagues' commits on it: a sync as usual
            return
    if pushed_on_old:
        shown = ", ".join(c[:10] for c in pushed_on_old[:5])
        more = f" and {len(pushed_on_old) - 5} more" if len(pushed_on_old) > 5 else ""
        raise SyncError(
            f"agentmem erase rewrote this repository's history; {target.remote} still holds the "
            f"old history, and {len(pushed_on_old)} commit(s) were pushed on it since the "
            f"erase ({shown}{more}): a forced push would discard them",
            hint="ask their authors to save their changes, delete their clone and clone again "
            f"after the rewrite is pushed; then push it (git push --force-with-lease={ref}:"
            f"{remote_sha} {target.remote} 'refs/heads/*' 'refs/tags/*') and run agentmem sync",
        )
    raise SyncError(
        f"agentmem erase rewrote this repository's history; {target.remote} still holds the old "
        "history, and fetching it would bring the erased data back",
        hint=f"push the rewrite first, as erase explained: git push --force {target.remote} "
        f"'refs/heads/*' 'refs/tags/*'; then run agentmem sync",
    )


def _probe(
    root: Path, remote: str, ref: str, old_commits: list[str], known: str | None
) -> tuple[bool, list[str]]:
    """``(on the old history, commits pushed on it since the erase)`` for the remote's ``ref``,
    fetched into a scratch repository that borrows this clone's objects (never into them)."""
    gdir = gitio.git_dir(root)
    (gdir / "agentmem").mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="probe-", dir=gdir / "agentmem"))
    try:
        gitio.run_git(scratch, ["init", "-q", "--bare", str(scratch)])
        (scratch / "objects" / "info" / "alternates").write_text(
            str((gdir / "objects").resolve()) + "\n", encoding="utf-8"
        )
        url = gitio.run_git(root, ["remote", "get-url", remote], check=False).stdout.strip()
        fetched = gitio.run_git(
            scratch, ["fetch", "-q", "--no-tags", url or remote, f"+{ref}:refs/probe"], check=False
        )
        if fetched.returncode != 0:
            return True, []  # cannot tell: refuse as before
        on_old = any(_is_ancestor(scratch, c, "refs/probe") for c in old_commits)
        if not on_old or known is None or not _is_ancestor(scratch, known, "refs/probe"):
            return on_old, []
        since = gitio.run_git(
            scratch, ["rev-list", "--reverse", f"{known}..refs/probe"], check=False
        ).stdout.split()
        return on_old, since
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _is_ancestor(root: Path, commit: str, of: str) -> bool:
    if gitio.run_git(root, ["cat-file", "-e", f"{commit}^{{commit}}"], check=False).returncode != 0:
        return False
    return (
        gitio.run_git(root, ["merge-base", "--is-ancestor", commit, of], check=False).returncode
        == 0
    )


def _refuse_if_remote_erased(root: Path, target: _Target, base: str, remote: str) -> None:
    log = gitio.run_git(
        root, ["log", f"--format=%h {tr.log_format(tr.ACTION)}", f"{base}..{remote}"]
    ).stdout
    erased = [ln.split()[0] for ln in log.splitlines() if ln.strip().endswith(" erase")]
    if erased:
        raise SyncError(
            f"{target.remote} was rewritten by agentmem erase (commit {erased[0]}); this clone still "
            "holds the old history, which replaying would publish again",
            hint="set aside what you have not pushed, delete this clone and clone the repository again",
        )
