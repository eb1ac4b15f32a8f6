"""The audit trail read back from git (docs/design/governance.md §Trailers): ``log`` and ``blame``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from agentmem import trailers as tr
from agentmem.memory.records import NO_RECORD, Record
from agentmem.store import gitio
from agentmem.store.paths import check_slug
from agentmem.store.repo import DOCTRINE_DIR, INBOX_DIR, Repository


@dataclass(frozen=True)
class AuditRecord:
    """One audit commit: ``commit`` id, ISO ``date``, ``author``, ``subject`` and its trailers.

    ``proposal``/``session`` are the first value of those trailers; ``proposals``/``sessions``
    all of them (a harvest or a rejection names several); ``trailers`` maps each key to its
    last value."""

    commit: str
    date: str
    author: str
    subject: str
    action: str | None
    actor: str | None
    proposal: str | None
    session: str | None
    justification: str | None
    trailers: dict[str, str]
    proposals: list[str]
    sessions: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _record(info: gitio.CommitInfo) -> AuditRecord:
    t = info.trailers
    proposals = info.trailer_values.get(tr.PROPOSAL, [])
    sessions = info.trailer_values.get(tr.SESSION, [])
    return AuditRecord(
        info.sha,
        info.date,
        f"{info.author_name} <{info.author_email}>",
        info.subject,
        t.get(tr.ACTION),
        t.get(tr.ACTOR),
        proposals[0] if proposals else None,
        sessions[0] if sessions else None,
        t.get(tr.JUSTIFICATION),
        dict(t),
        list(proposals),
        list(sessions),
    )


def audit_log(
    repo: Repository, person: str | None = None, rule: str | None = None
) -> list[AuditRecord]:
    """Commits carrying ``Agentmem-*`` trailers, newest first; of one person's memory and inbox,
    or of one rule file, or all."""
    paths: list[str] = []
    if person:
        paths = [repo.memory_relpath(person), f"{INBOX_DIR}/{check_slug(person, 'person id')}"]
    elif rule:
        paths = [f"{DOCTRINE_DIR}/{check_slug(rule, 'rule id')}.yaml"]
    return [_record(c) for c in gitio.log(repo.root, paths) if c.trailers]


@dataclass(frozen=True)
class BlameEntry:
    """Where one entry came from (docs/design/governance.md §Trailers): commit, date, approver, session,
    justification.

    ``approver`` comes only from an ``Agentmem-Actor`` trailer; ``author`` is the commit's git
    author. A line set by a plain git commit has an author and no approver.
    """

    number: int
    section: str
    text: str
    commit: str | None
    date: str | None
    approver: str | None
    session: str | None
    proposal: str | None
    justification: str | None
    author: str | None = None
    #: the entry's record (``basis`` declared | inferred | unrecorded, ``scope``, ``since``,
    #: ``review``, ``expires``) and the ``Agentmem-Basis`` of the commit that set the line.
    record: Record = NO_RECORD
    basis_trailer: str | None = None

    @property
    def basis(self) -> str:
        """The record's basis; for an unrecorded entry ``unrecorded``."""
        return self.record.basis_label

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("record")
        return {**data, **self.record.to_dict()}


def blame_memory(
    repo: Repository, person: str, served: tuple[str | None, str] | None = None
) -> list[BlameEntry]:
    """Every entry of ``person``'s memory with the audit commit that last set its line.

    Entries not yet committed (edited on disk) have ``commit`` None. ``served``: blame the
    served view's text instead of the work tree (``(text, commit)``: the text of the file at
    that commit, as :func:`agentmem.delivery.served.serve_file` gives it).
    """
    # lazy: only blame parses a memory file (``agentmem log`` reads commits alone)
    from agentmem.apply.writer import read_current
    from agentmem.memory.file import parse_memory

    relpath = repo.memory_relpath(person)
    if served is not None:
        text, rev = served
    else:
        text, rev = read_current(repo.root, relpath), "HEAD"
    if text is None:
        return []
    memory = parse_memory(text, person, repo.config.memory, relpath)
    committed = text if served is not None else gitio.show_file(repo.root, "HEAD", relpath)
    line_commits = gitio.blame_commits(repo.root, relpath, rev) if committed == text else []
    infos = {c.sha: c for c in gitio.log(repo.root, [relpath])}
    result = []
    for entry in memory.entries():
        sha = line_commits[entry.line - 1] if entry.line - 1 < len(line_commits) else None
        info = infos.get(sha) if sha else None
        t = info.trailers if info else {}
        result.append(
            BlameEntry(
                entry.number,
                entry.section,
                entry.text,
                sha,
                info.date if info else None,
                t.get(tr.ACTOR),
                t.get(tr.SESSION),
                t.get(tr.PROPOSAL),
                t.get(tr.JUSTIFICATION),
                f"{info.author_name} <{info.author_email}>" if info else None,
                entry.record,
                t.get(tr.BASIS),
            )
        )
    return result
