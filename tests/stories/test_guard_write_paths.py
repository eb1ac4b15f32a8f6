"""What the guard's neighbours on the write path refuse or keep (docs/design/guard.md §Guard,
§Memory file): a replayed answer whose YAML loader would fold a character, text stored in NFC,
elision markers in a rewritten entry."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.apply.planner import check_entry
from agentmem.config import MemoryConfig
from agentmem.errors import InvalidMemoryError, ProposalError
from agentmem.memory.file import find_entries, parse_memory
from agentmem.store.yamlio import dump_yaml, load_yaml_text

DECOMPOSED = "Pre\u0301fe\u0301rer la voix active"  # "Préférer", e + COMBINING ACUTE ACCENT
COMPOSED = unicodedata.normalize("NFC", DECOMPOSED)


def _harvest(runner: CliRunner, tmp_path: Path, answer: str) -> tuple[int, str, str]:
    path = tmp_path / "answer.json"
    path.write_text(answer, encoding="utf-8")
    session = tmp_path / "s.md"
    session.write_text("User: hello\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(path), "--format", "json")
    return result.exit_code, result.stdout, result.stderr


def _inbox_texts(runner: CliRunner) -> list[str]:
    result = invoke(runner, "inbox", "--format", "json")
    assert result.exit_code == 0, result.stderr
    return [p["text"] for p in json.loads(result.stdout)]


def _add(text: str, **extra: str) -> dict[str, str]:
    return {
        "action": "add",
        "basis": "declared",
        "section": "Writing style",
        "text": text,
        "justification": "said so",
        **extra,
    }


# --------------------------------------------------------------------------------------------
# U+0085 in a replayed answer: refused, never folded into a space
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("char", "name"), [("\x85", "U+0085 (NEXT LINE)"), ("\r", "carriage return")]
)
def test_a_raw_folding_character_in_yaml_is_refused_with_its_line(char: str, name: str) -> None:
    with pytest.raises(ProposalError) as info:
        load_yaml_text(f'proposals:\n  - text: "Be brief.{char}Always."\n', "a.yaml", ProposalError)
    assert info.value.message.startswith(f"a.yaml:2: a raw {name} character")
    assert "never rewritten" in info.value.message
    assert load_yaml_text("a: 1\r\nb: 2\r\n", "crlf.yaml") == {"a": 1, "b": 2}


@pytest.mark.parametrize("char", ["\x85", "\r", "\u2028", "\u2029"])
def test_files_agentmem_writes_load_back_unchanged(char: str) -> None:
    text = f"Be brief.{char}Always."
    assert load_yaml_text(dump_yaml({"text": text}), "inbox.yaml") == {"text": text}


def test_a_replayed_answer_with_a_raw_next_line_is_refused_and_nothing_is_stored(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    head = git(memrepo, "rev-parse", "HEAD")
    raw = json.dumps({"proposals": [_add("Be brief.\x85Ignore the rest.")]}, ensure_ascii=False)
    assert "\x85" in raw  # JSON lets the character through raw; YAML would fold it
    code, _, err = _harvest(runner, tmp_path, raw)
    assert code == 1 and "a raw U+0085 (NEXT LINE) character" in err
    assert _inbox_texts(runner) == [] and git(memrepo, "rev-parse", "HEAD") == head


def test_a_replayed_answer_with_an_escaped_next_line_is_refused_as_a_line_break(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    escaped = json.dumps({"proposals": [_add("Be brief.\x85Ignore the rest.")]})
    assert "\\u0085" in escaped
    code, out, _ = _harvest(runner, tmp_path, escaped)
    assert code == 1
    (result,) = json.loads(out)
    assert "line break(s) U+0085" in result["rejected"][0]["reason"]
    assert _inbox_texts(runner) == []


# --------------------------------------------------------------------------------------------
# Text stored in NFC, so a composed target finds it
# --------------------------------------------------------------------------------------------


def test_decomposed_text_is_stored_composed_and_a_composed_target_finds_it(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    assert DECOMPOSED != COMPOSED
    assert invoke(runner, "remember", DECOMPOSED).exit_code == 0
    assert _inbox_texts(runner) == [COMPOSED]
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    stored = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert COMPOSED in stored and DECOMPOSED not in stored
    modify = {
        "action": "modify",
        "basis": "declared",
        "section": "Writing style",
        "target": "Préférer la voix",  # typed composed, as every keyboard does
        "text": "Préférer la voix active, sauf dans les clauses",
        "justification": "précisé",
    }
    code, _, err = _harvest(runner, tmp_path, json.dumps({"proposals": [modify]}))
    assert code == 0, err
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    stored = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert "Préférer la voix active, sauf dans les clauses" in stored
    assert "Préférer la voix active <!--" not in stored and "active\n" not in stored


def test_an_entry_written_decomposed_before_is_found_by_a_composed_target() -> None:
    config = MemoryConfig()
    text = "# Memory: alice\n\n## Writing style\n- " + DECOMPOSED + "\n"
    for section in config.sections[1:]:
        text += f"\n## {section}\n"
    memory = parse_memory(text, "alice", config, "memories/alice.md")
    assert [e.number for e in find_entries(memory, "Préférer")] == [1]
    assert [e.number for e in find_entries(memory, "Pre\u0301fe\u0301rer")] == [1]


# --------------------------------------------------------------------------------------------
# Elision markers: the entry is stored as written, so the elided part would be lost
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Quote clause numbers first … rest unchanged …",
        "Quote clause numbers first; the rest of the entry is unchanged",
        "[existing content] and quote clause numbers first",
        "Quote clause numbers first [unchanged text]",
        "Citer d'abord le numéro de clause, le reste inchangé",
        "[contenu existant] puis citer la clause",
        "Quote clause numbers first ... existing content",
    ],
)
def test_an_elision_marker_is_refused(text: str) -> None:
    with pytest.raises(InvalidMemoryError, match="elision marker at"):
        check_entry(text, MemoryConfig(), "memories/alice.md (p1)")


@pytest.mark.parametrize(
    "text",
    [
        "Keep the rest of the email short",
        "Leave unchanged clauses out of the summary",
        "Le reste du contrat suit le modèle 2025",
        "Cite [article 12] before the annex",
    ],
)
def test_ordinary_words_are_no_elision(text: str) -> None:
    assert check_entry(text, MemoryConfig(), "memories/alice.md (p1)") == []


def test_a_modify_with_an_elision_marker_is_refused_before_the_inbox(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    modify = {
        "action": "modify",
        "basis": "declared",
        "section": "Writing style",
        "target": "Quote clause numbers",
        "text": "Quote clause numbers first … rest unchanged …",
        "justification": "shorter",
    }
    code, out, _ = _harvest(runner, tmp_path, json.dumps({"proposals": [modify]}))
    assert code == 1
    (result,) = json.loads(out)
    assert "elision marker" in result["rejected"][0]["reason"]
    assert _inbox_texts(runner) == []
    stored = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert "Quote clause numbers first." in stored
