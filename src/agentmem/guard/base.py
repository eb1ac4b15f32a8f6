"""The guard's vocabulary (docs/design/guard.md §Guard): severities, scan kinds, prompt delimiters,
placeholders and :class:`Finding`."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Finding:
    """One reason to refuse (or warn about) a text.

    ``start``/``end`` are 0-based character offsets (code points) in the scanned text;
    ``message`` never contains the matched secret or personal value (docs/design/guard.md §Guard).
    ``severity`` is ``"error"`` (refused) or ``"warning"``.
    """

    code: str
    message: str
    start: int
    end: int
    severity: str = ERROR
