"""The documentation stands on its own and stays readable: every ``docs/design/<page>.md §Name``
cited in the repository names a section of that page, nothing cites a document outside the
repository, and each page keeps to the size a newcomer reads in one sitting."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import REPO_ROOT

DESIGN = REPO_ROOT / "docs" / "design"
DECISIONS = REPO_ROOT / "docs" / "decisions"
#: Where citations live; test data and the harvest benchmark's sessions are quoted material.
SCANNED = ("src", "tests", "benchmarks", "docs", ".ci")
SKIPPED = (REPO_ROOT / "tests" / "data", REPO_ROOT / "benchmarks" / "harvest_set")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ""}
OUTSIDE = re.compile(
    r"\.\./shared|(?:SPEC|REFERENCE|STYLE) §|\bissue \d|\b(?:H\d{1,2}|N[1-3]|F1)\b"
)
SECTION = re.compile(r"^## \d+\. (.+)$", flags=re.MULTILINE)
CITED_NAME = r"([A-Z][a-z]+(?: [a-z]+)*)"
#: Sizes a newcomer reads in an hour (bytes).
LIMITS = {"README.md": 15_000, "AGENTS.md": 12_000}
PAGE_LIMIT = 15_000


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


def _pages() -> dict[str, list[str]]:
    """Each design page (file name) and the numbered sections it holds."""
    return {
        page.name: SECTION.findall(page.read_text(encoding="utf-8"))
        for page in sorted(DESIGN.glob("*.md"))
        if page.name != "README.md"
    }


def _known(cited: str, sections: list[str]) -> bool:
    return any(cited == s or cited.startswith(s + " ") for s in sections)


def test_design_has_the_sections_the_code_points_at() -> None:
    sections = [s for secs in _pages().values() for s in secs]
    assert len(sections) == len(set(sections))
    for name in ("Vocabulary", "Rule file", "Lifecycle", "Trailers", "Check", "Write path"):
        assert name in sections
    index = (DESIGN / "README.md").read_text(encoding="utf-8")
    assert all(f"]({page})" in index for page in _pages())


def test_every_cited_design_section_exists_on_the_page_cited() -> None:
    pages = _pages()
    every = sorted((s for secs in pages.values() for s in secs), key=len, reverse=True)
    unknown = []
    for path, text in _texts():
        for match in re.finditer(r"(?:docs/design/([a-z-]+\.md)\s*)?§" + CITED_NAME, text):
            page, cited = match.group(1), match.group(2)
            sections = pages.get(page, []) if page else every
            if not _known(cited, sections):
                line = text.count("\n", 0, match.start()) + 1
                unknown.append(f"{path.relative_to(REPO_ROOT)}:{line}: {match.group(0)}")
    assert unknown == []


def test_nothing_cites_the_single_file_documents_that_were_split() -> None:
    cited = [
        f"{path.relative_to(REPO_ROOT)}: {m.group(0)}"
        for path, text in _texts()
        for m in re.finditer(r"docs/(?:design|decisions)\.md", text)
        if path.parent != DECISIONS  # a decision quotes the name it had when it was taken
    ]
    assert cited == []


def test_nothing_cites_a_document_outside_the_repository() -> None:
    cited = []
    for path, text in _texts():
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                cited.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()[:80]}")
    assert cited == []


def test_each_decision_is_one_dated_numbered_file_the_index_lists() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in DECISIONS.glob("*.md") if p.name != "README.md")
    assert files and all(re.fullmatch(r"\d{4}-[a-z0-9-]+\.md", name) for name in files)
    numbers = [int(name[:4]) for name in files]
    assert numbers == list(range(1, len(files) + 1))
    assert all(f"]({name})" in index for name in files)
    for name in files:
        text = (DECISIONS / name).read_text(encoding="utf-8")
        assert re.search(r"^20\d\d-\d\d-\d\d", text, flags=re.MULTILINE), name


def test_design_pages_are_short_enough_to_read_in_one_sitting() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").encode()) for p in DESIGN.glob("*.md")}
    assert {n: s for n, s in sizes.items() if s > PAGE_LIMIT} == {}


def test_the_front_pages_are_read_in_minutes() -> None:
    """The README is the front page (what it is, the two commands, the main job, links) and
    AGENTS.md the short map; the reference lives in docs/guide/, docs/design/ and docs/map.md."""
    sizes = {name: len((REPO_ROOT / name).read_bytes()) for name in LIMITS}
    assert {n: s for n, s in sizes.items() if s > LIMITS[n]} == {}


def _leaf_commands(command: object, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    found: dict[tuple[str, ...], object] = {}
    for name, sub in getattr(command, "commands", {}).items():
        if getattr(sub, "commands", None):
            found.update(_leaf_commands(sub, (*prefix, name)))
        else:
            found[(*prefix, name)] = sub
    return found


def test_the_guide_holds_each_command_s_synopsis_with_real_options() -> None:
    """The synopses are written once, in the user guide (docs/design/overview.md §Commands
    points there): every command of the typer tree starts an inline ``agentmem …`` span of a
    docs/guide/ page, and every option such a span names is an option of that command, so a
    renamed or removed option cannot stay documented."""
    import typer.main

    from agentmem.cli.tree import app

    root = typer.main.get_command(app)
    tree = _leaf_commands(root)
    shown: set[tuple[str, ...]] = set()
    unknown = []
    for page in sorted((REPO_ROOT / "docs" / "guide").glob("*.md")):
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for span in re.findall(r"`(agentmem [^`\n]*)`", text):
            synopsis = span.replace("\\|", "|")
            words = synopsis.split()[1:]
            command = next(
                (tuple(words[:k]) for k in range(len(words), 0, -1) if tuple(words[:k]) in tree),
                None,
            )
            if command is None:
                continue  # a message quoted ("agentmem hook: …"), a root option
            shown.add(command)
            params = getattr(tree[command], "params", [])
            options = {"--repo", "--help"} | {
                o for p in params for o in (*p.opts, *getattr(p, "secondary_opts", ()))
            }
            named = set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", synopsis))
            unknown += [f"{page.name}: {span}: {o}" for o in sorted(named - options)]
    assert sorted(" ".join(c) for c in set(tree) - shown) == []
    assert unknown == []
