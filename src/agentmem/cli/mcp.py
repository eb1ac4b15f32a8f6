"""``agentmem mcp``: the stdio MCP server (docs/design/context.md §Context)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

app = typer.Typer()


@app.command()
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
) -> None:
    """Run the MCP server on stdin/stdout (for 'claude mcp add agentmem -- agentmem mcp').

    Tools: remember (a pending memory proposal, committed at once), propose_rule (a doctrine
    draft), show_memory (your chat context). No tool can approve, activate or write memory:
    you review everything with 'agentmem review' and 'agentmem doctrine'.

    Examples:

    \b
      claude mcp add agentmem -- agentmem mcp
      agentmem mcp --scope contracts/supply
    """
    from agentmem.delivery.mcp_start import serve_stdio, session_scope
    from agentmem.errors import require_extra

    require_extra("mcp")  # before anything is answered: without the SDK nothing can be served

    session = session_scope(scope)  # a bad --scope is a usage error before anything is served

    def start() -> Callable[[], None]:
        from agentmem.delivery.mcp_server import build_server

        server = build_server(session)
        return lambda: server.run("stdio")

    serve_stdio(start)
