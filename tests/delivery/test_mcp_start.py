"""The MCP server's start: ``initialize`` answered before the SDK loads, then the SDK serving
the same session (docs/design/context.md §Context, MCP start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agentmem import __version__
from agentmem.delivery import mcp_start
from agentmem.delivery.mcp_start import early_answer

INIT = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def _line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def test_the_early_answer_is_what_the_sdk_would_say() -> None:
    """Name, version, instructions, capabilities and the versions negotiated are the SDK's
    (a new ``mcp`` that changes them fails here; the slow test below compares whole answers)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    from agentmem.delivery.mcp_server import build_server

    server = build_server()
    options = server._lowlevel_server.create_initialization_options()
    assert mcp_start.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert mcp_start.HANDSHAKE_VERSIONS[-1] == LATEST_HANDSHAKE_VERSION
    assert (options.server_name, options.server_version) == ("agentmem", __version__)
    assert options.instructions == mcp_start.INSTRUCTIONS
    dumped = options.capabilities.model_dump(by_alias=True, exclude_none=True)
    assert {k: v for k, v in dumped.items() if v != {}} == mcp_start.CAPABILITIES  # as sent
    # a server started for audits (agentmem mcp --for audit) answers with its own instructions
    audit = build_server(None, "audit")._lowlevel_server.create_initialization_options()
    assert audit.instructions == mcp_start.AUDIT_INSTRUCTIONS
    assert early_answer(_line(INIT), "audit")[1]["result"]["instructions"] == audit.instructions  # type: ignore[index]


@pytest.mark.parametrize(
    ("asked", "negotiated"),
    [("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"), ("2026-07-28", "2025-11-25")],
)
def test_the_protocol_version_is_negotiated_as_the_sdk_does(asked: str, negotiated: str) -> None:
    request = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}
    ident, answer = early_answer(_line(request)) or (None, {})
    assert ident == 7
    assert answer["result"]["protocolVersion"] == negotiated
    assert answer["result"]["serverInfo"] == {"name": "agentmem", "version": __version__}


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        _line({**INIT, "method": "ping"}),
        _line({**INIT, "id": None}),
        _line({**INIT, "id": True}),
        _line({**INIT, "jsonrpc": "1.0"}),
        _line({**INIT, "params": {"protocolVersion": "2025-06-18"}}),
        _line({**INIT, "params": {**INIT["params"], "clientInfo": {"name": "x"}}}),
        _line([INIT]),
    ],
)
def test_anything_but_a_well_formed_initialize_is_left_to_the_sdk(line: bytes) -> None:
    assert early_answer(line) is None


def _copied(written: bytes, answered: object, given: dict | None) -> tuple[bytes, str]:
    """What :func:`mcp_start._copy_out` passes on of ``written`` (then the end mark, then
    bytes that must not pass), and what it said on stderr."""
    source_read, source_write = os.pipe()
    sink_read, sink_write = os.pipe()
    os.write(source_write, written + mcp_start._END + b"after the end\n")
    errors: list[str] = []
    real = sys.stderr

    class Err:
        def write(self, text: str) -> None:
            errors.append(text)

        def flush(self) -> None:
            pass

    sys.stderr = Err()  # type: ignore[assignment]
    try:
        thread = threading.Thread(
            target=mcp_start._copy_out, args=(source_read, sink_write, answered, given)
        )
        thread.start()
        thread.join(timeout=10)
    finally:
        sys.stderr = real
    os.close(sink_write)
    out = b""
    while chunk := os.read(sink_read, 65536):
        out += chunk
    for fd in (source_read, source_write, sink_read):
        os.close(fd)
    return out, "".join(errors)


def test_the_sdks_own_answer_is_left_out_once_and_the_rest_passes() -> None:
    _, given = early_answer(_line(INIT)) or (None, {})
    later = [{"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}, {**given, "id": 7}]
    out, said = _copied(_line(given) + b"".join(_line(m) for m in later), 7, given)
    assert out == b"".join(_line(m) for m in later)  # a later id 7 is the client's own request
    assert said == ""


def test_an_sdk_answer_unlike_the_early_one_is_said_on_stderr() -> None:
    _, given = early_answer(_line(INIT)) or (None, {})
    other = {**given, "result": {**given["result"], "instructions": "changed"}}
    out, said = _copied(_line(other), 7, given)
    assert out == b""
    assert said.startswith("warning: the MCP SDK's answer to initialize differs")


def test_nothing_is_left_out_when_nothing_was_answered_early() -> None:
    written = _line({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "bad"}})
    assert _copied(written, None, None) == (written, "")


def test_the_start_imports_neither_the_sdk_nor_pydantic() -> None:
    code = (
        "import sys, agentmem.cli.mcp, agentmem.delivery.mcp_start\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types', 'pydantic'}))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


@pytest.mark.slow
def test_a_whole_session_over_stdio_after_the_early_answer(memrepo: Path) -> None:
    """initialize answered early, then tools/list, a tool call and a ping served by the SDK;
    the SDK's own initialize answer equals the early one (no warning) for every version."""
    for asked in ("2025-06-18", "2024-11-05", "2026-07-28"):
        request = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}
        then = [
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "show_memory"}},
            {"jsonrpc": "2.0", "id": 7, "method": "ping"},
        ]
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentmem", "mcp"],
            cwd=memrepo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        answers = []
        for message in [request, *then]:
            proc.stdin.write(_line(message))
            proc.stdin.flush()
            if "id" in message:  # one answer each, in turn, as a client waits for them
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.stdout.read() == b""
        proc.wait(timeout=60)
        proc.stderr = proc.stderr.read()  # type: ignore[assignment]
        assert proc.returncode == 0, proc.stderr
        assert b"warning" not in proc.stderr, proc.stderr  # type: ignore[operator]
        assert [a["id"] for a in answers] == [7, 8, 9, 7]
        assert answers[0] == early_answer(_line(request))[1]  # type: ignore[index]
        assert "remember" in {tool["name"] for tool in answers[1]["result"]["tools"]}
        assert answers[2]["result"]["structuredContent"]["person"] == "alice"
        assert answers[3]["result"] == {}


@pytest.mark.slow
def test_a_first_line_that_is_not_initialize_is_the_sdks_to_answer(memrepo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", "mcp"],
        cwd=memrepo,
        input=b"not json\n" + _line(INIT),
        capture_output=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a.get("id") for a in answers][-1] == 7
    assert answers[-1]["result"]["serverInfo"]["name"] == "agentmem"
