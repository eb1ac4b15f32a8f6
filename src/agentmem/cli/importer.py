"""``agentmem import PATH…``: memory and instruction files people already wrote, as proposals."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.harvest.imports import FileResult, ImportRun

app = typer.Typer()


@app.command("import", short_help="Turn CLAUDE.md, AGENTS.md, rules into proposals.")
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
    only: Annotated[
        str | None,
        typer.Option(
            "--only",
            help="Import only these proposals, by their numbers in the dry run's listing "
            "(e.g. 1-5,8).",
            show_default=False,
        ),
    ] = None,
    section: Annotated[
        list[str] | None,
        typer.Option(
            "--section",
            help="Import only the proposals filed to this memory section (repeatable).",
            show_default=False,
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

    What a person would keep of an instruction file becomes one 'add' proposal each (basis
    declared, its file and line in the justification): rules and preferences, a nested item
    with its parent's words. Commands, code, file paths, tool lists, log lines, placeholders
    and descriptions are skipped and counted. Each auto-memory topic and each Claude.ai memory
    becomes one too. Every proposal is numbered and checked like a harvest's (guard,
    duplicates), then the whole batch against your memory's budget: a batch that does not fit
    files nothing (pick part of it with --only or --section). One commit per file; a binary,
    empty, unreadable, too large or half-written file, or a conversation export (use
    'agentmem harvest'), is skipped with its reason and the others go on (exit 1 at the end).
    Nothing reaches your memory before 'agentmem review'.

    Examples:

    \b
      agentmem import CLAUDE.md --dry-run
      agentmem import ~/.claude/projects/PROJECT/memory --only 1-5,8
      agentmem import AGENTS.md --section "Writing style"
    """
    from agentmem.governance import require_owner
    from agentmem.harvest.imports import import_files

    repo = repository()
    actor = repo.actor()
    require_owner(actor, person or actor.id, "importing into")
    console = output.stderr()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    # The report is written after the bar is gone, and the bar never takes stdout over: a
    # report sent to a file stays whole while the bar runs on the terminal.
    progress = Progress(
        TextColumn("importing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
        disable=not console.is_terminal,
    )
    task = progress.add_task("", total=None)

    def start(total: int) -> None:
        if total > 1:
            progress.update(task, total=total)
            progress.start()

    def read(result: FileResult) -> None:
        progress.update(task, advance=1, description=result.source.path.name)

    try:
        run = import_files(
            repo,
            actor,
            paths,
            scope=scope,
            dry_run=dry_run,
            again=again,
            only=only,
            sections=section or (),
            on_start=start,
            on_file=read,
        )
    finally:
        progress.stop()
    if fmt is Format.json:
        output.as_json(_json(f) for f in run.files)
    else:
        output.data_lines(line for f in run.files for line in _render(f, dry_run))
    _summary(run, dry_run, fmt)


def _summary(run: ImportRun, dry_run: bool, fmt: Format) -> None:
    """The messages after the report (stderr) and the exit code."""
    proposed = sum(len(f.proposals) for f in run.files)
    for note in run.notes:
        output.info(f"{output.esc(note)}")
    if run.ignored and fmt is Format.text:
        output.info(
            f"{run.ignored} other file(s) in those folders are not memory or instruction files"
        )
    unpicked = sum(f.unpicked for f in run.files)
    if unpicked and not proposed and not any(f.rejected for f in run.files):
        output.info(f"--only / --section picked none of the {unpicked} proposal(s)")
    if run.refusal:
        output.error(f"{run.refusal}; nothing {'would be' if dry_run else 'was'} filed")
        raise typer.Exit(1)
    fill = f" (memory {run.budget.describe()} with them)" if run.budget and proposed else ""
    if fmt is Format.text:
        if dry_run:
            output.info(
                f"dry run: {proposed} proposal(s) would be filed{fill}; nothing was written"
            )
        elif proposed:
            output.info(
                f"{proposed} proposal(s) in your inbox{fill}; next: [bold]agentmem review[/]"
            )
    if run.failed:
        raise typer.Exit(1)
    if not proposed and any(f.rejected for f in run.files):
        reach = "would reach" if dry_run else "reached"
        output.error(f"every item was refused: nothing {reach} your inbox (reasons above)")
        raise typer.Exit(1)


def _counted(counts: dict[str, int]) -> str:
    from agentmem.harvest.instructions import REASONS

    return ", ".join(f"{n} {REASONS[reason][n != 1]}" for reason, n in counts.items())


_AT_IMPORT = re.compile(r"@((?:~/|\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*\.(?:md|mdc|txt))")


def _at_imports(result: FileResult) -> list[str]:
    """The files an instruction file pulls in with Claude Code's ``@path`` import, from the
    items left out as file paths: what a file that only says ``@AGENTS.md`` really holds."""
    found: list[str] = []
    for item in result.skipped_items:
        for m in _AT_IMPORT.finditer(item.text):
            if m.group(1) not in found:
                found.append(m.group(1))
    return found


def _beside(source: Path, target: str) -> str:
    """``target`` as written beside ``source``, as a path to type here (relative to the current
    folder when it is below it; ``~`` paths as they are)."""
    if target.startswith("~"):
        return target
    path = Path(os.path.normpath(source.parent / target))
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _render(result: FileResult, dry_run: bool) -> list[str]:
    """The lines for one file: its verdict, then each proposal (numbered) and rejection with
    its line; a dry run refused for its size lists the candidates, to pick from."""
    source = result.source
    count = len(result.proposals)
    head = {
        "imported": f"{count} proposal(s) filed",
        "dry-run": f"{count} proposal(s) would be filed",
        "refused": f"{count or len(result.candidates)} proposal(s), none filed",
        "nothing": "none picked" if result.unpicked and not count else "nothing new",
        "skipped": f"skipped: {result.reason}",
        "failed": f"skipped: {result.reason}",
    }[result.status]
    if result.rejected and result.status != "failed":
        head += f", {len(result.rejected)} not kept"
    if result.skipped_items:
        skipped = result.skipped_counts
        head += f", {sum(skipped.values())} left out ({_counted(skipped)})"
    if result.unpicked:
        head += f", {result.unpicked} not picked"
    lines = [f"{source.shown}: {head}"]
    imported = _at_imports(result)
    if imported and not count:
        lines.append(
            f"  hint: it imports {', '.join('@' + i for i in imported)} (Claude Code's @ import): "
            f"run agentmem import {' '.join(_beside(source.path, i) for i in imported)}"
        )
    for proposal, line, number in zip(result.proposals, result.lines, result.numbers, strict=True):
        lines.append(f"  #{number}  {source.shown}:{line}  {proposal.id}  {proposal.summary()}")
    if dry_run and result.status == "refused" and not result.proposals:
        for candidate in result.candidates:
            lines.append(
                f"  #{candidate.number}  {source.shown}:{candidate.line}  {candidate.text}"
            )
    for rejected in result.rejected:
        mark = f"#{rejected.number}  " if rejected.number else ""
        lines.append(f"  {mark}{source.shown}:{rejected.line}  not kept: {rejected.reason}")
    return lines


def _json(result: FileResult) -> dict[str, object]:
    return {
        "file": result.source.shown,
        "kind": result.source.kind,
        "status": result.status,
        "reason": result.reason or None,
        "session": result.session or None,
        "commit": result.commit,
        "proposals": [
            {**p.to_dict(), "line": line, "number": number}
            for p, line, number in zip(result.proposals, result.lines, result.numbers, strict=True)
        ],
        "rejected": [
            {"line": r.line, "number": r.number or None, "reason": r.reason}
            for r in result.rejected
        ],
        "skipped": [{"line": i.line, "reason": i.skip} for i in result.skipped_items],
        "skipped_counts": result.skipped_counts,
        "not_picked": result.unpicked,
    }
