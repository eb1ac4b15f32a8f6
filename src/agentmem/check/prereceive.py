"""The server gate (docs/design/check.md §Check, §Trust boundary): ``agentmem check --pre-receive``.

Git runs a repository's ``hooks/pre-receive`` once per push, before any ref moves, with one
``<old> <new> <ref>`` line per updated ref on stdin; the pushed objects are readable (git's
quarantine, inherited by the processes the hook starts) and a non-zero exit refuses the whole
push. Each updated ref is judged by the history walk of ``check --history``
(:func:`agentmem.check.history.walk.check_history` with ``tip`` the pushed commit) over only
what the push adds, the walk starting where :func:`agentmem.check.history.start.walk_start`
says (before ``old`` when a relaxation no second admin approved of a setting the judge applies
may lie behind it: the judge holds such a relaxation only when it walks the relaxing commit;
then only the findings about the pushed commits are kept):

- an update: ``old..new`` (``--since old``; a forced push's commits that do not descend from
  ``old`` are judged as ``--since`` judges a branch beside it);
- a new ref (``old`` all zeros): the commits no ref of the server reaches yet, from their
  merge base with the server's default branch (all of them when there is none: a first push);
- a deletion (``new`` all zeros): nothing to judge.

Every judge of the walk applies: memory changed by someone other than its owner outside an
accept, doctrine activated by a non-admin or by its proposer, roles and settings changed by a
non-admin, a commit of a history ``agentmem erase`` rewrote or a value it erased coming back
(the erasure record at the server's HEAD, the ref's old value and the pushed tip all count), an
unsigned decision where ``signing.decisions: required``. No second judge lives here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agentmem.check.findings import Finding
from agentmem.check.history.start import judge_range
from agentmem.errors import UsageError
from agentmem.store.gitio import run_git

__all__ = ["PushedRef", "RefVerdict", "judge_push", "parse_updates"]

_HEX = frozenset("0123456789abcdef")
MAX_LINES = 10_000
"""More updated refs than this in one push is refused as a usage error (git sends one line per
ref; a mirror push of a large repository stays far below)."""


@dataclass(frozen=True)
class PushedRef:
    """One line git gives a pre-receive hook."""

    old: str
    new: str
    ref: str

    @property
    def created(self) -> bool:
        return set(self.old) == {"0"}

    @property
    def deleted(self) -> bool:
        return set(self.new) == {"0"}


@dataclass
class RefVerdict:
    """What the gate found on one ref: ``commits`` judged, ``findings`` (errors refuse)."""

    ref: PushedRef
    commits: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return any(f.is_error for f in self.findings)


def parse_updates(lines: Iterable[str]) -> list[PushedRef]:
    """The ``<old> <new> <ref>`` lines of a pre-receive hook's stdin (blank lines skipped).
    Raises :class:`UsageError` on a line of another shape, naming its number."""
    found: list[PushedRef] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if number > MAX_LINES:
            raise UsageError(f"--pre-receive: more than {MAX_LINES} updated refs in one push")
        parts = line.split()
        good = len(parts) == 3 and all(len(p) in (40, 64) and set(p) <= _HEX for p in parts[:2])
        if not good or not parts[2].startswith("refs/"):
            raise UsageError(
                f"--pre-receive: line {number} is not '<old> <new> <ref>'",
                hint="git gives a pre-receive hook these lines on stdin: install the hook with "
                "agentmem install-server-hook PATH",
            )
        found.append(PushedRef(parts[0], parts[1], parts[2]))
    return found


def _default_tip(root: Path) -> str | None:
    proc = run_git(root, ["rev-parse", "-q", "--verify", "HEAD^{commit}"], check=False)
    return proc.stdout.strip() or None


def _base_of_new_ref(root: Path, new: str) -> tuple[str | None, bool]:
    """``(since, anything new)`` for a ref the server does not have yet: the merge base of
    ``new`` with the server's default branch (None: no common history, or none yet), and
    whether ``new`` brings a commit no ref of the server reaches."""
    fresh = run_git(root, ["rev-list", "--max-count=1", new, "--not", "--all"]).stdout.strip()
    if not fresh:
        return None, False
    tip = _default_tip(root)
    if tip is None:
        return None, True
    proc = run_git(root, ["merge-base", tip, new], check=False)
    return (proc.stdout.strip() or None), True


def judge_push(root: Path, updates: Iterable[PushedRef]) -> list[RefVerdict]:
    """One :class:`RefVerdict` per updated ref (module docstring). Raises
    :class:`~agentmem.errors.GitError` when git fails."""
    verdicts: list[RefVerdict] = []
    for update in updates:
        verdict = RefVerdict(update)
        verdicts.append(verdict)
        if update.deleted:
            continue
        if update.created:
            since, fresh = _base_of_new_ref(root, update.new)
            if not fresh:
                continue  # the ref names a commit the server already holds on another ref
        else:
            since = update.old
        result = judge_range(root, since, update.new)
        verdict.commits = result.commits
        verdict.findings = result.findings
    return verdicts
