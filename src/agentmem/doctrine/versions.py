"""A rule's past, read from git (``doctrine history`` and ``restore``; docs/design/doctrine.md §Lifecycle,
§Trailers).

Every lifecycle change is one commit carrying ``Agentmem-Rule``, ``Agentmem-Version``,
``Agentmem-Status-From`` and ``Agentmem-Status-To``; a commit made by hand has none, so the
version and status are then read from the file as it was in that commit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentmem import trailers as tr
from agentmem.doctrine.model import DoctrineError, Rule, rule_relpath
from agentmem.doctrine.parse import parse_rule_text
from agentmem.store import gitio

CONTENT_ACTIONS = ("propose", "edit", "assign", "restore")


@dataclass(frozen=True)
class HistoryEntry:
    """One commit of a rule file, oldest first in :func:`rule_history`.

    ``actor`` is ``person <email>`` from the trailers (the git author for a hand commit);
    ``date`` ISO 8601; ``version``/``status_*`` None when unknown (a file that no longer parses);
    ``reason`` and ``session``: what the person recorded with the decision, when anything.
    """

    commit: str
    date: str
    actor: str
    action: str
    version: int | None
    status_from: str | None
    status_to: str | None
    subject: str
    reason: str | None = None
    session: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _at(root: Path, sha: str, path: str) -> Rule | None:
    text = gitio.show_file(root, sha, path)
    if text is None:
        return None
    try:
        return parse_rule_text(text, f"{path}@{sha[:10]}")
    except DoctrineError:
        return None


def _version(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def rule_history(root: Path, rule_id: str) -> list[HistoryEntry]:
    """Every commit that touched ``doctrine/<rule_id>.yaml``, oldest first."""
    path = rule_relpath(rule_id)
    entries: list[HistoryEntry] = []
    previous: Rule | None = None
    for info in reversed(gitio.log(root, [path])):
        t = info.trailers
        state = _at(root, info.sha, path)
        version = _version(t.get(tr.VERSION)) or (state.version if state else None)
        status_to = t.get(tr.STATUS_TO) or (state.status if state else "deleted")
        status_from = t.get(tr.STATUS_FROM) or (previous.status if previous else "new")
        entries.append(
            HistoryEntry(
                info.sha,
                info.date,
                t.get(tr.ACTOR) or f"{info.author_name} <{info.author_email}>",
                t.get(tr.ACTION) or "commit by hand",
                version,
                status_from,
                status_to,
                info.subject,
                t.get(tr.REASON),
                t.get(tr.SESSION),
            )
        )
        previous = state
    return entries


def version_content(root: Path, rule_id: str, version: int) -> Rule:
    """The rule as its newest commit at ``version`` held it (the content of that version).

    Raises :class:`DoctrineError` naming the versions git knows when ``version`` is not among them.
    """
    path = rule_relpath(rule_id)
    seen: set[int] = set()
    for info in gitio.log(root, [path]):
        state = _at(root, info.sha, path)
        if state is None:
            continue
        if state.version == version:
            return state
        seen.add(state.version)
    known = ", ".join(str(v) for v in sorted(seen)) or "none"
    raise DoctrineError(
        f"{path}: no version {version} in git history (versions: {known})",
        hint=f"agentmem doctrine history {rule_id} lists them",
    )


def last_active(root: Path, rule_id: str) -> Rule | None:
    """The rule as it was the last time it was active in git history (the newest commit whose
    file reads as ``status: active``): what an approval is compared with. None when the rule was
    never active."""
    path = rule_relpath(rule_id)
    for info in gitio.log(root, [path]):
        state = _at(root, info.sha, path)
        if state is not None and state.status == "active":
            return state
    return None


def version_author(root: Path, rule: Rule) -> str | None:
    """The person id of whoever wrote the content of ``rule.version`` (from ``Agentmem-Actor``),
    or None when that commit carries no trailers."""
    for info in gitio.log(root, [rule.path]):
        t = info.trailers
        if t.get(tr.VERSION) == str(rule.version) and t.get(tr.ACTION) in CONTENT_ACTIONS:
            return tr.actor_id(t.get(tr.ACTOR, ""))
    return None


def session_scope(root: Path, session: str, pending: list[Any]) -> str | None:
    """The scope a session was harvested in: from its pending proposals (``pending``: inbox
    proposals with ``session`` and ``scope``), else from the ``Agentmem-Scope`` trailer of a
    commit of that session. None when neither knows it."""
    for proposal in pending:
        if proposal.session == session and proposal.scope:
            return str(proposal.scope)
    for info in gitio.log(root):
        if info.trailers.get(tr.SESSION) == session and info.trailers.get(tr.SCOPE):
            return info.trailers[tr.SCOPE]
    return None
