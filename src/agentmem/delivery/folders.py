"""Which scope a session's folder gives (``agentmem.yaml``'s ``scopes:`` map), and how a folder
is written in that map and shown in a command (docs/design/context.md; ``agentmem scope map``).
Standard library only: the session start reads the map at every start.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def scope_for_folder(scopes: Sequence[Sequence[str]], folder: str | None, root: Path) -> str | None:
    """The scope of a session run in ``folder`` from ``agentmem.yaml``'s ``scopes:`` map
    (``(folder, scope)`` pairs): the longest mapped folder that is ``folder`` or holds it
    (``~`` expanded, relative folders read from the repository ``root``); None when none does."""
    if not scopes or not folder:
        return None
    here = Path(folder).expanduser().resolve()
    best: tuple[int, str] | None = None
    for mapped, scope in scopes:
        path = resolved_folder(mapped, root)
        if (here == path or path in here.parents) and (best is None or len(path.parts) > best[0]):
            best = (len(path.parts), scope)
    return best[1] if best else None


def resolved_folder(folder: str, root: Path) -> Path:
    """A folder of the ``scopes:`` map as a path of this system (``~`` expanded, a relative
    folder read from the repository ``root``), resolved."""
    path = Path(folder).expanduser()
    return (path if path.is_absolute() else root / path).resolve()


def folder_key(folder: str, root: Path) -> str | None:
    """How ``folder`` (a session's folder) is written in the ``scopes:`` map: relative to the
    repository ``root`` when inside it (every clone reads it the same), ``~/…`` when under the
    home folder (each person's own), else absolute; None when it is not an absolute path of
    this system (a Windows folder read on Linux: it could never match a session here)."""
    path = Path(folder).expanduser()
    if not path.is_absolute():
        return None
    here = path.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):
        home = None
    for base, prefix in ((root.resolve(), ""), (home, "~")):
        if base is None:
            continue
        if here == base:
            return prefix or "."
        if base in here.parents:
            rel = here.relative_to(base).as_posix()
            return f"{prefix}/{rel}" if prefix else rel
    return str(here)


def shown_folder(folder: str) -> str:
    """``folder`` as a person types it in a command: ``~/…`` under the home folder, else
    absolute (a path of another system as it is written)."""
    path = Path(folder).expanduser()
    if not path.is_absolute():
        return folder
    here = path.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):
        return str(here)
    if here == home:
        return "~"
    return f"~/{here.relative_to(home).as_posix()}" if home in here.parents else str(here)
