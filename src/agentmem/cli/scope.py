"""``agentmem scope retire S`` (docs/design/doctrine.md §Lifecycle): an event invalidates a scope;
``agentmem scope map FOLDER S`` (docs/design/settings.md §Settings): sessions started in FOLDER get S."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem import trailers as tr
from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

app = typer.Typer(
    short_help="Map a project folder to a scope; retire a scope.",
    help="Scopes: map a project folder to one, retire one when an event invalidates it.\n\nExamples:\n\n\b\n"
    '  agentmem scope map ~/code/supply contracts/supply\n  agentmem scope retire contracts/old --reason "the 2026 law replaced it"\n',
    no_args_is_help=True,
)


@app.command("map")
def map_command(
    folder: Annotated[
        str, typer.Argument(help="The project folder (absolute, ~/…, or relative to here).")
    ],
    scope: Annotated[str, typer.Argument(help="The scope, e.g. contracts/supply.")],
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Change the scope of a folder already mapped (admin)."),
    ] = False,
    fmt: FormatOption = Format.text,
) -> None:
    """Map a project folder to a scope: sessions started in it (or below it) get that scope,
    so the SessionStart hook gives them your entries scoped to it. One audited commit of
    agentmem.yaml (scopes:); a member may add a folder, changing one is an admin's."""
    from agentmem.tidy.scopemap import map_folder, map_key

    repo = repository()
    actor = repo.actor()
    key = map_key(repo, folder)
    with repo.locked():
        done = map_folder(repo, actor, key, scope, replace=replace)
    if fmt is Format.json:
        output.as_json(done.to_dict())
        return
    if done.commit is None:
        output.info(f"{output.esc(done.folder)} is already mapped to {output.esc(done.scope)}")
        return
    was = f" (was {output.esc(done.previous)})" if done.previous else ""
    output.data(
        f"sessions started in {output.esc(done.folder)} get scope {output.esc(done.scope)}{was}"
    )
    output.info(f"committed {done.commit[:12]}")


@app.command()
def retire(
    scope: Annotated[str, typer.Argument(help="The scope, e.g. contracts/supply.")],
    reason: Annotated[
        str | None,
        typer.Option(
            "--reason",
            help=f"Why you retire it: recorded with the decision ({tr.REASON}).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """Retire a scope (admin): every entry and rule scoped to it or below, confirmed before
    today, goes back to review (memory due, doctrine due) and stops applying where
    on_review_due is suspend. One audited commit of agentmem.yaml (retired_scopes)."""
    from agentmem.tidy.retire import retire_scope

    repo = repository()
    with repo.locked():
        done = retire_scope(repo, scope, reason)
    if fmt is Format.json:
        output.as_json(done.to_dict())
        return
    count = sum(len(n) for n in done.entries.values())
    again = f" (it was retired on {done.previous})" if done.previous else ""
    output.data(f"scope {done.scope} retired on {done.day}{again}")
    for person, numbers in done.entries.items():
        output.data(f"  {person}: entries {', '.join(f'#{n}' for n in numbers)} to review")
    if done.rules:
        output.data(f"  doctrine: {', '.join(done.rules)} to review")
    output.data(
        f"{count} entr{'y' if count == 1 else 'ies'} and {len(done.rules)} rule(s) to review"
    )
    if done.applied:
        output.info(
            "they stay applied until reconfirmed (on_review_due: alert); their owners see them "
            "in agentmem memory due, admins the rules in agentmem doctrine due"
        )
    else:
        output.info(
            "they are no longer given (on_review_due: suspend) until reconfirmed: agentmem "
            "memory reconfirm N… (each owner), agentmem doctrine reconfirm ID (an admin)"
        )
    if done.commit:
        output.info(f"committed {done.commit[:12]}")
