"""``agentmem erase`` (docs/design/sync.md §Sync): remove a person's memory, or a text, from
everywhere."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(short_help="Erase personal data, history included (admin).")
def erase(
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "-p",
            help="Erase this person's memory and pending proposals.",
            show_default=False,
        ),
    ] = None,
    text: Annotated[
        str | None,
        typer.Option(
            "--text",
            help="Erase this text in any letter case and as a slug (dave-chen), e.g. a name or an e-mail address; '-' reads one line from stdin.",
            show_default=False,
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Erase personal data from the work tree, every commit, the inbox and local logs (admin only).

    Rewrites the history of this clone with git-filter-repo (on a fresh mirror): agentmem's own
    files through their own serialisers, paths and rule ids renamed. Verifies that no blob, path,
    commit message or reflog entry holds any form of it and that the rewritten files still
    parse, and records who erased what class of data in an audit commit — never the data itself
    — with the hashes and first rewritten commits in erasures.yaml, which check --history and
    sync consult. Prints the steps left for the remote host and the other clones.

    Examples:

    \b
      agentmem erase --person dave
      agentmem erase --text "dave.chen@example.com" --yes
    """
    from agentmem.cli.common import repository
    from agentmem.erase.run import erase as run_erase
    from agentmem.erase.run import make_target, survey
    from agentmem.errors import UsageError

    if text == "-":
        text = sys.stdin.readline().rstrip("\r\n")
    repo = repository()
    target = make_target(repo, person, text)
    with repo.locked():
        found = survey(repo, target)
        output.info(
            f"erase {output.esc(target.data_class)}: {len(found.files)} file(s) in the work tree, "
            f"{found.commits} commit(s), {len(found.local)} local file(s); history will be rewritten"
        )
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError(
                    "erase rewrites history: confirm with --yes (no terminal to ask in)"
                )
            typer.confirm("Rewrite the history of this repository?", abort=True, err=True)
        result = run_erase(repo, target, found)
    output.data(f"erased {result.target.data_class}: commit {result.commit[:10]}")
    for path in result.files + result.local:
        output.data(f"  cleaned {path}")
    output.data(f"verified: {'; '.join(result.checks)} find nothing")
    for path in result.untracked:
        output.warn(f"{path}: an untracked file still holds the text; delete or edit it yourself")
    output.data("left to do elsewhere:")
    for number, step in enumerate(result.steps, start=1):
        output.data(f"  {number}. {step}")
