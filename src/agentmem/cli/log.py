"""``agentmem log`` (SPEC §6, §9)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command()
def log(
    person: Annotated[
        str | None,
        typer.Option(
            "--person", "-p", help="Only this person's memory and inbox.", show_default=False
        ),
    ] = None,
    rule: Annotated[
        str | None, typer.Option("--rule", help="Only this doctrine rule.", show_default=False)
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """The audit history: every agentmem commit with who, when, what and why."""
    from agentmem.audit import audit_log
    from agentmem.errors import UsageError

    if person and rule:
        raise UsageError("give --person or --rule, not both")
    records = audit_log(repository(), person=person, rule=rule)
    if fmt is Format.json:
        output.as_json(r.to_dict() for r in records)
        return
    if not records:
        output.data("no audit commits yet")
        return
    for r in records:
        who = r.actor or r.author
        output.data(f"{r.commit[:10]}  {r.date[:10]}  {who}  {r.subject}")
        if r.justification:
            output.data(f"            why: {r.justification}")
