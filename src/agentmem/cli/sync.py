"""``agentmem sync`` (docs/design/sync.md §Sync): share the memory repository through its git remote."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(short_help="Fetch, replay your commits on top, push (never forced).")
def sync(
    remote: Annotated[
        str | None,
        typer.Option(
            "--remote",
            help="The git remote (default: the branch's upstream, else origin).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Fetch the team's changes, replay your commits on top, push — never a force-push.

    Entries added on both sides are both kept. When the same memory entry or the same doctrine
    rule changed on both sides, it stops with "sync paused": your commits stay local, the
    remote is untouched, and the message says how to resolve it. Before pushing, what would be
    published is checked like the team's CI does (agentmem check --history on your commits on
    top of theirs, and the memory files they change): an error — an approval whose author is no
    longer admin there, a merged memory file over its budget — stops with "sync refused", with
    nothing pushed and your branch as it was. A push rejected because someone pushed meanwhile
    is retried, after a growing random pause, so that many clones syncing at once all land.

    Examples:

    \b
      agentmem sync
      agentmem sync --remote upstream
    """
    from agentmem.cli.common import repository
    from agentmem.sync.replay import sync as run_sync

    repo = repository()
    with repo.locked():
        result = run_sync(repo, remote)
    where = f"{result.remote}/{result.branch}"
    head = (result.head or "")[:10]
    if result.outcome == "up-to-date":
        output.data(f"up to date with {where} ({head})")
    elif result.outcome == "pulled":
        output.data(f"brought in {result.pulled} commit(s) from {where} ({head})")
    else:
        replayed = f", {result.replayed} replayed onto theirs" if result.replayed else ""
        pulled = f"; {result.pulled} commit(s) brought in" if result.pulled else ""
        output.data(f"pushed to {where} ({head}{replayed}){pulled}")
    for f in result.warnings:
        output.warn(output.esc(f"{f.path}:{f.line}: {f.message} [{f.code}]"))
    if result.attempts > 1:
        output.info(
            f"the push was rejected {result.attempts - 1} time(s) by a concurrent push; retried"
        )
