"""What changed between two versions of a rule, in words a reviewer reads (docs/design/doctrine.md
§Lifecycle): ``doctrine approve`` shows it before activating, ``doctrine edit`` after changing,
``doctrine diff`` on demand.

Pure: the versions are read by the caller (:func:`agentmem.doctrine.versions.last_active`,
:func:`~agentmem.doctrine.versions.version_content`). Lines hold text from rule files: the CLI
prints them through ``cli.output`` (terminal controls shown as escapes).
"""

from __future__ import annotations

import difflib

from agentmem.doctrine.model import Rule

#: The fields shown, in the order of the rule file; ``justification`` is not content (it does not
#: make a new version) but a reviewer reads it too.
_FIELDS = ("title", "scope", "instruction", "limits", "justification")


def _value(rule: Rule, key: str) -> str:
    value = getattr(rule, key)
    if key == "scope":
        return value or "(to be assigned)"
    return str(value)


def whole(rule: Rule) -> list[str]:
    """Every field of ``rule``'s content, one line each (limits numbered)."""
    lines = [f"  title: {rule.title}", f"  scope: {_value(rule, 'scope')}"]
    lines.append(f"  instruction: {rule.instruction or '(none)'}")
    lines.append("  limits:" + ("" if rule.limits else " (none)"))
    lines += [f"    {n}. {limit}" for n, limit in enumerate(rule.limits, start=1)]
    if rule.justification:
        lines.append(f"  justification: {rule.justification}")
    return lines


def diff_lines(before: Rule, after: Rule) -> list[str]:
    """The fields that differ, each as ``  field:`` then ``  - old`` / ``  + new`` lines (limits
    line by line: kept ones are not shown). Empty when title, scope, instruction, limits and
    justification are all equal."""
    lines: list[str] = []
    for key in _FIELDS:
        if getattr(before, key) == getattr(after, key):
            continue
        lines.append(f"  {key}:")
        if key != "limits":
            lines += [f"  - {_value(before, key)}", f"  + {_value(after, key)}"]
            continue
        matcher = difflib.SequenceMatcher(a=before.limits, b=after.limits, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            lines += [f"  - {limit}" for limit in before.limits[i1:i2]]
            lines += [f"  + {limit}" for limit in after.limits[j1:j2]]
    return lines


def limits_change(before: tuple[str, ...], after: tuple[str, ...]) -> str | None:
    """One sentence on what happened to the limits (None when they are equal): how many were
    added and removed, and how many the rule has now."""
    if before == after:
        return None
    added = [limit for limit in after if limit not in before]
    removed = [limit for limit in before if limit not in after]
    parts = []
    if added:
        parts.append(f"{len(added)} added")
    if removed:
        parts.append(f"{len(removed)} removed")
    if not parts:
        parts.append("reordered")
    return f"limits: {', '.join(parts)} ({len(after)} now, {len(before)} before)"
