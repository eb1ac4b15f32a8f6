"""Content changes of doctrine (docs/design/doctrine.md §Rule file): ``propose``, the draft made from a
reviewed ``doctrine`` proposal, ``edit``, ``assign`` and ``restore``. Each is ONE audit commit.

Every new or changed text passes the guard (kind ``rule``) and the duplicate guard
(:mod:`agentmem.doctrine.similar`) against the live rules of the same scope; ``distinct``
overrides the latter and records the override in ``distinct_from`` and in the
``Agentmem-Distinct-From`` trailer. A content change bumps the version; on an active or
suspended rule it drops the rule to draft and clears its approval, which the caller must confirm
first (:class:`ConfirmationNeeded`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem import governance as gov
from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import read_current
from agentmem.doctrine.index import forms_of, read_briefs, rules_of
from agentmem.doctrine.lifecycle import (
    Transition,
    commit_rule,
    current,
    decision_trailers,
    guard_rule,
)
from agentmem.doctrine.model import (
    APPROVED_STATUSES,
    CONTENT_KEYS,
    LIVE_STATUSES,
    DoctrineError,
    DuplicateRuleError,
    Rule,
    normalise_scope,
    now_stamp,
    rule_relpath,
    scopes_overlap,
)
from agentmem.doctrine.similar import Similar, best_match, candidate_forms, form
from agentmem.doctrine.versions import session_scope, version_content
from agentmem.errors import GovernanceError, ProposalError
from agentmem.proposals.inbox import list_pending, proposal_relpath
from agentmem.store.repo import Person, Repository
from agentmem.store.sign import signing_wanted

if TYPE_CHECKING:
    from agentmem.proposals.model import Proposal

TITLE_MAX_CHARS = 80
_ID_MAX = 48


class ConfirmationNeeded(DoctrineError):
    """The change would drop an active or suspended rule to draft; ask, then pass ``yes``.
    ``before`` and ``after`` are the rule now and as the change would make it (to show the
    difference before asking)."""

    def __init__(self, message: str, before: Rule | None = None, after: Rule | None = None) -> None:
        super().__init__(message)
        self.before = before
        self.after = after


def slug_for(title: str) -> str:
    """A kebab-case id from a title: ASCII letters and digits, at most 48 characters."""
    folded = unicodedata.normalize("NFKD", title.casefold())
    folded = "".join(ch for ch in folded if ch.isascii() and not unicodedata.combining(ch))
    words = re.findall(r"[a-z0-9]+", folded)
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > _ID_MAX:
            break
        slug = candidate
    return slug or "rule"


def title_from(text: str) -> str:
    """A draft's title from a proposal's text: its first sentence, shortened on a word boundary
    with ``…`` past 80 characters (the full text stays the instruction)."""
    first = re.split(r"(?<=[.!?;])\s", text.strip(), maxsplit=1)[0].rstrip(".;!? ")
    if len(first) <= TITLE_MAX_CHARS:
        return first or text.strip()
    cut = first[: TITLE_MAX_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def _free_id(repo: Repository, base: str) -> str:
    candidate, number = base, 2
    while (repo.root / rule_relpath(candidate)).exists():
        suffix = f"-{number}"
        candidate = base[: _ID_MAX - len(suffix)].rstrip("-") + suffix
        number += 1
    return candidate


def similar_rules(repo: Repository, rule: Rule, exclude: tuple[str, ...]) -> list[Similar]:
    """Live rules close to ``rule``, leaving out ``rule`` itself, ``exclude`` and the rules that
    declared themselves distinct from ``rule`` (a declaration holds both ways: the rule that
    was there first can still be edited without repeating it): :func:`similar_in_index` at
    ``doctrine.duplicate_threshold``."""
    return similar_in_index(repo.root, rule, exclude, repo.config.doctrine.duplicate_threshold)


def similar_in_index(
    root: Path, rule: Rule, exclude: tuple[str, ...], threshold: float
) -> list[Similar]:
    """What :func:`agentmem.doctrine.similar.find_similar` gives over every rule of ``root``
    (with the declared-distinct rules excluded), from the rule index
    (docs/design/search.md §Rule index): each rule's normalised texts are stored once per file version, the pairs that
    cannot reach ``threshold`` are not scored, and only the rules found similar are read again
    (for the text that matched). Raises the first :class:`DoctrineError` of a bad rule file, as
    ``load_rules`` does."""
    briefs = read_briefs(root)
    briefs.raise_first()
    skip = {rule.id, *exclude}
    skip.update(b.id for b in briefs.briefs if rule.id in b.distinct_from)
    mine = candidate_forms(rule.title, rule.instruction)
    found: list[Similar] = []
    meets: dict[str | None, bool] = {}
    for brief in briefs.briefs:
        if brief.id in skip or brief.status not in LIVE_STATUSES:
            continue
        met = meets.get(brief.scope)
        if met is None:
            met = meets[brief.scope] = scopes_overlap(rule.scope, brief.scope)
        if not met:
            continue
        title, instruction = forms_of(root, briefs, brief)
        theirs = (form(title), form(instruction))
        best, at = best_match(mine, theirs, threshold)
        if best >= threshold:
            text = ""
            if at >= 0:
                (read,) = rules_of(root, briefs, [brief.id])
                text = (read.title, read.instruction)[at]
            found.append(Similar(brief.id, brief.status, brief.scope, round(best, 1), text))
    return sorted(found, key=lambda s: (-s.score, s.rule_id))


def _duplicates(
    repo: Repository, rule: Rule, distinct: bool, similar: list[Similar], *, editing: bool = False
) -> Rule:
    """The duplicate guard's verdict: refuse, or with ``distinct`` record the similar rules."""
    if not similar:
        return rule
    if not distinct:
        shown = "; ".join(s.describe() for s in similar)
        where = f"scope {rule.scope}" if rule.scope else "rules without scope"
        raise DuplicateRuleError(
            f"{rule.path}: similar to {len(similar)} rule(s) in {where} "
            f"(threshold {repo.config.doctrine.duplicate_threshold}): {shown}",
            similar,
            hint=(
                "pass --distinct if this version is still a different rule (the override is "
                "recorded), or change it less"
                if editing
                else "edit that rule instead, or pass --distinct if this is a different rule "
                "(the override is recorded)"
            ),
        )
    added = tuple(s.rule_id for s in similar if s.rule_id not in rule.distinct_from)
    return rule.with_changes(distinct_from=rule.distinct_from + added)


def _distinct_trailer(before: Rule | None, after: Rule) -> list[tuple[str, str]]:
    new = [r for r in after.distinct_from if not before or r not in before.distinct_from]
    return [(tr.DISTINCT_FROM, ", ".join(new))] if new else []


@dataclass(frozen=True)
class Draft:
    """The fields a person gives for a new rule (``doctrine propose``)."""

    title: str
    instruction: str
    limits: tuple[str, ...] = ()
    justification: str = ""
    scope: str | None = None
    session: str | None = None


def _session_scope(repo: Repository, session: str) -> str | None:
    return session_scope(repo.root, session, list_pending(repo))


@dataclass(frozen=True)
class DraftPlan:
    """A draft as it would be created: the rule, the similar live rules, the guard's warnings."""

    rule: Rule
    similar: list[Similar]
    warnings: tuple[str, ...]


def plan_draft(
    repo: Repository,
    draft: Draft,
    *,
    rule_id: str | None = None,
    proposal: Proposal | None = None,
) -> DraftPlan:
    """Everything :func:`propose` checks, without writing: role (of the repository's actor),
    scope, id, guard (raises) and the duplicate guard's findings (returned, not raised)."""
    return _plan(repo, repo.actor(), draft, rule_id=rule_id, proposal=proposal)


def _plan(
    repo: Repository,
    actor: Person,
    draft: Draft,
    *,
    rule_id: str | None = None,
    proposal: Proposal | None = None,
) -> DraftPlan:
    gov.require(actor, gov.PROPOSE, "proposing doctrine")
    scope = normalise_scope(draft.scope)
    if scope is None and draft.session:
        scope = _session_scope(repo, draft.session)
    if rule_id is not None:
        if not re.match(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$", rule_id):
            raise DoctrineError(f"invalid rule id {rule_id!r}: use a lower-case kebab-case slug")
        if (repo.root / rule_relpath(rule_id)).exists():
            raise DoctrineError(
                f"{rule_relpath(rule_id)} already exists", hint="choose another --id"
            )
    title = " ".join(draft.title.split())
    if not title:
        raise DoctrineError("a rule needs a title (--title)")
    new_id = rule_id or _free_id(repo, slug_for(title))
    rule = Rule(
        id=new_id,
        title=title,
        status="draft",
        scope=scope,
        instruction=draft.instruction.strip(),
        limits=tuple(limit.strip() for limit in draft.limits if limit.strip()),
        justification=draft.justification.strip(),
        version=1,
        proposed_by=proposal.person if proposal else actor.id,
        proposed_at=now_stamp(),
        origin_session=draft.session,
        distinct_from=(),
        approval=None,
        review_due=None,
        path=rule_relpath(new_id),
    )
    warnings = guard_rule(rule)
    return DraftPlan(rule, similar_rules(repo, rule, ()), warnings)


def propose(
    repo: Repository,
    draft: Draft,
    *,
    rule_id: str | None = None,
    distinct: bool = False,
) -> Transition:
    """(new) → draft (member, admin): the repository's actor proposes ``draft``. The scope is
    ``draft.scope``, else the scope of ``draft.session``'s harvest, else None ("to be
    assigned"). Raises :class:`GovernanceError`, :class:`GuardError`,
    :class:`DuplicateRuleError`, :class:`DoctrineError`."""
    return _propose(repo, repo.actor(), draft, rule_id=rule_id, distinct=distinct)


def _propose(
    repo: Repository,
    actor: Person,
    draft: Draft,
    *,
    rule_id: str | None = None,
    distinct: bool = False,
    proposal: Proposal | None = None,
    corrections: list[str] | None = None,
    foreign: str | None = None,
) -> Transition:
    """:func:`propose`, from a reviewed proposal too. ``corrections`` (the reviewer's, ``field: old -> new``)
    become ``Agentmem-Corrected`` trailers; ``foreign`` (why ``proposal`` is not its owner's,
    accepted with ``review --allow-foreign``) an ``Agentmem-Foreign`` one. The scope is ``draft.scope``, else the scope of
    ``draft.session``'s harvest, else None ("to be assigned"). With ``proposal``, its inbox file
    is removed in the same commit. Raises :class:`GovernanceError`, :class:`GuardError`,
    :class:`DuplicateRuleError`, :class:`DoctrineError`."""
    plan = _plan(repo, actor, draft, rule_id=rule_id, proposal=proposal)
    rule = _duplicates(repo, plan.rule, distinct, plan.similar)
    extra = [(tr.SESSION, draft.session)] if draft.session else []
    more: list[FileChange] = []
    if proposal is not None:
        inbox = proposal_relpath(proposal)
        more.append(FileChange(inbox, read_current(repo.root, inbox), None))
        extra += [(tr.PROPOSAL, proposal.id), (tr.BASIS, proposal.basis)]
    extra += [(tr.CORRECTED, c) for c in corrections or []]
    if foreign:
        extra.append((tr.FOREIGN, foreign))
    extra += _distinct_trailer(None, rule)
    if rule.justification:
        extra.append((tr.JUSTIFICATION, rule.justification))
    signed = signing_wanted(repo) if proposal is not None else False  # an accept: a decision
    commit = commit_rule(
        repo, actor, None, rule, "propose", None, extra=extra, more=more, sign=signed
    )
    return Transition(rule, "new", commit, False, plan.warnings)


def _proposal_draft(actor: Person, proposal: Proposal, text: str | None) -> Draft:
    if proposal.route != "doctrine":
        raise ProposalError(f"{proposal.id} is a memory proposal, not a doctrine one")
    if actor.id != proposal.person:
        raise GovernanceError(
            f"{proposal.id} belongs to {proposal.person}; only they review it (you are {actor.id})"
        )
    instruction = " ".join((text if text is not None else proposal.text or "").split())
    if not instruction:
        raise ProposalError(f"{proposal.id}: a doctrine proposal needs a text")
    return Draft(
        title=title_from(instruction),
        instruction=instruction,
        justification=proposal.justification,
        scope=proposal.scope,
        session=proposal.session,
    )


def plan_from_proposal(
    repo: Repository, proposal: Proposal, *, text: str | None = None
) -> DraftPlan:
    """The draft a review would make of a ``doctrine`` proposal (``--dry-run``)."""
    actor = repo.actor()
    return _plan(repo, actor, _proposal_draft(actor, proposal, text), proposal=proposal)


def draft_from_proposal(
    repo: Repository,
    proposal: Proposal,
    *,
    text: str | None = None,
    distinct: bool = False,
    corrections: list[str] | None = None,
    foreign: str | None = None,
) -> Transition:
    """Review of a ``doctrine``-routed proposal (docs/design/doctrine.md §Rule file): its owner accepts it
    and it becomes a draft rule whose proposer is the proposal's person, with the proposal's scope
    and session; the inbox file goes in the same commit. ``text`` is the person's edited
    instruction. The title is the text's first sentence; the draft has no limit yet (approval asks
    for one). ``foreign``: as for :func:`propose`. The reviewer is the repository's actor."""
    actor = repo.actor()
    draft = _proposal_draft(actor, proposal, text)
    return _propose(
        repo,
        actor,
        draft,
        distinct=distinct,
        proposal=proposal,
        corrections=corrections,
        foreign=foreign,
    )


_UNSET = object()


@dataclass(frozen=True)
class Changes:
    """The fields ``doctrine edit`` changes; None leaves a field as it is. ``limits`` are added
    to the rule's limits (one already there is not added twice), or replace them all with
    ``replace_limits`` (docs/decisions/)."""

    title: str | None = None
    instruction: str | None = None
    limits: tuple[str, ...] | None = None
    justification: str | None = None
    scope: str | None | object = _UNSET
    replace_limits: bool = False


def _content_change(
    repo: Repository,
    actor: Person,
    rule: Rule,
    text: str,
    after: Rule,
    action: str,
    *,
    yes: bool,
    distinct: bool,
    extra: list[tuple[str, str]],
) -> Transition:
    if rule.status == "archived":
        raise DoctrineError(
            f"{rule.path}: an archived rule is kept for the record and no longer changes",
            hint="propose a new rule (agentmem doctrine propose)",
        )
    content_changed = any(getattr(rule, k) != getattr(after, k) for k in CONTENT_KEYS)
    if not content_changed and after.justification == rule.justification:
        raise DoctrineError(f"{rule.path}: nothing to change (the content is already that)")
    if content_changed:
        after = after.with_changes(version=rule.version + 1)
        if rule.status != "draft":
            after = after.with_changes(status="draft", approval=None, review_due=None)
        if rule.status in APPROVED_STATUSES and not yes:
            raise ConfirmationNeeded(
                f"{rule.id} is {rule.status}: this change makes version {after.version} a draft, "
                "clears its approval, and it stops applying until an admin approves it again",
                rule,
                after,
            )
    warnings = guard_rule(after)
    if content_changed:
        similar = similar_rules(repo, after, rule.distinct_from)
        after = _duplicates(repo, after, distinct, similar, editing=True)
    extra = extra + _distinct_trailer(rule, after)
    commit = commit_rule(repo, actor, rule, after, action, text, extra=extra)
    return Transition(after, rule.status, commit, False, warnings, rule)


def edit(
    repo: Repository,
    rule_id: str,
    changes: Changes,
    *,
    yes: bool = False,
    distinct: bool = False,
) -> Transition:
    """A content edit (member, admin): a new version; an active or suspended rule drops to draft
    and its approval is cleared (raises :class:`ConfirmationNeeded` unless ``yes``). Limits are
    added, or replaced with ``changes.replace_limits``. The editor is the repository's actor."""
    actor = repo.actor()
    gov.require(actor, gov.EDIT, "editing doctrine")
    rule, text = current(repo, rule_id)
    fields: dict[str, object] = {}
    if changes.title is not None:
        fields["title"] = " ".join(changes.title.split())
        if not fields["title"]:
            raise DoctrineError("the title cannot be empty")
    if changes.instruction is not None:
        fields["instruction"] = changes.instruction.strip()
    given = tuple(limit.strip() for limit in changes.limits or () if limit.strip())
    if changes.replace_limits:
        if not given:
            raise DoctrineError(
                "--replace-limits needs the new limits: give each with --limit",
                hint="an approved rule needs at least one limit",
            )
        fields["limits"] = tuple(dict.fromkeys(given))
    elif given:
        fields["limits"] = rule.limits + tuple(
            limit for limit in dict.fromkeys(given) if limit not in rule.limits
        )
    if changes.justification is not None:
        fields["justification"] = changes.justification.strip()
    if changes.scope is not _UNSET:
        fields["scope"] = normalise_scope(changes.scope if isinstance(changes.scope, str) else None)
    after = rule.with_changes(**fields)
    extra = [(tr.JUSTIFICATION, after.justification)] if "justification" in fields else []
    return _content_change(
        repo, actor, rule, text, after, "edit", yes=yes, distinct=distinct, extra=extra
    )


def assign(
    repo: Repository,
    rule_id: str,
    scope: str,
    *,
    yes: bool = False,
    distinct: bool = False,
) -> Transition:
    """Give a rule its scope (member, admin): a content change like :func:`edit`."""
    actor = repo.actor()
    gov.require(actor, gov.ASSIGN, "assigning a scope")
    rule, text = current(repo, rule_id)
    new_scope = normalise_scope(scope, "--scope")
    if new_scope is None:
        raise DoctrineError("--scope needs a scope such as contracts/supply")
    after = rule.with_changes(scope=new_scope)
    return _content_change(
        repo, actor, rule, text, after, "assign", yes=yes, distinct=distinct, extra=[]
    )


def restore(
    repo: Repository,
    rule_id: str,
    version: int,
    *,
    yes: bool = False,
    distinct: bool = False,
    reason: str | None = None,
    session: str | None = None,
) -> Transition:
    """Bring back the content (title, scope, instruction, limits) of ``version`` from git history
    as a new version, status draft, no approval — never the old status or approval
    (docs/design/doctrine.md §Rule file). ``reason`` and ``session`` are recorded with it
    (:func:`~agentmem.doctrine.lifecycle.decision_trailers`)."""
    recorded = decision_trailers(reason, session)
    actor = repo.actor()
    gov.require(actor, gov.RESTORE, "restoring doctrine")
    rule, text = current(repo, rule_id)
    if version == rule.version:
        raise DoctrineError(f"{rule.path}: version {version} is the current version")
    if version > rule.version or version < 1:
        raise DoctrineError(
            f"{rule.path}: no version {version} (the rule is at version {rule.version})"
        )
    old = version_content(repo.root, rule_id, version)
    after = rule.with_changes(**{k: getattr(old, k) for k in CONTENT_KEYS})
    if all(getattr(rule, k) == getattr(after, k) for k in CONTENT_KEYS):
        raise DoctrineError(
            f"{rule.path}: version {version} has the same content as version {rule.version}"
        )
    after = after.with_changes(status="draft", approval=None, review_due=None)
    extra = [(tr.RESTORED_FROM, str(version)), *recorded]
    if rule.status in APPROVED_STATUSES and not yes:
        raise ConfirmationNeeded(
            f"{rule.id} is {rule.status}: restoring version {version} makes version "
            f"{rule.version + 1} a draft, clears its approval, and it stops applying until an "
            "admin approves it again",
            rule,
            after,
        )
    return _content_change(
        repo, actor, rule, text, after, "restore", yes=True, distinct=distinct, extra=extra
    )
