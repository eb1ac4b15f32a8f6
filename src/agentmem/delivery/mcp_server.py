"""The MCP server (docs/design.md §Context): agentmem's tools for an agent, over stdio.

Tools — each one only *proposes* or *reads*; none can approve, activate or write memory:

- ``remember(text, section?)``: one pending ``add`` proposal in the actor's inbox, validated
  (guard, budget, duplicate) and committed at once (``review.remember``), so a "remember that…"
  survives a session that dies before its harvest;
- ``propose_rule(title, instruction, limits, justification?)``: a doctrine **draft** proposed by
  the actor, its scope taken from the session (``agentmem mcp --scope`` or ``$AGENTMEM_SCOPE``),
  never from the model; an admin approves it with ``agentmem doctrine approve``;
- ``show_memory()``: the actor's chat context block (the same text as ``context chat``);
- ``search(query, areas?, limit?)``: ``agentmem search`` for the actor (their memory, inbox and
  personal history, all the doctrine and its history; never another person's), one hit a line;
- ``list_inbox()``: the actor's pending proposals, one a line (as ``agentmem inbox``).

The person is always the actor (the git identity of whoever runs the server), never a name the
model passes. The repository is ``--repo``/``$AGENTMEM_REPO``, else found from the current
folder, else from ``$CLAUDE_PROJECT_DIR`` (Claude Code sets it for stdio servers). A stdio
server must not write to stdout: nothing here prints. ``mcp`` is imported only by
:func:`build_server`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agentmem.errors import AgentmemError, NotARepositoryError

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from agentmem.proposals.model import Proposal
    from agentmem.store.repo import Repository

INSTRUCTIONS = (
    "agentmem keeps the user's approved working preferences (personal memory) and the team's "
    "doctrine in a git repository. These tools only propose or read. remember puts one pending "
    "entry in the user's inbox (committed at once); the user accepts or rejects it later with "
    "'agentmem review'. propose_rule records a draft doctrine rule that an admin must approve. "
    "show_memory returns the user's current memory block. search finds words in the user's "
    "memory, inbox and decisions and in the team doctrine; list_inbox lists what waits for the "
    "user's review. Use remember when the user asks you to "
    "remember how they work; never for document content, personal data or secrets."
)
T = TypeVar("T")


def session_scope(flag: str | None) -> str | None:
    """The scope of this server's session: ``--scope``, else ``$AGENTMEM_SCOPE``, else None
    (a draft "to be assigned"). Raises DoctrineError on an invalid scope."""
    from agentmem.doctrine import normalise_scope

    return normalise_scope(flag or os.environ.get("AGENTMEM_SCOPE"), "--scope")


def open_repo() -> Repository:
    """The memory repository of this server (see the module docstring)."""
    from agentmem.config import load_config
    from agentmem.store.repo import Repository, open_repository
    from agentmem.store.root import find_root

    try:
        return open_repository()
    except NotARepositoryError:
        project = os.environ.get("CLAUDE_PROJECT_DIR")
        if not project or os.environ.get("AGENTMEM_REPO"):
            raise
        root = find_root(Path(project))
        return Repository(root, load_config(root))


def new_session_id() -> str:
    """``mcp-YYYYMMDDTHHMMSS-xxxxxx``: one per server run (one agent session), so a draft never
    inherits the scope of another session's proposals (``origin_session``,
    docs/design.md §Proposals)."""
    from datetime import UTC, datetime
    from secrets import token_hex

    return f"mcp-{datetime.now(UTC):%Y%m%dT%H%M%S}-{token_hex(3)}"


def remember(text: str, section: str | None, session: str) -> Proposal:
    """One pending memory proposal for the actor, committed at once (``review.remember``)."""
    from agentmem.proposals.review import remember as do_remember

    repo = open_repo()
    actor = repo.actor()
    with repo.locked():
        return do_remember(repo, actor, text, section or repo.config.memory.sections[0], session)


def show_memory() -> str:
    """The actor's chat context block, as ``agentmem context chat`` prints it."""
    from agentmem.delivery.context import build_chat, render_chat

    repo = open_repo()
    return render_chat(build_chat(repo, repo.actor().id), "text")


def search_text(query: str, areas: str | None, limit: int) -> str:
    """``agentmem search`` for the actor (no ``--person``: only their own personal documents),
    one hit on two lines (where and what, then the matching line); ``no match`` when none."""
    from agentmem.search import parse_kinds, search

    repo = open_repo()
    kinds = parse_kinds(areas)
    result = search(repo, repo.actor(), query, kinds=kinds, limit=limit)
    lines = [f"{hit.where}  {hit.describe()}\n    {hit.snippet}" for hit in result.hits]
    return "\n".join(lines) if lines else f"no match in {', '.join(kinds)}"


def list_inbox() -> str:
    """The actor's pending proposals, one a line (``id  summary  [basis, source]``)."""
    from agentmem.proposals.inbox import list_pending

    repo = open_repo()
    actor = repo.actor()
    pending = list_pending(repo, actor.id)
    if not pending:
        return f"no pending proposals for {actor.id}"
    head = f"{len(pending)} pending proposal{'s' if len(pending) != 1 else ''} for {actor.id}:"
    lines = [f"{p.id}  {p.summary()}  [{p.basis}, {p.source}]" for p in pending]
    return "\n".join([head, *lines, "The user decides with 'agentmem review'."])


def propose_rule(
    title: str,
    instruction: str,
    limits: list[str],
    justification: str,
    scope: str | None,
    session: str,
) -> str:
    """A doctrine draft proposed by the actor (``doctrine.propose``: role, guard and duplicate
    guard apply, one audit commit); returns a one-line summary for the model."""
    from agentmem.doctrine import Draft, propose

    repo = open_repo()
    actor = repo.actor()
    draft = Draft(title, instruction, tuple(limits), justification, scope, session)
    with repo.locked():
        transition = propose(repo, actor, draft)
    rule = transition.rule
    where = f"scope {rule.scope}" if rule.scope else "scope to be assigned"
    notes = "".join(f" Note: {w}." for w in transition.warnings)
    return (
        f"draft rule {rule.id} (version {rule.version}, {where}) proposed by {actor.id}. It "
        f"applies to no audit until an admin approves it with 'agentmem doctrine approve'.{notes}"
    )


def _tool_call(fn: Callable[[], T]) -> T:
    """Turn an expected agentmem refusal into an MCP tool error the model can read."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return fn()
    except AgentmemError as exc:
        raise ToolError(str(exc)) from None


def build_server(scope: str | None = None) -> MCPServer:
    """The ``MCPServer`` with the five tools. ``scope``: the session's scope (see above)."""
    from mcp.server import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer("agentmem", instructions=INSTRUCTIONS)
    session = new_session_id()
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(name="remember", annotations=writes)
    def remember_tool(text: str, section: str | None = None) -> str:
        """Ask agentmem to remember one working preference of the user (one line).

        It becomes a pending proposal in the user's inbox, committed at once; nothing reaches
        the memory until the user accepts it with 'agentmem review'. section: one of the
        memory's sections (default: the first, "Writing style").
        """
        proposal = _tool_call(lambda: remember(text, section, session))
        return (
            f"pending proposal {proposal.id} in {proposal.person}'s inbox: {proposal.summary()}. "
            "The user accepts or rejects it with 'agentmem review'."
        )

    @server.tool(name="propose_rule", annotations=writes)
    def propose_rule_tool(
        title: str, instruction: str, limits: list[str], justification: str = ""
    ) -> str:
        """Propose a team doctrine rule as a draft: how the team applies a reference rule.

        limits: at least one explicit case where the rule does not hold. The draft's scope is
        the session's; it applies to no audit until an admin approves it.
        """
        return _tool_call(
            lambda: propose_rule(title, instruction, limits, justification, scope, session)
        )

    @server.tool(name="show_memory", annotations=reads)
    def show_memory_tool() -> str:
        """The user's remembered preferences as agentmem gives them to a chat (read only)."""
        return _tool_call(show_memory)

    @server.tool(name="search", annotations=reads)
    def search_tool(query: str, areas: str | None = None, limit: int = 10) -> str:
        """Search the user's memory, inbox and past decisions and the team doctrine (read only).

        query: words (SQLite FTS5 syntax: "a phrase", AND, OR, NOT, prefix*). areas: any of
        memory,doctrine,inbox,history, comma-separated (default: all). Best matches first, each
        with where it lives (file:line, rule and version, or commit) and the matched words
        between **.
        """
        return _tool_call(lambda: search_text(query, areas, limit))

    @server.tool(name="list_inbox", annotations=reads)
    def list_inbox_tool() -> str:
        """The user's pending proposals, waiting for their review (read only)."""
        return _tool_call(list_inbox)

    return server
