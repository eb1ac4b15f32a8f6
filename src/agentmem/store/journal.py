"""The write journal: ``.git/agentmem/pending.json`` and crash recovery
(docs/design/write-path.md §Write path).

:func:`agentmem.apply.writer.apply_changes` writes a :class:`Pending` record (fsynced) before it
touches any file and clears it once the commit is published. A process killed in between leaves
the record behind; the next mutating command calls :func:`recover` under the repository lock:

- HEAD already points at the journaled commit (killed after ``update-ref``): the real index is
  brought in line for the journaled paths and the record is cleared;
- HEAD did not move and every journaled file holds exactly the approved bytes: the commit is
  finished with the journaled message (the person approved exactly that);
- otherwise: every file holding the approved bytes is put back to its base bytes, so the change
  is not applied at all. A file holding anything else (edited by hand since) is left alone.

Leftover temp files (``.<name>.*.agentmem-tmp``) and private index files are removed. The record
keeps whole texts (memory files are a few kilobytes) so a restore needs nothing else.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agentmem.errors import AgentmemError
from agentmem.store import gitio
from agentmem.store.atomic import (
    TEMP_SUFFIX,
    atomic_delete,
    atomic_write,
    atomic_write_bytes,
    fsync_dir,
)
from agentmem.store.paths import JOURNAL_DIR, JOURNAL_NAME, check_relpath

FORMAT_VERSION = 1


class JournalError(AgentmemError):
    """The journal exists but cannot be read, or recovery cannot finish."""


@dataclass(frozen=True)
class PendingFile:
    """One journaled file: ``old`` base text (None: did not exist), ``new`` approved text (None:
    deleted), ``path`` relative to the repository root, POSIX separators."""

    path: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Step:
    """One commit of a series (:func:`agentmem.store.gitio.commit_series`): its message and
    the state of the paths it changes after it (``(path, text or None: deleted)``)."""

    message: str
    files: list[tuple[str, str | None]]


@dataclass(frozen=True)
class Pending:
    """A change under way: the expected HEAD before it, the commit message, the files (base
    and approved texts). ``steps``: when the change is a series of commits (``review
    --accept`` of many proposals, one commit each), each commit in order; ``message`` is then
    the last one's and ``files`` go from the state before the first to the state after the
    last."""

    old_head: str | None
    message: str
    files: list[PendingFile]
    sign: bool = False
    pid: int = field(default_factory=os.getpid)
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    steps: list[Step] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def series(self) -> list[tuple[str, list[tuple[str, bytes | None]]]]:
        """:attr:`steps` as :func:`agentmem.store.gitio.commit_series` takes them."""
        return [
            (step.message, [(path, _encoded(text)) for path, text in step.files])
            for step in self.steps
        ]


@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` did: ``outcome`` is ``committed`` (finished the commit),
    ``published`` (the commit had landed; index tidied) or ``restored`` (base bytes put back);
    ``left`` lists files edited by hand since, which were not touched."""

    outcome: str
    paths: list[str]
    commit: str | None
    left: list[str]

    def describe(self) -> str:
        what = {
            "committed": f"finished its commit {str(self.commit)[:10]}",
            "published": f"its commit {str(self.commit)[:10]} had landed",
            "restored": "put the base versions back (the change was not applied)",
        }[self.outcome]
        text = f"recovered an interrupted agentmem change to {', '.join(self.paths)}: {what}"
        if self.left:
            text += f"; left untouched (changed by hand since): {', '.join(self.left)}"
        return text


# -- the record -------------------------------------------------------------------------------
def journal_path(root: Path) -> Path:
    """``<git dir>/agentmem/pending.json``; a plain stat when ``root/.git`` is a folder."""
    dot_git = root / ".git"
    gdir = dot_git if dot_git.is_dir() else gitio.git_dir(root)
    return gdir / JOURNAL_DIR / JOURNAL_NAME


def has_pending(root: Path) -> bool:
    """True when a journal record exists (cheap: one or two stats in the common layout)."""
    return journal_path(root).exists()


def write(root: Path, pending: Pending) -> None:
    """Store ``pending`` atomically and durably (temp + fsync + replace + folder fsync).
    Raises OSError (e.g. ENOSPC) with nothing left behind."""

    path = journal_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = asdict(pending)
    if not record["steps"]:  # one commit: the record as it always was
        del record["steps"]
    data = json.dumps({"version": FORMAT_VERSION, **record}, ensure_ascii=False, indent=1)
    atomic_write_bytes(path, data.encode("utf-8"))


def read(root: Path) -> Pending | None:
    """The stored record, or None. Raises :class:`JournalError` when it cannot be read."""
    path = journal_path(root)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        files = [PendingFile(f["path"], f["old"], f["new"]) for f in raw["files"]]
        steps = [
            Step(str(s["message"]), [(str(p), t) for p, t in s["files"]])
            for s in raw.get("steps") or []
        ]
        return Pending(
            raw["old_head"],
            raw["message"],
            files,
            bool(raw.get("sign")),
            int(raw.get("pid", 0)),
            str(raw.get("created_at", "")),
            steps,
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise JournalError(
            f"{path}: unreadable agentmem journal ({type(exc).__name__})",
            hint="inspect it: it holds the base and approved texts of an interrupted change; "
            "restore what you need by hand, then delete the file",
        ) from None


def clear(root: Path) -> None:
    """Remove the record (after the commit is published, or after recovery)."""

    path = journal_path(root)
    if path.exists():
        path.unlink()
        fsync_dir(path.parent)


# -- recovery ---------------------------------------------------------------------------------
def recover(root: Path) -> Recovery | None:
    """Bring an interrupted change to a consistent state (see the module docstring).

    Call it under the repository lock, after :func:`gitio.check_state`. Returns None when there
    was nothing to recover. Raises :class:`JournalError` or :class:`GitError`.
    """
    pending = read(root)
    if pending is None:
        return None
    _remove_leftovers(root, pending)
    try:
        current = gitio.head(root)
        if current != pending.old_head:
            ours = (_is_our_series if pending.steps else _is_our_commit)(root, pending, current)
            if ours:
                gitio.run_git(root, ["reset", "-q", "HEAD", "--", *pending.paths()], check=False)
                result = Recovery("published", pending.paths(), current, [])
            else:
                result = _restore(root, pending)
        elif all(_on_disk(root, f.path) == f.new for f in pending.files):
            if pending.steps and pending.old_head:
                made = gitio.commit_series(root, pending.series(), expected_head=pending.old_head)
                commit = made[-1]
            else:
                commit = gitio.commit_paths(
                    root,
                    pending.paths(),
                    pending.message,
                    sign=pending.sign,
                    expected_head=pending.old_head,
                )
            result = Recovery("committed", pending.paths(), commit, [])
        else:
            result = _restore(root, pending)
    except OSError as exc:  # a full disk while putting files back: the journal stays
        raise JournalError(
            f"could not finish an interrupted change: {exc.strerror or exc} "
            f"({errno.errorcode.get(exc.errno or 0, 'OSError')}); nothing more was written and "
            "the journal stays",
            hint="free some disk space (or fix the cause), then run any agentmem command: it "
            "finishes the change from the journal",
        ) from None
    clear(root)
    # lazy: a warning only when a change was recovered (every command opens the journal)
    from agentmem import notices

    notices.warn(result.describe())
    return result


def _on_disk(root: Path, relpath: str) -> str | None:
    path = root / relpath
    if not path.is_file():
        return None
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _restore(root: Path, pending: Pending) -> Recovery:

    left: list[str] = []
    for item in pending.files:
        now = _on_disk(root, item.path)
        if now == item.old:
            continue
        if now != item.new:
            left.append(item.path)
            continue
        check_relpath(root, item.path)
        if item.old is None:
            atomic_delete(root / item.path)
        else:
            atomic_write(root / item.path, item.old)
    return Recovery("restored", pending.paths(), None, left)


def _is_our_commit(root: Path, pending: Pending, commit: str | None) -> bool:
    """HEAD is the journaled commit: its parent is the old HEAD, its message and contents match."""
    if commit is None:
        return False
    raw = gitio.run_git(root, ["cat-file", "commit", commit]).stdout
    header, _sep, message = raw.partition("\n\n")
    parents = [ln.split()[1] for ln in header.splitlines() if ln.startswith("parent ")]
    expected = [pending.old_head] if pending.old_head else []
    if parents != expected or message != pending.message:
        return False
    return all(_blob_at(root, commit, f.path) == _encoded(f.new) for f in pending.files)


def _is_our_series(root: Path, pending: Pending, commit: str | None) -> bool:
    """HEAD is the last commit of the journaled series: the commits before it, one parent
    each, carry the journaled messages in order down to the old HEAD, and HEAD holds the
    approved files."""
    if commit is None or not pending.old_head:
        return False
    count = len(pending.steps)
    chain = gitio.run_git(
        root, ["rev-list", "--first-parent", f"-n{count + 1}", commit], check=False
    ).stdout.split()
    if len(chain) != count + 1 or chain[-1] != pending.old_head:
        return False
    for sha, step, parent in zip(chain[:-1], reversed(pending.steps), chain[1:], strict=True):
        text = gitio.run_git(root, ["cat-file", "commit", sha]).stdout
        header, _sep, message = text.partition("\n\n")
        parents = [ln.split()[1] for ln in header.splitlines() if ln.startswith("parent ")]
        if parents != [parent] or message != step.message:
            return False
    return all(_blob_at(root, commit, f.path) == _encoded(f.new) for f in pending.files)


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _blob_at(root: Path, commit: str, path: str) -> bytes | None:
    """Exact bytes of ``path`` at ``commit`` (no newline translation), None when absent."""
    if not gitio.run_git(root, ["ls-tree", "--name-only", commit, "--", path]).stdout.strip():
        return None
    return gitio.run_git_bytes(root, ["cat-file", "blob", f"{commit}:{path}"])


def _remove_leftovers(root: Path, pending: Pending) -> None:
    """Temp files of the interrupted atomic writes, and private index files of its commit."""
    for item in pending.files:
        target = root / item.path
        if target.parent.is_dir() and not target.parent.is_symlink():
            for tmp in target.parent.glob(f".{target.name}.*{TEMP_SUFFIX}"):
                tmp.unlink(missing_ok=True)
    gdir = journal_path(root).parent.parent
    for stale in gdir.glob("agentmem-index-*"):
        stale.unlink(missing_ok=True)
