"""``agentmem remember TEXT`` (docs/design/overview.md §Commands)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from agentmem.cli import output
from agentmem.cli.common import repository

app = typer.Typer()


@app.command(short_help="Mid-session: one 'add' proposal in your inbox.")
def remember(
    text: Annotated[str, typer.Argument(help="The entry, one line.", show_default=False)],
    section: Annotated[
        str | None,
        typer.Option(
            "--section",
            "-s",
            help="Section (default: the first configured one).",
            show_default=False,
        ),
    ] = None,
    session: Annotated[str, typer.Option(help="Session id to record with it.")] = "manual",
) -> None:
    """Mid-session: put one 'add' proposal in your inbox and commit it at once.

    Nothing reaches your memory until you accept it with 'agentmem review'.

    Examples:

    \b
      agentmem remember "Short sentences in review comments."
      agentmem remember -s "Writing style" "Answer in French."
    """
    from agentmem.api import Agentmem
    from agentmem.errors import BusyError
    from agentmem.proposals import spool

    repo = repository()
    api = Agentmem(repo)
    try:
        proposal = api.remember_proposal(text, section=section, session=session)
    except BusyError as exc:
        _spool(repo, api, exc, text, section, session)
        return
    output.data(f"{proposal.id}  {proposal.summary()}")
    output.info("pending in your inbox; accept it with [bold]agentmem review[/]")
    actor = api.actor()
    if spool.spooled(repo, actor.id):
        with repo.locked():
            drained = spool.drain(repo, actor)
        for filed in drained.filed:
            output.data(f"{filed.id}  {filed.summary()}  (spooled while the repository was busy)")
    for said, why in spool.refused_texts(repo, actor.id):
        output.warn(output.esc(f"a text spooled while busy was not filed: {said[:60]!r}: {why}"))


def _spool(
    repo: Any, api: Any, busy: Exception, text: str, section: str | None, session: str
) -> None:
    """The lock stayed taken: the text is checked, spooled and filed when the lock frees
    (:func:`agentmem.proposals.spool.keep`)."""
    from agentmem.proposals import spool

    path = spool.keep(repo, api.actor(), text, section, session)
    output.warn(output.esc(f"{getattr(busy, 'message', busy)}"))
    output.info(
        f"your text is kept in {path.relative_to(repo.root)} and is filed into your inbox as "
        "soon as the lock frees (a background agentmem waits for it); nothing is lost"
    )
