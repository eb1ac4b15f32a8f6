"""Regular expressions compiled on their first use (:func:`lazy_compile`), for every module on
the hot path: most patterns never run on a given call, and each module-level ``re.compile`` is
paid by every session start that imports it (docs/design/code.md §Hot path)."""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any


class _LazyPattern:
    """A regular expression compiled on its first use: most of the guard's patterns never run
    on a given text (each waits for its words), and the guard runs at every session start
    (docs/design/served.md §Served view), where compiling them all would cost more than the
    scan. Its source may be a function, called then (the harvest's shapes of a sentence, whose
    words come from the language files; the guard's instructions, whose spaces are rewritten)."""

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
