"""``agentmem context chat|audit`` (docs/design/context.md §Context): the blocks that reach a prompt."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import PersonOption, repository

app = typer.Typer(
    short_help="Prompt blocks: chat (your memory), audit (doctrine).",
    help="Context blocks for prompts: chat (your memory, never doctrine) and audit (team "
    "doctrine for a scope, never personal memory).\n\nExamples:\n\n\b\n"
    "  agentmem context chat\n  agentmem context audit --scope contracts/supply\n",
    no_args_is_help=True,
)


class ContextFormat(StrEnum):
    """``--format`` of a context block."""

    text = "text"
    markdown = "markdown"
    json = "json"


ContextFormatOption = Annotated[
    ContextFormat,
    typer.Option(
        "--format", "-f", help="text for prompts, markdown for documents, json for programs."
    ),
]


@app.command()
def chat(
    person: PersonOption = None,
    fmt: ContextFormatOption = ContextFormat.text,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            "-s",
            help="The session's scope, e.g. contracts/supply: entries meant everywhere plus those "
            "whose scope contains it (default $AGENTMEM_SCOPE; none: only entries meant everywhere).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print your memory as a prompt block: fill level, numbered entries under their sections.

    Never any doctrine, never an expired entry. Inferred entries are marked [inferred]. The
    block is labelled as remembered preference, not instructions. An admin may print another
    person's block with --person.
    """
    from agentmem.cli.hook import show
    from agentmem.delivery.fastpath import chat as run

    show(run(person, fmt.value, scope))


@app.command()
def audit(
    scope: Annotated[
        str,
        typer.Option(
            "--scope", "-s", help="The scope audited, e.g. contracts/supply.", show_default=False
        ),
    ],
    fmt: ContextFormatOption = ContextFormat.text,
) -> None:
    """Print the active doctrine rules that apply to a scope (its own and every ancestor), with
    their limits, numbered. Never any personal memory.

    Each call appends one line to .agentmem/usage.jsonl: every rule in scope, applied or why
    not, and how many others were left out for each reason (read it with 'agentmem usage').
    """
    from agentmem.delivery.context import audit_json, render_audit, run_audit

    repo = repository()
    ctx = run_audit(repo, repo.actor(), scope)
    if fmt is ContextFormat.json:
        output.as_json(audit_json(ctx))
    else:
        output.data(render_audit(ctx, fmt.value))
    for note in ctx.notes:  # what the served view left out (docs/design/served.md §Served doctrine)
        output.warn(output.esc(note))
    if not ctx.given:
        output.warn(f"role {ctx.role} is not in context.doctrine_for_roles: no doctrine given")
    if ctx.withheld:
        output.warn(
            f"rule(s) {', '.join(sorted(ctx.withheld))} withheld: an agentmem delimiter or a guard "
            "refusal (agentmem check names them)"
        )
    if ctx.overdue:
        output.warn(
            f"applied although past review: {', '.join(sorted(ctx.overdue))} (agentmem doctrine due)"
        )
    _warn_unknown_scope(ctx.scope, list(ctx.scopes))
    output.info(f"usage logged as run {ctx.run_id} in .agentmem/usage.jsonl")


def _warn_unknown_scope(scope: str, rule_scopes: list[str]) -> None:
    """A scope that no rule's scope meets (equal, above or below) is often a typo: say so, with
    the nearest known scopes, rather than let "no rule applies" pass for an answer."""
    from agentmem.doctrine.model import scopes_overlap

    known = sorted(set(rule_scopes))
    if not known or any(scopes_overlap(scope, s) for s in known):
        return
    folded = [s for s in known if s.casefold() == scope.casefold()]
    hint = f"did you mean {folded[0]}? (scopes are case-sensitive)" if folded else ""
    if not hint:
        import difflib

        close = difflib.get_close_matches(scope, known, n=3, cutoff=0.6)
        hint = (
            f"did you mean {' or '.join(close)}?"
            if close
            else f"known scopes: {', '.join(known[:8])}"
        )
    output.warn(
        f"no rule in doctrine/ has scope {output.esc(scope)}, or one above or below it: {output.esc(hint)}"
    )
