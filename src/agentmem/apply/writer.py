"""The atomic writer: temp file in the same folder, fsync, ``os.replace``, folder fsync.

:func:`apply_changes` is the one place that writes memory-repository files and commits them: it
refuses unsafe paths, re-checks that each file still holds the bytes the plan was made from,
journals the change (``.git/agentmem/pending.json``, see :mod:`agentmem.store.journal`), writes only
what changed, commits exactly those paths and clears the journal. If a write or the commit fails,
the files are put back as they were; if the process dies, the next command recovers from the
journal. Callers hold :meth:`Repository.locked` around plan + apply (docs/design/write-path.md §Write path).

Test-only fault injection: when ``AGENTMEM_TEST_CRASH_AT`` names a step (``after-journal``,
``after-temp-write``, ``after-replace``, ``before-commit``, ``after-ref-update``), the process
kills itself with SIGKILL at that step of :func:`apply_changes` — :func:`_crash_point` is the
only reader of that variable. Nothing sets it outside ``tests/stories/test_killed_at_each_step.py``.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem.errors import AgentmemError, ApplyConflictError
from agentmem.store import regular
from agentmem.store.atomic import (
    CRASH_ENV as CRASH_ENV,
)
from agentmem.store.atomic import (
    atomic_delete,
    atomic_write,
    atomic_write_bytes,
    crash_point,
    fsync_dir,
)
from agentmem.store.paths import check_relpath

if TYPE_CHECKING:
    from agentmem.apply.change import FileChange
    from agentmem.store import journal


class WriteFailedError(AgentmemError):
    """The disk refused a write (full, read-only, permissions). Nothing was changed or committed,
    unless the message says the next command will finish restoring from the journal."""


def read_current(root: Path, relpath: str) -> str | None:
    """The file's text now (bytes as they are, no newline translation), or None when it does
    not exist. Follows no symlink and reads only a regular file (:mod:`agentmem.store.regular`:
    a ``DoctrineError``/``InvalidMemoryError``/``ProposalError`` naming the path)."""

    return regular.read_text(root, relpath)


def apply_changes(
    root: Path, changes: Sequence[FileChange], message: str, *, sign: bool = False
) -> str | None:
    """Write ``changes`` and commit them as one commit with ``message``; returns the commit id.

    Before anything is written: every path is checked (:func:`agentmem.store.paths.check_relpath`:
    no ``..``, absolute path, NUL, symlink or case-only collision), every file must still hold
    the ``old`` text the change was planned from (else :class:`ApplyConflictError`), and git
    must not be mid-rebase/merge, detached or locked (:func:`gitio.check_state`). Returns None
    when no file would change (re-applying is a no-op). A failed write (disk full…) raises
    :class:`WriteFailedError`; a failed commit re-raises its :class:`GitError`; in both cases the
    files are restored and nothing is committed. ``sign`` signs the commit (``commit-tree -S``).
    """

    real = _checked(root, changes)
    if not real:
        return None
    # lazy: only a write needs git and the journal (reading commands import this for read_current)
    from agentmem.store import gitio, journal

    gitio.check_state(root)
    old_head = gitio.head(root)
    pending = journal.Pending(
        old_head, message, [journal.PendingFile(c.path, c.old, c.new) for c in real], sign
    )
    _journal(root, pending)
    commit = _write_and_commit(root, real, pending)
    journal.clear(root)
    return commit


def apply_series(
    root: Path, changes: Sequence[FileChange], steps: Sequence[tuple[str, Sequence[FileChange]]]
) -> list[str]:
    """Write ``changes`` and commit them as a SERIES of commits, one per step, in ONE
    journaled change: ``changes`` go from the files as they are now (``old``, re-checked as
    :func:`apply_changes` does) to the state after the last step; each step is ``(message,
    its changes)``, the state of the files it touches after it (``new``; ``old`` unused). One
    accept per commit with one ``fast-import`` for them all (``review --accept`` of many
    proposals, docs/design/write-path.md §Write path). All the commits land, or none; a
    process killed at any step leaves a state the next command completes (every commit) or
    undoes (none), as for one commit. Unsigned only (a signed decision is
    :func:`apply_changes` one at a time). Returns the commit ids in order."""
    real = _checked(root, changes)
    if not real:
        return []
    # lazy: only a write needs git and the journal (see apply_changes)
    from agentmem.store import gitio, journal

    gitio.check_state(root)
    old_head = gitio.head(root)
    if old_head is None:
        raise ApplyConflictError("a series of commits needs a first commit to build on")
    pending = journal.Pending(
        old_head,
        steps[-1][0],
        [journal.PendingFile(c.path, c.old, c.new) for c in real],
        steps=[journal.Step(message, [(c.path, c.new) for c in step]) for message, step in steps],
    )
    _journal(root, pending)
    made: list[str] = []

    def commit() -> str:
        made.extend(
            gitio.commit_series(
                root,
                pending.series(),
                expected_head=old_head,
                on_published=lambda _sha: crash_point("after-ref-update"),
            )
        )
        return made[-1]

    _write_and_commit(root, real, pending, commit)
    journal.clear(root)
    return made


def _checked(root: Path, changes: Sequence[FileChange]) -> list[FileChange]:
    """The changes that change something, once every path is safe and every file still holds
    its ``old`` text; else :class:`ApplyConflictError` or :class:`UnsafePathError`."""
    paths = [c.path for c in changes]
    if len(set(paths)) != len(paths):
        raise ApplyConflictError(f"the same file appears twice in one change: {', '.join(paths)}")
    listings: dict[str, dict[str, list[str]]] = {}
    for change in changes:
        check_relpath(root, change.path, listings)
    for change in changes:
        if read_current(root, change.path) != change.old:
            raise ApplyConflictError(
                f"{change.path} changed on disk since its diff was shown; nothing was written",
                hint="run the command again to see the new diff",
            )
    return [c for c in changes if c.old != c.new]


def _journal(root: Path, pending: journal.Pending) -> None:
    # lazy: loaded already by the caller (see apply_changes)
    from agentmem.store import journal

    try:
        journal.write(root, pending)
    except OSError as exc:
        raise _write_failed(str(journal.journal_path(root)), exc, restored=True) from None
    crash_point("after-journal")


def _write_and_commit(
    root: Path,
    real: list[FileChange],
    pending: journal.Pending,
    commit: Callable[[], str] | None = None,
) -> str:
    # lazy: loaded already by apply_changes (see there)
    from agentmem.store import gitio, journal

    written: list[FileChange] = []
    current = real[0].path
    emptied: set[Path] = set()  # folders of deleted files, fsynced once each before the commit
    try:
        for change in real:
            current = change.path
            target = root / change.path
            if change.new is None:
                atomic_delete(target, sync=False)
                emptied.add(target.parent)
            else:
                atomic_write_bytes(target, change.new.encode("utf-8"), inject=not written)
            written.append(change)
            if len(written) == 1:
                crash_point("after-replace")
        for folder in emptied:
            fsync_dir(folder)
        crash_point("before-commit")
        if commit is not None:
            return commit()
        return gitio.commit_paths(
            root,
            pending.paths(),
            pending.message,
            sign=pending.sign,
            expected_head=pending.old_head,
            on_published=lambda _sha: crash_point("after-ref-update"),
        )
    except (AgentmemError, OSError) as exc:
        restored = _restore(root, written)
        if restored:
            journal.clear(root)
        if isinstance(exc, OSError):
            raise _write_failed(current, exc, restored) from None
        if not restored:
            raise WriteFailedError(
                f"{exc.message}; the files could not all be put back yet",
                hint="run any agentmem command to restore them from the journal",
            ) from exc
        raise


def _restore(root: Path, written: list[FileChange]) -> bool:
    """Put back the base bytes of ``written``; False when the disk refused (journal kept)."""
    try:
        for change in reversed(written):
            target = root / change.path
            if change.old is None:
                atomic_delete(target)
            else:
                atomic_write(target, change.old)
    except OSError:
        return False
    return True


def _write_failed(where: str, exc: OSError, restored: bool) -> WriteFailedError:
    reason = exc.strerror or str(exc)
    code = errno.errorcode.get(exc.errno or 0, "")
    hint = {
        errno.ENOSPC: "free some disk space, then run the command again",
        errno.EDQUOT: "free some space in your quota, then run the command again",
        errno.EROFS: "the file system is read-only: remount it writable, then run the command again",
        errno.EACCES: "check that you may write to the repository's folders, then run it again",
        errno.EPERM: "check that you may write to the repository's folders, then run it again",
    }.get(exc.errno or 0, "fix the cause, then run the command again")
    if restored:
        return WriteFailedError(
            f"could not write {where}: {reason} ({code}); nothing was changed or committed",
            hint=hint,
        )
    return WriteFailedError(
        f"could not write {where}: {reason} ({code}); the files could not all be put back yet",
        hint=f"{hint}; the next agentmem command restores them from the journal",
    )
