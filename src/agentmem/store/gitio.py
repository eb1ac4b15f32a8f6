"""The git adapter: every git call of agentmem goes through here (the process itself is started
by :mod:`agentmem.store.gitrun`, which the hot path uses alone for the identity).

It drives the git binary (fast to start, signs commits, reads trailers), returns plain values and
turns git's failures into :class:`GitError` with advice. A commit is written by ONE
``git fast-import`` whose ``from`` is the expected old HEAD (git refuses to move the branch
unless the new commit descends from where it is now: a compare-and-swap), so a person's own
staged changes never leak into an agentmem commit and the cost does not grow with the number of
files in the repository (docs/design/write-path.md §Write path). Signed commits, and the first commit of a
repository, take the private-index path (``read-tree``, ``commit-tree -S``, ``update-ref``).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem import trailers as trailer_names
from agentmem.errors import GitError
from agentmem.store import gitrun
from agentmem.store.gitrun import user_email as user_email

if TYPE_CHECKING:
    from agentmem.store.root import StrPath


def _run(
    root: StrPath,
    args: Sequence[str],
    payload: str | bytes | None,
    env: dict[str, str] | None,
    text: bool,
) -> subprocess.CompletedProcess[Any]:
    """The one place git is started (:func:`agentmem.store.gitrun.run`)."""
    return gitrun.run(root, args, payload, env, text)


def _failed(args: Sequence[str], proc: subprocess.CompletedProcess[Any]) -> GitError:
    output = proc.stderr or proc.stdout
    if isinstance(output, bytes):
        output = output.decode("utf-8", "replace")
    message = output.strip().splitlines()
    return GitError(f"git {args[0]} failed: {message[-1] if message else proc.returncode}")


def run_git(
    root: StrPath,
    args: Sequence[str],
    *,
    input_text: str | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run ``git -C root args…``; raises :class:`GitError` with git's message on failure."""
    proc = _run(root, args, input_text, env, text=True)
    if check and proc.returncode != 0:
        raise _failed(args, proc)
    return proc


def run_git_bytes(
    root: StrPath, args: Sequence[str], *, input_bytes: bytes | None = None, check: bool = True
) -> bytes:
    """Like :func:`run_git` for binary output (``cat-file --batch``, exact blob bytes)."""
    proc = _run(root, args, input_bytes, None, text=False)
    if check and proc.returncode != 0:
        raise _failed(args, proc)
    out: bytes = proc.stdout
    return out


def is_work_tree(path: Path) -> bool:
    """True when ``path`` is inside a git work tree."""
    proc = run_git(path, ["rev-parse", "--is-inside-work-tree"], check=False)
    return proc.returncode == 0 and proc.stdout.strip() == "true"


def is_tracked(root: Path, relpath: str) -> bool:
    """True when ``relpath`` is in git's index (committed or staged)."""
    proc = run_git(root, ["ls-files", "--error-unmatch", "--", relpath], check=False)
    return proc.returncode == 0


def init(path: Path) -> None:
    """``git init`` with ``main`` as the first branch."""
    run_git(path, ["init", "-q", "-b", "main"])


_GIT_DIRS: dict[str, Path] = {}


def git_dir(root: Path) -> Path:
    """The absolute git directory of ``root`` (asked of git once per process and root)."""
    known = _GIT_DIRS.get(str(root))
    if known is not None and (known / "HEAD").is_file():
        return known
    out = Path(run_git(root, ["rev-parse", "--absolute-git-dir"]).stdout.strip())
    _GIT_DIRS[str(root)] = out
    return out


_UNDECIDED = "?"


def _head_file(gdir: Path) -> str:
    """What ``gdir/HEAD`` says without starting git: ``refs/heads/…`` (the branch), ``""``
    (detached), or :data:`_UNDECIDED` (another ref backend, a linked worktree, unreadable)."""
    if (gdir / "commondir").exists():
        return _UNDECIDED  # a linked worktree: its refs live in the common directory
    try:
        text = (gdir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return _UNDECIDED
    if text.startswith("ref: refs/heads/") and text != "ref: refs/heads/.invalid":
        return text[5:]
    if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text):
        return ""
    return _UNDECIDED


def branch(root: Path) -> str | None:
    """The branch ref HEAD names (``refs/heads/main``), or None when HEAD is detached. Read
    from the HEAD file; git is asked only when the file cannot tell (reftable, worktrees)."""
    said = _head_file(git_dir(root))
    if said != _UNDECIDED:
        return said or None
    proc = run_git(root, ["symbolic-ref", "-q", "HEAD"], check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def head(root: Path) -> str | None:
    """The commit HEAD points at, or None on an unborn branch. Read from the branch's loose ref
    file when there is one (git writes one on every commit; a loose ref wins over
    ``packed-refs``), else asked of git."""
    gdir = git_dir(root)
    ref = _head_file(gdir)
    if ref not in ("", _UNDECIDED):
        try:
            text = (gdir / ref).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            text = ""
        if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text):
            return text
    proc = run_git(root, ["rev-parse", "-q", "--verify", "HEAD^{commit}"], check=False)
    return proc.stdout.strip() or None


def identity(root: Path) -> tuple[str, str]:
    """``(name, email)`` of whoever runs the command (``user.name``/``user.email``)."""
    email = user_email(root)
    name = run_git(root, ["config", "user.name"], check=False).stdout.strip()
    return name or email.split("@")[0], email


INDEX_LOCK_WAIT_SECONDS = 2.0


def check_state(root: Path) -> None:
    """Refuse to write while git is mid-operation (nothing is left half-done,
    docs/design/write-path.md §Write path).

    Raises :class:`GitError` naming an interrupted rebase/merge/cherry-pick/revert/bisect, a
    detached HEAD, or a stale ``index.lock`` (one still there after
    ``INDEX_LOCK_WAIT_SECONDS``: a running git command holds it only for a moment), each with
    what to do.
    """
    gdir = git_dir(root)
    for marker, what, how in (
        ("rebase-merge", "a rebase", "git rebase --continue or git rebase --abort"),
        ("rebase-apply", "a rebase or am", "git rebase --continue/--abort (or git am --abort)"),
        ("MERGE_HEAD", "a merge", "commit the merge or run git merge --abort"),
        ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"),
        ("REVERT_HEAD", "a revert", "git revert --continue or --abort"),
        ("BISECT_LOG", "a bisect", "git bisect reset"),
    ):
        if (gdir / marker).exists():
            raise GitError(
                f"{what} is in progress in this repository; agentmem writes nothing until it ends",
                hint=f"finish or abort it first ({how})",
            )
    lock = gdir / "index.lock"
    deadline = time.monotonic() + INDEX_LOCK_WAIT_SECONDS
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if lock.exists():
        raise GitError(
            f"{lock} exists: another git process is running, or one crashed and left it",
            hint="if no git command is running in this repository, remove that file and retry",
        )
    if branch(root) is None:
        raise GitError(
            "HEAD is detached: agentmem commits only on a branch",
            hint="check out a branch first (git switch main)",
        )


def commit_paths(
    root: Path,
    paths: Sequence[str],
    message: str,
    *,
    sign: bool = False,
    expected_head: str | None = None,
    on_published: Callable[[str], None] | None = None,
) -> str:
    """Commit the work-tree state of ``paths`` (relative, added or deleted) and nothing else.

    ``paths`` are taken as they are in the work tree (a missing file is a deletion) on top of
    ``expected_head`` (default: HEAD now) and the branch moves only if it is still there. Four
    git processes at most, whatever the repository's size: ``git var`` (who and when, as
    ``commit-tree`` would take them), one ``fast-import`` (blobs, trees, commit, branch update),
    then ``update-index`` of ``paths`` alone in the real index, so other staged work stays
    staged. ``on_published(sha)`` runs right after the branch moved (the writer's crash-test
    hook). Returns the new commit id. Raises :class:`GitError` (e.g. HEAD moved meanwhile).
    """
    parent = head(root) if expected_head is None else expected_head
    ref = branch(root)
    if sign or not parent or ref is None:
        new = _commit_on_private_index(root, paths, message, parent, sign)
    else:
        new = _fast_import(root, ref, paths, message, parent)
    if on_published is not None:
        on_published(new)
    # Bring the real index in line for these paths only (others keep their staged state).
    if paths:  # the work tree holds exactly what was committed for them
        run_git(root, ["update-index", "--add", "--remove", "--", *paths], check=False)
    return new


def _moved() -> GitError:
    return GitError(
        "HEAD moved while agentmem was committing (another commit landed first); "
        "nothing was committed",
        hint="run the command again",
    )


def _idents(root: Path) -> tuple[str, str]:
    """(author, committer) as ``commit-tree`` would stamp a commit now (``Name <email> seconds
    +zone``, the environment's ``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` included): one ``git var -l``.
    """
    found: dict[str, str] = {}
    for line in run_git(root, ["var", "-l"]).stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
            found[key] = value
    if len(found) != 2:
        raise GitError(
            "git does not know who you are (no author or committer identity)",
            hint='git config user.name "Your Name" && git config user.email "you@example.com"',
        )
    return found["GIT_AUTHOR_IDENT"], found["GIT_COMMITTER_IDENT"]


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def _fast_import(root: Path, ref: str, paths: Sequence[str], message: str, parent: str) -> str:
    author, committer = _idents(root)
    stream = _header(ref, 1, author, committer, message, parent.encode())
    for path in paths:
        target = root / path
        if not os.path.lexists(target):
            stream.append(b"D " + path.encode("utf-8") + b"\n")
            continue
        mode = b"100755" if os.stat(target).st_mode & 0o100 else b"100644"
        with open(target, "rb") as fh:
            stream.append(b"M " + mode + b" inline " + path.encode("utf-8") + b"\n")
            stream.append(_data(fh.read()))
    stream.append(b"\nget-mark :1\ndone\n")
    return _import(root, stream)[-1]


def _header(
    ref: str, mark: int, author: str, committer: str, message: str, parent: bytes
) -> list[bytes]:
    """The lines that open one commit of a ``fast-import`` stream (``parent``: a commit id or
    ``:mark``)."""
    return [
        b"commit " + ref.encode() + b"\nmark :%d\n" % mark,
        b"author " + author.encode("utf-8") + b"\n",
        b"committer " + committer.encode("utf-8") + b"\n",
        _data(message.encode("utf-8")),
        b"from " + parent + b"\n",
    ]


def _import(root: Path, stream: list[bytes]) -> list[str]:
    """Run ``git fast-import`` on ``stream``; what it printed (the marks asked for), by line.
    Raises GitError: HEAD moved meanwhile (nothing landed), or git failed."""
    proc = _run(root, ["fast-import", "--quiet", "--done"], b"".join(stream), None, text=False)
    said = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        if "not updating" in said or "does not contain" in said:
            raise _moved()
        raise _failed(["fast-import"], proc)
    printed: list[str] = proc.stdout.decode("ascii", "replace").split()
    return printed


def commit_series(
    root: Path,
    steps: Sequence[tuple[str, Sequence[tuple[str, bytes | None]]]],
    *,
    expected_head: str,
    on_published: Callable[[str], None] | None = None,
) -> list[str]:
    """Commit ``steps`` as that many commits, each on the one before, the first on
    ``expected_head``: a step is ``(message, [(path, bytes or None for a deletion)])``, the
    state of those paths after it (every other path as its parent has it). ONE ``git var`` and
    ONE ``fast-import`` for them all — a series of 161 commits is one process, not 161 — and the
    branch moves once, to the last, only if it is still at ``expected_head`` (the same
    compare-and-swap as :func:`commit_paths`): all land or none. Then ONE ``update-index`` of
    every path (the work tree must hold the last step's state of each). Unsigned commits on a
    branch only (a signed decision is :func:`commit_paths`, one at a time). Returns the new
    commit ids in order. Raises :class:`GitError` (HEAD moved meanwhile: nothing landed)."""
    ref = branch(root)
    if ref is None or not steps:
        raise GitError("agentmem commits a series only on a branch, and only of something")
    author, committer = _idents(root)
    stream: list[bytes] = []
    touched: dict[str, None] = {}
    for n, (message, files) in enumerate(steps, start=1):
        parent = expected_head.encode() if n == 1 else b":%d" % (n - 1)
        stream += _header(ref, n, author, committer, message, parent)
        for path, data in files:
            touched[path] = None
            if data is None:
                stream.append(b"D " + path.encode("utf-8") + b"\n")
                continue
            mode = b"100644"
            target = root / path
            if os.path.lexists(target) and os.stat(target).st_mode & 0o100:
                mode = b"100755"
            stream.append(b"M " + mode + b" inline " + path.encode("utf-8") + b"\n")
            stream.append(_data(data))
        stream.append(b"\n")
    stream += [b"get-mark :%d\n" % n for n in range(1, len(steps) + 1)]
    stream.append(b"done\n")
    made = _import(root, stream)[-len(steps) :]
    if on_published is not None:
        on_published(made[-1])
    run_git(root, ["update-index", "--add", "--remove", "--", *touched], check=False)
    return made


def _commit_on_private_index(
    root: Path, paths: Sequence[str], message: str, parent: str | None, sign: bool
) -> str:
    """``read-tree`` into a private index, ``update-index``, ``write-tree``, ``commit-tree``
    (``-S`` when ``sign``), ``update-ref HEAD new old``: signed commits and a first commit."""
    gdir = git_dir(root)
    with tempfile.NamedTemporaryFile(prefix="agentmem-index-", dir=gdir, delete=False) as tmp:
        index_path = tmp.name
    os.unlink(index_path)
    env = {"GIT_INDEX_FILE": index_path}
    try:
        if parent:
            run_git(root, ["read-tree", parent], env=env)
        run_git(root, ["update-index", "--add", "--remove", "--", *paths], env=env)
        tree = run_git(root, ["write-tree"], env=env).stdout.strip()
        args = ["commit-tree", tree]
        if parent:
            args += ["-p", parent]
        if sign:
            args.append("-S")
        new = run_git(root, [*args, "-F", "-"], input_text=message).stdout.strip()
        proc = run_git(
            root,
            ["update-ref", "-m", "agentmem: commit", "HEAD", new, parent or "0" * 40],
            check=False,
        )
        if proc.returncode != 0:
            said = (proc.stderr.strip().splitlines() or ["?"])[-1]
            if "expected" in said or "is at" in said:
                raise _moved()
            raise GitError(f"git update-ref failed: {said}; nothing was committed")
    finally:
        if os.path.exists(index_path):
            os.unlink(index_path)
    return new


def tree_with(root: Path, base: str, updates: Sequence[tuple[str, tuple[str, str] | None]]) -> str:
    """The tree of commit ``base`` with ``updates`` applied — ``(path, (mode, blob id))`` sets a
    path, ``(path, None)`` removes it — written on a private index; returns the tree id."""
    fd, index = tempfile.mkstemp(prefix="agentmem-index-", dir=git_dir(root))
    os.close(fd)
    os.unlink(index)
    env = {"GIT_INDEX_FILE": index}
    try:
        run_git(root, ["read-tree", base], env=env)
        lines = "".join(
            f"{entry[0]} {entry[1]}\t{path}\0" if entry else f"0 {'0' * 40}\t{path}\0"
            for path, entry in updates
        )
        run_git(root, ["update-index", "-z", "--index-info"], input_text=lines, env=env)
        return run_git(root, ["write-tree"], env=env).stdout.strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)


def commit_like(
    root: Path,
    original: str,
    tree: str,
    parents: Sequence[str] | None = None,
    *,
    sign: bool | None = None,
) -> str:
    """A commit of ``tree`` with ``original``'s author, date and exact message, on ``parents``
    (default: ``original``'s own), signed when ``original`` was (``sign``: True or False says
    so instead); returns its id (no ref moves)."""
    raw = run_git(root, ["cat-file", "commit", original]).stdout
    header, _sep, message = raw.partition("\n\n")
    lines = header.splitlines()
    if parents is None:
        parents = [ln.split()[1] for ln in lines if ln.startswith("parent ")]
    author = next(ln for ln in lines if ln.startswith("author "))[len("author ") :]
    name, _lt, rest = author.partition(" <")
    email, _gt, when = rest.partition("> ")
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": when}
    args = ["commit-tree", tree, *[x for p in parents for x in ("-p", p)]]
    if sign if sign is not None else any(ln.startswith("gpgsig") for ln in lines):
        args.append("-S")
    return run_git(root, [*args, "-F", "-"], input_text=message, env=env).stdout.strip()


@dataclass
class CommitInfo:
    """One commit as the audit log shows it; ``trailers`` holds only ``Agentmem-*`` keys (the
    last value of a repeated key), ``trailer_values`` every value of each key, in order."""

    sha: str
    author_name: str
    author_email: str
    date: str  # ISO 8601 strict
    subject: str
    trailers: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    trailer_values: dict[str, list[str]] = field(default_factory=dict)


_SEP = "\x1e"
_FIELD = "\x1f"


def log(
    root: Path, paths: Sequence[str] = (), *, max_count: int | None = None, rev: str = "HEAD"
) -> list[CommitInfo]:
    """Commits touching ``paths`` (all when empty), newest first, read in ONE git process."""
    if head(root) is None:
        return []
    fmt = _SEP + _FIELD.join(["%H", "%an", "%ae", "%aI", "%s", "%(trailers:only,unfold)"]) + _FIELD
    args = ["log", f"--format={fmt}", "--name-only", rev]
    if max_count:
        args.insert(1, f"-n{max_count}")
    out = run_git(root, [*args, "--", *paths]).stdout
    commits: list[CommitInfo] = []
    for record in out.split(_SEP)[1:]:
        sha, name, email, date, subject, trailer_text, files = record.split(_FIELD)
        values = trailer_names.parse(trailer_text)
        trailers = {key: found[-1] for key, found in values.items()}
        paths_changed = [p for p in files.splitlines() if p.strip()]
        commits.append(CommitInfo(sha, name, email, date, subject, trailers, paths_changed, values))
    return commits


def blame_commits(root: Path, path: str, rev: str = "HEAD") -> list[str]:
    """For each line of ``path`` at ``rev`` (default ``HEAD``), the id of the commit that last
    set it (``git blame``)."""
    if head(root) is None:
        return []
    proc = run_git(root, ["blame", "--porcelain", rev, "--", path], check=False)
    if proc.returncode != 0:
        return []
    shas: list[str] = []
    for ln in proc.stdout.splitlines():
        parts = ln.split(" ")
        if len(parts) >= 3 and len(parts[0]) == 40 and not ln.startswith("\t"):
            try:
                int(parts[2])
            except ValueError:
                continue
            shas.append(parts[0])
    return shas


@dataclass(frozen=True)
class LastChange:
    """The newest commit reachable from HEAD that changed one path: its id, its author's e-mail
    and the blob it left there (None when it deleted the path)."""

    sha: str
    author_email: str
    blob: str | None


def last_changes(root: Path, folders: Sequence[str], wanted: set[str]) -> dict[str, LastChange]:
    """For each path of ``wanted`` (under ``folders``), the newest commit that changed it
    (:class:`LastChange`), from ONE ``git log --raw`` over ``folders``, stopped as soon as
    every path is found. A path no commit wrote is left out. Merges show no change of their
    own: a path a merge resolved by hand keeps the last commit that wrote it, whose blob then
    differs from the file (callers compare)."""
    if not wanted or head(root) is None:
        return {}
    args = ["git", "-C", str(root), "log", "--format=%x1e%H%x1f%ae", "--raw", "--no-abbrev"]
    args += ["--no-renames", "--no-color", "HEAD", "--", *folders]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    found: dict[str, LastChange] = {}
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    except FileNotFoundError:
        raise GitError(
            "git is not installed or not on PATH", hint="install git 2.32 or newer"
        ) from None
    assert proc.stdout is not None
    sha = email = ""
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("\x1e"):
                sha, _sep, email = line[1:].partition("\x1f")
            elif line.startswith(":") and "\t" in line:
                meta, path = line.split("\t", 1)
                if path in wanted and path not in found:
                    fields = meta.split()
                    blob = None if fields[4].startswith("D") else fields[3]
                    found[path] = LastChange(sha, email, blob)
                    if len(found) == len(wanted):
                        break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.wait()
    return found


def blob_id(data: bytes, like: str) -> str:
    """The git blob id of ``data`` in the object format of ``like`` (an id: 40 hex digits for
    SHA-1, 64 for SHA-256), computed here: no git process."""
    # lazy: only the inbox's provenance hashes blobs
    import hashlib

    algorithm = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algorithm(b"blob %d\x00" % len(data) + data).hexdigest()


def show_file(root: Path, rev: str, path: str) -> str | None:
    """The content of ``path`` at ``rev``, or None when it does not exist there."""
    proc = run_git(root, ["show", f"{rev}:{path}"], check=False)
    return proc.stdout if proc.returncode == 0 else None
