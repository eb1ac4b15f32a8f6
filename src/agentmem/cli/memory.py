"""``agentmem memory show|edit|blame`` (docs/design/memory.md §Memory file, §Commands)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem import trailers as tr
from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, actor_and_person, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.memory.file import Entry

app = typer.Typer(
    short_help="Show, edit and trace a person's memory file.",
    help="Read, edit and trace a person's memory file.\n\nExamples:\n\n\b\n"
    "  agentmem memory show --records\n  agentmem memory blame\n  agentmem memory edit\n  agentmem memory due\n",
    no_args_is_help=True,
)


@app.command()
def show(
    person: PersonOption = None,
    fmt: FormatOption = Format.text,
    records: Annotated[
        bool,
        typer.Option(
            "--records", help="Show each entry's record (basis, scope, dates) on a line below it."
        ),
    ] = False,
) -> None:
    """Print a memory file as its entries read, with its fill level: each entry's text, its
    record left out (--records shows it below the entry; --format json has it as fields)."""
    from agentmem.apply.writer import read_current
    from agentmem.delivery.served import FIX_MEMORY, serve_file
    from agentmem.memory.file import LineKind, budget_status, new_memory_text, parse_memory

    repo = repository()
    _actor, who = actor_and_person(repo, person)
    relpath = repo.memory_relpath(who)
    text = read_current(repo.root, relpath)
    memory = parse_memory(
        text or new_memory_text(who, repo.config.memory), who, repo.config.memory, relpath
    )
    # This command shows the file as it is; an agent is given the served view. Where the two
    # differ, the person is told here too, with the served view's own words.
    for note in serve_file(repo.root, relpath, who, repo.cache, FIX_MEMORY).notes:
        output.warn(output.esc(f"{note} (what an agent is given: agentmem context chat)"))
    if fmt is Format.json:
        output.as_json(
            {
                "person": who,
                "number": e.number,
                "section": e.section,
                "text": e.text,
                "line": e.line,
                **e.record.to_dict(),
            }
            for e in memory.entries()
        )
        return
    status = budget_status(memory.render(), repo.config.memory)
    if text is None:
        output.info(f"{who} has no memory file yet ({relpath}); this is the empty layout")
    by_line = {e.line: e for e in memory.entries()}
    console = output.stdout()
    for number, line in enumerate(memory.lines, start=1):
        if line.kind is not LineKind.ENTRY:
            output.data(line.raw.rstrip("\n"))
            continue
        output.data_wrapped(console, "- ", line.text)  # on a terminal: hangs under the text
        if records and number in by_line:
            output.wrapped(
                console, "    ", f"[dim]{output.esc(by_line[number].record.describe())}[/]"
            )
    output.data("")
    output.data(f"[{status.describe()}]")
    _record_summary(
        memory.entries(),
        repo.config.memory.on_review_due,
        repo.config.retired_scopes,
        shown=records,
    )
    if status.level == "over":
        output.warn(
            f"{relpath} is over its budget ({status.describe()}): nothing can be added until "
            "entries are removed or merged (agentmem memory edit)"
        )
    elif status.level == "warning":
        output.warn(f"{relpath} is at {status.describe()}: remove or merge entries soon")


def _record_summary(
    entries: list[Entry],
    on_review_due: str,
    retired: tuple[tuple[str, str], ...] = (),
    *,
    shown: bool = False,
) -> None:
    """One line on the records: how many entries are inferred, unrecorded, past review,
    expired (what the chat block leaves out), then (on stderr) the command that shows them:
    ``memory due`` for what needs the person, else ``memory show --records`` unless
    ``shown``."""
    from agentmem.memory.records import today_iso

    today = today_iso()
    inferred = [f"#{e.number}" for e in entries if e.record.basis == "inferred"]
    unrecorded = [f"#{e.number}" for e in entries if not e.record.marked]
    states = [(e.number, e.record.state(today, retired)) for e in entries if e.record.marked]
    due = [f"#{n}" for n, state in states if state == "review due"]
    expired = [f"#{n}" for n, state in states if state == "expired"]
    parts = []
    if inferred:
        parts.append(f"inferred: {', '.join(inferred)}")
    if unrecorded:
        parts.append(f"unrecorded: {', '.join(unrecorded)}")
    if due:
        given = "still given" if on_review_due == "alert" else "not given"
        parts.append(f"past review ({given}): {', '.join(due)}")
    if expired:
        parts.append(f"expired (never given): {', '.join(expired)}")
    if parts:
        output.data("[" + "; ".join(parts) + "]")
        if due or expired:
            output.info("  agentmem memory due lists what needs you")
        elif not shown:
            output.info("  agentmem memory show --records shows each entry's record")
    if due or expired:
        output.warn("entries need attention: agentmem memory due lists them")


@app.command()
def edit() -> None:
    """Open your memory file in $EDITOR; on save it is validated and committed, or refused.

    Refused edits (structure, guard, budget) leave the file as it was; your text is kept in a
    temporary file whose path is printed.
    """
    from agentmem.apply.writer import read_current
    from agentmem.errors import AgentmemError, GuardError, UsageError
    from agentmem.memory.file import new_memory_text
    from agentmem.proposals.review import commit_hand_edit

    repo = repository()
    actor = repo.actor()
    relpath = repo.memory_relpath(actor.id)
    old = read_current(repo.root, relpath)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError("no editor: set $EDITOR (e.g. export EDITOR=nano)")
    fd, tmp = tempfile.mkstemp(prefix=f"agentmem-{actor.id}-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(old if old is not None else new_memory_text(actor.id, repo.config.memory))
    try:
        returncode = subprocess.run([*shlex.split(editor), tmp], check=False).returncode
    except OSError as exc:
        raise UsageError(
            f"cannot start the editor {editor!r}: {exc.strerror}",
            hint=f"set $EDITOR to an editor that exists (e.g. nano); your text is in {tmp}",
        ) from None
    if returncode != 0:
        raise UsageError(f"the editor exited with an error; your text is in {tmp}")
    new = Path(tmp).read_text(encoding="utf-8")
    notes: list[str] = []
    try:
        with repo.locked():
            commit = commit_hand_edit(repo, old, new, notes)
    except GuardError as exc:
        os.unlink(tmp)  # the guard refused it: it may hold a secret, so it does not stay on disk
        exc.hint = (
            f"{relpath} was left as it was; your edited text was not kept (the guard refused it)"
        )
        raise
    except AgentmemError as exc:
        exc.hint = f"{relpath} was left as it was; your edited text is in {tmp}"
        raise
    os.unlink(tmp)
    for note in notes:
        output.info(note)
    if commit is None:
        output.info("no change")
    else:
        output.info(f"committed {commit[:10]}: memory({actor.id}): edit by hand")


@app.command()
def blame(person: PersonOption = None, fmt: FormatOption = Format.text) -> None:
    """Each entry with the commit, date, approver, session and justification it came from."""
    from agentmem.proposals.trail import blame_memory

    repo = repository()
    _actor, who = actor_and_person(repo, person)
    entries = blame_memory(repo, who)
    if fmt is Format.json:
        output.as_json(e.to_dict() for e in entries)
        return
    if not entries:
        output.data(f"{who}'s memory has no entries")
    for e in entries:
        output.data(f"#{e.number} [{e.section}] {e.text}")
        output.data(f"    {e.record.describe(e.basis_trailer)}")
        if e.commit is None:
            output.data("    not committed yet (changed on disk)")
            continue
        if e.approver is None:
            output.data(
                f"    {e.commit[:10]}  {(e.date or '')[:10]}  NOT approved through agentmem: a plain "
                f"git commit by {e.author} (no {tr.PREFIX}* trailers)"
            )
            continue
        output.data(f"    {e.commit[:10]}  {(e.date or '')[:10]}  approved by {e.approver}")
        output.data(
            f"    session {e.session or '-'}  proposal {e.proposal or '-'}  why: {e.justification or '-'}"
        )


@app.command()
def due(person: PersonOption = None, fmt: FormatOption = Format.text) -> None:
    """Entries that need you: expired (never given to any context block), past review or in a
    retired scope (given or not by memory.on_review_due), and unrecorded (no basis or dates: files from before).
    Exit 0 even when some are listed."""
    from agentmem.memory.due import due_entries

    repo = repository()
    _actor, who = actor_and_person(repo, person)
    found = due_entries(repo, who)
    if fmt is Format.json:
        output.as_json(d.to_dict() for d in found)
        return
    if not found:
        output.info(f"nothing due in {who}'s memory")
        return
    for d in found:
        when = {
            "expired": f"expired {d.expires}",
            "review due": f"scope {d.scope} retired {d.retired}"
            if d.retired
            else f"review due {d.review}",
            "unrecorded": f"set {d.date or '?'} by a commit saying {d.basis or 'no basis'}",
        }[d.state]
        given = "given" if d.applied else "not given"
        output.data(f"#{d.number} [{d.section}] {d.text}")
        output.data(f"    {d.state}: {when} ({given}){'; scope ' + d.scope if d.scope else ''}")
    output.info("agentmem memory reconfirm N… keeps an entry; agentmem memory edit removes one")


@app.command()
def reconfirm(
    numbers: Annotated[
        list[int],
        typer.Argument(
            help="Entry numbers, as memory due or memory show lists them.", metavar="N…"
        ),
    ],
) -> None:
    """Reconfirm entries of your own memory: since today, review and expiry moved by
    memory.retention; unrecorded entries get their record. One audited commit."""
    from agentmem.memory.due import reconfirm as run

    repo = repository()
    actor = repo.actor()
    with repo.locked():
        commit, lines = run(repo, actor, numbers)
    for line in lines:
        output.data(line)
    if commit:
        output.info(f"committed {commit[:10]}: memory({actor.id}): reconfirm")
