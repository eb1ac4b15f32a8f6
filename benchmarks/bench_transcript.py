"""Benchmark: peak memory of reading a large transcript, as a ratio to its size (target ≤ 3×).

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_transcript.py [MEGABYTES]

Writes a Claude Code session JSONL of about MEGABYTES (default 18, under the default
``harvest.max_transcript_mb`` of 20): user prompts, assistant answers and large tool results,
then reads it with ``read_transcript`` under ``tracemalloc`` and prints the file size, the
Python peak allocation and their ratio.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from agentmem.harvest.transcripts import read_transcript


def write_session(path: Path, megabytes: float) -> int:
    common = {"sessionId": "bench-session", "cwd": "/home/USER/project", "version": "2.1.38"}
    result = "line of a file the agent read, with some text in it\n" * 400
    target = int(megabytes * 1_000_000)
    size = 0
    i = 0
    with path.open("w", encoding="utf-8") as out:
        while size < target:
            lines = [
                {
                    **common,
                    "type": "user",
                    "message": {"role": "user", "content": f"Step {i}: review clause {i}."},
                },
                {
                    **common,
                    "type": "assistant",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": f"Reading clause {i}."},
                            {
                                "type": "tool_use",
                                "id": f"t{i}",
                                "name": "Read",
                                "input": {"file_path": f"c{i}.md"},
                            },
                        ],
                    },
                },
                {
                    **common,
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"t{i}", "content": result},
                        ],
                    },
                },
            ]
            for line in lines:
                text = json.dumps(line) + "\n"
                out.write(text)
                size += len(text.encode("utf-8"))
            i += 1
    return size


def main() -> int:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 18.0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        size = write_session(path, megabytes)
        tracemalloc.start()
        start = time.perf_counter()
        transcript = read_transcript(path, max_mb=megabytes + 1)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(
        f"transcript: {size / 1e6:.1f} MB, {len(transcript.turns)} turns, read in {elapsed:.1f} s"
    )
    print(
        f"peak Python allocation: {peak / 1e6:.1f} MB = {peak / size:.2f}x the file (target <= 3x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
