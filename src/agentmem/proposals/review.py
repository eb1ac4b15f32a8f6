"""Review (docs/design/memory.md §Proposals, §Trailers): the owner's decision on each pending proposal, and
its audit commit.

Each accepted memory proposal is applied by the planner, written atomically, removed from the
inbox and committed as ONE commit with the trailers of docs/design/governance.md §Trailers. Rejections are one
commit whose trailers list them. Proposals routed to ``doctrine`` become draft rules
(:func:`accept_doctrine`), always after the memory proposals of the same review: a draft that fails
(guard, duplicate, invalid) is reported on its own and the memory commits stay. The caller holds the
repository lock around plan + commit.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentmem import trailers as tr
from agentmem.apply import writer
from agentmem.apply.planner import FileChange, MemoryPlan, check_entry, new_record, plan_memory
from agentmem.apply.writer import apply_changes, read_current
from agentmem.config import MemoryConfig
from agentmem.doctrine.drafts import draft_from_proposal
from agentmem.errors import (
    AgentmemError,
    ApplyConflictError,
    BudgetExceededError,
    InvalidMemoryError,
    ProposalError,
)
from agentmem.governance import require_memory_role, require_owner
from agentmem.memory.file import char_count, check_budget, modify_entry_at, parse_memory
from agentmem.memory.records import Record
from agentmem.proposals.conflicts import Contradiction, contradicted
from agentmem.proposals.ids import check_session
from agentmem.proposals.inbox import (
    ensure_pending,
    list_pending,
    proposal_relpath,
    render_proposal,
    split_pending,
    write_to_inbox,
)
from agentmem.proposals.model import Proposal, parse_proposal
from agentmem.proposals.validate import validate
from agentmem.store import gitio
from agentmem.store.repo import INBOX_DIR, Person, Repository
from agentmem.store.sign import signing_wanted

if TYPE_CHECKING:
    from agentmem.doctrine.lifecycle import Transition
    from agentmem.errors import AgentmemError
    from agentmem.memory.file import Entry


def _as_accepted(proposal: Proposal, edited_text: str | None) -> Proposal:
    """``proposal`` as a memory review accepts it (with the text the person edited, if any).
    Raises ProposalError: a doctrine proposal, or an edited ``remove``."""
    if proposal.route != "memory":
        raise ProposalError(
            f"{proposal.id} is a doctrine proposal: it waits for doctrine review, not memory review"
        )
    if edited_text is None:
        return proposal
    if proposal.action == "remove":
        raise ProposalError(f"{proposal.id}: a 'remove' has no text to edit")
    return proposal.with_text(edited_text.strip())


def plan_accept(
    repo: Repository,
    proposal: Proposal,
    edited_text: str | None = None,
    full: FullMemory | None = None,
) -> MemoryPlan:
    """The change an accept would make, planned against the file as it is now (pure read).
    ``full``: the budget refusals of this review so far (:class:`FullMemory`), which refuse
    a longer ``add`` to the same full memory without planning it again."""
    proposal = _as_accepted(proposal, edited_text)
    relpath = repo.memory_relpath(proposal.person)
    current = read_current(repo.root, relpath)
    if full is not None:
        refused = full.refusal(current, proposal)
        if refused is not None:
            raise refused
    require_committed_memory(repo, relpath, current)
    try:
        return plan_memory(proposal, current, repo.config.memory, relpath)
    except BudgetExceededError as exc:
        if full is not None:
            full.note(current, proposal, exc)
        raise


class FullMemory:
    """The memory adds a review refused for the budget: for each memory text and section,
    the shortest entry text refused and the refusal. Another ``add`` to that section of that
    same text, at least as long, takes the file at least as far over (the budget counts the
    file's text without its records, :func:`agentmem.memory.file.budget_status`): it is refused
    with the same words without being planned — ``review --accept all`` on 10,000 proposals
    against a full memory plans a handful, not 10,000."""

    def __init__(self) -> None:
        self._shortest: dict[tuple[str | None, str], tuple[int, BudgetExceededError]] = {}

    def refusal(self, current: str | None, proposal: Proposal) -> BudgetExceededError | None:
        """The refusal ``proposal`` would get against ``current``, when it is known, else None."""
        if proposal.action != "add" or proposal.section is None or proposal.text is None:
            return None
        known = self._shortest.get((current, proposal.section))
        if known is None or char_count(proposal.text) < known[0]:
            return None
        return known[1]

    def note(self, current: str | None, proposal: Proposal, error: BudgetExceededError) -> None:
        """Remember that ``proposal`` was refused for the budget against ``current``."""
        if proposal.action != "add" or proposal.section is None or proposal.text is None:
            return
        key = (current, proposal.section)
        size = char_count(proposal.text)
        if key not in self._shortest or size < self._shortest[key][0]:
            if len(self._shortest) > 16:  # texts of the file a review moved past
                self._shortest.clear()
            self._shortest[key] = (size, error)

    def check(self, repo: Repository, proposal: Proposal) -> BudgetExceededError | None:
        """:meth:`refusal` against the owner's memory file as it is now (no lock needed: a
        refusal writes nothing)."""
        if proposal.route != "memory" or not self._shortest:
            return None
        return self.refusal(read_current(repo.root, repo.memory_relpath(proposal.person)), proposal)


def current_entries(repo: Repository, person: str) -> list[Entry]:
    """The entries of ``person``'s memory file as it is now (none when there is no file).
    Raises :class:`InvalidMemoryError` for a broken file."""
    relpath = repo.memory_relpath(person)
    text = read_current(repo.root, relpath)
    if text is None:
        return []
    return parse_memory(text, person, repo.config.memory, relpath).entries()


def contradicted_entries(
    repo: Repository, proposal: Proposal, entries: list[Entry] | None = None
) -> list[tuple[Entry, Contradiction]]:
    """The entries of the owner's memory, as it is now, that a memory ``add`` or ``modify``
    contradicts (:mod:`agentmem.proposals.conflicts`; a modify is not compared with its own
    target). What review shows beside the proposal, whatever the memory became since
    validation flagged it. Pure read; empty for a remove, a doctrine proposal or a broken
    file (review reports that one). ``entries``: the owner's entries as :func:`current_entries`
    reads them, when the caller has them already (the review page, for every proposal)."""
    if proposal.route != "memory" or proposal.action == "remove" or not proposal.text:
        return []
    if entries is None:
        try:
            entries = current_entries(repo, proposal.person)
        except InvalidMemoryError:
            return []
    entries = [e for e in entries if not proposal.targets(e.text)]
    found = contradicted(proposal.text, [e.text for e in entries])
    return [(entries[i], why) for i, why in found]


def as_modify_of(repo: Repository, proposal: Proposal, number: int) -> Proposal:
    """An ``add`` turned into a ``modify`` of entry ``number`` (as ``agentmem memory show``
    numbers them) of its owner's memory: the answer to a contradiction. Raises
    :class:`ProposalError` for an entry that does not exist or a proposal that is not a
    memory ``add``."""
    entries = current_entries(repo, proposal.person)
    found = [e for e in entries if e.number == number]
    if not found:
        have = f"#1 to #{len(entries)}" if entries else "none"
        raise ProposalError(
            f"{proposal.id}: {repo.memory_relpath(proposal.person)} has no entry #{number} "
            f"(entries: {have})",
            hint="agentmem memory show numbers the entries",
        )
    return proposal.as_modify(found[0].text, found[0].section)


def require_committed_memory(repo: Repository, relpath: str, current: str | None) -> None:
    """Refuse to build on a memory file that differs from its committed state: an accept
    commits the whole file, so a hand edit nobody reviewed would ride along, credited to the
    proposal (docs/design/write-path.md §Write path). Raises :class:`ApplyConflictError` naming the file
    and how to keep (``memory edit``) or drop (``git checkout``) the hand edit."""
    if _committed(repo, relpath) == current:
        return
    raise ApplyConflictError(
        f"{relpath} has changes that are not committed; an accept would commit them unreviewed",
        hint=(
            "keep them: 'agentmem memory edit' (opens the file as it is, checks and commits it); "
            f"drop them: 'git checkout -- {relpath}'; then review again"
        ),
    )


#: The last committed memory text read, by (repository, commit, path): a commit never
#: changes, so a review of many proposals asks git once per commit, not once per proposal.
_last_committed: dict[tuple[str, str, str], str | None] = {}


def _committed(repo: Repository, relpath: str) -> str | None:
    """``relpath`` as HEAD holds it (None when it does not)."""
    sha = gitio.head(repo.root)
    if sha is None:
        return gitio.show_file(repo.root, "HEAD", relpath)
    key = (str(repo.root), sha, relpath)
    if key not in _last_committed:
        _last_committed.clear()
        _last_committed[key] = gitio.show_file(repo.root, sha, relpath)
    return _last_committed[key]


def _trailers(
    actor: Person,
    proposal: Proposal,
    decision: str,
    edited: bool,
    corrections: list[str] | None = None,
    foreign: str | None = None,
) -> list[tuple[str, str]]:
    trailers = [
        (tr.ACTION, proposal.action),
        (tr.ROUTE, proposal.route),
        (tr.DECISION, decision),
        (tr.PROPOSAL, proposal.id),
        (tr.SESSION, proposal.session),
        *tr.audit(actor),
    ]
    if proposal.scope:
        trailers.append((tr.SCOPE, proposal.scope))
    trailers.append((tr.BASIS, proposal.basis))
    if proposal.section:
        trailers.append((tr.SECTION, proposal.section))
    if edited:
        trailers.append((tr.EDITED, "yes"))
    trailers += [(tr.CORRECTED, c) for c in corrections or []]
    if foreign:
        trailers.append((tr.FOREIGN, foreign))
    trailers.append((tr.JUSTIFICATION, proposal.justification))
    return trailers


def commit_accept(
    repo: Repository,
    plan: MemoryPlan,
    original: Proposal,
    foreign: str | None = None,
) -> str | None:
    """Write the planned memory change, remove the proposal from the inbox, one audit commit.

    ``plan.change.old`` must still be on disk (else :class:`ApplyConflictError`, nothing written).
    ``foreign``: why the proposal is not the owner's, when they accept it all the same
    (``review --allow-foreign``), recorded as ``Agentmem-Foreign``. The reviewer is the
    repository's actor, who must own the proposal. Returns the commit id.
    """
    actor = repo.actor()
    proposal = plan.proposal
    require_owner(actor, proposal.person, "accepting into")
    require_memory_role(actor, "accepting into a personal memory")
    ensure_pending(repo, original)
    inbox_rel = proposal_relpath(original)
    changes = [
        plan.change,
        FileChange(inbox_rel, read_current(repo.root, inbox_rel), None),
    ]
    message = _accept_message(repo, actor, plan, original, foreign)
    return apply_changes(repo.root, changes, message, sign=signing_wanted(repo))


def _accept_message(
    repo: Repository, actor: Person, plan: MemoryPlan, original: Proposal, foreign: str | None
) -> str:
    """The accept commit's message: its subject and the trailers of
    docs/design/governance.md §Trailers (the same for one accept and a series)."""
    proposal = plan.proposal
    edited = proposal.text != original.text
    where = f' "{proposal.section}"' if proposal.section and proposal.action == "add" else ""
    prep = {"add": "to", "modify": "in", "remove": "from"}[proposal.action]
    subject = f"memory({proposal.person}): {proposal.action} {prep}{where}".rstrip()
    if proposal.action != "add":
        section = _entry_section(repo, plan)
        subject = (
            f'memory({proposal.person}): {proposal.action} {prep} "{section}"'
            if section
            else subject
        )
    corrections = proposal.corrections(original)
    return tr.message(subject, _trailers(actor, proposal, "accepted", edited, corrections, foreign))


@dataclass(frozen=True)
class Accepted:
    """What became of one proposal of :func:`accept_memory`: its ``plan`` and ``commit`` when
    it was accepted (``commit`` None: nothing changed), else the ``error`` that refused it."""

    proposal: Proposal
    plan: MemoryPlan | None = None
    commit: str | None = None
    error: AgentmemError | None = None


#: At most this many accepts are planned and committed under one holding of the lock (one
#: journaled series, one ``fast-import``); other commands run between two series.
SERIES_MAX = 100
#: At most this many proposals are looked at under one holding of the lock (refusals included).
LOOKED_MAX = 2000


def accept_memory(
    repo: Repository,
    proposals: Sequence[Proposal],
    edits: Mapping[str, str] | None = None,
    originals: Mapping[str, Proposal] | None = None,
    foreign: Mapping[str, str] | None = None,
    *,
    full: FullMemory | None = None,
    looked: Callable[[], None] | None = None,
) -> Iterator[Accepted]:
    """Accept memory proposals in order, ONE commit each (``review --accept``): yields an
    :class:`Accepted` per proposal, in order, a series at a time.

    Under one holding of the lock, up to :data:`SERIES_MAX` accepts are planned in memory,
    each against the file the one before leaves (the owner's memory read once, checked
    against its commit once; :func:`ensure_pending` and the inbox file read for each), then
    written and committed as one journaled series (:func:`agentmem.apply.writer.apply_series`:
    one ``fast-import``, every commit with the trailers :func:`commit_accept` gives one, all
    land or none). ``edits``: proposal id → the person's text; ``originals``: the proposal as
    it was before a correction; ``foreign``: why a proposal is not its owner's
    (``Agentmem-Foreign``). ``full`` (:class:`FullMemory`) refuses an ``add`` that cannot
    fit without planning it (not an edited one). ``looked`` is called once per proposal
    decided (progress). With a signing key, each accept is :func:`commit_accept` on its own
    (fast-import does not sign). A series that fails (HEAD moved, a full disk) raises its
    error after the proposals before it are yielded: nothing of it landed."""
    edits = edits or {}
    originals = originals or {}
    foreign = foreign or {}
    at = 0
    while at < len(proposals):
        batch: list[Accepted] = []
        steps: list[tuple[str, list[FileChange]]] = []
        base: dict[str, str | None] = {}  # path → its text before the series
        now: dict[str, str | None] = {}  # path → its text after the series so far
        with repo.locked():
            actor = repo.actor()
            sign = signing_wanted(repo)
            count = 0
            while at < len(proposals) and len(steps) < SERIES_MAX and count < LOOKED_MAX:
                proposal = proposals[at]
                at += 1
                count += 1
                if looked is not None:
                    looked()
                original = originals.get(proposal.id, proposal)
                edited = edits.get(proposal.id)
                memo = full if edited is None else None
                try:
                    if sign:
                        plan = plan_accept(repo, proposal, edited, memo)
                        commit = commit_accept(repo, plan, original, foreign.get(proposal.id))
                        batch.append(Accepted(proposal, plan, commit))
                        break  # the lock is given back between signed commits
                    plan, message, inbox = _plan_in_series(
                        repo, actor, proposal, edited, original, foreign.get(proposal.id),
                        memo, base, now,
                    )  # fmt: skip
                except AgentmemError as exc:
                    batch.append(Accepted(proposal, error=exc))
                    continue
                memory = plan.change.path
                base.setdefault(memory, plan.change.old)
                base[inbox.path] = inbox.old
                now[memory] = plan.change.new
                now[inbox.path] = None
                step = [FileChange(memory, None, plan.change.new), inbox]
                if plan.change.old == plan.change.new:
                    step = [inbox]  # nothing changed in the memory: the proposal goes
                steps.append((message, step))
                batch.append(Accepted(proposal, plan))
            made: list[str] = []
            if steps:
                changes = [FileChange(path, base[path], now[path]) for path in base]
                try:
                    made = writer.apply_series(repo.root, changes, steps)
                except AgentmemError:
                    yield from (a for a in batch if a.plan is None or a.commit is not None)
                    raise
        commits = iter(made)
        for outcome in batch:
            if outcome.plan is not None and outcome.commit is None and outcome.error is None:
                outcome = Accepted(outcome.proposal, outcome.plan, next(commits, None))
            yield outcome


def _plan_in_series(
    repo: Repository,
    actor: Person,
    proposal: Proposal,
    edited: str | None,
    original: Proposal,
    foreign: str | None,
    full: FullMemory | None,
    base: dict[str, str | None],
    now: dict[str, str | None],
) -> tuple[MemoryPlan, str, FileChange]:
    """One accept of :func:`accept_memory` planned against ``now`` (the memory as the series
    so far leaves it; read from disk, and checked against its commit, the first time):
    ``(plan, commit message, the inbox file's removal)``. Raises what :func:`plan_accept`
    and :func:`commit_accept` raise, before anything is written."""
    require_owner(actor, proposal.person, "accepting into")
    require_memory_role(actor, "accepting into a personal memory")
    proposal = _as_accepted(proposal, edited)
    relpath = repo.memory_relpath(proposal.person)
    if relpath in now:
        current = now[relpath]
    else:
        current = read_current(repo.root, relpath)
        if full is not None and (refused := full.refusal(current, proposal)) is not None:
            raise refused
        require_committed_memory(repo, relpath, current)
        now[relpath] = base[relpath] = current
    if full is not None and (refused := full.refusal(current, proposal)) is not None:
        raise refused
    try:
        plan = plan_memory(proposal, current, repo.config.memory, relpath)
    except BudgetExceededError as exc:
        if full is not None:
            full.note(current, proposal, exc)
        raise
    ensure_pending(repo, original)
    inbox_rel = proposal_relpath(original)
    if inbox_rel in base:
        raise ProposalError(f"{original.id} is accepted twice in one review")
    inbox = FileChange(inbox_rel, read_current(repo.root, inbox_rel), None)
    return plan, _accept_message(repo, actor, plan, original, foreign), inbox


def _entry_section(repo: Repository, plan: MemoryPlan) -> str | None:
    if plan.change.old is None or plan.proposal.target is None:
        return None
    memory = parse_memory(
        plan.change.old, plan.proposal.person, repo.config.memory, plan.change.path
    )
    for entry in memory.entries():
        if plan.proposal.target in entry.text:
            return entry.section
    return None


def commit_reject(repo: Repository, proposals: list[Proposal]) -> str | None:
    """Remove rejected proposals from the inbox in ONE commit whose trailers list them (the
    repository's actor must own them).

    Proposals no longer pending (decided meanwhile by another review) are left out; None when
    none is left."""
    actor = repo.actor()
    for proposal in proposals:
        require_owner(actor, proposal.person, "rejecting proposals for")
    proposals, _gone = split_pending(repo, proposals)
    if not proposals:
        return None
    person = proposals[0].person
    changes = []
    for proposal in proposals:
        rel = proposal_relpath(proposal)
        changes.append(FileChange(rel, read_current(repo.root, rel), None))
    trailers = [
        (tr.ACTION, "reject"),
        (tr.DECISION, "rejected"),
        *tr.audit(actor),
    ]
    trailers += [(tr.PROPOSAL, p.id) for p in proposals]
    trailers += [(tr.SESSION, s) for s in dict.fromkeys(p.session for p in proposals)]
    count = len(proposals)
    subject = f"inbox({person}): reject {count} proposal{'s' if count != 1 else ''}"
    return apply_changes(repo.root, changes, tr.message(subject, trailers))


def drop_broken(repo: Repository, paths: list[str]) -> tuple[str | None, list[str]]:
    """Remove unreadable files from the actor's own inbox in ONE audited commit (``review
    --reject all``): ``(commit, the paths dropped)``. A path outside ``inbox/<actor>/``, or one
    that is not a regular UTF-8 file (a link, a folder), is left alone (``check`` names it)."""
    actor = repo.actor()
    require_owner(actor, actor.id, "dropping files from the inbox of")
    changes = []
    for rel in paths:
        if not rel.startswith(f"{INBOX_DIR}/{actor.id}/"):
            continue
        try:
            text = read_current(repo.root, rel)
        except (AgentmemError, UnicodeDecodeError):
            continue
        if text is not None:
            changes.append(FileChange(rel, text, None))
    if not changes:
        return None, []
    trailers = [(tr.ACTION, "reject"), (tr.DECISION, "rejected"), *tr.audit(actor)]
    count = len(changes)
    subject = f"inbox({actor.id}): drop {count} unreadable file{'s' if count != 1 else ''}"
    commit = apply_changes(repo.root, changes, tr.message(subject, trailers))
    return commit, [c.path for c in changes]


@dataclass(frozen=True)
class Decision:
    """A scripted decision: ``kind`` accept | reject | edit; ``text`` for edit."""

    kind: str
    proposal_id: str
    text: str | None = None


def remember(
    repo: Repository, actor: Person, text: str, section: str, session: str = "manual"
) -> Proposal:
    """``agentmem remember`` (docs/design/overview.md §Commands): a pending ``add``, validated and committed
    at once."""
    require_memory_role(actor, "remembering (a personal memory)")
    check_session(session)
    if section not in repo.config.memory.sections:
        raise ProposalError(
            f"unknown section {section!r} (sections: {', '.join(repo.config.memory.sections)})"
        )
    proposal = parse_proposal(
        {
            "action": "add",
            "route": "memory",
            "section": section,
            "text": text,
            "justification": "asked with agentmem remember",
            "basis": "declared",
        },
        person=actor.id,
        session=session,
        source="remember",
        scope=None,
        where="remember",
    )
    relpath = repo.memory_relpath(actor.id)
    proposal = validate(
        proposal, repo, read_current(repo.root, relpath), [], list_pending(repo, actor.id)
    )
    write_to_inbox(repo, actor, [proposal], session, "remember")
    return proposal


__all__ = [
    "Decision",
    "DoctrineOutcome",
    "accept_doctrine",
    "commit_accept",
    "commit_reject",
    "plan_accept",
    "remember",
    "render_proposal",
]


def _entry_texts(text: str | None, person: str, config: MemoryConfig, relpath: str) -> set[str]:
    """Entries of the file before an edit; none when it was missing or broken (then every entry
    of the new text goes through the guard — an edit may repair a broken file)."""
    if not text:
        return set()
    try:
        return {e.text for e in parse_memory(text, person, config, relpath).entries()}
    except InvalidMemoryError:
        return set()


def keep_records(
    old: str | None, new: str, person: str, config: MemoryConfig, relpath: str
) -> tuple[str, list[str]]:
    """Carry the entry records of ``old`` into a hand-edited ``new`` text (docs/decisions/,
    "memory entries carry their record in a trailing HTML comment").

    Entries are matched in file order (:class:`difflib.SequenceMatcher` over section and text):
    an entry kept or rewritten in place whose marker was dropped gets its old marker back; an
    entry added by hand without a marker is recorded as ``declared`` (the owner wrote it) from
    today. A marker the person changed and that still parses is kept as written; a broken one
    makes :func:`parse_memory` refuse the edit. Returns the text to commit and one note per
    entry touched (``entry #3: metadata restored …``). Raises :class:`InvalidMemoryError`.
    """

    edited = parse_memory(new, person, config, relpath)
    before = []
    if old:
        try:
            before = parse_memory(old, person, config, relpath).entries()
        except InvalidMemoryError:
            before = []
    after = edited.entries()
    matcher = difflib.SequenceMatcher(
        None, [(e.section, e.text) for e in before], [(e.section, e.text) for e in after], False
    )
    restore: dict[int, tuple[str, Record]] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k, j in enumerate(range(j1, j2)):
            entry = after[j]
            if entry.record.marked:
                continue
            i = i1 + k
            if tag in ("equal", "replace") and i < i2 and before[i].record.marked:
                restore[j] = ("restored", before[i].record)
            elif tag in ("insert", "replace") and (i >= i2 or tag == "insert"):
                restore[j] = ("added", new_record("declared", None, config))
    notes = []
    for j, (how, record) in sorted(restore.items()):
        entry = edited.entries()[j]
        edited = modify_entry_at(edited, entry, entry.text, record)
        if how == "restored":
            notes.append(
                f"entry #{entry.number}: the edit dropped its metadata; restored "
                f"({record.basis_label}, since {record.since or '-'})"
            )
        else:
            notes.append(f"entry #{entry.number}: written by hand, recorded as declared from today")
    return edited.render(), notes


def commit_hand_edit(
    repo: Repository,
    old: str | None,
    new: str,
    notes: list[str] | None = None,
) -> str | None:
    """``agentmem memory edit``: validate the owner's edited file — structure,
    record markers (:func:`keep_records`: dropped ones restored, broken ones refused), each new
    or changed entry through the guard, budget — and commit it as one audited change.

    ``notes`` (when given) receives one line per entry whose record was restored or added.
    Raises :class:`InvalidMemoryError`, :class:`GuardError` or :class:`BudgetExceededError`
    before anything is written; returns None when nothing changed. The file is the repository
    actor's own.
    """
    actor = repo.actor()
    require_memory_role(actor, "editing a personal memory")
    relpath = repo.memory_relpath(actor.id)
    config = repo.config.memory
    new, kept = keep_records(old, new, actor.id, config, relpath)
    if notes is not None:
        notes.extend(kept)
    edited = parse_memory(new, actor.id, config, relpath)
    # Entries are judged against the COMMITTED file: a hand edit left uncommitted on disk was
    # never checked, so it goes through the guard like a new entry.
    committed = gitio.show_file(repo.root, "HEAD", relpath)
    before = _entry_texts(committed, actor.id, config, relpath)
    for entry in edited.entries():
        if entry.text not in before:
            check_entry(entry.text, config, f"{relpath}:{entry.line}")
    check_budget(new, config, relpath, edited.entries())
    if new == old == committed:
        return None
    trailers = [
        (tr.ACTION, "edit"),
        (tr.ROUTE, "memory"),
        (tr.DECISION, "edited"),
        *tr.audit(actor),
        (tr.JUSTIFICATION, "edited by hand with agentmem memory edit"),
    ]
    message = tr.message(f"memory({actor.id}): edit by hand", trailers)
    if new == old:  # the file already holds the checked text (an earlier uncommitted edit)
        gitio.check_state(repo.root)
        return gitio.commit_paths(repo.root, [relpath], message)
    return apply_changes(
        repo.root, [FileChange(relpath, old, new)], message, sign=signing_wanted(repo)
    )


@dataclass(frozen=True)
class DoctrineOutcome:
    """One accepted doctrine proposal: the draft made (``transition``) or why not (``error``)."""

    proposal: Proposal
    transition: Transition | None
    error: AgentmemError | None


def accept_doctrine(
    repo: Repository,
    proposals: list[Proposal],
    edits: dict[str, str] | None = None,
    *,
    distinct: bool = False,
    originals: dict[str, Proposal] | None = None,
    foreign: dict[str, str] | None = None,
) -> list[DoctrineOutcome]:
    """Make each accepted ``doctrine`` proposal a draft rule, ONE commit each
    (docs/design/doctrine.md §Rule file).

    Run after the memory proposals of the same review are committed. Each draft
    takes the repository lock itself; a failure (guard, duplicate guard, invalid scope, role) is
    returned with its proposal — the proposal stays pending — and the others go on. ``edits``
    maps a proposal id to the person's edited text; ``distinct`` overrides the duplicate guard;
    ``originals`` maps the id of a proposal the reviewer corrected (``--route``) to it as it was;
    ``foreign`` the id of a proposal that is not the owner's (``--allow-foreign``) to why.
    """
    outcomes = []
    for proposal in proposals:
        try:
            with repo.locked():
                ensure_pending(repo, proposal)
                original = (originals or {}).get(proposal.id)
                transition = draft_from_proposal(
                    repo,
                    proposal,
                    text=(edits or {}).get(proposal.id),
                    distinct=distinct,
                    corrections=proposal.corrections(original) if original else None,
                    foreign=(foreign or {}).get(proposal.id),
                )
        except AgentmemError as exc:
            outcomes.append(DoctrineOutcome(proposal, None, exc))
            continue
        outcomes.append(DoctrineOutcome(proposal, transition, None))
    return outcomes
