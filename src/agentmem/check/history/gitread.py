"""Reading history in bulk for ``check --history``: ONE ``git log`` process for the walk, one
``git cat-file --batch-check`` for ``roles.yaml`` at the parents, one ``git cat-file --batch``
for the blobs — a constant number of git processes whatever the number of commits.
"""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import IO, NamedTuple

from agentmem import trailers
from agentmem.errors import GitError
from agentmem.store.gitio import head, run_git

WATCHED = (
    "doctrine", "memories", "inbox", "roles.yaml", "agentmem.yaml", ".agentmem", "erasures.yaml"
)  # fmt: skip
"""Prefixes of the paths the walk keeps (the folders themselves too: a symlink named ``doctrine``),
plus any ``.gitattributes`` (:func:`watched`); :mod:`.history` sorts out the exact paths."""
SYMLINK = "120000"
GITLINK = "160000"
_OID = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


class Change(NamedTuple):
    """One changed path: blob ids before (at the first parent) and after; None = absent;
    ``mode`` is the git mode after (``100644``, ``120000`` symlink, ``160000`` gitlink,
    ``000000`` deleted); ``olds`` the blob ids at every parent (a merge has several).
    (A named tuple: the walk makes one per watched path of every commit, and builds it fast.)"""

    path: str
    old: str | None
    new: str | None
    mode: str = "100644"
    olds: tuple[str | None, ...] = ()

    @property
    def linked(self) -> bool:
        """True when the path becomes a symlink or a gitlink (a submodule)."""
        return self.mode in (SYMLINK, GITLINK)


@dataclass
class CommitRecord:
    """One commit of the walk: ``trailers`` keeps only ``Agentmem-*`` keys (values in order)."""

    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    trailers: dict[str, list[str]] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)

    def trailer(self, key: str) -> str | None:
        values = self.trailers.get(key)
        return values[0] if values else None

    @property
    def who(self) -> str:
        return f"{self.author_name} <{self.author_email}>"


def _blob(oid: str) -> str | None:
    return None if oid and not oid.strip("0") else oid  # all zeros: no blob


def resolve(root: Path, rev: str) -> str:
    """The commit id ``rev`` names. Raises :class:`GitError` when it names no commit."""
    proc = run_git(root, ["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], check=False)
    if proc.returncode != 0:
        raise GitError(f"--since {rev}: not a commit in this repository")
    return proc.stdout.strip()


def read_log(
    root: Path,
    since: str | None = None,
    each: Callable[[CommitRecord], object] | None = None,
    tip: str = "HEAD",
) -> list[CommitRecord]:
    """Every commit of ``tip`` (``since..tip``), parents before children, with its changes to
    :data:`WATCHED` paths; ``each`` is called with every commit as soon as it is read (the log
    is still running). ``tip`` other than HEAD: a pushed commit a server judges before its ref
    moves (``check --pre-receive``).

    One ``git log -z --raw`` process (merges: only paths that differ from every parent).
    Raises :class:`GitError` when ``since`` is not a commit, when the clone is shallow and no
    ``since`` is given, or when git fails.
    """
    if tip == "HEAD" and head(root) is None:
        return []
    if since is not None:
        since = resolve(root, since)
    elif run_git(root, ["rev-parse", "--is-shallow-repository"]).stdout.strip() == "true":
        raise GitError(
            "this clone is shallow: the history check needs every commit and its parent",
            hint="fetch the whole history (git fetch --unshallow; actions/checkout: fetch-depth: 0) "
            "or check only recent commits with --since REV",
        )
    rev = f"{since}..{tip}" if since else tip
    args = [
        "-c", "log.showSignature=false", "-c", "core.quotePath=false",
        "log", "-z", "--topo-order", "--reverse", "--no-renames", "--raw", "--no-abbrev",
        "--root", "--diff-merges=combined", "--no-color",
        "--format=%H%x00%P%x00%an%x00%ae%x00%(trailers:only,unfold)%x00",
        rev,
    ]  # fmt: skip
    # No pathspec: limiting git log to paths makes it simplify history (a diff per commit per
    # parent), several times slower than filtering the raw entries here.
    with _streamed(root, args, "log") as chunks:
        return _parse(_tokens(chunks), each)


def parse_log(out: str) -> list[CommitRecord]:
    """Parse :func:`read_log`'s stream: per commit five NUL-ended header fields, then raw
    entries ``:modes… oids… status`` NUL ``path`` NUL."""
    return _parse(_tokens([out]))


@contextmanager
def _streamed(root: Path, args: Sequence[str], name: str) -> Iterator[Iterator[str]]:
    """The output of ``git -C root args…`` as text chunks, read while git writes them (parsing
    overlaps git's work); ``GIT_FLUSH=0`` lets git fill its buffer instead of writing (and
    waking this process) once per commit. Raises :class:`GitError` naming ``git name`` when
    git fails — also when the parse of its cut-short output failed first."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_FLUSH": "0"}
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(
                ["git", "-C", str(root), *args], stdout=subprocess.PIPE, stderr=errors, env=env
            )
        except FileNotFoundError:
            raise GitError(
                "git is not installed or not on PATH", hint="install git 2.32 or newer"
            ) from None
        assert proc.stdout is not None
        failed: GitError | None = None
        finished = False
        try:
            yield _chunks(proc.stdout.fileno())
            finished = True
        except GitError as exc:
            failed = exc
            proc.stdout.read()  # let git end: its own failure, if any, is the one to report
            finished = True
        finally:
            proc.stdout.close()
            if not finished:
                proc.kill()  # any other exception: stop git
            code = proc.wait()
        if code != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {name} failed: {message[-1] if message else code}")
        if failed is not None:
            raise failed


def _chunks(fd: int) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    while data := os.read(fd, 1 << 20):
        yield decoder.decode(data)
    yield decoder.decode(b"", final=True)


def _tokens(chunks: Iterable[str]) -> Iterator[str]:
    """The NUL-separated fields of a stream of text chunks."""
    pending = ""
    for chunk in chunks:
        if "\0" not in chunk:
            pending += chunk
            continue
        parts = (pending + chunk).split("\0")
        pending = parts.pop()
        yield from parts
    yield pending


def _parse(
    tokens: Iterator[str], each: Callable[[CommitRecord], object] | None = None
) -> list[CommitRecord]:
    commits: list[CommitRecord] = []
    token: str | None = next(tokens, None)
    while token is not None:
        head_token = token.strip("\n")
        if not head_token:
            token = next(tokens, None)
            continue
        fields = list(islice(tokens, 4))
        if not _OID.match(head_token) or len(fields) < 4:
            raise GitError(f"unexpected git log output near {head_token[:40]!r}")
        parents, name, email, trailer_text = fields
        record = CommitRecord(
            head_token, parents.split(), name, email, trailers.parse(trailer_text)
        )
        changes = record.changes
        token = next(tokens, None)
        while token is not None:
            meta = token.lstrip("\n")
            if not meta:
                token = next(tokens, None)
                continue
            if meta[0] != ":":
                break
            path = next(tokens, "")
            if watched(path):
                changes.append(_change(meta, path))
            token = next(tokens, None)
        commits.append(record)
        if each is not None:
            each(record)
    return commits


def watched(path: str) -> bool:
    """Whether the walk keeps a change to ``path`` (see :data:`WATCHED`), in any letter case
    (a case-insensitive checkout writes ``Doctrine/x.yaml`` into ``doctrine/``)."""
    if path.startswith(WATCHED) or path[-14:].lower() == ".gitattributes":
        return True
    return path[:1] in _FIRST_LETTERS and path.lower().startswith(WATCHED)


_FIRST_LETTERS = frozenset("dDmMiIrRaAeE.")  # the first letters of WATCHED, both cases


def case_problem(path: str) -> str | None:
    """The exact spelling a case-insensitive checkout would give a component of ``path`` (its
    first one among :data:`WATCHED` names, or a ``.gitattributes`` anywhere) that differs only
    by letter case; None when ``path`` is spelt exactly or unrelated."""
    if path == path.lower():
        return None  # nothing but lower case: every component is spelt as its lower case
    parts = path.split("/")
    first = parts[0].lower()
    if first in WATCHED and parts[0] != first:
        return "/".join([first, *parts[1:]])
    for i, part in enumerate(parts):
        if part.lower() == ".gitattributes" and part != ".gitattributes":
            return "/".join([*parts[:i], ".gitattributes", *parts[i + 1 :]])
    return None


def pathspecs() -> list[str]:
    """Pathspecs selecting :func:`watched` paths (in any letter case) for ``git diff-tree``."""
    return [f":(icase){name}" for name in WATCHED] + [":(glob,icase)**/.gitattributes"]


def _change(meta: str, path: str) -> Change:
    if meta[1] != ":":  # one parent (the usual case): ":mode mode oid oid status"
        _, mode, old, new, _status = meta.split()
        old_blob = _blob(old)
        return Change(path, old_blob, _blob(new), mode, (old_blob,))
    colons = len(meta) - len(meta.lstrip(":"))
    fields = meta[colons:].split()
    # One parent: mode mode oid oid status. N parents (combined): N+1 modes, N+1 oids, status.
    oids = fields[colons + 1 : 2 * colons + 2]
    olds = tuple(_blob(o) for o in oids[:-1])
    return Change(path, olds[0], _blob(oids[-1]), fields[colons], olds)


def object_ids(root: Path, names: Sequence[str], *, types: bool = False) -> dict[str, str | None]:
    """``{name: blob id or None}`` for ``rev:path`` names, in ONE ``cat-file --batch-check``;
    with ``types``, an object that is there but is no blob (a folder, a submodule) is ``"!"``."""
    if not names:
        return {}
    out = run_git(
        root, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
        input_text="".join(f"{n}\n" for n in names),
    ).stdout.splitlines()  # fmt: skip
    found: dict[str, str | None] = {}
    for name, line in zip(names, out, strict=False):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "blob":
            found[name] = parts[0]
        else:
            found[name] = "!" if types and len(parts) == 2 else None
    return found


def ids_at_commits(
    root: Path, commits: Sequence[CommitRecord], files: Sequence[str], also: Sequence[str] = ()
) -> dict[str, str | None]:
    """``{"<sha>:<file>": blob id or None}`` for every commit of the walk and every parent
    outside it, for top-level ``files`` (all in :data:`WATCHED`). A one-parent commit's value
    is its parent's updated by its own changes; git is asked (ONE ``--batch-check``) only for
    parents outside the walk and for merges (their combined diff hides a side taken whole).
    A value that is not a regular file's blob is ``"!"`` (it reads as unreadable). ``also``:
    more commits to ask about (the ``--since`` commit)."""
    walked = {c.sha for c in commits}
    ask = sorted(
        {p for c in commits for p in c.parents if p not in walked}
        | {c.sha for c in commits if len(c.parents) > 1}
        | set(also)
    )
    found = object_ids(root, [f"{sha}:{f}" for sha in ask for f in files], types=True)
    for commit in commits:
        if len(commit.parents) > 1:
            continue
        base = commit.parents[0] if commit.parents else None
        values = {f: found.get(f"{base}:{f}") if base else None for f in files}
        for change in commit.changes:
            if change.path in values:
                values[change.path] = "!" if change.linked else change.new
        for f, oid in values.items():
            found[f"{commit.sha}:{f}"] = oid
    return found


class BlobReader:
    """ONE ``git cat-file --batch --buffer`` for the blobs of a walk, fed while ``git log`` is
    still read (:meth:`request`, as the ids become known) and read by a thread meanwhile, so
    that git reads the blobs on the other core instead of after the log. :meth:`texts` waits
    for the last ones: ``{blob id: text}`` (undecodable bytes replaced). No git process when
    nothing is requested. Use as a context manager: leaving it stops git. With ``keep``, the
    bytes as read too (:attr:`raw`: ``{blob id: bytes}``), for a caller that reads the same
    blobs again (the served view: docs/design/served.md §Served doctrine)."""

    def __init__(self, root: Path, keep: bool = False) -> None:
        self.root = root
        self.asked: set[str] = set()
        self.found: dict[str, str] = {}
        self.raw: dict[str, bytes] | None = {} if keep else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.errors: IO[bytes] | None = None
        self.thread: threading.Thread | None = None
        self.failed: BaseException | None = None

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, oids: Iterable[str | None]) -> None:
        """Ask for the blobs ``oids`` (None and ids already asked for are skipped)."""
        new = [o for o in oids if o and o not in self.asked]
        if not new:
            return
        self.asked.update(new)
        if self.proc is None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        with suppress(BrokenPipeError):  # git stopped: texts() reports why
            self.proc.stdin.write("".join(f"{o}\n" for o in new).encode("ascii"))

    def texts(self) -> dict[str, str]:
        """Every blob requested that git found. Raises :class:`GitError` when git failed."""
        if self.proc is None:
            return {}
        assert self.proc.stdin is not None and self.thread is not None
        with suppress(BrokenPipeError):
            self.proc.stdin.close()
        self.thread.join()
        code = self.proc.wait()
        if code != 0:
            assert self.errors is not None
            self.errors.seek(0)
            message = self.errors.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git cat-file failed: {message[-1] if message else code}")
        if self.failed is not None:
            raise self.failed
        return self.found

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            if self.thread is not None:
                self.thread.join()
            for stream in (self.proc.stdin, self.proc.stdout, self.errors):
                if stream is not None:
                    with suppress(BrokenPipeError):
                        stream.close()

    def _start(self) -> None:
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        try:
            self.proc = subprocess.Popen(
                ["git", "-C", str(self.root), "cat-file", "--batch", "--buffer"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
            )
        except FileNotFoundError:
            raise GitError(
                "git is not installed or not on PATH", hint="install git 2.32 or newer"
            ) from None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out, found, raw = self.proc.stdout, self.found, self.raw
        try:
            while header := out.readline():
                fields = header.split()
                if len(fields) != 3:
                    continue  # "<oid> missing"
                size = int(fields[2])
                data = out.read(size + 1)[:size]
                oid = fields[0].decode("ascii", "replace")
                found[oid] = data.decode("utf-8", "replace")
                if raw is not None:
                    raw[oid] = data
        except BaseException as exc:  # noqa: BLE001 - handed to texts(), which raises it
            self.failed = exc
