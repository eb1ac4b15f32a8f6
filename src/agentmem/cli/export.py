"""``agentmem export``: approved memory or active doctrine into CLAUDE.md, AGENTS.md, a Cursor
rule or Markdown, between markers (docs/design.md §Context)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import PersonOption, repository

app = typer.Typer()


class Target(StrEnum):
    """``--to``: which tool's file the block is written for."""

    claude_md = "claude-md"
    agents_md = "agents-md"
    cursor_rule = "cursor-rule"
    markdown = "markdown"


@app.command("export")
def export_command(
    to: Annotated[
        Target,
        typer.Option(
            "--to",
            help="claude-md (CLAUDE.md), agents-md (AGENTS.md for Codex, Gemini CLI and others), "
            "cursor-rule (.cursor/rules/*.mdc), markdown.",
            show_default=False,
        ),
    ],
    person: PersonOption = None,
    audit: Annotated[
        bool,
        typer.Option("--audit", help="Export the active doctrine of --scope instead of memory."),
    ] = False,
    scope: Annotated[
        str | None,
        typer.Option(help="With --audit: the scope, e.g. contracts/supply.", show_default=False),
    ] = None,
    output_file: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write into FILE, replacing only agentmem's block (default: print it).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Export your approved memory (or, with --audit --scope S, the active team doctrine) as a
    block between agentmem markers.

    Written into an existing file, only the block changes: what you wrote around it stays. One
    export never mixes personal memory and doctrine, and one file never holds both. 'agentmem
    check' warns when an exported block is older than the memory or doctrine it came from.
    """
    from agentmem.delivery.export import export_doctrine, export_memory, standalone, write_export
    from agentmem.errors import UsageError

    if audit and person:
        raise UsageError("--audit exports team doctrine; --person goes with a memory export")
    if audit and not scope:
        raise UsageError("--audit needs --scope S (the scope whose doctrine is exported)")
    if scope and not audit:
        raise UsageError(
            "--scope goes with --audit: personal memory has no scope",
            hint="agentmem export --to claude-md --audit --scope contracts/supply",
        )
    repo = repository()
    actor = repo.actor()
    if audit:
        assert scope is not None
        export = export_doctrine(repo, actor, scope, to.value)
    else:
        export = export_memory(repo, actor, person, to.value)
    if output_file is None:
        output.data(standalone(export).rstrip("\n"))
        return
    changed = write_export(repo, export, output_file)
    what = (
        f"{export.kind} of {export.key}" if export.kind == "memory" else f"doctrine of {export.key}"
    )
    if changed:
        output.info(f"{output.esc(output_file)}: agentmem block ({output.esc(what)}) written")
    else:
        output.info(f"{output.esc(output_file)}: already up to date ({output.esc(what)})")
