"""``agentmem check`` (docs/design/check.md §Check): what a memory repository's CI runs."""

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


@app.command(short_help="The server check CI runs: files, rules, and --history.")
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
    pre_receive: Annotated[
        bool,
        typer.Option(
            "--pre-receive",
            help="Judge a push as a server's pre-receive hook: read git's '<old> <new> <ref>' lines on stdin and check only the commits each ref gains (agentmem install-server-hook PATH installs it).",
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

    Examples:

    \b
      agentmem check
      agentmem check --history --since origin/main
      agentmem check --format github         # in CI
    """
    from agentmem.check.run import run_check
    from agentmem.errors import UsageError
    from agentmem.store.root import locate

    if pre_receive:
        if history or history_only or since or require_signed:
            raise UsageError(
                "--pre-receive judges the pushed commits alone: drop --history, "
                "--history-only, --since and --require-signed"
            )
        _pre_receive(fmt)
        return
    if history_only and history:
        raise UsageError("--history-only already checks every commit: drop --history")
    if (since or require_signed) and not (history or history_only):
        raise UsageError(
            f"{'--since' if since else '--require-signed'} checks commits: add --history (or --history-only)"
        )
    report = run_check(
        Path(locate()),
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


def _server_root() -> Path:
    """The repository a server hook runs in: the bare repository git runs it in (its git
    directory), else the memory repository found as every command finds it."""
    from agentmem.store.gitio import run_git
    from agentmem.store.root import locate

    here = Path.cwd()
    proc = run_git(here, ["rev-parse", "--is-bare-repository"], check=False)
    if proc.returncode == 0 and proc.stdout.strip() == "true":
        return Path(run_git(here, ["rev-parse", "--absolute-git-dir"]).stdout.strip())
    return Path(locate())


def _pre_receive(fmt: CheckFormat) -> None:
    """``check --pre-receive``: every updated ref judged (:mod:`agentmem.check.prereceive`);
    findings on stdout (git shows them to the pusher as ``remote:`` lines), one verdict line
    per ref on stderr; exit 1 refuses the whole push."""
    import sys

    from agentmem.check.prereceive import judge_push, parse_updates

    updates = parse_updates(sys.stdin.read().splitlines())
    verdicts = judge_push(_server_root(), updates)
    if fmt is CheckFormat.json:
        output.as_json(
            {
                "ref": v.ref.ref,
                "old": v.ref.old,
                "new": v.ref.new,
                "commits": v.commits,
                "refused": v.refused,
                "findings": [f.to_dict() for f in v.findings],
            }
            for v in verdicts
        )
    for verdict in verdicts:
        if fmt is not CheckFormat.json:
            for f in verdict.findings:
                output.data(
                    _github(f)
                    if fmt is CheckFormat.github
                    else f"{f.path}:{f.line}: {f.severity}: {f.message} [{f.code}]"
                )
        name, n = verdict.ref.ref, verdict.commits
        if verdict.ref.deleted:
            output.info(f"agentmem: {name}: deleted (nothing to judge)")
        elif verdict.refused:
            errors = sum(f.is_error for f in verdict.findings)
            output.info(
                f"agentmem: {name}: refused, {errors} error{'s' * (errors != 1)} in "
                f"{n} commit{'s' * (n != 1)}"
            )
        else:
            output.info(f"agentmem: {name}: accepted ({n} commit{'s' * (n != 1)} judged)")
    if any(v.refused for v in verdicts):
        output.info(
            "agentmem: push refused: nothing was updated. Each change to memory, doctrine, "
            "roles and settings must come through agentmem (see the lines above); "
            "check a clone with agentmem check --history --since origin/main before pushing again"
        )
        raise typer.Exit(1)


def _escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def _github(f: Finding) -> str:
    """A GitHub Actions workflow command: ``::error file=…,line=…,title=…::message``."""
    level = "error" if f.is_error else "warning"
    props = f"file={_escape(f.path, prop=True)},line={f.line},title={_escape(f.code, prop=True)}"
    return f"::{level} {props}::{_escape(f.message)}"
