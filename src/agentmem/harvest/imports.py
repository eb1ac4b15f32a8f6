"""``agentmem import``: what people already wrote for their agents, as pending proposals.

Sources (chosen by name, then by content):

- Claude Code auto-memory folders: the ``MEMORY.md`` index and its topic files with front
  matter (``name``, ``description``, ``type``); a topic file gives its ``description`` (else its
  first paragraph), an index line gives its text only when its topic file is not imported too;
- instruction files: ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``, ``.claude/rules/*.md``,
  ``.cursorrules``, ``.cursor/rules/*.mdc``, ``.clinerules`` (a file or a folder) and Cline
  ``memory-bank/*.md``: what a person would keep of them (:mod:`agentmem.harvest.instructions`:
  commands, code, paths, tool lists, log lines, placeholders and descriptions are skipped and
  counted by reason; a nested item keeps its parent's words);
- the Claude.ai ``memories.json`` export: each memory text, split like Markdown.

A conversation export (ChatGPT or Claude.ai ``conversations.json``) or a session transcript is
refused with the command that reads it (``agentmem harvest``); so is a file that is empty,
binary, not a regular file (a FIFO never blocks the import), a link out of its folder or over
:data:`MAX_FILE_BYTES`.

Every proposal of a run is numbered (the dry run lists the numbers); ``--only`` and
``--section`` pick part of it. The picked ones are validated
(:func:`agentmem.proposals.validate.validate`: shape, guard, duplicates against the memory, the
inbox and the proposals before them), then the whole batch is checked against the budget
(:func:`agentmem.apply.planner.budget_after`, counting what the memory holds): a batch that
does not fit, or of more than :data:`MAX_CANDIDATES` proposals, files nothing. Otherwise the
kept proposals of each file are committed to the inbox in ONE commit per file. Nothing is
applied without review.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agentmem import guard
from agentmem.apply.planner import budget_after
from agentmem.apply.writer import read_current
from agentmem.errors import AgentmemError, UsageError
from agentmem.governance import require_memory_role
from agentmem.harvest import instructions
from agentmem.harvest.exports import is_conversation_export
from agentmem.harvest.instructions import Item, counts
from agentmem.harvest.providers.offline import route_for, section_for
from agentmem.harvest.queue import committed_session_ids
from agentmem.memory.file import BudgetStatus
from agentmem.proposals.inbox import list_pending, write_to_inbox
from agentmem.proposals.model import Proposal, parse_proposal
from agentmem.proposals.validate import validate
from agentmem.store.repo import Person, Repository

#: A file larger than this (bytes) is refused: no instruction file people maintain is that big.
MAX_FILE_BYTES = 1024 * 1024
#: At most this many proposals are validated and filed by one import (pick part of a larger
#: one with ``--only`` or ``--section``).
MAX_CANDIDATES = 200
#: Candidates shorter than this (characters) are not proposals ("Rules", "Notes").
MIN_CHARS = instructions.MIN_CHARS
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
_FALLBACK_SECTION = "Recurring patterns"


@dataclass(frozen=True)
class Candidate:
    """One thing to propose: ``text`` (one line), ``line`` (1-based in the file), ``number``
    (its place in the run's listing, what ``--only`` picks), ``heading`` (the nearest one)."""

    text: str
    line: int
    number: int = 0
    heading: str = ""


@dataclass(frozen=True)
class Source:
    """A file to import: ``kind`` is ``auto-memory``, ``auto-memory-index``, ``instructions``
    or ``claude-ai-memories``; ``shown`` is the path as messages and justifications name it;
    ``folder`` is the folder a symbolic link may not lead out of."""

    path: Path
    kind: str
    shown: str
    folder: Path | None = None


@dataclass(frozen=True)
class Rejected:
    """A candidate that was not kept: its line, its number and the reason (never its text when
    the guard refused it)."""

    line: int
    reason: str
    number: int = 0


@dataclass
class FileResult:
    """What one file gave: ``status`` is ``imported`` (proposals committed), ``nothing``
    (nothing new), ``dry-run``, ``refused`` (the batch did not fit: nothing filed),
    ``skipped`` (imported before) or ``failed`` (with ``reason``). ``skipped_items`` are the
    items left out (line and reason, :func:`agentmem.harvest.instructions.counts`)."""

    source: Source
    status: str
    reason: str = ""
    proposals: list[Proposal] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    skipped_items: list[Item] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    unpicked: int = 0
    commit: str | None = None
    session: str = ""

    @property
    def skipped_counts(self) -> dict[str, int]:
        return counts(self.skipped_items)


@dataclass
class ImportRun:
    """All files of one ``agentmem import``. ``ignored`` counts files found in folders that are
    not memory or instruction files, ``notes`` says what some of them are (an export to
    harvest); ``refusal`` says why the whole batch was refused (nothing filed), ``budget`` is
    the memory's fill level once the batch is in."""

    files: list[FileResult] = field(default_factory=list)
    ignored: int = 0
    notes: list[str] = field(default_factory=list)
    refusal: str = ""
    budget: BudgetStatus | None = None
    proposed: int = 0

    @property
    def failed(self) -> list[FileResult]:
        return [f for f in self.files if f.status == "failed"]


# --- Finding the files -------------------------------------------------------------------------


def _shown(path: Path) -> str:
    """The path relative to the current folder when below it, else its last two parts after
    ``…/`` (no home folder, no user name in a justification or a commit; the ellipsis says the
    path is cut, so "…/a25/f.md" is not read as a path below the current folder)."""
    try:
        return path.absolute().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        try:
            return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
        except (ValueError, OSError):
            return "…/" + "/".join(path.parts[-2:])


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


def find_sources(paths: Iterable[Path]) -> tuple[list[Source], int, list[FileResult], list[str]]:
    """The files to import under ``paths`` (files as given, folders searched), sorted within a
    folder; the number of other files seen; a failed result for each path that does not exist;
    and notes on the other files that another command reads (a conversation export). A folder
    holding nothing importable raises :class:`UsageError`."""
    sources: list[Source] = []
    missing: list[FileResult] = []
    notes: list[str] = []
    ignored = 0
    seen: set[Path] = set()
    for given in paths:
        if not given.exists() and not given.is_symlink():
            missing.append(FileResult(Source(given, "?", str(given)), "failed", "no such file"))
            continue
        if not given.is_dir():
            kind = _kind_of(given, explicit=True) or "instructions"
            key = _key(given)
            if key not in seen:
                seen.add(key)
                sources.append(Source(given, kind, _shown(given), given.absolute().parent))
            continue
        found = 0
        for path in _walk(given):
            found_kind = _kind_of(path, explicit=False)
            if found_kind is None:
                ignored += 1
                note = _export_note(path)
                if note:
                    notes.append(f"{_shown(path)}: {note}")
                continue
            key = _key(path)
            if key in seen:
                continue
            seen.add(key)
            sources.append(Source(path, found_kind, _shown(path), given.absolute()))
            found += 1
        if not found:
            raise UsageError(
                f"{given}: no memory or instruction file found in this folder",
                hint="agentmem import reads CLAUDE.md, AGENTS.md, .claude/rules/*.md, "
                ".cursorrules, .cursor/rules/*.mdc, .clinerules, memory-bank/*.md, Claude Code "
                "memory folders (MEMORY.md) and memories.json"
                + (f"; {notes[-1]}" if notes else ""),
            )
    return sources, ignored, missing, notes


def _key(path: Path) -> Path:
    """The same file reached twice (a link beside its target) is read once."""
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def _walk(folder: Path) -> list[Path]:
    """Files under ``folder`` (no link to a folder followed, at most :data:`MAX_DEPTH` folders
    down, dependency and VCS folders left out), in a stable order."""
    found: list[Path] = []
    base = len(folder.parts)
    for top, dirs, files in os.walk(folder, followlinks=False):
        depth = len(Path(top).parts) - base
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_FOLDERS and depth < MAX_DEPTH)
        found.extend(Path(top) / name for name in sorted(files))
    return found


def _export_note(path: Path) -> str:
    """What to do with a conversation export found in a folder ("" for any other file)."""
    if not path.name.lower().endswith(".json") or path.is_symlink():
        return ""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return ""
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError:
        return ""
    return _export_refusal(head, path) if is_conversation_export(head) else ""


# --- Reading one file --------------------------------------------------------------------------


class SkipFile(AgentmemError):
    """A file that cannot be imported: the message is the reason (no file content in it)."""


def _export_refusal(head: bytes, path: Path) -> str:
    which = "a ChatGPT" if b'"mapping"' in head else "a Claude.ai"
    return f"{which} conversation export: read it with 'agentmem harvest {path.name}'"


def read_text(path: Path, folder: Path | None = None) -> str:
    """The file's text; raises :class:`SkipFile` for a link out of ``folder``, a file that is
    not a regular file (never opened for reading, so a FIFO does not block), an unreadable,
    empty, binary or too large file, and a conversation export or transcript (with the
    command that reads it)."""
    target = path
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise SkipFile("a symbolic link to nothing (a broken link)") from None
        base = (folder or path.absolute().parent).resolve()
        if not target.is_relative_to(base):
            raise SkipFile("a symbolic link to a file outside its folder: import that file itself")
    try:
        info = os.stat(target, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode):
            raise SkipFile(f"not a regular file ({_file_type(info.st_mode)}): nothing read")
        if info.st_size > MAX_FILE_BYTES:
            raise SkipFile(
                f"{info.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} (1 MiB) an import "
                "reads: split it"
            )
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        handle = os.open(target, flags)
        try:
            if not stat.S_ISREG(os.fstat(handle).st_mode):  # changed since the stat
                raise SkipFile("not a regular file: nothing read")
            data = os.read(handle, MAX_FILE_BYTES + 1)
            while len(data) <= MAX_FILE_BYTES and (more := os.read(handle, 1 << 20)):
                data += more
        finally:
            os.close(handle)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SkipFile("a symbolic link (import the file it points to)") from None
        raise SkipFile(f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise SkipFile(f"more than the {MAX_FILE_BYTES:,} bytes (1 MiB) an import reads: split it")
    if is_conversation_export(data):
        raise SkipFile(_export_refusal(data[:65536], path))
    if b"\0" in data:
        raise SkipFile("a binary file, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SkipFile(f"not UTF-8 text (line {line}): a binary file?") from None
    if not text.strip():
        raise SkipFile("empty: nothing to import")
    if path.name.lower().endswith(".jsonl") or _is_transcript(text):
        raise SkipFile(f"a session transcript: read it with 'agentmem harvest {path.name}'")
    return text


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


_TRANSCRIPT_LINE = re.compile(r'^\{"(?:type|parentUuid|sessionId|uuid|timestamp|record_type)"')


def _is_transcript(text: str) -> bool:
    """JSON lines that look like a Claude Code or Codex session (one object a line)."""
    first = text.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    return bool(_TRANSCRIPT_LINE.match(first)) and first.rstrip().endswith("}")


def candidates(
    source: Source, text: str, imported: set[Path] | None = None, limit: int = 500
) -> tuple[list[Candidate], list[Item]]:
    """The candidates of one file's text by its kind, and the items it leaves out (with their
    reasons). Raises :class:`SkipFile` for a malformed ``memories.json`` and for a JSON file
    that is not one."""
    if source.kind == "claude-ai-memories" or (
        source.path.name.lower().endswith(".json") and text.lstrip()[:1] in "[{"
    ):
        return _memories_json(text), []
    if source.kind == "auto-memory":
        return _topic_file(text), []
    if source.kind == "auto-memory-index":
        return _memory_index(source.path, text, imported or set()), []
    found = instructions.items(text, name=source.path.name, limit=limit)
    kept = [Candidate(i.text, i.line, heading=i.heading) for i in found if i.skip is None]
    return kept, [i for i in found if i.skip is not None]


def markdown_candidates(text: str, first_line: int = 1) -> list[Candidate]:
    """List items and paragraphs of Markdown text, each joined to one line, none judged
    (:func:`agentmem.harvest.instructions.flat_items`); ``first_line`` numbers the first line."""
    return [Candidate(t, n + first_line - 1) for t, n in instructions.flat_items(text)]


def _front_matter(text: str) -> tuple[dict[str, tuple[str, int]], int]:
    """Simple ``key: value`` front matter (values with their 1-based line) and the line the
    body starts on (1 when there is none). No YAML is loaded: values stay strings."""
    start = instructions.body_start(text)
    if start == 1:
        return {}, 1
    fields: dict[str, tuple[str, int]] = {}
    for number, raw in enumerate(text.split("\n")[1 : start - 2], start=2):
        key, sep, value = raw.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip().lower()] = (value.strip().strip("\"'"), number)
    return fields, start


def _topic_file(text: str) -> list[Candidate]:
    """A Claude Code auto-memory topic file: its ``description``, else its first paragraph."""
    fields, body_line = _front_matter(text)
    if "description" in fields and len(fields["description"][0]) >= MIN_CHARS:
        value, line = fields["description"]
        return [Candidate(instructions.one_line(value), line)]
    return markdown_candidates(text)[:1]


_INDEX_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]]*\]\(([^)]+)\)\s*(?:[—–:-]+\s*)?(.*)$")


def _memory_index(path: Path, text: str, imported: set[Path]) -> list[Candidate]:
    """The ``MEMORY.md`` index: a line whose topic file is imported too says nothing new; the
    others give their description (their text after the link)."""
    found: list[Candidate] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        match = _INDEX_LINE.match(raw)
        if not match:
            continue
        target = _key(path.parent / match.group(1))
        description = instructions.one_line(match.group(2))
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
        raise SkipFile(
            "a JSON file that is not a Claude.ai memories.json (expected "
            "[{conversations_memory: …}]): agentmem import reads instruction files and "
            "memories.json"
        )
    texts: list[str] = []
    for record in data:
        memory = record.get("conversations_memory")
        if isinstance(memory, str):
            texts.append(memory)
        projects = record.get("project_memories")
        if isinstance(projects, dict):
            texts.extend(v for v in projects.values() if isinstance(v, str))
    if not texts and data:
        raise SkipFile(
            "a JSON file that is not a Claude.ai memories.json (no conversations_memory text)"
        )
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


# --- Picking part of a run ---------------------------------------------------------------------

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_only(spec: str | None) -> set[int] | None:
    """``--only 1,4-7`` → {1, 4, 5, 6, 7}; None when not given. Raises :class:`UsageError`."""
    if spec is None:
        return None
    picked: set[int] = set()
    for part in spec.split(","):
        match = _RANGE.match(part)
        if not match or int(match.group(1)) < 1:
            raise UsageError(
                f"--only {spec!r}: expected proposal numbers from the dry run's listing, such "
                "as 3 or 1-5,8",
                hint="list them with 'agentmem import FILE --dry-run'",
            )
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if high < low:
            raise UsageError(f"--only {spec!r}: the range {part.strip()} runs backwards")
        if high - low > 100_000:
            raise UsageError(f"--only {spec!r}: the range {part.strip()} is too large")
        picked.update(range(low, high + 1))
    return picked


def check_sections(names: Iterable[str], sections: tuple[str, ...]) -> tuple[str, ...]:
    """The configured sections ``names`` name (case aside); raises :class:`UsageError`."""
    out: list[str] = []
    for name in names:
        match = [s for s in sections if s.casefold() == name.strip().casefold()]
        if not match:
            raise UsageError(
                f"--section {name!r}: no such memory section",
                hint=f"sections: {', '.join(sections)}",
            )
        out.append(match[0])
    return tuple(out)


# --- Proposals ---------------------------------------------------------------------------------


def session_of(data: str, part: str = "") -> str:
    """The session id of an imported file: ``import-`` and 12 hex digits of the sha256 of its
    text (and of the part picked, so another part of the same file is not "imported before"):
    the same file is imported once (unless ``--again``) and a changed one again."""
    digest = hashlib.sha256(data.encode("utf-8"))
    if part:
        digest.update(b"\0" + part.encode("utf-8"))
    return "import-" + digest.hexdigest()[:12]


def raw_proposal(
    candidate: Candidate, source: Source, sections: tuple[str, ...]
) -> dict[str, object]:
    """The untrusted proposal for one candidate, routed as the offline harvest routes a request,
    its section by the harvest's keywords, else the import's (the text, then its heading)."""
    route = route_for(candidate.text)
    section = None
    if route == "memory":
        section = section_for(candidate.text, sections)
        if section == _FALLBACK_SECTION or section not in sections:
            section = instructions.section_hint(candidate.text, candidate.heading, sections) or (
                section
            )
    return {
        "action": "add",
        "route": route,
        "section": section,
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
    only: str | None = None,
    sections: Iterable[str] = (),
    on_start: Callable[[int], None] | None = None,
    on_file: Callable[[FileResult], None] | None = None,
) -> ImportRun:
    """Import ``paths`` for ``actor`` (the caller checked they own the memory).

    Every file is read and its candidates numbered first (``on_file`` is called for each, for
    progress); then the candidates ``only`` and ``sections`` pick are validated and the whole
    batch is checked against the budget, under the repository lock; then, unless ``dry_run``,
    the kept proposals of each file are committed (one commit per file). A batch over the
    budget or of more than :data:`MAX_CANDIDATES` proposals files nothing (``refusal``). A file
    already imported unchanged is ``skipped`` unless ``again``. Raises :class:`UsageError` for a
    folder holding nothing importable, a bad ``only`` or an unknown section; a bad file is a
    ``failed`` :class:`FileResult`, never an exception.
    """
    picked = parse_only(only)
    config = repo.config.memory
    wanted = check_sections(sections, config.sections)
    sources, ignored, missing, notes = find_sources(paths)
    run = ImportRun(ignored=ignored, notes=notes)
    imported = {_key(s.path) for s in sources}
    done = set() if again or dry_run else committed_session_ids(repo.root)
    part = ";".join(filter(None, [f"only={only}" if only else "", ",".join(wanted)]))
    if on_start:
        on_start(len(sources) + len(missing))
    for result in missing:
        run.files.append(result)
        if on_file:
            on_file(result)
    number = 0
    for source in sources:
        result = _read_one(source, imported, done, part, config.entry_max_chars)
        if result.status == "nothing":
            numbered = []
            for candidate in result.candidates:
                number += 1
                numbered.append(
                    Candidate(candidate.text, candidate.line, number, candidate.heading)
                )
            result.candidates = numbered
        run.files.append(result)
        if on_file:
            on_file(result)
    _propose(repo, actor, run, scope, picked, wanted, number, dry_run)
    return run


def _read_one(
    source: Source, imported: set[Path], done: set[str], part: str, limit: int
) -> FileResult:
    try:
        text = read_text(source.path, source.folder)
        found, left = candidates(source, text, imported, limit)
    except SkipFile as exc:
        return FileResult(source, "failed", exc.message)
    session = session_of(text, part)
    if session in done:
        return FileResult(
            source, "skipped", "imported before, unchanged (add --again to read it once more)"
        )
    result = FileResult(source, "nothing", session=session, candidates=found)
    for item in left:
        secret = _secret(item.text)
        if secret:
            result.rejected.append(Rejected(item.line, secret))
        else:
            result.skipped_items.append(item)
    return result


def _secret(text: str) -> str:
    """The guard's refusal of a skipped item that holds a secret ("" when it holds none): it is
    reported as not kept, so the person learns the file holds one (codes, never the value)."""
    if not text:
        return ""
    found = [
        f for f in guard.scan(text) if f.severity == guard.ERROR and f.code.startswith("secret")
    ]
    if not found:
        return ""
    shown = "; ".join(f"{f.code} at {f.start}: {f.message}" for f in found[:8])
    return f"refused: {shown}"


def _propose(
    repo: Repository,
    actor: Person,
    run: ImportRun,
    scope: str | None,
    picked: set[int] | None,
    wanted: tuple[str, ...],
    total: int,
    dry_run: bool,
) -> None:
    """Validate the picked candidates of every file and check the batch against the budget,
    then (unless ``dry_run``) commit each file's proposals, all under one lock; sets
    ``run.refusal`` and files nothing when the batch cannot be filed whole."""
    config = repo.config.memory
    reading = [r for r in run.files if r.status == "nothing"]
    if picked is not None and total and max(picked) > total:
        beyond = sorted(n for n in picked if n > total)
        raise UsageError(
            f"--only {beyond[0]}: this import has {total} proposal(s) (numbers 1-{total})",
            hint="list them with --dry-run",
        )
    chosen: list[tuple[FileResult, Candidate, dict[str, object]]] = []
    for result in reading:
        kept: list[Candidate] = []
        for candidate in result.candidates:
            raw = raw_proposal(candidate, result.source, config.sections)
            if picked is not None and candidate.number not in picked:
                result.unpicked += 1
                continue
            if wanted and raw["section"] not in wanted:
                result.unpicked += 1
                continue
            kept.append(candidate)
            chosen.append((result, candidate, raw))
        result.candidates = kept
    if len(chosen) > MAX_CANDIDATES:
        run.refusal = (
            f"these {len(chosen)} proposals are more than the {MAX_CANDIDATES} one import "
            f"files: import in part with --only (e.g. --only 1-{MAX_CANDIDATES}) or --section"
        )
        for result in reading:
            result.status = "refused"
        return
    with repo.locked():
        relpath = repo.memory_relpath(actor.id)
        memory_text = read_current(repo.root, relpath)
        pending = [p for p in list_pending(repo, actor.id) if p.text]
        accepted: list[Proposal] = []
        for result, candidate, raw in chosen:
            where = f"{result.source.shown}:{candidate.line}"
            try:
                proposal = parse_proposal(
                    raw,
                    person=actor.id,
                    session=result.session,
                    source="import",
                    scope=scope,
                    where=where,
                )
                if proposal.route == "memory":
                    require_memory_role(actor, "a memory proposal")
                proposal = validate(proposal, repo, memory_text, accepted, pending)
            except AgentmemError as exc:
                reason = re.sub(rf"^{re.escape(where)}: ", "", str(exc))
                result.rejected.append(Rejected(candidate.line, reason, candidate.number))
                continue
            accepted.append(proposal)
            result.proposals.append(proposal)
            result.lines.append(candidate.line)
            result.numbers.append(candidate.number)
        run.proposed = len(accepted)
        run.budget = budget_after(accepted, memory_text, config, relpath, actor.id)
        if run.budget.level == "over":
            count = sum(1 for p in accepted if p.route == "memory")
            held = budget_after([], memory_text, config, relpath, actor.id).used
            run.refusal = (
                f"these {count} proposals need {run.budget.used:,} of {run.budget.budget:,} "
                "characters: pick with --only / --section"
                + (f" (your memory holds {held:,} already)" if memory_text is not None else "")
            )
        for result in reading:
            if run.refusal:
                result.status = "refused"
            elif dry_run:
                result.status = "dry-run"
            elif result.proposals:
                result.commit = write_to_inbox(
                    repo, actor, result.proposals, result.session, "import"
                )
                result.status = "imported"
