"""``agentmem usage`` (docs/design.md §Context): the usage log of audit contexts, read back."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command()
def usage(
    scope: Annotated[
        str | None,
        typer.Option("--scope", "-s", help="Only audits of this exact scope.", show_default=False),
    ] = None,
    rule: Annotated[
        str | None,
        typer.Option(
            "--rule", "-r", help="Only audits that applied this rule.", show_default=False
        ),
    ] = None,
    actor: Annotated[
        str | None,
        typer.Option("--actor", help="Only audits run by this person.", show_default=False),
    ] = None,
    last: Annotated[
        int | None,
        typer.Option(
            "--last", "-n", min=1, help="Only the N most recent audits.", show_default=False
        ),
    ] = None,
    details: Annotated[
        bool,
        typer.Option("--details", help="List every rule considered and why it was not applied."),
    ] = False,
    fmt: FormatOption = Format.text,
) -> None:
    """Which doctrine each 'agentmem context audit' gave, and why the other rules were not.

    Reads .agentmem/usage.jsonl (local to this clone): one record per audit with its run id,
    time, actor, scope and every rule considered. --format json gives the records in full.
    """
    from agentmem.delivery.usage import filter_usage, read_usage

    repo = repository()
    log = read_usage(repo.root)
    if log.bad_lines:
        lines = ", ".join(str(n) for n in log.bad_lines[:10])
        output.warn(f".agentmem/usage.jsonl: unreadable line(s) {lines} skipped")
    records = filter_usage(log.records, scope=scope, rule=rule, actor=actor)
    if last is not None:
        records = records[-last:]
    if fmt is Format.json:
        output.as_json(r.to_dict() for r in records)
        return
    if not records:
        output.info(
            "no audit recorded" + (" for that filter" if (scope or rule or actor) else " yet")
        )
        return
    for record in records:
        applied = [r.rule for r in record.rules if r.applied]
        output.data(
            f"{record.run_id}  {record.time}  {record.actor}  {record.scope}: "
            f"{len(applied)} of {len(record.rules)} rules applied"
            + (f" ({', '.join(applied)})" if applied else "")
        )
        if details:
            for r in record.rules:
                why = "applied" if r.applied else f"not applied: {r.reason}"
                late = " (review overdue)" if r.review_overdue else ""
                output.data(
                    f"    {r.rule} v{r.version} [{r.status}, {r.scope or 'no scope'}]: {why}{late}"
                )
