"""Which scope a session's folder gives (``agentmem.yaml``'s ``scopes:`` map), and how a folder
is written in that map and shown in a command (docs/design/context.md; ``agentmem scope map``).
Standard library only, and paths as strings (``os.path``, no ``pathlib``): the session start
reads the map at every start (docs/design/code.md §Hot path).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from agentmem.store.root import StrPath


def scope_for_folder(
    scopes: Sequence[Sequence[str]], folder: str | None, root: StrPath
) -> str | None:
    """The scope of a session run in ``folder`` from ``agentmem.yaml``'s ``scopes:`` map
    (``(folder, scope)`` pairs): the longest mapped folder that is ``folder`` or holds it
    (``~`` expanded, relative folders read from the repository ``root``); None when none does."""
    if not scopes or not folder:
        return None
    here = os.path.realpath(os.path.expanduser(folder))
    best: tuple[int, str] | None = None
    for mapped, scope in scopes:
        path = resolved_folder(mapped, root)
        # every folder that holds ``here`` is a prefix of it: the longest is the deepest
        if _below(here, path) is not None and (best is None or len(path) > best[0]):
            best = (len(path), scope)
    return best[1] if best else None


def resolved_folder(folder: str, root: StrPath) -> str:
    """A folder of the ``scopes:`` map as a path of this system (``~`` expanded, a relative
    folder read from the repository ``root``), resolved."""
    return os.path.realpath(os.path.join(root, os.path.expanduser(folder)))


def _below(here: str, base: str) -> str | None:
    """``here`` relative to ``base`` (``""`` for ``base`` itself) when it is ``base`` or inside
    it, else None; both resolved."""
    if here == base:
        return ""
    head = base if base.endswith(os.sep) else base + os.sep
    return here[len(head) :] if here.startswith(head) else None


def _home() -> str | None:
    """The home folder, resolved; None when it cannot be determined."""
    home = os.path.expanduser("~")
    return None if home.startswith("~") else os.path.realpath(home)


def folder_key(folder: str, root: StrPath) -> str | None:
    """How ``folder`` (a session's folder) is written in the ``scopes:`` map: relative to the
    repository ``root`` when inside it (every clone reads it the same), ``~/…`` when under the
    home folder (each person's own), else absolute; None when it is not an absolute path of
    this system (a Windows folder read on Linux: it could never match a session here)."""
    path = os.path.expanduser(folder)
    if not os.path.isabs(path):
        return None
    here = os.path.realpath(path)
    for base, prefix in ((os.path.realpath(root), ""), (_home(), "~")):
        if base is None:
            continue
        rel = _below(here, base)
        if rel == "":
            return prefix or "."
        if rel is not None:
            return f"{prefix}/{rel}" if prefix else rel
    return here


def shown_folder(folder: str) -> str:
    """``folder`` as a person types it in a command: ``~/…`` under the home folder, else
    absolute (a path of another system as it is written)."""
    path = os.path.expanduser(folder)
    if not os.path.isabs(path):
        return folder
    here = os.path.realpath(path)
    home = _home()
    rel = None if home is None else _below(here, home)
    if rel is None:
        return here
    return f"~/{rel}" if rel else "~"
