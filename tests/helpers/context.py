"""Personal memory and doctrine for the context-block tests: entries accepted through the CLI,
rule files written by hand as a person would, people added to roles.yaml."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.helpers import git, invoke
from typer.testing import CliRunner

MEMORY_ENTRIES = (
    ("Writing style", "Keep a collaborative tone with long-standing suppliers."),
    ("Priorities & scope", "Do not propose revisions on confidentiality clauses."),
    ("Writing style", "Prefer short sentences in the active voice."),
)

# (id, status, scope, instruction, limit, review_due)
RULES = (
    (
        "contracts-plain-language",
        "active",
        "contracts",
        "Flag clauses written in legalese.",
        "Not in annexes copied from a regulator.",
        "2099-01-01",
    ),
    (
        "supply-warranty-12-months",
        "active",
        "contracts/supply",
        "Accept a 12-month warranty on supply contracts.",
        "Not when the supplier has traded with us for less than two years.",
        "2099-01-01",
    ),
    (
        "lease-deposit-three-months",
        "active",
        "contracts/lease",
        "Accept a deposit of three months of rent.",
        "Not for furnished premises.",
        "2099-01-01",
    ),
    (
        "supply-penalty-cap-draft",
        "draft",
        "contracts/supply",
        "Cap late-delivery penalties at 10 percent.",
        "Not for critical components.",
        None,
    ),
    (
        "supply-incoterms-suspended",
        "suspended",
        "contracts/supply",
        "Prefer DAP incoterms for supply contracts.",
        "Not for overseas suppliers.",
        "2099-01-01",
    ),
    (
        "contracts-old-archived",
        "archived",
        "contracts",
        "Require wet-ink signatures.",
        "Not for amendments.",
        None,
    ),
)


def _sha(title: str, scope: str | None, instruction: str, limits: list[str]) -> str:
    blob = json.dumps(
        {"title": title, "scope": scope, "instruction": instruction, "limits": limits},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def rule_text(
    rule_id: str,
    status: str,
    scope: str | None,
    instruction: str,
    limit: str,
    review_due: str | None,
) -> str:
    """A rule file (docs/design/doctrine.md §Rule file), written by hand as a person would."""
    title = f"Title of {rule_id}"
    approved = status in ("active", "suspended")
    approval = (
        "approval:\n  by: bob\n  at: 2026-11-30T08:00:00Z\n  version: 1\n"
        f"  content_sha256: {_sha(title, scope, instruction, [limit])}\n"
        if approved
        else "approval: null\n"
    )
    return (
        f"id: {rule_id}\ntitle: {title}\nstatus: {status}\nscope: {scope or 'null'}\n"
        f"instruction: {instruction}\nlimits:\n  - {limit}\njustification: Settled in audits.\n"
        "version: 1\nproposed_by: alice\nproposed_at: 2026-11-29T10:02:00Z\n"
        f"origin_session: null\ndistinct_from: []\n{approval}review_due: {review_due or 'null'}\n"
    )


def write_rules(
    root: Path, rules: tuple[tuple[str, str, str | None, str, str, str | None], ...] = RULES
) -> None:
    for rule in rules:
        (root / "doctrine" / f"{rule[0]}.yaml").write_text(rule_text(*rule), encoding="utf-8")
    git(root, "add", "doctrine")
    git(root, "commit", "-q", "-m", "doctrine rules")


def write_memory(
    root: Path, runner: CliRunner, entries: tuple[tuple[str, str], ...] = MEMORY_ENTRIES
) -> None:
    for section, text in entries:
        result = invoke(runner, "remember", text, "--section", section)
        assert result.exit_code == 0, result.stderr
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr


def add_person(root: Path, person: str, email: str, role: str) -> None:
    roles = root / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8") + f"{person}:\n  email: {email}\n  role: {role}\n",
        encoding="utf-8",
    )
    git(root, "commit", "-q", "-m", f"add {person}", "--", "roles.yaml")
