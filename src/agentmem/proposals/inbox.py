"""The inbox (docs/design.md §Inbox file): ``inbox/<person>/<proposal-id>.yaml``, one pending
proposal a file.

Inbox files are committed as soon as they are written, so a proposal survives a session that
stops before its review.
"""

from __future__ import annotations

from pathlib import Path

from agentmem import trailers as tr
from agentmem.errors import ProposalError
from agentmem.proposals.model import Proposal, proposal_from_stored
from agentmem.store import regular
from agentmem.store.change import FileChange
from agentmem.store.paths import check_slug
from agentmem.store.repo import INBOX_DIR, Person, Repository
from agentmem.store.writer import apply_changes
from agentmem.store.yamlio import dump_yaml, load_yaml_file


def proposal_relpath(proposal: Proposal) -> str:
    """``inbox/<person>/<id>.yaml``."""
    return f"{INBOX_DIR}/{check_slug(proposal.person, 'person id')}/{proposal.id}.yaml"


def render_proposal(proposal: Proposal) -> str:
    """The inbox file text: canonical YAML with the field names of docs/design.md §Inbox file."""
    return dump_yaml(proposal.to_dict())


def list_pending(repo: Repository, person: str | None = None) -> list[Proposal]:
    """Pending proposals, oldest first; of one person or of everyone. Raises ProposalError on a
    malformed inbox file (naming it)."""
    people, refused = regular.subfolders(repo.root, INBOX_DIR)
    if person:  # a link elsewhere in inbox/ is not this person's: their listing checks inbox/
        people, refused = [check_slug(person, "person id")], []
    if refused:
        raise regular.refusal(refused[0])
    found: list[Proposal] = []
    for owner in people:
        names, bad = regular.listing(repo.root, f"{INBOX_DIR}/{owner}", ".yaml")
        if bad:
            raise regular.refusal(bad[0])
        for name in names:
            path = repo.root / INBOX_DIR / owner / name
            rel = f"{INBOX_DIR}/{owner}/{name}"
            proposal = proposal_from_stored(load_yaml_file(path, rel, ProposalError), rel)
            if proposal.person != owner or f"{proposal.id}.yaml" != path.name:
                raise ProposalError(f"{rel}: the file's place does not match its person and id")
            found.append(proposal)
    return sorted(found, key=lambda p: (p.created_at, p.id))


def find_pending(repo: Repository, person: str, proposal_id: str) -> Proposal:
    """One pending proposal of ``person``; raises ProposalError naming the ids that exist."""
    pending = list_pending(repo, person)
    for proposal in pending:
        if proposal.id == proposal_id:
            return proposal
    known = ", ".join(p.id for p in pending) or "none"
    raise ProposalError(f"no pending proposal '{proposal_id}' for {person} (pending: {known})")


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
    return pending, [p for p in proposals if p not in pending]


def write_to_inbox(
    repo: Repository, actor: Person, proposals: list[Proposal], session: str, source: str
) -> str | None:
    """Write pending proposals to the inbox and commit them in one audit commit (through the
    journaled writer: a crash leaves them fully committed or not at all)."""
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
