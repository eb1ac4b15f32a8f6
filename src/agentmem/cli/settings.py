"""``agentmem settings approve REV`` (docs/design/doctrine.md §Lifecycle): a second admin approves a
commit that relaxed a governance setting of ``agentmem.yaml``."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import repository

app = typer.Typer(
    short_help="Governance settings: a second admin approves relaxing.",
    help="Governance settings: a second admin approves relaxing one.\n\nExamples:\n\n\b\n"
    "  agentmem settings approve COMMIT      # the commit that relaxed a setting\n",
    no_args_is_help=True,
)


@app.command()
def approve(
    rev: Annotated[str, typer.Argument(help="The commit that relaxed the setting(s).")],
) -> None:
    """Approve, as an admin other than its author, a commit that relaxed a governance setting
    of agentmem.yaml (distinct_approver or require_signed off, a longer review period…):
    one empty audited commit. Until then check --history reports the relaxation
    (history-settings-relaxed) and judges with the stricter value."""
    from agentmem.doctrine.settings import approve_relaxation

    repo = repository()
    with repo.locked():
        done = approve_relaxation(repo, rev)
    output.data(
        f"approved {', '.join(done.names)} relaxed by {done.author or 'its author'} in "
        f"{done.commit[:10]} → {done.approval[:10]}"
    )
