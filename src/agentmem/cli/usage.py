"""``agentmem usage`` (docs/design/context.md §Context): the usage log of audit contexts, read back."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command(short_help="Which doctrine each audit got, and why not the rest.")
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
        typer.Option(
            "--details",
            help="List every rule in scope and why it was not applied, and the others by reason.",
        ),
    ] = False,
    chat: Annotated[
        bool,
        typer.Option(
            "--chat",
            help="The chat blocks given instead: whose memory, which entries (numbers and "
            "content hashes, never text) and the memory file's git object id.",
        ),
    ] = False,
    fmt: FormatOption = Format.text,
) -> None:
    """Which doctrine each 'agentmem context audit' gave, and why the other rules were not.

    Reads .agentmem/usage.jsonl and the rotated usage.1.jsonl (local to this clone): one record
    per audit with its run id, time, actor, scope, every rule in scope and how many others were
    left out for each reason. --format json gives the records in full.

    Examples:

    \b
      agentmem usage --last 5
      agentmem usage --rule RULE-ID --details
      agentmem usage --chat --format json
    """
    from agentmem.delivery.usage import filter_usage, read_usage

    repo = repository()
    if chat:
        _chats(repo.root, scope, actor, last, fmt)
        return
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
            f"{len(applied)} of {record.considered} rules applied"
            + (f" ({', '.join(applied)})" if applied else "")
        )
        if details:
            for r in record.rules:
                why = "applied" if r.applied else f"not applied: {r.reason}"
                late = " (review overdue)" if r.review_overdue else ""
                output.data(
                    f"    {r.rule} v{r.version} [{r.status}, {r.scope or 'no scope'}]: {why}{late}"
                )
            if record.drafts:
                output.data(f"    drafts in scope, not applied: {record.drafts:,}")
            if record.others:
                counts = ", ".join(f"{n:,} {reason}" for reason, n in record.others)
                output.data(f"    outside the scope, not applied: {counts}")


def _chats(root: Path, scope: str | None, actor: str | None, last: int | None, fmt: Format) -> None:
    """``usage --chat``: the chat lines of the log (docs/design/context.md §Context)."""
    from agentmem.delivery.usage import read_chats

    chats = [
        c
        for c in read_chats(root)
        if (scope is None or c.scope == scope) and (actor is None or c.actor == actor)
    ]
    if last is not None:
        chats = chats[-last:]
    if fmt is Format.json:
        output.as_json(c.to_dict() for c in chats)
        return
    if not chats:
        output.info("no chat block recorded" + (" for that filter" if scope or actor else " yet"))
        return
    for c in chats:
        whose = "" if c.person == c.actor else f" (memory of {c.person})"
        output.data(
            f"{c.run_id}  {c.time}  {c.actor}{whose}  {c.via}  scope {c.scope or '-'}: "
            f"{len(c.entries)} entries of {c.file}@{c.blob[:12] or 'none'}"
        )
        output.data("    " + " ".join(f"#{n}:{h}" for n, h in c.entries))
        if c.left_out:
            output.data("    left out: " + ", ".join(f"#{n} ({r})" for n, r in c.left_out))
