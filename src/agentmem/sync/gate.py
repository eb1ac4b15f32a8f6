"""What ``agentmem sync`` checks before it publishes anything (docs/design/sync.md §Sync).

A replay gives local commits new parents: an approval made while its author was admin may land
on a ``roles.yaml`` that demoted them, and two entries each accepted under the memory budget may
merge into a file over it. Before the branch moves or anything is pushed, the candidate head is
checked with the rules the team's CI applies:

- every commit of ``base..head`` with :func:`agentmem.check.history.walk.check_history` (roles at
  each commit's new parent; ``doctrine.require_signed``/``distinct_approver`` as configured at
  ``head``; the erasure record ``erasures.yaml`` as ``head`` and the walk hold it: a commit of a
  history ``agentmem erase`` rewrote, or one holding a value it erased, is refused);
- every memory file that differs between ``base`` and ``head`` with the working-tree check's
  memory-file code (:func:`agentmem.check.tree.check_memory_text`: budget, structure, entry
  sizes, guard), with ``agentmem.yaml`` and ``roles.yaml`` as they are at ``head``.

``base`` is the remote head the commits go on top of (None: the remote branch is empty, every
commit is checked). Errors refuse the sync; warnings are shown and do not.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from agentmem.check.findings import ERROR, Finding
from agentmem.check.history.erasures import CODE_COMMIT as ERASED_COMMIT
from agentmem.check.history.erasures import CODE_VALUE as ERASED_VALUE
from agentmem.check.history.walk import check_history
from agentmem.check.tree import TreeState, check_memory_text
from agentmem.config import CONFIG_FILE, Config, parse_config
from agentmem.errors import AgentmemError
from agentmem.memory.file import budget_status
from agentmem.store import gitio
from agentmem.store.repo import MEMORY_DIR, ROLES_FILE, parse_roles
from agentmem.store.yamlio import load_yaml_text

_MEMORY_FILE = re.compile(rf"^{MEMORY_DIR}/([^/]+)\.md$")
_FILE_MODES = (b"100644", b"100755")  # not a deletion (000000), a link or a submodule


class SyncRefusedError(AgentmemError):
    """What a sync would publish fails the team's check: nothing pushed, the branch untouched.
    ``findings`` holds the errors (commits named by their local ids)."""

    def __init__(self, message: str, *, hint: str, findings: list[Finding]) -> None:
        super().__init__(message, hint=hint)
        self.findings = findings


def verify(
    root: Path, where: str, base: str | None, head: str, origin: dict[str, str]
) -> list[Finding]:
    """The warnings of publishing ``head`` on top of ``base`` (the head of ``where``, e.g.
    ``origin/main``); ``origin`` maps replayed commits to their local originals. Raises
    :class:`SyncRefusedError` on any error, :class:`~agentmem.errors.GitError` when git fails."""
    findings = [as_local(f, origin) for f in check_candidate(root, base, head)]
    errors = [f for f in findings if f.is_error]
    if errors:
        message, hint = refusal(root, where, head, errors)
        raise SyncRefusedError(message, hint=hint, findings=errors)
    return findings


def check_candidate(root: Path, base: str | None, head: str) -> list[Finding]:
    """The findings of publishing ``head`` on top of ``base`` (module docstring): history
    findings (with ``commit``) first, then memory-file findings. Raises
    :class:`~agentmem.errors.GitError` when git fails (or, with ``base`` None, on a shallow
    clone)."""
    state = TreeState(config=_config_at(root, head))
    try:
        state.people = parse_roles(
            load_yaml_text(gitio.show_file(root, head, ROLES_FILE) or "", ROLES_FILE), ROLES_FILE
        )
    except AgentmemError:
        state.roles_ok = False
    return _history(root, base, head, state.config) + _memory(root, base, head, state)


def over_by(root: Path, head: str, path: str) -> int:
    """How many characters ``path`` at ``head`` holds beyond ``memory.budget_chars`` (0: none)."""
    text = gitio.show_file(root, head, path) or ""
    status = budget_status(text, _config_at(root, head).memory)
    return max(0, status.used - status.budget)


def _config_at(root: Path, head: str) -> Config:
    """``agentmem.yaml`` at ``head``; the defaults when it is unreadable (the CI reports that)."""
    try:
        text = gitio.show_file(root, head, CONFIG_FILE) or ""
        return parse_config(load_yaml_text(text, CONFIG_FILE), CONFIG_FILE)
    except AgentmemError:
        return Config()


def _history(root: Path, base: str | None, head: str, config: Config) -> list[Finding]:
    def run(where: Path) -> list[Finding]:
        return check_history(
            where,
            since=base,
            require_signed=config.doctrine.require_signed,
            distinct_approver=config.doctrine.distinct_approver,
        ).findings

    if gitio.head(root) == head:
        return run(root)
    with _detached(root, head) as where:
        return run(where)


@contextmanager
def _detached(root: Path, head: str) -> Iterator[Path]:
    """A worktree of this repository with HEAD detached at ``head`` and nothing checked out:
    history reads see ``head`` as HEAD, the person's branch and files are not touched."""
    where = Path(tempfile.mkdtemp(prefix="agentmem-sync-"))
    try:
        gitio.run_git(
            root, ["worktree", "add", "-q", "--detach", "--no-checkout", str(where), head]
        )
        yield where
    finally:
        removed = gitio.run_git(
            root, ["worktree", "remove", "--force", str(where)], check=False
        ).returncode
        if removed != 0:
            shutil.rmtree(where, ignore_errors=True)
            gitio.run_git(root, ["worktree", "prune"], check=False)


def _memory(root: Path, base: str | None, head: str, state: TreeState) -> list[Finding]:
    findings: list[Finding] = []
    for path, oid in _changed_memory_files(root, base, head):
        data = gitio.run_git_bytes(root, ["cat-file", "blob", oid])
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            findings.append(Finding(path, 1, ERROR, "memory-encoding", "not UTF-8 text"))
            continue
        person = _MEMORY_FILE.match(path).group(1)  # type: ignore[union-attr]
        findings += check_memory_text(path, person, text, state)
    return findings


def _changed_memory_files(root: Path, base: str | None, head: str) -> list[tuple[str, str]]:
    """``(path, blob id)`` of the ``memories/<name>.md`` files at ``head`` that differ from
    ``base`` (all of them when ``base`` is None)."""
    if base is None:
        out = gitio.run_git_bytes(root, ["ls-tree", "-z", head, "--", f"{MEMORY_DIR}/"])
        records = [r for r in out.split(b"\0") if r]
        listed = [(r.partition(b"\t")[2], r.partition(b"\t")[0].split(b" ")) for r in records]
        return [
            (name.decode("utf-8", "surrogateescape"), meta[2].decode())
            for name, meta in listed
            if meta[0] in _FILE_MODES and _is_memory_name(name)
        ]
    out = gitio.run_git_bytes(
        root, ["diff-tree", "-r", "-z", "--no-renames", base, head, "--", f"{MEMORY_DIR}/"]
    )
    tokens = out.split(b"\0")
    found: list[tuple[str, str]] = []
    for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
        fields = meta.decode().split()  # :old_mode new_mode old_oid new_oid status
        if len(fields) == 5 and fields[1].encode() in _FILE_MODES and _is_memory_name(name):
            found.append((name.decode("utf-8", "surrogateescape"), fields[3]))
    return found


def _is_memory_name(name: bytes) -> bool:
    return bool(_MEMORY_FILE.match(name.decode("utf-8", "surrogateescape")))


def refusal(root: Path, where: str, head: str, errors: list[Finding]) -> tuple[str, str]:
    """``(message, hint)`` for a sync of ``head`` onto ``where`` (``origin/main``) refused for
    ``errors`` (commits already named by their local ids, see :func:`as_local`): one line per
    error, and what to do — drop the commits no longer allowed (the git command, newest first),
    or trim the memory file by the characters it is over."""
    lines = "".join(f"\n  {f.path}:{f.line}: {f.message} [{f.code}]" for f in errors)
    message = (
        f"sync refused: on top of {where}, your commits would fail the team's check "
        f"(agentmem check); nothing was pushed and this branch is as it was:{lines}"
    )
    hints: list[str] = []
    if any(f.code == ERASED_COMMIT for f in errors):
        hints.append(
            "this clone holds history that agentmem erase rewrote (see erasures.yaml): set aside "
            "what you have not pushed, delete this clone, clone the repository again and redo "
            "your work there"
        )
        errors = [f for f in errors if f.code != ERASED_COMMIT and f.code != ERASED_VALUE]
    commits = list(dict.fromkeys(f.commit[:10] for f in errors if f.commit))
    if commits:
        drop = " && ".join(f"git rebase --onto {c}^ {c}" for c in reversed(commits))
        what = (
            f"commit {commits[0]} is" if len(commits) == 1 else f"commits {', '.join(commits)} are"
        )
        them = "it" if len(commits) == 1 else "them"
        hints.append(
            f"{what} not allowed there: drop {them}, keeping your other commits, with: {drop} "
            "(someone who may make that change, an admin for doctrine and roles, can redo it)"
        )
    for path in dict.fromkeys(f.path for f in errors if not f.commit):
        excess = over_by(root, head, path) if _MEMORY_FILE.match(path) else 0
        if excess:
            hints.append(
                f"remove or merge entries of {path} (at least {excess} characters) with "
                "agentmem memory edit"
            )
        else:
            hints.append(f"fix {path} with agentmem memory edit")
    return message, "; ".join(hints) + "; then run agentmem sync again"


def as_local(finding: Finding, origin: dict[str, str]) -> Finding:
    """``finding`` naming the local commit a replayed one was made from (``origin``: replayed
    id → local id; a commit absent from it is already local)."""
    if finding.commit is None or finding.commit not in origin:
        return finding
    local = origin[finding.commit]
    message = finding.message.replace(finding.commit[:10], local[:10])
    return replace(finding, commit=local, message=message)
