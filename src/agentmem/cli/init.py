"""``agentmem init [PATH]`` (docs/design/overview.md §Repository layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(short_help="Create a memory repository (safe to run again).")
def init(
    path: Annotated[
        Path, typer.Argument(help="Folder to make a memory repository (default: here).")
    ] = Path("."),
) -> None:
    """Create a memory repository: agentmem.yaml, roles.yaml, memories/, doctrine/, inbox/.

    Runs 'git init' where needed and commits what it created. Safe to run again: existing files
    are kept. The git identity running it becomes the first admin in roles.yaml.

    Examples:

    \b
      agentmem init                      # here (git init is done if needed)
      agentmem init ~/team-memory
    """
    from agentmem.store.init import init_repository

    result = init_repository(path)
    if result.git_initialised:
        output.info(f"initialised a git repository in {output.esc(result.root)}")
    if not result.created:
        output.info(f"{output.esc(result.root)} is already a memory repository; nothing to do")
        return
    for rel in result.created:
        output.info(f"  created {output.esc(rel)}")
    if result.admin:
        output.info(f"you are '{result.admin}' (admin) in roles.yaml")
    output.info(f"memory repository ready in {output.esc(result.root)}")
