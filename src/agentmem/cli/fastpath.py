"""The hot path: ``context chat`` and the ``hook`` commands without typer's parser.

typer 0.29 builds a pydantic TypeAdapter for every non-boolean parameter it parses (the root
``--repo`` included), which imports pydantic: about 0.1–0.2 s that a SessionStart or SessionEnd
hook, and a prompt that calls ``context chat``, should not pay. :func:`run_fast` recognises the
few exact command lines of the hot path and runs the same functions as the typer commands; any
other line (``--help``, an unknown option, a typo) returns None and goes to typer, so usage
errors and help look the same as everywhere else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from agentmem.cli import output

_HOOKS = ("session-start", "session-end", "pre-compact")
_CHAT_OPTIONS = {"--person": "person", "-p": "person", "--format": "format", "-f": "format"}


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


def _plan(argv: list[str]) -> Callable[[], int] | None:
    args = list(argv)
    repo: str | None = None
    if args and args[0].startswith("--repo"):
        width = 1 if "=" in args[0] else 2
        options = _options(args[:width], {"--repo": "repo"})
        if options is None:
            return None
        repo, args = options["repo"], args[width:]
    run: Callable[[], int] | None = None
    if len(args) == 2 and args[0] == "hook" and args[1] in _HOOKS:
        name = args[1]
        run = lambda: _hook(name)  # noqa: E731
    elif args[:2] == ["context", "chat"]:
        options = _options(args[2:], _CHAT_OPTIONS)
        if options is None or options.get("format", "text") not in ("text", "markdown", "json"):
            return None
        run = lambda: _chat(options.get("person"), options.get("format", "text"))  # noqa: E731
    if run is None:
        return None
    if repo is not None:
        os.environ["AGENTMEM_REPO"] = repo  # what the root callback does with --repo
    return run


def _hook(name: str) -> int:
    from agentmem.cli.hook import run_queue_hook, run_session_start

    if name == "session-start":
        return run_session_start(sys.stdin)
    return run_queue_hook(sys.stdin, "SessionEnd" if name == "session-end" else "PreCompact")


def _chat(person: str | None, fmt: str) -> int:
    from agentmem.cli.context import run_chat

    run_chat(person, fmt)
    return 0


def run_fast(argv: list[str]) -> int | None:
    """Run a hot-path command line and return its exit code, or None to let typer parse it.

    Errors become exit codes exactly as in ``AgentmemGroup``: an ``AgentmemError`` prints
    ``error: …`` and exits with its code; anything else exits 3 (``AGENTMEM_DEBUG=1`` re-raises).
    """
    from agentmem.errors import AgentmemError

    plan = _plan(argv)
    if plan is None:
        return None
    try:
        return plan()
    except AgentmemError as exc:
        output.error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        output.error("interrupted")
        return 130
    except Exception as exc:
        if os.environ.get("AGENTMEM_DEBUG") == "1":
            raise
        output.error(
            f"unexpected error ({type(exc).__name__}: {exc}); rerun with AGENTMEM_DEBUG=1 "
            "to see the traceback, and report it"
        )
        return 3
