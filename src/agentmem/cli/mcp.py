"""``agentmem mcp``: the stdio MCP server (docs/design/context.md §Context)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated

import typer

app = typer.Typer()


class ServerFor(StrEnum):
    """``--for``: what the server's agent does (the two memories never meet)."""

    chat = "chat"
    audit = "audit"


@app.command(short_help="Run the MCP server on stdin/stdout.")
def mcp(
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            "-s",
            help="Scope of this session: given to rules proposed with propose_rule (default: $AGENTMEM_SCOPE, else to be assigned).",
            show_default=False,
        ),
    ] = None,
    mode: Annotated[
        ServerFor,
        typer.Option(
            "--for",
            help="chat: your personal memory, never doctrine; audit: the team doctrine as "
            "served to audits, never personal memory.",
        ),
    ] = ServerFor.chat,
) -> None:
    """Run the MCP server on stdin/stdout (for 'claude mcp add agentmem -- agentmem mcp').

    For a chat (the default), tools: remember (a pending memory proposal, committed at once),
    propose_rule (a doctrine draft), show_memory (your chat context), search (memory, inbox,
    history), list_inbox, forget and replace. For an audit (--for audit): audit_context (the
    doctrine of a scope), list_rules, search_rules, propose_rule; no personal memory. No tool
    can approve, activate or write memory: you review everything with 'agentmem review' and
    'agentmem doctrine'.

    Examples:

    \b
      claude mcp add agentmem -- agentmem mcp
      agentmem mcp --scope contracts/supply
      agentmem mcp --for audit --scope contracts/supply
    """
    from agentmem.delivery.mcp_start import serve_stdio, session_scope
    from agentmem.errors import require_extra

    require_extra("mcp")  # before anything is answered: without the SDK nothing can be served

    session = session_scope(scope)  # a bad --scope is a usage error before anything is served

    def start() -> Callable[[], None]:
        from agentmem.delivery.mcp_server import build_server

        server = build_server(session, mode.value)
        return lambda: server.run("stdio")

    serve_stdio(start, mode.value)
