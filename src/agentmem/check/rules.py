"""Working-tree checks of doctrine rules (docs/design/check.md §Check, §Rule file).

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

from agentmem import governance, guard
from agentmem.check.findings import ERROR, WARNING, Finding, from_error
from agentmem.check.tree import TreeState, file_scan_sees_line_ends, listed_files
from agentmem.doctrine.conflicts import Profile, conflicts_among, profile
from agentmem.doctrine.fastread import fast_canonical_text, fast_parse
from agentmem.doctrine.model import (
    APPROVED_STATUSES,
    FIELD_MAX_CHARS,
    DoctrineError,
    Rule,
    content_sha256,
    is_overdue,
    lifecycle_problems,
    missing_for_activation,
    retired_rule_on,
)
from agentmem.doctrine.parse import parse_rule_text
from agentmem.doctrine.render import canonical_text
from agentmem.errors import AgentmemError
from agentmem.store import regular

DOCTRINE_DIR = "doctrine"
MAX_RULE_BYTES = 64 * 1024
_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
GUARD_BATCH = 128  # rules per guard call (a call costs less than its rules scanned apart)
_LIFECYCLE_CODES = {
    "approval": "doctrine-approval",
    "approval.version": "doctrine-approval-version",
    "approval.content_sha256": "doctrine-hash-mismatch",
    "review_due": "doctrine-review-date",
}


def rule_paths(root: Path) -> tuple[list[Path], list[Finding]]:
    """Every ``doctrine/*.yaml`` regular file (hidden ones too: as ``glob("*.yaml")``, a file
    named ``.yaml`` too), sorted by name, and an error finding for each such name that is a
    symlink, a folder or anything but a regular file (or one when ``doctrine/`` is a link)."""
    return listed_files(root, DOCTRINE_DIR, ".yaml")


def check_rule_files(
    paths: list[Path], state: TreeState, today: date, clean: set[str] | None = None
) -> tuple[list[Finding], list[tuple[str, str]], list[tuple[str, Profile]]]:
    """Check rule files (``clean``: the guard's field lines already found clean); returns the findings, ``(rule id, path)`` of each readable rule
    (duplicate ids are found across all files by :func:`duplicate_ids`) and ``(path,
    profile)`` of each live one (conflicts are found across all files by
    :func:`conflict_findings`)."""
    findings: list[Finding] = []
    ids: list[tuple[str, str]] = []
    profiles: list[tuple[str, Profile]] = []
    to_guard: list[tuple[str, Rule, KeyLines]] = []
    for path in paths:
        rel = f"{DOCTRINE_DIR}/{path.name}"
        text, problem = _read(path, rel)
        if problem:
            findings.append(problem)
            continue
        rule = fast_parse(text)  # canonical by construction when it reads the file
        canonical = rule is not None
        try:
            rule = rule or parse_rule_text(text, rel)
        except DoctrineError as exc:
            findings.append(from_error(exc, rel, "doctrine-invalid"))
            continue
        lines = KeyLines(text)
        findings += check_rule(rel, text, rule, lines, state, today, canonical=canonical)
        to_guard.append((rel, rule, lines))
        ids.append((rule.id, rel))
        live = profile(rule, text)
        if live is not None:
            profiles.append((rel, live))
    clean = set() if clean is None else clean
    for start in range(0, len(to_guard), GUARD_BATCH):
        findings += guard_batch(to_guard[start : start + GUARD_BATCH], clean)
    return findings, ids, profiles


def conflict_findings(profiles: list[tuple[str, Profile]]) -> list[Finding]:
    """A ``doctrine-conflict`` warning on each live rule that says the opposite of, or sets
    another value than, a live rule of an overlapping scope (:mod:`agentmem.doctrine.conflicts`:
    a heuristic, so never an error). Rules whose id two files share are left out."""
    where: dict[str, str] = {}
    unique: list[Profile] = []
    seen: set[str] = set()
    for rel, live in sorted(profiles, key=lambda item: item[0]):
        if live.rule_id in seen:
            continue
        seen.add(live.rule_id)
        where[live.rule_id] = rel
        unique.append(live)
    found = conflicts_among(unique)
    parent = {rule_id: rule_id for rule_id in found}
    for _, other in found.values():
        parent.setdefault(other.rule_id, other.rule_id)

    def root(rule_id: str) -> str:
        while parent[rule_id] != rule_id:
            parent[rule_id] = parent[parent[rule_id]]
            rule_id = parent[rule_id]
        return rule_id

    for rule_id, (_, other) in found.items():
        parent[root(rule_id)] = root(other.rule_id)
    groups: dict[str, list[str]] = {}
    for rule_id in sorted(parent):
        groups.setdefault(root(rule_id), []).append(rule_id)
    findings = []
    for members in sorted(groups.values()):
        if len(members) > 2:  # one finding for the group, on its first rule
            first = next(m for m in members if m in found)
            mine, other = found[first]
            what = "say the opposite of" if other.kind == "opposite" else "set another value than"
            message = (
                f"{len(members)} rules in overlapping scopes conflict with one another: "
                f"{', '.join(repr(m) for m in members)}; e.g. '{first}' ({mine.status}) and "
                f"'{other.rule_id}' ({other.status}, {where[other.rule_id]}) {what} each "
                "other: keep the ones that hold (edit, deactivate or archive the others)"
            )
            findings.append(Finding(where[first], mine.line, WARNING, "doctrine-conflict", message))
            continue
        for rule_id in members:
            if rule_id not in found:
                continue
            mine, other = found[rule_id]
            what = "says the opposite of" if other.kind == "opposite" else "sets another value than"
            message = (
                f"rule '{rule_id}' ({mine.status}) {what} rule '{other.rule_id}' "
                f"({other.status}, {where[other.rule_id]}) in an overlapping scope: keep the one "
                "that holds (edit, deactivate or archive the other)"
            )
            findings.append(
                Finding(where[rule_id], mine.line, WARNING, "doctrine-conflict", message)
            )
    return findings


def duplicate_ids(ids: list[tuple[str, str]]) -> list[Finding]:
    """One finding per file whose rule id an earlier file (by path) already uses."""
    findings = []
    seen: dict[str, str] = {}
    for rule_id, rel in sorted(ids, key=lambda item: item[1]):
        if rule_id in seen:
            message = f"rule id '{rule_id}' is also used by {seen[rule_id]}"
            findings.append(Finding(rel, 1, ERROR, "doctrine-duplicate-id", message))
        seen.setdefault(rule_id, rel)
    return findings


def _read(path: Path, rel: str) -> tuple[str, Finding | None]:
    stem = path.name[: -len(".yaml")]
    if not _SLUG.match(stem):
        message = "the file name is not a rule id (lower-case letters, digits and hyphens)"
        return "", Finding(rel, 1, ERROR, "doctrine-name", message)
    try:
        read = regular.read_listed(path, rel, MAX_RULE_BYTES)  # listed as a regular file
    except AgentmemError as exc:  # replaced by a link since it was listed
        return "", from_error(exc, rel, "path-symlink")
    if read is None:
        return "", Finding(rel, 1, ERROR, "doctrine-invalid", "removed while it was checked")
    data = read.data
    if len(data) > MAX_RULE_BYTES:
        message = f"file is over {MAX_RULE_BYTES:,} bytes; a rule is a few hundred"
        return "", Finding(rel, 1, ERROR, "doctrine-invalid", message)
    try:
        return data.decode("utf-8"), None  # bytes as they are: no newline translation
    except UnicodeDecodeError:
        return "", Finding(rel, 1, ERROR, "doctrine-invalid", "not UTF-8 text")


def check_rule(
    rel: str,
    text: str,
    rule: Rule,
    lines: KeyLines,
    state: TreeState,
    today: date,
    *,
    canonical: bool = False,
) -> list[Finding]:
    """One parsed rule, all but the guard (see :func:`guard_batch`); ``lines`` from
    :func:`key_lines`."""
    findings: list[Finding] = []
    stem = rel.rsplit("/", 1)[-1][: -len(".yaml")]
    if rule.id != stem:
        message = f"id is '{rule.id}' but the file is {stem}.yaml: they must match"
        findings.append(Finding(rel, lines.get("id", 1), ERROR, "doctrine-id-mismatch", message))
    if not canonical and not is_canonical(text, rule):
        message = (
            "not in the canonical layout (key order, two-space indent, one value a "
            "line): agentmem doctrine commands write it canonically"
        )
        findings.append(Finding(rel, 1, WARNING, "doctrine-layout", message))
    findings += _lifecycle(rel, rule, lines)
    findings += _governance(rel, rule, lines, state, today)
    for name, value in _fields(rule):
        if len(value) > FIELD_MAX_CHARS:
            message = f"{name} is {len(value)} characters; a doctrine field holds at most {FIELD_MAX_CHARS}"
            findings.append(
                Finding(rel, _line(lines, name), ERROR, "doctrine-field-too-long", message)
            )
    return findings


def _lifecycle(rel: str, rule: Rule, lines: KeyLines) -> list[Finding]:
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
        findings.append(
            Finding(rel, lines.get(key, lines.get("approval", 1)), ERROR, code, message)
        )
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


def _governance(
    rel: str, rule: Rule, lines: KeyLines, state: TreeState, today: date
) -> list[Finding]:
    findings = []
    approval = rule.approval
    if (
        approval is not None
        and state.config.doctrine.distinct_approver
        and governance.self_approval(approval.by, proposed_by=rule.proposed_by) == "proposed"
    ):
        message = f"rule '{rule.id}' was approved by its own proposer ({approval.by})"
        findings.append(
            Finding(rel, _line(lines, "approval.by"), ERROR, "doctrine-self-approved", message)
        )
    person = state.people.get(approval.by) if approval is not None else None
    if (
        approval is not None
        and state.roles_ok
        and (person is None or not governance.may(person.role, governance.APPROVE))
    ):
        now = "not in roles.yaml" if person is None else f"{person.role} now"
        message = f"approved by '{approval.by}', who is {now} (admin when approving is checked by --history)"
        findings.append(
            Finding(rel, _line(lines, "approval.by"), WARNING, "doctrine-approver-role", message)
        )
    config = state.config
    retired, days = config.retired_scopes, config.doctrine.review_days
    if is_overdue(rule, today, retired, days):
        gone = retired_rule_on(rule, today, retired, days) if retired else None
        if state.config.doctrine.on_review_due == "alert":
            severity, how = (
                WARNING,
                "still applied under on_review_due: alert; reconfirm, suspend or deactivate it",
            )
        else:
            severity, how = (
                ERROR,
                "no longer applied under on_review_due: suspend; reconfirm or deactivate it",
            )
        past = (
            f"in a scope retired on {gone}"
            if gone and (rule.review_due or "") >= today.isoformat()
            else f"past its review date {rule.review_due}"
        )
        message = f"rule '{rule.id}' is {past} ({how})"
        findings.append(
            Finding(rel, lines.get("review_due"), severity, "doctrine-review-overdue", message)
        )
    return findings


# -- the guard on the text fields -------------------------------------------------------------

_BREAKS = re.compile(r"[\n\r\x85\u2028\u2029]")


def _fields(rule: Rule) -> list[tuple[str, str]]:
    """``(key, text)`` of every free-text field of a rule (``limits[n]`` for the n-th limit)."""
    out = [("title", rule.title)]
    if rule.instruction:
        out.append(("instruction", rule.instruction))
    out += [(f"limits[{n}]", limit) for n, limit in enumerate(rule.limits, start=1)]
    if rule.justification:
        out.append(("justification", rule.justification))
    return out


def _line(lines: KeyLines, key: str) -> int:
    """The line of ``key``, else of its parent (``limits`` for ``limits[2]``,
    ``approval`` for ``approval.by``), else 1."""
    return lines.get(key, lines.get(re.split(r"[.\[]", key)[0], 1))


def _field_lines(rule: Rule) -> list[str] | None:
    """The text fields as ``- field`` lines, or None when a field holds a line break (then only
    the field-by-field scan says the same as ``kind="rule"``)."""
    values = [value for _, value in _fields(rule)]
    if any(_BREAKS.search(value) for value in values):
        return None
    return [f"- {value}\n" for value in values]


def guard_batch(
    items: list[tuple[str, Rule, KeyLines]], clean: set[str] | None = None
) -> list[Finding]:
    """Guard findings (docs/design/guard.md §Guard) of the text fields of several rules.

    Scanning ``- field`` lines with ``kind="file"`` runs the same checks as ``kind="rule"`` on
    each field (leading structure is checked per ``- `` line; no pattern crosses a line), in
    one call for the batch; a field's findings are its text's alone, so each distinct line is
    read once, and a line of a batch found clean (kept in ``clean``, shared by the batches of
    one check) is not read again. Only a batch with a finding is rescanned rule by rule, then
    field by field, so the findings reported are exactly the per-field ones."""
    batch = file_scan_sees_line_ends()
    lines = [_field_lines(rule) if batch else None for _, rule, _ in items]
    known = clean if clean is not None else set()
    if batch and all(found is not None for found in lines):
        unread = list(
            dict.fromkeys(ln for found in lines if found for ln in found if ln not in known)
        )
        if not unread or not guard.scan("".join(unread), kind="file"):
            known.update(unread)
            return []
    known = clean if clean is not None else set()
    findings: list[Finding] = []
    for (rel, rule, keys), found in zip(items, lines, strict=True):
        if found is not None and (
            known.issuperset(found) or not guard.scan("".join(found), kind="file")
        ):
            continue
        for name, value in _fields(rule):
            for f in guard.scan(value, kind="rule"):
                message = f"{name}: {f.message}"
                findings.append(
                    Finding(rel, _line(keys, name), f.severity, f"guard:{f.code}", message)
                )
    return findings


# -- where keys are -----------------------------------------------------------------------------

_TOP = re.compile(r"^([a-z_]+)\s*:")
_NESTED = re.compile(r"^[ \t]+([a-z_0-9]+)\s*:")
_ITEM = re.compile(r"^[ \t]+- ")


class KeyLines:
    """1-based line of each top-level key, of ``approval.<key>`` and of ``limits[n]`` in a rule
    file (the canonical layout; other layouts fall back to line 1), computed on first use —
    only findings need them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, int] | None = None

    def get(self, key: str, default: int = 1) -> int:
        if self._found is None:
            self._found = key_lines(self.text)
        return self._found.get(key, default)


def key_lines(text: str) -> dict[str, int]:
    """See :class:`KeyLines`."""
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


def is_canonical(text: str, rule: Rule) -> bool:
    """True when ``text`` is ``canonical_text(rule)``, full-line comments aside (people may
    comment a rule; the round-trip editor keeps those comments)."""
    if "#" in text:
        text = "".join(
            ln for ln in text.splitlines(keepends=True) if not ln.lstrip().startswith("#")
        )
    fast = fast_canonical_text(rule)
    if fast is not None and fast == text:
        return True
    return canonical_text(rule) == text
