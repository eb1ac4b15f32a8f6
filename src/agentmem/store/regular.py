"""Reading agentmem's own files as regular files only (docs/design/overview.md §Repository layout).

``doctrine/*.yaml``, ``memories/*.md`` and ``inbox/<person>/*.yaml`` are judged by
``check --history`` as git stores them. A symlink is stored as its target's *name*, so a
``doctrine/`` folder (or a rule file) that is a link would let the working tree serve content
history never judged; a folder named ``x.yaml`` would crash a reader. Every reader of those
files goes through this module, which follows no symlink — neither the file nor any folder
between the repository root and it — and reads nothing but a regular file.

Refusals are raised as the error of the file's area: :class:`DoctrineError` under ``doctrine/``,
:class:`InvalidMemoryError` under ``memories/``, :class:`ProposalError` under ``inbox/``
(:class:`AgentmemError` elsewhere), all exit 1, each naming the path::

    doctrine: a symlink; agentmem reads only regular files
    doctrine/zzz.yaml: a folder; agentmem reads only regular files

Standard library only at module level: ``context chat`` imports it on its hot path.
"""

from __future__ import annotations

import os
import stat

from agentmem.errors import AgentmemError, DoctrineError, InvalidMemoryError, ProposalError

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from agentmem.store.root import StrPath

READS_ONLY = "agentmem reads only regular files"
HINT = (
    "replace it with the file itself (git rm the link or folder, then commit the file), "
    "or remove it"
)
#: Read-only, no final symlink followed, no blocking on a named pipe swapped in (its fstat
#: then refuses it), not inherited by child processes.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def kind(mode: int) -> str:
    """What a file of ``mode`` (from ``lstat``) is, in words: ``a symlink``, ``a folder``…"""
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def reason(what: str) -> str:
    """``<what>; agentmem reads only regular files`` (``what``: ``a symlink``, ``a folder``…)."""
    return f"{what}; {READS_ONLY}"


def message(refused: tuple[str, str]) -> str:
    """A refusal ``(relpath, reason)`` as one line: ``<relpath>: <reason>``."""
    return f"{refused[0]}: {refused[1]}"


def error_class(relpath: str) -> type[AgentmemError]:
    """The error of ``relpath``'s area (see the module docstring)."""
    top = relpath.split("/", 1)[0]
    if top == "doctrine":
        return DoctrineError
    if top == "memories":
        return InvalidMemoryError
    if top == "inbox":
        return ProposalError
    return AgentmemError


def refusal(refused: tuple[str, str]) -> AgentmemError:
    """The error to raise for a refusal ``(relpath, reason)``: its area's class, with a hint."""
    return error_class(refused[0])(message(refused), hint=HINT)


def problem(root: StrPath, relpath: str, *, folder: bool = False) -> tuple[str, str] | None:
    """Why ``root/relpath`` cannot be read as an agentmem file or folder (``folder=True``):
    ``(the first offending part, reason)`` — a symlinked folder on the way counts; None when it
    is fine or does not exist. ``relpath`` uses ``/``; ``root`` is trusted."""
    parts = relpath.split("/")
    path = os.fspath(root)
    for number, part in enumerate(parts, start=1):
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        where = "/".join(parts[:number])
        last = number == len(parts)
        if stat.S_ISLNK(mode):
            return where, reason("a symlink")
        if not last or folder:
            if not stat.S_ISDIR(mode):
                what = "a file" if stat.S_ISREG(mode) else kind(mode)
                return where, f"{what} where a folder is expected"
        elif not stat.S_ISREG(mode):
            return where, reason(kind(mode))
    return None


def require_folder(root: StrPath, relpath: str) -> bool:
    """True when ``root/relpath`` is a real folder reached through real folders, False when it
    does not exist; raises the area's error (:func:`refusal`) when it is a symlink or a file."""
    found = problem(root, relpath, folder=True)
    if found is not None:
        raise refusal(found)
    return os.path.isdir(os.path.join(root, relpath))


class Read:
    """A file's bytes as read: ``data`` (at most ``limit + 1`` bytes when a limit was given) and
    its ``size`` on disk when opened, in bytes. A plain class, not a dataclass: ``context chat``
    reads through here and does not pay for building one (docs/design/code.md §Hot path)."""

    __slots__ = ("data", "size")

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Read) and (self.data, self.size) == (other.data, other.size)

    def __hash__(self) -> int:
        return hash((self.data, self.size))

    def __repr__(self) -> str:
        return f"Read(data={self.data!r}, size={self.size!r})"


def read_capped(root: StrPath, relpath: str, limit: int | None = None) -> Read | None:
    """Read ``root/relpath``, or None when it does not exist: no symlink followed (each part is
    checked, then the file is opened with ``O_NOFOLLOW``) and nothing but a regular file read
    (checked again on the open file). With ``limit``, at most ``limit + 1`` bytes are read (a
    caller refusing a big file knows it from ``size`` without reading it). Raises the area's
    error (:func:`refusal`)."""
    found = problem(root, relpath)
    if found is not None:
        raise refusal(found)
    return read_listed(os.path.join(root, relpath), relpath, limit)


def read_listed(path: StrPath, relpath: str, limit: int | None = None) -> Read | None:
    """:func:`read_capped` for a file whose folders are already known to be real (one that
    :func:`listing` returned): only the file itself is checked, on the open descriptor."""
    try:
        fd = os.open(path, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # ELOOP: a link (O_NOFOLLOW); ENXIO: a socket…
        if os.path.islink(path):
            raise refusal((relpath, reason("a symlink"))) from None
        raise error_class(relpath)(f"{relpath}: cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refusal((relpath, reason(kind(info.st_mode))))
        cap = None if limit is None else limit + 1
        want = info.st_size + 1 if cap is None else min(info.st_size + 1, cap)
        chunks = [os.read(fd, want)]
        total = len(chunks[0])
        while len(chunks[-1]) == want and (cap is None or total < cap):  # it grew meanwhile
            want = 1 << 20 if cap is None else min(1 << 20, cap - total)
            chunks.append(os.read(fd, want))
            total += len(chunks[-1])
    finally:
        os.close(fd)
    return Read(chunks[0] if len(chunks) == 1 else b"".join(chunks), info.st_size)


def read_bytes(root: StrPath, relpath: str) -> bytes | None:
    """The bytes of ``root/relpath`` (see :func:`read_capped`), None when it does not exist."""
    read = read_capped(root, relpath)
    return None if read is None else read.data


def read_text(root: StrPath, relpath: str, *, universal_newlines: bool = False) -> str | None:
    """The UTF-8 text of ``root/relpath`` (see :func:`read_capped`), None when it does not
    exist. Bytes as they are (no newline translation) unless ``universal_newlines`` (then
    ``\\r\\n`` and ``\\r`` read as ``\\n``, as ``Path.read_text`` does). Raises
    :class:`UnicodeDecodeError` for bytes that are not UTF-8."""
    data = read_bytes(root, relpath)
    if data is None:
        return None
    text = data.decode("utf-8")
    return universal(text) if universal_newlines else text


def universal(text: str) -> str:
    """``\r\n`` and ``\r`` read as ``\n`` (what ``Path.read_text`` does)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def listing(
    root: StrPath, relfolder: str, suffix: str, *, stem: bool = False
) -> tuple[list[str], list[tuple[str, str]]]:
    """The entries of folder ``root/relfolder`` whose name ends with ``suffix`` (after at least
    one character when ``stem``): ``(regular files, refusals)`` — the names of the regular files
    and a ``(relpath, reason)`` for each entry so named that is a symlink, a folder or anything
    else, both sorted by name. ``([], [])`` when the folder does not exist; a folder that is
    itself a symlink (or a file), or reached through one, is one refusal. One ``scandir``: no
    ``stat`` a file."""
    found = problem(root, relfolder, folder=True)
    if found is not None:
        return [], [found]
    shortest = len(suffix) + (1 if stem else 0)
    names: list[str] = []
    refused: list[tuple[str, str]] = []
    try:
        entries = os.scandir(os.path.join(root, relfolder))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    with entries:
        for entry in entries:
            name = entry.name
            if not name.endswith(suffix) or len(name) < shortest:
                continue
            if entry.is_file(follow_symlinks=False):
                names.append(name)
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
                refused.append((f"{relfolder}/{name}", reason(kind(mode))))
    return sorted(names), sorted(refused)


def subfolders(root: StrPath, relfolder: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The real sub-folders of ``root/relfolder`` (``inbox/<person>``), sorted, and a
    ``(relpath, reason)`` for each symlink among its entries (a link to a folder would be read
    as one); files are not listed. ``([], [])`` when the folder does not exist; a folder that
    is itself a symlink (or a file) is one refusal."""
    found = problem(root, relfolder, folder=True)
    if found is not None:
        return [], [found]
    try:
        entries = os.scandir(os.path.join(root, relfolder))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    names: list[str] = []
    refused: list[tuple[str, str]] = []
    with entries:
        for entry in entries:
            if entry.is_symlink():
                refused.append((f"{relfolder}/{entry.name}", reason("a symlink")))
            elif entry.is_dir(follow_symlinks=False):
                names.append(entry.name)
    return sorted(names), sorted(refused)


def given_head(path: StrPath, size: int) -> bytes:
    """The first ``size`` bytes of a named file (:func:`given_bytes`' rules)."""
    return given_bytes(path, size)


def given_bytes(path: StrPath, limit: int | None = None) -> bytes:
    """The bytes of a file a person names on the command line (a transcript, an outcomes or
    proposals file: outside the repository, so a link to it is followed). A FIFO, socket,
    device or folder is refused by name, never opened for reading (a named pipe must not hang
    a command): raises :class:`NotRegularError` (an OSError, so callers that say "cannot read"
    say it) — ``FileNotFoundError`` as ``os.stat`` raises it."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularError(f"{kind(info.st_mode)}, not a regular file: nothing read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    handle = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):  # replaced since the stat
            raise NotRegularError("not a regular file: nothing read")
        chunks = []
        left = limit
        while (left is None or left > 0) and (
            chunk := os.read(handle, 1 << 20 if left is None else min(left, 1 << 20))
        ):
            chunks.append(chunk)
            left = None if left is None else left - len(chunk)
    finally:
        os.close(handle)
    return b"".join(chunks)


class NotRegularError(OSError):
    """A named file is not a regular file (:func:`given_bytes`); its message says what it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message
