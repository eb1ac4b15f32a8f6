"""Every real Claude Code and Codex transcript (tests/data/corpus and the excerpts in
tests/data/transcripts) goes through
`agentmem harvest --provider offline` with exit 0 and an explicit count."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.helpers import CORPUS, DATA, invoke
from typer.testing import CliRunner

BUNDLED = sorted((DATA / "transcripts").glob("*.jsonl"))
CORPUS_SESSIONS = sorted(
    [*CORPUS.glob("claude-code-transcripts/*.jsonl"), *CORPUS.glob("codex-rollouts/*.jsonl")]
)
# The bundled folder holds some corpus files whole: each distinct session is harvested once.
SESSIONS = list({p.read_bytes(): p for p in reversed(BUNDLED + CORPUS_SESSIONS)}.values())


@pytest.mark.parametrize("transcript", SESSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_offline_harvest_of_a_real_transcript_says_its_count(
    memrepo: Path, runner: CliRunner, transcript: Path
) -> None:
    result = invoke(runner, "harvest", str(transcript), "--provider", "offline")
    assert result.exit_code == 0, result.stderr
    assert re.search(r"via offline: \d+ proposals? kept, \d+ rejected", result.stdout), (
        result.stdout
    )


def test_every_corpus_session_and_every_bundled_excerpt_is_harvested() -> None:
    assert len(CORPUS_SESSIONS) == 9
    assert len(BUNDLED) == 8
    assert len(SESSIONS) == 13  # 4 bundled files are whole corpus files
