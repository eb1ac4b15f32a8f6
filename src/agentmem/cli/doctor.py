"""``agentmem doctor``: check the set-up (repository, identity, hooks, MCP, provider, queue)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption
from agentmem.cli.output import Format

app = typer.Typer()


@app.command(short_help="Check the set-up: repository, identity, hooks, queue.")
def doctor(
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            metavar="PATH",
            help="The project your agent runs in (default: the current folder).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """Check that agentmem can give memory to your agent and take sessions back.

    Looks at the memory repository, your identity in roles.yaml, agentmem on PATH, the Claude
    Code hooks (.claude/settings.json) and MCP server (.mcp.json), the harvest provider and its
    key, and the harvest queue; says what to fix. Exit 1 when something is wrong.

    Examples:

    \b
      agentmem doctor
      agentmem doctor --project ~/code/app
      agentmem doctor --format json
    """
    from agentmem.delivery.doctor import FAIL, WARN, run_doctor

    checks = run_doctor(project)
    if fmt is Format.json:
        output.as_json(c.to_dict() for c in checks)
    else:
        marks = {"ok": "ok  ", WARN: "warn", FAIL: "FAIL"}
        for check in checks:
            output.data(f"{marks[check.status]}  {check.name}: {check.message}")
            if check.fix:
                output.data(f"      fix: {check.fix}")
    failed = [c for c in checks if c.status == FAIL]
    if fmt is Format.text:
        if failed:
            output.error(f"{len(failed)} problem(s) to fix")
        else:
            warned = len([c for c in checks if c.status == WARN])
            output.info(
                "agentmem doctor: the set-up works"
                + (f" ({warned} thing(s) to look at)" if warned else "")
            )
    if failed:
        raise typer.Exit(1)
