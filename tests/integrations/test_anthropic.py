"""``agentmem.integrations.anthropic.MemoryTool``: the SDK's memory tool on reviewed memory.
The conversation runs through the SDK's own tool runner on an ``httpx2.MockTransport`` serving
recorded responses (tests/data/anthropic/memory_tool), so nothing reaches the network."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest
from tests.helpers import git, invoke

import agentmem

if TYPE_CHECKING:
    import anthropic

# The SDK is imported inside the tests that use it: it is the slowest import of the suite, and a
# module-level import is paid at collection by every worker.
DATA = Path(__file__).parents[1] / "data" / "anthropic" / "memory_tool"


class Recorded:
    """Serves the recorded turns in order and keeps every request body."""

    def __init__(self) -> None:
        self.turns = [
            json.loads((DATA / f"turn_{n}.json").read_text(encoding="utf-8")) for n in range(1, 8)
        ]
        self.bodies: list[dict[str, Any]] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=self.turns.pop(0))

    def client(self) -> anthropic.Anthropic:
        import anthropic

        return anthropic.Anthropic(
            api_key="test-key",
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(self.handler)),
        )

    def results(self) -> dict[str, dict[str, Any]]:
        """Every tool_result the runner sent back, by tool_use id."""
        found = {}
        for body in self.bodies:
            for message in body["messages"]:
                content = message["content"]
                for block in content if isinstance(content, list) else []:
                    if block.get("type") == "tool_result":
                        found[block["tool_use_id"]] = block
        return found


def _text(result: dict[str, Any]) -> str:
    content = result["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


@pytest.fixture
def with_memory(memrepo: Path, runner) -> Path:
    for text in ("Answer in French.", "Quote figures with their unit."):
        assert invoke(runner, "remember", text, "--section", "Writing style").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    return memrepo


@pytest.mark.slow
def test_a_recorded_conversation_files_proposals_and_writes_no_memory(with_memory: Path):
    from agentmem.integrations.anthropic import MemoryTool

    memory_before = (with_memory / "memories" / "alice.md").read_text(encoding="utf-8")
    import anthropic

    tool = MemoryTool(agentmem.open(), session="chat-42")
    assert isinstance(tool, anthropic.lib.tools.BetaAbstractMemoryTool)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    api = Recorded()
    runner = api.client().beta.messages.tool_runner(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=[tool],
        messages=[{"role": "user", "content": "Remember how I like contract reviews."}],
    )
    final = runner.until_done()
    assert final.content[0].text == "I've filed your preferences for review."
    assert api.bodies[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    results = api.results()

    listing = _text(results["toolu_01Memory0001"])
    assert "/memories/alice.md" in listing and not results["toolu_01Memory0001"].get("is_error")

    shown = _text(results["toolu_01Memory0002"])
    assert "     4\t- Answer in French." in shown

    created = _text(results["toolu_01Memory0003"])
    assert created.startswith("Filed 2 pending proposal(s) for alice to review")
    assert "Quote the clause number before each finding." in created
    assert "# Contract review" not in created

    modified = _text(results["toolu_01Memory0004"])
    assert "modify in [Answer in French.] -> Answer in English." in modified

    outside = results["toolu_01Memory0005"]
    assert outside["is_error"] is True
    assert "refused" in _text(outside) and "agentmem" not in _text(outside).lower()

    renamed = results["toolu_01Memory0006"]
    assert renamed["is_error"] is True and "renaming is refused" in _text(renamed)

    # Never a direct write: the memory file is as it was; three proposals wait in the inbox.
    assert (with_memory / "memories" / "alice.md").read_text(encoding="utf-8") == memory_before
    pending = agentmem.open().pending()
    assert [(p.action, p.source, p.session) for p in pending] == [
        ("add", "memory-tool", "chat-42"),
        ("add", "memory-tool", "chat-42"),
        ("modify", "memory-tool", "chat-42"),
    ]
    assert all(p.basis == "inferred" for p in pending)
    trailers = git(with_memory, "log", "-1", "--format=%(trailers)")
    assert "Agentmem-Source: memory-tool" in trailers


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/memories/../secrets",
        "/memoriesX/a.md",
        "memories/a.md",
        "/memories/%2e%2e/a.md",
        "/memories\\..\\a.md",
        "",
    ],
)
def test_paths_outside_the_memory_folder_are_refused(memrepo: Path, path: str):
    from agentmem.integrations.anthropic import MemoryToolRefusal, check_path

    with pytest.raises(MemoryToolRefusal):
        check_path(path)


def test_insert_delete_and_view_range(with_memory: Path):
    from anthropic.lib.tools import ToolError

    from agentmem.integrations.anthropic import MemoryTool

    tool = MemoryTool(agentmem.open(), session="s1")
    part = tool.call({"command": "view", "path": "/memories/alice.md", "view_range": [4, 4]})
    assert part.endswith("     4\t- Answer in French.")
    inserted = tool.call(
        {
            "command": "insert",
            "path": "/memories/alice.md",
            "insert_line": 4,
            "insert_text": "- Sign letters with the full name.\n",
        }
    )
    assert 'add to "Writing style": Sign letters with the full name.' in inserted
    deleted = tool.call({"command": "delete", "path": "/memories/alice.md"})
    assert deleted.startswith("Filed 2 pending proposal(s)")
    assert deleted.count("remove from") == 2
    with pytest.raises(ToolError):
        tool.call({"command": "delete", "path": "/memories"})
    with pytest.raises(ToolError) as unknown:
        tool.call({"command": "str_replace", "path": "/memories/notes.md", "old_str": "a"})
    assert "does not exist" in str(unknown.value)
    memory = (with_memory / "memories" / "alice.md").read_text(encoding="utf-8")
    assert len([ln for ln in memory.splitlines() if ln.startswith("- ")]) == 2  # unchanged


def test_the_guard_refuses_a_secret_the_model_tries_to_store(with_memory: Path):
    from anthropic.lib.tools import ToolError

    from agentmem.integrations.anthropic import MemoryTool

    key = "sk-ant-api03-" + "Q" * 40 + "AA"
    tool = MemoryTool(agentmem.open())
    with pytest.raises(ToolError) as refused:
        tool.call({"command": "create", "path": "/memories/k.md", "file_text": f"Key: {key}\n"})
    assert key not in str(refused.value)
    assert agentmem.open().pending() == []


@pytest.mark.slow
def test_import_agentmem_does_not_load_the_sdk(tmp_path: Path):
    code = (
        "import sys, agentmem, agentmem.integrations.anthropic as m\n"
        "print('anthropic' in sys.modules)\n"
        "m.MemoryTool\n"
        "print('anthropic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.split()
    assert out == ["False", "True"]
