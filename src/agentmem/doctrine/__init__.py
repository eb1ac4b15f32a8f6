"""Team doctrine (docs/design.md §Rule file): rule files, their strict reading, their one layout,
the duplicate guard and the lifecycle with its audit commits.

The public names below are the interface other modules (``context``, ``check``, ``harvest``)
build on; ``from agentmem.doctrine import …`` stays the way to reach them. Heavy libraries
(ruamel.yaml, rapidfuzz) load only in the functions that need them.
"""

from __future__ import annotations

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

# The lifecycle (imported after the model: it builds on it).
from agentmem.doctrine.lifecycle import (  # noqa: E402  isort: skip
    DueRule,
    Transition,
    approve,
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

__all__ = [
    "APPROVED_STATUSES",
    "CONTENT_KEYS",
    "FIELD_MAX_CHARS",
    "KEYS",
    "LIVE_STATUSES",
    "MAX_RULE_BYTES",
    "STATUSES",
    "Approval",
    "Changes",
    "ConfirmationNeeded",
    "Draft",
    "DraftPlan",
    "DueRule",
    "HistoryEntry",
    "Transition",
    "DoctrineError",
    "DuplicateRuleError",
    "Rule",
    "applies_to",
    "approve",
    "archive",
    "assign",
    "deactivate",
    "draft_from_proposal",
    "due",
    "edit",
    "plan_draft",
    "plan_from_proposal",
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
