"""``agentmem log`` (docs/design/overview.md §Commands, §Trailers)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command(short_help="The audit history: who decided what, when and why.")
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
    """The audit history: every agentmem commit with who, when, what and why.

    Examples:

    \b
      agentmem log | head
      agentmem log --person claire
      agentmem log --rule RULE-ID --format json
    """
    from agentmem.errors import UsageError
    from agentmem.proposals.trail import audit_log
    from agentmem.store.repo import DOCTRINE_DIR

    if person and rule:
        raise UsageError("give --person or --rule, not both")
    repo = repository()
    if person:
        repo.person(person)  # an unknown person is a usage error (exit 2), not an empty log
    records = audit_log(repo, person=person, rule=rule)
    if fmt is Format.json:
        output.as_json(r.to_dict() for r in records)
        return
    if not records:
        if rule and not (repo.root / DOCTRINE_DIR / f"{rule}.yaml").exists():
            # an id that does not exist is a usage error (exit 2), as for --person
            raise UsageError(
                f"no rule {rule!r}: no doctrine file and no commit has that id",
                hint="agentmem doctrine list shows the ids",
            )
        about = f" for rule {rule}" if rule else f" for {person}" if person else " yet"
        output.info(f"no audit commits{about}")
        return
    # On a terminal each line wraps under its first word (a commit naming 34 proposals is one
    # line of 700 characters otherwise); piped, every line stays whole for grep.
    console = output.stdout()
    for r in records:
        who = r.actor or r.author
        output.data_wrapped(console, f"{r.commit[:10]}  {r.date[:10]}  ", f"{who}  {r.subject}")
        if r.justification:
            output.data_wrapped(console, "            why: ", r.justification)
        if len(r.proposals) > 1:
            output.data_wrapped(console, "            proposals: ", ", ".join(r.proposals))
