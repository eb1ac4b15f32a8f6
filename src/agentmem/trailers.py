"""The audit trailer vocabulary: every ``Agentmem-*`` name, how a commit message carries them, and
how they are read back (docs/design/governance.md §Trailers).

This is the only module that spells a trailer name; everything else imports the constants
(``tests/test_architecture.py`` fails on an ``Agentmem-`` string literal anywhere else in
``src/``). It imports nothing from agentmem, so the git adapter, the hot path and the history
check can all use it.

- :func:`message` builds ``subject``, an optional body and the trailer block (a blank line, then
  ``Key: value`` lines; the message ends with a newline so git sees the trailers);
- :func:`parse` reads ``git log --format=%(trailers:only,unfold)`` output back into
  ``{name: [values in order]}``, keeping only ``Agentmem-*`` names;
- :func:`audit` is the ``Actor`` and ``Role`` pair every agentmem commit carries;
  :func:`actor_email` / :func:`actor_id` read an ``Agentmem-Actor`` value (``id <email>``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:  # a type only: a protocol class would import typing at run time
    from typing import Protocol

    class _Actor(Protocol):
        @property
        def role(self) -> str: ...

        def signature(self) -> str: ...


PREFIX = "Agentmem-"
"""Every agentmem trailer name starts with this; other trailers are ignored when reading."""

ACTION = PREFIX + "Action"
"""What the commit did: ``init``, ``propose``, ``accept``-type actions, ``reject``, ``edit``,
``erase`` and the doctrine transitions (``propose``, ``approve``, ``suspend``, …)."""
ACTOR = PREFIX + "Actor"
"""Who did it, ``person <email>`` (the person id from ``roles.yaml``); must be the git author."""
ROLE = PREFIX + "Role"
"""The actor's role in ``roles.yaml`` when the commit was made."""
ROUTE = PREFIX + "Route"
"""``memory`` or ``doctrine``: where an accepted proposal went."""
DECISION = PREFIX + "Decision"
"""``accepted``, ``rejected`` or ``edited``."""
PROPOSAL = PREFIX + "Proposal"
"""A proposal id (repeated on a harvest or a rejection that names several)."""
SESSION = PREFIX + "Session"
"""A session id (repeated on a rejection that spans several sessions); on a person's decision
(``doctrine approve``, ``suspend`` …, ``--session``), the session it was taken in."""
REASON = PREFIX + "Reason"
"""Why a person decided, in their words (``--reason`` of ``doctrine approve``, ``suspend``,
``resume``, ``deactivate``, ``archive``, ``reconfirm``, ``restore``, ``scope retire``; one line, passed through
the guard)."""
SOURCE = PREFIX + "Source"
"""Where proposals came from on a harvest: a provider name or ``remember``."""
SCOPE = PREFIX + "Scope"
"""The scope of the proposal or rule, when it has one."""
BASIS = PREFIX + "Basis"
"""Why the proposal rests on the session: ``declared`` or ``inferred``."""
SECTION = PREFIX + "Section"
"""The memory section an accepted proposal was written to."""
EDITED = PREFIX + "Edited"
"""``yes`` when the reviewer edited the proposal before accepting it."""
CORRECTED = PREFIX + "Corrected"
"""What the reviewer corrected besides the text, as ``field: old -> new`` (``route``,
``section``, ``target``), one trailer per field."""
JUSTIFICATION = PREFIX + "Justification"
"""The proposal's or rule's justification (scrubbed by ``agentmem erase --person``)."""
RULE = PREFIX + "Rule"
"""A doctrine rule id."""
VERSION = PREFIX + "Version"
"""The rule's version after the commit."""
STATUS_FROM = PREFIX + "Status-From"
"""The rule's status before the commit (``new`` for a creation)."""
STATUS_TO = PREFIX + "Status-To"
"""The rule's status after the commit."""
DISTINCT_FROM = PREFIX + "Distinct-From"
"""Rules a new or edited rule was declared distinct from (the duplicate guard)."""
RESTORED_FROM = PREFIX + "Restored-From"
"""The version a ``doctrine restore`` brought back."""
REVIEW_DUE = PREFIX + "Review-Due"
"""``old → new`` review date of a reconfirmation."""
ERASED = PREFIX + "Erased"
"""The class of data an ``agentmem erase`` removed (never the data)."""
FOREIGN = PREFIX + "Foreign"
"""Why an accepted proposal was not its owner's (``committed by bob in <commit>, not by alice``,
as ``agentmem inbox`` says it): the owner took it with ``review --allow-foreign``."""
APPROVES = PREFIX + "Approves"
"""The full id of a commit relaxing a governance setting that a second admin approves
(``Agentmem-Action: approve-settings``, ``agentmem settings approve``)."""

ALL = (
    ACTION, ACTOR, ROLE, ROUTE, DECISION, PROPOSAL, SESSION, SOURCE, SCOPE, BASIS, SECTION,
    EDITED, JUSTIFICATION, RULE, VERSION, STATUS_FROM, STATUS_TO, DISTINCT_FROM, RESTORED_FROM,
    REVIEW_DUE, ERASED, APPROVES, FOREIGN, REASON,
)  # fmt: skip
"""Every trailer name agentmem writes."""

REQUIRED = (ACTION, ACTOR, ROLE)
"""The trailers every agentmem commit carries (the repository's first ``init`` only ACTION)."""

Trailers = Sequence[tuple[str, str]]
"""``(name, value)`` pairs in the order they are written."""


def audit(actor: _Actor) -> list[tuple[str, str]]:
    """``[(ACTOR, "id <email>"), (ROLE, role)]`` for the person making the commit."""
    return [(ACTOR, actor.signature()), (ROLE, actor.role)]


def message(subject: str, trailers: Trailers, body: str = "") -> str:
    """``subject\\n\\nbody\\n\\nKey: value\\n…``: the subject and each value on one line
    (whitespace runs become one space), the body stripped; ends with a newline."""
    lines = [" ".join(subject.split())]
    if body.strip():
        lines += ["", body.strip()]
    if trailers:
        lines.append("")
        for key, value in trailers:
            flat = " ".join(str(value).split())
            lines.append(f"{key}: {flat}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict[str, list[str]]:
    """``Key: value`` lines (git's ``%(trailers:only,unfold)``) → ``{name: [values in order]}``,
    only names starting with :data:`PREFIX`; keys and values stripped."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if sep and key.startswith(PREFIX):
            found.setdefault(key, []).append(value.strip())
    return found


def log_format(name: str) -> str:
    """The ``git log --format`` placeholder printing only the values of trailer ``name``."""
    return f"%(trailers:key={name},valueonly)"


@functools.cache
def _email() -> re.Pattern[str]:
    """The ``<email>`` ending an actor value
    (compiled on first use: the hot path never needs it)."""
    return re.compile(r"<([^<>]+)>\s*$")


def actor_email(value: str) -> str | None:
    """The email of an ``Agentmem-Actor`` value ``id <email>``, or None when it has none."""
    match = _email().search(value)
    return match.group(1) if match else None


def actor_id(value: str) -> str | None:
    """The person id of an ``Agentmem-Actor`` value ``id <email>`` (None when empty)."""
    return value.split(" ", 1)[0] or None
