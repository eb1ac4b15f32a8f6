"""The guard: the filter every text passes before it can enter memory or doctrine
(docs/design/guard.md §Guard). What it checks and how: :mod:`agentmem.guard.scanner`."""

from __future__ import annotations

from agentmem.guard.base import ERROR, KINDS, PLACEHOLDERS, PROMPT_DELIMITERS, WARNING, Finding
from agentmem.guard.scanner import (
    check,
    check_personal,
    describe,
    locate,
    mask,
    placeholder,
    scan,
)

__all__ = [
    "ERROR",
    "KINDS",
    "PLACEHOLDERS",
    "PROMPT_DELIMITERS",
    "WARNING",
    "Finding",
    "check",
    "check_personal",
    "describe",
    "locate",
    "mask",
    "placeholder",
    "scan",
]

Finding.__module__ = __name__  # pickles and prints as agentmem.guard.Finding, as before
