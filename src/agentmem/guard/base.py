"""The guard's vocabulary (docs/design/guard.md §Guard): severities, scan kinds, prompt delimiters,
placeholders and :class:`Finding`."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

from agentmem.frozen import Frozen

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

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
    scan. Its source may be a function, called then (the harvest's shapes of a sentence, whose
    words come from the language files)."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str | Callable[[], str], flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            pattern, flags = self._args
            source = pattern if isinstance(pattern, str) else pattern()
            compiled = self._compiled = re.compile(source, flags)
        return getattr(compiled, name)


def lazy_compile(pattern: str | Callable[[], str], flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` on first use (:class:`_LazyPattern`); ``pattern`` may be
    a function giving the source."""
    lazy: re.Pattern[str] = _LazyPattern(pattern, flags)  # type: ignore[assignment]
    return lazy


def ignores_case(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` ignores case, read without compiling a :func:`lazy_compile` one: its
    flags, or a leading ``(?i)`` (where the guard's patterns say it)."""
    if isinstance(pattern, _LazyPattern):
        source, flags = pattern._args
        if isinstance(source, str):
            return bool(flags & re.IGNORECASE) or source.startswith("(?i)")
    return bool(pattern.flags & re.IGNORECASE)


def package_folder(name: str) -> Path:
    """The folder of the installed top-level package ``name``, found as an import would find it
    but without importing it (or ``importlib.resources``, whose import costs the hot path more
    than the guard's look-ups: docs/design/code.md §Hot path). Raises ``ModuleNotFoundError``
    when it is not installed as a folder."""
    spec = find_spec(name)
    folders = spec.submodule_search_locations if spec is not None else None
    if not folders:
        raise ModuleNotFoundError(f"no package folder for {name!r}", name=name)
    return Path(next(iter(folders)))
