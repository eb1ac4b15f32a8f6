"""agentmem: a memory for AI agents that people can read, approve, correct and undo.

The package is layered (see AGENTS.md): ``agentmem.cli`` parses and renders; the domain modules
(``memory``, ``proposals``, ``harvest``, ``guard``, ``config``, ``errors`` …) hold the rules;
``agentmem.apply`` plans edits purely and writes them atomically; ``agentmem.store.gitio`` and
``agentmem.harvest.providers.anthropic_provider`` are the only modules that talk to git and to the model.
"""

from __future__ import annotations

import os

from agentmem.errors import AgentmemError

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from agentmem.api import Agentmem

__version__ = "0.1.0"
__all__ = ["AgentmemError", "__version__", "open"]


def open(path: str | os.PathLike[str] | None = None) -> Agentmem:  # noqa: A001
    """The memory repository at ``path`` (or ``$AGENTMEM_REPO``, or found from the current
    folder) as an :class:`agentmem.api.Agentmem`: ``chat_context``, ``audit_context``,
    ``remember``, ``harvest``, ``propose_rule``, ``pending``. Raises
    :class:`agentmem.errors.NotARepositoryError`. See :mod:`agentmem.api`."""
    # lazy: import agentmem stays light: the hot path imports the package
    from agentmem.api import open_repository

    return open_repository(None if path is None else os.fspath(path))
