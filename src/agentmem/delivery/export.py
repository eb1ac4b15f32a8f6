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
``GEMINI.md``, ``.cursor/rules/*.mdc``) are looked at anyway.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from agentmem.config import load_config
from agentmem.delivery.context import (
    build_audit,
    build_chat,
    chat_reader,
    render_audit,
    render_chat,
)
from agentmem.doctrine import load_rules, normalise_scope, today
from agentmem.errors import AgentmemError, GovernanceError, UsageError
from agentmem.governance import ADMIN
from agentmem.store import regular
from agentmem.store.atomic import atomic_write
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
    markers (ends with a newline)."""

    kind: str
    key: str
    sha: str
    body: str
    target: str

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
    """What a memory export is made from: the memory file's text (empty when it is absent)."""
    text = regular.read_text(repo.root, repo.memory_relpath(person), universal_newlines=True)
    return _sha(text or "")


def doctrine_source_sha(rule_versions: list[tuple[str, int]]) -> str:
    """What a doctrine export is made from: the ids and versions of the rules applied."""
    return _sha("\n".join(f"{rule}@{version}" for rule, version in sorted(rule_versions)))


def export_memory(repo: Repository, actor: Person, person: str | None, target: str) -> Export:
    """The chat block of ``person`` (default: the actor; another person's only for an admin),
    rendered in Markdown. Raises :class:`GovernanceError`, :class:`InvalidMemoryError`."""
    _check_target(target)
    whose = chat_reader(repo, actor, person)
    ctx = build_chat(repo, whose)
    if ctx.withheld:
        raise ExportError(
            f"{ctx.path}: entr(ies) {', '.join(f'#{n}' for n in ctx.withheld)} hold an agentmem "
            "delimiter or fail the guard; nothing exported",
            hint="run agentmem check and fix the entries with agentmem memory edit",
        )
    return Export(
        "memory", whose, memory_source_sha(repo, whose), render_chat(ctx, "markdown"), target
    )


def export_doctrine(repo: Repository, actor: Person, scope: str, target: str) -> Export:
    """The audit block of the active rules applying to ``scope``, in Markdown (no usage line:
    an export is not an audit run). Raises :class:`DoctrineError`, :class:`GovernanceError`."""
    _check_target(target)
    clean = normalise_scope(scope, "--scope")
    if clean is None:
        raise UsageError("--scope is empty; give a scope such as contracts/supply")
    ctx = build_audit(load_rules(repo.root), clean, actor, repo.config, today(), "export")
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
    sha = doctrine_source_sha([(r.id, r.version) for r in ctx.applied])
    return Export("doctrine", clean, sha, render_audit(ctx, "markdown"), target)


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise UsageError(f"unknown export target {target!r} (known: {', '.join(TARGETS)})")


def standalone(export: Export) -> str:
    """The whole text of a new file holding only this export (a Cursor rule gets its front
    matter: always applied, described)."""
    if export.target != "cursor-rule":
        return export.block
    what = (
        f"Remembered preferences of {export.key} (agentmem)"
        if export.kind == "memory"
        else f"Team doctrine for scope {export.key} (agentmem)"
    )
    return f"---\ndescription: {what}\nglobs:\nalwaysApply: true\n---\n\n{export.block}"


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
    ctx = build_audit(load_rules(repo.root), scope, reader, repo.config, today(), "export")
    return doctrine_source_sha([(r.id, r.version) for r in ctx.applied])
