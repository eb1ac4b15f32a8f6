"""One error family for agentmem (docs/design/overview.md §Exit codes).

Domain code raises these; ``agentmem.cli`` turns them into an ``error: …`` line on stderr and the
class's ``exit_code``. Exit codes (docs/design/overview.md §Exit codes): 0 done, 1 refused or invalid input,
2 usage, 3 unexpected (not raised from here: anything that is not an ``AgentmemError``). Messages
say what, where (``file:line``) and what to do next; they never carry a secret value.
"""

from __future__ import annotations

import errno
import importlib.util
import os


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


class MissingExtraError(AgentmemError):
    """A feature whose libraries come with an extra of the package that is not installed
    (docs/design/code.md §Install): exit 1, with the pip command that installs it."""


#: The extras of pyproject.toml: name -> (what needs it, the modules it brings).
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mcp": ("agentmem mcp (the MCP server)", ("mcp", "pydantic")),
    "openai": ("the openai harvest provider", ("openai",)),
    "serve": ("agentmem serve (the review pages)", ("starlette", "uvicorn", "jinja2")),
}


def require_extra(extra: str) -> None:
    """Raise :class:`MissingExtraError` unless every module of ``extra`` can be imported
    (looked up, not imported: nothing is loaded here)."""

    feature, modules = EXTRAS[extra]
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(
            f"{feature} needs {', '.join(missing)}, which this installation leaves out",
            hint=f"pip install 'agentmem[{extra}]' (or, from a clone: pip install -e '.[{extra}]')",
        )


class ConfigError(AgentmemError):
    """``agentmem.yaml`` or ``roles.yaml`` is missing, malformed, or holds an unknown key."""


class NotARepositoryError(AgentmemError):
    """No ``agentmem.yaml`` in the current directory or any parent (docs/design/overview.md §Vocabulary,
    *memory repository*)."""


class InvalidMemoryError(AgentmemError):
    """A memory file breaks the structure of docs/design/memory.md §Memory file, or an entry is not a valid
    single line."""


class BudgetExceededError(InvalidMemoryError):
    """A write would take a memory file over ``memory.budget_chars``
    (docs/design/memory.md §Memory file). ``oldest``: the entries least recently confirmed
    (``memory.file.Entry``), ``status`` the fill level the change would reach, when known."""

    oldest: tuple[object, ...] = ()
    status: object = None


class TranscriptError(AgentmemError):
    """A transcript cannot be read: malformed JSON, binary data, unknown format
    (docs/design/harvest.md §Harvest)."""


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
    or the file changed on disk since the review showed its diff (docs/design/write-path.md §Write path)."""


class GovernanceError(AgentmemError):
    """The actor's role does not allow the action (docs/design/doctrine.md §Lifecycle, §Roles)."""


class GuardError(AgentmemError):
    """The guard refused a text (docs/design/guard.md §Guard). The message names classes and positions,
    never values."""


class ModelError(AgentmemError):
    """The model provider failed or answered outside the schema (docs/design/harvest.md §Harvest)."""


class GitError(AgentmemError):
    """A git command failed; the message carries git's own words and what to do."""


class BusyError(AgentmemError):
    """Another agentmem process holds the repository lock; retry shortly."""


#: ``OSError`` numbers that are the disk's state, not a bug (exit 1, docs/design/write-path.md §Write path).
_DISK_FULL = ("ENOSPC", "EDQUOT")


def failure(exc: BaseException) -> tuple[int, str] | None:
    """THE mapping of an exception to an exit code and its ``error:`` text, for both entry points
    (the hot path in ``agentmem.entry`` and the typer group in ``agentmem.cli``).

    ``None``: let it propagate (``AGENTMEM_DEBUG=1`` on an unexpected error, to see the
    traceback). A text of ``""`` prints nothing (a reader that closed the pipe)."""
    if isinstance(exc, AgentmemError):
        return exc.exit_code, str(exc)
    if isinstance(exc, BrokenPipeError):
        return 0, ""  # ``agentmem log | head``: the reader closed the pipe, stop quietly
    if isinstance(exc, KeyboardInterrupt):
        return 130, "interrupted"
    if isinstance(exc, EOFError):
        return 2, (
            "end of input before every question was answered; nothing more was decided "
            "(what was decided before is committed)"
        )
    if isinstance(exc, OSError) and errno.errorcode.get(exc.errno or 0, "") in _DISK_FULL:
        code = errno.errorcode.get(exc.errno or 0, "")
        return 1, (
            f"the disk refused a write: {exc.strerror} ({code}); agentmem's journal "
            "finishes or undoes any interrupted change on the next command\n"
            "  hint: free some disk space, then run the command again"
        )
    if not isinstance(exc, Exception) or os.environ.get("AGENTMEM_DEBUG") == "1":
        return None
    return 3, (
        f"unexpected error ({type(exc).__name__}: {exc}); rerun with AGENTMEM_DEBUG=1 "
        "to see the traceback, and report it"
    )
