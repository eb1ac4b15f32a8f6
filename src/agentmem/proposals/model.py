"""Proposals: the only thing a model (or a person mid-session) can produce
(docs/design/memory.md §Proposals).

A proposal is parsed from untrusted data at once: fields that carry trust — the
person it belongs to, its id, its session, when it was made — are set by agentmem, never read
from the model's answer.
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from agentmem.errors import AgentmemError, ProposalError, UsageError
from agentmem.memory.records import entry_text as line_text

ACTIONS = ("add", "modify", "remove")
ROUTES = ("memory", "doctrine")
BASES = ("declared", "inferred")
#: What a model may say of a proposal's scope: the session's (default) or everywhere.
SCOPE_CHOICES = ("session", "everywhere")
#: The word for "no scope" (an entry meant everywhere) where a person chooses a scope at review.
EVERYWHERE = "everywhere"

# The JSON schema sent to the model as structured output (docs/design/harvest.md §Harvest). Every object has
# ``additionalProperties: false``; optional values are nullable rather than omitted, because
# structured outputs limit optional parameters.
PROPOSAL_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["proposals"],
    "properties": {
        "proposals": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "action",
                    "route",
                    "section",
                    "target",
                    "text",
                    "justification",
                    "basis",
                    "scope",
                ],
                "properties": {
                    "action": {"type": "string", "enum": list(ACTIONS)},
                    "route": {"type": "string", "enum": list(ROUTES)},
                    "section": {"type": ["string", "null"]},
                    "target": {"type": ["string", "null"]},
                    "text": {"type": ["string", "null"]},
                    "justification": {"type": "string"},
                    "basis": {"type": "string", "enum": list(BASES)},
                    "scope": {"type": "string", "enum": list(SCOPE_CHOICES)},
                },
            },
        }
    },
}


@dataclass(frozen=True)
class Contradicts:
    """A flag agentmem sets at validation (never the model): the proposal's text contradicts
    the memory entry whose text was ``entry``; ``why`` in words (``another value for the same
    thing (british / american)``). Review shows it beside the entry and offers the proposal as
    a ``modify`` of it (docs/design/memory.md §Proposals)."""

    entry: str
    why: str


@dataclass(frozen=True)
class Proposal:
    """One pending change (docs/design/memory.md §Proposals).

    ``action``: add | modify | remove. ``route``: memory | doctrine. ``section``: a configured
    section name (memory route). ``target``: exact substring of the one entry to modify/remove.
    ``text``: the new entry (add/modify) or the rule's instruction (doctrine route).
    ``created_at``: ISO 8601 UTC. ``source``: provider name (offline, anthropic, replay, remember).
    ``contradicts``: the entries its text contradicts, set by validation
    (:func:`agentmem.proposals.validate.validate`), never read from a model's answer.
    """

    id: str
    person: str
    action: str
    route: str
    section: str | None
    target: str | None
    text: str | None
    justification: str
    basis: str
    scope: str | None
    session: str
    created_at: str
    source: str
    contradicts: tuple[Contradicts, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The inbox and ``--format json`` shape: the field names of docs/design/memory.md §Proposals
        (``contradicts`` a list of ``{entry, why}``)."""
        data = asdict(self)
        data["contradicts"] = [asdict(c) for c in self.contradicts]
        return data

    def targets(self, entry_text: str) -> bool:
        """True when this is a modify whose target lies in ``entry_text`` (compared in NFC): the
        entry it replaces, which contradiction and repeat checks leave out. The target is read
        as :func:`agentmem.memory.file.find_entries` reads it (its text alone)."""
        if self.action != "modify" or not self.target:
            return False
        wanted = unicodedata.normalize("NFC", line_text(self.target))
        return wanted in unicodedata.normalize("NFC", entry_text)

    def with_text(self, text: str) -> Proposal:
        """A copy with a person's edited text (review ``--edit``), in NFC."""
        return replace(self, text=unicodedata.normalize("NFC", text))

    def corrected(
        self,
        *,
        route: str | None = None,
        section: str | None = None,
        target: str | None = None,
        scope: str | None = None,
        scope_flag: bool = False,
    ) -> Proposal:
        """A copy with the reviewer's corrections (review ``--route``/``--section``/``--target``/
        ``--scope``).

        ``route`` is ``memory`` or ``doctrine``; a doctrine proposal has no section or target
        (only an ``add`` can become one). ``scope`` is a scope path, or :data:`EVERYWHERE` for
        none; it passes the one validation of scopes (:func:`agentmem.proposals.ids.check_scope`),
        here and nowhere else. Raises :class:`ProposalError` for a correction that leaves the
        proposal malformed (docs/design/memory.md §Proposals); with ``scope_flag`` (the scope came from
        ``--scope ID=SCOPE``) a refused scope is a :class:`UsageError` naming that flag."""
        new_route = route or self.route
        if new_route not in ROUTES:
            raise ProposalError(f"{self.id}: route {new_route!r}; expected memory or doctrine")
        new_scope = (
            self.scope
            if scope is None
            else _chosen_scope(scope, f"--scope {self.id}", UsageError)
            if scope_flag
            else _chosen_scope(scope, f"{self.id}: scope")
        )
        if new_route == "doctrine":
            if self.action != "add":
                raise ProposalError(f"{self.id}: only an 'add' can become a doctrine proposal")
            return replace(self, route="doctrine", section=None, target=None, scope=new_scope)
        new_section = section or self.section
        if self.action == "add" and not new_section:
            raise ProposalError(
                f"{self.id}: a memory 'add' needs a section",
                hint=f"add --section {self.id}=NAME",
            )
        return replace(
            self,
            route="memory",
            section=new_section,
            target=target or self.target,
            scope=new_scope,
        )

    def as_modify(self, target: str, section: str) -> Proposal:
        """An ``add`` turned into a ``modify`` of the entry ``target`` (its text) in
        ``section``: the reviewer's answer to a contradiction (review ``--modify ID=N``).
        Raises :class:`ProposalError` for another action or route."""
        if self.action != "add" or self.route != "memory":
            raise ProposalError(
                f"{self.id}: only a memory 'add' can become a modify of an entry "
                f"(this is a {self.route} '{self.action}')",
                hint="for a modify of another entry use --target ID=TEXT",
            )
        return replace(self, action="modify", target=target, section=section)

    def corrections(self, original: Proposal) -> list[str]:
        """``field: old -> new`` for each of route, section, scope, target that differs from
        ``original`` (a target is said ``changed``: it may be long; no scope is
        ``everywhere``)."""
        out = []
        for name in ("action", "route", "section"):
            old, new = getattr(original, name), getattr(self, name)
            if old != new:
                out.append(f"{name}: {old or 'none'} -> {new or 'none'}")
        if original.scope != self.scope:
            out.append(f"scope: {original.scope or EVERYWHERE} -> {self.scope or EVERYWHERE}")
        if original.target != self.target and self.target is not None:
            out.append("target: changed")
        return out

    def summary(self) -> str:
        """One human line: ``add to "Writing style": Keep …``."""
        where = f' "{self.section}"' if self.section else ""
        if self.route == "doctrine":
            return f"doctrine rule: {self.text}"
        if self.action == "add":
            return f"add to{where}: {self.text}"
        if self.action == "modify":
            return f"modify in{where} [{self.target}] -> {self.text}"
        return f"remove from{where} [{self.target}]"


def _chosen_scope(value: str, where: str, error: type[AgentmemError] = ProposalError) -> str | None:
    """A scope chosen at review: :data:`EVERYWHERE` is None, anything else passes
    :func:`agentmem.proposals.ids.check_scope`. Raises ``error``."""
    if value.strip().lower() == EVERYWHERE:
        return None
    # lazy: the guard (through agentmem.proposals.ids) loads only when a scope is checked
    from agentmem.proposals.ids import check_scope

    chosen = check_scope(value, where, error)
    if chosen is None:
        raise error(f"{where}: empty scope (give a scope path or {EVERYWHERE})")
    return chosen


_last_stamp: list[datetime] = []


def now_utc() -> datetime:
    """The clock used for ids and timestamps (tests monkeypatch ``agentmem.proposals.model.now_utc``)."""
    return datetime.now(UTC)


def _creation_stamp() -> str:
    """ISO 8601 UTC with microseconds, strictly increasing within a process, so that the inbox
    lists proposals in the order they were made."""
    stamp = now_utc()
    if _last_stamp and stamp <= _last_stamp[0]:
        stamp = _last_stamp[0] + timedelta(microseconds=1)
    _last_stamp[:] = [stamp]
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_proposal_id(when: datetime | None = None) -> str:
    """``p-YYYYMMDD-xxxxxx``: date plus 24 random bits in hex (docs/design/memory.md §Proposals)."""
    when = when or now_utc()
    return f"p-{when:%Y%m%d}-{secrets.token_hex(3)}"


def _str_or_none(raw: dict[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProposalError(f"{where}: field '{key}' must be a string, got {type(value).__name__}")
    value = value.strip()
    return value or None


def _enum(
    raw: dict[str, Any], key: str, allowed: tuple[str, ...], where: str, default: str | None = None
) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise ProposalError(
            f"{where}: field '{key}' is {value!r}; expected one of: {', '.join(allowed)}"
        )
    # Structured outputs may differ in capitalisation: compare case-insensitively.
    return value.strip().lower()


_MODEL_KEYS = {"action", "route", "section", "target", "text", "justification", "basis", "scope"}


def parse_proposal(
    raw: Any,
    *,
    person: str,
    session: str,
    source: str,
    scope: str | None,
    where: str,
    default_basis: str | None = None,
) -> Proposal:
    """Turn one untrusted dict (model answer, replay file) into a :class:`Proposal`.

    Shape checks only (types, enums, required fields per action); the section, target, guard and
    budget checks happen in :func:`agentmem.harvest.run.validate`. ``person``, ``session``, ``id`` and
    ``created_at`` come from the caller, never from ``raw``. A proposal without a ``basis``
    is refused (never defaulted to the stronger ``declared``) unless the caller names one
    (``default_basis``: agentmem's own proposals). ``scope`` is the session's; ``raw`` may
    only widen it to everywhere (``"scope": "everywhere"``, when the person said so).
    Raises :class:`ProposalError`.
    """
    if not isinstance(raw, dict):
        raise ProposalError(f"{where}: a proposal must be an object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - _MODEL_KEYS - {"id", "person", "session", "created_at", "source"})
    if unknown:
        raise ProposalError(f"{where}: unknown field(s) {', '.join(unknown)}")
    action = _enum(raw, "action", ACTIONS, where)
    route = _enum(raw, "route", ROUTES, where, default="memory")
    if raw.get("basis") is None and default_basis is None:
        raise ProposalError(
            f"{where}: field 'basis' is missing; expected declared (the person said it) or "
            "inferred (drawn from outcomes): a proposal without a basis is refused, never defaulted"
        )
    basis = _enum(raw, "basis", BASES, where, default=default_basis)
    wanted_scope = raw.get("scope")
    if wanted_scope is not None and wanted_scope not in SCOPE_CHOICES:
        raise ProposalError(
            f"{where}: field 'scope' is {wanted_scope!r}; expected one of: {', '.join(SCOPE_CHOICES)}"
        )
    if wanted_scope == "everywhere":
        scope = None
    section = _str_or_none(raw, "section", where)
    target = _str_or_none(raw, "target", where)
    text = raw.get("text")
    if text is not None and not isinstance(text, str):
        raise ProposalError(f"{where}: field 'text' must be a string")
    # Stored in NFC (docs/design/memory.md §Proposals): a text typed or sent decomposed is the same text.
    text = unicodedata.normalize("NFC", text.strip(" \t")) if isinstance(text, str) else None
    # A target is an entry's text: quoted with its "- " or its record marker, it is read as
    # the line it was copied from (docs/design/memory.md §Memory file).
    target = unicodedata.normalize("NFC", line_text(target)) if target is not None else None
    justification = unicodedata.normalize("NFC", _str_or_none(raw, "justification", where) or "")
    if action in ("add", "modify") and not text:
        raise ProposalError(f"{where}: '{action}' needs a 'text'")
    if action in ("modify", "remove") and not target:
        raise ProposalError(f"{where}: '{action}' needs a 'target' (a substring of the entry)")
    if route == "memory" and not section and action == "add":
        raise ProposalError(f"{where}: 'add' to memory needs a 'section'")
    if route == "doctrine" and action != "add":
        raise ProposalError(f"{where}: a doctrine proposal can only 'add' a draft rule")
    if not justification:
        raise ProposalError(f"{where}: 'justification' is empty; say why the person wants it")
    # lazy: the guard (through agentmem.proposals.ids) loads only when a proposal is built
    from agentmem.proposals.ids import check_scope, check_session

    check_session(session, f"{where}: session", ProposalError)
    scope = check_scope(scope, f"{where}: scope", ProposalError)
    return Proposal(
        id=new_proposal_id(),
        person=person,
        action=action,
        route=route,
        section=section,
        target=target,
        text=text,
        justification=justification,
        basis=basis,
        scope=scope,
        session=session,
        created_at=_creation_stamp(),
        source=source,
    )


def _stored_contradicts(value: Any, where: str) -> tuple[Contradicts, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(c, dict)
        and set(c) == {"entry", "why"}
        and all(isinstance(v, str) for v in c.values())
        for c in value
    ):
        raise ProposalError(f"{where}: 'contradicts' must be a list of {{entry, why}} texts")
    return tuple(Contradicts(c["entry"], c["why"]) for c in value)


_STORED_KEYS = {
    "id",
    "person",
    "action",
    "route",
    "section",
    "target",
    "text",
    "justification",
    "basis",
    "scope",
    "session",
    "created_at",
    "source",
}


def proposal_from_stored(data: Any, where: str) -> Proposal:
    """Read a proposal back from an inbox file written by agentmem (all keys present;
    ``contradicts`` only when validation flagged one)."""
    if not isinstance(data, dict) or set(data) - {"contradicts"} != _STORED_KEYS:
        expected = ", ".join(sorted(_STORED_KEYS))
        raise ProposalError(f"{where}: not an agentmem proposal (expected the keys {expected})")
    fields = {k: (None if data[k] is None else str(data[k])) for k in _STORED_KEYS}
    return Proposal(**fields, contradicts=_stored_contradicts(data.get("contradicts"), where))  # type: ignore[arg-type]
