"""``agentmem serve`` (docs/design/web.md §Web): the review pages in a browser, for the people who
never open a terminal."""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(short_help="The review pages in your browser (127.0.0.1).")
def serve(
    port: Annotated[
        int,
        typer.Option(
            "--port", min=0, max=65535, help="The port (0: any free one).", show_default=True
        ),
    ] = 8765,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            help="Listen on another address than 127.0.0.1 (anyone who can reach it and has "
            "the link decides as you: a warning is printed).",
            show_default=False,
        ),
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the first page in your web browser.")
    ] = False,
) -> None:
    """Serve the review pages on this machine: your inbox with word-level diffs, what the memory
    knows about you, team doctrine with the admins' "to review" queue, audits and search.

    Every decision is taken as your git identity, through the same functions and with the same
    commits as the command line. The page listens on 127.0.0.1 only and needs the link printed at
    start (it carries a random token, like Jupyter); forms carry a CSRF token; the pages run no
    script and load nothing from elsewhere (they work offline). Ctrl-C stops it.

    Examples:

    \b
      agentmem serve --open               # opens the first page in your browser
      agentmem serve --port 0             # any free port; the link is printed
      agentmem --repo ~/team-memory serve
    """
    import webbrowser

    from agentmem.cli.common import repository

    repo = repository()
    actor = repo.actor()  # a clone whose identity is no person in roles.yaml: refused here
    bind = host or "127.0.0.1"
    from agentmem.errors import require_extra

    require_extra("serve")  # starlette, uvicorn and Jinja2: a one-line error if left out
    # lazy: starlette, uvicorn and Jinja2 only for this command
    from agentmem.web.server import is_loopback, prepare, run

    if not is_loopback(bind):
        output.warn(
            f"listening on {output.esc(bind)}, not only on this machine: anyone who can reach it "
            f"and has the link decides as {actor.id}"
        )
    sock, _keys, application, url = prepare(repo.root, bind, port)
    output.info(f"agentmem serve: the review pages of {repo.root} as {actor.id} ({actor.role})")
    output.data(url)
    output.info("open that link (it carries this run's token); Ctrl-C stops the server")

    def opened() -> None:
        webbrowser.open(url)

    with suppress(KeyboardInterrupt):
        run(sock, application, opened if open_browser else None)
    output.info("agentmem serve: stopped")
