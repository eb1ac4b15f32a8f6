"""``agentmem import PATH…``: memory and instruction files people already wrote, as proposals."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.harvest.imports import FileResult

app = typer.Typer()


@app.command("import")
def import_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders: a Claude Code memory folder, CLAUDE.md, AGENTS.md, "
            ".claude/rules, .cursorrules, .cursor/rules, .clinerules, memory-bank, memories.json.",
            show_default=False,
        ),
    ],
    person: PersonOption = None,
    scope: Annotated[
        str | None,
        typer.Option(
            help="Scope recorded with the proposals (e.g. contracts/supply).", show_default=False
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show what would be proposed; write and commit nothing."),
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--again", help="Read a file again although it was imported unchanged before."
        ),
    ] = False,
    fmt: FormatOption = Format.text,
) -> None:
    """Turn what you already wrote for your agents into proposals in your inbox.

    Each list item or paragraph of an instruction file, each auto-memory topic and each
    Claude.ai memory becomes one 'add' proposal (basis declared, its file and line in the
    justification), checked like a harvest's (guard, duplicates, budget). One commit per file;
    a binary, unreadable, too large or half-written file is skipped with its reason and the
    others go on (exit 1 at the end, as when every item was refused and nothing was filed).
    Nothing reaches your memory before 'agentmem review'.
    """
    from agentmem.governance import require_owner
    from agentmem.harvest.imports import import_files

    repo = repository()
    actor = repo.actor()
    require_owner(actor, person or actor.id, "importing into")
    console = output.stderr()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(
        TextColumn("importing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    task = progress.add_task("", total=None)

    def start(total: int) -> None:
        if total > 1:
            progress.update(task, total=total)
            progress.start()

    def done(result: FileResult) -> None:
        progress.update(task, advance=1, description=result.source.path.name)
        if fmt is Format.text:
            output.data(_render(result))

    try:
        run = import_files(
            repo,
            actor,
            paths,
            scope=scope,
            dry_run=dry_run,
            again=again,
            on_start=start,
            on_file=done,
        )
    finally:
        progress.stop()
    if fmt is Format.json:
        output.as_json(_json(f) for f in run.files)
    proposed = sum(len(f.proposals) for f in run.files)
    if fmt is Format.text:
        if run.ignored:
            output.info(
                f"{run.ignored} other file(s) in those folders are not memory or instruction files"
            )
        if dry_run:
            output.info(f"dry run: {proposed} proposal(s) would be filed; nothing was written")
        elif proposed:
            output.info(f"{proposed} proposal(s) in your inbox; next: [bold]agentmem review[/]")
    if run.failed:
        raise typer.Exit(1)
    if not proposed and any(f.rejected for f in run.files):
        reach = "would reach" if dry_run else "reached"
        output.error(f"every item was refused: nothing {reach} your inbox (reasons above)")
        raise typer.Exit(1)


def _render(result: FileResult) -> str:
    """The lines for one file: its verdict, then each proposal and rejection with its line."""
    source = result.source
    head = {
        "imported": f"{len(result.proposals)} proposal(s) filed",
        "dry-run": f"{len(result.proposals)} proposal(s) would be filed",
        "nothing": "nothing new",
        "skipped": f"skipped: {result.reason}",
        "failed": f"skipped: {result.reason}",
    }[result.status]
    if result.rejected and result.status != "failed":
        head += f", {len(result.rejected)} not kept"
    lines = [f"{source.shown}: {head}"]
    for proposal, line in zip(result.proposals, result.lines, strict=True):
        lines.append(f"  {source.shown}:{line}  {proposal.id}  {proposal.summary()}")
    for rejected in result.rejected:
        lines.append(f"  {source.shown}:{rejected.line}  not kept: {rejected.reason}")
    return "\n".join(lines)


def _json(result: FileResult) -> dict[str, object]:
    return {
        "file": result.source.shown,
        "kind": result.source.kind,
        "status": result.status,
        "reason": result.reason or None,
        "session": result.session or None,
        "commit": result.commit,
        "proposals": [
            {**p.to_dict(), "line": line}
            for p, line in zip(result.proposals, result.lines, strict=True)
        ],
        "rejected": [{"line": r.line, "reason": r.reason} for r in result.rejected],
    }
