"""One error family for agentmem (docs/design.md §Exit codes).

Domain code raises these; ``agentmem.cli`` turns them into an ``error: …`` line on stderr and the
class's ``exit_code``. Exit codes (docs/design.md §Exit codes): 0 done, 1 refused or invalid input,
2 usage, 3 unexpected (not raised from here: anything that is not an ``AgentmemError``). Messages
say what, where (``file:line``) and what to do next; they never carry a secret value.
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
    """No ``agentmem.yaml`` in the current directory or any parent (docs/design.md §Vocabulary,
    *memory repository*)."""


class InvalidMemoryError(AgentmemError):
    """A memory file breaks the structure of docs/design.md §Memory file, or an entry is not a valid
    single line."""


class BudgetExceededError(InvalidMemoryError):
    """A write would take a memory file over ``memory.budget_chars``
    (docs/design.md §Memory file). ``oldest``: the entries least recently confirmed
    (``memory.file.Entry``), ``status`` the fill level the change would reach, when known."""

    oldest: tuple[object, ...] = ()
    status: object = None


class TranscriptError(AgentmemError):
    """A transcript cannot be read: malformed JSON, binary data, unknown format
    (docs/design.md §Harvest)."""


class TranscriptUnavailableError(TranscriptError):
    """A transcript that cannot be read now (over ``harvest.max_transcript_mb``, a read that
    failed): a queued session stays queued, where a refused one is not tried again."""


class ProposalError(AgentmemError):
    """A proposal is invalid or cannot be found in the inbox."""


class DoctrineError(AgentmemError):
    """A rule file or a doctrine request is invalid (exit 1).

    Parse errors read ``doctrine/<id>.yaml:<line>: <key>: <reason>``.
    """


class ApplyConflictError(AgentmemError):
    """An accepted proposal cannot be applied: its target matches zero or several entries,
    or the file changed on disk since the review showed its diff (docs/design.md §Write path)."""


class GovernanceError(AgentmemError):
    """The actor's role does not allow the action (docs/design.md §Lifecycle, §Roles)."""


class GuardError(AgentmemError):
    """The guard refused a text (docs/design.md §Guard). The message names classes and positions,
    never values."""


class ModelError(AgentmemError):
    """The model provider failed or answered outside the schema (docs/design.md §Harvest)."""


class GitError(AgentmemError):
    """A git command failed; the message carries git's own words and what to do."""


class BusyError(AgentmemError):
    """Another agentmem process holds the repository lock; retry shortly."""
