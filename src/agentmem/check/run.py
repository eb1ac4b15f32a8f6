"""``agentmem check``: the server-side check a memory repository's CI runs (docs/design/check.md §Check).

:func:`run_check` checks the working tree — ``agentmem.yaml``, ``roles.yaml``, every memory file,
every doctrine rule, the inbox — and, with ``history=True``, every commit (all, or
``since..HEAD``) against ``roles.yaml`` as it was at the commit's parent. It never stops at the
first bad file: it returns every :class:`Finding`. Errors fail the check; warnings alone do not.

What the working tree shows must be what history judges: a symlink or a non-regular file among
the watched paths, a ``.gitattributes`` conversion of one of them, or a tracked ``.agentmem/``
file is an error.

Modules: :mod:`.findings` (the finding shape), :mod:`.tree` (settings, people, memory, inbox),
:mod:`.rules` (doctrine files), :mod:`.canonical` (fast paths over the canonical rule layout),
:mod:`.files` (many files, in parallel), :mod:`.history` and :mod:`.gitread` (the walk), :mod:`.signing`
(signed activations).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from agentmem.check.findings import ERROR, WARNING, CheckReport, Finding

__all__ = ["ERROR", "WARNING", "CheckReport", "Finding", "run_check"]


def _interrupted_change(root: Path) -> list[Finding]:
    """A warning when an agentmem change was interrupted here (a crash journal waits): the
    check reads the files as they are and never recovers; the next writing command does."""
    # lazy: import agentmem.check.findings must not load the whole check: run_check loads it
    from agentmem.store import journal

    try:
        pending = journal.has_pending(root)
    except Exception:  # noqa: BLE001 - not a git work tree: the other checks say so
        return []
    if not pending:
        return []
    message = (
        "an agentmem change was interrupted in this clone: the files may show it half made; "
        "the next agentmem command (e.g. agentmem inbox) finishes or undoes it"
    )
    return [Finding(".git/agentmem/pending.json", 1, WARNING, "interrupted-change", message)]


def _stale_exports(root: Path) -> list[Finding]:
    """``export-stale`` warnings: exported blocks older than the memory or doctrine they came
    from (see :mod:`agentmem.delivery.export`)."""
    # lazy: import agentmem.check.findings must not load the whole check: run_check loads it
    from agentmem.delivery.export import stale_exports

    found = []
    for stale in stale_exports(root):
        if stale.kind == "memory":
            what = f"the memory of {stale.key} changed since this block was exported"
            again = f"agentmem export --person {stale.key}"
        else:
            what = f"the doctrine of scope {stale.key} changed since this block was exported"
            again = f"agentmem export --audit --scope {stale.key}"
        message = f"{what}; run '{again} --to … --output {stale.path}' again"
        found.append(Finding(stale.path, stale.line, WARNING, "export-stale", message))
    return found


def run_check(
    root: Path,
    *,
    history: bool = False,
    since: str | None = None,
    require_signed: bool | None = None,
    today: date | None = None,
    history_only: bool = False,
) -> CheckReport:
    """Check the repository at ``root``; ``today`` (default: the doctrine clock) dates review
    deadlines; ``require_signed`` True forces signatures on for every commit, else
    ``doctrine.require_signed`` at each commit's parent decides. ``history_only`` walks the
    history and skips the checked-out tree (``report.files`` stays 0): for a CI job that already
    ran the plain check (docs/design/check.md §Check).

    Raises :class:`~agentmem.errors.GitError` only when git itself fails during the walk.
    """
    report = CheckReport()
    if not history_only:
        _check_tree(root, report, today)
    if history or history_only:
        # lazy: import agentmem.check.findings must not load the whole check: run_check loads it
        from agentmem.check.history.walk import check_history

        # doctrine.* settings are read at each commit's parent; True here forces signatures on
        result = check_history(root, since=since, require_signed=bool(require_signed))
        report.findings += result.findings
        report.commits = result.commits
    return report


def _check_tree(root: Path, report: CheckReport, today: date | None) -> None:
    """The checks of the checked-out tree, appended to ``report``."""
    # lazy: import agentmem.check.findings must not load the whole check: run_check loads it
    from agentmem.check import files, tree
    from agentmem.config import CONFIG_FILE
    from agentmem.doctrine.model import today as doctrine_today
    from agentmem.store.repo import ROLES_FILE

    state = tree.TreeState()
    report.findings += tree.check_top_files(root)
    report.findings += tree.check_config(root, state)
    report.findings += tree.check_roles(root, state)
    found, checked = files.check_files(root, state, today or doctrine_today())
    report.findings += found
    found, inbox = tree.check_inbox(root, state)
    report.findings += found
    report.files = len(checked) + len(inbox) + 2
    watched = [CONFIG_FILE, ROLES_FILE, *checked, *inbox]
    report.findings += tree.check_attributes(root, watched)
    report.findings += tree.check_local_files(root)
    report.findings += _interrupted_change(root)
    report.findings += _stale_exports(root)
