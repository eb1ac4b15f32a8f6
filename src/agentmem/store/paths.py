"""Path safety (docs/design/write-path.md §Write path): ids that cannot escape a folder, and relative paths
that are safe to write (no ``..``, no symlink on the way, no case twin).

Imports nothing from the rest of :mod:`agentmem.store`: the journal, the writer and the
repository all use it.
"""

from __future__ import annotations

import os
import re

from agentmem.errors import AgentmemError, InvalidMemoryError, UsageError
from agentmem.lazyre import lazy_compile

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from agentmem.store.root import StrPath

# \Z, not $: "$" would accept a trailing newline ("alice\n").
SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\Z")

#: The write journal, ``<git dir>/agentmem/pending.json`` (:mod:`agentmem.store.journal`); here
#: so that a read can test for it without loading the journal.
JOURNAL_DIR = "agentmem"
JOURNAL_NAME = "pending.json"


def check_slug(value: str, what: str) -> str:
    """A person or rule id: lower-case letters, digits and inner hyphens, at most 64 characters.

    Refuses ``../``, ``/``, NUL, upper case and anything else that could escape a folder.
    Raises :class:`UsageError`.
    """
    if not SLUG.match(value or ""):
        raise UsageError(
            f"invalid {what} {value!r}: use lower-case letters, digits and hyphens (e.g. 'alice')"
        )
    return value


#: One segment of a scope (compiled on first use: the hot path rarely needs it).
_SCOPE_SEGMENT = lazy_compile(r"^[A-Za-z0-9_.-]+$")


def check_scope(value: str, where: str) -> str:
    """A scope path (``contracts/supply``): segments of ``[A-Za-z0-9_.-]``, no ``.``/``..``.
    Raises :class:`InvalidMemoryError`. Here, not in :mod:`agentmem.memory.records` (which
    re-exports it), so that reading the settings does not load the entry records."""
    clean = value.strip().strip("/")
    if not clean or any(s in (".", "..") or not _SCOPE_SEGMENT.match(s) for s in clean.split("/")):
        raise InvalidMemoryError(
            f"{where}: invalid scope {value!r} (expected a path such as contracts/supply)"
        )
    return clean


class UnsafePathError(AgentmemError):
    """A path that could escape the repository or alias another file; nothing was written."""


def check_relpath(
    root: StrPath, relpath: str, listings: dict[str, dict[str, list[str]]] | None = None
) -> str:
    """``root/relpath`` when it is safe to write, else :class:`UnsafePathError`.

    Refused: empty, absolute, ``..`` or ``.`` parts, backslashes, NUL and control characters,
    anything inside ``.git``; a symlink as the target or any folder between ``root`` and it; a
    sibling whose name differs only by case (``memories/Alice.md`` next to ``alice.md`` would be
    one file on macOS or Windows). ``relpath`` uses ``/`` separators. ``listings``: a cache of
    the folders' names by case-folded name, shared by the paths of one change (a batch of
    10,000 inbox files lists their folder once, not once a file).
    """

    def refuse(why: str) -> UnsafePathError:
        return UnsafePathError(
            f"refused to write {relpath!r}: {why}; nothing was written",
            hint="rename or remove the offending file, then retry",
        )

    if not relpath or any(ord(ch) < 32 or ch in "\\\x7f" for ch in relpath):
        raise refuse("empty path, backslash or control character (NUL…)")
    parts = relpath.split("/")
    if relpath.startswith("/") or (len(relpath) > 1 and relpath[1] == ":"):
        raise refuse("absolute path")
    if any(part in ("", ".", "..") for part in parts):
        raise refuse("'..', '.' or an empty part")
    if parts[0].casefold() == ".git":
        raise refuse("inside .git")
    folder = os.fspath(root)
    for number, part in enumerate(parts):
        path = os.path.join(folder, part)
        if os.path.islink(path):
            raise refuse(f"{'/'.join(parts[: number + 1])} is a symbolic link")
        if os.path.isdir(folder):
            names = listings.get(folder) if listings is not None else None
            if names is None:
                names = _folded(folder)
                if listings is not None:
                    listings[folder] = names
            twins = [n for n in names.get(part.casefold(), ()) if n != part]
            if twins:
                where = "/".join([*parts[:number], twins[0]])
                raise refuse(f"{where} differs from it only by case")
        folder = path
    return os.path.join(root, relpath)


def _folded(folder: str) -> dict[str, list[str]]:
    """The names in ``folder`` by their case-folded form."""
    found: dict[str, list[str]] = {}
    for name in os.listdir(folder):
        found.setdefault(name.casefold(), []).append(name)
    return found
