"""An entry's record never shows where its text does (docs/design/memory.md §Memory file): one
reading of an entry line (``memory.records.split_entry``) for the parser and every reader —
the offline extractor, the model request, targets, review diffs, ``memory show``, export, the
memory tool, search, tidy. Every memory here is seeded through the real accept path, so its
entries carry records as an accept writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import invoke
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

import agentmem
from agentmem.memory.records import MARKER_OPEN, entry_text, split_entry, strip_markers

MEMORY = Path("memories") / "alice.md"


def _memory(root: Path) -> str:
    return (root / MEMORY).read_text(encoding="utf-8")


def _session(tmp_path: Path, name: str, said: str) -> Path:
    path = tmp_path / f"{name}.txt"
    path.write_text(f"User: {said}\nAssistant: OK.\n", encoding="utf-8")
    return path


def _harvest(runner: CliRunner, session: Path) -> list[dict]:
    result = invoke(runner, "harvest", str(session), "--format", "json")
    assert result.exit_code == 0, result.stderr
    (done,) = json.loads(result.stdout)
    assert done["rejected"] == [], done["rejected"]
    return done["proposals"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Be brief. <!-- am: basis=declared since=2026-12-01 -->\n", ("Be brief.", " basis=declared since=2026-12-01 ")),
        ("- Be brief.\n", ("Be brief.", None)),
        ("Be brief. <!-- am: basis=inferred -->", ("Be brief.", " basis=inferred ")),
        ("- Be brief.\t<!-- am: basis=declared -->  ", ("Be brief.", " basis=declared ")),
        ("- - nested", ("- nested", None)),  # one "- " only: the parser refuses the rest
        ("- A <!-- am: x --> mid-line", ("A <!-- am: x --> mid-line", None)),
        ("- <!-- am: basis=declared -->", ("<!-- am: basis=declared -->", None)),
    ],
)  # fmt: skip
def test_split_entry_reads_a_line_or_a_quoted_target(line: str, expected: tuple) -> None:
    assert split_entry(line) == expected
    assert entry_text(line) == expected[0]


def test_strip_markers_is_split_entry_on_every_entry_line() -> None:
    text = (
        "# Memory: alice\n\n## Writing style\n"
        "- Be brief. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->\n"
        "- Plain. \n"
        "- Tabs.\t<!-- am: basis=inferred -->\t\n"
        "- Broken <!-- am: x --> here\n"
        "- Last <!-- am: basis=declared -->"
    )
    assert strip_markers(text) == (
        "# Memory: alice\n\n## Writing style\n- Be brief.\n- Plain. \n- Tabs.\n"
        "- Broken <!-- am: x --> here\n- Last"
    )
    assert strip_markers("# Memory: alice\n") == "# Memory: alice\n"


def test_a_change_of_mind_modifies_a_recorded_entry_with_a_fresh_record(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-02")
    assert invoke(runner, "remember", "Summaries in 3 bullets.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert "- Summaries in 3 bullets. <!-- am: basis=declared since=2026-11-02 " in _memory(memrepo)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    (modify,) = _harvest(runner, _session(tmp_path, "s1", "From now on 5 bullets, not 3."))
    assert (modify["action"], modify["target"], modify["text"]) == (
        "modify",
        "Summaries in 3 bullets.",
        "Summaries in 5 bullets.",
    )
    accepted = invoke(runner, "review", "--accept", modify["id"])
    assert accepted.exit_code == 0, accepted.stderr
    entries = [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")]
    assert entries == [
        "- Summaries in 5 bullets. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->"
    ]
    (remove,) = _harvest(runner, _session(tmp_path, "s2", "Forget the rule about summaries."))
    assert (remove["action"], remove["target"]) == ("remove", "Summaries in 5 bullets.")
    assert invoke(runner, "review", "--accept", remove["id"]).exit_code == 0
    assert not [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")]


def test_a_target_quoted_with_its_record_matches_the_entry_text(
    memrepo: Path, runner: CliRunner
) -> None:
    text = seed_memory(runner, ["Quote the clause number.", "Answer in French."])
    whole = next(ln for ln in text.splitlines() if ln.startswith("- Quote"))
    assert MARKER_OPEN in whole
    mem = agentmem.open()
    proposal = mem.propose_change(
        "modify",
        target=whole,
        text="Quote the clause number and its title.",
        justification="x",
        session="s1",
    )
    assert proposal.target == "Quote the clause number."  # stored as the entry's text
    other = mem.propose_change(
        "remove", target="- Answer in French.", justification="y", session="s1"
    )
    assert other.target == "Answer in French."
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr
    assert [entry_text(ln) for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "Quote the clause number and its title."
    ]


def test_review_target_flag_accepts_the_whole_line(memrepo: Path, runner: CliRunner) -> None:
    text = seed_memory(runner, ["Quote the clause number.", "Answer in French."])
    whole = next(ln for ln in text.splitlines() if ln.startswith("- Answer"))
    mem = agentmem.open()
    proposal = mem.propose_change(
        "remove", target="Quote the clause", justification="x", session="s1"
    )
    result = invoke(runner, "review", "--target", f"{proposal.id}={whole}")
    assert result.exit_code == 0, result.stderr
    assert [entry_text(ln) for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "Quote the clause number."
    ]


def test_the_model_request_shows_entries_without_their_records(
    memrepo: Path, runner: CliRunner
) -> None:
    from agentmem.harvest.providers.anthropic_provider import build_prompt
    from agentmem.harvest.providers.request import HarvestRequest
    from agentmem.harvest.transcripts import Transcript, Turn

    text = seed_memory(runner, ["Quote the clause number."])
    request = HarvestRequest(
        person="alice",
        transcript=Transcript(Path("s.md"), "text", "s1", [Turn("user", "Hi.", 1)]),
        memory_text=text,
        doctrine_text="",
        sections=("Writing style",),
        max_proposals=6,
        scope=None,
        model="m",
    )
    _system, user = build_prompt(request)
    block = user.split("<memory_file>")[1].split("</memory_file>")[0]
    assert "- Quote the clause number.\n" in block
    assert MARKER_OPEN not in user


def test_memory_show_prints_texts_and_records_apart(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    seed_memory(runner, ["Quote the clause number."])
    seed_memory(
        runner,
        [("Recurring patterns", "Checks the annexes first.")],
        basis="inferred",
        scope="contracts",
    )
    shown = invoke(runner, "memory", "show")
    assert shown.exit_code == 0, shown.stderr
    assert MARKER_OPEN not in shown.stdout
    assert "\n- Quote the clause number.\n" in shown.stdout
    with_records = invoke(runner, "memory", "show", "--records").stdout
    assert (
        "- Quote the clause number.\n"
        "    declared · everywhere · since 2026-12-01 · review 2027-12-01 · never expires\n"
    ) in with_records
    assert (
        "- Checks the annexes first.\n    inferred · scope contracts · since 2026-12-01"
        in with_records
    )
    assert MARKER_OPEN not in with_records
    data = json.loads(invoke(runner, "memory", "show", "--format", "json").stdout)
    assert [(e["text"], e["basis"], e["since"]) for e in data] == [
        ("Quote the clause number.", "declared", "2026-12-01"),
        ("Checks the annexes first.", "inferred", "2026-12-01"),
    ]  # fmt: skip


def test_a_review_diff_shows_texts_and_the_record_on_its_own_line(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    seed_memory(runner, ["Summaries in 3 bullets."])
    agentmem.open().propose_change(
        "modify", target="3 bullets", text="Summaries in 5 bullets.", justification="x",
        session="s1", basis="declared",
    )  # fmt: skip
    shown = invoke(runner, "review", "--dry-run")
    assert shown.exit_code == 0, shown.stderr
    assert MARKER_OPEN not in shown.stdout
    assert "\n  -- Summaries in 3 bullets.\n  +- Summaries in 5 bullets.\n" in shown.stdout
    assert (
        "\n  record: declared · everywhere · since 2026-12-01 · review 2027-12-01" in shown.stdout
    )


def test_an_edit_of_a_modify_keeps_the_text_and_writes_a_fresh_record(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-02")
    seed_memory(runner, ["Summaries in 3 bullets."])
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    proposal = agentmem.open().propose_change(
        "modify", target="Summaries in 3 bullets.", text="Summaries in 5 bullets.",
        justification="x", session="s1", basis="declared",
    )  # fmt: skip
    result = invoke(runner, "review", "--edit", f"{proposal.id}=Summaries in 4 bullets.")
    assert result.exit_code == 0, result.stderr
    assert [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "- Summaries in 4 bullets. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->"
    ]


def test_the_memory_tool_views_texts_and_takes_a_quoted_line(
    memrepo: Path, runner: CliRunner
) -> None:
    from agentmem.integrations.anthropic import MemoryTool

    seed_memory(runner, ["Answer in French."])
    tool = MemoryTool(agentmem.open(), session="s1")
    view = tool.call({"command": "view", "path": "/memories/alice.md"})
    assert "\t- Answer in French.\n" in view and MARKER_OPEN not in view
    line = next(ln for ln in _memory(memrepo).splitlines() if ln.startswith("- "))
    filed = tool.call(
        {
            "command": "str_replace",
            "path": "/memories/alice.md",
            "old_str": f"     4\t{line}",
            "new_str": "- Answer in English.",
        }
    )
    assert "modify in [Answer in French.] -> Answer in English." in filed


def test_export_search_and_tidy_read_entry_texts(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(
        runner, ["Quote the clause number.", "Use British English.", "Use American English."]
    )
    exported = invoke(runner, "export", "--to", "claude-md")
    assert exported.exit_code == 0, exported.stderr
    assert "Quote the clause number." in exported.stdout and MARKER_OPEN not in exported.stdout
    found = json.loads(invoke(runner, "search", "clause", "--format", "json").stdout)
    assert [hit["snippet"] for hit in found] == ["Quote the **clause** number."]
    tidy = invoke(runner, "tidy", "--format", "json")
    assert tidy.exit_code == 1, tidy.stderr  # 1: something found
    (finding,) = json.loads(tidy.stdout)["findings"]
    assert [e["text"] for e in finding["entries"]] == [
        "Use British English.",
        "Use American English.",
    ]
