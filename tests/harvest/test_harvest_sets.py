"""The labelled sets of ``benchmarks/harvest_quality.py`` stay well formed: every case has the
fields the benchmark reads, known values, labels it can score, and renders to a transcript that
harvest reads. (The figures themselves are the benchmark's, not a test's.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from tests.helpers import REPO_ROOT

from agentmem.config import DEFAULT_SECTIONS
from agentmem.harvest.transcripts import read_transcript

SETS = REPO_ROOT / "benchmarks" / "harvest_set"
FORMATS = {"text", "messages", "claude-code", "codex"}
TURNS = {"u", "a", "tool", "hook"}
EXPECT_KINDS = {"explicit", "doctrine", "change", "outcome"}
SUFFIX = {"text": ".md", "messages": ".json", "claude-code": ".jsonl", "codex": ".jsonl"}


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "harvest_quality", REPO_ROOT / "benchmarks" / "harvest_quality.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases(name: str) -> list[dict[str, Any]]:
    cases = yaml.safe_load((SETS / name).read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


NAMES = sorted(p.name for p in SETS.glob("*.yaml"))


@pytest.mark.slow
def test_the_blind_sets_are_there() -> None:
    assert {"cases.yaml", "blind.yaml", "blind2.yaml", "blind3.yaml", "prompts.yaml"} <= set(NAMES)
    blind = _cases("blind.yaml")
    assert len(blind) >= 40
    assert {c["lang"] for c in blind} == {"en", "fr", "es", "de"}
    assert {c["format"] for c in blind} == FORMATS
    remarks = [c["lang"] for c in blind if c.get("article")]
    assert sorted(remarks) == ["en", "en", "en", "fr", "fr", "fr"]
    second = _cases("blind2.yaml")
    assert len(second) >= 25
    assert {c["lang"] for c in second} == {"en", "fr", "es", "de"}
    assert not {c["id"] for c in second} & {c["id"] for c in blind}
    third = _cases("blind3.yaml")
    assert len(third) >= 48
    for lang in ("en", "fr", "es", "de"):
        mine = [c for c in third if c["lang"] == lang]
        assert len(mine) == 12, lang
        assert {c["format"] for c in mine} == FORMATS, lang
        kinds = [c["kind"] for c in mine]
        for kind, least in (("explicit", 3), ("doctrine", 2), ("change", 3), ("outcome", 1)):
            assert kinds.count(kind) >= least, (lang, kind)
        assert kinds.count("nothing") >= 2 and kinds.count("trap") >= 1, lang
    assert not {c["id"] for c in third} & ({c["id"] for c in blind} | {c["id"] for c in second})
    prompts = _cases("prompts.yaml")
    assert len(prompts) == 25
    assert sum(c["kind"] == "standing" for c in prompts) == 15
    assert all(c["expect"] for c in prompts if c["kind"] == "standing")
    assert not any(c["expect"] for c in prompts if c["kind"] == "one-off")


@pytest.mark.parametrize("name", NAMES)
def test_every_case_is_well_formed(name: str) -> None:
    cases = _cases(name)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    for case in cases:
        where = f"{name}:{case['id']}"
        assert case["lang"] in ("en", "fr", "es", "de"), where
        assert case["format"] in FORMATS, where
        assert any("u" in t for t in case["turns"]), where
        for turn in case["turns"]:
            assert len(turn) == 1 and set(turn) <= TURNS, where
        for section in case.get("memory") or {}:
            assert section in DEFAULT_SECTIONS, where
        for outcome in case.get("outcomes") or []:
            assert isinstance(outcome["suggestion"], str), where
            assert outcome["decision"] in ("accepted", "reworked", "ignored"), where
        for exp in case.get("expect") or []:
            assert exp["kind"] in EXPECT_KINDS and exp["match"], where
            assert exp["action"] in ("add", "modify", "remove"), where
            assert exp["route"] in ("memory", "doctrine"), where
            if exp.get("section"):
                assert exp["route"] == "memory" and exp["section"] in DEFAULT_SECTIONS, where
            if exp["kind"] == "change":
                assert exp["action"] in ("modify", "remove") and exp["target"], where
                assert case.get("memory"), where
            if exp["kind"] == "outcome":
                assert case.get("outcomes"), where
        if case["kind"] in ("nothing", "one-off"):
            assert not case.get("expect"), where


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_case_renders_to_a_transcript_harvest_reads(name: str, tmp_path: Path) -> None:
    bench = _benchmark()
    for case in _cases(name):
        path = tmp_path / f"{case['id']}{SUFFIX[case['format']]}"
        path.write_text(bench.render(case, f"bench-{case['id']}"), encoding="utf-8")
        transcript = read_transcript(path)
        assert transcript.session_id, case["id"]


def test_match_words_take_alternatives() -> None:
    bench = _benchmark()
    assert bench._words_in(["émoji|emoticon", "UI"], "Stop adding EMOJIS to the ui")
    assert not bench._words_in(["firecrawl|context7"], "use the docs tool")
