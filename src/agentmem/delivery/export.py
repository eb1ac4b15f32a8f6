"""``agentmem export``: the approved memory (or the active doctrine of a scope) for tools that
read a file — Claude Code (``CLAUDE.md``), Codex and others (``AGENTS.md``), Cursor
(``.cursor/rules/*.mdc``), or plain Markdown.

An export is ONE block between markers, so a new export replaces only its own block and leaves
the rest of the file as the person wrote it::

    <!-- agentmem:begin memory person=alice sha256=0123456789ab -->
    …the chat block, as ``context chat --format markdown`` renders it…
    <!-- agentmem:end memory person=alice -->

``sha256`` is 12 hex digits of what the block was made from (the memory file's text, or the ids
and versions of the rules applied): :func:`stale_exports` (run by ``check``) compares it with
the repository now and warns when the block is older. One block never mixes personal memory and
doctrine, and one file never holds both: a memory export into a file that holds a doctrine block
(or the reverse) is refused.

Every file written is remembered in ``.agentmem/exports.jsonl`` (local, never committed) so that
``check`` can look at it again; files at the repository's top (``CLAUDE.md``, ``AGENTS.md``,
``GEMINI.md``, ``.cursor/rules/*.mdc``, ``.claude/rules/**/*.md``) are looked at anyway.

A memory export keeps scope (:func:`plan_memory`): the block holds what a session started in
the project gets (its scope from the ``scopes:`` map), and the entries scoped to folders inside
the project go to rules of their own — Claude Code ``.claude/rules/agentmem/<person>/<scope>.md``
with ``paths:``, Cursor ``.cursor/rules/agentmem-<person>-<scope>.mdc`` with ``globs:`` — each a
marked block as above; every entry exported nowhere is named with what gives it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from agentmem import notices
from agentmem.config import load_config
from agentmem.delivery.context import (
    ChatContext,
    audit_from_index,
    build_chat,
    chat_reader,
    render_audit,
    render_chat,
    serve_memory,
)
from agentmem.delivery.folders import resolved_folder, scope_for_folder
from agentmem.doctrine.model import normalise_scope, today
from agentmem.errors import AgentmemError, GovernanceError, UsageError
from agentmem.governance import ADMIN
from agentmem.memory.records import scope_contains
from agentmem.proposals.ids import check_scope
from agentmem.store.atomic import atomic_delete, atomic_write
from agentmem.store.repo import Person, Repository

TARGETS = ("claude-md", "agents-md", "cursor-rule", "markdown")
EXPORTS_FILE = "exports.jsonl"
_BLOCK = re.compile(
    r"<!-- agentmem:begin (?P<kind>memory|doctrine) (?P<key>person|scope)=(?P<value>\S+) "
    r"sha256=(?P<sha>[0-9a-f]{12}) -->\n(?P<body>.*?)<!-- agentmem:end (?P=kind) "
    r"(?P=key)=(?P=value) -->\n?",
    re.S,
)
_BEGIN = re.compile(r"<!-- agentmem:begin (memory|doctrine) (person|scope)=(\S+)")
_REPO_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md")


class ExportError(AgentmemError):
    """An export that would damage the target file (a half-written block, memory and doctrine
    in one file)."""


@dataclass(frozen=True)
class Export:
    """One rendered export: ``kind`` memory | doctrine, ``key`` the person or the scope,
    ``sha`` what it was made from (12 hex digits), ``block`` the text between and with its
    markers (ends with a newline). A scoped rule (``scope``: the entries' scope) has the
    ``globs`` it loads for, relative to its project: Claude Code's ``paths:``, Cursor's
    ``globs:``."""

    kind: str
    key: str
    sha: str
    body: str
    target: str
    scope: str | None = None
    globs: tuple[str, ...] = ()

    @property
    def front_matter(self) -> str:
        """The front matter of a file holding only this export ("" for none)."""
        if self.target == "cursor-rule":
            what = (
                f"Team doctrine for scope {self.key} (agentmem)"
                if self.kind == "doctrine"
                else f"Remembered preferences of {self.key}"
                + (f" for scope {self.scope}" if self.scope else "")
                + " (agentmem)"
            )
            globs = f" {', '.join(self.globs)}" if self.globs else ""
            always = "false" if self.globs else "true"
            return f"---\ndescription: {what}\nglobs:{globs}\nalwaysApply: {always}\n---\n"
        if self.target == "claude-md" and self.globs:
            paths = "".join(f'  - "{g}"\n' for g in self.globs)
            return f"---\npaths:\n{paths}---\n"
        return ""

    @property
    def block(self) -> str:
        name = "person" if self.kind == "memory" else "scope"
        return (
            f"<!-- agentmem:begin {self.kind} {name}={self.key} sha256={self.sha} -->\n"
            f"{self.body.rstrip()}\n"
            f"<!-- agentmem:end {self.kind} {name}={self.key} -->\n"
        )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def memory_source_sha(repo: Repository, person: str) -> str:
    """What a memory export is made from: the memory as the served view gives it (empty when
    nothing is served: docs/design/served.md §Served view)."""
    return _sha(serve_memory(repo, person).text or "")


def doctrine_source_sha(rule_versions: list[tuple[str, int]]) -> str:
    """What a doctrine export is made from: the ids and versions of the rules applied."""
    return _sha("\n".join(f"{rule}@{version}" for rule, version in sorted(rule_versions)))


def export_memory(
    repo: Repository, actor: Person, person: str | None, target: str, scope: str | None = None
) -> Export:
    """The chat block of ``person`` (default: the actor; another person's only for an admin)
    that a session of ``scope`` gets (None: only the entries meant everywhere), rendered in
    Markdown. Raises :class:`GovernanceError`, :class:`InvalidMemoryError`."""
    return plan_memory(repo, actor, person, target, scope=scope, project=None).main


#: Where the scoped rules of each target go, under the project's folder.
RULES_DIR = {"claude-md": (".claude", "rules"), "cursor-rule": (".cursor", "rules")}
_FILE_NAMES = {"agents-md": "AGENTS.md"}
_GLOB_UNSAFE = frozenset(",*?[]{}\"'\\\n")


@dataclass(frozen=True)
class MemoryPlan:
    """A memory export (docs/design/context.md §Context, export): ``main`` the block for the target
    file; ``rules`` one scoped rule per scope whose entries a session of the project does not
    get but a folder inside it does (its path and its globs, from the ``scopes:`` map);
    ``left_out`` one line per group of entries exported nowhere, saying why and what gives
    them; ``stale`` earlier scoped rules of this person in the project that no entry needs
    now (their block is removed, the file deleted when nothing else is left)."""

    main: Export
    rules: tuple[tuple[Path, Export], ...] = ()
    left_out: tuple[str, ...] = ()
    stale: tuple[Path, ...] = ()


def project_of(target: str, output: Path | None) -> Path:
    """The project an export is written into: the current folder when it is printed, else the
    output's folder (``X`` for ``X/CLAUDE.md``, ``X/.claude/CLAUDE.md`` and
    ``X/.cursor/rules/N.mdc``)."""
    if output is None:
        return Path.cwd().resolve()
    folder = output.resolve().parent
    if target == "cursor-rule" and folder.name == "rules" and folder.parent.name == ".cursor":
        return folder.parent.parent
    if target == "claude-md" and folder.name == ".claude":
        return folder.parent
    return folder


def rule_path(project: Path, target: str, person: str, scope: str) -> Path:
    """Where the scoped rule of ``person``'s entries of ``scope`` goes: Claude Code
    ``.claude/rules/agentmem/<person>/<scope>.md`` (rules are found in sub-folders), Cursor
    ``.cursor/rules/agentmem-<person>-<scope, / as -->.mdc``."""
    base = project.joinpath(*RULES_DIR[target])
    if target == "claude-md":
        return base.joinpath("agentmem", person, *scope.split("/")).with_suffix(".md")
    return base / f"agentmem-{person}-{scope.replace('/', '--')}.mdc"


def plan_memory(
    repo: Repository,
    actor: Person,
    person: str | None,
    target: str,
    *,
    scope: str | None = None,
    project: Path | None,
    writing: bool = False,
) -> MemoryPlan:
    """What a memory export of ``person`` writes for ``target``. With ``scope``: the block a
    session of that scope gets, nothing else. Without: the block a session started in
    ``project`` gets (its scope from the ``scopes:`` map; ``project`` None: only the entries
    meant everywhere) and, for the entries scoped elsewhere, a rule per scope whose mapped
    folders lie inside ``project`` — when ``writing`` files for Claude Code or Cursor — or a
    ``left_out`` line naming them: never dropped in silence. Raises :class:`ExportError`
    (an entry withheld), :class:`GovernanceError`, :class:`InvalidMemoryError`."""
    _check_target(target)
    whose = chat_reader(repo, actor, person)
    clean = _memory_scope(scope)
    here = clean
    if clean is None and project is not None:
        here = scope_for_folder(repo.config.scopes, str(project), repo.root)
    ctx = build_chat(repo, whose, here)
    _refuse_withheld(ctx)
    sha = memory_source_sha(repo, whose)
    main = Export("memory", whose, sha, render_chat(ctx, "markdown"), target)
    # what the served view left out of the file (an uncommitted line, another person's commit)
    # is said as context chat says it, never exported in silence (docs/design/served.md)
    left: list[str] = list(ctx.notes)
    rules: list[tuple[Path, Export]] = []
    for elsewhere, count in ctx.elsewhere:
        entries = _count(count)
        if clean is not None:
            left.append(
                f"left out: {entries} of scope {elsewhere} (not within --scope {clean}): "
                f"agentmem export --to {target} --scope {elsewhere} gives them"
            )
            continue
        folders = [f for f, mapped in repo.config.scopes if scope_contains(elsewhere, mapped)]
        if not folders:
            left.append(
                f"left out: {entries} of scope {elsewhere} {'has' if count == 1 else 'have'} no "
                "folder in scopes: — map one "
                f"with agentmem scope map FOLDER {elsewhere}, or agentmem export --to {target} "
                f"--scope {elsewhere} gives them"
            )
            continue
        globs, odd = _globs(repo.root, folders, project)
        if not globs:
            where = ", ".join(folders[:3])
            why = f"a folder name a glob cannot hold ({odd})" if odd else "outside this project"
            left.append(
                f"left out: {entries} of scope {elsewhere}: its folders in scopes: ({where}) are "
                f"{why}; agentmem export --to {target} --scope {elsewhere} gives them"
            )
            continue
        if not writing or target not in RULES_DIR or project is None:
            folder = globs[0].removesuffix("/**")
            how = (
                f"--output FILE writes them as a rule for {', '.join(globs)}"
                if target in RULES_DIR
                else f"{target} has no per-folder rule; agentmem export --to {target} --scope "
                f"{elsewhere} --output {folder}/{_FILE_NAMES.get(target, 'NOTES.md')} writes "
                "them where the sessions of that folder read"
            )
            left.append(f"left out here: {entries} of scope {elsewhere}: {how}")
            continue
        path = rule_path(project, target, whose, elsewhere)
        if any(path == taken for taken, _ in rules):  # a--b and a/b: one Cursor name
            path = path.with_name(f"{path.stem}-{_sha(elsewhere)[:6]}{path.suffix}")
        rules.append((path, _rule(repo, whose, elsewhere, target, sha, globs)))
    for reason, word in (("expired", "expired"), ("review due", "past review (suspended)")):
        count = sum(1 for _, why in ctx.left_out if why == reason)
        if count:
            left.append(f"left out: {_count(count)} {word} (agentmem memory due)")
    stale: tuple[Path, ...] = ()
    if writing and target in RULES_DIR and project is not None and clean is None:
        stale = _stale_rules(project, target, whose, {path for path, _ in rules})
    return MemoryPlan(main, tuple(rules), tuple(left), stale)


def _count(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _memory_scope(scope: str | None) -> str | None:
    if scope is None:
        return None
    clean = check_scope(scope, "--scope")
    if clean is None:
        raise UsageError("--scope is empty; give a scope such as contracts/supply")
    return clean


def _refuse_withheld(ctx: ChatContext) -> None:
    if ctx.withheld:
        raise ExportError(
            f"{ctx.path}: entr(ies) {', '.join(f'#{n}' for n in ctx.withheld)} hold an agentmem "
            "delimiter or fail the guard; nothing exported",
            hint="run agentmem check and fix the entries with agentmem memory edit",
        )


def _globs(root: Path, folders: list[str], project: Path | None) -> tuple[tuple[str, ...], str]:
    """The globs (``sub/**``) of the mapped ``folders`` that lie inside ``project``, and the
    first such folder whose name a glob cannot hold (a comma, a bracket …; "" when none)."""
    if project is None:
        return (), ""
    found: set[str] = set()
    odd = ""
    for folder in folders:
        path = Path(resolved_folder(folder, root))
        if project not in path.parents:
            continue
        rel = path.relative_to(project).as_posix()
        if _GLOB_UNSAFE & set(rel):
            odd = odd or folder
            continue
        found.add(f"{rel}/**")
    return tuple(sorted(found)), odd


def _rule(
    repo: Repository, person: str, scope: str, target: str, sha: str, globs: tuple[str, ...]
) -> Export:
    """The block of ``person``'s entries scoped exactly ``scope`` (what a session there gets
    beyond the project's own block), for a rule loaded on ``globs``."""
    ctx = build_chat(repo, person, scope)
    _refuse_withheld(ctx)
    mine = tuple(e for e in ctx.entries if e.record.scope == scope)
    numbers = {e.number for e in mine}
    ctx = ctx.replace(
        entries=mine,
        due=tuple(n for n in ctx.due if n in numbers),
        left_out=(),
        elsewhere=(),
    )
    body = render_chat(ctx, "markdown")
    return Export("memory", person, sha, body, target, scope, globs)


def _stale_rules(project: Path, target: str, person: str, keep: set[Path]) -> tuple[Path, ...]:
    """Scoped rules of ``person`` in ``project`` (by their place and name) that hold their
    block but are not in ``keep``."""
    base = project.joinpath(*RULES_DIR[target])
    if target == "claude-md":
        folder = base / "agentmem" / person
        found = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    else:
        found = sorted(base.glob(f"agentmem-{person}-*.mdc")) if base.is_dir() else []
    stale = []
    for path in found:
        if path in keep or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if any(m.group("kind") == "memory" and m.group("value") == person
               for m in _BLOCK.finditer(text)):  # fmt: skip
            stale.append(path)
    return tuple(stale)


def person_marker(person: str) -> str:
    """The start of a memory block of ``person``: what ``agentmem erase --person`` looks for."""
    return f"<!-- agentmem:begin memory person={person} "


def without_person(text: str, person: str) -> str | None:
    """``text`` without the memory blocks of ``person`` (None: nothing but a front matter is
    left, the file goes). The text unchanged when it holds none."""
    rest = "".join(piece for piece in _split_blocks(text, "memory", person))
    if rest == text:
        return text
    return None if not _FRONT.sub("", rest, count=1).strip() else rest.rstrip("\n") + "\n"


def _split_blocks(text: str, kind: str, key: str) -> list[str]:
    pieces, last = [], 0
    for match in _BLOCK.finditer(text):
        if match.group("kind") == kind and match.group("value") == key:
            pieces.append(text[last : match.start()])
            last = match.end()
    pieces.append(text[last:])
    return pieces


def exported_paths(root: Path) -> list[Path]:
    """Every file an export here wrote (``.agentmem/exports.jsonl``), as recorded."""
    return [Path(r["path"]) for r in _registry(root / ".agentmem" / EXPORTS_FILE)]


def drop_block(path: Path, kind: str, key: str) -> bool:
    """Remove the ``kind``/``key`` block from ``path``; the file goes when nothing but a front
    matter is left. Returns True when the file was deleted."""
    text = path.read_text(encoding="utf-8")
    pieces, last = [], 0
    for match in _BLOCK.finditer(text):
        if match.group("kind") == kind and match.group("value") == key:
            pieces.append(text[last : match.start()])
            last = match.end()
    pieces.append(text[last:])
    rest = "".join(pieces)
    if not _FRONT.sub("", rest, count=1).strip():
        atomic_delete(path)
        for parent in path.parents:  # .claude/rules/agentmem/<person>/…: no empty folder left
            if parent.name == "rules":
                break
            try:
                parent.rmdir()
            except OSError:
                break
        return True
    atomic_write(path, rest.rstrip("\n") + "\n")
    return False


def export_doctrine(repo: Repository, actor: Person, scope: str, target: str) -> Export:
    """The audit block of the active rules applying to ``scope``, in Markdown (no usage line:
    an export is not an audit run). Raises :class:`DoctrineError`, :class:`GovernanceError`."""
    _check_target(target)
    clean = normalise_scope(scope, "--scope")
    if clean is None:
        raise UsageError("--scope is empty; give a scope such as contracts/supply")
    ctx = audit_from_index(repo.root, clean, actor, repo.config, today(), "export")
    if not ctx.given:
        raise GovernanceError(
            f"doctrine is not given to the role {actor.role} (context.doctrine_for_roles)",
            hint="ask an admin to add your role to context.doctrine_for_roles",
        )
    if ctx.withheld:
        raise ExportError(
            f"rule(s) {', '.join(sorted(ctx.withheld))} hold an agentmem delimiter or fail the "
            "guard; nothing exported",
            hint="run agentmem check",
        )
    for note in ctx.notes:  # what the served view left out, said as context audit says it
        notices.warn(note)
    sha = doctrine_source_sha([(r.id, r.version) for r in ctx.applied])
    return Export("doctrine", clean, sha, render_audit(ctx, "markdown"), target)


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise UsageError(f"unknown export target {target!r} (known: {', '.join(TARGETS)})")


def standalone(export: Export) -> str:
    """The whole text of a new file holding only this export (a Cursor rule gets its front
    matter: described, always applied or for its globs; a scoped Claude Code rule its
    ``paths:``)."""
    front = export.front_matter
    return f"{front}\n{export.block}" if front else export.block


_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def merged(existing: str | None, export: Export, where: str) -> str:
    """``existing`` with this export's block replaced (same kind and key), else appended after a
    blank line; a new file is :func:`standalone`. Raises :class:`ExportError` for a begin
    marker without its end (a half-written block: nothing is guessed) and for a file that holds
    the other kind of block."""
    if existing is None or not existing.strip():
        return standalone(export)
    other = "doctrine" if export.kind == "memory" else "memory"
    begins = _BEGIN.findall(existing)
    complete = list(_BLOCK.finditer(existing))
    if len(begins) != len(complete):
        raise ExportError(
            f"{where}: an agentmem block has a begin marker without its end marker; the file "
            "was left as it is",
            hint="remove the broken block by hand, then export again",
        )
    if any(kind == other for kind, _, _ in begins):
        raise ExportError(
            f"{where}: this file holds an agentmem {other} block; personal memory and team "
            "doctrine never share a file",
            hint="export to another file (--output)",
        )
    if export.globs and _FRONT.match(existing):  # a scoped rule: its paths follow the map
        existing = _FRONT.sub(lambda _: export.front_matter, existing, count=1)
        complete = list(_BLOCK.finditer(existing))
    for match in complete:
        if match.group("kind") == export.kind and match.group("value") == export.key:
            return existing[: match.start()] + export.block + existing[match.end() :]
    return existing.rstrip("\n") + "\n\n" + export.block


def write_export(repo: Repository, export: Export, output: Path) -> bool:
    """Write ``export`` into ``output`` atomically (only its block changes) and remember the file
    in ``.agentmem/exports.jsonl``. Returns False when the file already held exactly this.
    Raises :class:`ExportError`, :class:`WriteFailedError`."""
    try:
        existing = output.read_text(encoding="utf-8") if output.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExportError(f"{output}: cannot read it ({exc}); nothing written") from None
    text = merged(existing, export, str(output))
    _remember(repo, export, output)
    if text == existing:
        return False
    output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(output, text)
    return True


def _remember(repo: Repository, export: Export, output: Path) -> None:
    record = {"path": str(output.resolve()), "kind": export.kind, "key": export.key}
    folder = repo.local_dir
    path = folder / EXPORTS_FILE
    known = _registry(path)
    if record in known:
        return
    folder.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _registry(path: Path) -> list[dict[str, str]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found = []
    for line in lines:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and all(
            isinstance(value.get(k), str) for k in ("path", "kind", "key")
        ):
            found.append({k: value[k] for k in ("path", "kind", "key")})
    return found


@dataclass(frozen=True)
class StaleExport:
    """An exported block older than what it was made from: ``path`` as ``check`` shows it,
    ``line`` of its begin marker, ``kind``, ``key``."""

    path: str
    line: int
    kind: str
    key: str


def stale_exports(root: Path) -> list[StaleExport]:
    """Exported blocks (files in ``.agentmem/exports.jsonl`` and the repository's top-level
    instruction files) whose ``sha256`` no longer matches the memory or doctrine they came from.
    Unreadable files and unknown people are left out (never raises)."""
    try:
        repo = Repository(root, load_config(root))
    except AgentmemError:
        return []
    paths = [Path(r["path"]) for r in _registry(root / ".agentmem" / EXPORTS_FILE)]
    paths += [root / name for name in _REPO_FILES]
    rules_dir = root / ".cursor" / "rules"
    if rules_dir.is_dir():
        paths += sorted(rules_dir.glob("*.mdc"))
    claude_rules = root / ".claude" / "rules"
    if claude_rules.is_dir():
        paths += sorted(claude_rules.rglob("*.md"))
    found: list[StaleExport] = []
    seen: set[Path] = set()
    doctrine: dict[str, str] = {}
    for path in paths:
        real = path.resolve()
        if real in seen or not path.is_file():
            continue
        seen.add(real)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for match in _BLOCK.finditer(text):
            kind, key = match.group("kind"), match.group("value")
            try:
                now = (
                    memory_source_sha(repo, key)
                    if kind == "memory"
                    else doctrine.setdefault(key, _doctrine_now(repo, key))
                )
            except AgentmemError:
                continue
            if now != match.group("sha"):
                try:
                    shown = real.relative_to(root.resolve()).as_posix()
                except ValueError:
                    shown = str(real)
                line = text.count("\n", 0, match.start()) + 1
                found.append(StaleExport(shown, line, kind, key))
    return found


def _doctrine_now(repo: Repository, scope: str) -> str:
    reader = Person("export", "", ADMIN)
    ctx = audit_from_index(repo.root, scope, reader, repo.config, today(), "export")
    return doctrine_source_sha([(r.id, r.version) for r in ctx.applied])
