"""Working-tree checks of doctrine rules (issue 5 item 1, SPEC §5, §8).

Per ``doctrine/*.yaml``: the strict schema (``doctrine.parse_rule_text``), the file name, the
canonical layout, duplicate ids, the status/approval/content agreement (a hand edit of an active
rule breaks ``approval.content_sha256``), completeness of active and suspended rules, the
approver, the review date, and the guard on every text field.

Speed (``benchmarks/bench_check.py``): the layout is compared with a fast renderer of the
canonical form for the common case of plain values, and ``doctrine.canonical_text`` (ruamel,
milliseconds a rule) is called only when that renderer declines or disagrees; the guard scans
one joined text per rule and rescans field by field only when it finds something.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import yaml

from agentmem import guard
from agentmem.checks.findings import ERROR, WARNING, Finding, from_error
from agentmem.checks.tree import TreeState
from agentmem.doctrine import (
    DoctrineError,
    Rule,
    canonical_text,
    content_sha256,
    is_overdue,
    missing_for_activation,
    parse_rule_text,
)
from agentmem.doctrine.model import APPROVED_STATUSES, FIELD_MAX_CHARS, lifecycle_problems

DOCTRINE_DIR = "doctrine"
MAX_RULE_BYTES = 64 * 1024
_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
_LIFECYCLE_CODES = {
    "approval": "doctrine-approval",
    "approval.version": "doctrine-approval-version",
    "approval.content_sha256": "doctrine-hash-mismatch",
    "review_due": "doctrine-review-date",
}


def check_rules(root: Path, state: TreeState, today: date) -> tuple[list[Finding], int]:
    """Every ``doctrine/*.yaml``; returns the findings and the number of files read."""
    folder = root / DOCTRINE_DIR
    if not folder.is_dir():
        return [], 0
    findings: list[Finding] = []
    seen: dict[str, str] = {}
    paths = sorted(p for p in folder.glob("*.yaml") if p.is_file())
    for path in paths:
        rel = f"{DOCTRINE_DIR}/{path.name}"
        text, problem = _read(path, rel)
        if problem:
            findings.append(problem)
            continue
        try:
            rule = parse_rule_text(text, rel)
        except DoctrineError as exc:
            findings.append(from_error(exc, rel, "doctrine-invalid"))
            continue
        findings += check_rule(rel, text, rule, state, today)
        if rule.id in seen:
            message = f"rule id '{rule.id}' is also used by {seen[rule.id]}"
            findings.append(Finding(rel, 1, ERROR, "doctrine-duplicate-id", message))
        seen.setdefault(rule.id, rel)
    return findings, len(paths)


def _read(path: Path, rel: str) -> tuple[str, Finding | None]:
    stem = path.name[: -len(".yaml")]
    if not _SLUG.match(stem):
        message = "the file name is not a rule id (lower-case letters, digits and hyphens)"
        return "", Finding(rel, 1, ERROR, "doctrine-name", message)
    if path.stat().st_size > MAX_RULE_BYTES:
        message = f"file is over {MAX_RULE_BYTES:,} bytes; a rule is a few hundred"
        return "", Finding(rel, 1, ERROR, "doctrine-invalid", message)
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read(), None
    except UnicodeDecodeError:
        return "", Finding(rel, 1, ERROR, "doctrine-invalid", "not UTF-8 text")


def check_rule(rel: str, text: str, rule: Rule, state: TreeState, today: date) -> list[Finding]:
    """One parsed rule (see the module docstring)."""
    lines = key_lines(text)
    findings: list[Finding] = []
    stem = rel.rsplit("/", 1)[-1][: -len(".yaml")]
    if rule.id != stem:
        message = f"id is '{rule.id}' but the file is {stem}.yaml: they must match"
        findings.append(Finding(rel, lines.get("id", 1), ERROR, "doctrine-id-mismatch", message))
    if not is_canonical(text, rule):
        message = (
            "not in the canonical layout (SPEC §5 key order, two-space indent, one value a "
            "line): agentmem doctrine commands write it canonically"
        )
        findings.append(Finding(rel, 1, WARNING, "doctrine-layout", message))
    findings += _lifecycle(rel, rule, lines)
    findings += _governance(rel, rule, lines, state, today)
    findings += rule_guard_findings(rel, rule, lines)
    return findings


def _lifecycle(rel: str, rule: Rule, lines: dict[str, int]) -> list[Finding]:
    findings = []
    for key, reason in lifecycle_problems(rule):
        code = _LIFECYCLE_CODES.get(key, "doctrine-approval")
        message = f"rule '{rule.id}': {key}: {reason}"
        if code == "doctrine-hash-mismatch" and rule.approval is not None:
            message = (
                f"rule '{rule.id}' ({rule.status}) was changed after approval: "
                f"approval.content_sha256 is {rule.approval.content_sha256[:12]}…, the content "
                f"hashes to {content_sha256(rule)[:12]}… (a hand edit): restore the approved "
                f"content, or edit it with agentmem doctrine edit and have an admin approve it"
            )
        findings.append(Finding(rel, lines.get(key, lines.get("approval", 1)), ERROR, code, message))
    if rule.status in APPROVED_STATUSES:
        missing = missing_for_activation(rule)
        if missing:
            message = (
                f"rule '{rule.id}' is {rule.status} but has no {', no '.join(missing)}: "
                "an active or suspended rule needs a scope, an instruction and at least one limit"
            )
            line = lines.get("limits" if missing[0] == "limit" else missing[0], 1)
            findings.append(Finding(rel, line, ERROR, "doctrine-incomplete", message))
    return findings


def _governance(rel: str, rule: Rule, lines: dict[str, int], state: TreeState, today: date) -> list[Finding]:
    findings = []
    approval = rule.approval
    at = lines.get("approval.by", lines.get("approval", 1))
    if approval is not None and state.config.doctrine.distinct_approver:
        if approval.by == rule.proposed_by:
            message = f"rule '{rule.id}' was approved by its own proposer ({approval.by})"
            findings.append(Finding(rel, at, ERROR, "doctrine-self-approved", message))
    if approval is not None and state.roles_ok:
        person = state.people.get(approval.by)
        if person is None or person.role != "admin":
            now = "not in roles.yaml" if person is None else f"{person.role} now"
            message = f"approved by '{approval.by}', who is {now} (admin when approving is checked by --history)"
            findings.append(Finding(rel, at, WARNING, "doctrine-approver-role", message))
    if is_overdue(rule, today):
        policy = state.config.doctrine.on_review_due
        if policy == "alert":
            message = f"rule '{rule.id}' is past its review date {rule.review_due} (still applied under on_review_due: alert): reconfirm, suspend or deactivate it"
            severity = WARNING
        else:
            message = f"rule '{rule.id}' is past its review date {rule.review_due} and no longer applied (on_review_due: suspend): reconfirm or deactivate it"
            severity = ERROR
        findings.append(Finding(rel, lines.get("review_due", 1), severity, "doctrine-review-overdue", message))
    return findings


# -- the guard on the text fields -------------------------------------------------------------

_BREAKS = re.compile(r"[\n\r\x85\u2028\u2029]")


def _fields(rule: Rule, lines: dict[str, int]) -> list[tuple[str, str, int]]:
    """``(name, text, line)`` of every free-text field of a rule."""
    out = [("title", rule.title, lines.get("title", 1))]
    if rule.instruction:
        out.append(("instruction", rule.instruction, lines.get("instruction", 1)))
    for number, limit in enumerate(rule.limits, start=1):
        out.append((f"limits[{number}]", limit, lines.get(f"limits[{number}]", lines.get("limits", 1))))
    if rule.justification:
        out.append(("justification", rule.justification, lines.get("justification", 1)))
    return out


def rule_guard_findings(rel: str, rule: Rule, lines: dict[str, int]) -> list[Finding]:
    """Guard findings of each text field (``kind="rule"``, SPEC §8) and fields over
    ``FIELD_MAX_CHARS``. One joined scan first (``- field`` lines, ``kind="file"``: the same
    checks, one call); fields are rescanned one by one only when it finds something."""
    fields = _fields(rule, lines)
    findings = []
    for name, value, line in fields:
        if len(value) > FIELD_MAX_CHARS:
            message = f"{name} is {len(value)} characters; a doctrine field holds at most {FIELD_MAX_CHARS}"
            findings.append(Finding(rel, line, ERROR, "doctrine-field-too-long", message))
    if not any(_BREAKS.search(value) for _, value, _ in fields):
        joined = "".join(f"- {value}\n" for _, value, _ in fields)
        if not guard.scan(joined, kind="file"):
            return findings
    for name, value, line in fields:
        for f in guard.scan(value, kind="rule"):
            message = f"{name}: {f.message}"
            findings.append(Finding(rel, line, f.severity, f"guard:{f.code}", message))
    return findings


# -- where keys are -----------------------------------------------------------------------------

_TOP = re.compile(r"^([a-z_]+)\s*:")
_NESTED = re.compile(r"^[ \t]+([a-z_0-9]+)\s*:")
_ITEM = re.compile(r"^[ \t]+- ")


def key_lines(text: str) -> dict[str, int]:
    """1-based line of each top-level key, of ``approval.<key>`` and of ``limits[n]`` (for the
    canonical layout; other layouts fall back to line 1)."""
    found: dict[str, int] = {}
    parent = ""
    items = 0
    for number, line in enumerate(text.split("\n"), start=1):
        top = _TOP.match(line)
        if top:
            parent, items = top.group(1), 0
            found.setdefault(parent, number)
            continue
        nested = _NESTED.match(line)
        if nested and parent:
            found.setdefault(f"{parent}.{nested.group(1)}", number)
        elif _ITEM.match(line) and parent:
            items += 1
            found.setdefault(f"{parent}[{items}]", number)
    return found


# -- canonical layout ---------------------------------------------------------------------------

_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"
_PLAIN_UNSAFE_START = set("-?:,[]{}#&*!|>'\"%@`. ")


def _plain(value: str) -> str | None:
    """``value`` when the canonical renderer certainly writes it as a plain scalar; None when
    the fast path declines (then ``canonical_text`` decides)."""
    if not value or value[0] in _PLAIN_UNSAFE_START or value[-1] in " :":
        return None
    if " " not in value and value[0] in "0123456789+":
        return None  # a lone token that YAML 1.1 or 1.2 may read as a number or a date
    if ": " in value or " #" in value:
        return None
    for ch in value:
        if not ("\x20" <= ch <= "\x7e" or ("\xa0" <= ch <= "\ud7ff" and ch.isprintable())):
            return None
    if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _STR:
        return None
    return value


def _fast_canonical(rule: Rule) -> str | None:
    parts: list[str] = []

    def scalar(key: str, value: str | None) -> bool:
        if value is None:
            parts.append(f"{key}: null\n")
            return True
        plain = _plain(value)
        if plain is None:
            return False
        parts.append(f"{key}: {plain}\n")
        return True

    def listing(key: str, values: tuple[str, ...]) -> bool:
        if not values:
            parts.append(f"{key}: []\n")
            return True
        parts.append(f"{key}:\n")
        for item in values:
            plain = _plain(item)
            if plain is None:
                return False
            parts.append(f"  - {plain}\n")
        return True

    ok = (
        scalar("id", rule.id)
        and scalar("title", rule.title)
        and scalar("status", rule.status)
        and scalar("scope", rule.scope)
        and scalar("instruction", rule.instruction)
        and listing("limits", rule.limits)
        and scalar("justification", rule.justification)
    )
    if not ok:
        return None
    parts.append(f"version: {rule.version}\n")
    if not scalar("proposed_by", rule.proposed_by):
        return None
    parts.append(f"proposed_at: {rule.proposed_at}\n")
    if not (scalar("origin_session", rule.origin_session) and listing("distinct_from", rule.distinct_from)):
        return None
    approval = rule.approval
    if approval is None:
        parts.append("approval: null\n")
    else:
        if _plain(approval.by) is None or not set(approval.content_sha256) & set("abcdf"):
            return None  # a hash of digits (and e) could read as a number: let ruamel decide
        parts.append(
            f"approval:\n  by: {approval.by}\n  at: {approval.at}\n  version: {approval.version}\n"
            f"  content_sha256: {approval.content_sha256}\n"
        )
    parts.append(f"review_due: {rule.review_due if rule.review_due else 'null'}\n")
    return "".join(parts)


def is_canonical(text: str, rule: Rule) -> bool:
    """True when ``text`` is ``canonical_text(rule)``, full-line comments aside (people may
    comment a rule; the round-trip editor keeps those comments)."""
    if "#" in text:
        text = "".join(ln for ln in text.splitlines(keepends=True) if not ln.lstrip().startswith("#"))
    fast = _fast_canonical(rule)
    if fast is not None and fast == text:
        return True
    return canonical_text(rule) == text
