"""Entries due for attention (docs/decisions/0051), and the
owner's reconfirmation of entries: ``agentmem memory due`` and ``agentmem memory reconfirm``.

- **expired**: ``expires`` is today or earlier; never given to any context block.
- **review due**: ``review`` is today or earlier, or a scope holding the entry was retired
  after it was confirmed (``agentmem scope retire``; ``retired`` names that day); given or not
  by ``memory.on_review_due``.
- **unrecorded**: no record marker (a file from before records); the basis and date shown are
  those of the audit commit that last set the line (``Agentmem-Basis``), when there is one.

A reconfirmation rewrites the markers of the named entries (basis and scope kept; ``since``
today; review and expiry moved by ``memory.retention``) in ONE audited commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes, read_current
from agentmem.errors import UsageError
from agentmem.governance import require_memory_role, require_owner
from agentmem.memory.file import MemoryFile, modify_entry_at, new_memory_text, parse_memory
from agentmem.memory.records import Record, retired_on, today_iso
from agentmem.store.repo import Person, Repository
from agentmem.store.sign import signing_wanted


@dataclass(frozen=True)
class DueEntry:
    """One entry needing attention: ``state`` expired | review due | unrecorded; ``basis`` the
    record's, or for an unrecorded entry the accepting commit's (``None`` when unknown);
    ``date`` the record's ``since`` or the accepting commit's date (``YYYY-MM-DD``)."""

    number: int
    section: str
    text: str
    state: str
    basis: str | None
    scope: str | None
    date: str | None
    review: str | None
    expires: str | None
    applied: bool
    #: the day a retired scope sent the entry to review (``agentmem scope retire``), or None.
    retired: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _memory(repo: Repository, person: str) -> tuple[str | None, MemoryFile]:
    relpath = repo.memory_relpath(person)
    text = read_current(repo.root, relpath)
    base = text if text is not None else new_memory_text(person, repo.config.memory)
    return text, parse_memory(base, person, repo.config.memory, relpath)


def _commit_facts(repo: Repository, person: str) -> dict[int, tuple[str | None, str | None]]:
    """Entry number → (basis trailer, date) of the audit commit that last set its line."""
    # lazy: git blame through the audit trail only for the entries that have no record
    from agentmem.proposals.trail import blame_memory

    return {
        b.number: (b.basis_trailer, (b.date or "")[:10] or None) for b in blame_memory(repo, person)
    }


def due_entries(repo: Repository, person: str, today: str | None = None) -> list[DueEntry]:
    """Expired, past-review and unrecorded entries of ``person``'s memory, in file order."""
    day = today or today_iso()
    _text, memory = _memory(repo, person)
    suspend = repo.config.memory.on_review_due == "suspend"
    retired = repo.config.retired_scopes
    found: list[DueEntry] = []
    facts: dict[int, tuple[str | None, str | None]] | None = None
    for entry in memory.entries():
        record = entry.record
        gone = None
        if record.marked:
            state = record.state(day, retired)
            if state == "review due" and not (record.review and record.review <= day):
                gone = retired_on(record.scope, record.since, retired, day)
            if state == "ok":
                continue
            basis, date = record.basis, record.since
            applied = state == "review due" and not suspend
        else:
            if facts is None:
                facts = _commit_facts(repo, person)
            state, applied = "unrecorded", True
            basis, date = facts.get(entry.number, (None, None))
        found.append(
            DueEntry(
                entry.number,
                entry.section,
                entry.text,
                state,
                basis,
                record.scope,
                date,
                record.review,
                record.expires,
                applied,
                gone,
            )
        )
    return found


def reconfirm(repo: Repository, actor: Person, numbers: list[int]) -> tuple[str | None, list[str]]:
    """Reconfirm entries ``numbers`` of the actor's own memory: ONE commit (action
    ``reconfirm``). Returns the commit id and one line per entry (``#2: review 2027-12-01``).

    An unrecorded entry takes the basis of the commit that last set it (``declared`` when that
    commit carries none: the owner's own edit). Raises :class:`UsageError` for an unknown entry
    number, :class:`GovernanceError` for anyone but the owner (``governance.require_owner``).
    """
    # lazy: the planner only to reconfirm (``memory due`` only reads)
    from agentmem.apply.planner import new_record

    require_memory_role(actor, "reconfirming entries of a personal memory")
    require_owner(actor, actor.id, "reconfirming entries of")
    old, memory = _memory(repo, actor.id)
    entries = memory.entries()
    wanted = sorted(set(numbers))
    unknown = [n for n in wanted if not 1 <= n <= len(entries)]
    if unknown or not wanted:
        raise UsageError(
            f"no entry #{unknown[0] if unknown else '?'} in {repo.memory_relpath(actor.id)} "
            f"(it has {len(entries)} entr{'y' if len(entries) == 1 else 'ies'})",
            hint="agentmem memory due lists the entries to reconfirm, with their numbers",
        )
    facts = (
        _commit_facts(repo, actor.id)
        if any(not entries[n - 1].record.marked for n in wanted)
        else {}
    )
    day = today_iso()
    lines = []
    for number in wanted:
        entry = memory.entries()[number - 1]
        basis = entry.record.basis or facts.get(number, (None, None))[0] or "declared"
        if basis not in ("declared", "inferred"):
            basis = "declared"
        record: Record = new_record(basis, entry.record.scope, repo.config.memory, day)
        memory = modify_entry_at(memory, entry, entry.text, record)
        until = f", expires {record.expires}" if record.expires else ""
        lines.append(f"#{number}: {basis}, review {record.review}{until}")
    relpath = repo.memory_relpath(actor.id)
    listed = ", ".join(f"#{n}" for n in wanted)
    trailers = [
        (tr.ACTION, "reconfirm"),
        (tr.ROUTE, "memory"),
        *tr.audit(actor),
        (tr.JUSTIFICATION, f"reconfirmed entries {listed} on {day}"),
    ]
    message = tr.message(f"memory({actor.id}): reconfirm {listed}", trailers)
    change = FileChange(relpath, old, memory.render())
    commit = apply_changes(repo.root, [change], message, sign=signing_wanted(repo))
    return commit, lines
