"""Memory entries as governable records: the record marker, its survival through hand edits,
retention, scope, basis, conflicts (docs/decisions.md, 2026-12-01)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.config import MemoryConfig
from agentmem.errors import InvalidMemoryError
from agentmem.memory.file import budget_status, parse_memory
from agentmem.memory.records import Record, parse_record, strip_markers

CONFIG = MemoryConfig()
MARKED = (
    "# Memory: alice\n\n## Writing style\n"
    "- Use British English. <!-- am: basis=inferred scope=contracts/supply since=2026-12-01 "
    "review=2026-12-31 expires=2027-03-01 -->\n"
    "- Keep answers short.\n"
    "\n## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n"
)


def test_a_marker_is_read_and_the_file_renders_back_byte_for_byte() -> None:
    memory = parse_memory(MARKED, "alice", CONFIG, "memories/alice.md")
    assert memory.render() == MARKED
    first, second = memory.entries()
    assert first.text == "Use British English."
    assert first.record == Record(
        "inferred", "contracts/supply", "2026-12-01", "2026-12-31", "2027-03-01", marked=True
    )
    assert second.text == "Keep answers short."
    assert not second.record.marked and second.record.basis_label == "unrecorded"


def test_the_budget_counts_what_reaches_the_prompt() -> None:
    plain = strip_markers(MARKED)
    assert "<!--" not in plain and "- Use British English.\n" in plain
    assert budget_status(MARKED, CONFIG).used == len(plain)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("<!-- am: basis=maybe -->", "metadata basis is 'maybe'; expected declared or inferred"),
        ("<!-- am: scope=a -->", "metadata basis is None"),
        ("<!-- am: basis=declared since=2026-13-01 -->", "since='2026-13-01' is not a date"),
        ("<!-- am: basis=declared colour=red -->", "unknown metadata key 'colour'"),
        ("<!-- am: basis=declared basis=inferred -->", "metadata key 'basis' appears twice"),
        ("<!-- am: basis=declared scope=../x -->", "invalid scope '../x'"),
        ("<!-- am: basis=declared --> trailing", "a marker '<!-- am: … -->' must end the line"),
        ("<!-- am: basis=declared", "a marker '<!-- am: … -->' must end the line"),
    ],
)
def test_a_broken_marker_is_refused_with_its_line(marker: str, message: str) -> None:
    text = MARKED.replace("- Keep answers short.\n", f"- Keep answers short. {marker}\n")
    with pytest.raises(InvalidMemoryError) as caught:
        parse_memory(text, "alice", CONFIG, "memories/alice.md")
    assert "memories/alice.md:5: " in str(caught.value)
    assert message in str(caught.value)


def test_parse_record_renders_in_key_order() -> None:
    record = parse_record(" since=2026-12-01 basis=declared ", "x")
    assert record.render() == "<!-- am: basis=declared since=2026-12-01 -->"


def _editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    script = tmp_path / "ed.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\nt = p.read_text()\n"
        + code
        + "\np.write_text(t)\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")


def _accept(runner: CliRunner, text: str) -> None:
    assert invoke(runner, "remember", text).exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0


def test_an_accepted_entry_carries_basis_date_and_review(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    _accept(runner, "Quote the clause number.")
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert (
        "- Quote the clause number. <!-- am: basis=declared since=2026-12-01 "
        "review=2027-12-01 -->\n" in text
    )


def test_memory_edit_restores_a_dropped_marker_and_records_a_new_entry(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    _accept(runner, "Quote the clause number.")
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-05")
    _editor(
        tmp_path,
        monkeypatch,
        "import re\nt = re.sub(r' <!-- am:.*?-->', '', t)\n"
        "t = t.replace('clause number.', 'clause number and page.')\n"
        "t = t.replace('## Recurring patterns\\n', '## Recurring patterns\\n- Read annexes.\\n')",
    )
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 0, result.stderr
    assert "entry #1: the edit dropped its metadata; restored (declared, since 2026-12-01)" in (
        result.stderr
    )
    assert "entry #2: written by hand, recorded as declared from today" in result.stderr
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert (
        "- Quote the clause number and page. <!-- am: basis=declared since=2026-12-01 "
        "review=2027-12-01 -->\n" in text
    )
    assert "- Read annexes. <!-- am: basis=declared since=2026-12-05 review=2027-12-05 -->\n" in (
        text
    )


def test_memory_edit_refuses_a_broken_marker_and_says_which(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _accept(runner, "Quote the clause number.")
    before = (memrepo / "memories" / "alice.md").read_bytes()
    head = git(memrepo, "rev-parse", "HEAD")
    _editor(tmp_path, monkeypatch, "t = t.replace('basis=declared', 'basis=sure')")
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 1
    assert "memories/alice.md:4: metadata basis is 'sure'; expected declared or inferred" in (
        result.stderr
    )
    assert "was left as it was" in result.stderr
    assert (memrepo / "memories" / "alice.md").read_bytes() == before
    assert git(memrepo, "rev-parse", "HEAD") == head


def test_a_file_without_markers_keeps_working_and_stays_unrecorded(
    memrepo: Path, runner: CliRunner
) -> None:
    memory = memrepo / "memories" / "alice.md"
    memory.parent.mkdir(exist_ok=True)
    memory.write_text(
        "# Memory: alice\n\n## Writing style\n- Keep answers short.\n\n## Priorities & scope\n"
        "\n## Recurring patterns\n\n## Rule dependencies\n",
        encoding="utf-8",
    )
    git(memrepo, "add", "memories/alice.md")
    chat = invoke(runner, "context", "chat")
    assert chat.exit_code == 0, chat.stderr
    assert "1. Keep answers short." in chat.stdout
    check = invoke(runner, "check")
    assert "memories/alice.md" not in check.stdout
