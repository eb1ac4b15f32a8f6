"""The doctrine rule (docs/design/doctrine.md §Rule file): its shape, its content hash, and the pure
questions asked of it.

Nothing here touches the disk or git. Dates are ISO 8601 strings in the rule (``proposed_at`` and
``approval.at`` as ``YYYY-MM-DDTHH:MM:SSZ``, ``review_due`` as ``YYYY-MM-DD``), so that a rule is
exactly what its file says; they are parsed only when compared.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from json.encoder import encode_basestring as _json_string
from typing import TYPE_CHECKING, Any

from agentmem.errors import DoctrineError as DoctrineError

if TYPE_CHECKING:
    from agentmem.memory.records import Retired

STATUSES = ("draft", "active", "suspended", "deactivated", "archived")
#: The largest rule file read (a rule is a few hundred bytes; a bigger file is a mistake or an
#: attack).
MAX_RULE_BYTES = 64 * 1024
#: Statuses compared by the duplicate guard (docs/design/doctrine.md §Rule file: draft, active, suspended).
LIVE_STATUSES = ("draft", "active", "suspended")
#: Statuses that carry an approval (docs/design/doctrine.md §Rule file: ``approval`` only while active or
#: suspended).
APPROVED_STATUSES = ("active", "suspended")
#: The canonical key order of a rule file (docs/design/doctrine.md §Rule file).
KEYS = (
    "id",
    "title",
    "status",
    "scope",
    "instruction",
    "limits",
    "justification",
    "version",
    "proposed_by",
    "proposed_at",
    "origin_session",
    "distinct_from",
    "approval",
    "review_due",
)
APPROVAL_KEYS = ("by", "at", "version", "content_sha256")
#: Keys whose change makes a new version (``version``, docs/design/doctrine.md §Rule file) and enters
#: ``content_sha256``.
CONTENT_KEYS = ("title", "scope", "instruction", "limits")
DOCTRINE_DIR = "doctrine"
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
FIELD_MAX_CHARS = 1000  # one doctrine text field (title, instruction, a limit, justification)


class UnknownRuleError(DoctrineError):
    """No rule file has that id (exit 2, like an unknown person or proposal id: a usage error,
    docs/decisions/)."""

    exit_code = 2


class DuplicateRuleError(DoctrineError):
    """The duplicate guard refused a new or edited rule (docs/design/doctrine.md §Rule file); ``similar``
    lists the matches."""

    def __init__(self, message: str, similar: list[Any], *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.similar = similar


@dataclass(frozen=True)
class Approval:
    """Who approved which content (docs/design/doctrine.md §Rule file): ``at`` ISO 8601 UTC,
    ``content_sha256`` hex."""

    by: str
    at: str
    version: int
    content_sha256: str


@dataclass(frozen=True)
class Rule:
    """One doctrine rule as its file holds it (docs/design/doctrine.md §Rule file); ``path`` is
    ``doctrine/<id>.yaml``."""

    id: str
    title: str
    status: str
    scope: str | None
    instruction: str
    limits: tuple[str, ...]
    justification: str
    version: int
    proposed_by: str
    proposed_at: str
    origin_session: str | None
    distinct_from: tuple[str, ...]
    approval: Approval | None
    review_due: str | None
    path: str

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` shape: the keys of docs/design/doctrine.md §Rule file in order, then
        ``path``."""
        data = asdict(self)
        data["limits"] = list(self.limits)
        data["distinct_from"] = list(self.distinct_from)
        return {key: data[key] for key in (*KEYS, "path")}

    def with_changes(self, **changes: Any) -> Rule:
        return replace(self, **changes)


def rule_relpath(rule_id: str) -> str:
    """``doctrine/<id>.yaml`` (the id must already be a checked slug)."""
    return f"{DOCTRINE_DIR}/{rule_id}.yaml"


def content_sha256(rule: Rule) -> str:
    """SHA-256 hex of the canonical JSON of ``{title, scope, instruction, limits}``
    (docs/design/doctrine.md §Rule file).

    Canonical JSON: keys sorted, no spaces, UTF-8 (``ensure_ascii=False``), limits as a list.
    Written out key by key with the string encoder ``json.dumps`` itself uses for
    ``ensure_ascii=False`` (the same text: ``tests/doctrine/test_parse.py``), without
    building a dict and an encoder for each rule: a first audit hashes every approved rule.
    """
    text = _json_string
    scope = "null" if rule.scope is None else text(rule.scope)
    blob = (
        f'{{"instruction":{text(rule.instruction)},"limits":[{",".join(map(text, rule.limits))}],'
        f'"scope":{scope},"title":{text(rule.title)}}}'
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def missing_for_activation(rule: Rule) -> list[str]:
    """What approval still needs (docs/design/doctrine.md §Rule file): a subset of ``["scope", "instruction",
    "limit"]``."""
    missing = []
    if not rule.scope:
        missing.append("scope")
    if not rule.instruction.strip():
        missing.append("instruction")
    if not any(limit.strip() for limit in rule.limits):
        missing.append("limit")
    return missing


def normalise_scope(scope: str | None, where: str = "scope") -> str | None:
    """A scope as stored: ``/``-separated segments, no leading/trailing ``/`` (*scope*,
    docs/design/overview.md §Vocabulary), through :func:`agentmem.proposals.ids.check_scope`.

    ``None`` or an empty string means "to be assigned". Raises :class:`DoctrineError` for an empty
    segment, ``.``/``..``, spaces or other characters outside ``[A-Za-z0-9_.-]``, more than 200
    characters or anything the guard refuses; the message never repeats the value.
    """
    # lazy: import agentmem.doctrine stays light: the id checks load the guard
    from agentmem.proposals.ids import check_scope

    return check_scope(scope, where, DoctrineError)


def applies_to(rule_scope: str | None, scope: str) -> bool:
    """True when a rule of ``rule_scope`` applies to ``scope``: its scope and everything below it.

    ``"contracts"`` applies to ``"contracts"`` and ``"contracts/supply"``, not to ``"contractsx"``;
    a rule without scope applies nowhere.
    """
    if not rule_scope:
        return False
    mine = rule_scope.strip("/")
    other = scope.strip().strip("/")
    return bool(mine) and (other == mine or other.startswith(mine + "/"))


def scopes_overlap(a: str | None, b: str | None) -> bool:
    """Two scopes meet when equal, or one lies below the other; ``None`` meets only ``None``."""
    if a is None or b is None:
        return a is None and b is None
    return applies_to(a, b) or applies_to(b, a)


def is_overdue(rule: Rule, today: date, retired: Retired = (), review_days: int = 90) -> bool:
    """An active rule whose ``review_due`` is before ``today``, or in a scope retired since it
    was last confirmed (:func:`retired_rule_on`) — ``doctrine due``, docs/design/doctrine.md §Lifecycle."""
    if rule.status != "active" or not rule.review_due:
        return False
    if date.fromisoformat(rule.review_due) < today:
        return True
    return bool(retired) and retired_rule_on(rule, today, retired, review_days) is not None


def confirmed_on(rule: Rule, review_days: int) -> str | None:
    """The day an approved rule was last confirmed (``YYYY-MM-DD``): its approval, or a later
    reconfirmation, read from ``review_due`` less ``doctrine.review_days``."""
    if rule.approval is None:
        return None
    day = rule.approval.at[:10]
    if rule.review_due:
        try:
            moved = (date.fromisoformat(rule.review_due) - timedelta(days=review_days)).isoformat()
        except ValueError:
            return day
        day = max(day, moved)
    return day


def retired_rule_on(rule: Rule, today: date, retired: Retired, review_days: int) -> str | None:
    """The day ``agentmem scope retire`` sent this rule to review (its scope, or one above it,
    retired after the rule was last confirmed: :func:`confirmed_on`), or None."""
    # lazy: the entry records load for a retirement check only (listing rules needs none)
    from agentmem.memory.records import retired_on

    return retired_on(rule.scope, confirmed_on(rule, review_days), retired, today.isoformat())


def not_applied_reason(
    rule: Rule,
    scope: str,
    today: date,
    on_review_due: str,
    retired: Retired = (),
    review_days: int = 90,
) -> str | None:
    """Why ``rule`` does not apply to an audit of ``scope`` (None when it applies;
    docs/design/context.md §Context).

    Reasons: the status (``draft``, ``suspended`` …), ``changed after approval`` (an active rule
    without an approval, or whose content no longer matches ``approval.content_sha256``: a hand
    edit that ``check`` also fails on), ``out of scope``, ``review overdue`` (only under
    ``on_review_due: suspend``; under ``alert`` an overdue rule stays applied), ``scope
    retired`` (likewise, for a rule sent to review by ``agentmem scope retire``).
    """
    if rule.status != "active":
        return rule.status
    approved = rule.approval is not None and rule.approval.content_sha256 == content_sha256(rule)
    early = reason_before_scope(rule.status, approved)
    if early is not None:
        return early
    if not applies_to(rule.scope, scope):
        return "out of scope"
    if on_review_due == "suspend" and is_overdue(rule, today):
        return "review overdue"
    retired_now = bool(retired) and retired_rule_on(rule, today, retired, review_days) is not None
    if on_review_due == "suspend" and retired_now:
        return "scope retired"
    return None


def reason_before_scope(status: str, approved: bool) -> str | None:
    """The reasons of :func:`not_applied_reason` that come before the scope: the status, then
    ``changed after approval`` (``approved``: an approval whose ``content_sha256`` matches the
    content). For a rule outside the audited scope, this or ``out of scope`` is the whole
    answer: the rule index decides those rules from its fields alone."""
    if status != "active":
        return status
    if not approved:
        return "changed after approval"
    return None


def today() -> date:
    """The clock of ``due``, ``reconfirm`` and approvals: ``$AGENTMEM_TODAY`` (``YYYY-MM-DD``,
    for tests and rehearsals) or the UTC date. Raises :class:`DoctrineError` on a bad value."""
    value = os.environ.get("AGENTMEM_TODAY")
    if not value:
        return datetime.now(UTC).date()
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise DoctrineError(f"AGENTMEM_TODAY is {value!r}; expected YYYY-MM-DD") from None


def now_stamp() -> str:
    """Now as ``YYYY-MM-DDTHH:MM:SSZ`` (the date follows :func:`today`)."""
    now = datetime.now(UTC)
    moment = datetime.combine(today(), time(now.hour, now.minute, now.second), UTC)
    return moment.strftime(STAMP_FORMAT)


def _article(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def lifecycle_problems(rule: Rule) -> list[tuple[str, str]]:
    """``(key, reason)`` pairs where a rule's status, approval and content disagree
    (docs/design/doctrine.md §Lifecycle): an active or suspended rule without approval, an approval on
    another status, an approval of another version or content (a hand edit after approval), a review
    date without approval."""
    problems: list[tuple[str, str]] = []
    approval = rule.approval
    if rule.status in APPROVED_STATUSES and approval is None:
        problems.append(
            ("approval", f"{_article(rule.status)} {rule.status} rule must carry its approval")
        )
    if approval is not None and rule.status not in APPROVED_STATUSES:
        problems.append(
            ("approval", f"{_article(rule.status)} {rule.status} rule carries no approval")
        )
    if approval is not None and approval.version != rule.version:
        problems.append(
            (
                "approval.version",
                f"approves version {approval.version}, the rule is at {rule.version}",
            )
        )
    if approval is not None and approval.content_sha256 != content_sha256(rule):
        problems.append(
            ("approval.content_sha256", "does not match the content: it changed after approval")
        )
    if rule.review_due is not None and approval is None:
        problems.append(("review_due", "set on a rule without approval"))
    if approval is not None and rule.review_due is None:
        problems.append(("review_due", "missing on an approved rule"))
    return problems
