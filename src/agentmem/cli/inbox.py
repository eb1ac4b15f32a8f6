"""``agentmem inbox`` (docs/design/overview.md §Commands)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, actor_and_person, repository
from agentmem.cli.output import Format
from agentmem.store.repo import LOCAL_DIR

#: ``agentmem.harvest.queue.QUEUE_FILE`` (a test checks they are the same): ``inbox`` does not
#: load the queue module when that file is not there.
QUEUE_FILE = "queue.jsonl"

if TYPE_CHECKING:
    from agentmem.proposals.inbox import Broken

app = typer.Typer()


@app.command(short_help="List pending proposals.")
def inbox(person: PersonOption = None, fmt: FormatOption = Format.text) -> None:
    """List pending proposals (yours by default; --person for someone else's).

    Examples:

    \b
      agentmem inbox
      agentmem inbox --person bob
      agentmem inbox --format json
    """
    from agentmem.proposals.inbox import foreign, read_inbox

    repo = repository()
    _actor, who = actor_and_person(repo, person)  # may the actor read who's inbox: checked here
    box = read_inbox(repo, who)
    pending = box.proposals
    warn_broken(box.broken)
    if person is None:  # the queue is this clone's: sessions wait for whoever runs here
        _waiting_sessions_note(repo.root)
    strange = foreign(repo, pending, box.read)  # the bytes parsed: not read again
    if fmt is Format.json:
        output.as_json({**p.to_dict(), "not_from_owner": strange.get(p.id)} for p in pending)
        return
    if not pending:
        output.data(f"no pending proposals for {who}")
        return
    memory = [p for p in pending if p.route == "memory"]
    doctrine = [p for p in pending if p.route == "doctrine"]
    output.data(f"{len(pending)} pending proposal{'s' if len(pending) != 1 else ''} for {who}:")
    console = output.stdout()  # on a terminal each proposal wraps under its summary's start
    for p in memory + doctrine:
        flag = f", contradicts {len(p.contradicts)} of your entries" if p.contradicts else ""
        tags = f"[{p.basis}, session {p.session[:12]}{flag}]"
        output.data_wrapped(console, f"  {p.id}  ", f"{p.summary()}  {tags}")
        if p.id in strange:
            output.data_wrapped(console, "      ", f"NOT FROM {who.upper()}: {strange[p.id]}")
    if strange:
        output.warn(
            f"{len(strange)} proposal(s) were not put in {who}'s inbox by {who}: review shows "
            "them, and accepts one only with --allow-foreign"
        )
    if doctrine:
        output.info(
            f"{len(doctrine)} doctrine proposal(s): accepting one in 'agentmem review' makes a "
            "draft rule (it applies nowhere until an admin approves it)"
        )


def warn_broken(broken: list[Broken]) -> None:
    """One warning per inbox entry skipped as broken, naming it (on stderr)."""
    for item in broken:
        output.warn(
            f"skipped {output.esc(item.describe())} — the other proposals stay reviewable "
            "('agentmem check --history' names who committed it; 'agentmem review --reject all' "
            "drops it)"
        )


def _waiting_sessions_note(root: Path) -> None:
    """How many sessions the Claude Code hooks queued and no harvest took yet (on stderr)."""
    try:
        os.stat(root / LOCAL_DIR / QUEUE_FILE)
    except FileNotFoundError:
        return  # what waiting() reads is not there: nothing waits (the queue module not loaded)
    from agentmem.harvest.queue import waiting

    count = len(waiting(root))
    if count:
        output.info(
            f"{count} session{'s' if count != 1 else ''} wait{'' if count != 1 else 's'} in the "
            "harvest queue: run [bold]agentmem harvest --queue[/]"
        )
