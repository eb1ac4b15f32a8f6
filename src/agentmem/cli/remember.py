"""``agentmem remember TEXT`` (docs/design.md §Commands)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import repository

app = typer.Typer()


@app.command()
def remember(
    text: Annotated[str, typer.Argument(help="The entry, one line.", show_default=False)],
    section: Annotated[
        str | None,
        typer.Option(
            "--section",
            "-s",
            help="Section (default: the first configured one).",
            show_default=False,
        ),
    ] = None,
    session: Annotated[str, typer.Option(help="Session id to record with it.")] = "manual",
) -> None:
    """Mid-session: put one 'add' proposal in your inbox and commit it at once.

    Nothing reaches your memory until you accept it with 'agentmem review'.
    """
    from agentmem.api import Agentmem

    proposal = Agentmem(repository()).remember_proposal(text, section=section, session=session)
    output.data(f"{proposal.id}  {proposal.summary()}")
    output.info("pending in your inbox; accept it with [bold]agentmem review[/]")
