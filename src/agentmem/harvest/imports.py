"""``agentmem import``: what people already wrote for their agents, as pending proposals.

Sources (chosen by name, then by content):

- Claude Code auto-memory folders: the ``MEMORY.md`` index and its topic files with front
  matter (``name``, ``description``, ``type``); a topic file gives its ``description`` (else its
  first paragraph), an index line gives its text only when its topic file is not imported too;
- instruction files: ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``, ``.claude/rules/*.md``,
  ``.cursorrules``, ``.cursor/rules/*.mdc``, ``.clinerules`` (a file or a folder) and Cline
  ``memory-bank/*.md``: every list item and every paragraph is one candidate (headings, code
  blocks, tables, comments, front matter and ``@file`` import lines are not);
- the Claude.ai ``memories.json`` export: each memory text, split like Markdown.

Each candidate becomes an ``add`` proposal, routed as the offline harvest routes a request
(doctrine for team wording, else memory, section by keywords), basis ``declared``, its
justification naming the file and line. It goes through :func:`agentmem.proposals.validate.validate`
(shape, guard, budget preview, duplicates against the memory, the inbox and the proposals kept
before it) and the kept ones of one file are committed to the inbox in ONE commit: a file that
fails (binary, unreadable, too large, half-written JSON) is skipped with its reason and commits
nothing; the files before it stay committed. Nothing is applied without review.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agentmem.errors import AgentmemError, UsageError
from agentmem.governance import require_memory_role
from agentmem.harvest.providers.offline import route_for, section_for
from agentmem.harvest.queue import committed_session_ids
from agentmem.proposals.inbox import list_pending, write_to_inbox
from agentmem.proposals.model import Proposal, parse_proposal
from agentmem.proposals.validate import validate
from agentmem.store.repo import Person, Repository
from agentmem.store.writer import read_current

#: A file larger than this (bytes) is skipped: no instruction file people maintain is that big.
MAX_FILE_BYTES = 512 * 1024
#: A file with more lines than this is skipped (a log or a dump, not instructions).
MAX_FILE_LINES = 3000
#: A file yielding more candidates than this is skipped whole (import the part you want).
MAX_CANDIDATES = 200
#: Candidates shorter than this (characters) are not proposals ("Rules", "Notes").
MIN_CHARS = 8
#: How deep a folder is searched for memory and instruction files.
MAX_DEPTH = 6

_INSTRUCTION_NAMES = {
    "claude.md",
    "claude.local.md",
    "agents.md",
    "agent.md",
    "gemini.md",
    ".cursorrules",
    ".clinerules",
    ".windsurfrules",
}
_RULE_FOLDERS = {"rules", ".clinerules", "memory-bank", "memory", "memories"}
_SKIP_FOLDERS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "dist", "build"}
_TEXT_SUFFIXES = (".md", ".mdc", ".markdown", ".txt")


@dataclass(frozen=True)
class Candidate:
    """One thing a file says: ``text`` (one line), ``line`` (1-based in the file)."""

    text: str
    line: int


@dataclass(frozen=True)
class Source:
    """A file to import: ``kind`` is ``auto-memory``, ``auto-memory-index``, ``instructions``
    or ``claude-ai-memories``; ``shown`` is the path as messages and justifications name it."""

    path: Path
    kind: str
    shown: str


@dataclass(frozen=True)
class Rejected:
    """A candidate that was not kept: its line and the validation's reason (never its text
    when the guard refused it)."""

    line: int
    reason: str


@dataclass
class FileResult:
    """What one file gave: ``status`` is ``imported`` (proposals committed), ``nothing``
    (nothing new), ``dry-run``, ``skipped`` (already imported) or ``failed`` (with ``reason``)."""

    source: Source
    status: str
    reason: str = ""
    proposals: list[Proposal] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    commit: str | None = None
    session: str = ""


@dataclass
class ImportRun:
    """All files of one ``agentmem import``; ``ignored`` counts files found in folders that are
    not memory or instruction files."""

    files: list[FileResult] = field(default_factory=list)
    ignored: int = 0

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]


# --- Finding the files -------------------------------------------------------------------------


def _shown(path: Path) -> str:
    """The path relative to the current folder when below it, else its last two parts (no home
    folder, no user name in a justification or a commit)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return "/".join(path.parts[-2:])


def _kind_of(path: Path, explicit: bool) -> str | None:
    """The kind of a file by its name and folder; None when it is none agentmem imports."""
    name = path.name.lower()
    parent = path.parent.name.lower()
    if name == "memories.json":
        return "claude-ai-memories"
    if name == "memory.md":
        return "auto-memory-index"
    if name in _INSTRUCTION_NAMES:
        return "instructions"
    if not name.endswith(_TEXT_SUFFIXES):
        return "instructions" if explicit else None
    if (path.parent / "MEMORY.md").is_file():
        return "auto-memory"
    if parent in _RULE_FOLDERS or explicit:
        return "instructions"
    return None


def find_sources(paths: Iterable[Path]) -> tuple[list[Source], int, list[FileResult]]:
    """The files to import under ``paths`` (files as given, folders searched), sorted within a
    folder; the number of other files seen; and a failed result for each path that does not
    exist. A folder holding nothing importable raises :class:`UsageError`."""
    sources: list[Source] = []
    missing: list[FileResult] = []
    ignored = 0
    seen: set[Path] = set()
    for given in paths:
        if not given.exists() and not given.is_symlink():
            missing.append(FileResult(Source(given, "?", str(given)), "failed", "no such file"))
            continue
        if not given.is_dir():
            kind = _kind_of(given, explicit=True) or "instructions"
            if given.resolve() not in seen:
                seen.add(given.resolve())
                sources.append(Source(given, kind, _shown(given)))
            continue
        found = 0
        for path in _walk(given):
            found_kind = _kind_of(path, explicit=False)
            if found_kind is None:
                ignored += 1
                continue
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            sources.append(Source(path, found_kind, _shown(path)))
            found += 1
        if not found:
            raise UsageError(
                f"{given}: no memory or instruction file found in this folder",
                hint="agentmem import reads CLAUDE.md, AGENTS.md, .claude/rules/*.md, "
                ".cursorrules, .cursor/rules/*.mdc, .clinerules, memory-bank/*.md, Claude Code "
                "memory folders (MEMORY.md) and memories.json",
            )
    return sources, ignored, missing


def _walk(folder: Path) -> list[Path]:
    """Files under ``folder`` (no link followed, at most :data:`MAX_DEPTH` folders down,
    dependency and VCS folders left out), in a stable order."""
    found: list[Path] = []
    base = len(folder.parts)
    for top, dirs, files in os.walk(folder, followlinks=False):
        depth = len(Path(top).parts) - base
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_FOLDERS and depth < MAX_DEPTH)
        found.extend(Path(top) / name for name in sorted(files))
    return found


# --- Reading one file --------------------------------------------------------------------------


class SkipFile(AgentmemError):
    """A file that cannot be imported: the message is the reason (no file content in it)."""


def read_text(path: Path) -> str:
    """The file's text; raises :class:`SkipFile` for a link, an unreadable, binary, too large
    or too long file."""
    if path.is_symlink():
        raise SkipFile("a symbolic link (import the file it points to)")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SkipFile(
                f"{size:,} bytes, more than the {MAX_FILE_BYTES:,} an import reads "
                "(split it, or import the part you want)"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise SkipFile(f"cannot read it: {exc.strerror or exc}") from None
    if b"\0" in data:
        raise SkipFile("a binary file, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SkipFile(f"not UTF-8 text (line {line}): a binary file?") from None
    lines = text.count("\n") + 1
    if lines > MAX_FILE_LINES:
        raise SkipFile(
            f"{lines:,} lines, more than the {MAX_FILE_LINES:,} an import reads "
            "(split it, or import the part you want)"
        )
    return text


def candidates(source: Source, text: str, imported: set[Path] | None = None) -> list[Candidate]:
    """The candidates of one file's text, by its kind. Raises :class:`SkipFile` for a
    malformed ``memories.json`` or a file with more than :data:`MAX_CANDIDATES`."""
    if source.kind == "claude-ai-memories":
        found = _memories_json(text)
    elif source.kind == "auto-memory":
        found = _topic_file(text)
    elif source.kind == "auto-memory-index":
        found = _memory_index(source.path, text, imported or set())
    else:
        found = markdown_candidates(text)
    if len(found) > MAX_CANDIDATES:
        raise SkipFile(
            f"{len(found)} candidate entries, more than the {MAX_CANDIDATES} one file may "
            "bring (split it, or import the part you want)"
        )
    return found


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_RULE_LINE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_IMPORT_LINE = re.compile(r"^\s*@[\w./~-]+\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _front_matter(text: str) -> tuple[dict[str, tuple[str, int]], int]:
    """Simple ``key: value`` front matter (values with their 1-based line) and the line the
    body starts on (1 when there is none). No YAML is loaded: values stay strings."""
    match = _FRONT.match(text)
    if not match:
        return {}, 1
    fields: dict[str, tuple[str, int]] = {}
    for number, raw in enumerate(match.group(1).split("\n"), start=2):
        key, sep, value = raw.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip().lower()] = (value.strip().strip("\"'"), number)
    return fields, match.group(0).count("\n") + 1


_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


def _one_line(text: str) -> str:
    """One line: white space runs made one space, ``**bold**`` marks dropped (a memory entry is
    plain text), a stray ``**`` left by a bold phrase cut at a line end too."""
    text = _EMPHASIS.sub(r"\2", " ".join(text.split()))
    return text.replace("**", "").strip()


def markdown_candidates(text: str, first_line: int = 1) -> list[Candidate]:
    """List items and paragraphs of Markdown text, each joined to one line.

    Left out: front matter, headings, fenced and indented code, tables, HTML comments,
    horizontal rules, ``@file`` import lines, lines that only introduce a list (ending with
    ``:``) and anything shorter than :data:`MIN_CHARS`. ``first_line`` numbers the first line.
    """
    fields, body_line = _front_matter(text) if first_line == 1 else ({}, 1)
    del fields
    lines = text.replace("\r\n", "\n").split("\n")
    found: list[Candidate] = []
    current: list[str] = []
    start = 0
    fenced = False
    in_comment = False

    def flush() -> None:
        nonlocal current
        joined = _one_line(" ".join(current))
        if len(joined) >= MIN_CHARS and not joined.endswith(":"):
            found.append(Candidate(joined, start))
        current = []

    for index, raw in enumerate(lines, start=1):
        number = index + first_line - 1
        if index < body_line:
            continue
        if _FENCE.match(raw):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if in_comment or raw.lstrip().startswith("<!--"):
            in_comment = "-->" not in raw
            flush()
            continue
        stripped = raw.strip()
        bullet = _BULLET.match(raw)
        if (
            not stripped
            or _HEADING.match(raw)
            or _RULE_LINE.match(raw)
            or stripped.startswith("|")
            or _IMPORT_LINE.match(raw)
        ):
            flush()
            continue
        if bullet:
            flush()
            start, current = number, [bullet.group(2)]
            continue
        if raw.startswith(("    ", "\t")) and not current:
            continue  # indented code
        if not current:
            start = number
        current.append(stripped.lstrip("> "))
    flush()
    return found


def _topic_file(text: str) -> list[Candidate]:
    """A Claude Code auto-memory topic file: its ``description``, else its first paragraph."""
    fields, body_line = _front_matter(text)
    if "description" in fields and len(fields["description"][0]) >= MIN_CHARS:
        value, line = fields["description"]
        return [Candidate(_one_line(value), line)]
    body = text.replace("\r\n", "\n").split("\n")[body_line - 1 :]
    found = markdown_candidates("\n".join(body), first_line=body_line)
    return found[:1]


_INDEX_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]]*\]\(([^)]+)\)\s*(?:[—–:-]+\s*)?(.*)$")


def _memory_index(path: Path, text: str, imported: set[Path]) -> list[Candidate]:
    """The ``MEMORY.md`` index: a line whose topic file is imported too says nothing new; the
    others give their description (their text after the link)."""
    found: list[Candidate] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        match = _INDEX_LINE.match(raw)
        if not match:
            continue
        target = (path.parent / match.group(1)).resolve()
        description = _one_line(match.group(2))
        if target in imported or len(description) < MIN_CHARS:
            continue
        found.append(Candidate(description, number))
    return found


def _memories_json(text: str) -> list[Candidate]:
    """Claude.ai ``memories.json``: ``[{conversations_memory, project_memories?}]``; each memory
    text is read like Markdown, numbered from the line its JSON string starts on."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SkipFile(
            f"not valid JSON at line {exc.lineno} ({exc.msg}): a half-written export? "
            "Download it again"
        ) from None
    except RecursionError:
        raise SkipFile("not valid JSON: nested too deeply") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise SkipFile("not a Claude.ai memories export (expected [{conversations_memory: …}])")
    texts: list[str] = []
    for record in data:
        memory = record.get("conversations_memory")
        if isinstance(memory, str):
            texts.append(memory)
        projects = record.get("project_memories")
        if isinstance(projects, dict):
            texts.extend(v for v in projects.values() if isinstance(v, str))
    if not texts and data:
        raise SkipFile("not a Claude.ai memories export (no conversations_memory text)")
    found: list[Candidate] = []
    for memory in texts:
        line = _json_line(text, memory)
        for candidate in markdown_candidates(memory, first_line=line):
            found.append(Candidate(candidate.text, line))
    return found


def _json_line(text: str, value: str) -> int:
    """The line of ``text`` where the JSON string ``value`` starts (1 when not found)."""
    encoded = json.dumps(value, ensure_ascii=False)
    at = text.find(encoded)
    if at < 0:
        at = text.find(json.dumps(value))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


# --- Proposals ---------------------------------------------------------------------------------


def session_of(data: str) -> str:
    """The session id of an imported file: ``import-`` and 12 hex digits of its text's sha256,
    so the same file is imported once (unless ``--again``) and a changed one again."""
    return "import-" + hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]


def raw_proposal(
    candidate: Candidate, source: Source, sections: tuple[str, ...]
) -> dict[str, object]:
    """The untrusted proposal for one candidate, routed and filed as the offline harvest does."""
    route = route_for(candidate.text)
    return {
        "action": "add",
        "route": route,
        "section": section_for(candidate.text, sections) if route == "memory" else None,
        "target": None,
        "text": candidate.text.lstrip("#->* \t"),
        "justification": f"written in {source.shown} line {candidate.line}",
        "basis": "declared",
    }


def import_files(
    repo: Repository,
    actor: Person,
    paths: list[Path],
    *,
    scope: str | None = None,
    dry_run: bool = False,
    again: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_file: Callable[[FileResult], None] | None = None,
) -> ImportRun:
    """Import ``paths`` for ``actor`` (the caller checked they own the memory).

    One commit per file that brings at least one proposal (under the repository lock, taken
    here per file so a long import does not block a review for minutes); none with
    ``dry_run``. A file already imported unchanged is ``skipped`` unless ``again``. Raises
    :class:`UsageError` when a folder holds nothing importable; a bad file is a ``failed``
    :class:`FileResult`, never an exception.
    """
    sources, ignored, missing = find_sources(paths)
    run = ImportRun(ignored=ignored)
    imported = {s.path.resolve() for s in sources}
    done = set() if again or dry_run else committed_session_ids(repo.root)
    if on_start:
        on_start(len(sources) + len(missing))
    for result in missing:
        run.files.append(result)
        if on_file:
            on_file(result)
    for source in sources:
        result = _import_one(repo, actor, source, imported, scope, dry_run, done)
        run.files.append(result)
        if on_file:
            on_file(result)
    return run


def _import_one(
    repo: Repository,
    actor: Person,
    source: Source,
    imported: set[Path],
    scope: str | None,
    dry_run: bool,
    done: set[str],
) -> FileResult:
    try:
        text = read_text(source.path)
        found = candidates(source, text, imported)
    except SkipFile as exc:
        return FileResult(source, "failed", exc.message)
    session = session_of(text)
    if session in done:
        return FileResult(
            source, "skipped", "imported before, unchanged (add --again to read it once more)"
        )
    result = FileResult(source, "dry-run" if dry_run else "nothing", session=session)
    with repo.locked():
        relpath = repo.memory_relpath(actor.id)
        memory_text = read_current(repo.root, relpath)
        pending = [p for p in list_pending(repo, actor.id) if p.text]
        for candidate in found:
            raw = raw_proposal(candidate, source, repo.config.memory.sections)
            try:
                proposal = parse_proposal(
                    raw,
                    person=actor.id,
                    session=session,
                    source="import",
                    scope=scope,
                    where=f"{source.shown}:{candidate.line}",
                )
                if proposal.route == "memory":
                    require_memory_role(actor, "a memory proposal")
                proposal = validate(proposal, repo, memory_text, result.proposals, pending)
            except AgentmemError as exc:
                result.rejected.append(Rejected(candidate.line, _reason(exc, source)))
                continue
            result.proposals.append(proposal)
            result.lines.append(candidate.line)
        if result.proposals and not dry_run:
            result.commit = write_to_inbox(repo, actor, result.proposals, session, "import")
            result.status = "imported"
    return result


def _reason(exc: AgentmemError, source: Source) -> str:
    """A rejection's reason without the ``file:line:`` the listing shows already."""
    text = str(exc)
    return re.sub(rf"^{re.escape(source.shown)}:\d+: ", "", text)
