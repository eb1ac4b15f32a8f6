"""The console entry point (``agentmem``, ``python -m agentmem``).

A few exact command lines are the hot path — ``hook session-start``, ``hook session-end``,
``hook pre-compact``, ``hook pre-tool-use`` and ``context chat [--person P] [--format F] [--scope S]``, each optionally after
``--repo PATH`` — and run here without importing ``agentmem.cli``: typer and rich are slow to import, and
typer 0.29 builds a pydantic adapter for every parameter it parses (``benchmarks/bench_hook.py``
has the figures). Claude Code gives a SessionEnd hook 1.5 s and runs SessionStart before every
session. Any other line (``--help``, an unknown option, a typo, every other command) goes to
:func:`agentmem.cli.main`, so help and usage errors look the same everywhere.

This module and :mod:`agentmem.delivery.fastpath` are the hot path's whole CLI layer: this is the one place
outside ``agentmem.cli.output`` that writes to the terminal, in plain text (``error: …``,
``warning: …``), with the exit codes of ``agentmem.errors.failure``, as ``agentmem.cli.tree.AgentmemGroup``.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable

from agentmem.errors import failure

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from agentmem.delivery.fastpath import Printed

_HOOKS = {
    "session-start": "SessionStart",
    "session-end": "SessionEnd",
    "pre-compact": "PreCompact",
    "pre-tool-use": "PreToolUse",
}
_CHAT_OPTIONS = {
    "--person": "person",
    "-p": "person",
    "--format": "format",
    "-f": "format",
    "--scope": "scope",
    "-s": "scope",
}
_FORMATS = ("text", "markdown", "json")


def _options(args: list[str], known: dict[str, str]) -> dict[str, str] | None:
    """``--opt VALUE`` / ``--opt=VALUE`` pairs, or None when anything else appears."""
    found: dict[str, str] = {}
    i = 0
    while i < len(args):
        name, sep, value = args[i].partition("=")
        if name not in known or (not sep and i + 1 >= len(args)):
            return None
        if not sep:
            value = args[i + 1]
            i += 1
        if not value or value.startswith("-"):
            return None
        found[known[name]] = value
        i += 1
    return found


#: Bytes of a hook's stdin read at most (a payload over 1 MB is refused whatever follows).
_STDIN_MAX_BYTES = 4_000_000


def _stdin() -> str | None:
    """The hook payload; None when stdin is a terminal (nobody will type JSON)."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return None
    raw = getattr(stream, "buffer", None)
    if raw is None:
        return stream.read()
    # bytes, decoded leniently (a binary payload is refused by the hook, never a traceback),
    # and no more than a payload could hold past its cap: a huge one is refused by its size
    data: bytes = raw.read(_STDIN_MAX_BYTES)
    return data.decode("utf-8", "replace")


def plan(argv: list[str]) -> Callable[[], Printed] | None:
    """The hot command an argument list asks for, or None for typer to parse it. Nothing is
    changed (not even ``$AGENTMEM_REPO``) unless a plan is returned."""
    args = list(argv)
    repo: str | None = None
    if args and args[0].startswith("--repo"):
        width = 1 if "=" in args[0] else 2
        given = _options(args[:width], {"--repo": "repo"})
        if given is None:
            return None
        repo, args = given["repo"], args[width:]
    run: Callable[[], Printed] | None = None
    hot = (len(args) == 2 and args[0] == "hook" and args[1] in _HOOKS) or args[:2] == [
        "context",
        "chat",
    ]
    if not hot:
        return None
    # lazy: hot lines only: every other command line goes to typer without loading it
    from agentmem.delivery import fastpath

    if len(args) == 2 and args[0] == "hook" and args[1] in _HOOKS:
        event = _HOOKS[args[1]]
        if event == "SessionStart":
            run = lambda: fastpath.session_start(_stdin())  # noqa: E731
        elif event == "PreToolUse":
            run = lambda: fastpath.pre_tool_use(_stdin())  # noqa: E731
        else:
            run = lambda: fastpath.queue_hook(_stdin(), event)  # noqa: E731
    elif args[:2] == ["context", "chat"]:
        options = _options(args[2:], _CHAT_OPTIONS)
        if options is None or options.get("format", "text") not in _FORMATS:
            return None
        person, fmt, scope = (
            options.get("person"),
            options.get("format", "text"),
            options.get("scope"),
        )
        run = lambda: fastpath.chat(person, fmt, scope)  # noqa: E731
    if run is None:
        return None
    if repo is not None:
        os.environ["AGENTMEM_REPO"] = repo  # what the root callback does with --repo
    return run


def emit(printed: Printed) -> None:
    """Write a :class:`Printed`: data on stdout, notes and warnings on stderr."""
    if printed.stdout:
        sys.stdout.write(printed.stdout + "\n")
        sys.stdout.flush()
    for note in printed.notes:
        sys.stderr.write(note + "\n")
    for warning in printed.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stderr.flush()


def run(argv: list[str]) -> int | None:
    """Run a hot command line; its exit code, or None when it is not one (typer takes it)."""

    todo = plan(argv)
    if todo is None:
        return None
    try:
        printed = todo()
    except BaseException as exc:
        mapped = failure(exc)
        if mapped is None or isinstance(exc, SystemExit):
            raise
        code, text = mapped
        if text:
            sys.stderr.write(f"error: {text}\n")
        return code
    emit(printed)
    return printed.code


def main() -> None:
    """Console-script entry point: the hot path here, everything else in ``agentmem.cli``.

    A hot command runs with the cyclic garbage collector off, to the end of the process: its
    full pass at exit over every object the imports made was ~4 % of a session start's
    instructions, and a process of a tenth of a second needs nothing back from it (the hot path
    closes its files itself: ``os.open`` / ``os.close``, ``with``). Any other line gets it back
    before typer loads (docs/design/code.md §Hot path). So with ``GIT_TERMINAL_PROMPT=0`` in
    the environment (unless the person set it), which a hot command's git processes inherit;
    any other line runs in the environment it was given."""
    collecting = gc.isenabled()
    gc.disable()
    # git never prompts (store/gitrun.py puts it in every git call's environment otherwise:
    # here git inherits it, no copy of the environment per call)
    added = "GIT_TERMINAL_PROMPT" not in os.environ
    if added:
        os.environ["GIT_TERMINAL_PROMPT"] = "0"
    code = run(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    if added:
        del os.environ["GIT_TERMINAL_PROMPT"]
    if collecting:
        gc.enable()
    # lazy: hot path: the console script never imports the CLI for a hook
    from agentmem.cli import main as cli_main

    cli_main()
