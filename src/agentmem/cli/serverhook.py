"""``agentmem install-server-hook PATH`` (docs/design/check.md §Check): the server gate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(
    "install-server-hook", short_help="The server gate: a bare repository's pre-receive hook."
)
def install_server_hook(
    path: Annotated[
        Path, typer.Argument(help="The team's bare repository (the one people push to).")
    ],
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace a pre-receive hook agentmem did not write."),
    ] = False,
) -> None:
    """Install the server gate: a hooks/pre-receive in a bare repository that runs
    'agentmem check --pre-receive' on every push and refuses what was not approved (memory
    changed outside its owner's accept, doctrine activated by a non-admin or its proposer,
    erased history coming back, unsigned decisions where they are required).

    Examples:

    \b
      agentmem install-server-hook /srv/git/team-memory.git
      agentmem install-server-hook /srv/git/team-memory.git --force  # not ours

    GitLab and Gitea/Forgejo: see README "On the server"; GitHub: a required status check.
    """
    from agentmem.check.serverhook import install_server_hook as install

    done = install(path, force=force)
    was = {"agentmem": " (replaced agentmem's earlier hook)", "foreign": " (replaced: --force)"}
    output.data(f"installed {output.esc(str(done.path))}{was.get(done.replaced, '')}")
    output.info(f"every push to {output.esc(str(path))} now runs: {output.esc(done.command)}")
