"""``agentmem hook session-start|session-end|pre-compact|pre-tool-use``: Claude Code hooks
(docs/design/code.md §Hot path).

Each reads the hook JSON on stdin and always exits 0: a hook must never break the person's
session (exit 2 would block a compaction). The work is in :mod:`agentmem.delivery.fastpath`; the
``agentmem`` console script runs these exact lines through :mod:`agentmem.entry` without typer.
"""

from __future__ import annotations

import sys

import typer

from agentmem.cli import output

app = typer.Typer(
    short_help="Claude Code hooks (session start and end, pre-compact).",
    help="Claude Code hooks: each reads the hook's JSON on stdin and always exits 0.\n\nExamples:\n\n\b\n"
    "  agentmem hook session-start < payload.json\n  agentmem hook session-end < payload.json\n",
    no_args_is_help=True,
)


def _stdin() -> str | None:
    return None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()


def show(printed: object) -> None:
    """Print a :class:`agentmem.delivery.fastpath.Printed` through the one output module."""
    from agentmem.delivery.fastpath import Printed

    assert isinstance(printed, Printed)
    if printed.stdout:
        output.data(printed.stdout)
    for note in printed.notes:
        output.info(output.esc(note))
    for warning in printed.warnings:
        output.warn(output.esc(warning))


@app.command("session-start")
def session_start() -> None:
    """SessionStart: print your memory as a chat block (plain stdout, under 10,000 characters)."""
    from agentmem.delivery.fastpath import session_start as run

    show(run(_stdin()))


@app.command("session-end")
def session_end() -> None:
    """SessionEnd: queue the session for 'agentmem harvest --queue' and exit at once."""
    from agentmem.delivery.fastpath import queue_hook

    show(queue_hook(_stdin(), "SessionEnd"))


@app.command("pre-compact")
def pre_compact() -> None:
    """PreCompact: queue the session for 'agentmem harvest --queue' and exit at once."""
    from agentmem.delivery.fastpath import queue_hook

    show(queue_hook(_stdin(), "PreCompact"))


@app.command("pre-tool-use")
def pre_tool_use() -> None:
    """PreToolUse (Bash, Edit, Write, MultiEdit, NotebookEdit): deny the agent's own decisions.

    review with any option but --reject/--dry-run, doctrine approve/suspend/resume/deactivate/
    archive/reconfirm, memory edit/reconfirm, scope retire, settings approve and erase are the
    person's, and only agentmem writes doctrine/, memories/, inbox/, roles.yaml,
    erasures.yaml and .agentmem/: the hook answers with permissionDecision "deny" and a reason
    naming what to do instead. Any other call: no output, the call goes on.
    """
    from agentmem.delivery.fastpath import pre_tool_use as run

    show(run(_stdin()))
