"""The help of each ``check`` finding code, for SARIF's ``rules[].help`` (docs/design/check.md §Check).

The rows are the two code tables of docs/design/check.md §Check, word for word (the codes of a row,
then what they find); ``tests/check/test_report_formats.py`` fails when the tables and these
rows part. A code of no row (``guard:…`` codes share one) gets the section's pointer.
"""

from __future__ import annotations

ROWS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("config-invalid",), "`config-invalid`: `agentmem.yaml` unreadable, unknown key, wrong type"),
    (
        ("roles-missing", "roles-invalid", "roles-no-admin", "roles-signing-key"),
        "`roles-missing`, `roles-invalid`, `roles-no-admin` (warning), `roles-signing-key`: `roles.yaml` missing, malformed, without an admin, or with an unreadable signing key",
    ),
    (
        ("memory-name", "memory-encoding", "memory-structure"),
        "`memory-name`, `memory-encoding`, `memory-structure`: file name not a person id; not UTF-8; structure (§Memory file)",
    ),
    (
        ("memory-budget", "memory-entry-too-long"),
        "`memory-budget`, `memory-entry-too-long`: over the budget (error) or at/above `warn_ratio` (warning); entry over `entry_max_chars`",
    ),
    (
        ("memory-contradiction",),
        "`memory-contradiction` (warning): entries of one file contradict each other (§Memory file): one finding per group of entries linked by contradicting pairs, at its latest entry's line — a pair names the two and what they say, a larger group every member with the count of entries and pairs; entries named by number and line, never quoted",
    ),
    (
        ("memory-unknown-person", "memory-user-role"),
        "`memory-unknown-person` (warning), `memory-user-role`: owner not in `roles.yaml`; owner is a `user`",
    ),
    (
        ("doctrine-name", "doctrine-invalid", "doctrine-id-mismatch", "doctrine-duplicate-id"),
        "`doctrine-name`, `doctrine-invalid`, `doctrine-id-mismatch`, `doctrine-duplicate-id`: bad file name; unreadable or invalid rule; `id` ≠ file name; the same id twice",
    ),
    (
        ("doctrine-layout", "doctrine-field-too-long"),
        "`doctrine-layout` (warning), `doctrine-field-too-long`: not in the canonical layout; a field over its cap",
    ),
    (
        ("doctrine-incomplete",),
        "`doctrine-incomplete`: an active or suspended rule without scope, instruction or limit",
    ),
    (
        (
            "doctrine-approval",
            "doctrine-approval-version",
            "doctrine-hash-mismatch",
            "doctrine-review-date",
        ),
        "`doctrine-approval`, `doctrine-approval-version`, `doctrine-hash-mismatch`, `doctrine-review-date`: status and approval disagree; approval of another version; content changed after approval; review date without approval",
    ),
    (
        ("doctrine-self-approved", "doctrine-approver-role"),
        "`doctrine-self-approved`, `doctrine-approver-role` (warning): approved by its proposer; approver no longer admin",
    ),
    (
        ("doctrine-review-overdue",),
        "`doctrine-review-overdue`: past `review_due`: a warning under `alert`, an error under `suspend`",
    ),
    (
        ("doctrine-conflict",),
        "`doctrine-conflict` (warning): a live rule says the opposite of, or sets another value than, a live rule of an overlapping scope (§Lifecycle, *Conflicts*); a pair: one finding on each rule, naming the other; three or more rules linked by such conflicts: one finding for the group, on its first rule, naming every member with their count",
    ),
    (
        (
            "inbox-invalid",
            "inbox-misplaced",
            "inbox-unknown-person",
            "inbox-unknown-section",
            "inbox-missing-file",
            "inbox-stale-target",
        ),
        "`inbox-invalid`, `inbox-misplaced`, `inbox-unknown-person` (warning), `inbox-unknown-section`, `inbox-missing-file`, `inbox-stale-target` (warning): unreadable proposal; folder or name ≠ person or id; person not in `roles.yaml`; unknown section; `modify`/`remove` of a missing memory file; target no longer found",
    ),
    (
        ("guard:<code>",),
        "`guard:<code>`: a guard finding (§Guard) in a memory entry or a rule field",
    ),
    (
        ("path-symlink", "path-not-a-file", "path-case"),
        "`path-symlink`, `path-not-a-file`, `path-case`: a symlink, or a folder, where agentmem reads a file; a top-level name that is an agentmem name in another letter case",
    ),
    (
        ("checkout-attribute",),
        "`checkout-attribute`: a `.gitattributes` encoding, filter or `ident` on an agentmem file (a line-end conversion is a warning)",
    ),
    (("local-file-tracked",), "`local-file-tracked`: a `.agentmem/` file tracked by git"),
    (
        ("erasures-invalid",),
        "`erasures-invalid`: `erasures.yaml` (§Sync, the erasure record) unreadable",
    ),
    (
        ("interrupted-change",),
        "`interrupted-change` (warning): a write journal is pending in this clone",
    ),
    (
        ("export-stale",),
        "`export-stale` (warning): a block written by `agentmem export` (in a file listed in `.agentmem/exports.jsonl`, or the repository's `CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, `.cursor/rules/*.mdc`) is older than the memory or doctrine it came from",
    ),
    (
        ("history-trailers", "history-actor-mismatch", "history-role-mismatch"),
        "`history-trailers`, `history-actor-mismatch`, `history-role-mismatch` (warning): an agentmem-shaped commit without Action/Actor/Role; Actor ≠ author; Role ≠ the author's role at the parent",
    ),
    (
        ("history-not-admin", "history-not-member"),
        "`history-not-admin`, `history-not-member`: a change that needs an admin (§Lifecycle) or a member, by someone else",
    ),
    (
        ("history-settings-relaxed", "history-relaxed-approval"),
        "`history-settings-relaxed`, `history-relaxed-approval` (warning): a governance setting relaxed without a second admin's approval (§Lifecycle; history then judges with the stricter value, after a merge of it too); an approval that only an approved relaxation allowed",
    ),
    (
        ("history-self-approval", "history-proposer-mismatch"),
        "`history-self-approval`, `history-proposer-mismatch`: activation or reconfirmation by the rule's creator, proposer or last content author; `proposed_by` ≠ the file's creator in history",
    ),
    (
        ("history-incomplete", "history-approval-mismatch", "history-invalid-rule"),
        "`history-incomplete`, `history-approval-mismatch`, `history-invalid-rule`: activation of an incomplete rule; approval that does not match author, version or hash; an unreadable rule committed",
    ),
    (
        ("history-memory-owner", "history-inbox-owner", "history-erase-adds"),
        "`history-memory-owner`, `history-inbox-owner`, `history-erase-adds`: a memory or inbox file changed by someone other than its owner; an erase that adds text",
    ),
    (
        ("history-signature",),
        "`history-signature`: a change that must be signed (§Lifecycle) is unsigned, badly signed, or signed with a key not listed for its author",
    ),
    (
        ("history-decision-unsigned",),
        "`history-decision-unsigned`: under `signing.decisions: required` at the commit's parent, a decision (an accept or a hand edit of memory, a draft from an accepted doctrine proposal, a rule's approve, suspend, resume, deactivate, archive or reconfirm, a memory reconfirmation, a settings approval, a scope retirement, an erase: `governance.is_decision`) is unsigned, badly signed, or signed with a key `roles.yaml` does not list for its author; `check/history/signing.verify_decisions(root, revisions, entry)` checks the signatures of given commits alone (the served view's cached approvals; `entry`: the merge that brought them in, whose `roles.yaml` must list the key for the same person too); the server gate runs the walk itself",
    ),
    (
        ("history-unrelated",),
        "`history-unrelated`: a commit of an unrelated history (its own root) that changes agentmem files: it grants nothing",
    ),
    (
        ("history-link", "history-local-file", "history-path-case"),
        "`history-link`, `history-local-file`, `history-path-case`: a symlink or gitlink at an agentmem path; a committed `.agentmem/` file; agentmem paths that differ only in letter case",
    ),
    (
        ("history-erased-commit", "history-erased-value"),
        '`history-erased-commit`, `history-erased-value`: a commit of a history `agentmem erase` rewrote (listed in `erasures.yaml`), or the merge that brings it back; a commit that is not an ancestor of the erase and holds a value it erased (in a file, a path or its message) — §Sync, "The erasure record"',
    ),
    (
        ("history-erasure-record",),
        "`history-erasure-record`: `erasures.yaml` changed otherwise than by an admin's erase that adds to it (an entry dropped, the file deleted or unreadable)",
    ),
)
_BY_CODE = {code: text for codes, text in ROWS for code in codes}
SEE = "See docs/design/check.md §Check for every finding code and what to do."


def help_markdown(code: str) -> str:
    """The help of ``code`` in Markdown (its row of docs/design/check.md §Check), then :data:`SEE`."""
    row = _BY_CODE.get(code) or (_BY_CODE["guard:<code>"] if code.startswith("guard:") else "")
    return f"{row}\n\n{SEE}" if row else SEE


def help_text(code: str) -> str:
    """:func:`help_markdown` without Markdown's backticks."""
    return help_markdown(code).replace("`", "")
