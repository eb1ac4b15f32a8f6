"""``agentmem harvest TRANSCRIPT…`` (docs/design/overview.md §Commands, §Harvest)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractContextManager

    from rich.console import Console

    from agentmem.errors import AgentmemError
    from agentmem.harvest.batch import Job
    from agentmem.harvest.run import HarvestResult
    from agentmem.store.repo import Person, Repository

app = typer.Typer()


@app.command(short_help="Read finished sessions: at most 6 proposals each.")
def harvest(
    transcripts: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Session transcript file(s): Claude Code or Codex JSONL, Messages JSON, or User:/Assistant: text.",
            show_default=False,
        ),
    ] = None,
    outcomes: Annotated[
        Path | None,
        typer.Option(
            help="JSON file of what you did with the agent's suggestions.", show_default=False
        ),
    ] = None,
    person: PersonOption = None,
    scope: Annotated[
        str | None,
        typer.Option(help="Scope of the session (e.g. contracts/supply).", show_default=False),
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            help="anthropic | openai | offline | replay (default: harvest.provider; auto = anthropic when ANTHROPIC_API_KEY is set; openai = any OpenAI-compatible server, harvest.openai.*).",
            show_default=False,
        ),
    ] = None,
    proposals: Annotated[
        Path | None,
        typer.Option(
            "--proposals",
            help="Replay proposals from a JSON file instead of asking a model.",
            show_default=False,
        ),
    ] = None,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue",
            help="Harvest every session queued by the Claude Code hooks and not harvested yet.",
        ),
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--again", help="Harvest a session although it was harvested before (a new reading)."
        ),
    ] = False,
    forget: Annotated[
        str | None,
        typer.Option(
            "--forget",
            metavar="SESSION",
            help="Drop a queued session without harvesting it (e.g. its transcript was deleted).",
            show_default=False,
        ),
    ] = None,
    conversation: Annotated[
        str | None,
        typer.Option(
            "--conversation",
            metavar="ID",
            help="In a ChatGPT or Claude.ai conversations.json: harvest this conversation only "
            "(default: every conversation not harvested yet).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """Read finished session(s) and put at most 6 proposals per session in your inbox.

    One model call per session (or the offline extractor). Every proposal is validated; the
    rejected ones are listed with their reason. Review them with 'agentmem review'.
    With --queue: the sessions queued by 'agentmem hook session-end|pre-compact', each once.
    With --forget SESSION: that queued session is never harvested.
    A ChatGPT or Claude.ai conversations.json export is one session per conversation.

    Examples:

    \b
      agentmem harvest ~/.claude/projects/PROJECT/SESSION.jsonl
      agentmem harvest session.jsonl --scope contracts/supply
      agentmem harvest --queue                # what the hooks queued
      agentmem harvest conversations.json --conversation ID
    """
    from agentmem.errors import UsageError
    from agentmem.governance import require_owner
    from agentmem.harvest.batch import file_jobs, harvest_jobs
    from agentmem.harvest.queue import committed_session_ids, harvested_ids
    from agentmem.harvest.run import choose_provider, load_outcomes

    if forget is not None:
        if queue or transcripts:
            raise UsageError("--forget SESSION goes alone (no transcript, no --queue)")
        _forget(forget)
        return
    if queue == bool(transcripts):
        raise UsageError("give transcript file(s) or --queue (one of the two)")
    if queue and outcomes is not None:
        raise UsageError("--outcomes describes one session; it cannot go with --queue")
    if queue and conversation is not None:
        raise UsageError("--conversation picks a conversation of an export; not with --queue")
    repo = repository()
    actor = repo.actor()
    require_owner(actor, person or actor.id, "harvesting into")
    name = (
        "replay"
        if proposals is not None and provider is None
        else choose_provider(provider, repo.config.harvest.provider)
    )
    if queue:
        _harvest_queue(repo, actor, name, scope, proposals, fmt)
        return
    loaded = load_outcomes(outcomes) if outcomes else ()
    console = output.stderr()
    done = set() if again else harvested_ids(repo.root) | committed_session_ids(repo.root)
    jobs, skipped = file_jobs(
        transcripts or [], conversation, done, repo.config.harvest.max_transcript_mb
    )

    def working(job: Job, index: int, total: int) -> AbstractContextManager[object]:
        step = f" ({index}/{total})" if total > 1 else ""
        return _working(console, f"harvesting {job.path.name}{step} via {name}…")

    def failed(job: Job, exc: AgentmemError) -> None:
        if len(jobs) == 1 and not skipped:
            raise exc
        output.error(str(exc))

    batch = harvest_jobs(
        repo,
        actor,
        jobs,
        provider=name,
        done=done,
        scope=scope,
        outcomes=loaded,
        proposals_file=proposals,
        working=working,
        on_result=_print_result if fmt is Format.text else None,
        on_failure=failed,
    )
    if fmt is Format.json:
        output.as_json(_result_json(r) for r in batch.results)
    elif any(r.kept for r in batch.results):
        output.info("next: [bold]agentmem review[/] to accept, edit or reject them")
    if fmt is Format.text:
        _offer_mappings(repo, actor, batch.results)
    if skipped:
        output.info(
            f"{skipped} conversation(s) skipped: already harvested (--again reads them once more)"
        )
    if batch.failures:
        raise typer.Exit(1)
    if not any(r.kept for r in batch.results) and any(r.rejected for r in batch.results):
        output.error("every proposal was rejected: nothing reached your inbox (reasons above)")
        raise typer.Exit(1)


def _offer_mappings(repo: Repository, actor: Person, results: Sequence[HarvestResult]) -> None:
    """After a harvest with ``--scope S``: each folder its sessions ran in whose sessions would
    not get S's entries (not mapped to S, or to a scope inside S) is offered to the person —
    on a terminal, a question, then ONE commit of ``scopes:``; elsewhere (an agent, a script),
    the command that does it. Said on screen either way (docs/decisions/)."""
    from agentmem.errors import AgentmemError
    from agentmem.memory.records import scope_contains
    from agentmem.tidy.scopemap import map_folder, map_key, mapped_scope, session_scope_here

    wanted: dict[str, tuple[str, str]] = {}  # folder as written in the map → (scope, session)
    for result in results:
        scopes = {p.scope for p in result.kept if p.route == "memory" and p.scope}
        if not result.folder or len(scopes) != 1:
            continue
        scope = scopes.pop()
        try:
            key = map_key(repo, result.folder)
        except AgentmemError:
            output.info(
                f"session {output.esc(result.session)} ran in a folder that is not a path of "
                "this system: not offered for the scopes: map"
            )
            continue
        wanted.setdefault(key, (scope, result.session))
    asking = _asking()
    for key, (scope, session) in wanted.items():
        now = session_scope_here(repo, key)
        if now is not None and scope_contains(scope, now):
            continue  # sessions there already get the entries of that scope
        shown, command = output.esc(key), f"agentmem scope map {_quoted(key)} {scope}"
        exact = mapped_scope(repo, key)
        if exact is not None:
            output.info(
                f"sessions started in {shown} get scope {output.esc(exact)}, not {scope}: "
                f"an admin may change it ({output.esc(command)} --replace)"
            )
            continue
        has = f"get scope {output.esc(now)}" if now else "get no scope"
        output.info(
            f"this session ran in {shown}; sessions started there {has}, so the entries "
            f"scoped {scope} would not reach them"
        )
        if not asking:
            output.info(f"to give them those entries: [bold]{output.esc(command)}[/]")
            continue
        try:
            answer = typer.confirm(
                f"Map {key} to {scope} in agentmem.yaml (one commit)?", default=True, err=True
            )
        except typer.Abort:
            answer = False
        if not answer:
            output.info(f"not mapped; later: {output.esc(command)}")
            continue
        try:
            with repo.locked():
                done = map_folder(repo, actor, key, scope, session=session)
        except AgentmemError as exc:  # the proposals are filed: say why, and go on
            output.error(f"not mapped: {output.esc(exc)}")
            continue
        repo = repository()  # the settings changed
        output.info(
            f"mapped {shown} to {scope}: sessions started there get its entries "
            f"(committed {(done.commit or '')[:12]})"
        )


def _asking() -> bool:
    """Someone at a terminal can be asked (stdin and stderr are terminals): never an agent's
    shell, a pipe or CI."""
    import sys

    return sys.stdin.isatty() and sys.stderr.isatty()


def _quoted(folder: str) -> str:
    """``folder`` as a shell word (``~`` left unquoted so that the shell expands it)."""
    import shlex

    if folder.startswith("~/"):
        rest = folder[2:]
        return "~/" + (shlex.quote(rest) if rest else "")
    return shlex.quote(folder)


def _working(console: Console, message: str) -> AbstractContextManager[object]:
    """A spinner on a terminal while a session is read and the model answers; nothing
    elsewhere (CI logs, pipes)."""
    from contextlib import nullcontext

    return console.status(message) if console.is_terminal else nullcontext()


def _forget(session_id: str) -> None:
    from agentmem.harvest.queue import forget

    repo = repository()
    with repo.locked():
        session = forget(repo.root, session_id, repo.actor().id)
    output.info(f"session {session_id} dropped from the harvest queue ({session.transcript_path})")


def _print_result(result: object) -> None:
    from agentmem.harvest.run import HarvestResult

    assert isinstance(result, HarvestResult)
    kept = len(result.kept)
    console = output.stdout()  # on a terminal each line wraps under its first word
    output.data_wrapped(
        console,
        "",
        f"session {result.session} ({Path(result.transcript).name}, {result.turns} turns, "
        f"{result.user_turns} of them yours) via {result.provider}: "
        f"{kept} proposal{'s' if kept != 1 else ''} kept, {len(result.rejected)} rejected",
    )
    for note in result.notes:
        output.data(f"  note: {note}")
    if result.cut:
        output.data(
            f"  the answer held {result.received} proposals; only the first "
            f"{result.received - result.cut} were kept (harvest.max_proposals); not kept:"
        )
        for c in result.cut_items:
            output.data(f"  cut #{c.index} {c.label}: {c.reason}")
    for p in result.kept:
        flag = f", contradicts {len(p.contradicts)} of your entries" if p.contradicts else ""
        output.data_wrapped(console, f"  {p.id}  ", f"{p.summary()}  [{p.basis}{flag}]")
    for r in result.rejected:
        output.data_wrapped(console, "  rejected ", f"#{r.index} {r.label}: {r.reason}")


def _result_json(result: HarvestResult) -> dict[str, object]:
    return {
        "session": result.session,
        "transcript": result.transcript,
        "provider": result.provider,
        "received": result.received,
        "cut": result.cut,
        "turns": result.turns,
        "user_turns": result.user_turns,
        "cut_proposals": [
            {"index": c.index, "label": c.label, "text": c.reason} for c in result.cut_items
        ],
        "commit": result.commit,
        "folder": result.folder,
        "notes": list(result.notes),
        "proposals": [p.to_dict() for p in result.kept],
        "rejected": [
            {"index": x.index, "label": x.label, "reason": x.reason} for x in result.rejected
        ],
    }


def _harvest_queue(
    repo: Repository,
    actor: Person,
    provider: str,
    scope: str | None,
    proposals: Path | None,
    fmt: Format,
) -> None:
    """``harvest --queue``: every queued session not harvested yet, a progress bar on stderr."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from agentmem.harvest.batch import harvest_queue

    console = output.stderr()
    progress = Progress(
        TextColumn("harvesting queued sessions"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=console,
        disable=not console.is_terminal,  # no bar in CI logs or redirected output
    )
    task = progress.add_task("", total=None)

    def start(total: int) -> None:
        if total:  # no empty bar when nothing waits
            progress.update(task, total=total)
            progress.start()

    try:
        run = harvest_queue(
            repo,
            actor,
            provider=provider,
            scope=scope,
            proposals_file=proposals,
            on_start=start,
            on_done=lambda job: progress.update(
                task, advance=1, description=(job.queued or "")[:12]
            ),
        )
    finally:
        progress.stop()
    for warning in run.warnings:
        output.warn(warning)
    if run.bad_lines:
        lines = ", ".join(map(str, run.bad_lines[:10]))
        output.warn(f".agentmem/queue.jsonl: unreadable line(s) {lines} skipped")
    if fmt is Format.json:
        output.as_json(_result_json(r) for r in run.results)
    else:
        for result in run.results:
            _print_result(result)
        _offer_mappings(repo, actor, run.results)
    for job, exc in run.failures:
        output.error(f"session {job.queued}: {exc}")
    if run.refused:
        output.info(
            f"{len(run.refused)} queued session(s) refused: recorded in .agentmem/queue.jsonl, "
            "not tried again unless queued again"
        )
    done = len(run.results)
    if not done and not run.failures and not run.warnings:
        output.info(
            f"nothing to harvest: no queued session waits ({run.skipped} already harvested)"
        )
    elif done:
        kept = sum(len(r.kept) for r in run.results)
        follow = "; next: [bold]agentmem review[/]" if kept else ""
        output.info(f"{done} queued session{'s' if done != 1 else ''} harvested{follow}")
    if run.skipped and (done or run.failures):
        output.info(f"{run.skipped} queued session(s) skipped: already harvested")
    if run.failures:
        raise typer.Exit(1)
