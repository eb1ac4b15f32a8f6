"""``agentmem hook session-start|session-end|pre-compact``: Claude Code hooks (issue 6).

Each reads the hook JSON on stdin. A hook must never break the person's session, so every
problem (malformed payload, no memory repository, unknown git identity, broken memory file) is a
one-line note on stderr and exit 0 — never exit 2, which would block a compaction.

The memory repository is ``--repo``/``$AGENTMEM_REPO``, else found upward from the payload's
``cwd``, else from the current folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

import typer

from agentmem.cli import output

app = typer.Typer(
    help="Claude Code hooks: each reads the hook's JSON on stdin and always exits 0.",
    no_args_is_help=True,
)


@app.command("session-start")
def session_start() -> None:
    """SessionStart: print your memory as a chat block (plain stdout, under 10,000 characters)."""
    raise typer.Exit(run_session_start(sys.stdin))


@app.command("session-end")
def session_end() -> None:
    """SessionEnd: queue the session for 'agentmem harvest --queue' and exit at once."""
    raise typer.Exit(run_queue_hook(sys.stdin, "SessionEnd"))


@app.command("pre-compact")
def pre_compact() -> None:
    """PreCompact: queue the session for 'agentmem harvest --queue' and exit at once."""
    raise typer.Exit(run_queue_hook(sys.stdin, "PreCompact"))


def _note(message: str) -> None:
    output.info(f"agentmem hook: {output.esc(message)}")


def _read_stdin(stream: TextIO) -> str | None:
    if stream is None or stream.isatty():
        return None
    return stream.read()


def _root(payload_cwd: str | None) -> Path:
    """The memory repository's root, without loading its settings (no YAML, no git)."""
    from agentmem.errors import NotARepositoryError
    from agentmem.repo import find_root

    explicit = os.environ.get("AGENTMEM_REPO")
    if explicit:
        root = find_root(Path(explicit))
        if root != Path(explicit).resolve():
            raise NotARepositoryError(f"not a memory repository: no agentmem.yaml in {explicit}")
        return root
    if payload_cwd and Path(payload_cwd).is_dir():
        try:
            return find_root(Path(payload_cwd))
        except NotARepositoryError:
            pass
    return find_root(Path.cwd())


def run_queue_hook(stream: TextIO, event: str) -> int:
    """SessionEnd / PreCompact: append the session to ``.agentmem/queue.jsonl``. Always 0."""
    from agentmem.errors import AgentmemError
    from agentmem.queue import enqueue, parse_payload

    text = _read_stdin(stream)
    if text is None:
        _note(f"{event} expects the hook JSON on stdin; nothing queued")
        return 0
    try:
        payload = parse_payload(text)
        entry = enqueue(_root(payload.cwd), payload)
    except (AgentmemError, OSError) as exc:
        _note(f"{exc}; nothing queued")
        return 0
    _note(f"session {entry.session_id} queued; run 'agentmem harvest --queue'")
    return 0


def run_session_start(stream: TextIO) -> int:
    """SessionStart: print the actor's chat block (at most 10,000 characters). Always 0.

    A malformed payload only loses its ``cwd``: the memory is still printed, found from the
    current folder. An empty memory prints nothing.
    """
    from agentmem.config import load_config
    from agentmem.context import HOOK_MAX_CHARS, build_chat, render_chat
    from agentmem.errors import AgentmemError
    from agentmem.queue import parse_payload
    from agentmem.repo import Repository

    text = _read_stdin(stream)
    cwd = None
    if text is not None:
        try:
            cwd = parse_payload(text).cwd
        except AgentmemError as exc:
            _note(f"{exc}; using the current folder")
    try:
        root = _root(cwd)
        repo = Repository(root, load_config(root))
        ctx = build_chat(repo, repo.actor().id)
    except AgentmemError as exc:
        _note(f"no memory given: {exc}")
        return 0
    if not ctx.entries:
        _note(f"{ctx.person} has no memory entries yet")
        return 0
    output.data(render_chat(ctx, "text", max_chars=HOOK_MAX_CHARS - 1))  # + the newline
    return 0
