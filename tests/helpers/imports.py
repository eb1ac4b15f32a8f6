"""Scoring ``agentmem import`` on real instruction files against what a person would keep
(``tests/data/imports/expected.yaml``, written by hand): used by ``tests/harvest/test_imports.py`` (the
floor) and ``benchmarks/import_quality.py`` (the report)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from tests.helpers import DATA

IMPORTS = DATA / "imports"
#: The floor of precision and recall over every file together.
FLOOR = 0.9


def expectations() -> dict[str, dict[str, Any]]:
    """File (relative to ``tests/data/imports``) → its expectations."""
    data = yaml.safe_load((IMPORTS / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def norm(text: str) -> str:
    """Lower case, Markdown marks and repeated spaces dropped: how words are matched."""
    text = re.sub(r"[`*]", "", text).casefold()
    return " ".join(text.split())


@dataclass
class Score:
    """One file's figures."""

    name: str
    proposals: int = 0
    right: int = 0
    wrong: list[str] = field(default_factory=list)
    keep: int = 0
    found: int = 0
    missed: list[str] = field(default_factory=list)
    skip: int = 0
    skipped: int = 0
    skipped_as_said: int = 0
    leaked: list[str] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)


def score_file(name: str, expected: dict[str, Any]) -> Score:
    from agentmem.harvest.instructions import counts, items

    path = IMPORTS / name
    found = items(path.read_text(encoding="utf-8"), name=path.name)
    kept = [i for i in found if i.skip is None]
    keep = [norm(k) for k in expected.get("keep") or []]
    optional = [norm(o) for o in expected.get("optional") or []]
    result = Score(name, proposals=len(kept), keep=len(keep))
    result.reasons = counts(found)
    hit: set[str] = set()
    for item in kept:
        text = norm(item.text)
        mine = {k for k in keep if k in text}
        hit |= mine
        if mine:
            result.right += 1
        elif not any(o in text for o in optional):
            result.wrong.append(f"{item.line}: {item.text[:100]}")
    result.found = len(hit)
    result.missed = [k for k in keep if k not in hit]
    if expected.get("skip_all"):
        result.skip = result.skipped = result.skipped_as_said = len(found)
        for item in found:
            if item.skip is None:
                result.skipped -= 1
                result.skipped_as_said -= 1
                result.leaked.append(f"{item.line}: {item.text[:80]}")
            elif item.skip != expected["skip_all"]:
                result.skipped_as_said -= 1
        return result
    for line, reason in (expected.get("skip") or {}).items():
        result.skip += 1
        covering = [i for i in found if i.line == int(line)] or [
            i for i in found if i.line <= int(line) <= max(i.line, i.last)
        ]
        if any(i.skip is None for i in covering) or not covering:
            shown = covering[0].text[:80] if covering else "(no item)"
            result.leaked.append(f"{line} ({reason}): {shown}")
            continue
        result.skipped += 1
        if reason == "any" or any(i.skip == reason for i in covering):
            result.skipped_as_said += 1
    return result


def totals(scores: list[Score]) -> tuple[float, float, float, float]:
    """(precision, recall, skipped, skipped with the expected reason) over every file."""
    right = sum(s.right for s in scores)
    judged = right + sum(len(s.wrong) for s in scores)
    found, keep = sum(s.found for s in scores), sum(s.keep for s in scores)
    skipped, skip = sum(s.skipped for s in scores), sum(s.skip for s in scores)
    said = sum(s.skipped_as_said for s in scores)
    return right / judged, found / keep, skipped / skip, said / skip
