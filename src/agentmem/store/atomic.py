"""Atomic file operations (docs/design/write-path.md §Write path): a file holds its old or its new bytes,
never half, even after a power cut or a SIGKILL.

The lowest layer of the write path: :mod:`agentmem.store.journal` (recovery) and
:mod:`agentmem.apply.writer` (the transaction) both use it, and it imports nothing from them.
:func:`crash_point` is the test-only fault injection (``AGENTMEM_TEST_CRASH_AT``), read nowhere
else.
"""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".agentmem-tmp"
"""Suffix of the temporary file beside its target (``.<name>.*.agentmem-tmp``)."""
CRASH_ENV = "AGENTMEM_TEST_CRASH_AT"
CRASH_POINTS = (
    "after-journal",
    "after-temp-write",
    "after-replace",
    "before-commit",
    "after-ref-update",
)


def crash_point(name: str) -> None:
    """Test-only fault injection (see the module docstring): SIGKILL ourselves at step ``name``."""
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def fsync_dir(folder: Path) -> None:
    """fsync a folder so a rename or unlink in it survives a power cut (best effort)."""
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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write_bytes(path: Path, data: bytes, *, inject: bool = False) -> None:
    """Write ``data`` so ``path`` holds old or new bytes, never half: temp file in the same
    folder (``.<name>.*.agentmem-tmp``), fsync, ``os.replace``, folder fsync. Raises OSError
    (ENOSPC, EACCES…) with the original file untouched and the temp file removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if inject:
            crash_point("after-temp-write")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def _mode_for(path: Path) -> int:
    """The permissions the file has, or the usual ones (0666 minus the umask) for a new file:
    ``mkstemp`` alone would leave 0600."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, no newline translation) atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_delete(path: Path, *, sync: bool = True) -> None:
    """Remove ``path`` if it exists, and fsync its folder (``sync=False``: the caller fsyncs
    the folders once, after a batch of deletions)."""
    if path.exists():
        path.unlink()
        if sync:
            fsync_dir(path.parent)
