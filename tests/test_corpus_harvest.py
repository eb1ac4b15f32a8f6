"""Every Claude Code and Codex transcript of the shared corpus goes through
`agentmem harvest --provider offline` with exit 0 and an explicit count."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import CORPUS, DATA, invoke
from typer.testing import CliRunner

BUNDLED = sorted((DATA / "transcripts").glob("*.jsonl"))
SHARED = (
    sorted(
        [*CORPUS.glob("claude-code-transcripts/*.jsonl"), *CORPUS.glob("codex-rollouts/*.jsonl")]
    )
    if CORPUS.is_dir()
    else []
)


@pytest.mark.parametrize("transcript", BUNDLED + SHARED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_offline_harvest_of_a_real_transcript_says_its_count(
    memrepo: Path, runner: CliRunner, transcript: Path
) -> None:
    result = invoke(runner, "harvest", str(transcript), "--provider", "offline")
    assert result.exit_code == 0, result.stderr
    assert re.search(r"via offline: \d+ proposals? kept, \d+ rejected", result.stdout), (
        result.stdout
    )


def test_the_shared_corpus_is_there_when_ci_has_it() -> None:
    if not CORPUS.is_dir():
        pytest.skip("the research corpus is not beside this checkout")
    assert len(SHARED) == 9
