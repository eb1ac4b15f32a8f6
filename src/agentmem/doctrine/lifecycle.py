"""Status transitions of a rule (docs/design/doctrine.md §Lifecycle): approve, suspend, resume, deactivate,
archive, reconfirm, and the ``due`` queue. Each transition is ONE audit commit
(docs/design/governance.md §Trailers, plus ``Agentmem-Rule``, ``-Version``, ``-Status-From``, ``-Status-To``).

The actor is always the repository's: the git identity that runs the call, mapped to a person
by ``roles.yaml`` (:meth:`Repository.actor`) — no function here takes a person from its caller,
so a library call cannot approve in someone else's name. A refusal names the role needed and
the actor's. A person's decision may carry why (``reason``) and the session it was taken in
(``session``): the ``Agentmem-Reason`` and ``Agentmem-Session`` trailers. Callers hold
:meth:`Repository.locked` around each call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from agentmem import governance as gov
from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes, read_current
from agentmem.doctrine.compare import diff_lines, whole
from agentmem.doctrine.conflicts import Conflict, find_conflicts
from agentmem.doctrine.model import (
    APPROVED_STATUSES,
    FIELD_MAX_CHARS,
    Approval,
    DoctrineError,
    Rule,
    content_sha256,
    is_overdue,
    missing_for_activation,
    now_stamp,
    retired_rule_on,
    today,
)
from agentmem.doctrine.parse import load_rule, load_rules, load_rules_and_errors
from agentmem.doctrine.render import canonical_text, updated_text
from agentmem.doctrine.versions import last_active, version_author, version_content
from agentmem.errors import GovernanceError
from agentmem.store import gitio, sign
from agentmem.store.repo import Person, Repository


@dataclass(frozen=True)
class Transition:
    """What one lifecycle command did: the rule after it, the status before, the commit id."""

    rule: Rule
    status_from: str
    commit: str | None
    signed: bool = False
    warnings: tuple[str, ...] = ()
    before: Rule | None = None


def current(repo: Repository, rule_id: str) -> tuple[Rule, str]:
    """The rule and its file text, which must be as committed: every change is audited, so a
    file with uncommitted edits is refused (nothing would say who made them)."""
    rule = load_rule(repo.root, rule_id)
    text = read_current(repo.root, rule.path) or ""
    if gitio.show_file(repo.root, "HEAD", rule.path) != text:
        raise DoctrineError(
            f"{rule.path} has changes that are not committed; agentmem changes rules only from "
            "their committed state",
            hint=f"commit or discard them first (git diff -- {rule.path})",
        )
    return rule, text


def guard_rule(rule: Rule) -> tuple[str, ...]:
    """Pass every text field of ``rule`` through the guard (kind ``rule``, docs/design/guard.md §Guard);
    returns the warnings, raises :class:`GuardError` naming the field."""
    # lazy: guard patterns load only to write a rule (import agentmem.doctrine stays light)
    from agentmem import guard

    fields: list[tuple[str, str]] = [("title", rule.title), ("instruction", rule.instruction)]
    fields += [(f"limits[{n}]", limit) for n, limit in enumerate(rule.limits, start=1)]
    fields += [("justification", rule.justification)]
    if rule.scope:
        fields.append(("scope", rule.scope))
    warnings: list[str] = []
    for key, text in fields:
        if text:
            found = guard.check(
                text, where=f"{rule.path}: {key}", max_chars=FIELD_MAX_CHARS, kind="rule"
            )
            warnings += [f"{rule.path}: {key}: {f.message}" for f in found]
    return tuple(warnings)


REASON_MAX_CHARS = 500
"""The longest ``--reason`` (it is one trailer line)."""


def decision_trailers(reason: str | None, session: str | None) -> list[tuple[str, str]]:
    """The ``Agentmem-Reason`` and ``Agentmem-Session`` trailers of a person's decision:
    ``reason`` on one line, through the guard (refused, never echoed: a reason is no place for
    a secret or personal data); ``session`` a valid session id. Empty values are left out.
    Raises :class:`GuardError` or :class:`UsageError`."""
    # lazy: the guard and the id rules load only for a decision that carries them
    from agentmem import guard
    from agentmem.proposals.ids import check_session

    found: list[tuple[str, str]] = []
    if reason is not None and reason.strip():
        line = " ".join(reason.split())
        guard.check(line, where="--reason", max_chars=REASON_MAX_CHARS, kind="entry")
        found.append((tr.REASON, line))
    if session is not None and session.strip():
        found.append((tr.SESSION, check_session(session.strip())))
    return found


def trailers_for(
    actor: Person,
    before: Rule | None,
    after: Rule,
    action: str,
    extra: Sequence[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The trailers (docs/design/governance.md §Trailers) of a doctrine commit, in a fixed order."""
    trailers = [
        (tr.ACTION, action),
        (tr.ROUTE, "doctrine"),
        (tr.RULE, after.id),
        (tr.VERSION, str(after.version)),
        (tr.STATUS_FROM, before.status if before else "new"),
        (tr.STATUS_TO, after.status),
        *tr.audit(actor),
    ]
    if after.scope:
        trailers.append((tr.SCOPE, after.scope))
    return trailers + list(extra)


def commit_rule(
    repo: Repository,
    actor: Person,
    before: Rule | None,
    after: Rule,
    action: str,
    old_text: str | None,
    *,
    extra: Sequence[tuple[str, str]] = (),
    more: Sequence[FileChange] = (),
    sign: bool = False,
) -> str | None:
    """Write ``after`` (round trip over ``old_text``, or the canonical layout for a new rule)
    plus ``more`` changes, and commit them as ONE audit commit."""
    new_text = (
        canonical_text(after) if old_text is None else updated_text(old_text, after, after.path)
    )
    arrow = f"{before.status} → {after.status}" if before else after.status
    subject = f"doctrine({after.id}): {action} v{after.version} ({arrow})"
    message = tr.message(subject, trailers_for(actor, before, after, action, extra))
    changes = [FileChange(after.path, old_text, new_text), *more]
    return apply_changes(repo.root, changes, message, sign=sign)


def signing_wanted(repo: Repository) -> bool:
    """Sign approval commits when a key is configured (``user.signingkey``); refuse when
    ``doctrine.require_signed`` is true or ``signing.decisions`` is required and none is
    (docs/design/doctrine.md §Lifecycle, :func:`agentmem.store.sign.signing_wanted`)."""
    return sign.signing_wanted(repo, activation=True)


def _distinct_approver(repo: Repository, actor: Person, rule: Rule, doing: str) -> None:
    if not repo.config.doctrine.distinct_approver:
        return

    author = version_author(repo.root, rule)
    conflict = gov.self_approval(actor.id, proposed_by=rule.proposed_by, wrote=author)
    if conflict is None:
        return
    why = (
        f"{actor.id} proposed {rule.id}"
        if conflict == "proposed"
        else f"{actor.id} wrote version {rule.version} of {rule.id}"
    )
    others = sorted(
        p.id
        for p in repo.people().values()
        if gov.may(p.role, gov.APPROVE)
        and gov.self_approval(p.id, proposed_by=rule.proposed_by, wrote=author) is None
    )
    if others:
        hint = f"ask {', '.join(others)}; nobody approves a rule they proposed or last wrote"
    else:
        wrote = (
            f" and {author} wrote version {rule.version}"
            if author not in (None, rule.proposed_by)
            else ""
        )
        hint = (
            f"no admin may do it now: {rule.proposed_by} proposed it{wrote}; another admin must "
            "be added to roles.yaml, or someone else writes the next version (agentmem doctrine edit)"
        )
    raise GovernanceError(f"distinct_approver: {why}; another admin must do the {doing}", hint=hint)


def _from(rule: Rule, allowed: Sequence[str], doing: str, advice: str = "") -> None:
    if rule.status not in allowed:
        raise DoctrineError(
            f"{rule.path}: cannot {doing}: the rule is {rule.status} "
            f"(possible from: {', '.join(allowed)})",
            hint=advice or None,
        )


def _unchanged_since_approval(rule: Rule, doing: str) -> None:
    approval = rule.approval
    if (
        approval is None
        or approval.content_sha256 != content_sha256(rule)
        or approval.version != rule.version
    ):
        raise DoctrineError(
            f"{rule.path}: cannot {doing}: the content no longer matches its approval "
            "(content_sha256 or version differs: the file was changed after approval)",
            hint=f"agentmem doctrine edit {rule.id} makes it a draft to approve again",
        )


def _review_due(repo: Repository, start: date) -> str:
    return (start + timedelta(days=repo.config.doctrine.review_days)).isoformat()


class VersionMovedError(DoctrineError):
    """``approve --version N`` when the rule is no longer at version N: ``changes`` are the
    lines of :func:`~agentmem.doctrine.compare.diff_lines` from version N to the current one."""

    def __init__(self, message: str, changes: list[str], *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.changes = changes


@dataclass(frozen=True)
class ApprovalPreview:
    """What an admin is shown before approving (docs/design/doctrine.md §Lifecycle): the rule, the last
    version that was active (None when it never was), the lines that changed since it (the whole
    rule when it never was active) and the live rules of an overlapping scope it conflicts
    with."""

    rule: Rule
    base: Rule | None
    changes: tuple[str, ...]
    conflicts: tuple[Conflict, ...]


def _approvable(repo: Repository, actor: Person, rule_id: str) -> tuple[Rule, str, bool]:
    """Every condition of an approval but the version pin: role, committed state, status,
    distinct approver, completeness, signing, the clock. Returns the rule, its file text and
    whether the commit is signed."""
    gov.require(actor, gov.APPROVE, "approving doctrine")
    rule, text = current(repo, rule_id)
    _from(rule, ("draft",), "approve", "a suspended rule is resumed (doctrine resume)")
    _distinct_approver(repo, actor, rule, "approval")
    missing = missing_for_activation(rule)
    if missing:
        how = {
            "scope": f"doctrine assign {rule.id} --scope SCOPE",
            "instruction": f"doctrine edit {rule.id} --instruction TEXT",
            "limit": f"doctrine edit {rule.id} --limit TEXT",
        }
        raise DoctrineError(
            f"{rule.path}: cannot approve {rule.id}: missing {', '.join(missing)}",
            hint="add it first: " + "; ".join(f"agentmem {how[m]}" for m in missing),
        )
    sign = signing_wanted(repo)
    _no_future_clock("an approval")
    return rule, text, sign


def _no_future_clock(what: str) -> None:
    """Refuse while ``AGENTMEM_TODAY`` is more than a day after the real UTC date: ``what``
    (an approval) is never dated in the future. Raises :class:`DoctrineError`."""
    clock = datetime.now(UTC).date()
    if today() > clock + timedelta(days=1):
        raise DoctrineError(
            f"AGENTMEM_TODAY is after today's date ({clock}): {what} is never dated in the future",
            hint="unset AGENTMEM_TODAY (it is for rehearsals of due dates)",
        )


def rule_conflicts(repo: Repository, rule: Rule) -> tuple[Conflict, ...]:
    """The live rules of an overlapping scope that say the opposite of ``rule`` or set another
    value (:mod:`agentmem.doctrine.conflicts`); unreadable rule files are left out."""
    rules, _errors = load_rules_and_errors(repo.root)
    return tuple(find_conflicts(rule, rules))


def changes_since_active(repo: Repository, rule: Rule) -> tuple[Rule | None, tuple[str, ...]]:
    """The last active version of ``rule`` and the lines that changed since (the whole rule
    when it was never active)."""
    base = last_active(repo.root, rule.id)
    return base, tuple(whole(rule) if base is None else diff_lines(base, rule))


def preview_approval(repo: Repository, rule_id: str) -> ApprovalPreview:
    """Check that the repository's actor may approve ``rule_id`` now (raises as :func:`approve`
    does) and return what they must read first."""
    rule, _text, _sign = _approvable(repo, repo.actor(), rule_id)
    base, changes = changes_since_active(repo, rule)
    return ApprovalPreview(rule, base, changes, rule_conflicts(repo, rule))


def _pinned(repo: Repository, rule: Rule, version: int, content: str | None) -> None:
    if version == rule.version:
        if content is not None and content != content_sha256(rule):
            raise DoctrineError(
                f"{rule.path}: version {version} is no longer what you were shown (its content "
                "changed without a new version: a commit made by hand)",
                hint=f"read it again: agentmem doctrine show {rule.id}",
            )
        return
    if version > rule.version or version < 1:
        raise DoctrineError(
            f"{rule.path}: cannot approve version {version}: {rule.id} is at version "
            f"{rule.version}",
            hint=f"agentmem doctrine diff {rule.id} shows what it says now",
        )
    read = version_content(repo.root, rule.id, version)
    raise VersionMovedError(
        f"{rule.path}: not approved: you approve version {version} but {rule.id} is now at "
        f"version {rule.version}; what changed since version {version}:",
        diff_lines(read, rule),
        hint=(
            f"read it (agentmem doctrine diff {rule.id} --from {version}); to approve what it "
            f"says now: agentmem doctrine approve {rule.id} --version {rule.version}"
        ),
    )


def approve(
    repo: Repository,
    rule_id: str,
    *,
    version: int,
    content: str | None = None,
    reason: str | None = None,
    session: str | None = None,
) -> Transition:
    """draft → active (admin, not the proposer; scope, instruction and ≥1 limit present), for
    ``version`` only: the version the admin read (docs/design/doctrine.md §Lifecycle). The admin is the
    repository's actor (its git identity in ``roles.yaml``). When the rule is at another
    version, :class:`VersionMovedError` carries what changed since ``version``; ``content`` (a
    ``content_sha256``) pins the exact content shown as well. ``reason`` and ``session`` are
    recorded with the decision (:func:`decision_trailers`).

    Sets ``approval`` (by, at, version, content hash) and ``review_due`` = today +
    ``review_days``; the commit is signed when a key is configured. Raises
    :class:`GovernanceError` or :class:`DoctrineError` (naming what is missing).
    """
    actor = repo.actor()
    rule, text, sign = _approvable(repo, actor, rule_id)
    _pinned(repo, rule, version, content)
    recorded = decision_trailers(reason, session)
    warnings = guard_rule(rule)
    approval = Approval(actor.id, now_stamp(), rule.version, content_sha256(rule))
    after = rule.with_changes(
        status="active", approval=approval, review_due=_review_due(repo, today())
    )
    commit = commit_rule(repo, actor, rule, after, "approve", text, extra=recorded, sign=sign)
    return Transition(after, rule.status, commit, sign, warnings, rule)


def _simple(
    repo: Repository,
    rule_id: str,
    action: str,
    allowed: Sequence[str],
    status: str,
    doing: str,
    recorded: list[tuple[str, str]],
) -> Transition:
    actor = repo.actor()
    gov.require(actor, action, doing)
    rule, text = current(repo, rule_id)
    _from(rule, allowed, action)
    changes: dict[str, Any] = {"status": status}
    if status not in APPROVED_STATUSES:
        changes.update(approval=None, review_due=None)
    after = rule.with_changes(**changes)
    signed = sign.signing_wanted(repo)
    commit = commit_rule(repo, actor, rule, after, action, text, extra=recorded, sign=signed)
    return Transition(after, rule.status, commit, signed)


def suspend(
    repo: Repository, rule_id: str, *, reason: str | None = None, session: str | None = None
) -> Transition:
    """active → suspended (admin): it stops applying; its approval is kept for ``resume``."""
    recorded = decision_trailers(reason, session)
    statuses = ("active",)
    return _simple(repo, rule_id, "suspend", statuses, "suspended", "suspending doctrine", recorded)


def deactivate(
    repo: Repository, rule_id: str, *, reason: str | None = None, session: str | None = None
) -> Transition:
    """active/suspended → deactivated (admin); the approval and review date are cleared."""
    recorded = decision_trailers(reason, session)
    statuses = ("active", "suspended")
    return _simple(
        repo, rule_id, "deactivate", statuses, "deactivated", "deactivating doctrine", recorded
    )


def archive(
    repo: Repository, rule_id: str, *, reason: str | None = None, session: str | None = None
) -> Transition:
    """any → archived (admin); the approval and review date are cleared."""
    recorded = decision_trailers(reason, session)
    statuses = ("draft", "active", "suspended", "deactivated")
    return _simple(repo, rule_id, "archive", statuses, "archived", "archiving doctrine", recorded)


def resume(
    repo: Repository, rule_id: str, *, reason: str | None = None, session: str | None = None
) -> Transition:
    """suspended → active (admin), only if the content still matches its approval hash."""
    recorded = decision_trailers(reason, session)
    actor = repo.actor()
    gov.require(actor, gov.RESUME, "resuming doctrine")
    rule, text = current(repo, rule_id)
    _from(rule, ("suspended",), "resume")
    _unchanged_since_approval(rule, "resume")
    sign = signing_wanted(repo)
    after = rule.with_changes(status="active")
    commit = commit_rule(repo, actor, rule, after, "resume", text, extra=recorded, sign=sign)
    return Transition(after, rule.status, commit, sign)


def reconfirm(
    repo: Repository, rule_id: str, *, reason: str | None = None, session: str | None = None
) -> Transition:
    """Review of an active (or suspended) rule (admin, not its proposer): the content must still
    match its approval; ``review_due`` moves to today + ``review_days``."""
    recorded = decision_trailers(reason, session)
    actor = repo.actor()
    gov.require(actor, gov.RECONFIRM, "reconfirming doctrine")
    rule, text = current(repo, rule_id)
    _from(rule, APPROVED_STATUSES, "reconfirm")
    _distinct_approver(repo, actor, rule, "review")
    _unchanged_since_approval(rule, "reconfirm")
    sign = signing_wanted(repo)
    after = rule.with_changes(review_due=_review_due(repo, today()))
    extra = [(tr.REVIEW_DUE, f"{rule.review_due} → {after.review_due}"), *recorded]
    commit = commit_rule(repo, actor, rule, after, "reconfirm", text, extra=extra, sign=sign)
    return Transition(after, rule.status, commit, sign)


@dataclass(frozen=True)
class DueRule:
    """An active rule past its ``review_due`` (``doctrine due``, docs/design/doctrine.md §Lifecycle):
    ``applied`` says whether audits still get it (``on_review_due: alert``) or not (``suspend``)."""

    rule: Rule
    days_overdue: int
    applied: bool
    #: the day ``agentmem scope retire`` sent it to review (its scope retired), or None.
    retired: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.rule.to_dict(),
            "days_overdue": self.days_overdue,
            "applied": self.applied,
            "retired": self.retired,
        }


def due(repo: Repository, on: date | None = None) -> list[DueRule]:
    """Active rules whose ``review_due`` is before ``on`` (default :func:`today`), or whose
    scope was retired since they were last confirmed (``agentmem scope retire``), most overdue
    first (admin: the review queue is theirs)."""
    gov.require(repo.actor(), gov.REVIEW_QUEUE, "the doctrine review queue")
    on = on or today()
    config = repo.config
    applied = config.doctrine.on_review_due == "alert"
    retired, days = config.retired_scopes, config.doctrine.review_days
    found = []
    for rule in load_rules(repo.root):
        if not is_overdue(rule, on, retired, days):
            continue
        gone = retired_rule_on(rule, on, retired, days) if retired else None
        since = min(d for d in (rule.review_due, gone) if d)
        overdue = (on - date.fromisoformat(since)).days
        found.append(DueRule(rule, overdue, applied, gone))
    return sorted(found, key=lambda d: (-d.days_overdue, d.rule.id))
