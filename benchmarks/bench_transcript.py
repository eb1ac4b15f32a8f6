"""Benchmark: peak memory of reading a large transcript, and of a whole offline harvest, as a
ratio to the file's size (target ≤ 3×), and the time at two sizes (target: linear).

Not a test. Run from the repository root (about a minute on 2 cores)::

    PYTHONPATH=src python benchmarks/bench_transcript.py [MEGABYTES]

For each format the readers understand (Claude Code JSONL, Codex JSONL, a Messages JSON array,
plain text, ChatGPT and Claude.ai ``conversations.json``) it writes a synthetic file of about
MEGABYTES (default 16, under the default ``harvest.max_transcript_mb`` of 20) in the shapes of
``tests/data/``: the person's prompts, assistant answers, tool calls and large tool results.
It then prints, per format:

- ``read``: the Python peak allocation (``tracemalloc``) while reading the file, and its ratio
  to the file's size;
- ``harvest``: the same for the whole ``harvest_session`` with the offline provider (reading,
  the person's own text, the request, validation, the inbox commit) in a fresh memory
  repository; for an export, ``read_export`` and the harvest of its first conversation;
- the reading time at half the size and at the full size (without ``tracemalloc``; medians of
  5), and their ratio: about 2.0 means linear.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentmem.harvest.exports import read_export
from agentmem.harvest.run import harvest_session
from agentmem.harvest.transcripts import read_transcript
from agentmem.store.init import init_repository
from agentmem.store.repo import open_repository

RESULT = "line of a file the agent read, with some text in it\n" * 400
PROMPT = "Step {i}: review clause {i}. From now on, always write dates as ISO 8601 in reports."
ANSWER = "Reading clause {i}: the liability cap applies to direct damages only. " * 4


def _claude_code(i: int) -> Iterator[dict[str, Any]]:
    common = {"sessionId": "bench-session", "cwd": "/home/USER/project", "version": "2.1.38"}
    yield {**common, "type": "user", "message": {"role": "user", "content": PROMPT.format(i=i)}}
    blocks = [
        {"type": "text", "text": ANSWER.format(i=i)},
        {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"c{i}.md"}},
    ]
    yield {**common, "type": "assistant", "message": {"role": "assistant", "content": blocks}}
    result = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": RESULT}]
    yield {**common, "type": "user", "message": {"role": "user", "content": result}}


def _codex(i: int) -> Iterator[dict[str, Any]]:
    stamp = "2026-02-23T19:34:26.098Z"
    if i == 0:
        meta = {"id": "019c8bfe-ec25-79e0-97d7-bda6a9c575ff", "cwd": "/redacted"}
        yield {"timestamp": stamp, "type": "session_meta", "payload": meta}
    user = {"type": "input_text", "text": PROMPT.format(i=i)}
    answer = {"type": "output_text", "text": ANSWER.format(i=i)}
    for payload in (
        {"type": "message", "role": "user", "content": [user]},
        {"type": "message", "role": "assistant", "content": [answer]},
        {"type": "function_call", "name": "shell", "arguments": '{"cmd": ["cat", "c.md"]}'},
        {"type": "function_call_output", "call_id": f"c{i}", "output": RESULT},
    ):
        yield {"timestamp": stamp, "type": "response_item", "payload": payload}


def _message(i: int) -> Iterator[dict[str, Any]]:
    yield {"role": "user", "content": PROMPT.format(i=i)}
    blocks = [
        {"type": "text", "text": ANSWER.format(i=i)},
        {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"c{i}.md"}},
    ]
    yield {"role": "assistant", "content": blocks}
    result = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": RESULT}]
    yield {"role": "user", "content": result}


def _chatgpt(c: int, count: int) -> dict[str, Any]:
    mapping: dict[str, Any] = {"root": {"parent": None, "children": ["m0"], "message": None}}
    parent = "root"
    for i in range(count):
        for kind, role, text in (
            ("u", "user", PROMPT.format(i=i)),
            ("a", "assistant", ANSWER.format(i=i)),
            ("t", "tool", RESULT),
        ):
            node = f"{kind}{c}-{i}"
            content = {"content_type": "text", "parts": [text]}
            message = {"id": node, "author": {"role": role}, "content": content}
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": message}
            mapping[parent]["children"] = [node]
            parent = node
    return {"id": f"conv-{c}", "title": "t", "current_node": parent, "mapping": mapping}


def _claude_ai(c: int, count: int) -> dict[str, Any]:
    messages = []
    for i in range(count):
        messages.append(
            {
                "uuid": f"u{c}-{i}",
                "sender": "human",
                "content": [{"type": "text", "text": PROMPT.format(i=i)}],
                "attachments": [],
                "files": [],
            }
        )
        blocks = [
            {"type": "text", "text": ANSWER.format(i=i)},
            {"type": "tool_use", "name": "web_search", "input": {"query": f"clause {i}"}},
            {"type": "tool_result", "content": [{"type": "text", "text": RESULT}]},
        ]
        messages.append({"uuid": f"a{c}-{i}", "sender": "assistant", "content": blocks})
    return {"uuid": f"conv-{c}", "name": "t", "chat_messages": messages}


def write(fmt: str, path: Path, megabytes: float) -> int:
    """Write a ``fmt`` file of about ``megabytes``; its size in bytes."""
    target = int(megabytes * 1_000_000)
    size = 0
    with path.open("w", encoding="utf-8") as out:

        def put(text: str) -> None:
            nonlocal size
            out.write(text)
            size += len(text.encode("utf-8"))

        i = 0
        if fmt in ("claude-code", "codex"):
            lines = _claude_code if fmt == "claude-code" else _codex
            while size < target:
                for obj in lines(i):
                    put(json.dumps(obj) + "\n")
                i += 1
        elif fmt == "messages":
            put("[\n")
            while size < target:
                for obj in _message(i):
                    put(("\n" if size == 2 else ",\n") + json.dumps(obj))
                i += 1
            put("\n]\n")
        elif fmt == "text":
            while size < target:
                put(f"User: {PROMPT.format(i=i)}\n\nAssistant: {ANSWER.format(i=i)}\n\n")
                put(f"```\n{RESULT}```\n\n")
                i += 1
        else:  # conversations.json: conversations of 50 exchanges each
            make = _chatgpt if fmt == "chatgpt" else _claude_ai
            put("[\n")
            while size < target:
                put(("" if i == 0 else ",\n") + json.dumps(make(i, 50), indent=1))
                i += 1
            put("\n]\n")
    return size


FORMATS = ("claude-code", "codex", "messages", "text", "chatgpt", "claude-ai")
SUFFIX = {"messages": ".json", "text": ".md", "chatgpt": ".json", "claude-ai": ".json"}


def reader(fmt: str, path: Path, megabytes: float) -> Callable[[], object]:
    if fmt in ("chatgpt", "claude-ai"):
        return lambda: read_export(path)
    return lambda: read_transcript(path, max_mb=megabytes + 1)


def peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def seconds(run: Callable[[], object]) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def harvest(fmt: str, path: Path, base: Path) -> Callable[[], object]:
    root = base / f"repo-{fmt}"
    init_repository(root)
    repo = open_repository(root)
    actor = repo.actor()

    def run() -> object:
        if fmt in ("chatgpt", "claude-ai"):
            first = read_export(path)[0]
            return harvest_session(repo, actor, path, provider="offline", transcript=first)
        return harvest_session(repo, actor, path, provider="offline")

    return run


def main() -> int:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 16.0
    print(
        f"{'format':<12} {'MB':>5} {'read peak':>10} {'ratio':>6} {'harvest':>8} {'ratio':>6}"
        f" {'t(half)':>8} {'t(full)':>8} {'growth':>6}"
    )
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for fmt in FORMATS:
            half = base / f"half-{fmt}{SUFFIX.get(fmt, '.jsonl')}"
            full = base / f"{fmt}{SUFFIX.get(fmt, '.jsonl')}"
            write(fmt, half, megabytes / 2)
            size = write(fmt, full, megabytes)
            read_peak = peak(reader(fmt, full, megabytes))
            harvest_peak = peak(harvest(fmt, full, base))
            t_half = seconds(reader(fmt, half, megabytes))
            t_full = seconds(reader(fmt, full, megabytes))
            half.unlink()
            full.unlink()
            worst = max(worst, read_peak / size, harvest_peak / size)
            print(
                f"{fmt:<12} {size / 1e6:>5.1f} {read_peak / 1e6:>8.1f}MB {read_peak / size:>5.2f}x"
                f" {harvest_peak / 1e6:>6.1f}MB {harvest_peak / size:>5.2f}x"
                f" {t_half:>7.2f}s {t_full:>7.2f}s {t_full / t_half:>5.2f}x"
            )
    print(f"worst peak: {worst:.2f}x the file (target <= 3x); growth 2.0x = linear in the size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
