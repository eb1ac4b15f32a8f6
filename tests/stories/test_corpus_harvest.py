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


@pytest.mark.slow
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


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        (DATA / "imports" / "instructions" / "fr_claude.md", "'agentmem import PATH'"),
        (CORPUS / "claude-code-hooks" / "macos_user_prompt_submit.json", "transcript_path"),
    ],
    ids=["claude-md", "hook-payloads"],
)
def test_harvest_of_a_file_that_is_no_session_names_the_next_step(
    memrepo: Path, runner: CliRunner, path: Path, hint: str
) -> None:
    """A new user's first tries: an instruction file or a hook log given to harvest. The error
    lists every format harvest reads (exports included) and says what to do instead."""
    result = invoke(runner, "harvest", str(path), "--provider", "offline")
    assert result.exit_code == 1
    first, second = result.stderr.splitlines()
    assert first.startswith(f"error: {path}:1: ")
    assert "a ChatGPT or Claude.ai export (conversations.json)" in first
    assert second.startswith("  hint: ") and hint in second
    assert result.stdout == ""
    assert not list((memrepo / "inbox").rglob("p-*"))
