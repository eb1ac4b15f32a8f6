"""``agentmem check`` (docs/design.md §Check): what a memory repository's CI runs."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output

if TYPE_CHECKING:
    from agentmem.check.findings import Finding

app = typer.Typer()


class CheckFormat(StrEnum):
    """``text`` for people, ``json`` for programs, ``github`` for GitHub Actions annotations,
    ``sarif`` for code scanning (SARIF 2.1.0)."""

    text = "text"
    json = "json"
    github = "github"
    sarif = "sarif"


@app.command()
def check(
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Also check every commit: who activated, who wrote which memory, trailers, signatures.",
        ),
    ] = False,
    history_only: Annotated[
        bool,
        typer.Option(
            "--history-only",
            help="Check every commit as --history does, but not the checked-out files: for a CI job that already ran 'agentmem check'.",
        ),
    ] = False,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="REV",
            help="With --history: only the commits after REV (e.g. origin/main).",
            show_default=False,
        ),
    ] = None,
    require_signed: Annotated[
        bool,
        typer.Option(
            "--require-signed",
            help="With --history: activations and roles/settings changes need a good signature from a key listed for their author (default: doctrine.require_signed).",
        ),
    ] = False,
    fmt: Annotated[
        CheckFormat,
        typer.Option(
            "--format",
            "-f",
            help="text, json, github (workflow annotations, plus a summary table in "
            "$GITHUB_STEP_SUMMARY when set), or sarif (SARIF 2.1.0 for code scanning).",
        ),
    ] = CheckFormat.text,
) -> None:
    """Check the memory repository: memory files, doctrine rules, roles, settings, inbox.

    Exit 0 when clean (warnings alone are clean), 1 when an error is found, 2 on a usage error.
    """
    from agentmem.check import run_check
    from agentmem.errors import UsageError
    from agentmem.store.root import locate

    if history_only and history:
        raise UsageError("--history-only already checks every commit: drop --history")
    if (since or require_signed) and not (history or history_only):
        raise UsageError(
            f"{'--since' if since else '--require-signed'} checks commits: add --history (or --history-only)"
        )
    report = run_check(
        locate(),
        history=history,
        since=since,
        require_signed=require_signed or None,
        history_only=history_only,
    )
    findings = report.sorted()
    if fmt is CheckFormat.json:
        output.as_json(f.to_dict() for f in findings)
    elif fmt is CheckFormat.sarif:
        from agentmem import __version__
        from agentmem.check.report_formats import sarif

        output.as_json(sarif(findings, __version__))
    else:
        for f in findings:
            output.data(
                _github(f)
                if fmt is CheckFormat.github
                else f"{f.path}:{f.line}: {f.severity}: {f.message} [{f.code}]"
            )
    errors, warnings = len(report.errors), len(report.warnings)
    parts = [] if history_only else [f"{report.files} files"]
    if report.commits is not None:
        parts.append(f"{report.commits} commit{'s' * (report.commits != 1)}")
    looked = ", ".join(parts)
    if fmt is CheckFormat.github and os.environ.get("GITHUB_STEP_SUMMARY"):
        from agentmem.check.report_formats import append_summary, summary_markdown

        try:
            append_summary(
                Path(os.environ["GITHUB_STEP_SUMMARY"]), summary_markdown(report, looked)
            )
        except OSError as exc:
            output.warn(f"GITHUB_STEP_SUMMARY: cannot write the summary ({output.esc(exc)})")
    if errors or warnings:
        output.info(
            f"agentmem check: {errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} ({looked})"
        )
    else:
        output.info(f"agentmem check: clean ({looked})")
    if errors:
        raise typer.Exit(1)


def _escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def _github(f: Finding) -> str:
    """A GitHub Actions workflow command: ``::error file=…,line=…,title=…::message``."""
    level = "error" if f.is_error else "warning"
    props = f"file={_escape(f.path, prop=True)},line={f.line},title={_escape(f.code, prop=True)}"
    return f"::{level} {props}::{_escape(f.message)}"
