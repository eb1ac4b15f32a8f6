"""``agentmem harvest TRANSCRIPT…`` (SPEC §6–7)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, PersonOption, repository
from agentmem.cli.output import Format

app = typer.Typer()


@app.command()
def harvest(
    transcripts: Annotated[
        list[Path],
        typer.Argument(
            help="Session transcript file(s): Claude Code or Codex JSONL, Messages JSON, or User:/Assistant: text.",
            show_default=False,
        ),
    ],
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
            help="anthropic | offline | replay (default: harvest.provider; auto = anthropic when ANTHROPIC_API_KEY is set).",
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
    fmt: FormatOption = Format.text,
) -> None:
    """Read finished session(s) and put at most 6 proposals per session in your inbox.

    One model call per session (or the offline extractor). Every proposal is validated; the
    rejected ones are listed with their reason. Review them with 'agentmem review'.
    """
    from agentmem.errors import AgentmemError
    from agentmem.harvest import choose_provider, harvest_session, load_outcomes
    from agentmem.review import require_owner

    repo = repository()
    actor = repo.actor()
    require_owner(actor, person or actor.id, "harvesting into")
    name = (
        "replay"
        if proposals is not None and provider is None
        else choose_provider(provider, repo.config.harvest.provider)
    )
    loaded = load_outcomes(outcomes) if outcomes else ()
    results, failures = [], 0
    for path in transcripts:
        try:
            with repo.locked():
                result = harvest_session(
                    repo,
                    actor,
                    path,
                    provider=name,
                    scope=scope,
                    outcomes=loaded,
                    proposals_file=proposals,
                )
        except AgentmemError as exc:
            if len(transcripts) == 1:
                raise
            output.error(str(exc))
            failures += 1
            continue
        results.append(result)
        if fmt is Format.text:
            _print_result(result)
    if fmt is Format.json:
        output.as_json(
            {
                "session": r.session,
                "transcript": r.transcript,
                "provider": r.provider,
                "received": r.received,
                "cut": r.cut,
                "commit": r.commit,
                "proposals": [p.to_dict() for p in r.kept],
                "rejected": [
                    {"index": x.index, "label": x.label, "reason": x.reason} for x in r.rejected
                ],
            }
            for r in results
        )
    elif any(r.kept for r in results):
        output.info("next: [bold]agentmem review[/] to accept, edit or reject them")
    if failures:
        raise typer.Exit(1)


def _print_result(result: object) -> None:
    from agentmem.harvest import HarvestResult

    assert isinstance(result, HarvestResult)
    kept = len(result.kept)
    output.data(
        f"session {result.session} ({Path(result.transcript).name}) via {result.provider}: "
        f"{kept} proposal{'s' if kept != 1 else ''} kept, {len(result.rejected)} rejected"
    )
    if result.cut:
        output.data(
            f"  the answer held {result.received} proposals; only the first "
            f"{result.received - result.cut} were kept (harvest.max_proposals)"
        )
    for p in result.kept:
        output.data(f"  {p.id}  {p.summary()}  [{p.basis}]")
    for r in result.rejected:
        output.data(f"  rejected #{r.index} {r.label}: {r.reason}")
