"""``agentmem doctor``: is this set-up able to give memory to the agent and take sessions back?

Each :class:`Check` says what was looked at, ``ok``, ``warn`` (works, but something is missing
or waiting) or ``fail`` (something is wrong), and what to do. Checks, in order:

1. the memory repository is found and its settings load;
2. the git identity is a person in ``roles.yaml`` (and has a personal memory), and the
   scoped entries of that memory reach a session (a folder of the ``scopes:`` map has their
   scope);
3. ``agentmem`` is on ``PATH`` (hooks and MCP servers start it by name);
4. Claude Code hooks in ``.claude/settings.json`` / ``.claude/settings.local.json`` of the
   project or ``~/.claude/settings.json``: SessionStart, SessionEnd and PreCompact run
   ``agentmem hook …``;
5. the MCP server in the project's ``.mcp.json`` or ``~/.claude.json``;
6. the harvest provider and its key;
7. the harvest queue: unreadable lines, sessions waiting, transcripts gone.

Nothing is written; no network, no model. A settings file that is not valid JSON is a ``fail``
(Claude Code ignores it whole).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmem import governance as gov
from agentmem.config import load_config
from agentmem.delivery.context import build_chat, scope_for_folder
from agentmem.errors import AgentmemError
from agentmem.harvest.queue import read_queue, waiting
from agentmem.harvest.run import choose_provider
from agentmem.memory.records import scope_contains
from agentmem.store.repo import Repository
from agentmem.store.root import locate

OK, WARN, FAIL = "ok", "warn", "fail"
HOOK_EVENTS = {
    "SessionStart": "session-start",
    "SessionEnd": "session-end",
    "PreCompact": "pre-compact",
}


@dataclass(frozen=True)
class Check:
    """One verdict: ``name`` (what was checked), ``status`` ok | warn | fail, ``message`` (what
    was found), ``fix`` (what to do; empty when ok)."""

    name: str
    status: str
    message: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "message": self.message, "fix": self.fix}


def run_doctor(project: Path | None = None, home: Path | None = None) -> list[Check]:
    """Every check, in order; ``project`` is where the agent runs (default: the current
    folder), ``home`` the user's home (default: ``~``). Never raises for a bad set-up."""
    project = (project or Path.cwd()).resolve()
    home = home or Path.home()
    checks: list[Check] = []
    repo: Repository | None = None
    try:
        root = locate(near=project)
        repo = Repository(root, load_config(root))
        checks.append(Check("repository", OK, f"memory repository at {root}"))
    except AgentmemError as exc:
        checks.append(
            Check(
                "repository",
                FAIL,
                exc.message,
                exc.hint or "run 'agentmem init PATH', or set AGENTMEM_REPO to the repository",
            )
        )
    if repo is not None:
        checks.append(_identity(repo))
        checks.append(_scopes(repo, project))
    checks.append(_on_path())
    checks.append(_hooks(project, home))
    checks.append(_mcp(project, home))
    if repo is not None:
        checks.append(_provider(repo))
        checks.append(_queue(repo))
    return checks


def _identity(repo: Any) -> Check:
    try:
        actor = repo.actor()
    except AgentmemError as exc:
        return Check("identity", FAIL, exc.message, exc.hint or "ask an admin to add you")
    if not gov.may(actor.role, gov.HAVE_MEMORY):
        return Check(
            "identity",
            WARN,
            f"you are {actor.id} ({actor.role}): audits only, no personal memory",
            "ask an admin for the member role in roles.yaml if you need a memory",
        )
    return Check("identity", OK, f"you are {actor.id} ({actor.role}) in roles.yaml")


def _scopes(repo: Repository, project: Path) -> Check:
    """Do the actor's scoped entries reach a session? An entry scoped S is given only where the
    session's scope is S or below it: ``$AGENTMEM_SCOPE``, else the folder of the ``scopes:``
    map that holds the session's folder. A scope no mapped folder has is memory no session
    gets (docs/design/context.md §Context)."""
    try:
        actor = repo.actor()
        if not gov.may(actor.role, gov.HAVE_MEMORY):
            return Check("scopes", OK, "no personal memory: nothing to scope")
        given = os.environ.get("AGENTMEM_SCOPE", "").strip() or None
        here = given or scope_for_folder(repo.config.scopes, str(project), repo.root)
        ctx = build_chat(repo, actor.id, here)
    except AgentmemError as exc:
        return Check("scopes", FAIL, exc.message, exc.hint or "run agentmem check")
    mapped = {scope for _, scope in repo.config.scopes} | ({given} if given else set())
    lost = [
        (scope, count)
        for scope, count in ctx.elsewhere
        if not any(scope_contains(scope, other) for other in mapped)
    ]
    session = f"scope {here}" if here else "no scope"
    if lost:
        count = sum(n for _, n in lost)
        listed = ", ".join(f"{scope} ({n})" for scope, n in lost)
        return Check(
            "scopes",
            WARN,
            f"{count} of your entries reach no session: scoped {listed}, and no folder of the "
            "scopes: map of agentmem.yaml has that scope (nor AGENTMEM_SCOPE)",
            f"agentmem scope map FOLDER {lost[0][0]} (the project folder where you work on it)",
        )
    total = len(ctx.entries) + len(ctx.left_out)
    if not ctx.entries and total:
        if ctx.elsewhere:
            first = ctx.elsewhere[0][0]
            where = next(
                (f for f, scope in repo.config.scopes if scope_contains(first, scope)),
                "another folder",
            )
            return Check(
                "scopes",
                WARN,
                f"sessions started in {project} ({session}) get none of your {total} entries: "
                f"{ctx.elsewhere[0][1]} are scoped {first}, given in {where}",
                f"agentmem scope map {project} {first} (if this folder is part of it)",
            )
        return Check(
            "scopes",
            WARN,
            f"sessions started in {project} ({session}) get none of your {total} entries",
            "agentmem memory due lists the expired ones; agentmem memory reconfirm N keeps one",
        )
    return Check(
        "scopes",
        OK,
        f"sessions started in {project} ({session}) get {len(ctx.entries)} of your {total} entries",
    )


def _on_path() -> Check:
    found = shutil.which("agentmem")
    if found:
        return Check("command", OK, f"agentmem is on PATH ({found})")
    return Check(
        "command",
        FAIL,
        "agentmem is not on PATH: hooks and MCP servers start it by name",
        "install it where your agent's shell finds it (pip install agentmem in that "
        "environment), or give the full path in the hook and MCP commands",
    )


def _load_json(path: Path) -> tuple[Any, str | None]:
    """``(value, None)``, ``(None, None)`` when absent, ``(None, reason)`` when unreadable."""
    if not path.is_file():
        return None, None
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot read it ({exc})"
    except json.JSONDecodeError as exc:
        return None, f"{path}:{exc.lineno}: not valid JSON ({exc.msg})"


def _commands(entry: Any) -> list[str]:
    """The command lines of one Claude Code hook group (``command`` plus its ``args``)."""
    found = []
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    for hook in hooks if isinstance(hooks, list) else []:
        if isinstance(hook, dict) and isinstance(hook.get("command"), str):
            args = hook.get("args")
            extra = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
            found.append(" ".join([hook["command"], *extra]))
    return found


def _hooks(project: Path, home: Path) -> Check:
    files = [
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
        home / ".claude" / "settings.json",
    ]
    configured: set[str] = set()
    for path in files:
        value, problem = _load_json(path)
        if problem:
            return Check("hooks", FAIL, problem, "fix the JSON: Claude Code ignores the whole file")
        hooks = value.get("hooks") if isinstance(value, dict) else None
        for event, command in HOOK_EVENTS.items():
            groups = hooks.get(event) if isinstance(hooks, dict) else None
            for group in groups if isinstance(groups, list) else []:
                if any(
                    "agentmem" in line and f"hook {command}" in line for line in _commands(group)
                ):
                    configured.add(event)
    missing = [event for event in HOOK_EVENTS if event not in configured]
    if not missing:
        return Check(
            "hooks", OK, "Claude Code runs agentmem at SessionStart, SessionEnd, PreCompact"
        )
    return Check(
        "hooks",
        WARN,
        f"Claude Code hooks missing for {', '.join(missing)} (looked in "
        f"{project / '.claude'} and {home / '.claude' / 'settings.json'})",
        "add them to .claude/settings.json as agentmem's docs/guide/agents.md shows",
    )


def _mcp(project: Path, home: Path) -> Check:
    for path in (project / ".mcp.json", home / ".claude.json"):
        value, problem = _load_json(path)
        if problem:
            return Check("mcp", FAIL, problem, "fix the JSON")
        servers = value.get("mcpServers") if isinstance(value, dict) else None
        for name, server in (servers or {}).items() if isinstance(servers, dict) else []:
            command = server.get("command") if isinstance(server, dict) else None
            if isinstance(command, str) and "agentmem" in command:
                return Check("mcp", OK, f"MCP server {name!r} runs agentmem ({path})")
    return Check(
        "mcp",
        WARN,
        f"no agentmem MCP server in {project / '.mcp.json'} or {home / '.claude.json'}",
        "claude mcp add agentmem -- agentmem mcp (or add it to .mcp.json)",
    )


def _provider(repo: Any) -> Check:
    configured = repo.config.harvest.provider
    try:
        chosen = choose_provider(None, configured)
    except AgentmemError as exc:
        return Check("provider", FAIL, exc.message, "set harvest.provider in agentmem.yaml")
    has_key = bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))
    if chosen == "anthropic" and not has_key:
        return Check(
            "provider",
            FAIL,
            "harvest.provider is anthropic but ANTHROPIC_API_KEY is not set",
            "export ANTHROPIC_API_KEY, or set harvest.provider: offline",
        )
    if chosen == "offline":
        return Check(
            "provider",
            OK if configured == "offline" else WARN,
            "harvest uses the offline extractor (explicit requests only)"
            + ("" if configured == "offline" else ": no ANTHROPIC_API_KEY"),
            "" if configured == "offline" else "export ANTHROPIC_API_KEY for model harvests",
        )
    return Check("provider", OK, f"harvest uses {chosen} ({repo.config.harvest.model})")


def _queue(repo: Any) -> Check:
    state = read_queue(repo.root)
    if state.bad_lines:
        lines = ", ".join(map(str, state.bad_lines[:5]))
        return Check(
            "queue",
            WARN,
            f".agentmem/queue.jsonl has unreadable line(s) {lines}",
            "agentmem harvest --queue skips them; delete them if they stay",
        )
    left = waiting(repo.root)
    gone = [s for s in left if not Path(s.transcript_path).is_file()]
    if gone:
        return Check(
            "queue",
            WARN,
            f"{len(gone)} queued session(s) lost their transcript",
            f"agentmem harvest --forget {gone[0].session_id}",
        )
    if left:
        return Check(
            "queue",
            WARN,
            f"{len(left)} session(s) wait in the harvest queue",
            "agentmem harvest --queue",
        )
    return Check("queue", OK, "no session waits in the harvest queue")
