"""The hot path (docs/design/code.md §Hot path): ``context chat`` and the Claude Code hooks, as text to
print.

These run at every session start, end and compaction, so they import neither typer nor rich (the
console entry point :mod:`agentmem.entry` runs them without ``agentmem.cli``) and nothing heavy.
Each returns a :class:`Printed` — what goes to stdout, and the notes and warnings for stderr — so
that the light entry point and the typer commands print the very same thing.

Hooks never break a session: every problem is a note and exit 0 (never 2, which would block a
compaction). The memory repository is ``$AGENTMEM_REPO`` (``--repo``), else found upward from the
payload's ``cwd``, else from the current folder.
"""

from __future__ import annotations

import os

from agentmem.errors import AgentmemError
from agentmem.store.root import locate

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.delivery.context import ChatContext
    from agentmem.store.root import StrPath

#: What a hot command prints: stdout, notes, warnings, and the usage line to write
#: (:func:`agentmem.delivery.usagelog.chat_line`; None: nothing is logged).
Found = tuple[str, tuple[str, ...], tuple[str, ...], "dict[str, Any] | None"]


class Printed:
    """What a hot command prints: ``stdout`` (data, without its final newline; empty = nothing),
    ``notes`` and ``warnings`` (plain text lines for stderr), and the exit code. A plain class,
    not a dataclass: building a dataclass costs the hot path its start-up (docs/design/code.md
    §Hot path)."""

    __slots__ = ("stdout", "notes", "warnings", "code")

    def __init__(
        self,
        stdout: str = "",
        notes: tuple[str, ...] = (),
        warnings: tuple[str, ...] = (),
        code: int = 0,
    ) -> None:
        self.stdout = stdout
        self.notes = notes
        self.warnings = warnings
        self.code = code

    def _values(self) -> tuple[str, tuple[str, ...], tuple[str, ...], int]:
        return self.stdout, self.notes, self.warnings, self.code

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Printed) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        stdout, notes, warnings, code = self._values()
        return f"Printed(stdout={stdout!r}, notes={notes!r}, warnings={warnings!r}, code={code!r})"


def hook_root(payload_cwd: str | None) -> str:
    """``$AGENTMEM_REPO`` exactly, else upward from the payload's ``cwd``, else from here
    (:func:`agentmem.store.root.locate`)."""
    return locate(
        near=payload_cwd or None, hint="set AGENTMEM_REPO or pass --repo PATH in the hook's command"
    )


def _note(message: str) -> str:
    return f"agentmem hook: {message}"


def system_message(what: str, exc: BaseException) -> str:
    """Claude Code's ``{"systemMessage": …}`` hook output: ONE line saying what the hook could
    not do, why, and what to do (the error's hint, else ``agentmem doctor``). Claude Code shows
    it to the person even outside verbose mode, where stderr is hidden."""
    # lazy: hot path: each hook or chat line loads only what it runs
    import json

    why = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    todo = getattr(exc, "hint", None) or "run 'agentmem doctor' in the project to see what to fix"
    line = f"agentmem: {what}: {why.rstrip('.')}. To fix: {todo.rstrip('.')}."
    return json.dumps({"systemMessage": " ".join(line.split())})


def queue_hook(stdin: str | None, event: str) -> Printed:
    """SessionEnd / PreCompact: append the session to ``.agentmem/queue.jsonl``; always exit 0
    (a failure prints :func:`system_message` on stdout and a note on stderr).

    ``stdin`` is None when it is a terminal (someone typed the command by hand). No settings are
    loaded and no git process is started: Claude Code gives SessionEnd 1.5 s in all.
    """
    # lazy: hot path: each hook or chat line loads only what it runs
    from agentmem.harvest.queue import enqueue, parse_payload

    if stdin is None:
        return Printed(notes=(_note(f"{event} expects the hook JSON on stdin; nothing queued"),))
    try:
        payload = parse_payload(stdin)
        entry = enqueue(hook_root(payload.cwd), payload)
    except (AgentmemError, OSError) as exc:
        return Printed(
            system_message("this session was not queued for a harvest", exc),
            notes=(_note(f"{exc}; nothing queued"),),
        )
    return Printed(
        notes=(_note(f"session {entry.session_id} queued; run 'agentmem harvest --queue'"),)
    )


def pre_tool_use(stdin: str | None) -> Printed:
    """PreToolUse: deny the agent's own Bash call to an agentmem command that decides
    (:mod:`agentmem.delivery.toolgate`); prints the decision JSON or nothing; always exit 0."""
    # lazy: hot path: each hook or chat line loads only what it runs
    from agentmem.delivery.toolgate import decide

    return Printed(decide(stdin))


def session_start(stdin: str | None) -> Printed:
    """SessionStart: the actor's chat block, at most 10,000 characters with its newline; exit 0.

    A malformed payload only loses its ``cwd`` (the memory is still given, found from the current
    folder); an unknown git identity, a missing repository or a broken file print
    :func:`system_message` on stdout (Claude Code shows it) and a note on stderr; an empty memory
    prints nothing but the note.
    """
    # lazy: hot path: each hook or chat line loads only what it runs
    from agentmem.harvest.payload import payload_cwd

    notes: list[str] = []
    cwd = None
    if stdin is not None:
        try:
            cwd = payload_cwd(stdin)
        except AgentmemError as exc:
            notes.append(_note(f"{exc}; using the current folder"))
    try:
        root = hook_root(cwd)
        found = _session_start(root, cwd)
    except (AgentmemError, OSError) as exc:
        said = exc if isinstance(exc, AgentmemError) else AgentmemError(_os_reason(exc))
        return Printed(
            system_message("no memory was given to this session", said),
            notes=(*notes, _note(f"no memory given: {said}")),
        )
    block, more, _, usage = found
    notes += more
    if usage is not None:
        failed = _log(root, usage)
        if failed:
            notes.append(_note(failed))
    return Printed(block, tuple(notes))


def _log(root: StrPath, usage: dict[str, Any]) -> str | None:
    """Write a chat block's usage line (``usage`` with its run id and time):
    :func:`agentmem.delivery.usagelog.write_chat`."""
    # lazy: hot path: loaded only when a block was given
    from agentmem.delivery.usagelog import chat_stamp, write_chat

    line = dict(usage)
    line["run_id"], line["time"] = chat_stamp()
    return write_chat(root, line)


def _os_reason(exc: OSError) -> str:
    """An OS error in words, without the path it names (a payload's path may be anything)."""
    return f"the system refused a read ({exc.strerror or type(exc).__name__})"


def _session_start(root: str, cwd: str | None) -> Found:
    """:func:`session_start` computed: the block (empty when there are no entries), the notes
    after the payload's, nothing, and the usage line to write (None: none)."""
    # lazy: hot path: each hook or chat line loads only what it runs
    from agentmem.delivery.context import HOOK_MAX_CHARS, build_chat, render_chat
    from agentmem.delivery.folders import scope_for_folder
    from agentmem.delivery.usagelog import chat_line
    from agentmem.store.repo import hot_repository

    repo = hot_repository(root)
    folder = cwd or os.getcwd()
    given = session_scope(os.environ.get("AGENTMEM_SCOPE"), "AGENTMEM_SCOPE")
    scope = given or scope_for_folder(repo.config.scopes, folder, root)
    ctx = build_chat(repo, repo.actor().id, scope)
    if repo.cache is not None:
        repo.cache.save()
    found: Found
    served = tuple(_note(line) for line in ctx.notes)
    if not ctx.entries:
        message = _unseen(ctx, repo.config.scopes, folder, given)
        if message is None and ctx.notes:
            message = _served_message(ctx.notes)
        found = (message or "", (*served, _note(_none_given(ctx))), (), None)
    else:
        block = render_chat(ctx, "text", max_chars=HOOK_MAX_CHARS - 1)
        # the block may drop its last entries to fit: log what it carried
        usage = chat_line(_carried(ctx, block), ctx.person, "session-start")
        out = _served_message(ctx.notes, block) if ctx.notes else block
        found = (out, served, (), usage)
    return found


def _served_message(notes: tuple[str, ...], block: str | None = None) -> str:
    """The hook's JSON when the served view left something out (:mod:`agentmem.delivery.served`):
    the notes as a ``systemMessage`` (Claude Code shows it to the person), the block, if any,
    as the session's ``additionalContext``."""
    # lazy: hot path: loaded only when something was left out
    import json

    line = "agentmem: " + " | ".join(note.rstrip(".") for note in notes) + "."
    out: dict[str, object] = {"systemMessage": " ".join(line.split())}
    if block is not None:
        out["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": block}
    return json.dumps(out, ensure_ascii=False)


def _unseen(
    ctx: ChatContext, scopes: tuple[tuple[str, str], ...], folder: str, given: str | None
) -> str | None:
    """The ``systemMessage`` of a start that gives none of the person's entries although there
    are some (Claude Code shows it; stderr it hides): how many, why — scoped elsewhere (and
    where the ``scopes:`` map gives that scope, if anywhere), expired, suspended past review —
    and the one command that fixes it. None when the memory has no entry."""
    # lazy: hot path: loaded only when a start gives no entry
    import json
    import shlex

    from agentmem.delivery.folders import shown_folder
    from agentmem.memory.records import scope_contains

    if not ctx.left_out:
        return None
    why = []
    for scope, count in ctx.elsewhere:
        where = [f for f, mapped in scopes if scope_contains(scope, mapped)]
        if where:
            more = f" and {len(where) - 1} more" if len(where) > 1 else ""
            reach = f"given in sessions started in {where[0]}{more}"
        else:
            reach = "no folder of the scopes: map has that scope"
        why.append(f"{count} {'is' if count == 1 else 'are'} scoped {scope} ({reach})")
    expired = sum(1 for _, why in ctx.left_out if why == "expired")
    if expired:
        why.append(f"{expired} expired")
    due = sum(1 for _, why in ctx.left_out if why == "review due")
    if due:
        why.append(f"{due} past review (memory.on_review_due: suspend)")
    here = f"scope {ctx.scope}" if ctx.scope else "no scope"
    source = ", from AGENTMEM_SCOPE" if given else ""
    if ctx.elsewhere and given:
        first = ctx.elsewhere[0][0]
        fix = f"AGENTMEM_SCOPE={first} for a session of that scope (it is {given} now)"
    elif ctx.elsewhere:
        first = ctx.elsewhere[0][0]
        shown = shown_folder(folder)
        word = "~/" + shlex.quote(shown[2:]) if shown.startswith("~/") else shlex.quote(shown)
        fix = f"agentmem scope map {word} {first} (if this folder is part of {first})"
    else:
        fix = "agentmem memory due, then agentmem memory reconfirm N"
    total = len(ctx.left_out)
    line = (
        f"agentmem: none of your {total} memory entr{'y' if total == 1 else 'ies'} was given "
        f"to this session ({here}{source}): {'; '.join(why)}. To fix: {fix}."
    )
    return json.dumps({"systemMessage": " ".join(line.split())}, ensure_ascii=False)


def _none_given(ctx: ChatContext) -> str:
    """Why a session start gives no block: an empty memory, or entries that do not apply to
    this session (numbered, with the reason, as ``context chat`` warns)."""
    if not ctx.left_out:
        return f"{ctx.person} has no memory entries yet"
    reasons = []
    for reason in ("expired", "review due", "out of scope"):
        numbers = ", ".join(f"#{n}" for n, why in ctx.left_out if why == reason)
        if numbers:
            reasons.append(f"{numbers} {reason}")
    given = f"scope {ctx.scope}" if ctx.scope else "no scope"
    hint = ""
    if any(why == "out of scope" for _, why in ctx.left_out):
        hint = " ($AGENTMEM_SCOPE or the scopes: map of agentmem.yaml gives a session its scope)"
    return (
        f"none of {ctx.person}'s entries is given to this session ({given}): "
        f"{'; '.join(reasons)}{hint}"
    )


def _carried(ctx: ChatContext, block: str) -> ChatContext:
    """``ctx`` with only the entries whose line made it into ``block`` (the hook's cap)."""
    kept = tuple(e for e in ctx.entries if f"\n{e.number}. " in block)
    return ctx.replace(entries=kept) if len(kept) != len(ctx.entries) else ctx


def session_scope(value: str | None, where: str) -> str | None:
    """A session's scope as given (``--scope``, ``$AGENTMEM_SCOPE``), checked; None when not
    given. Raises :class:`UsageError` for a malformed scope."""
    # lazy: hot path: loaded only when a scope is given
    from agentmem.errors import InvalidMemoryError, UsageError
    from agentmem.memory.records import check_scope

    if value is None or not value.strip():
        return None
    try:
        return check_scope(value, where)
    except InvalidMemoryError as exc:
        raise UsageError(str(exc)) from None


def chat(person: str | None, fmt: str, scope: str | None = None) -> Printed:
    """``context chat [--person P] [--format F] [--scope S]``: the entries meant everywhere
    plus those whose scope contains S (without ``--scope``: ``$AGENTMEM_SCOPE``, else only the
    entries meant everywhere). Raises AgentmemError (exit 1 or 2)."""
    root, found = _chat(person, fmt, scope)
    text, notes, warnings, usage = found
    if usage is not None:
        failed = _log(root, usage)
        if failed:
            warnings = (*warnings, failed)
    return Printed(text, notes, warnings)


def _chat(person: str | None, fmt: str, scope: str | None) -> tuple[str, Found]:
    """:func:`chat` computed: the repository's root and what to print, with the usage line to
    write."""
    # lazy: hot path: each hook or chat line loads only what it runs
    import json

    from agentmem.delivery.context import (
        build_chat,
        chat_json,
        chat_reader,
        check_format,
        render_chat,
    )
    from agentmem.delivery.usagelog import chat_line
    from agentmem.store.repo import open_repository

    check_format(fmt)
    scope = session_scope(scope, "--scope") or session_scope(
        os.environ.get("AGENTMEM_SCOPE"), "AGENTMEM_SCOPE"
    )
    repo = open_repository(hot=True)
    actor = repo.actor()
    ctx = build_chat(repo, chat_reader(repo, actor, person), scope)
    if repo.cache is not None:
        repo.cache.save()
    if fmt == "json":
        text = json.dumps(chat_json(ctx), ensure_ascii=False, indent=2)
    else:
        text = render_chat(ctx, fmt)
    notes = () if ctx.exists else (f"{ctx.person} has no memory file yet ({ctx.path})",)
    warnings = list(ctx.notes)
    if ctx.withheld:
        numbers = ", ".join(f"#{n}" for n in ctx.withheld)
        warnings.append(
            f"{ctx.path}: entr(ies) {numbers} withheld: an agentmem delimiter or a guard "
            "refusal (agentmem check names them)"
        )
    if ctx.status.level != "ok":
        warnings.append(f"{ctx.path} is at {ctx.status.describe()}: remove or merge entries soon")
    warnings += left_out_warnings(ctx.path, ctx.left_out, ctx.due, ctx.elsewhere)
    found = (text, notes, tuple(warnings), chat_line(ctx, actor.id, "context chat"))
    return repo.top, found


def left_out_warnings(
    path: str,
    left_out: tuple[tuple[int, str], ...],
    due: tuple[int, ...],
    elsewhere: tuple[tuple[str, int], ...] = (),
) -> list[str]:
    """One line per reason an entry was not given (for entries scoped elsewhere, the command
    that gives those of the commonest scope), and one for those given past review."""
    found: list[str] = []
    for reason in ("expired", "review due", "out of scope"):
        numbers = ", ".join(f"#{n}" for n, why in left_out if why == reason)
        if numbers and reason != "out of scope":
            found.append(f"{path}: {numbers} not given: {reason} (agentmem memory due)")
        elif numbers:
            scopes = ", ".join(f"{scope}: {count}" for scope, count in elsewhere)
            command = f"agentmem context chat --scope {elsewhere[0][0]}" if elsewhere else ""
            found.append(
                f"{path}: {numbers} not given: scoped elsewhere ({scopes}; {command} gives "
                f"{'them' if len(elsewhere) == 1 else 'those of ' + elsewhere[0][0]})"
                if command
                else f"{path}: {numbers} not given: scoped elsewhere (--scope S gives them)"
            )
    if due:
        numbers = ", ".join(f"#{n}" for n in due)
        found.append(f"{path}: {numbers} past review, still given (agentmem memory reconfirm)")
    return found
