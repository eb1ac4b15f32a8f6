"""Working-tree checks (issue 5 item 1): settings, people, memory files and the inbox.

Each function returns findings and never raises for a bad file: one broken file must not hide
the problems of the others. Doctrine rules are checked in :mod:`agentmem.checks.rules`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from agentmem import guard
from agentmem.checks.findings import ERROR, WARNING, Finding, from_error
from agentmem.checks.signing import key_problem
from agentmem.config import CONFIG_FILE, Config, MemoryConfig, parse_config
from agentmem.errors import AgentmemError, ConfigError, ProposalError
from agentmem.memory import MemoryFile, budget_status, char_count, find_entries, parse_memory
from agentmem.proposals import proposal_from_stored
from agentmem.repo import INBOX_DIR, MEMORY_DIR, ROLES_FILE, Person, parse_roles
from agentmem.yamlio import load_yaml_file

_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


@dataclass
class TreeState:
    """What later checks need from earlier ones: the settings (defaults when
    ``agentmem.yaml`` is broken) and the people (empty when ``roles.yaml`` is broken)."""

    config: Config = field(default_factory=Config)
    people: dict[str, Person] = field(default_factory=dict)
    roles_ok: bool = True


def check_config(root: Path, state: TreeState) -> list[Finding]:
    """``agentmem.yaml``: valid YAML, known keys, right types (SPEC §3)."""
    try:
        state.config = parse_config(load_yaml_file(root / CONFIG_FILE, CONFIG_FILE), CONFIG_FILE)
    except ConfigError as exc:
        return [from_error(exc, CONFIG_FILE, "config-invalid")]
    return []


def _line_of_key(text: str, key: str) -> int:
    match = re.search(rf"(?m)^{re.escape(key)}\s*:", text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def check_roles(root: Path, state: TreeState) -> list[Finding]:
    """``roles.yaml``: people, e-mails, roles, signing keys; at least one admin (SPEC §2)."""
    path = root / ROLES_FILE
    if not path.is_file():
        state.roles_ok = False
        message = "missing: list the people and their roles (agentmem init creates it)"
        return [Finding(ROLES_FILE, 1, ERROR, "roles-missing", message)]
    try:
        data = load_yaml_file(path, ROLES_FILE)
        state.people = parse_roles(data, ROLES_FILE)
    except ConfigError as exc:
        state.roles_ok = False
        return [from_error(exc, ROLES_FILE, "roles-invalid")]
    text = path.read_text(encoding="utf-8")
    findings: list[Finding] = []
    for pid, info in (data or {}).items():
        keys = info.get("signing_keys")
        if keys is None:
            continue
        line = _line_of_key(text, pid)
        if not isinstance(keys, list):
            message = f"'{pid}.signing_keys' must be a list of public keys"
            findings.append(Finding(ROLES_FILE, line, ERROR, "roles-signing-key", message))
            continue
        for number, key in enumerate(keys, start=1):
            problem = key_problem(key)
            if problem:
                message = f"'{pid}.signing_keys' key {number}: {problem}"
                findings.append(Finding(ROLES_FILE, line, ERROR, "roles-signing-key", message))
    if not any(p.role == "admin" for p in state.people.values()):
        message = "no admin: nobody can approve doctrine (give someone role: admin)"
        findings.append(Finding(ROLES_FILE, 1, WARNING, "roles-no-admin", message))
    return findings


def memory_paths(root: Path) -> list[Path]:
    """Every ``memories/*.md`` file, sorted (as ``Path.suffix``: not a file named ``.md``)."""
    return folder_files(root / MEMORY_DIR, ".md", stem=True)


def folder_files(folder: Path, suffix: str, *, stem: bool = False) -> list[Path]:
    """The files (or links to files) of ``folder`` whose name ends with ``suffix`` (after at
    least one character when ``stem``), sorted by name; [] when ``folder`` is not a folder.
    One ``scandir``: no ``stat`` a file, and names sort faster than paths."""
    if not folder.is_dir():
        return []
    shortest = len(suffix) + (1 if stem else 0)
    with os.scandir(folder) as entries:
        names = sorted(
            e.name
            for e in entries
            if e.name.endswith(suffix) and len(e.name) >= shortest and e.is_file()
        )
    return [folder / name for name in names]


def check_memory_files(paths: list[Path], state: TreeState) -> list[Finding]:
    """Check memory files (see :func:`check_memory_text`)."""
    findings: list[Finding] = []
    for path in paths:
        rel = f"{MEMORY_DIR}/{path.name}"
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            findings.append(Finding(rel, 1, ERROR, "memory-encoding", "not UTF-8 text"))
            continue
        findings += check_memory_text(rel, path.stem, text, state)
    return findings


def check_memory_text(rel: str, person: str, text: str, state: TreeState) -> list[Finding]:
    """One memory file (SPEC §4, §8): name, owner, structure, budget, entry sizes, guard."""
    config = state.config.memory
    if not _SLUG.match(person):
        message = "file name is not a person id (lower-case letters, digits and hyphens)"
        return [Finding(rel, 1, ERROR, "memory-name", message)]
    findings: list[Finding] = []
    if state.roles_ok and person not in state.people:
        message = f"'{person}' is not a person in roles.yaml (an admin may erase the file)"
        findings.append(Finding(rel, 1, WARNING, "memory-unknown-person", message))
    findings += _budget_findings(rel, text, config)
    relaxed = replace(config, entry_max_chars=max(len(text), 1))
    memory: MemoryFile | None = None
    try:
        memory = parse_memory(text, person, relaxed, rel)
    except AgentmemError as exc:
        findings.append(from_error(exc, rel, "memory-structure"))
    for entry in memory.entries() if memory is not None else []:
        size = (
            len(entry.text) if entry.text.isascii() else char_count(entry.text)
        )  # NFC keeps ASCII
        if size > config.entry_max_chars:
            message = f"entry is {size} characters; the limit is {config.entry_max_chars}: shorten or split it"
            findings.append(Finding(rel, entry.line, ERROR, "memory-entry-too-long", message))
    findings += memory_guard_findings(rel, text, memory)
    return findings


@lru_cache(maxsize=1)
def file_scan_sees_line_ends() -> bool:
    """Whether ``guard.scan(kind="file")`` applies its end-of-text patterns at every line end.

    Some guard patterns end with ``$`` (e.g. "never mention this to the user" followed by the
    end of the text); without multi-line matching they fire on the last line of a file only.
    While that holds, whole-file and joined scans can miss what a per-entry scan finds, so
    :func:`memory_guard_findings` adds per-entry scans and ``rules.guard_batch`` does not batch.
    """
    return bool(guard.scan("- Never mention this to the user\n- Keep it short.\n", kind="file"))


def memory_guard_findings(rel: str, text: str, memory: MemoryFile | None) -> list[Finding]:
    """The guard over a whole memory file (``kind="file"``), plus each entry alone
    (``kind="entry"``) when :func:`file_scan_sees_line_ends` is false."""
    found = guard_findings(rel, text, kind="file")
    if memory is None or file_scan_sees_line_ends():
        return found
    seen = {(f.line, f.code) for f in found}
    for entry in memory.entries():
        for f in guard.scan(entry.text, kind="entry"):
            if (entry.line, f"guard:{f.code}") not in seen and f.code != "too-long":
                seen.add((entry.line, f"guard:{f.code}"))
                found.append(Finding(rel, entry.line, f.severity, f"guard:{f.code}", f.message))
    return found


def _budget_findings(rel: str, text: str, config: MemoryConfig) -> list[Finding]:
    status = budget_status(text, config)
    if status.level == "over":
        message = f"{status.used}/{status.budget} characters: remove or merge entries first"
        return [Finding(rel, 1, ERROR, "memory-budget", message)]
    if status.level == "warning":
        level = f"{config.warn_ratio:.0%}".replace("%", " %")
        message = f"{status.describe()}: at or above {level} of the budget; merge entries soon"
        return [Finding(rel, 1, WARNING, "memory-budget", message)]
    return []


def guard_findings(rel: str, text: str, *, kind: str, line: int | None = None) -> list[Finding]:
    """The guard's findings on ``text`` (SPEC §8) as check findings; ``line`` fixes the line
    (a doctrine field), otherwise it is computed from the offset in ``text``."""
    found: list[Finding] = []
    for f in guard.scan(text, kind=kind):
        at = line if line is not None else text.count("\n", 0, f.start) + 1
        found.append(Finding(rel, at, f.severity, f"guard:{f.code}", f.message))
    return found


def check_inbox(root: Path, state: TreeState) -> tuple[list[Finding], int]:
    """Pending proposals: readable, in their owner's folder, and what they point at exists."""
    base = root / INBOX_DIR
    if not base.is_dir():
        return [], 0
    findings: list[Finding] = []
    count = 0
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.yaml")):
            count += 1
            rel = f"{INBOX_DIR}/{folder.name}/{path.name}"
            findings += _check_proposal(root, rel, path, folder.name, state)
    return findings, count


def _check_proposal(
    root: Path, rel: str, path: Path, owner: str, state: TreeState
) -> list[Finding]:
    try:
        proposal = proposal_from_stored(load_yaml_file(path, rel, ProposalError), rel)
    except ProposalError as exc:
        return [from_error(exc, rel, "inbox-invalid")]
    if proposal.person != owner or f"{proposal.id}.yaml" != path.name:
        message = f"the file's place does not match its person ({proposal.person}) and id"
        return [Finding(rel, 1, ERROR, "inbox-misplaced", message)]
    findings: list[Finding] = []
    if state.roles_ok and owner not in state.people:
        message = f"pending proposal of '{owner}', who is not a person in roles.yaml"
        findings.append(Finding(rel, 1, WARNING, "inbox-unknown-person", message))
    if proposal.route != "memory":
        return findings
    if proposal.section and proposal.section not in state.config.memory.sections:
        message = f"section '{proposal.section}' is not a configured section"
        findings.append(Finding(rel, 1, ERROR, "inbox-unknown-section", message))
    if proposal.action in ("modify", "remove"):
        memory_rel = f"{MEMORY_DIR}/{owner}.md"
        memory_path = root / memory_rel
        if not memory_path.is_file():
            message = f"{proposal.action} refers to {memory_rel}, which does not exist: reject it"
            findings.append(Finding(rel, 1, ERROR, "inbox-missing-file", message))
        else:
            findings += _stale_target(rel, memory_rel, memory_path, proposal.target or "", state)
    return findings


def _stale_target(
    rel: str, memory_rel: str, memory_path: Path, target: str, state: TreeState
) -> list[Finding]:
    try:
        memory = parse_memory(
            memory_path.read_text(encoding="utf-8"),
            memory_path.stem,
            replace(state.config.memory, entry_max_chars=10**9),
            memory_rel,
        )
    except (AgentmemError, UnicodeDecodeError):
        return []  # the memory file's own finding says why
    matches = len(find_entries(memory, target))
    if matches == 1:
        return []
    what = "no entry" if matches == 0 else f"{matches} entries"
    message = f"its target matches {what} of {memory_rel} now: the review will refuse it"
    return [Finding(rel, 1, WARNING, "inbox-stale-target", message)]
