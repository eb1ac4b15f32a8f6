"""One validation for every id and scope agentmem stores (docs/design/overview.md §Vocabulary): session
ids (``--session``, a transcript's ``sessionId``, a hook's ``session_id``) and scopes
(``--scope``, ``context audit --scope``).

They end up in commit trailers and subjects, inbox files, ``harvested.jsonl`` and
``usage.jsonl``, so each is refused — with the rule it broke, never its value — unless it is a
short slug that the guard finds nothing in (a token given as ``--session`` is not an id).
Light: imports the guard only when a value passes the shape rule.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentmem.errors import AgentmemError, UsageError

SESSION_MAX_CHARS = 128
SCOPE_MAX_CHARS = 200
_SESSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*\Z")
_SCOPE_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


#: Session ids are random by design (``mcp-20261201T105547-bb34a8``, UUIDs): a random-looking
#: token is what they are, so these two codes do not refuse one; a provider key still does.
_RANDOM_CODES = frozenset({"secret:entropy", "encoded-blob"})


@lru_cache(maxsize=4096)
def _guard_codes(value: str, ignore: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The guard's refusal codes for ``value``; cached: a listing of thousands of rules checks
    the same few scopes over and over, and the guard depends on nothing but the text."""
    # lazy: the guard's patterns load only when an id is checked
    from agentmem import guard

    found = guard.scan(value, kind="rule")
    return tuple(
        sorted({f.code for f in found if f.severity == guard.ERROR and f.code not in ignore})
    )


def check_session(
    value: str, where: str = "--session", error: type[AgentmemError] = UsageError
) -> str:
    """``value`` when it is a valid session id: at most 128 characters, letters, digits and
    ``. _ : -`` (a letter or digit first), nothing the guard refuses. Raises ``error`` (a
    :class:`UsageError` by default) naming the rule broken, never the value."""
    if not value or len(value) > SESSION_MAX_CHARS or not _SESSION.match(value):
        raise error(
            f"{where}: invalid session id (value not shown): at most {SESSION_MAX_CHARS} "
            "letters, digits and . _ : - , starting with a letter or digit",
        )
    codes = _guard_codes(value, _RANDOM_CODES)
    if codes:
        raise error(
            f"{where}: invalid session id (value not shown): the guard refuses it "
            f"({', '.join(codes)})",
            hint="a session id names a session; never put a secret or personal data in it",
        )
    return value


def check_scope(
    value: str | None, where: str = "--scope", error: type[AgentmemError] = UsageError
) -> str | None:
    """A scope as stored (``/``-separated ``[A-Za-z0-9_.-]`` segments, no ``.``/``..``, at most
    200 characters, nothing the guard refuses), or None for none. Raises ``error`` naming the
    rule broken, never the value."""
    if value is None or not value.strip():
        return None
    clean = value.strip().strip("/")
    segments = clean.split("/")
    if len(clean) > SCOPE_MAX_CHARS or any(
        s in (".", "..") or not _SCOPE_SEGMENT.match(s) for s in segments
    ):
        raise error(
            f"{where}: invalid scope (value not shown): at most {SCOPE_MAX_CHARS} characters, "
            "/-separated segments of letters, digits and . _ - (e.g. contracts/supply)",
        )
    codes = _guard_codes(clean)
    if codes:
        raise error(
            f"{where}: invalid scope (value not shown): the guard refuses it ({', '.join(codes)})",
            hint="a scope names a domain such as contracts/supply; never a secret",
        )
    return clean
