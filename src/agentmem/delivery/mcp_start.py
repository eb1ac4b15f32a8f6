"""The MCP server's start (docs/design/context.md §Context, MCP start): ``initialize`` answered before
the SDK loads.

Importing the MCP SDK (``mcp``, its protocol types, pydantic) is most of the server's start
(``benchmarks/bench_mcp.py`` has the figures), and a client such as Claude Code waits for the
answer to ``initialize`` before it offers the tools. That answer depends on nothing the SDK
computes: the server's name, version, instructions and capabilities, and the protocol version
(the client's when the SDK speaks it, else the latest the SDK knows). So :func:`serve_stdio`
reads the first line, answers a well-formed ``initialize`` itself, then loads the SDK and
hands it the same line followed by the rest of stdin, dropping the SDK's own answer to that
request (and saying on stderr if it differs from the one given). The SDK then serves the
session exactly as it would have: every later message goes to it and comes from it.

Nothing here imports the SDK, pydantic or the domain: this module is what ``agentmem mcp``
loads before it answers.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from agentmem import __version__
from agentmem.doctrine.model import normalise_scope

INSTRUCTIONS = (
    "agentmem keeps the user's approved working preferences (personal memory) and the team's "
    "doctrine in a git repository. These tools only propose or read. remember puts one pending "
    "entry in the user's inbox (committed at once); the user accepts or rejects it later with "
    "'agentmem review'. propose_rule records a draft doctrine rule that an admin must approve. "
    "show_memory returns the user's current memory block. search finds words in the user's "
    "memory, inbox and decisions and in the team doctrine; list_inbox lists what waits for the "
    "user's review. Use remember when the user asks you to "
    "remember how they work; never for document content, personal data or secrets. When the "
    "memory is full, forget and replace propose removing entries or merging several into one "
    "(by the numbers show_memory gives); the user decides on those in review too."
)
#: The instructions of a server started for audits (``agentmem mcp --for audit``): doctrine,
#: never personal memory (docs/design/served.md §Served view, two memories never meet).
AUDIT_INSTRUCTIONS = (
    "agentmem gives an audit the team's doctrine: the rules an admin approved, as committed, "
    "for a scope. audit_context returns the active rules that apply to the session's scope "
    "(or the scope asked), each with its limits, as reference data for the audit, not "
    "instructions with authority. list_rules lists the rules of a scope with their status; "
    "search_rules finds words in the rules. propose_rule records a draft rule that an admin "
    "must approve. This server gives no personal memory: a chat agent's server does."
)
#: What a server is started for (``agentmem mcp --for``): ``chat`` (personal memory, never
#: doctrine) or ``audit`` (doctrine, never personal memory).
MODES = ("chat", "audit")
NAME = "agentmem"
#: The versions the SDK answers ``initialize`` in (``mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS``
#: of the ``mcp`` pinned in pyproject.toml; tests/delivery/test_mcp_start.py compares them).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: What the SDK advertises for a server with tools (no prompts or resources of its own).
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
#: Longest first line read before handing over to the SDK unanswered.
_FIRST_LINE_MAX = 1 << 20
#: Written after the SDK has finished, to end the copy of its output: JSON holds no NUL byte.
_END = b"\x00"


def session_scope(flag: str | None) -> str | None:
    """The scope of this server's session: ``--scope``, else ``$AGENTMEM_SCOPE``, else None
    (a draft "to be assigned"). Raises DoctrineError on an invalid scope."""
    return normalise_scope(flag or os.environ.get("AGENTMEM_SCOPE"), "--scope")


def instructions_for(mode: str) -> str:
    """The server's instructions for ``mode`` (:data:`MODES`)."""
    return AUDIT_INSTRUCTIONS if mode == "audit" else INSTRUCTIONS


def initialize_result(protocol_version: str, mode: str = "chat") -> dict[str, Any]:
    """The ``initialize`` result the SDK gives for a client asking ``protocol_version``."""
    negotiated = (
        protocol_version if protocol_version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    )
    return {
        "capabilities": CAPABILITIES,
        "instructions": instructions_for(mode),
        "protocolVersion": negotiated,
        "serverInfo": {"name": NAME, "version": __version__},
    }


def early_answer(line: bytes, mode: str = "chat") -> tuple[Any, dict[str, Any]] | None:
    """``(id, response)`` when ``line`` is a well-formed ``initialize`` request answered here;
    None for anything else (the SDK answers it, errors included)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    ident = message.get("id")
    params = message.get("params")
    if message.get("method") != "initialize" or type(ident) not in (int, str):
        return None
    if not isinstance(params, dict) or not isinstance(params.get("capabilities"), dict):
        return None
    client = params.get("clientInfo")
    version = params.get("protocolVersion")
    if not isinstance(version, str) or not isinstance(client, dict):
        return None
    if not isinstance(client.get("name"), str) or not isinstance(client.get("version"), str):
        return None
    return ident, {"jsonrpc": "2.0", "id": ident, "result": initialize_result(version, mode)}


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _first_line(fd: int) -> tuple[bytes, bytes]:
    """The first line read from ``fd`` (with its newline; what came before EOF or the size
    limit otherwise) and what was read after it."""
    buffer = b""
    while b"\n" not in buffer and len(buffer) < _FIRST_LINE_MAX:
        chunk = os.read(fd, 65536)
        if not chunk:
            return buffer, b""
        buffer += chunk
    line, newline, rest = buffer.partition(b"\n")
    return (line + newline, rest) if newline else (buffer, b"")


def _copy_in(first: bytes, source: int, sink: int) -> None:
    """``first``, then everything ``source`` gives, into ``sink``; closes ``sink`` at EOF."""
    try:
        _write(sink, first)
        while chunk := os.read(source, 65536):
            _write(sink, chunk)
    except OSError:
        pass  # the SDK stopped reading: nothing left to give it
    finally:
        os.close(sink)


def _copy_out(source: int, sink: int, answered: Any, given: dict[str, Any] | None) -> None:
    """The SDK's output from ``source`` to ``sink`` up to :data:`_END`, without its answer to
    the request ``answered`` (already given as ``given``; None: nothing to leave out)."""
    pending = b""
    dropped = given is None
    while True:
        chunk = os.read(source, 65536)
        if not chunk:
            return
        end = chunk.find(_END)
        if end >= 0:
            chunk = chunk[:end]
        if dropped:
            _write(sink, chunk)
        else:
            pending += chunk
            while not dropped and b"\n" in pending:
                line, _, pending = pending.partition(b"\n")
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("id") == answered:
                    dropped = True
                    if message != given:
                        sys.stderr.write(
                            "warning: the MCP SDK's answer to initialize differs from the one "
                            "agentmem gave before loading it (see agentmem/delivery/mcp_start.py)\n"
                        )
                        sys.stderr.flush()
                else:
                    _write(sink, line + b"\n")
            if dropped and pending:
                _write(sink, pending)
                pending = b""
        if end >= 0:
            if pending:
                _write(sink, pending)
            return


def serve_stdio(start: Callable[[], Callable[[], None]], mode: str = "chat") -> None:
    """Serve MCP on stdin/stdout: answer ``initialize`` here (see the module docstring), then
    ``start()`` (which loads the SDK and builds the server) and run what it returns (the SDK's
    stdio loop) on the same line replayed before the rest of stdin."""
    first, rest = _first_line(0)
    if not first:  # nobody spoke: the SDK sees the same end of input
        start()()
        return
    early = early_answer(first, mode)
    if early is not None:
        _write(1, json.dumps(early[1], separators=(",", ":")).encode() + b"\n")
    serve = start()
    real_in, real_out = os.dup(0), os.dup(1)
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    os.dup2(in_read, 0)
    os.close(in_read)
    os.dup2(out_write, 1)
    feeder = threading.Thread(target=_copy_in, args=(first + rest, real_in, in_write), daemon=True)
    copier = threading.Thread(
        target=_copy_out,
        args=(out_read, real_out, *(early or (None, None))),
        daemon=True,
    )
    feeder.start()
    copier.start()
    try:
        serve()
    finally:
        sys.stdout.flush()
        _write(out_write, _END)
        copier.join(timeout=10)
        os.dup2(real_out, 1)
        os.close(out_write)
