"""The atomic writer: temp file in the same folder, fsync, ``os.replace``, folder fsync.

:func:`apply_changes` is the one place that writes memory-repository files and commits them: it
re-checks that each file still holds the bytes the plan was made from, writes only what changed,
and commits exactly those paths. If the commit fails, the files are put back as they were.
Callers hold :meth:`Repository.locked` around plan + apply (SPEC §4, issue 7).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from agentmem import gitio
from agentmem.apply.change import FileChange
from agentmem.errors import AgentmemError, ApplyConflictError


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, no newline translation) so ``path`` holds old or new bytes, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_delete(path: Path) -> None:
    """Remove ``path`` if it exists, and fsync its folder."""
    if path.exists():
        path.unlink()
        _fsync_dir(path.parent)


def read_current(root: Path, relpath: str) -> str | None:
    """The file's text now, or None when it does not exist."""
    path = root / relpath
    if not path.exists():
        return None
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def apply_changes(root: Path, changes: Sequence[FileChange], message: str) -> str | None:
    """Write ``changes`` and commit them as one commit with ``message``; returns the commit id.

    Raises :class:`ApplyConflictError` when a file no longer holds the ``old`` text the change
    was planned from (nothing is written then). Returns None when no file would change
    (re-applying is a no-op). On a failed commit every written file is restored.
    """
    for change in changes:
        if read_current(root, change.path) != change.old:
            raise ApplyConflictError(
                f"{change.path} changed on disk since its diff was shown; nothing was written",
                hint="run the command again to see the new diff",
            )
    real = [c for c in changes if c.old != c.new]
    if not real:
        return None
    written: list[FileChange] = []
    try:
        for change in real:
            target = root / change.path
            if change.new is None:
                atomic_delete(target)
            else:
                atomic_write(target, change.new)
            written.append(change)
        return gitio.commit_paths(root, [c.path for c in real], message)
    except (AgentmemError, OSError):
        for change in reversed(written):
            target = root / change.path
            if change.old is None:
                atomic_delete(target)
            else:
                atomic_write(target, change.old)
        raise
