"""One error family for agentmem (STYLE §5–6).

Domain code raises these; ``agentmem.cli`` turns them into an ``error: …`` line on stderr and the
class's ``exit_code``. Exit codes (SPEC §6): 0 done, 1 refused or invalid input, 2 usage,
3 unexpected (not raised from here: anything that is not an ``AgentmemError``).
Messages say what, where (``file:line``) and what to do next; they never carry a secret value.
"""

from __future__ import annotations


class AgentmemError(Exception):
    """Base of every expected failure. ``exit_code`` is read by the CLI's single handler."""

    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class UsageError(AgentmemError):
    """The command line itself is wrong (a bad flag combination, a malformed ``--edit``)."""

    exit_code = 2


class ConfigError(AgentmemError):
    """``agentmem.yaml`` or ``roles.yaml`` is missing, malformed, or holds an unknown key."""


class NotARepositoryError(AgentmemError):
    """No ``agentmem.yaml`` in the current directory or any parent (SPEC §2 memory repository)."""


class InvalidMemoryError(AgentmemError):
    """A memory file breaks the structure of SPEC §4, or an entry is not a valid single line."""


class BudgetExceededError(InvalidMemoryError):
    """A write would take a memory file over ``memory.budget_chars`` (SPEC §4)."""


class TranscriptError(AgentmemError):
    """A transcript cannot be read: malformed JSON, binary data, unknown format (SPEC §7)."""


class ProposalError(AgentmemError):
    """A proposal is invalid or cannot be found in the inbox."""


class ApplyConflictError(AgentmemError):
    """An accepted proposal cannot be applied: its target matches zero or several entries,
    or the file changed on disk since the review showed its diff (SPEC §4)."""


class GovernanceError(AgentmemError):
    """The actor's role does not allow the action (SPEC §5, §6)."""


class GuardError(AgentmemError):
    """The guard refused a text (SPEC §8). The message names classes and positions, never values."""


class ModelError(AgentmemError):
    """The model provider failed or answered outside the schema (SPEC §7)."""


class GitError(AgentmemError):
    """A git command failed; the message carries git's own words and what to do."""


class BusyError(AgentmemError):
    """Another agentmem process holds the repository lock; retry shortly."""
