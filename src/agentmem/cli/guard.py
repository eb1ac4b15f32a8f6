"""``agentmem guard``: ask the guard about a text before it goes anywhere
(docs/design/guard.md §Guard)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption
from agentmem.cli.output import Format

app = typer.Typer()


@app.command(short_help="Check a text as memory and doctrine writes are checked.")
def guard(
    text: Annotated[str, typer.Argument(help="The text to check; '-' reads standard input.")] = "-",
    kind: Annotated[
        str,
        typer.Option(
            help="entry (one memory line), rule (a doctrine field) or file (a whole memory file)."
        ),
    ] = "entry",
    max_chars: Annotated[
        int | None, typer.Option(help="Refuse above this many characters.", show_default=False)
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """Check a text with the guard: exit 0 when it may enter memory, 1 when it is refused.

    Findings give a reason code, a position and a message; a secret or personal-data value is
    never printed back. Needs no memory repository. A --kind file text is read as it reaches a
    prompt, as 'agentmem check' reads it: the entries' record markers removed (positions are in
    that text).

    Examples:

    \b
      agentmem guard "Always answer in French."
      agentmem guard --kind rule "Accept a 12-month warranty."
      agentmem guard - < draft.txt
      agentmem guard --kind file < memories/claire.md
    """
    from agentmem import guard as guard_module
    from agentmem.errors import UsageError

    if kind not in ("entry", "rule", "file"):
        raise UsageError(f"--kind is {kind!r}; expected entry, rule or file")
    body = sys.stdin.read() if text == "-" else text
    if text == "-" and kind != "file":
        body = body.removesuffix("\n")
    if kind == "file":
        from agentmem.memory.records import strip_markers

        # As it reaches a prompt, as 'agentmem check' scans it: the entries' record markers
        # (written by agentmem itself) are not HTML for the guard to refuse.
        body = strip_markers(body)
    findings = guard_module.scan(body, max_chars=max_chars, kind=kind)
    if fmt is Format.json:
        output.as_json(
            {
                "code": f.code,
                "severity": f.severity,
                "start": f.start,
                "end": f.end,
                "message": f.message,
            }
            for f in findings
        )
    elif not findings:
        output.data("clean")
    else:
        for f in findings:
            output.data(f"{f.severity}: {f.code} at {f.start}: {f.message}")
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)
