"""The guard's vocabulary (docs/design/guard.md §Guard): severities, scan kinds, prompt delimiters,
placeholders and :class:`Finding`."""

from __future__ import annotations

import re
from typing import Any, cast

from agentmem.frozen import Frozen

ERROR = "error"
WARNING = "warning"
KINDS = ("entry", "rule", "file")

#: Markers agentmem's context renderer puts around memory and doctrine in a prompt
#: (docs/design/context.md §Context). Text containing one could close the block it sits in, so the guard
#: refuses it.
PROMPT_DELIMITERS: tuple[str, ...] = (
    "<agentmem-memory",
    "</agentmem-memory",
    "<agentmem-doctrine",
    "</agentmem-doctrine",
    "<<<",
    ">>>",
)

#: Placeholders :func:`mask` puts for personal data; secrets become ``[SECRET:<provider>]``.
PLACEHOLDERS = {
    "pii:email": "[EMAIL]",
    "pii:phone": "[PHONE]",
    "pii:iban": "[IBAN]",
    "pii:card": "[CARD]",
    "pii:national-id": "[NATIONAL-ID]",
    "pii:birth-date": "[DATE-OF-BIRTH]",
    "pii:address": "[ADDRESS]",
    "pii:name": "[NAME]",
    "pii:family": "[FAMILY]",
    "pii:health": "[HEALTH]",
    "pii:legal": "[LEGAL]",
    "pii:financial": "[FINANCIAL]",
}


class Finding(Frozen):
    """One reason to refuse (or warn about) a text.

    ``start``/``end`` are 0-based character offsets (code points) in the scanned text;
    ``message`` never contains the matched secret or personal value (docs/design/guard.md §Guard).
    ``severity`` is ``"error"`` (refused) or ``"warning"``.
    """

    _fields = ("code", "message", "start", "end", "severity")
    code: str
    message: str
    start: int
    end: int
    severity: str

    def __init__(
        self, code: str, message: str, start: int, end: int, severity: str = ERROR
    ) -> None:
        self._set(code=code, message=message, start=start, end=end, severity=severity)


class _LazyPattern:
    """A regular expression compiled on its first use: most of the guard's patterns never run
    on a given text (each waits for its words), and the guard runs at every session start
    (docs/design/served.md §Served view), where compiling them all would cost more than the
    scan."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` on first use (:class:`_LazyPattern`)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
