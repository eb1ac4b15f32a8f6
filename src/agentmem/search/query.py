"""Recall: ranked keyword search over what agentmem knows (docs/design/search.md §Recall).

``search(repo, actor, query, …)`` answers from the derived FTS5 index of
:mod:`agentmem.search.index` (BM25 ranking), after bringing it up to date from git. Who reads
what — the same rules for the CLI and the MCP tool:

- ``memory``: personal entries of the actor, or of ``person`` when the actor is that person or
  an admin;
- ``doctrine``: every rule at its current version, whatever its status (shown with each hit);
- ``inbox``: pending proposals of the actor (an admin: of ``person``);
- ``history``: commit subjects and ``Agentmem-Justification`` trailers — a commit that touched
  a memory file or an inbox is read only by its owner(s) and the admins — and every older
  version of each rule.

A memory entry whose record has expired (``expires=`` on or before today, ``AGENTMEM_TODAY``
as everywhere) is left out of the hits — it reaches no context block, and search is a way into
one (the MCP tool) — and a note says how many matched (``agentmem memory due`` lists them).

The query is FTS5 syntax (words, ``"phrases"``, ``AND``/``OR``/``NOT``, ``prefix*``); a syntax
error is a :class:`~agentmem.errors.UsageError` (exit 2) naming the character position. The
query is never written to any log, file or commit.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agentmem import governance
from agentmem.errors import UsageError
from agentmem.memory.records import today_iso
from agentmem.search.index import build, check_rows, open_index

if TYPE_CHECKING:
    from agentmem.store.repo import Person, Repository

KINDS = ("memory", "doctrine", "inbox", "history")
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
#: Characters a query may hold (checked before it is parsed).
MAX_QUERY_CHARS = 1000
_OPEN, _CLOSE = "\x02", "\x03"
_MARK = re.compile(f"{_OPEN}(.*?){_CLOSE}", re.S)
SNIPPET_CHARS = 160


@dataclass(frozen=True)
class Hit:
    """One search hit. ``kind``: memory | doctrine | inbox | history. ``where``: ``file:line``
    (a memory entry, a rule, a proposal), ``file@commit:line`` (an older rule version) or
    ``commit <id>``. ``snippet``: the matching line with the matched words between ``**``;
    ``matched``: those words as the file holds them. ``rule``/``version``/``status``/``scope``
    for doctrine; ``person`` for memory, inbox and personal history; ``commit``/``date`` for
    history. ``score``: BM25 (lower is better, as SQLite gives it)."""

    kind: str
    where: str
    path: str
    line: int | None
    snippet: str
    matched: list[str]
    label: str
    person: str | None = None
    rule: str | None = None
    version: int | None = None
    status: str | None = None
    scope: str | None = None
    commit: str | None = None
    date: str | None = None
    score: float = 0.0
    #: for a proposal its owner did not commit: why (as ``agentmem inbox`` flags it)
    foreign: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """What and whose, in words: ``rule warranty-24 v2 (active, contracts/supply)``."""
        if self.kind == "memory":
            return f"memory of {self.person} ({self.label})"
        if self.kind == "inbox":
            flag = f" — NOT FROM {self.person}: {self.foreign}" if self.foreign else ""
            return f"proposal {self.label} of {self.person}{flag}"
        if self.kind == "doctrine" or (self.kind == "history" and self.rule and self.path):
            where = f", {self.scope}" if self.scope else ", scope to be assigned"
            older = "older version, " if self.kind == "history" else ""
            return f"rule {self.rule} v{self.version} ({older}{self.status}{where})"
        return f"decision {self.date[:10] if self.date else ''}".rstrip()


@dataclass(frozen=True)
class SearchResult:
    """``hits`` best first; ``notes``: one line each about the index (rebuilt, why)."""

    hits: list[Hit]
    notes: list[str] = field(default_factory=list)


def parse_kinds(value: str | None) -> tuple[str, ...]:
    """``--in memory,doctrine`` → the kinds; all when None. Raises UsageError for an unknown one."""
    if value is None or not value.strip():
        return KINDS
    kinds = tuple(dict.fromkeys(k.strip() for k in value.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise UsageError(
            f"--in: unknown area {unknown[0] if unknown else value!r} (areas: {', '.join(KINDS)})"
        )
    return kinds


def reader_scope(repo: Repository, actor: Person, person: str | None) -> str | None:
    """Whose personal documents the actor reads: the actor, or ``person`` when the actor is that
    person or an admin; None means nobody's in particular is asked (never returned for now).
    Raises GovernanceError / UsageError (unknown person)."""
    if person is None or person == actor.id:
        return actor.id
    repo.person(person)
    governance.require_read(
        actor,
        person,
        f"{person}'s memory, inbox and history are",
        "search without --person (your own), or ask an admin",
    )
    return person


def syntax_error(query: str, exc: sqlite3.Error) -> UsageError:
    """An FTS5 error as a usage error with the character position (1-based); the query itself
    is not repeated (it may hold anything)."""
    text = str(exc)
    near = re.search(r'near "(.*)"$', text)
    position = None
    if near:
        token = near.group(1)
        found = query.find(token) if token else len(query)
        position = found + 1 if found >= 0 else None
    elif "unterminated string" in text:
        position = query.rfind('"') + 1 or None
    elif "no such column" in text:
        column = text.rsplit(":", 1)[-1].strip()
        found = query.find(column)
        position = found + 1 if found >= 0 else None
    at = f" at character {position}" if position else ""
    what = text.removeprefix("fts5: ")
    return UsageError(
        f"the search query is not valid FTS5 syntax{at} ({what})",
        hint='use plain words, "a phrase", AND / OR / NOT, prefix* — quote words holding '
        "punctuation",
    )


def search(
    repo: Repository,
    actor: Person,
    query: str,
    *,
    kinds: tuple[str, ...] = KINDS,
    person: str | None = None,
    scope: str | None = None,
    status: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> SearchResult:
    """Hits for ``query`` that ``actor`` may read (see the module docstring), best first.

    ``scope``: only documents with a scope that meets it (equal, above or below: rules, rule
    versions, proposals). ``status``: only documents of that status (a rule's status; ``pending``
    for proposals). Raises UsageError (empty or invalid query, bad limit), GovernanceError."""
    if len(query) > MAX_QUERY_CHARS:  # before any parse or scan
        raise UsageError(
            f"the search query is {len(query):,} characters; at most {MAX_QUERY_CHARS:,}",
            hint="search for a few words",
        )
    if not query.strip():
        raise UsageError("the search query is empty", hint="give one or more words")
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, got {limit}")
    owner = reader_scope(repo, actor, person)
    today = today_iso()
    others = governance.may(actor.role, governance.READ_OTHERS)
    sql, args = _sql(query, kinds, owner, others, scope, status, limit)
    opened = open_index(repo.root)
    notes = list(opened.notes)
    rows = _query(opened.conn, query, sql, args)
    checked = check_rows(repo.root, opened.head, rows)
    if checked.stale:  # the index says what no source does: rebuilt, and asked again
        build(repo.root, opened.head)
        count = len(checked.stale)
        notes.append(
            f"search index out of step with its source ({count} hit{'s' if count != 1 else ''}"
            f" that {checked.stale[0]}{' and others' if count > 1 else ''} does not hold, left "
            "out): rebuilt"
        )
        again = open_index(repo.root)
        checked = check_rows(repo.root, again.head, _query(again.conn, query, sql, args))
        stale = len(checked.stale)
        if stale:
            notes.append(
                f"{stale} more hit{'s' if stale != 1 else ''} not held by the source, left out"
            )
    for path, count in sorted(checked.uncommitted.items()):
        notes.append(
            f"{path} has changes that are not committed: {count} hit{'s' if count != 1 else ''}"
            " in them left out (search reads what is committed)"
        )
    expired: list[Hit] = []
    hits = [hit for row in checked.kept for hit in _hits(row, today, expired)]
    if expired:
        count = len(expired)
        notes.append(
            f"{count} expired memory entr{'y' if count == 1 else 'ies'} matched and "
            f"{'is' if count == 1 else 'are'} left out (agentmem memory due lists them)"
        )
    return SearchResult(_flag_foreign(repo, hits[:limit]), notes)


def _query(conn: sqlite3.Connection, query: str, sql: str, args: list[Any]) -> list[Any]:
    """The rows of the statement (its connection closed after); an invalid query a usage
    error."""
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        raise syntax_error(query, exc) from None
    finally:
        conn.close()


def _flag_foreign(repo: Repository, hits: list[Hit]) -> list[Hit]:
    """``hits`` with each proposal its owner did not commit flagged (``foreign``), as every
    listing of the inbox flags it (docs/design/served.md §Served view)."""
    people = sorted({h.person for h in hits if h.kind == "inbox" and h.person})
    if not people:
        return hits
    # lazy: only a search that found proposals reads their provenance
    from agentmem.proposals.inbox import foreign, proposal_relpath, read_inbox

    flags: dict[str, str] = {}
    for person in people:
        box = read_inbox(repo, person)  # the bytes parsed: foreign does not read them again
        pending = box.proposals
        why = foreign(repo, pending, box.read)
        flags.update({proposal_relpath(p): why[p.id] for p in pending if p.id in why})
    return [replace(h, foreign=flags.get(h.path)) if h.kind == "inbox" else h for h in hits]


#: Every column (each hit is checked against its source: :func:`agentmem.search.index.check_rows`),
#: then the body with the matched words marked, and the rank.
SELECT = (
    "SELECT body, kind, key, path, lines, person, rule, version, status, scope, commit_id, date, "
    "label, highlight(docs, 0, char(2), char(3)), rank FROM docs WHERE docs MATCH ?"
)


def _sql(
    query: str,
    kinds: tuple[str, ...],
    owner: str | None,
    admin: bool,
    scope: str | None,
    status: str | None,
    limit: int,
) -> tuple[str, list[Any]]:
    where = [SELECT]
    args: list[Any] = [query]
    where.append(f"AND kind IN ({', '.join('?' * len(kinds))})")
    args += list(kinds)
    if owner is not None:
        admins = " OR person = ' @admin '" if admin else ""
        where.append(f"AND (person = '' OR instr(person, ?) > 0{admins})")
        args.append(f" {owner} ")
    if scope:
        scope = scope.strip().strip("/")
        where.append(
            "AND scope != '' AND (scope = ? OR substr(?, 1, length(scope) + 1) = scope || '/' "
            "OR substr(scope, 1, length(?) + 1) = ? || '/')"
        )
        args += [scope, scope, scope, scope]
    if status:
        where.append("AND status = ? AND path != ''")  # a commit's status column is its action
        args.append(status)
    where.append("ORDER BY rank LIMIT ?")
    args.append(limit)
    return " ".join(where), args


def _hits(row: tuple[Any, ...], today: str, expired: list[Hit]) -> list[Hit]:
    """The hits of one matching document: one per matching entry of a memory file, else one
    (at the document's first matching line). A memory entry expired on ``today`` goes to
    ``expired`` instead."""
    _body, kind, _key, path, lines, person, rule, version, status, scope, commit, date = row[:12]
    label, marked, rank = row[12:]
    expiries = date.split("\x1f") if kind == "memory" else []
    if kind == "memory":
        date = ""
    body_lines = marked.split("\n")
    numbers = [int(n) for n in lines.split(",")] if lines else []
    marked_at = [i for i, b in enumerate(body_lines) if _OPEN in b] or [0]
    if kind != "memory":
        marked_at = marked_at[:1]
    labels = label.split("\x1f") if kind == "memory" else []
    hits: list[Hit] = []
    for index in marked_at:
        line = numbers[index] if index < len(numbers) else None
        text = body_lines[index]
        expires = expiries[index] if index < len(expiries) else ""
        if path and kind == "history":
            where = f"{path}@{commit[:10]}:{line}" if line else f"{path}@{commit[:10]}"
        elif path:
            where = f"{path}:{line}" if line else path
        else:
            where = f"commit {commit[:10]}"
        (expired if expires and expires <= today else hits).append(
            Hit(
                kind=kind,
                where=where,
                path=path,
                line=line,
                snippet=_snippet(text),
                matched=list(dict.fromkeys(m.group(1) for m in _MARK.finditer(text))),
                label=labels[index] if index < len(labels) else label,
                person=person.strip() if person.strip()[:1] not in ("", "@") else None,
                rule=rule or None,
                version=int(version) if version.isdigit() else None,
                status=status or None,
                scope=scope or None,
                commit=commit or None,
                date=date or None,
                score=round(float(rank), 4),
            )
        )
    return hits


def _snippet(text: str) -> str:
    """The line around its first match, at most about :data:`SNIPPET_CHARS` characters, with
    the matched words between ``**``."""
    first = text.find(_OPEN)
    if len(text) > SNIPPET_CHARS and first > SNIPPET_CHARS // 3:
        text = "…" + text[first - SNIPPET_CHARS // 3 :]
    if len(text) > SNIPPET_CHARS + 20:
        text = text[:SNIPPET_CHARS] + "…"
    if text.count(_OPEN) > text.count(_CLOSE):
        text += _CLOSE
    return text.replace(_OPEN, "**").replace(_CLOSE, "**")


__all__ = ["KINDS", "Hit", "SearchResult", "parse_kinds", "search", "syntax_error"]
