"""``agentmem review`` (docs/design/memory.md §Proposals): interactive, or scripted with
--accept/--reject/--edit."""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TextIO

    from rich.console import Console
    from rich.prompt import Prompt
    from rich.text import TextType

    from agentmem.apply.planner import MemoryPlan
    from agentmem.memory.file import Entry
    from agentmem.proposals.conflicts import Contradiction
    from agentmem.proposals.model import Proposal
    from agentmem.proposals.review import DoctrineOutcome
    from agentmem.store.repo import Person, Repository

app = typer.Typer()


@app.command(short_help="Accept, edit or reject your pending proposals.")
def review(
    accept: Annotated[
        list[str] | None,
        typer.Option(
            "--accept", "-a", help="Accept a proposal id, or 'all'. Repeatable.", show_default=False
        ),
    ] = None,
    reject: Annotated[
        list[str] | None,
        typer.Option(
            "--reject", "-r", help="Reject a proposal id, or 'all'. Repeatable.", show_default=False
        ),
    ] = None,
    edit: Annotated[
        list[str] | None,
        typer.Option(
            "--edit",
            "-e",
            help="Accept ID with new text: --edit ID=TEXT. Repeatable.",
            show_default=False,
        ),
    ] = None,
    route: Annotated[
        list[str] | None,
        typer.Option(
            "--route",
            help="Accept ID corrected to another route: --route ID=memory|doctrine. Repeatable.",
            show_default=False,
        ),
    ] = None,
    section: Annotated[
        list[str] | None,
        typer.Option(
            "--section",
            help="Accept ID corrected to another memory section: --section ID=NAME. Repeatable.",
            show_default=False,
        ),
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option(
            "--target",
            help="Accept a modify/remove ID with another target entry: --target ID=TEXT "
            "(a substring of one entry). Repeatable.",
            show_default=False,
        ),
    ] = None,
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            help="Accept ID with another scope: --scope ID=SCOPE (a path such as "
            "contracts/supply, or 'everywhere'). Repeatable.",
            show_default=False,
        ),
    ] = None,
    modify: Annotated[
        list[str] | None,
        typer.Option(
            "--modify",
            help="Accept an add ID as a modify of entry N instead (e.g. the entry it "
            "contradicts): --modify ID=N. Repeatable.",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would change; write nothing.")
    ] = False,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive",
            "-i",
            help="Ask even when stdin is not a terminal (answers may be piped).",
        ),
    ] = False,
    distinct: Annotated[
        bool,
        typer.Option(
            "--distinct",
            help="Make accepted doctrine proposals drafts although similar rules exist "
            "(the override is recorded).",
        ),
    ] = False,
    allow_foreign: Annotated[
        bool,
        typer.Option(
            "--allow-foreign",
            help="Accept proposals someone else committed to your inbox (each is named; "
            "without this flag they can only be rejected or skipped).",
        ),
    ] = False,
) -> None:
    """Decide on your pending proposals, line by line.

    Without flags, in a terminal: each proposal is shown (with its basis and scope) as a diff of
    your memory file with the fill level after it; answer accept / edit / reject / skip / quit
    (edit also asks the route, section, scope and target, each pre-filled). A proposal that
    contradicts one of your entries is shown beside it, and may be accepted as a modify of that
    entry instead (--modify ID=N, or [m] interactively). Each accepted proposal is
    one commit; the rejections are one commit. Memory proposals are committed first; then each
    accepted doctrine proposal becomes a draft rule (one commit each, you are its proposer); a
    draft that fails is reported rule by rule and the memory commits stay.

    A proposal that you did not commit to your inbox yourself (through harvest, remember,
    import, tidy or an agent's MCP tool under your git identity) is named with who committed
    it, and accepted only with --allow-foreign. An unreadable inbox file is skipped with a
    warning naming it.

    Examples:

    \b
      agentmem review                         # interactive
      agentmem review --dry-run
      agentmem review --accept p-20261201-bc6e15 --reject all
      agentmem review --edit "p-20261201-bc6e15=Five bullets, not three."
    """
    from agentmem.cli.common import repository
    from agentmem.cli.inbox import warn_broken
    from agentmem.errors import UsageError
    from agentmem.proposals.inbox import foreign, read_inbox

    repo = repository()
    actor = repo.actor()
    box = read_inbox(repo, actor.id)
    warn_broken(box.broken)
    pending = box.proposals
    strange = foreign(repo, pending, box.read)  # the bytes parsed: not read again
    trust = _Trust(strange, allow_foreign)
    memory = [p for p in pending if p.route == "memory"]
    doctrine = [p for p in pending if p.route == "doctrine"]
    fixes = {
        "route": route or [],
        "section": section or [],
        "target": target or [],
        "scope": scope or [],
        "modify": modify or [],
    }
    scripted = bool(accept or reject or edit or any(fixes.values()))
    if box.broken and "all" in (reject or []):
        _drop_broken(repo, actor, [b.path for b in box.broken], dry_run)
    if not pending:
        output.info("no proposals to review")
        if scripted and _names_ids(accept, reject, edit, route, section, target, scope, modify):
            raise UsageError("nothing pending matches the given ids")
        return
    if scripted:
        flags = (accept or [], reject or [], edit or [])
        _scripted(repo, actor, memory + doctrine, *flags, dry_run, distinct, fixes, trust)
    elif dry_run:
        preview, shown = _previewer(repo), output.stdout()  # a preview is data: stdout
        for proposal in memory:
            trust.show(proposal, shown)
            plan = _plan_or_none(repo, proposal, plan=preview)
            _show(proposal, plan, shown, _contradicted(repo, proposal), scripted=True)
        for proposal in doctrine:
            trust.show(proposal, shown)
            _show_doctrine(repo, actor, proposal, console=shown)
    elif not interactive and not sys.stdin.isatty():
        raise UsageError(
            "no terminal to ask in",
            hint="use --accept ID|all, --reject ID|all or --edit ID=TEXT (add --dry-run to preview)",
        )
    else:
        _interactive(repo, actor, memory, doctrine, distinct, trust)


def _drop_broken(repo: Repository, actor: Person, paths: list[str], dry_run: bool) -> None:
    """``--reject all`` also drops the unreadable files of the inbox (one commit)."""
    from agentmem.proposals.review import drop_broken

    if dry_run:
        output.data(f"would drop {', '.join(paths)}")
        return
    with repo.locked():
        commit, dropped = drop_broken(repo, paths)
    if commit:
        output.data(f"dropped {', '.join(dropped)} → {commit[:10]}")
    for rel in sorted(set(paths) - set(dropped)):
        output.warn(
            f"{output.esc(rel)}: not dropped (not a regular UTF-8 file of your inbox); "
            f"remove it yourself: git rm -r -- {output.esc(rel)}"
        )


class _Trust:
    """The proposals of the inbox its owner did not commit (``strange``: id → why) and whether
    the reviewer allowed accepting them (``--allow-foreign``)."""

    def __init__(self, strange: dict[str, str], allowed: bool) -> None:
        self.strange = strange
        self.allowed = allowed

    def show(self, proposal: Proposal, console: Console) -> None:
        why = self.strange.get(proposal.id)
        if why is not None:
            rule = "accepted with --allow-foreign" if self.allowed else "needs --allow-foreign"
            console.print(f"[bold red]not from you:[/] {proposal.id} — {output.esc(why)} ({rule})")

    def refusal(self, proposal: Proposal) -> str | None:
        """Why ``proposal`` may not be accepted in this review, or None."""
        why = self.strange.get(proposal.id)
        if why is None or self.allowed:
            return None
        return f"{why}; accept it only if you checked it yourself: --allow-foreign (or reject it)"


def _names_ids(*lists: list[str] | None) -> bool:
    return any(v and v != "all" for values in lists if values for v in values)


def _corrections(
    repo: Repository, pending: list[Proposal], fixes: dict[str, list[str]]
) -> tuple[dict[str, Proposal], dict[str, Proposal]]:
    """``(corrected, originals)`` by proposal id from ``--route/--section/--target/--scope
    ID=VALUE``. Raises :class:`UsageError` for a malformed flag, an unknown id or an invalid
    scope (checked once, by :meth:`Proposal.corrected`), :class:`ProposalError` for a correction
    that leaves a proposal malformed."""
    from agentmem.errors import UsageError
    from agentmem.proposals.review import as_modify_of

    wanted: dict[str, dict[str, str]] = {}
    for name, items in fixes.items():
        for item in items:
            pid, sep, value = item.partition("=")
            if not sep or not value.strip():
                shown = item if name != "scope" else f"{pid}=…"  # a scope is not echoed
                raise UsageError(f"--{name} takes ID=VALUE, got {shown!r}")
            if name == "modify" and not re.fullmatch(r"#?[0-9]+", value.strip()):
                raise UsageError(f"--modify takes ID=N (an entry number), got {item!r}")
            wanted.setdefault(pid, {})[name] = value.strip()
    corrected: dict[str, Proposal] = {}
    originals: dict[str, Proposal] = {}
    flags = "--route/--section/--target/--scope/--modify"
    for proposal in _resolve(list(wanted), pending, flags):
        fix = wanted[proposal.id]
        fixed = proposal
        if "modify" in fix:
            fixed = as_modify_of(repo, proposal, int(fix["modify"].lstrip("#")))
        corrected[proposal.id] = fixed.corrected(
            route=fix.get("route"),
            section=fix.get("section"),
            target=fix.get("target"),
            scope=fix.get("scope"),
            scope_flag=True,
        )
        originals[proposal.id] = proposal
    return corrected, originals


def _changed_spans(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where ``old`` and ``new`` differ, word by word: the ``(start, end)`` offsets of the words
    removed from ``old`` and of those added in ``new`` (what a modify changes within its
    entry: "Summaries in [3] bullets." / "Summaries in [5] bullets.")."""
    import difflib

    a, b = list(_WORD.finditer(old)), list(_WORD.finditer(new))
    matcher = difflib.SequenceMatcher(
        a=[m.group() for m in a], b=[m.group() for m in b], autojunk=False
    )
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            removed.append((a[i1].start(), a[i2 - 1].end()))
        if op in ("insert", "replace"):
            added.append((b[j1].start(), b[j2 - 1].end()))
    return removed, added


_WORD = re.compile(r"\S+")
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)")


def _plan_or_none(
    repo: Repository,
    proposal: Proposal,
    text: str | None = None,
    plan: Callable[[Proposal, str | None], MemoryPlan] | None = None,
) -> MemoryPlan | str:
    from agentmem.errors import AgentmemError
    from agentmem.proposals.review import plan_accept

    try:
        return plan(proposal, text) if plan else plan_accept(repo, proposal, text)
    except AgentmemError as exc:
        return str(exc)


def _previewer(repo: Repository) -> Callable[[Proposal, str | None], MemoryPlan]:
    """Plans for a dry run: each on top of the ones before it (the file as ``--accept all``
    would leave it), so the fill levels shown add up. Writes nothing."""
    from agentmem.apply.planner import plan_memory
    from agentmem.apply.writer import read_current
    from agentmem.errors import ProposalError

    texts: dict[str, str | None] = {}

    def plan(proposal: Proposal, edited: str | None = None) -> MemoryPlan:
        if edited is not None and proposal.action == "remove":
            raise ProposalError(f"{proposal.id}: a 'remove' has no text to edit")
        relpath = repo.memory_relpath(proposal.person)
        if relpath not in texts:
            texts[relpath] = read_current(repo.root, relpath)
        chosen = proposal.with_text(edited.strip()) if edited is not None else proposal
        result = plan_memory(chosen, texts[relpath], repo.config.memory, relpath)
        texts[relpath] = result.change.new
        return result

    return plan


def _contradicted(repo: Repository, proposal: Proposal) -> list[tuple[Entry, Contradiction]]:
    from agentmem.proposals.review import contradicted_entries

    return contradicted_entries(repo, proposal)


#: The width of the labels of a proposal's facts (``why:``, ``record:``, ``from:``).
_LABEL = 10


def _fact(console: Console, label: str, value: str) -> None:
    """One fact of a proposal, its label in a column of its own: ``  why:    …`` (``value`` is
    markup), wrapped under its first word on a terminal."""
    output.wrapped(console, f"  {label + ':':<{_LABEL - 2}}", value)


def _show(
    proposal: Proposal,
    plan: MemoryPlan | str,
    console: Console | None = None,
    contradicts: list[tuple[Entry, Contradiction]] | None = None,
    *,
    scripted: bool = False,
) -> None:
    """A memory proposal as one screen: what it does; its facts apart (why, the record an
    accept writes — basis, scope, dates — or the basis of a remove, where it comes from, the
    entries it contradicts with how to make it a modify of one); then the diff of the
    entries' texts (the words a modify changes marked) and the fill level after it. On a
    terminal every line wraps on word boundaries with a hanging indent."""
    console = console or output.stderr()
    where = f' "{output.esc(proposal.section)}"' if proposal.section else ""
    prep = {"add": "to", "modify": "in", "remove": "from"}[proposal.action]
    console.print(f"[bold]{proposal.id}[/]  [bold]{proposal.action} {prep}{where}[/]")
    if isinstance(plan, str):  # no diff to show the texts in
        if proposal.target:
            output.wrapped(console, "  [red]-[/] ", output.esc(proposal.target))
        if proposal.text:
            output.wrapped(console, "  [green]+[/] ", output.esc(proposal.text))
    _fact(console, "why", output.esc(proposal.justification))
    if not isinstance(plan, str) and plan.record is not None:
        _fact(console, "record", output.esc(plan.record.describe()))
    else:
        scope = f"scope {proposal.scope}" if proposal.scope else "everywhere"
        _fact(console, "basis", f"{proposal.basis} · {output.esc(scope)}")
    _fact(console, "from", f"session {output.esc(proposal.session)} · {proposal.source}")
    for entry, why in contradicts or []:
        output.wrapped(
            console,
            "  [yellow]contradicts[/] ",
            f"entry #{entry.number} ({output.esc(entry.section)}): {output.esc(entry.text)} — "
            f"{why.describe()}",
        )
    if contradicts and proposal.action == "add":
        number = contradicts[0][0].number
        how = (
            f"agentmem review --modify {proposal.id}={number}"
            if scripted
            else f"answer m to make it a modify of #{number}"
        )
        output.wrapped(console, "  ", f"to replace that entry instead of adding beside it: {how}")
    if isinstance(plan, str):
        output.wrapped(console, "[red]cannot be applied:[/] ", output.esc(plan))
        console.print("")
        return
    console.print("")
    _show_diff(console, plan)
    console.print("")
    colour = {"ok": "green", "warning": "yellow", "over": "red"}[plan.budget.level]
    console.print(f"  fill level after: [{colour}]{plan.budget.describe()}[/]\n")


def _show_diff(console: Console, plan: MemoryPlan) -> None:
    """The plan's diff (:meth:`MemoryPlan.diff`: entries as ``- text``, records apart) under
    the file's name: context dim, removed lines red, added green; in an entry a modify
    changes, the words removed and added in reverse video (visible without colour)."""
    # lazy: rich.text only for a review screen
    from rich.text import Text

    lines = [output.visible(line) for line in plan.diff().splitlines()[2:]]  # no ---/+++
    while lines and not lines[-1].strip():  # a blank line of the file closing the context
        lines.pop()
    if not lines:
        console.print("  (no change)")
        return
    spans: dict[int, list[tuple[int, int]]] = {}
    for i in range(1, len(lines)):
        before, after = lines[i - 1], lines[i]
        lone = (i < 2 or lines[i - 2][:1] != "-") and (
            i + 1 >= len(lines) or lines[i + 1][:1] != "+"
        )
        if before[:3] == "-- " and after[:3] == "+- " and lone:
            spans[i - 1], spans[i] = _changed_spans(before[3:], after[3:])
    for i, line in enumerate(lines):
        tag, rest = line[:1], line[1:]
        if tag == "@":  # @@ -3,4 +3,5 @@: where in the file
            at = _HUNK.match(line)
            where = f" · line {at.group(1)}" if at else ""
            console.print(f"  [dim]{output.esc(plan.change.path)}{where}[/]")
            continue
        style = {"-": "red", "+": "green"}.get(tag, "dim")
        entry = rest[:2] == "- "
        body = Text(rest[2:] if entry else rest, style=style)
        for start, end in spans.get(i, []):
            body.stylize("bold reverse", start, end)
        output.wrapped(console, Text(f"  {tag}{'- ' if entry else ''}", style=style), body)


def _show_doctrine(
    repo: Repository,
    actor: Person,
    proposal: Proposal,
    text: str | None = None,
    console: Console | None = None,
) -> bool:
    """Show the draft rule a doctrine proposal would become (its text, then its facts apart);
    False when it cannot be made."""
    from agentmem.doctrine.drafts import plan_from_proposal
    from agentmem.errors import AgentmemError

    console = console or output.stderr()
    console.print(f"[bold]{proposal.id}[/]  [bold]doctrine rule[/] (for the team)")
    output.wrapped(console, "  ", output.esc(text if text is not None else proposal.text or ""))
    _fact(console, "why", output.esc(proposal.justification))
    _fact(console, "basis", proposal.basis)
    _fact(console, "from", f"session {output.esc(proposal.session)} · {proposal.source}")
    try:
        plan = plan_from_proposal(repo, proposal, text=text)
    except AgentmemError as exc:
        output.wrapped(console, "[red]cannot be made a draft:[/] ", output.esc(exc))
        console.print("")
        return False
    scope = plan.rule.scope or "to be assigned"
    _fact(console, "draft", f"rule {plan.rule.id} · scope: {output.esc(scope)} · applies nowhere")
    for similar in plan.similar:
        output.wrapped(console, "  [yellow]similar:[/] ", output.esc(similar.describe()))
    console.print("")
    return True


def _report_doctrine(outcomes: list[DoctrineOutcome]) -> int:
    """Print each draft made, and each failure rule by rule; returns the number of failures."""
    failures = 0
    for outcome in outcomes:
        t = outcome.transition
        if t is None:
            output.error(f"{outcome.proposal.id} not made a draft rule: {outcome.error}")
            failures += 1
            continue
        commit = t.commit[:10] if t.commit else "no change"
        output.data(f"accepted {outcome.proposal.id} → draft rule {t.rule.id} v1 ({commit})")
        from agentmem.doctrine.model import missing_for_activation

        missing = missing_for_activation(t.rule)
        if missing:
            names = {
                "scope": "a scope",
                "instruction": "an instruction",
                "limit": "at least one limit",
            }
            needs = ", ".join(names.get(m, m) for m in missing)
            output.info(
                f"  {t.rule.id} is a draft; before an admin can approve it, it needs {needs} "
                f"(agentmem doctrine edit {t.rule.id} --limit …)"
            )
    return failures


def _menu(choices: list[str], modify_of: int | None = None) -> str:
    words = {"a": "accept", "e": "edit", "r": "reject", "s": "skip", "q": "quit", "m": "modify"}
    if modify_of is not None:
        words["m"] = f"modify #{modify_of} instead"
    return ", ".join(f"[bold]\\[{c}][/]{words[c][1:]}" for c in choices)


def _resolve(ids: list[str], pending: list[Proposal], flag: str) -> list[Proposal]:
    from agentmem.errors import UsageError
    from agentmem.proposals.inbox import name_pending

    if "all" in ids:
        return list(pending)
    by_id = {p.id: p for p in pending}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise UsageError(
            f"{flag}: no pending proposal {', '.join(missing)} (pending: {name_pending(by_id)})",
            hint="agentmem inbox lists them",
        )
    return [by_id[i] for i in dict.fromkeys(ids)]


def _scripted(
    repo: Repository,
    actor: Person,
    memory: list[Proposal],
    accept: list[str],
    reject: list[str],
    edit: list[str],
    dry_run: bool,
    distinct: bool = False,
    fixes: dict[str, list[str]] | None = None,
    trust: _Trust | None = None,
) -> None:
    from agentmem.errors import AgentmemError, UsageError
    from agentmem.proposals.inbox import split_pending
    from agentmem.proposals.review import accept_doctrine, commit_reject

    edits: dict[str, str] = {}
    for item in edit:
        pid, sep, text = item.partition("=")
        if not sep or not text.strip():
            raise UsageError(f"--edit takes ID=TEXT, got {item!r}")
        edits[pid] = text
    corrected, originals = _corrections(repo, memory, fixes or {})
    to_edit = _resolve(list(edits), memory, "--edit")
    to_accept = (
        [p for p in _resolve(accept, memory, "--accept") if p.id not in edits] if accept else []
    )
    to_accept += [
        originals[i] for i in corrected if i not in edits and originals[i] not in to_accept
    ]
    to_reject = _resolve(reject, memory, "--reject") if reject else []
    clash = {p.id for p in to_reject} & ({p.id for p in to_accept} | set(edits) | set(corrected))
    if clash:
        raise UsageError(f"both accepted and rejected: {', '.join(sorted(clash))}")
    failures = 0
    chosen = [corrected.get(p.id, p) for p in (*to_accept, *to_edit)]
    trust = trust or _Trust({}, False)
    for proposal in list(chosen):
        why = trust.refusal(proposal)
        if why is not None:
            output.error(f"{proposal.id} not {'previewed' if dry_run else 'applied'}: {why}")
            chosen.remove(proposal)
            failures += 1
    shown = output.stdout()
    accepting = [p for p in chosen if p.route == "memory"]
    if dry_run:
        preview = _previewer(repo)
        for proposal in accepting:
            try:
                plan = preview(proposal, edits.get(proposal.id))
            except AgentmemError as exc:
                output.error(f"{proposal.id} not applied: {exc}")
                failures += 1
                continue
            _show(plan.proposal, plan, shown, _contradicted(repo, plan.proposal), scripted=True)
    else:
        failures += _accept_memory(repo, accepting, edits, originals, trust)
    # Doctrine drafts come after every memory commit.
    rules = [p for p in chosen if p.route == "doctrine"]
    if dry_run:
        failures += sum(
            not _show_doctrine(repo, actor, p, edits.get(p.id), console=shown) for p in rules
        )
    else:
        failures += _report_doctrine(
            accept_doctrine(
                repo,
                rules,
                edits,
                distinct=distinct,
                originals=originals,
                foreign=trust.strange,
            )
        )
    if to_reject and not dry_run:
        if len(to_reject) >= PROGRESS_FROM:
            output.info(f"rejecting {_count(len(to_reject))} in one commit…")
        with repo.locked():
            to_reject, gone = split_pending(repo, to_reject)
            commit = commit_reject(repo, to_reject)
        _say_decided_meanwhile(gone)
        if commit is not None:
            output.data(f"rejected {_ids(to_reject)} → {commit[:10]}")
    elif to_reject:
        output.data(f"would reject {_ids(to_reject)}")
    if failures:
        raise typer.Exit(1)


#: How many proposal ids a line names before it counts the rest (the commit lists them all).
SHOWN_IDS = 10


def _ids(proposals: list[Proposal], *, counted: bool = True) -> str:
    """``p-1, p-2`` — or, past :data:`SHOWN_IDS`, the first ones and how many more (after
    their count, unless ``counted`` is False)."""
    if len(proposals) <= SHOWN_IDS:
        return ", ".join(p.id for p in proposals)
    shown = ", ".join(p.id for p in proposals[:SHOWN_IDS])
    more = f"{shown} and {len(proposals) - SHOWN_IDS:,} more"
    return f"{_count(len(proposals))}: {more}" if counted else more


def _count(n: int) -> str:
    return f"{n:,} proposal{'s' if n != 1 else ''}"


@contextmanager
def _progress(what: str, total: int) -> Iterator[Callable[[], None]]:
    """Progress of a batch of ``total`` decisions on stderr (stdout keeps one line per
    decision): what starts, then every tenth done (:func:`output.progress`: rewritten in place
    on a terminal, a line each in a CI log or a pipe). Yields the function that counts one.
    Nothing for fewer than :data:`PROGRESS_FROM`."""
    if total < PROGRESS_FROM:
        yield lambda: None
        return
    output.info(f"{what} {_count(total)}…")
    step = max(1, total // 10)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        if done % step == 0 and done < total:
            output.progress(f"  {done:,} of {total:,}")

    yield advance


#: From how many proposals a batch decision reports its progress.
PROGRESS_FROM = 50


def _accept_memory(
    repo: Repository,
    accepting: list[Proposal],
    edits: dict[str, str],
    originals: dict[str, Proposal],
    trust: _Trust,
) -> int:
    """Accept each memory proposal, ONE commit each, a line each on stdout; returns how many
    failed. The commits are made a series at a time, under one holding of the lock
    (:func:`agentmem.proposals.review.accept_memory`: one ``fast-import`` per series; other
    commands run between two). A batch that fills the memory says why once, in full, then
    counts the proposals refused for the same reason (:class:`FullMemory` refuses them
    without planning)."""
    from agentmem.errors import AgentmemError, BudgetExceededError
    from agentmem.proposals.review import FullMemory, accept_memory

    failures = 0
    full: list[Proposal] = []
    seen = 0
    with _progress("accepting", len(accepting)) as advance:
        outcomes = accept_memory(
            repo, accepting, edits, originals, trust.strange, full=FullMemory(), looked=advance
        )
        try:
            for outcome in outcomes:
                seen += 1
                proposal, exc = outcome.proposal, outcome.error
                if isinstance(exc, BudgetExceededError):
                    failures += 1
                    if not full:  # said once, in full; the others are counted at the end
                        output.error(f"{proposal.id} not applied: {exc}")
                    full.append(proposal)
                    continue
                if exc is not None or outcome.plan is None:
                    output.error(f"{proposal.id} not applied: {exc}")
                    failures += 1
                    continue
                done = outcome.commit[:10] if outcome.commit else "no change"
                output.data(f"accepted {proposal.id} → {done}  ({outcome.plan.budget.describe()})")
        except AgentmemError as exc:  # a series that did not land: nothing of it was committed
            left = accepting[seen:]
            output.error(f"{_count(len(left))} not applied ({_ids(left, counted=False)}): {exc}")
            failures += len(left)
    if len(full) > 1:
        output.error(
            f"{len(full) - 1:,} more not applied for the same reason (the memory is full): "
            f"{_ids(full[1:], counted=False)}"
        )
    return failures


def _say_decided_meanwhile(gone: list[Proposal]) -> None:
    if gone:
        output.warn(
            f"not rejected: {_ids(gone)} — decided meanwhile by another review (agentmem log)"
        )


#: An escape sequence in a prompt, marked invisible for readline (its width is zero).
_ESCAPE = re.compile("\x1b\\[[0-9;]*m")


def _prompt() -> type[Prompt]:
    """rich's ``Prompt``, asking through ``input(prompt)`` on a terminal once readline is loaded
    (the edit step loads it to pre-fill a line, :func:`_ask_text`): rich prints the prompt
    itself and calls ``input()``, and readline then echoes no newline for an empty answer, so
    the next prompt or message ran on the same line."""
    # lazy: rich.prompt only for an interactive review
    from rich.prompt import Prompt

    class LinePrompt(Prompt):
        @classmethod
        def get_input(
            cls,
            console: Console,
            prompt: TextType,
            password: bool,
            stream: TextIO | None = None,
        ) -> str:
            plain = password or stream is not None or "readline" not in sys.modules
            if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
                return super().get_input(console, prompt, password, stream)
            with console.capture() as capture:
                console.print(prompt, end="")
            return input(_ESCAPE.sub(lambda m: f"\x01{m.group(0)}\x02", capture.get()))

    return LinePrompt


def _ask(console: Console, choices: list[str], modify_of: int | None = None) -> str:
    return _prompt().ask(
        _menu(choices, modify_of), choices=choices, console=console, show_choices=False
    )


def _interactive(
    repo: Repository,
    actor: Person,
    memory: list[Proposal],
    doctrine: list[Proposal] | None = None,
    distinct: bool = False,
    trust: _Trust | None = None,
) -> None:

    from agentmem.errors import AgentmemError
    from agentmem.proposals.inbox import split_pending
    from agentmem.proposals.review import accept_doctrine, commit_accept, commit_reject

    rejected: list[Proposal] = []
    counts = {"accepted": 0, "rejected": 0, "skipped": 0}
    console = output.stderr()
    trust = trust or _Trust({}, False)
    everything = [*memory, *(doctrine or [])]  # memory first
    stopped = False
    screen = _Screen(console)
    try:
        for number, proposal in enumerate(everything, start=1):
            original = proposal
            text: str | None = None
            plan: MemoryPlan | str | None = None
            while True:
                screen.start(f"proposal {number} of {len(everything)}")
                trust.show(proposal, console)
                contradicts: list[tuple[Entry, Contradiction]] = []
                if proposal.route == "doctrine":
                    can_accept = _show_doctrine(repo, actor, proposal, text)
                else:
                    plan = _plan_or_none(repo, proposal, text)
                    planned = plan.proposal if not isinstance(plan, str) else proposal
                    contradicts = _contradicted(repo, planned)
                    _show(planned, plan, None, contradicts)
                    can_accept = not isinstance(plan, str)
                choices = ["a", "e", "r", "s", "q"] if can_accept else ["e", "r", "s", "q"]
                modify_of = None
                if contradicts and proposal.action == "add" and "e" in choices:
                    modify_of = contradicts[0][0].number
                    choices.insert(choices.index("e") + 1, "m")
                if trust.refusal(proposal) is not None:
                    choices = ["r", "s", "q"]  # someone else's words: reject or leave them
                    modify_of = None
                answer = _ask(console, choices, modify_of)
                if answer == "m" and modify_of is not None:
                    try:
                        proposal = _ask_modify_of(repo, console, proposal, contradicts)
                    except AgentmemError as exc:
                        screen.error(str(exc))
                    continue
                if answer == "e":
                    # A refused text holding terminal controls is not offered back as is.
                    shown = text if text and output.visible(text) == text else None
                    if proposal.action != "remove":
                        text = _ask_text(console, "text", shown or proposal.text or "")
                    try:
                        proposal = _ask_corrections(repo, console, proposal)
                    except AgentmemError as exc:
                        screen.error(str(exc))
                    continue
                break
            if answer == "q":
                stopped = True
                break
            if answer == "s":
                counts["skipped"] += 1
                note = "; your edited text is not kept" if text is not None else ""
                screen.say(f"skipped {proposal.id}: it stays in your inbox as it was{note}")
            elif answer == "r":
                rejected.append(proposal)
                counts["rejected"] += 1
                screen.say(f"[yellow]rejected[/] {proposal.id} (committed when the review ends)")
            elif answer == "a" and proposal.route == "doctrine":
                edits = {proposal.id: text} if text is not None else {}
                outcomes = accept_doctrine(
                    repo,
                    [proposal],
                    edits,
                    distinct=distinct,
                    originals={proposal.id: original},
                    foreign=trust.strange,
                )
                counts["accepted"] += 1 - _report_doctrine(outcomes)
                for outcome in outcomes:
                    if outcome.transition is not None:
                        screen.keep(
                            f"[green]accepted[/] {proposal.id} → draft rule "
                            f"{outcome.transition.rule.id}"
                        )
                    else:
                        screen.keep(f"[bold red]{proposal.id} not made a draft rule[/]")
            elif answer == "a" and plan is not None and not isinstance(plan, str):
                try:
                    with repo.locked():
                        commit = commit_accept(repo, plan, original, trust.strange.get(proposal.id))
                except AgentmemError as exc:
                    screen.error(f"{proposal.id} not applied: {exc}")
                    continue
                counts["accepted"] += 1
                screen.say(
                    f"[green]accepted[/] {proposal.id} → {commit[:10] if commit else 'no change'}"
                )
    finally:
        if rejected:
            with repo.locked():
                rejected, gone = split_pending(repo, rejected)
                commit_reject(repo, rejected)
            _say_decided_meanwhile(gone)
    console.print(_summary(counts, len(everything), stopped))


class _Screen:
    """One proposal per screen on a terminal: each proposal (and each showing of it again
    after an edit) starts on a cleared screen, under the outcome and errors of the step
    before it, which the clearing would otherwise take away. Elsewhere (piped answers, a
    dumb terminal) nothing is cleared and each screen follows the last."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.clears = console.is_terminal and not console.is_dumb_terminal
        self.notes: list[str] = []

    def start(self, title: str) -> None:
        if self.clears:
            self.console.clear()
            for note in self.notes:
                output.wrapped(self.console, "", note)
        self.notes = []
        self.console.rule(title)

    def keep(self, markup: str) -> None:
        """Show ``markup`` again at the top of the next screen (it was printed already)."""
        self.notes.append(markup)

    def say(self, markup: str) -> None:
        output.wrapped(self.console, "", markup)
        self.keep(markup)

    def error(self, message: str) -> None:
        output.error(message)
        self.keep(f"[bold red]error:[/] {output.esc(message)}")


def _summary(counts: dict[str, int], total: int, stopped: bool) -> str:
    """The review's last line; after ``q``, how many proposals stay in the inbox (the skipped
    ones, the one on screen, those not shown, any whose accept failed)."""
    done = (
        f"{counts['accepted']} accepted, {counts['rejected']} rejected, {counts['skipped']} skipped"
    )
    if not stopped:
        return done
    left = total - counts["accepted"] - counts["rejected"]
    proposals = f"{left} proposal{'s' if left != 1 else ''} left in your inbox"
    if counts["accepted"] or counts["rejected"]:
        return f"stopped: {done}; {proposals}"
    return f"stopped: {proposals}, nothing decided"


def _ask_modify_of(
    repo: Repository,
    console: Console,
    proposal: Proposal,
    contradicts: list[tuple[Entry, Contradiction]],
) -> Proposal:
    """The add as a modify of the entry it contradicts (asked which when it contradicts
    several); shown again before it is accepted."""
    from agentmem.proposals.review import as_modify_of

    numbers = [str(entry.number) for entry, _why in contradicts]
    number = numbers[0]
    if len(numbers) > 1:
        number = _prompt().ask("modify entry", choices=numbers, default=number, console=console)
    return as_modify_of(repo, proposal, int(number))


def _ask_text(console: Console, label: str, current: str) -> str:
    """One line of text, pre-filled with ``current`` to edit in place: readline line editing in
    a terminal; else ``$VISUAL``/``$EDITOR`` on a terminal without readline; else a prompt whose
    default is ``current`` (answers may be piped)."""
    import os

    if sys.stdin.isatty() and sys.stdout.isatty():
        try:
            import readline
        except ImportError:  # Windows without pyreadline
            readline = None  # type: ignore[assignment]
        if readline is not None:
            readline.set_startup_hook(lambda: readline.insert_text(current))
            try:
                return input(f"{label}: ")
            finally:
                readline.set_startup_hook()
        if os.environ.get("VISUAL") or os.environ.get("EDITOR"):
            import click

            edited = click.edit(current, require_save=True)
            return " ".join(edited.split()) if edited is not None else current
    return _prompt().ask(label, default=current, console=console)


def _ask_corrections(repo: Repository, console: Console, proposal: Proposal) -> Proposal:
    """Ask the route, the section (memory), the scope and the target (modify, remove), each
    pre-filled with the current value; returns the corrected proposal."""
    from agentmem.proposals.model import EVERYWHERE

    route = proposal.route
    if proposal.action == "add":
        route = _prompt().ask(
            "route", choices=["memory", "doctrine"], default=proposal.route, console=console
        )
    if route == "doctrine":  # the draft's scope is shown; agentmem doctrine assign changes it
        return proposal.corrected(route="doctrine")
    sections = list(repo.config.memory.sections)
    section = _prompt().ask(
        "section",
        choices=sections,
        default=proposal.section if proposal.section in sections else sections[0],
        console=console,
    )
    scope = _ask_text(console, "scope (a path, or everywhere)", proposal.scope or EVERYWHERE)
    target = proposal.target
    if proposal.action in ("modify", "remove"):
        target = _ask_text(console, "target (a part of the entry)", proposal.target or "")
    return proposal.corrected(route="memory", section=section, target=target, scope=scope)
