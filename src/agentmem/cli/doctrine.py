"""``agentmem doctrine …`` (docs/design/doctrine.md §Lifecycle): propose, review and govern the team's
rules."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem import trailers as tr
from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.doctrine.index import Brief
    from agentmem.doctrine.lifecycle import ApprovalPreview, Transition
    from agentmem.doctrine.model import Rule
    from agentmem.store.repo import Repository

app = typer.Typer(
    short_help="Team rules: propose, approve, suspend, restore, list.",
    help="Team doctrine: rules anyone may propose and only an admin activates.\n\nExamples:\n\n\b\n"
    "  agentmem doctrine list\n  agentmem doctrine show RULE-ID\n  agentmem doctrine approve RULE-ID\n  agentmem doctrine history RULE-ID\n",
    no_args_is_help=True,
)

Ids = Annotated[list[str], typer.Argument(help="Rule id(s).", show_default=False)]
Id = Annotated[str, typer.Argument(help="Rule id.", show_default=False)]
Yes = Annotated[
    bool, typer.Option("--yes", "-y", help="Do not ask before an active rule drops to draft.")
]
Distinct = Annotated[
    bool,
    typer.Option(
        "--distinct",
        help="Go on although similar rules exist: this is a different rule (the override is recorded).",
    ),
]
Limits = Annotated[
    list[str] | None,
    typer.Option(
        "--limit", "-l", help="An explicit limit of the rule. Repeatable.", show_default=False
    ),
]
Reason = Annotated[
    str | None,
    typer.Option(
        "--reason",
        help=f"Why you decide this: recorded with the decision ({tr.REASON}).",
        show_default=False,
    ),
]
Session = Annotated[
    str | None,
    typer.Option(
        "--session",
        help=f"The session the decision was taken in, when there is one ({tr.SESSION}).",
        show_default=False,
    ),
]
EditLimits = Annotated[
    list[str] | None,
    typer.Option(
        "--limit",
        "-l",
        help="A limit to ADD to the rule's limits (see --replace-limits). Repeatable.",
        show_default=False,
    ),
]


def _changes(before: Rule | None, after: Rule) -> None:
    """What a content change did to a rule: the limits in one sentence, then each changed
    field (text from a rule file: shown through output)."""
    from agentmem.doctrine.compare import diff_lines, limits_change

    if before is None:
        return
    said = limits_change(before.limits, after.limits)
    if said:
        output.info(output.esc(f"{after.id}: {said}"))
    for line in diff_lines(before, after):
        output.data(line)


def _report(verb: str, t: Transition) -> None:
    commit = t.commit[:10] if t.commit else "no change"
    signed = ", signed" if t.signed else ""
    output.data(
        f"{verb} {t.rule.id}: {t.status_from} → {t.rule.status}, version {t.rule.version} "
        f"({commit}{signed})"
    )
    for warning in t.warnings:
        output.warn(output.esc(warning))


def _each(
    ids: list[str],
    verb: str,
    action: Callable[..., Transition],
    reason: str | None,
    session: str | None,
) -> None:
    """Run one transition per id (one commit each, under the lock, with ``reason`` and
    ``session`` recorded); see :func:`_run_each`."""

    def locked(repo: Repository, rule_id: str, _version: int | None) -> Transition:
        with repo.locked():
            return action(repo, rule_id, reason=reason, session=session)

    _run_each([(rule_id, None) for rule_id in dict.fromkeys(ids)], verb, locked, len(ids) == 1)


def _run_each(
    pairs: list[tuple[str, int | None]],
    verb: str,
    action: Callable[[Repository, str, int | None], Transition],
    alone: bool,
) -> None:
    """Run ``action`` for each ``(rule id, version)`` and report its transition; a failure is
    raised as it is when the command named one rule (``alone``), else reported, and the
    command exits 1 once every rule was tried. The actor is the repository's, found by each
    lifecycle function itself (an unknown identity is refused before any rule is tried)."""
    from agentmem.errors import AgentmemError

    repo = repository()
    repo.actor()
    failed = 0
    for rule_id, version in pairs:
        try:
            transition = action(repo, rule_id, version)
        except AgentmemError as exc:
            if alone:
                raise
            output.error(f"{rule_id}: {exc}")
            failed += 1
            continue
        _report(verb, transition)
    if failed:
        raise typer.Exit(1)


def _confirmed(run: Callable[[bool], Transition]) -> Transition:
    """Run a content change; if it would drop an active rule to draft, say so and ask."""
    from agentmem.doctrine.drafts import ConfirmationNeeded
    from agentmem.doctrine.model import DoctrineError
    from agentmem.errors import UsageError

    try:
        return run(False)
    except ConfirmationNeeded as exc:
        if exc.after is not None:
            _changes(exc.before, exc.after)
        output.warn(output.esc(exc.message))
        try:
            answer = typer.confirm("Go on?", default=False, err=True)
        except typer.Abort:  # no answer (stdin closed, e.g. a script or CI)
            raise UsageError(
                "nothing changed: no answer to the question", hint="pass --yes to confirm"
            ) from None
        if not answer:
            raise DoctrineError("nothing changed", hint="pass --yes to skip the question") from None
    return run(True)


@app.command()
def propose(
    title: Annotated[str, typer.Option("--title", "-t", help="A short name of the rule.")],
    instruction: Annotated[
        str, typer.Option("--instruction", "-i", help="What the audit should do.")
    ] = "",
    limit: Limits = None,
    justification: Annotated[
        str, typer.Option("--justification", "-j", help="Why the team settled it.")
    ] = "",
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="The session it was born in; its scope is inherited.",
            show_default=False,
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            "-s",
            help="Scope (default: the session's; else to be assigned).",
            show_default=False,
        ),
    ] = None,
    rule_id: Annotated[
        str | None,
        typer.Option("--id", help="Rule id (default: from the title).", show_default=False),
    ] = None,
    distinct: Distinct = False,
) -> None:
    """Propose a draft rule (member, admin). A draft applies nowhere until an admin approves it;
    scope, instruction and at least one limit are checked then, not now."""
    from agentmem.doctrine.drafts import Draft
    from agentmem.doctrine.drafts import propose as do_propose

    repo = repository()
    draft = Draft(title, instruction, tuple(limit or ()), justification, scope, session)
    with repo.locked():
        transition = do_propose(repo, draft, rule_id=rule_id, distinct=distinct)
    _report("proposed", transition)
    if transition.rule.scope is None:
        output.info(
            f"scope to be assigned: agentmem doctrine assign {transition.rule.id} --scope S"
        )


@app.command()
def edit(
    rule_id: Id,
    title: Annotated[
        str | None, typer.Option("--title", "-t", help="New title.", show_default=False)
    ] = None,
    instruction: Annotated[
        str | None, typer.Option("--instruction", "-i", help="New instruction.", show_default=False)
    ] = None,
    limit: EditLimits = None,
    replace_limits: Annotated[
        bool,
        typer.Option(
            "--replace-limits",
            help="The --limit options replace ALL the rule's limits instead of being added.",
        ),
    ] = False,
    justification: Annotated[
        str | None,
        typer.Option("--justification", "-j", help="New justification.", show_default=False),
    ] = None,
    yes: Yes = False,
    distinct: Distinct = False,
) -> None:
    """Change a rule's content (member, admin): a new version. An active rule drops to draft and
    its approval is cleared — you are told and asked first (--yes for scripts). --limit ADDS a
    limit; with --replace-limits the given limits replace them all. Shows what changed."""
    from agentmem.doctrine.drafts import Changes
    from agentmem.doctrine.drafts import edit as do_edit

    repo = repository()
    changes = Changes(
        title,
        instruction,
        tuple(limit) if limit else None,
        justification,
        replace_limits=replace_limits,
    )

    def run(confirmed: bool) -> Transition:
        with repo.locked():
            return do_edit(repo, rule_id, changes, yes=confirmed or yes, distinct=distinct)

    transition = _confirmed(run)
    _report("edited", transition)
    _changes(transition.before, transition.rule)


@app.command()
def assign(
    rule_id: Id,
    scope: Annotated[str, typer.Option("--scope", "-s", help="The scope, e.g. contracts/supply.")],
    yes: Yes = False,
    distinct: Distinct = False,
) -> None:
    """Give a rule its scope (member, admin): a content change, like edit."""
    from agentmem.doctrine.drafts import assign as do_assign

    repo = repository()

    def run(confirmed: bool) -> Transition:
        with repo.locked():
            return do_assign(repo, rule_id, scope, yes=confirmed or yes, distinct=distinct)

    _report("assigned", _confirmed(run))


@app.command()
def restore(
    rule_id: Id,
    version: Annotated[
        int, typer.Option("--version", "-v", help="The version whose content comes back.", min=1)
    ],
    yes: Yes = False,
    distinct: Distinct = False,
    reason: Reason = None,
    session: Session = None,
) -> None:
    """Bring back the content of version N (from git history) as a new draft version; its old
    status and approval never come back (member, admin)."""
    from agentmem.doctrine.drafts import restore as do_restore

    repo = repository()

    def run(confirmed: bool) -> Transition:
        with repo.locked():
            return do_restore(
                repo,
                rule_id,
                version,
                yes=confirmed or yes,
                distinct=distinct,
                reason=reason,
                session=session,
            )

    _report(f"restored version {version} of", _confirmed(run))


def _interactive() -> bool:
    """Someone at a terminal can be asked (stdin and stderr are terminals)."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _pins(rule_ids: list[str], version: int | None) -> list[tuple[str, int | None]]:
    """``ID`` or ``ID@N`` arguments with ``--version`` → ``(id, version)`` pairs."""
    from agentmem.errors import UsageError

    pairs: list[tuple[str, int | None]] = []
    for arg in dict.fromkeys(rule_ids):
        rule_id, at, pinned = arg.partition("@")
        if at and not (pinned.isdigit() and int(pinned) >= 1):
            raise UsageError(
                "an ID@N argument: N must be a version number (1, 2, …)",
                hint="agentmem doctrine history ID lists the versions",
            )
        pairs.append((rule_id, int(pinned) if at else None))
    if version is not None:
        if len(pairs) != 1 or pairs[0][1] not in (None, version):
            raise UsageError(
                "--version pins ONE rule; to approve several, pin each as ID@N",
                hint="e.g. agentmem doctrine approve r7@2 r9@1",
            )
        pairs = [(pairs[0][0], version)]
    return pairs


_SHOWN_CONFLICTS = 5  # conflicts named before approving; check lists every rule


def _show_preview(preview: ApprovalPreview) -> None:
    """What an approval activates: the changes since the last active version (or the whole
    rule), then any rule it conflicts with (a warning: docs/decisions/)."""
    rule, base = preview.rule, preview.base
    if base is None:
        output.data(f"{rule.id} version {rule.version} (never active before):")
    elif preview.changes:
        output.data(
            f"{rule.id} version {rule.version}: changes since version {base.version}, the last "
            "active one:"
        )
    else:
        output.data(
            f"{rule.id} version {rule.version}: same content as version {base.version}, the "
            "last active one"
        )
    for line in preview.changes:
        output.data(line)
    for conflict in preview.conflicts[:_SHOWN_CONFLICTS]:
        output.warn(output.esc(f"{rule.id} may contradict {conflict.describe()}"))
    more = len(preview.conflicts) - _SHOWN_CONFLICTS
    if more > 0:
        output.warn(f"… and {more} more rule(s): agentmem check lists them (doctrine-conflict)")
    if preview.conflicts:
        output.info(
            "a conflict is a heuristic: approving does not resolve it; edit or deactivate one of "
            "the rules if they cannot both hold"
        )


def _approve_one(
    repo: Repository,
    rule_id: str,
    version: int | None,
    reason: str | None = None,
    session: str | None = None,
) -> Transition:
    from agentmem.doctrine.lifecycle import VersionMovedError, decision_trailers, preview_approval
    from agentmem.doctrine.lifecycle import approve as do_approve
    from agentmem.doctrine.model import DoctrineError, content_sha256
    from agentmem.errors import UsageError

    decision_trailers(reason, session)  # a refused reason is said before anything is shown
    preview = preview_approval(repo, rule_id)
    rule = preview.rule
    content: str | None = None
    if version is None or version == rule.version:
        _show_preview(preview)
    if version is None:
        if not _interactive():
            raise UsageError(
                f"{rule_id}: not approved: say which version you approve (it is at version "
                f"{rule.version}; what it activates is shown above)",
                hint=(
                    f"read it (agentmem doctrine diff {rule_id}), then "
                    f"agentmem doctrine approve {rule_id} --version {rule.version}"
                ),
            )
        try:
            answer = typer.confirm(
                f"Approve {rule_id} version {rule.version}?", default=False, err=True
            )
        except typer.Abort:  # no answer (end of input)
            raise UsageError(
                f"{rule_id}: not approved: no answer to the question",
                hint=f"agentmem doctrine approve {rule_id} --version {rule.version}",
            ) from None
        if not answer:
            raise DoctrineError(f"{rule_id}: not approved")
        version, content = rule.version, content_sha256(rule)
    try:
        with repo.locked():
            return do_approve(
                repo, rule_id, version=version, content=content, reason=reason, session=session
            )
    except VersionMovedError as exc:
        for line in exc.changes:
            output.data(line)
        raise


@app.command()
def approve(
    rule_ids: Annotated[
        list[str],
        typer.Argument(
            help="Rule id(s); ID@N pins version N of each when approving several.",
            show_default=False,
        ),
    ],
    version: Annotated[
        int | None,
        typer.Option(
            "--version",
            "-v",
            help="The version you read and approve; refused, with what changed, when the rule "
            "has moved on. Required unless you answer at a terminal.",
            min=1,
            show_default=False,
        ),
    ] = None,
    reason: Reason = None,
    session: Session = None,
) -> None:
    """Activate draft rules (admin, never the proposer; needs scope, instruction, ≥1 limit).

    Shows what changed since the rule's last active version (the whole rule if it never was)
    and any live rule of an overlapping scope it contradicts, then approves exactly the version
    you name (--version N, or ID@N); at a terminal without it, asks. --reason says why (it is
    recorded with the approval)."""
    pins = _pins(rule_ids, version)

    def one(repo: Repository, rule_id: str, pinned: int | None) -> Transition:
        return _approve_one(repo, rule_id, pinned, reason, session)

    _run_each(pins, "approved", one, len(pins) == 1)


@app.command("diff")
def diff_rule(
    rule_id: Id,
    since: Annotated[
        int | None,
        typer.Option(
            "--from",
            help="Compare with this version (default: the last active one).",
            min=1,
            show_default=False,
        ),
    ] = None,
) -> None:
    """What a rule's current version changes: since its last active version (the whole rule when
    it never was active), or since version --from N. What doctrine approve shows."""
    from agentmem.doctrine.compare import diff_lines
    from agentmem.doctrine.lifecycle import changes_since_active
    from agentmem.doctrine.parse import load_rule
    from agentmem.doctrine.versions import version_content

    repo = repository()
    root = repo.root
    rule = load_rule(root, rule_id)
    base: Rule | None
    if since is not None:
        base = version_content(root, rule_id, since) if since != rule.version else rule
        changes = diff_lines(base, rule)
        what = f"version {since}"
    else:
        found, lines = changes_since_active(repo, rule)
        base, changes = found, list(lines)
        what = f"version {found.version}, the last active one" if found else ""
    if base is None:
        output.data(f"{rule.id} version {rule.version} (never active before):")
    elif not changes:
        output.data(f"{rule.id} version {rule.version}: same content as {what}")
    else:
        output.data(f"{rule.id} version {rule.version} ({rule.status}): changes since {what}:")
    for line in changes:
        output.data(line)


@app.command()
def suspend(rule_ids: Ids, reason: Reason = None, session: Session = None) -> None:
    """Stop applying active rules for a while (admin); resume brings them back."""
    from agentmem.doctrine.lifecycle import suspend as do

    _each(rule_ids, "suspended", do, reason, session)


@app.command()
def resume(rule_ids: Ids, reason: Reason = None, session: Session = None) -> None:
    """Re-activate suspended rules (admin) whose content still matches their approval."""
    from agentmem.doctrine.lifecycle import resume as do

    _each(rule_ids, "resumed", do, reason, session)


@app.command()
def deactivate(rule_ids: Ids, reason: Reason = None, session: Session = None) -> None:
    """Retire active or suspended rules (admin); their approval is cleared."""
    from agentmem.doctrine.lifecycle import deactivate as do

    _each(rule_ids, "deactivated", do, reason, session)


@app.command()
def archive(rule_ids: Ids, reason: Reason = None, session: Session = None) -> None:
    """Archive rules in any status (admin): kept for the record, never changed again."""
    from agentmem.doctrine.lifecycle import archive as do

    _each(rule_ids, "archived", do, reason, session)


@app.command()
def reconfirm(rule_ids: Ids, reason: Reason = None, session: Session = None) -> None:
    """Review active rules (admin, not the proposer): review_due moves review_days ahead."""
    from agentmem.doctrine.lifecycle import reconfirm as do

    _each(rule_ids, "reconfirmed", do, reason, session)


def _line(rule: Rule) -> str:
    scope = rule.scope or "(to be assigned)"
    return f"{rule.id:<40} {rule.status:<11} v{rule.version:<3} {scope:<24} {rule.title}"


def _brief_line(brief: Brief) -> str:
    """:func:`_line` from the rule index's row (the same text)."""
    scope = brief.scope or "(to be assigned)"
    return f"{brief.id:<40} {brief.status:<11} v{brief.version:<3} {scope:<24} {brief.label}"


@app.command("list")
def list_rules(
    status: Annotated[
        str | None, typer.Option("--status", help="Only this status.", show_default=False)
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope", "-s", help="Only rules that apply to this scope.", show_default=False
        ),
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """List the rules: id, status, version, scope, title."""
    from agentmem.doctrine.index import read_briefs
    from agentmem.doctrine.model import STATUSES, applies_to
    from agentmem.errors import UsageError

    if status is not None and status not in STATUSES:
        raise UsageError(f"--status {status!r}: expected one of {', '.join(STATUSES)}")
    root = repository().root
    if fmt is Format.json:
        # lazy: the JSON listing reads every rule from its file (the YAML reader)
        from agentmem.doctrine.parse import load_rules_and_errors

        every, errors = load_rules_and_errors(root)
        output.as_json(
            r.to_dict()
            for r in every
            if (status is None or r.status == status)
            and (scope is None or applies_to(r.scope, scope))
        )
    else:
        # the text listing comes from the rule index: only files changed since it was
        # written are parsed (docs/design/search.md §Rule index)
        found = read_briefs(root)
        errors = found.errors
        briefs = [
            b
            for b in found.briefs
            if (status is None or b.status == status)
            and (scope is None or applies_to(b.scope, scope))
        ]
        if not briefs and not errors:
            output.info("no rules")
        else:
            output.data_lines(_brief_line(b) for b in briefs)
    for error in errors:
        output.error(str(error))
    if errors:
        output.info(
            f"{len(errors)} rule file(s) unreadable: listed without them; audits refuse to run "
            "until they are fixed (agentmem check names every problem)"
        )
        raise typer.Exit(1)


@app.command()
def show(rule_ids: Ids, fmt: FormatOption = Format.text) -> None:
    """Show rules as their files hold them, with what approval still needs."""
    from agentmem.apply.writer import read_current
    from agentmem.doctrine.model import lifecycle_problems, missing_for_activation
    from agentmem.doctrine.parse import load_rule

    root = repository().root
    rules = [load_rule(root, rule_id) for rule_id in dict.fromkeys(rule_ids)]
    if fmt is Format.json:
        output.as_json(r.to_dict() for r in rules)
        return
    for number, rule in enumerate(rules):
        if number:
            output.data("")
        output.data(f"# {rule.path}")
        output.data((read_current(root, rule.path) or "").rstrip("\n"))
        missing = missing_for_activation(rule)
        if rule.status == "draft" and missing:
            output.info(f"{rule.id}: approval needs {', '.join(missing)}")
        for key, reason in lifecycle_problems(rule):
            output.warn(output.esc(f"{rule.path}: {key}: {reason}"))


@app.command()
def history(rule_id: Id, fmt: FormatOption = Format.text) -> None:
    """Every version and status change of a rule: who, what, when (from the audit commits)."""
    from agentmem.doctrine.parse import load_rule
    from agentmem.doctrine.versions import rule_history

    repo = repository()
    load_rule(repo.root, rule_id)
    entries = rule_history(repo.root, rule_id)
    if fmt is Format.json:
        output.as_json(e.to_dict() for e in entries)
        return
    for e in entries:
        version = f"v{e.version}" if e.version is not None else "v?"
        change = f"{e.status_from} → {e.status_to}"
        output.data(
            f"{version:<4} {e.date[:19]}  {e.actor:<32} {e.action:<10} {change:<22} {e.commit[:10]}"
        )
        if e.reason:
            output.data(f"     why: {e.reason}")


@app.command()
def due(fmt: FormatOption = Format.text) -> None:
    """Active rules past their review date or in a retired scope (admin). Under on_review_due:
    alert they stay applied; under suspend they stop applying until reconfirmed."""
    from agentmem.doctrine.lifecycle import due as find_due

    repo = repository()
    items = find_due(repo)
    if fmt is Format.json:
        output.as_json(d.to_dict() for d in items)
        return
    if not items:
        output.info("no rule is past its review date")
        return
    policy = repo.config.doctrine.on_review_due
    for d in items:
        state = "still applied" if d.applied else "not applied"
        when = f"scope retired {d.retired}" if d.retired else f"due {d.rule.review_due}"
        output.data(
            f"{d.rule.id:<40} {when} ({d.days_overdue} day(s) overdue)  "
            f"{state} (on_review_due: {policy})"
        )
    output.info("review each with: agentmem doctrine reconfirm ID (or edit, suspend, deactivate)")
