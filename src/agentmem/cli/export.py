"""``agentmem export``: approved memory or active doctrine into CLAUDE.md, AGENTS.md, a Cursor
rule or Markdown, between markers (docs/design/context.md §Context)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import PersonOption, repository

if TYPE_CHECKING:
    from agentmem.delivery.export import Export
    from agentmem.store.repo import Repository

app = typer.Typer()


class Target(StrEnum):
    """``--to``: which tool's file the block is written for."""

    claude_md = "claude-md"
    agents_md = "agents-md"
    cursor_rule = "cursor-rule"
    markdown = "markdown"


@app.command("export", short_help="Write memory or doctrine into CLAUDE.md, AGENTS.md.")
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
        typer.Option(
            help="The scope, e.g. contracts/supply: with --audit, the doctrine of that scope; "
            "else the memory a session of that scope gets (default: the project's scope from "
            "the scopes: map, and a rule per scope of its sub-folders).",
            show_default=False,
        ),
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

    Written into an existing file, only the block changes: what you wrote around it stays. The
    memory block holds what a session started in the project gets (its scope from the scopes:
    map); entries scoped to a folder inside it go to a Claude Code rule
    (.claude/rules/agentmem/…, paths:) or a Cursor rule (globs:) of their own, and any entry
    left out is named with what gives it. One export never mixes personal memory and
    doctrine, and one file never holds both. 'agentmem check' warns when an exported block is
    older than the memory or doctrine it came from.

    Examples:

    \b
      agentmem export --to claude-md -o CLAUDE.md
      agentmem export --to agents-md -o AGENTS.md
      agentmem export --audit --scope contracts/supply --to markdown
    """
    from agentmem.delivery.export import (
        drop_block,
        export_doctrine,
        plan_memory,
        project_of,
        standalone,
    )
    from agentmem.errors import UsageError

    if audit and person:
        raise UsageError("--audit exports team doctrine; --person goes with a memory export")
    if audit and not scope:
        raise UsageError("--audit needs --scope S (the scope whose doctrine is exported)")
    repo = repository()
    actor = repo.actor()
    if audit:
        assert scope is not None
        exports = [(output_file, export_doctrine(repo, actor, scope, to.value))]
        plan = None
    else:
        project = project_of(to.value, output_file)
        plan = plan_memory(
            repo, actor, person, to.value, scope=scope, project=project,
            writing=output_file is not None,
        )  # fmt: skip
        exports = [(output_file, plan.main), *plan.rules]
    if output_file is None:
        output.data(standalone(exports[0][1]).rstrip("\n"))
    else:
        for path, export in exports:
            assert path is not None
            _write(repo, export, path)
        for path in plan.stale if plan else ():
            gone = drop_block(path, "memory", exports[0][1].key)
            done = "deleted" if gone else "its agentmem block removed"
            output.info(f"{output.esc(path)}: {done} (no entry of that scope to export now)")
    for line in plan.left_out if plan else ():
        output.warn(output.esc(line))


def _write(repo: Repository, export: Export, path: Path) -> None:
    """Write one export into ``path`` and say what happened."""
    from agentmem.delivery.export import write_export

    changed = write_export(repo, export, path)
    what = f"memory of {export.key}" if export.kind == "memory" else f"doctrine of {export.key}"
    if export.scope:
        what += f", scope {export.scope} for {', '.join(export.globs)}"
    if changed:
        output.info(f"{output.esc(path)}: agentmem block ({output.esc(what)}) written")
    else:
        output.info(f"{output.esc(path)}: already up to date ({output.esc(what)})")
