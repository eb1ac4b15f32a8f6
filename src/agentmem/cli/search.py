"""``agentmem search``: ranked keyword search over memory, doctrine, inbox and history."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command(short_help="Search memory, doctrine, inbox and decision history.")
def search(
    query: Annotated[
        str,
        typer.Argument(
            help='Words to find (FTS5 syntax: "a phrase", AND / OR / NOT, prefix*).',
            show_default=False,
        ),
    ],
    areas: Annotated[
        str | None,
        typer.Option(
            "--in",
            help="Where to look, comma-separated: memory,doctrine,inbox,history (default: all).",
            show_default=False,
        ),
    ] = None,
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "-p",
            help="Whose memory, inbox and personal history (default: yours; an admin may name "
            "anyone).",
            show_default=False,
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="Only rules and proposals whose scope meets this one (equal, above or below).",
            show_default=False,
        ),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            help="Only rules of this status (draft, active, suspended, deactivated, archived), "
            "or pending proposals (pending).",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="At most this many hits.")
    ] = 20,
    fmt: FormatOption = Format.text,
) -> None:
    """Search memory, doctrine (every status), pending proposals and the history of decisions.

    Best matches first (BM25). Each hit says where it lives (file:line, rule id and version, or
    commit) and shows the matched words between **. Accents and case are folded; English words
    are also matched by their stem (warranties finds warranty). You read your own memory, inbox
    and history (an admin: anyone's, with --person) and all the doctrine. The index is kept in
    .agentmem/ (never committed) and brought up to date from git before each search; the query
    is written nowhere. An invalid query is a usage error (exit 2) naming the character.

    Examples:

    \b
      agentmem search warranty
      agentmem search "penalty clause" --in memory,doctrine
      agentmem search tone -n 5 --format json
    """
    from agentmem.search.query import parse_kinds
    from agentmem.search.query import search as run_search

    kinds = parse_kinds(areas)
    repo = repository()
    actor = repo.actor()
    result = run_search(
        repo,
        actor,
        query,
        kinds=kinds,
        person=person,
        scope=scope,
        status=status,
        limit=limit,
    )
    for note in result.notes:
        output.info(output.esc(note))
    if fmt is Format.json:
        output.as_json(hit.to_dict() for hit in result.hits)
        return
    if not result.hits:
        output.info(f"no match in {', '.join(kinds)}")
        return
    for hit in result.hits:
        output.data(f"{hit.where}  {hit.describe()}")
        output.data(f"    {hit.snippet}")
