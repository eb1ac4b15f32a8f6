"""Entry records: the metadata a memory entry carries on its own line (docs/decisions/,
2026-12-01 — "memory entries carry their record in a trailing HTML comment").

An entry line may end with ONE marker, after a space::

    - Use British English. <!-- am: basis=inferred scope=contracts/supply since=2026-12-01 review=2026-12-31 expires=2027-03-01 -->

Keys, always in this order when agentmem writes them (a person may edit the values):

- ``basis`` — ``declared`` (the person said or confirmed it) or ``inferred`` (drawn from the
  outcomes of an agent's suggestions); required in a marker.
- ``scope`` — a scope path such as ``contracts/supply``; absent means everywhere.
- ``since`` — ``YYYY-MM-DD``, the day the entry was accepted or last confirmed.
- ``review`` — ``YYYY-MM-DD``, from that day the entry is due for review.
- ``expires`` — ``YYYY-MM-DD``, from that day the entry never reaches a context block; absent
  means it never expires.

Markdown renders the comment as nothing, and :func:`strip_markers` removes it from what reaches
a prompt (the budget counts that text). An entry without a marker is *unrecorded*: no basis is
claimed for it, it applies everywhere and has no dates (it never falls due on its own);
``agentmem memory due`` lists it and ``agentmem memory reconfirm`` records it.

This module is on the hot path (``context chat``, the SessionStart hook): regular expressions
and string comparisons only (ISO dates compare as strings).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from agentmem.errors import InvalidMemoryError
from agentmem.frozen import Frozen
from agentmem.lazyre import lazy_compile
from agentmem.store.paths import check_scope as check_scope

Retired = Sequence[tuple[str, str]]
"""``agentmem.yaml``'s ``retired_scopes``: ``(scope, YYYY-MM-DD)`` pairs."""

BASES = ("declared", "inferred")
KEYS = ("basis", "scope", "since", "review", "expires")
MARKER_OPEN = "<!-- am:"
MARKER_CLOSE = "-->"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


#: An entry line's record marker in its rare shapes (compiled on first use: the hot path rarely needs it).
_MARKER = lazy_compile(r"^(?P<text>.*?)[ \t]+<!-- am:(?P<body>[^\n]*?)-->[ \t]*$")


#: Shown for an entry without a marker (never written into a file).
UNRECORDED = "unrecorded"


class Record(Frozen):
    """One entry's metadata; ``marked`` False for an entry without a marker (unrecorded).

    Dates are ``YYYY-MM-DD`` strings; ``scope`` None means everywhere."""

    _fields = ("basis", "scope", "since", "review", "expires", "marked")
    basis: str | None
    scope: str | None
    since: str | None
    review: str | None
    expires: str | None
    marked: bool

    def __init__(
        self,
        basis: str | None = None,
        scope: str | None = None,
        since: str | None = None,
        review: str | None = None,
        expires: str | None = None,
        marked: bool = False,
    ) -> None:
        self._set(
            basis=basis, scope=scope, since=since, review=review, expires=expires, marked=marked
        )

    @property
    def basis_label(self) -> str:
        """``declared``, ``inferred`` or ``unrecorded``."""
        return self.basis or UNRECORDED

    def describe(self, basis_trailer: str | None = None) -> str:
        """The record as people read it, on a line of its own (``memory show --records``,
        ``memory blame``, review): ``inferred · scope contracts/supply · since 2026-12-01 ·
        review 2026-12-31 · never expires``; for an unrecorded entry what is missing
        (``basis_trailer``: the basis its commit claims)."""
        if not self.marked:
            commit = f" (the commit says {basis_trailer})" if basis_trailer else ""
            return f"unrecorded{commit}: no basis or dates recorded (agentmem memory reconfirm)"
        parts = [self.basis_label, f"scope {self.scope}" if self.scope else "everywhere"]
        parts += [f"since {self.since}"] if self.since else []
        parts += [f"review {self.review}"] if self.review else []
        parts.append(f"expires {self.expires}" if self.expires else "never expires")
        return " · ".join(parts)

    def render(self) -> str:
        """The marker (without the leading space): ``<!-- am: basis=… -->``."""
        parts = [f"basis={self.basis}"]
        for key in KEYS[1:]:
            value = getattr(self, key)
            if value:
                parts.append(f"{key}={value}")
        return f"{MARKER_OPEN} {' '.join(parts)} {MARKER_CLOSE}"

    def state(self, today: str, retired: Retired = ()) -> str:
        """``expired`` (from ``expires`` on), ``review due`` (from ``review`` on, or from the
        day a scope holding the entry was retired when it was confirmed before:
        :func:`retired_on`), else ``ok``."""
        if self.expires and self.expires <= today:
            return "expired"
        if self.review and self.review <= today:
            return "review due"
        if retired and retired_on(self.scope, self.since, retired, today):
            return "review due"
        return "ok"

    def to_dict(self) -> dict[str, str | None]:
        return {
            "basis": self.basis_label,
            "scope": self.scope,
            "since": self.since,
            "review": self.review,
            "expires": self.expires,
        }


NO_RECORD = Record()


def today_iso() -> str:
    """Today as ``YYYY-MM-DD``: ``$AGENTMEM_TODAY`` when set (as for doctrine), else the UTC
    date. Raises :class:`InvalidMemoryError` for a value that is not a date."""
    value = os.environ.get("AGENTMEM_TODAY")
    if not value:
        return datetime.now(UTC).date().isoformat()
    try:
        if not (value.isascii() and _DATE.fullmatch(value)):
            raise ValueError(value)
        date.fromisoformat(value)  # a day of the calendar, as the doctrine's clock demands
    except ValueError:
        raise InvalidMemoryError(f"AGENTMEM_TODAY is {value!r}; expected YYYY-MM-DD") from None
    return value


def add_days(day: str, days: int) -> str:
    """``day`` (``YYYY-MM-DD``) plus ``days`` days."""
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def split_entry(line: str) -> tuple[str, str | None]:
    """An entry line as ``(its text, its record's marker body or None)`` — THE one reading of
    an entry line: the memory file's parser, every reader of entries (the context, review
    diffs, ``memory show``, search, the offline extractor, the memory tool) and the matching of
    a ``modify``/``remove`` target all go through it (docs/design/memory.md §Memory file).

    ``line`` is an entry as the file holds it, ``- text <!-- am: … -->`` and its line end, or a
    text given for one (a target quoted with its marker, a line copied from the file): the
    line end, ONE leading ``- `` and a record marker (the first ``<!-- am:`` after a blank,
    when the line ends with ``-->`` then blanks; the blanks before it too) are not the text."""
    body = line[:-1] if line[-1:] == "\n" else line
    if body[:2] == "- ":
        body = body[2:]
    at = body.find(MARKER_OPEN)
    if at < 0:
        return body, None
    end = body.rstrip(" \t")
    if at > 0 and body[at - 1] in " \t" and end.endswith(MARKER_CLOSE) and "\n" not in end:
        inner = end[at + len(MARKER_OPEN) : len(end) - len(MARKER_CLOSE)]
        if len(end) - len(MARKER_CLOSE) >= at + len(MARKER_OPEN):
            return body[:at].rstrip(" \t"), inner
    match = _MARKER.match(body)  # the rare shapes: the regular expression decides
    if match is None:
        return body, None
    return match.group("text"), match.group("body")


def entry_text(line: str) -> str:
    """The text of an entry line (:func:`split_entry`), without its record."""
    return split_entry(line)[0]


def strip_markers(text: str) -> str:
    """A memory file's text as it reaches a prompt: every entry line as ``- `` and its text
    (:func:`split_entry`: the record marker and the blanks before it removed). The budget
    counts this text; line numbers do not change."""
    if MARKER_OPEN not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line[:2] == "- " and MARKER_OPEN in line:
            lines[i] = "- " + split_entry(line)[0]
    return "\n".join(lines)


def parse_record(body: str, where: str) -> Record:
    """A marker's body (``basis=… scope=…``) as a :class:`Record` (a body already read is
    not parsed again: entries accepted together share their marker).

    Raises :class:`InvalidMemoryError` naming the key for an unknown or repeated key, a
    missing or unknown basis, a bad scope or a date that is not ``YYYY-MM-DD``."""
    try:
        return _known_record(body)
    except InvalidMemoryError:
        return _parse_record(body, where)  # the same refusal, naming where


def _parse_record(body: str, where: str) -> Record:
    values: dict[str, str] = {}
    for item in body.split():
        key, sep, value = item.partition("=")
        if not sep or not value:
            raise InvalidMemoryError(
                f"{where}: metadata {item!r} is not key=value (keys: {', '.join(KEYS)})"
            )
        if key not in KEYS:
            raise InvalidMemoryError(
                f"{where}: unknown metadata key {key!r} (keys: {', '.join(KEYS)})"
            )
        if key in values:
            raise InvalidMemoryError(f"{where}: metadata key {key!r} appears twice")
        values[key] = value
    basis = values.get("basis")
    if basis not in BASES:
        raise InvalidMemoryError(
            f"{where}: metadata basis is {basis!r}; expected declared or inferred"
        )
    for key in ("since", "review", "expires"):
        if key in values:
            try:
                if not _DATE.match(values[key]):
                    raise ValueError
                date.fromisoformat(values[key])
            except ValueError:
                raise InvalidMemoryError(
                    f"{where}: metadata {key}={values[key]!r} is not a date (YYYY-MM-DD)"
                ) from None
    scope = check_scope(values["scope"], where) if "scope" in values else None
    return Record(
        basis,
        scope,
        values.get("since"),
        values.get("review"),
        values.get("expires"),
        marked=True,
    )


@lru_cache(maxsize=4096)
def _known_record(body: str) -> Record:
    return _parse_record(body, "")


def forget() -> None:
    """Forget the markers already read (benchmarks measure a fresh process with it)."""
    _known_record.cache_clear()


def broken_marker(text: str) -> bool:
    """True when an entry's text (marker split off) still holds a marker opening: a marker
    not at the end of the line, or two of them."""
    return MARKER_OPEN in text


def scope_contains(entry_scope: str | None, scope: str | None) -> bool:
    """An entry applies under ``scope`` when it is meant everywhere (None) or its scope is
    ``scope`` or above it (``contracts`` contains ``contracts/supply``). With ``scope`` None
    (no scope known) only the entries meant everywhere apply: a scoped entry is narrow."""
    if entry_scope is None:
        return True
    if scope is None:
        return False
    return scope == entry_scope or scope.startswith(entry_scope + "/")


def retired_on(
    scope: str | None, confirmed: str | None, retired: Retired, today: str
) -> str | None:
    """The day a retirement (``agentmem scope retire``) sent an entry or a rule of ``scope`` to
    review, or None: a retired scope that is ``scope`` or above it, retired on or before
    ``today``, after ``confirmed`` (the day the item was accepted, approved or last confirmed;
    None: unknown, so before). Something meant everywhere (``scope`` None) is never retired;
    the earliest such day wins (docs/decisions/0052)."""
    if scope is None:
        return None
    found: str | None = None
    for gone, day in retired:
        if day > today or (confirmed is not None and confirmed >= day):
            continue
        if (scope == gone or scope.startswith(gone + "/")) and (found is None or day < found):
            found = day
    return found


def with_dates(record: Record, since: str, review_days: int, expire_days: int | None) -> Record:
    """``record`` confirmed on ``since``: review and expiry moved by the retention class."""
    return record.replace(
        since=since,
        review=add_days(since, review_days),
        expires=add_days(since, expire_days) if expire_days else None,
        marked=True,
    )
