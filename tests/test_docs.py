"""The documentation stands on its own: every ``docs/design.md §Name`` cited in the repository
names a section that exists, and nothing cites a document outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import REPO_ROOT

DESIGN = REPO_ROOT / "docs" / "design.md"
#: Where citations live; test data and the harvest benchmark's sessions are quoted material.
SCANNED = ("src", "tests", "benchmarks", "docs", ".ci")
SKIPPED = (REPO_ROOT / "tests" / "data", REPO_ROOT / "benchmarks" / "harvest_set")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ""}
OUTSIDE = re.compile(
    r"\.\./shared|(?:SPEC|REFERENCE|STYLE) §|\bissue \d|\b(?:H\d{1,2}|N[1-3]|F1)\b"
)


def _texts() -> list[tuple[Path, str]]:
    files = list(REPO_ROOT.glob("*.md"))
    for top in SCANNED:
        files += [p for p in (REPO_ROOT / top).rglob("*") if p.is_file()]
    found = []
    for path in sorted(set(files)):
        if path.suffix not in SUFFIXES or any(path.is_relative_to(s) for s in SKIPPED):
            continue
        if "__pycache__" in path.parts or path == Path(__file__).resolve():
            continue
        found.append((path, path.read_text(encoding="utf-8", errors="replace")))
    return found


def _sections() -> list[str]:
    text = DESIGN.read_text(encoding="utf-8")
    return re.findall(r"^## \d+\. (.+)$", text, flags=re.MULTILINE)


def test_design_has_the_sections_the_code_points_at() -> None:
    sections = _sections()
    assert len(sections) == len(set(sections))
    for name in ("Vocabulary", "Rule file", "Lifecycle", "Trailers", "Check", "Write path"):
        assert name in sections


def test_every_cited_design_section_exists() -> None:
    sections = sorted(_sections(), key=len, reverse=True)
    unknown = []
    for path, text in _texts():
        for match in re.finditer(r"§([A-Z][a-z]+(?: [a-z]+)*)", text):
            cited = match.group(1)
            if not any(cited == s or cited.startswith(s + " ") for s in sections):
                line = text.count("\n", 0, match.start()) + 1
                unknown.append(f"{path.relative_to(REPO_ROOT)}:{line}: §{cited}")
    assert unknown == []


def test_nothing_cites_a_document_outside_the_repository() -> None:
    cited = []
    for path, text in _texts():
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                cited.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()[:80]}")
    assert cited == []
