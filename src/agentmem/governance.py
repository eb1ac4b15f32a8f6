"""Who may do what (docs/design/governance.md §Roles, §Lifecycle): one table of action → roles
allowed, the owner rule of personal memories and inboxes, and the distinct-approver rule.

The commands (``doctrine`` lifecycle and drafts, review, remember, memory edit, harvest, erase,
context) refuse with these rules *before* they write, and ``check --history`` judges every past
commit with the same rules and ``roles.yaml`` as it was at the commit's parent — so a command
and the history check can never disagree on who was allowed.

It imports only :mod:`agentmem.errors`: the store, the hot path and the check can all use it.
Roles are ordered ``user < member < admin`` (:data:`RANK`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agentmem.errors import GovernanceError

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path

USER = "user"
MEMBER = "member"
ADMIN = "admin"
ROLES = (USER, MEMBER, ADMIN)
"""Every role, lowest first."""
RANK = {role: rank for rank, role in enumerate(ROLES)}
"""``user`` 0, ``member`` 1, ``admin`` 2 (the lower of two roles is what both grant)."""

# -- actions ----------------------------------------------------------------------------------
PROPOSE = "propose"
"""Create a draft rule (``doctrine propose``, a doctrine proposal accepted in review)."""
EDIT = "edit"
"""Change a rule's content (``doctrine edit``; an approved rule drops to draft)."""
ASSIGN = "assign"
"""Set a rule's scope (``doctrine assign``)."""
RESTORE = "restore"
"""Bring back an earlier version as a new draft (``doctrine restore``)."""
WRITE_DRAFT = "write-draft"
"""Create, edit or delete a draft rule file (how history sees the four actions above)."""
DELETE_DRAFT = "delete-draft"
"""Delete a draft rule file someone else created (its creator may delete their own:
:func:`may_delete_draft`)."""
APPROVE = "approve"
"""draft → active (and, in history, any change of an active rule's content)."""
SUSPEND = "suspend"
RESUME = "resume"
DEACTIVATE = "deactivate"
ARCHIVE = "archive"
RECONFIRM = "reconfirm"
"""Review an approved rule: its ``review_due`` (or ``approval``) moves."""
CHANGE_APPROVED = "change-approved"
"""Any other change to an approved rule (in history: deleting it, or a status change)."""
REVIEW_QUEUE = "due"
"""See the rules past their review date (``doctrine due``)."""
SETTINGS = "settings"
"""Change ``roles.yaml``, ``agentmem.yaml`` or a ``.gitattributes``."""
ERASE = "erase"
"""Rewrite history to remove a person's memory or a text (``agentmem erase``)."""
HAVE_MEMORY = "have-memory"
"""Have a personal memory: remember, accept into it, edit it, harvest into it."""
READ_OTHERS = "read-others"
"""Read another person's memory, inbox or chat context."""
RETIRE_SCOPE = "retire-scope"
"""Retire a scope (``agentmem scope retire``): what was confirmed in it goes back to review."""
MAP_SCOPE = "map-scope"
"""Add a project folder to the ``scopes:`` map of ``agentmem.yaml`` (``agentmem scope map``,
``harvest --scope`` after asking): sessions started there get that scope. Changing or removing a
folder already mapped, like any other settings change, is :data:`SETTINGS`."""

ALLOWED: dict[str, tuple[str, ...]] = {
    PROPOSE: (MEMBER, ADMIN),
    EDIT: (MEMBER, ADMIN),
    ASSIGN: (MEMBER, ADMIN),
    RESTORE: (MEMBER, ADMIN),
    WRITE_DRAFT: (MEMBER, ADMIN),
    DELETE_DRAFT: (ADMIN,),
    APPROVE: (ADMIN,),
    SUSPEND: (ADMIN,),
    RESUME: (ADMIN,),
    DEACTIVATE: (ADMIN,),
    ARCHIVE: (ADMIN,),
    RECONFIRM: (ADMIN,),
    CHANGE_APPROVED: (ADMIN,),
    REVIEW_QUEUE: (ADMIN,),
    SETTINGS: (ADMIN,),
    ERASE: (ADMIN,),
    HAVE_MEMORY: (MEMBER, ADMIN),
    READ_OTHERS: (ADMIN,),
    RETIRE_SCOPE: (ADMIN,),
    MAP_SCOPE: (MEMBER, ADMIN),
}
"""The one table: action → roles allowed. A personal memory or inbox is moreover written only
by its owner (:func:`owns`); approvals are moreover bound by :func:`self_approval`."""

STATUS_ACTIONS = {
    "active": APPROVE,
    "suspended": SUSPEND,
    "deactivated": DEACTIVATE,
    "archived": ARCHIVE,
}
"""The action that sets a rule to each status (other transitions: :data:`CHANGE_APPROVED`)."""


if TYPE_CHECKING:  # a type only: a protocol class would import typing at run time
    from typing import Literal, Protocol

    class Actor(Protocol):
        """What the rules need of a person (:class:`agentmem.store.repo.Person` is one)."""

        @property
        def id(self) -> str: ...

        @property
        def role(self) -> str: ...

    SelfApproval = Literal["proposed", "created", "wrote"]


def allowed(action: str) -> tuple[str, ...]:
    """The roles that may do ``action``. Raises KeyError for an unknown action."""
    return ALLOWED[action]


def may(role: str | None, action: str) -> bool:
    """True when ``role`` (None: nobody) may do ``action``."""
    return role is not None and role in ALLOWED[action]


def needed(action: str) -> str:
    """``"admin"`` or ``"member or admin"``: the roles of ``action`` in words."""
    return " or ".join(ALLOWED[action])


def require(actor: Actor, action: str, doing: str) -> None:
    """Refuse unless ``actor`` may do ``action``. Raises :class:`GovernanceError` naming the
    role needed and the actor's (``doing`` says what was attempted)."""
    if not may(actor.role, action):
        roles = needed(action)
        raise GovernanceError(
            f"{roles} required: {doing} needs the {roles} role; "
            f"{actor.id} has the {actor.role} role",
            hint="ask an admin (roles.yaml lists who has which role)",
        )


def require_memory_role(actor: Actor, doing: str = "a personal memory") -> None:
    """Refuse a person whose role has no personal memory (a ``user`` runs audits, nothing more).
    Raises :class:`GovernanceError` naming the role."""
    if not may(actor.role, HAVE_MEMORY):
        raise GovernanceError(
            f"{doing} needs the {needed(HAVE_MEMORY)} role; {actor.id} has the {actor.role} "
            "role, and a user has no personal memory",
            hint="ask an admin to make you a member in roles.yaml",
        )


def may_delete_draft(actor_id: str | None, role: str | None, creator: str | None) -> bool:
    """True when ``actor_id`` (with ``role``) may delete a draft rule that ``creator`` created:
    an admin, or its creator while they may write drafts — a member never deletes another
    member's draft (editing it, which keeps its history going, stays open to members)."""
    if may(role, DELETE_DRAFT):
        return True
    return actor_id is not None and actor_id == creator and may(role, WRITE_DRAFT)


def owns(actor_id: str | None, person: str) -> bool:
    """True when ``actor_id`` may write ``person``'s memory or inbox: only its owner (an admin
    may read it, and only erase it)."""
    return actor_id is not None and actor_id == person


def require_owner(actor: Actor, person: str, what: str) -> None:
    """Refuse unless ``actor`` is ``person`` (:func:`owns`). Raises :class:`GovernanceError`."""
    if not owns(actor.id, person):
        raise GovernanceError(
            f"{what} {person}'s memory is for {person} only; you are {actor.id} ({actor.role})",
            hint="each person reviews and edits their own memory",
        )


def may_read(actor: Actor, person: str) -> bool:
    """True when ``actor`` may read ``person``'s memory, inbox or chat context: their own, or
    anyone's as an admin."""
    return actor.id == person or may(actor.role, READ_OTHERS)


def require_read(actor: Actor, person: str, subject: str, hint: str) -> None:
    """Refuse unless ``actor`` may read ``person``'s (:func:`may_read`); the message names what
    is refused (``subject``, e.g. "bob's memory is") and who may read it. Raises
    :class:`GovernanceError`."""
    if not may_read(actor, person):
        raise GovernanceError(
            f"{subject} for {person} and the admins; you are {actor.id} ({actor.role})", hint=hint
        )


# -- governance settings that can be relaxed ----------------------------------------------------
def _turned_off(old: object, new: object) -> bool:
    return old is True and new is False


def _to_alert(old: object, new: object) -> bool:
    return old == "suspend" and new == "alert"


def _longer(old: object, new: object) -> bool:
    """More days (None: never) is looser."""
    if old is None or not isinstance(old, int):
        return False
    return new is None or (isinstance(new, int) and new > old)


def _unrequired(old: object, new: object) -> bool:
    return old == "required" and new != "required"


def _higher(old: object, new: object) -> bool:
    return isinstance(old, int) and isinstance(new, int) and new > old


def _fewer(old: object, new: object) -> bool:
    """A collection that lost a member (roles given doctrine, retired scopes) or a retired
    scope whose day moved later."""
    before = (
        dict(old) if isinstance(old, tuple) and all(isinstance(i, tuple) for i in old) else None
    )
    if before is not None and isinstance(new, tuple):
        after = dict(new)
        return any(k not in after or str(after[k]) > str(v) for k, v in before.items())
    return isinstance(old, tuple) and isinstance(new, tuple) and not set(old) <= set(new)


RELAXABLE: dict[str, Callable[[object, object], bool]] = {
    "doctrine.distinct_approver": _turned_off,
    "doctrine.require_signed": _turned_off,
    "doctrine.on_review_due": _to_alert,
    "doctrine.review_days": _longer,
    "doctrine.duplicate_threshold": _higher,
    "context.doctrine_for_roles": _fewer,
    "memory.on_review_due": _to_alert,
    "memory.retention.declared.review_days": _longer,
    "memory.retention.declared.expire_days": _longer,
    "memory.retention.inferred.review_days": _longer,
    "memory.retention.inferred.expire_days": _longer,
    "retired_scopes": _fewer,
    "signing.decisions": _unrequired,
}
"""The governance settings of ``agentmem.yaml`` and when a change relaxes one (``old, new`` →
True): the distinct-approver rule or required signatures (``doctrine.require_signed``,
``signing.decisions: required``) turned off, ``suspend`` turned to
``alert``, a longer review or expiry period (``null``: never expires), a higher duplicate
threshold (fewer rules blocked), fewer roles given doctrine, a retired scope dropped or its
day moved later. ``check --history`` calls such a change a finding unless a second admin
approved it (:func:`relaxations`; docs/design/check.md §Check)."""


def relaxations(old: Mapping[str, object], new: Mapping[str, object]) -> list[str]:
    """The :data:`RELAXABLE` settings that ``new`` relaxes compared with ``old`` (both mapping a
    dotted setting name to its value, defaults filled in), in table order."""
    return [name for name, looser in RELAXABLE.items() if looser(old.get(name), new.get(name))]


APPROVE_SETTINGS = "approve-settings"
"""The action trailer's value on a second admin's approval of a settings relaxation."""


def may_approve_settings(approver: Actor | None, author: str | None) -> bool:
    """True when ``approver`` may approve a settings change ``author`` made: an admin (the
    :data:`SETTINGS` action) who is not its author — a relaxation needs two admins."""
    return approver is not None and may(approver.role, SETTINGS) and approver.id != author


DECISION_ACTIONS = frozenset(
    {APPROVE, SUSPEND, RESUME, DEACTIVATE, ARCHIVE, RECONFIRM, ERASE, APPROVE_SETTINGS}
) | {RETIRE_SCOPE}
"""The action trailer's values of a person's decision on a rule, a setting, a scope or
erased data (with :func:`is_decision`'s accepts: what ``signing.decisions: required`` signs)."""


def is_decision(
    action: str | None, decision: str | None, proposal: bool, route: str | None
) -> bool:
    """True when a commit with this ``Agentmem-Action``, ``Agentmem-Decision``, (whether it
    names) ``Agentmem-Proposal`` and ``Agentmem-Route`` is a person's decision that ``signing.decisions: required``
    signs: a rule transition, a settings approval, a scope retirement, an erase, an accepted or
    hand-edited memory change, a draft made from an accepted doctrine proposal. Rejections,
    proposals and drafts proposed by hand promote nothing: not decisions here."""
    if action in DECISION_ACTIONS:
        return True
    if decision in ("accepted", "edited"):
        return True
    return action == PROPOSE and proposal and route == "doctrine"


def self_approval(
    approver: str | None,
    *,
    proposed_by: str | None,
    created_by: str | None = None,
    wrote: str | None | Callable[[], str | None] = None,
) -> SelfApproval | None:
    """The distinct-approver rule (``doctrine.distinct_approver``): why ``approver`` may not
    approve or reconfirm a rule, or None when they may. Nobody approves a rule they proposed
    (``proposed_by``), whose file they created (``created_by``, known to history) or whose
    current content they wrote (``wrote``; a function is called only when the first two do not
    already decide, as history finds the writer lazily); checked in that order."""
    if approver is None:
        return None
    if approver == proposed_by:
        return "proposed"
    if approver == created_by:
        return "created"
    if approver == (wrote() if callable(wrote) else wrote):
        return "wrote"
    return None


# -- what only a person decides -----------------------------------------------------------------
PERSON_ONLY: dict[tuple[str, ...], tuple[str, ...] | None] = {
    ("review",): ("reject", "dry_run"),
    ("doctrine", "approve"): None,
    ("doctrine", "suspend"): None,
    ("doctrine", "resume"): None,
    ("doctrine", "deactivate"): None,
    ("doctrine", "archive"): None,
    ("doctrine", "reconfirm"): None,
    ("memory", "edit"): None,
    ("memory", "reconfirm"): None,
    ("scope", "retire"): None,
    ("scope", "map"): None,
    ("settings", "approve"): None,
    ("erase",): None,
    ("serve",): None,
}
"""The agentmem commands that decide for the person holding the git identity, which an agent
must not run for them (``agentmem hook pre-tool-use`` denies them,
docs/design/governance.md §Trust boundary): command words → ``None`` when the command always decides, else the parameters
(typer's names) that decide nothing on their own — the command decides as soon as it is given
any other option, so an option added later is the person's until it is listed here.
``review --reject`` and ``review --dry-run`` stay open: dropping a proposal promotes nothing.
``serve`` is the person's: its pages decide as the git identity for whoever holds the link.
The gate reads this through :mod:`agentmem.delivery.gatetable`, generated from the typer
command tree (every spelling of every option: ``-a``, ``-e``, ``--accept=ID``)."""
