"""Every decision the review pages take (docs/design/web.md §Web), each through the domain function
the CLI command calls, as the local git identity (``Repository.actor()``), never a form field:

| page action | the CLI's | domain function |
|---|---|---|
| accept, edit, correct a proposal | ``review --accept/--edit/--route/--section/--scope/--target/--modify`` | ``plan_accept`` + ``commit_accept``; ``accept_doctrine`` |
| reject a proposal | ``review --reject ID`` | ``commit_reject`` |
| edit or remove an entry | ``memory edit`` | ``commit_hand_edit`` |
| keep an entry due for review | ``memory reconfirm N`` | ``memory.due.reconfirm`` |
| approve a rule's version | ``doctrine approve ID --version N`` | ``doctrine.approve`` |
| suspend, resume, deactivate, archive, reconfirm | ``doctrine suspend|…`` | ``doctrine.suspend|…`` |
| restore a version | ``doctrine restore ID --version N`` | ``doctrine.restore`` |

So the refusals are the CLI's word for word, and each decision is the same commit (tree and
trailers). Before deciding, each action checks, under the repository lock, that the form still
matches the repository (:class:`StaleFormError`: the proposal was decided meanwhile, the entry
or the rule changed), and says what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmem import trailers as tr
from agentmem.doctrine import lifecycle
from agentmem.doctrine.compare import diff_lines
from agentmem.doctrine.drafts import restore as do_restore
from agentmem.doctrine.lifecycle import Transition, VersionMovedError
from agentmem.doctrine.lifecycle import approve as do_approve
from agentmem.doctrine.model import DoctrineError, missing_for_activation
from agentmem.doctrine.parse import load_rule
from agentmem.doctrine.versions import version_content
from agentmem.errors import AgentmemError, ApplyConflictError, ProposalError
from agentmem.memory.file import (
    Entry,
    MemoryFile,
    modify_entry_at,
    new_memory_text,
    parse_memory,
    remove_entry_at,
    validate_entry_text,
)
from agentmem.proposals.inbox import foreign, name_pending, read_inbox
from agentmem.proposals.model import EVERYWHERE, Proposal
from agentmem.proposals.review import (
    accept_doctrine,
    as_modify_of,
    commit_accept,
    commit_hand_edit,
    commit_reject,
    plan_accept,
)
from agentmem.store.repo import Person, Repository
from agentmem.web import reads


class StaleFormError(AgentmemError):
    """A form that no longer matches the repository: nothing was applied; ``changes`` says
    what changed (lines)."""

    def __init__(self, message: str, changes: list[str] | None = None, *, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.changes = changes or []


class UnknownIdError(AgentmemError):
    """No proposal, entry or rule has that id (a 404 page)."""

    exit_code = 2


@dataclass(frozen=True)
class Done:
    """What a decision did, in words (``accepted 2026… → 1a2b3c4d5e (41%)``), and its commit."""

    message: str
    commit: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fixes:
    """The reviewer's corrections of a proposal (the fields of the edit form); None: as it is."""

    text: str | None = None
    route: str | None = None
    section: str | None = None
    scope: str | None = None
    target: str | None = None
    modify: int | None = None


def _short(commit: str | None) -> str:
    return commit[:10] if commit else "no change"


# -- proposals -----------------------------------------------------------------------------------


def _pending(repo: Repository, actor: Person, proposal_id: str) -> Proposal:
    """The actor's pending proposal ``proposal_id`` (:func:`_pending_read`)."""
    return _pending_read(repo, actor, proposal_id)[0]


def _pending_read(
    repo: Repository, actor: Person, proposal_id: str
) -> tuple[Proposal, dict[str, bytes]]:
    """The actor's pending proposal ``proposal_id`` and the bytes the inbox was parsed from
    (:attr:`~agentmem.proposals.inbox.Inbox.read`: :func:`foreign` does not read them again);
    a :class:`StaleFormError` saying who decided it when it was decided meanwhile;
    :class:`UnknownIdError` when it never was."""
    box = read_inbox(repo, actor.id)
    for proposal in box.proposals:
        if proposal.id == proposal_id:
            return proposal, box.read
    record = reads.decided(repo, actor.id, proposal_id)
    if record is not None:
        decision = record.trailers.get(tr.DECISION) or record.action or "decided"
        raise StaleFormError(
            f"{proposal_id} is no longer pending: it was {decision} by "
            f"{record.actor or record.author} on {record.date[:16].replace('T', ' ')} "
            f"(commit {record.commit[:10]}); nothing was applied",
            hint="the inbox shows what is still pending",
        )
    known = name_pending(reads.pending_ids(repo, actor.id))
    raise UnknownIdError(
        f"no pending proposal '{proposal_id}' for {actor.id} (pending: {known})",
        hint="the inbox lists the pending proposals",
    )


def _check_proposal_stamp(repo: Repository, proposal: Proposal, stamp: str | None) -> None:
    if not stamp:
        return
    served = reads.served_memory(repo, proposal.person)
    if reads.proposal_stamp(repo, proposal, served) == stamp:
        return
    last = reads.history_view(repo, proposal.person)
    what = (
        f" (the last change: {last[0].subject!r} by {last[0].actor or last[0].author} on "
        f"{last[0].date[:16].replace('T', ' ')})"
        if last
        else ""
    )
    raise StaleFormError(
        f"{proposal.id}: your memory file or the proposal changed since this page was shown"
        f"{what}; nothing was applied",
        hint="the inbox shows the proposal against your memory as it is now: decide again",
    )


def _corrected(repo: Repository, proposal: Proposal, fixes: Fixes) -> Proposal:
    """``proposal`` with the reviewer's corrections, as ``review --modify/--route/--section/
    --target/--scope`` make them (only the fields that differ count as corrections)."""
    fixed = proposal
    if fixes.modify is not None:
        fixed = as_modify_of(repo, fixed, fixes.modify)
    route = fixes.route if fixes.route and fixes.route != fixed.route else None
    section = fixes.section if fixes.section and fixes.section != fixed.section else None
    target = fixes.target if fixes.target and fixes.target != fixed.target else None
    scope = _scope_change(fixed, fixes.scope)
    if route or section or target or scope:
        fixed = fixed.corrected(route=route, section=section, target=target, scope=scope)
    return fixed


def _scope_change(proposal: Proposal, scope: str | None) -> str | None:

    if scope is None or not scope.strip():
        return None
    value = scope.strip()
    return None if value == (proposal.scope or EVERYWHERE) else value


def accept(
    repo: Repository,
    proposal_id: str,
    stamp: str | None,
    fixes: Fixes | None = None,
    *,
    allow_foreign: bool = False,
    distinct: bool = False,
) -> Done:
    """Accept one pending proposal of the actor (``review --accept ID``), with an edited text
    (``--edit ID=TEXT``) and corrections (``--route/--section/--scope/--target/--modify``):
    ONE commit, with the trailers the CLI writes. A proposal someone else committed to the
    inbox is accepted only with ``allow_foreign`` (``--allow-foreign``)."""
    fixes = fixes or Fixes()
    actor = repo.actor()
    with repo.locked():
        original, read = _pending_read(repo, actor, proposal_id)
        _check_proposal_stamp(repo, original, stamp)
        why = foreign(repo, [original], read).get(original.id)
        if why is not None and not allow_foreign:
            raise ProposalError(
                f"{original.id} not applied: {why}; accept it only if you checked it yourself "
                "(tick 'I checked it myself'), or reject it"
            )
        fixed = _corrected(repo, original, fixes)
        text = fixes.text
        if text is not None and text.strip() == (original.text or "").strip():
            text = None  # the pre-filled text, unchanged: not an edit
        if fixed.route == "doctrine":
            return _accept_doctrine(repo, actor, original, fixed, text, why, distinct)
        plan = plan_accept(repo, fixed, text)
        commit = commit_accept(repo, plan, original, why)
    return Done(f"accepted {original.id} → {_short(commit)}  ({plan.budget.describe()})", commit)


def _accept_doctrine(
    repo: Repository,
    actor: Person,
    original: Proposal,
    fixed: Proposal,
    text: str | None,
    why: str | None,
    distinct: bool,
) -> Done:
    (outcome,) = accept_doctrine(
        repo,
        [fixed],
        {fixed.id: text} if text is not None else {},
        distinct=distinct,
        originals={fixed.id: original} if fixed != original else {},
        foreign={fixed.id: why} if why else {},
    )
    if outcome.error is not None:
        raise outcome.error
    t = outcome.transition
    assert t is not None
    notes: tuple[str, ...] = ()
    missing = missing_for_activation(t.rule)
    if missing:
        names = {"scope": "a scope", "instruction": "an instruction", "limit": "at least one limit"}
        needs = ", ".join(names.get(m, m) for m in missing)
        notes = (f"{t.rule.id} is a draft; before an admin can approve it, it needs {needs}",)
    return Done(
        f"accepted {original.id} → draft rule {t.rule.id} v1 ({_short(t.commit)})", t.commit, notes
    )


def reject(repo: Repository, proposal_id: str) -> Done:
    """Reject one pending proposal of the actor (``review --reject ID``): ONE commit."""
    actor = repo.actor()
    with repo.locked():
        proposal = _pending(repo, actor, proposal_id)
        commit = commit_reject(repo, [proposal])
    if commit is None:  # decided between the listing and the lock: commit_reject left it out
        raise StaleFormError(f"not rejected: {proposal_id} — decided meanwhile by another review")
    return Done(f"rejected {proposal_id} → {_short(commit)}", commit)


def accept_all(repo: Repository, shown: list[tuple[str, str]]) -> list[Done | AgentmemError]:
    """Accept each proposal the page showed (``(id, stamp)``, memory ones first, as the page
    lists them): one commit each; a failure is reported and the others go on
    (``review --accept all``). Every stamp is checked first, against the repository as the
    page saw it: each accept changes the memory file the next one was shown against."""
    results: list[Done | AgentmemError] = []
    actor = repo.actor()
    with repo.locked():
        fresh: list[str] = []
        for proposal_id, stamp in shown:
            try:
                _check_proposal_stamp(repo, _pending(repo, actor, proposal_id), stamp)
            except AgentmemError as exc:
                results.append(exc)
                continue
            fresh.append(proposal_id)
        for proposal_id in fresh:
            try:
                results.append(accept(repo, proposal_id, None))
            except AgentmemError as exc:
                results.append(exc)
    return results


# -- memory --------------------------------------------------------------------------------------


def _own_memory(repo: Repository, actor: Person) -> tuple[str | None, MemoryFile]:
    """The actor's memory as an agent is given it (the served text), which an edit is planned
    against; refused (:class:`ApplyConflictError`, nothing written, the page offers to retry)
    when the work tree holds anything else: an edit commits the whole file, so a change no
    agent is given (an uncommitted edit, a commit that is not the owner's decision) would
    ride along unseen. The refusal is the served view's note, with the command that fixes it."""
    relpath = repo.memory_relpath(actor.id)
    served = reads.served_memory(repo, actor.id)
    old = served.text
    if served.work != old:
        notes = list(served.notes) or [
            f"{relpath} is not in the work tree as an agent is given it (deleted, or not "
            f"readable as text). To fix: git checkout -- {relpath}"
        ]
        raise ApplyConflictError(
            f"{notes[0]}; nothing was changed",
            hint="this page edits the memory as an agent is given it: once the file matches "
            "it, retry" + (f" (also: {'; '.join(notes[1:])})" if notes[1:] else ""),
        )
    config = repo.config.memory
    return old, parse_memory(old or new_memory_text(actor.id, config), actor.id, config, relpath)


def _entry(memory: MemoryFile, number: int, stamp: str, relpath: str) -> Entry:
    entries = memory.entries()
    found = next((e for e in entries if e.number == number), None)
    if found is not None and reads.entry_stamp(number, found.text) == stamp:
        return found
    if found is None and not stamp:
        raise UnknownIdError(
            f"{relpath} has no entry #{number} (entries: "
            + (f"#1 to #{len(entries)})" if entries else "none)"),
        )
    now = f"entry #{number} now reads: {found.text}" if found else f"entry #{number} is gone"
    raise StaleFormError(
        f"{relpath} changed since this page was shown ({now}); nothing was changed",
        hint="the page shows your memory as it is now: choose again",
    )


def edit_entry(repo: Repository, number: int, stamp: str, text: str) -> Done:
    """Rewrite entry ``number`` of the actor's memory (its record kept), checked and committed
    as ``memory edit`` checks and commits a hand edit (the guard on the changed entry, the
    entry's length, the budget): ONE commit."""
    actor = repo.actor()
    relpath = repo.memory_relpath(actor.id)
    with repo.locked():
        old, memory = _own_memory(repo, actor)
        entry = _entry(memory, number, stamp, relpath)
        new_text = text.strip()
        validate_entry_text(new_text, repo.config.memory, f"{relpath}: entry #{number}")
        edited = modify_entry_at(memory, entry, new_text, entry.record)
        notes: list[str] = []
        commit = commit_hand_edit(repo, old, edited.render(), notes)
    if commit is None:
        return Done(f"entry #{number}: no change")
    return Done(f"edited entry #{number} → {_short(commit)}", commit, tuple(notes))


def remove_entry(repo: Repository, number: int, stamp: str) -> Done:
    """Remove entry ``number`` of the actor's memory (``memory edit`` without that line): ONE
    commit."""
    actor = repo.actor()
    relpath = repo.memory_relpath(actor.id)
    with repo.locked():
        old, memory = _own_memory(repo, actor)
        entry = _entry(memory, number, stamp, relpath)
        commit = commit_hand_edit(repo, old, remove_entry_at(memory, entry).render())
    return Done(f"removed entry #{number} → {_short(commit)}", commit)


def keep_entry(repo: Repository, number: int, stamp: str) -> Done:
    """Keep an entry due for review (``memory reconfirm N``): ONE commit."""
    # lazy: the reconfirmation (and blame) only for this action
    from agentmem.memory.due import reconfirm

    actor = repo.actor()
    relpath = repo.memory_relpath(actor.id)
    with repo.locked():
        _old, memory = _own_memory(repo, actor)
        _entry(memory, number, stamp, relpath)
        commit, lines = reconfirm(repo, actor, [number])
    return Done(f"kept entry #{number} → {_short(commit)}", commit, tuple(lines))


# -- doctrine ------------------------------------------------------------------------------------


def _rule_given(repo: Repository, rule_id: str) -> None:
    """Refuse a decision on a rule whose work-tree file is not what an audit is given (the
    page showed the rule as given; the decision would commit the file as it is): the served
    view's note, with the command that fixes it (:class:`ApplyConflictError`, retry offered)."""
    served = reads.served_rules(repo)
    path = f"doctrine/{rule_id}.yaml"
    if path not in served.instead:
        return
    notes = served.about(path)
    raise ApplyConflictError(
        f"{notes[0] if notes else path + ' is not what an audit is given'}; nothing was changed",
        hint="this page decides on the rule as an audit is given it: once its file matches it, "
        "retry",
    )


def _rule_as_shown(repo: Repository, rule_id: str, version: int, status: str) -> None:
    """Refuse a decision on a rule the page showed at another version or status, with the
    changes since the version shown, or whose file is not what is given."""
    _rule_given(repo, rule_id)
    rule = load_rule(repo.root, rule_id)
    if rule.version == version and rule.status == status:
        return
    changes: list[str] = []
    if rule.version != version:
        try:
            changes = diff_lines(version_content(repo.root, rule_id, version), rule)
        except DoctrineError:
            changes = []
    raise StaleFormError(
        f"{rule.path}: the page showed version {version} ({status}); {rule_id} is now at "
        f"version {rule.version} ({rule.status}); nothing was changed"
        + ("; what changed since version " + str(version) + ":" if changes else ""),
        changes,
        hint="the rule's page shows it as it is now: decide again",
    )


def _transition(verb: str, t: Transition) -> Done:
    signed = ", signed" if t.signed else ""
    return Done(
        f"{verb} {t.rule.id}: {t.status_from} → {t.rule.status}, version {t.rule.version} "
        f"({_short(t.commit)}{signed})",
        t.commit,
        tuple(t.warnings),
    )


def approve(
    repo: Repository,
    rule_id: str,
    version: int,
    content: str | None,
    reason: str | None = None,
) -> Done:
    """Approve exactly the version the page showed (``doctrine approve ID --version N``;
    ``content``, its ``content_sha256``, pins the content shown as well): ONE commit, with
    ``reason`` recorded (``--reason``). The refusals (admin only, nobody approves their own
    rule, incomplete rules, the rule moved on: :class:`VersionMovedError` with what changed)
    are the CLI's."""

    try:
        with repo.locked():
            _rule_given(repo, rule_id)
            t = do_approve(repo, rule_id, version=version, content=content, reason=reason)
    except VersionMovedError as exc:
        raise StaleFormError(exc.message, list(exc.changes), hint=exc.hint) from None
    return _transition("approved", t)


_TRANSITIONS = ("suspend", "resume", "deactivate", "archive", "reconfirm")
_VERBS = {
    "suspend": "suspended",
    "resume": "resumed",
    "deactivate": "deactivated",
    "archive": "archived",
    "reconfirm": "reconfirmed",
}


def transition(
    repo: Repository,
    action: str,
    rule_id: str,
    version: int,
    status: str,
    reason: str | None = None,
) -> Done:
    """``doctrine suspend|resume|deactivate|archive|reconfirm ID`` on the rule as the page
    showed it: ONE commit, with ``reason`` recorded (``--reason``)."""

    if action not in _TRANSITIONS:
        raise UnknownIdError(f"no action {action!r} on a rule (actions: {', '.join(_TRANSITIONS)})")
    run = getattr(lifecycle, action)
    with repo.locked():
        _rule_as_shown(repo, rule_id, version, status)
        t = run(repo, rule_id, reason=reason)
    return _transition(_VERBS[action], t)


def restore(
    repo: Repository,
    rule_id: str,
    version: int,
    status: str,
    restored: int,
    confirmed: bool,
    reason: str | None = None,
) -> Done:
    """``doctrine restore ID --version N`` on the rule as the page showed it; an active rule
    asks first (:class:`~agentmem.doctrine.drafts.ConfirmationNeeded`, ``confirmed`` answers it);
    ``reason`` is recorded (``--reason``)."""

    with repo.locked():
        _rule_as_shown(repo, rule_id, version, status)
        t = do_restore(repo, rule_id, restored, yes=confirmed, reason=reason)
    return _transition(f"restored version {restored} of", t)
