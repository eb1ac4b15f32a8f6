"""Finding the memory repository (docs/design/overview.md §Repository layout): the ONE root finder of every command,
the hooks and the check.

The repository is the folder holding ``agentmem.yaml``: ``--repo PATH`` or ``$AGENTMEM_REPO``
name it exactly; otherwise it is found upward from a starting folder (a hook's payload ``cwd``,
then the current folder). This module loads no settings and imports nothing beyond the standard
library and :mod:`agentmem.errors`: the hot path (``hook …``, ``context chat``) uses it, and
``check`` must find a repository whose ``agentmem.yaml`` is broken (that is a finding).
"""

from __future__ import annotations

import os

from agentmem.errors import NotARepositoryError

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import TypeAlias

    #: A path as the hot path takes it: a ``str`` or any ``os.PathLike`` (a ``Path``); the hot
    #: path's modules work on ``str`` with ``os.path`` and never import ``pathlib``
    #: (docs/design/code.md §Hot path).
    StrPath: TypeAlias = str | os.PathLike[str]

CONFIG_FILE = "agentmem.yaml"
"""The file that makes a folder a memory repository (its settings)."""
ROLES_FILE = "roles.yaml"
"""People and their roles."""
MEMORY_DIR = "memories"
"""One memory file per person: ``memories/<person>.md``."""
DOCTRINE_DIR = "doctrine"
"""The team's rules, one YAML file each."""
INBOX_DIR = "inbox"
"""Pending proposals: ``inbox/<person>/<id>.yaml``."""
LOCAL_DIR = ".agentmem"
"""agentmem's local, never committed files (logs, queue, caches, the lock)."""
ERASURES_FILE = "erasures.yaml"
"""The erasure record (hashes, never values), written only by ``agentmem erase``."""
REPO_ENV = "AGENTMEM_REPO"
"""The environment variable naming the repository (like ``--repo``)."""
INIT_HINT = "run 'agentmem init' to create one, or pass --repo PATH"


def upward(start: str) -> Iterator[str]:
    """``start`` and each folder above it, up to the file system's root (``start`` as given:
    resolve it first for the folders it really sits in)."""
    folder = start
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def find_root(start: StrPath, *, hint: str = INIT_HINT) -> str:
    """The nearest folder from ``start`` upward holding ``agentmem.yaml`` (resolved: symlinks
    followed, as ``Path.resolve``). Raises :class:`NotARepositoryError` with ``hint`` when
    there is none."""
    resolved = os.path.realpath(start)
    for folder in upward(resolved):
        if os.path.isfile(os.path.join(folder, CONFIG_FILE)):
            return folder
    raise NotARepositoryError(
        f"not a memory repository: no {CONFIG_FILE} in {resolved} or any parent", hint=hint
    )


def locate(
    explicit: StrPath | None = None, *, near: StrPath | None = None, hint: str = INIT_HINT
) -> str:
    """The repository to work on: ``explicit`` (``--repo``), else ``$AGENTMEM_REPO`` — that very
    folder, not a parent —; else upward from ``near`` when it is a folder inside one; else
    upward from the current folder. Raises :class:`NotARepositoryError`."""
    if explicit is None and os.environ.get(REPO_ENV):
        explicit = os.environ[REPO_ENV]
    if explicit is not None:
        root = find_root(explicit, hint=hint)
        if root != os.path.realpath(explicit):
            raise NotARepositoryError(
                f"not a memory repository: no {CONFIG_FILE} in {os.fspath(explicit)}"
            )
        return root
    if near is not None and os.path.isdir(near):
        try:
            return find_root(near, hint=hint)
        except NotARepositoryError:
            pass
    return find_root(os.getcwd(), hint=hint)
