"""What ``agentmem check`` reports (docs/design/check.md §Check): one :class:`Finding` per problem, never
a stop.

A finding names a file and a line, a severity (``error`` fails the check, ``warning`` does not),
a stable ``code`` and a human message that says what is wrong and what to do. History findings
also name the commit.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from agentmem.errors import AgentmemError

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem: ``path`` relative to the repository root (``/`` separators), ``line``
    1-based (1 for a whole-file problem), ``severity`` error | warning, ``code`` (e.g.
    ``memory-budget``, ``doctrine-hash-mismatch``, ``history-not-admin``, ``guard:pii:email``),
    ``message`` (never a secret value), ``commit`` (full id, history findings only)."""

    path: str
    line: int
    severity: str
    code: str
    message: str
    commit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` object (docs/design/check.md §Check), keys ``path``, ``line``,
        ``severity``, ``code``, ``message``, plus ``commit``."""
        return asdict(self)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


@dataclass
class CheckReport:
    """Every finding of one run, and what was looked at (for the summary line)."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    commits: int | None = None  # None when the history was not walked

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if not f.is_error]

    def sorted(self) -> list[Finding]:
        """Working-tree findings by path and line, then history findings in commit order."""
        tree = sorted(
            (f for f in self.findings if f.commit is None), key=lambda f: (f.path, f.line)
        )
        return tree + [f for f in self.findings if f.commit is not None]


_LOCATION = re.compile(r"^(?P<path>[^\s:]+?)(?::(?P<line>\d+))?: ")


def from_error(
    exc: AgentmemError, path: str, code: str, *, line: int = 1, severity: str = ERROR
) -> Finding:
    """A finding from an error whose message starts ``path[:line]: …`` (the error family's
    convention): the location moves to the finding's fields, the hint stays in the message."""
    message = exc.message
    match = _LOCATION.match(message)
    if match and match.group("path") == path:
        if match.group("line"):
            line = int(match.group("line"))
        message = message[match.end() :]
    if exc.hint:
        message = f"{message} (hint: {exc.hint})"
    return Finding(path, line, severity, code, message)
