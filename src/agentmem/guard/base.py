"""The guard's vocabulary (docs/design/guard.md §Guard): severities, scan kinds, prompt delimiters,
placeholders and :class:`Finding`."""

from __future__ import annotations

from importlib.util import find_spec

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


def package_folder(name: str) -> str:
    """The folder of the installed top-level package ``name``, found as an import would find it
    but without importing it (or ``importlib.resources``, whose import costs the hot path more
    than the guard's look-ups: docs/design/code.md §Hot path). Raises ``ModuleNotFoundError``
    when it is not installed as a folder."""
    spec = find_spec(name)
    folders = spec.submodule_search_locations if spec is not None else None
    if not folders:
        raise ModuleNotFoundError(f"no package folder for {name!r}", name=name)
    return str(next(iter(folders)))
