"""``agentmem tidy``: a dated hygiene report; proposals into the inbox only with --to-inbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.tidy.hygiene import Report

app = typer.Typer()


@app.command(short_help="Hygiene: duplicates, contradictions, full memory.")
def tidy(
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "-p",
            help="Whose memory (default: yours; an admin may read anyone's report).",
            show_default=False,
        ),
    ] = None,
    to_inbox: Annotated[
        bool,
        typer.Option(
            "--to-inbox",
            help="File the proposals in your inbox (basis inferred, source tidy) for review.",
        ),
    ] = False,
    fmt: FormatOption = Format.text,
) -> None:
    """Hygiene of a memory and the doctrine, as proposals: never changes anything itself.

    Finds near-duplicate entries (a modify and a remove), contradicting entries (flagged), a
    memory at or over its warning level (the least recently confirmed entries as remove
    candidates, with the date), entries naming files that no longer exist (no web link is
    fetched), and live rules of different scopes that repeat each other (flagged). A dry run by
    default: a dated report on stdout. --to-inbox files the proposals in your inbox; they apply
    only through agentmem review. Takes the repository lock. Exit 0: nothing found; 1: found
    something (or refused); 2: usage — safe to run from cron.

    Examples:

    \b
      agentmem tidy
      agentmem tidy --to-inbox            # then: agentmem review
    """
    from agentmem.tidy.hygiene import run_tidy

    repo = repository()
    actor = repo.actor()
    with repo.locked():
        report = run_tidy(repo, actor, person, to_inbox=to_inbox)
    if fmt is Format.json:
        output.as_json(report.to_dict())
    else:
        _render(report, to_inbox)
    if report.findings:
        raise typer.Exit(1)


def _render(report: Report, to_inbox: bool) -> None:
    output.data(f"tidy report for {report.person}, {report.date} ({report.memory}: {report.fill})")
    for finding in report.findings:
        output.data(f"{finding.kind}: {finding.reason}")
        for entry in finding.entries:
            output.data(f"    #{entry.number} line {entry.line} ({entry.section}): {entry.text}")
        for proposal in finding.proposals:
            output.data(f"  proposal: {proposal.summary()}")
    count = len(report.findings)
    proposals = len(report.proposals)
    if not count:
        output.data("nothing to tidy")
        return
    output.data(
        f"{count} finding{'s' if count != 1 else ''}, {proposals} proposal"
        f"{'s' if proposals != 1 else ''}"
    )
    if to_inbox:
        filed = len(report.filed)
        note = f"{filed} proposal{'s' if filed != 1 else ''} filed in your inbox"
        if report.already_pending:
            note += f" ({report.already_pending} already pending there)"
        output.info(f"{note}: decide with [bold]agentmem review[/]")
    elif proposals:
        output.info("dry run: nothing written; --to-inbox files the proposals for review")
