"""The inbox (docs/design/memory.md §Inbox file): ``inbox/<person>/<proposal-id>.yaml``, one pending
proposal a file.

Inbox files are committed as soon as they are written, so a proposal survives a session that
stops before its review.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentmem import trailers as tr
from agentmem.apply.writer import apply_changes
from agentmem.errors import ProposalError
from agentmem.proposals.model import Proposal, proposal_from_stored
from agentmem.store import gitio, regular
from agentmem.store.paths import check_slug
from agentmem.store.repo import INBOX_DIR, Person, Repository
from agentmem.store.yamlio import dump_yaml, load_yaml_file


def proposal_relpath(proposal: Proposal) -> str:
    """``inbox/<person>/<id>.yaml``."""
    return f"{INBOX_DIR}/{check_slug(proposal.person, 'person id')}/{proposal.id}.yaml"


def render_proposal(proposal: Proposal) -> str:
    """The inbox file text: canonical YAML with the field names of docs/design/memory.md §Inbox file."""
    data = proposal.to_dict()
    if not data["contradicts"]:  # written only when validation flagged a contradiction
        del data["contradicts"]
    return dump_yaml(data)


@dataclass(frozen=True)
class Broken:
    """An inbox entry that is not a readable proposal: ``path`` and why (``reason``). It is
    skipped, never a reason to block the owner's other proposals."""

    path: str
    reason: str

    def describe(self) -> str:
        return (
            f"{self.path}: {self.reason}" if not self.reason.startswith(self.path) else self.reason
        )


@dataclass(frozen=True)
class Inbox:
    """What an inbox holds: readable ``proposals`` (oldest first) and the ``broken`` entries
    skipped (docs/design/memory.md §Inbox file); ``read``: the bytes each proposal was parsed
    from (``inbox/<person>/<id>.yaml`` → bytes), what :func:`foreign` compares with git
    without reading the files again."""

    proposals: list[Proposal]
    broken: list[Broken] = field(default_factory=list)
    read: dict[str, bytes] = field(default_factory=dict)
    #: when a reader asked (the Python API's ``inbox``): ``{proposal id: why it is not its
    #: owner's}``, as :func:`foreign` gives it
    foreign: dict[str, str] = field(default_factory=dict)


def read_inbox(repo: Repository, person: str | None = None) -> Inbox:
    """Pending proposals, oldest first, of one person or of everyone, and the entries skipped: a
    file that is not an agentmem proposal, is misplaced (folder or name ≠ person or id), or is
    not a regular file is a :class:`Broken` entry naming it — the other proposals stay
    reviewable. An ``inbox/`` or person folder that is a symlink is still refused
    (:class:`ProposalError`): nothing under it is read."""
    people, refused = regular.subfolders(repo.root, INBOX_DIR)
    if person:  # a link elsewhere in inbox/ is not this person's: their listing checks inbox/
        people, refused = [check_slug(person, "person id")], []
        found_folder = regular.problem(repo.root, f"{INBOX_DIR}/{people[0]}", folder=True)
        if found_folder is not None:
            raise regular.refusal(found_folder)
    if refused:
        raise regular.refusal(refused[0])
    found: list[Proposal] = []
    broken: list[Broken] = []
    read: dict[str, bytes] = {}
    for owner in people:
        names, bad = regular.listing(repo.root, f"{INBOX_DIR}/{owner}", ".yaml")
        broken += [Broken(rel, why) for rel, why in bad]
        for name in names:
            path = repo.root / INBOX_DIR / owner / name
            rel = f"{INBOX_DIR}/{owner}/{name}"
            try:
                stored = load_yaml_file(path, rel, ProposalError, read=read)
                proposal = proposal_from_stored(stored, rel)
            except ProposalError as exc:
                broken.append(Broken(rel, exc.message))
                continue
            if proposal.person != owner or f"{proposal.id}.yaml" != path.name:
                broken.append(Broken(rel, "the file's place does not match its person and id"))
                continue
            found.append(proposal)
    found.sort(key=lambda p: (p.created_at, p.id))
    kept = {proposal_relpath(p) for p in found}
    shown = {rel: data for rel, data in read.items() if rel in kept}
    return Inbox(found, sorted(broken, key=lambda b: b.path), shown)


def list_pending(repo: Repository, person: str | None = None) -> list[Proposal]:
    """The readable pending proposals of :func:`read_inbox` (broken entries left out)."""
    return read_inbox(repo, person).proposals


@dataclass(frozen=True)
class Provenance:
    """Who put a pending proposal where it is: ``committed_by`` (the person id of the author of
    the newest commit that wrote the file, None when that author is not in ``roles.yaml`` or
    no commit wrote it), ``commit`` (that commit's id) and ``as_committed`` (the file holds
    exactly the bytes that commit wrote)."""

    committed_by: str | None
    commit: str | None
    as_committed: bool

    def problem(self, owner: str) -> str | None:
        """Why the proposal is not known to come from ``owner`` (harvest, remember, import,
        tidy or an MCP ``remember`` run under the owner's git identity), or None."""
        if self.commit is None:
            return f"no commit put it in {owner}'s inbox (it was never committed)"
        if not self.as_committed:
            return (
                f"its file differs from what commit {self.commit[:10]} wrote "
                "(changed after it was committed)"
            )
        if self.committed_by is None:
            return f"committed in {self.commit[:10]} by an author who is not a person in roles.yaml"
        if self.committed_by != owner:
            return f"committed by {self.committed_by} in {self.commit[:10]}, not by {owner}"
        return None


def provenance(
    repo: Repository, proposals: list[Proposal], read: Mapping[str, bytes] | None = None
) -> dict[str, Provenance]:
    """The :class:`Provenance` of each proposal, by id, from ONE ``git log`` over the inbox
    folders involved (not one git process per file): a proposal is its owner's when the newest
    commit that wrote its file was authored by the owner's e-mail in ``roles.yaml`` (agentmem
    commits as the person who runs it) and the file still holds those bytes. ``read``: the
    bytes the proposals were parsed from (:attr:`Inbox.read`), compared instead of reading
    each file again; a file not in it is read."""
    if not proposals:
        return {}
    paths = {proposal_relpath(p): p for p in proposals}
    folders = sorted({f"{INBOX_DIR}/{p.person}/" for p in proposals})
    last = gitio.last_changes(repo.root, folders, set(paths))
    emails = {person.email.lower(): pid for pid, person in repo.people().items()}
    out: dict[str, Provenance] = {}
    for rel, proposal in paths.items():
        change = last.get(rel)
        if change is None or change.blob is None:
            out[proposal.id] = Provenance(None, None, False)
            continue
        data = read[rel] if read is not None and rel in read else regular.read_bytes(repo.root, rel)
        same = data is not None and gitio.blob_id(data, change.blob) == change.blob
        out[proposal.id] = Provenance(emails.get(change.author_email.lower()), change.sha, same)
    return out


def foreign(
    repo: Repository, proposals: list[Proposal], read: Mapping[str, bytes] | None = None
) -> dict[str, str]:
    """``{proposal id: why it is not its owner's}`` for the proposals :func:`provenance` cannot
    trace to their owner (docs/design/memory.md §Inbox file); ``read``: see :func:`provenance`."""
    found = provenance(repo, proposals, read)
    out = {}
    for proposal in proposals:
        why = found[proposal.id].problem(proposal.person)
        if why is not None:
            out[proposal.id] = why
    return out


PENDING_SHOWN = 5  # ids an error names before "and N more"


def name_pending(ids: Iterable[str]) -> str:
    """The pending ids for an error message: the first ``PENDING_SHOWN``, then how many more
    (an inbox of 10,000 is not one line of 190,000 characters), or ``none``."""
    ids = list(ids)
    head = ", ".join(ids[:PENDING_SHOWN]) or "none"
    more = len(ids) - PENDING_SHOWN
    return head if more <= 0 else f"{head} and {more} more"


def find_pending(repo: Repository, person: str, proposal_id: str) -> Proposal:
    """One pending proposal of ``person``; raises ProposalError naming the ids that exist."""
    pending = list_pending(repo, person)
    for proposal in pending:
        if proposal.id == proposal_id:
            return proposal
    known = name_pending(p.id for p in pending)
    raise ProposalError(
        f"no pending proposal '{proposal_id}' for {person} (pending: {known})",
        hint="agentmem inbox lists them",
    )


def inbox_path(repo: Repository, proposal: Proposal) -> Path:
    return repo.root / proposal_relpath(proposal)


def ensure_pending(repo: Repository, proposal: Proposal) -> None:
    """Raise :class:`ProposalError` when ``proposal``'s inbox file is gone: another review (a
    second terminal, a script) accepted or rejected it after this one listed it. Called under
    the repository lock, right before a decision is committed, so a proposal is applied once."""
    if not inbox_path(repo, proposal).is_file():
        raise ProposalError(
            f"{proposal.id} is no longer pending: it was accepted or rejected meanwhile "
            "(another review ran at the same time)",
            hint="agentmem log shows what was decided; agentmem inbox what is still pending",
        )


def split_pending(
    repo: Repository, proposals: list[Proposal]
) -> tuple[list[Proposal], list[Proposal]]:
    """``(still pending, decided meanwhile)``: a proposal whose inbox file is gone was accepted
    or rejected by another review after this one listed it. Call it under the lock."""
    pending = [p for p in proposals if inbox_path(repo, p).is_file()]
    kept = {p.id for p in pending}
    return pending, [p for p in proposals if p.id not in kept]


def write_to_inbox(
    repo: Repository, actor: Person, proposals: list[Proposal], session: str, source: str
) -> str | None:
    """Write pending proposals to the inbox and commit them in one audit commit (through the
    journaled writer: a crash leaves them fully committed or not at all)."""
    # lazy: only a write builds file changes (listing the inbox does not load them)
    from agentmem.apply.change import FileChange

    changes = [FileChange(proposal_relpath(p), None, render_proposal(p)) for p in proposals]
    count = len(proposals)
    trailers = [
        (tr.ACTION, "propose"),
        (tr.SESSION, session),
        *tr.audit(actor),
        (tr.SOURCE, source),
    ] + [(tr.PROPOSAL, p.id) for p in proposals]
    subject = f"inbox({actor.id}): {count} proposal{'s' if count != 1 else ''} from session {session[:12]}"
    return apply_changes(repo.root, changes, tr.message(subject, trailers))
