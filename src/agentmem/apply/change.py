"""The unit of every write: one file's planned change."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class FileChange:
    """One file's planned change: ``old`` is None for a new file, ``new`` None for a deletion."""

    path: str
    old: str | None
    new: str | None

    def diff(self) -> str:
        """A unified diff of the change (``a/path`` → ``b/path``)."""
        old_lines = (self.old or "").splitlines(keepends=True)
        new_lines = (self.new or "").splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(old_lines, new_lines, f"a/{self.path}", f"b/{self.path}", n=2)
        )
