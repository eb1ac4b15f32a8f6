"""Team doctrine (docs/design/doctrine.md §Rule file): rule files, their strict reading, their one layout,
the duplicate guard and the lifecycle with its audit commits.

The public names below are the interface other modules (``context``, ``check``, ``harvest``)
build on; ``from agentmem.doctrine import …`` stays the way to reach them. Each name loads its
own submodule on first use (PEP 562): reading one rule never imports the lifecycle, the drafts
or their git plumbing. Heavy libraries (ruamel.yaml, rapidfuzz) load only in the functions
that need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentmem.doctrine.model import (
        APPROVED_STATUSES,
        CONTENT_KEYS,
        FIELD_MAX_CHARS,
        KEYS,
        LIVE_STATUSES,
        STATUSES,
        Approval,
        DoctrineError,
        DuplicateRuleError,
        Rule,
        applies_to,
        content_sha256,
        is_overdue,
        lifecycle_problems,
        missing_for_activation,
        normalise_scope,
        not_applied_reason,
        retired_rule_on,
        rule_relpath,
        scopes_overlap,
        today,
    )
    from agentmem.doctrine.parse import MAX_RULE_BYTES, load_rule, load_rules, parse_rule_text
    from agentmem.doctrine.render import canonical_text, updated_text

    from agentmem.doctrine.lifecycle import (  # noqa: E402  isort: skip
        ApprovalPreview,
        DueRule,
        Transition,
        VersionMovedError,
        approve,
        changes_since_active,
        preview_approval,
        archive,
        deactivate,
        due,
        reconfirm,
        resume,
        suspend,
    )
    from agentmem.doctrine.drafts import (  # noqa: E402  isort: skip
        Changes,
        ConfirmationNeeded,
        Draft,
        DraftPlan,
        assign,
        draft_from_proposal,
        edit,
        plan_draft,
        plan_from_proposal,
        propose,
        restore,
    )
    from agentmem.doctrine.versions import HistoryEntry, rule_history, version_content  # noqa: E402

# public name -> the submodule that defines it
_WHERE = {
    # agentmem.doctrine.model
    "APPROVED_STATUSES": "model",
    "Approval": "model",
    "CONTENT_KEYS": "model",
    "DoctrineError": "model",
    "DuplicateRuleError": "model",
    "FIELD_MAX_CHARS": "model",
    "KEYS": "model",
    "LIVE_STATUSES": "model",
    "Rule": "model",
    "STATUSES": "model",
    "applies_to": "model",
    "content_sha256": "model",
    "is_overdue": "model",
    "lifecycle_problems": "model",
    "missing_for_activation": "model",
    "normalise_scope": "model",
    "not_applied_reason": "model",
    "retired_rule_on": "model",
    "rule_relpath": "model",
    "scopes_overlap": "model",
    "today": "model",
    # agentmem.doctrine.parse
    "MAX_RULE_BYTES": "parse",
    "load_rule": "parse",
    "load_rules": "parse",
    "parse_rule_text": "parse",
    # agentmem.doctrine.render
    "canonical_text": "render",
    "updated_text": "render",
    # agentmem.doctrine.lifecycle
    "ApprovalPreview": "lifecycle",
    "DueRule": "lifecycle",
    "Transition": "lifecycle",
    "VersionMovedError": "lifecycle",
    "approve": "lifecycle",
    "archive": "lifecycle",
    "changes_since_active": "lifecycle",
    "deactivate": "lifecycle",
    "due": "lifecycle",
    "preview_approval": "lifecycle",
    "reconfirm": "lifecycle",
    "resume": "lifecycle",
    "suspend": "lifecycle",
    # agentmem.doctrine.drafts
    "Changes": "drafts",
    "ConfirmationNeeded": "drafts",
    "Draft": "drafts",
    "DraftPlan": "drafts",
    "assign": "drafts",
    "draft_from_proposal": "drafts",
    "edit": "drafts",
    "plan_draft": "drafts",
    "plan_from_proposal": "drafts",
    "propose": "drafts",
    "restore": "drafts",
    # agentmem.doctrine.versions
    "HistoryEntry": "versions",
    "rule_history": "versions",
    "version_content": "versions",
}


def __getattr__(name: str) -> Any:
    """Load the submodule that defines ``name`` on first use, then keep the name here."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "APPROVED_STATUSES",
    "CONTENT_KEYS",
    "FIELD_MAX_CHARS",
    "KEYS",
    "LIVE_STATUSES",
    "MAX_RULE_BYTES",
    "STATUSES",
    "Approval",
    "ApprovalPreview",
    "Changes",
    "ConfirmationNeeded",
    "Draft",
    "DraftPlan",
    "DueRule",
    "HistoryEntry",
    "Transition",
    "VersionMovedError",
    "DoctrineError",
    "DuplicateRuleError",
    "Rule",
    "applies_to",
    "approve",
    "archive",
    "assign",
    "changes_since_active",
    "deactivate",
    "draft_from_proposal",
    "due",
    "edit",
    "plan_draft",
    "plan_from_proposal",
    "preview_approval",
    "propose",
    "reconfirm",
    "restore",
    "resume",
    "rule_history",
    "suspend",
    "version_content",
    "canonical_text",
    "content_sha256",
    "is_overdue",
    "lifecycle_problems",
    "load_rule",
    "load_rules",
    "missing_for_activation",
    "normalise_scope",
    "not_applied_reason",
    "retired_rule_on",
    "parse_rule_text",
    "rule_relpath",
    "scopes_overlap",
    "today",
    "updated_text",
]
