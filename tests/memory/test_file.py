"""The memory model (docs/design/memory.md §Memory file): round trip, structure errors, budget, entries."""

from __future__ import annotations

import pytest

from agentmem.config import MemoryConfig
from agentmem.errors import ApplyConflictError, BudgetExceededError, InvalidMemoryError
from agentmem.memory.file import (
    add_entry,
    budget_status,
    char_count,
    check_budget,
    modify_entry,
    new_memory_text,
    parse_memory,
    remove_entry,
    validate_entry_text,
)

CONFIG = MemoryConfig()
SAMPLE = """# Memory: alice

## Writing style
- Keep a collaborative tone with long-standing suppliers.

## Priorities & scope
- Do not propose revisions on confidentiality clauses; they are handled separately.

## Recurring patterns

## Rule dependencies
"""


def test_round_trip_is_byte_for_byte() -> None:
    odd = SAMPLE.replace("\n\n## Recurring", "\n\n\n## Recurring") + "\n"
    for text in (SAMPLE, odd, SAMPLE.rstrip("\n"), new_memory_text("alice", CONFIG)):
        assert parse_memory(text, "alice", CONFIG, "m.md").render() == text


def test_entries_are_numbered_with_sections_and_lines() -> None:
    entries = parse_memory(SAMPLE, "alice", CONFIG, "m.md").entries()
    assert [(e.number, e.section, e.line) for e in entries] == [
        (1, "Writing style", 4),
        (2, "Priorities & scope", 7),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# Memory: bob\n", "m.md:1: expected the title line '# Memory: alice'"),
        (
            SAMPLE.replace("## Writing style", "## Style"),
            "m.md:3: unexpected section 'Style' (expected '## Writing style'",
        ),
        (
            SAMPLE.replace("## Recurring patterns\n", ""),
            "m.md:10: unexpected section 'Rule dependencies' (expected '## Recurring patterns'",
        ),
        (
            SAMPLE.replace("\n## Rule dependencies\n", ""),
            "m.md:9: missing section(s): Rule dependencies",
        ),
        (SAMPLE.replace("- Keep", "Keep"), "m.md:4: unexpected text 'Keep a collaborative"),
        (
            "# Memory: alice\n- early\n",
            "m.md:2: entry outside any section (expected one of: Writing style",
        ),
        (SAMPLE + "## Extra\n", "all sections are already present"),
        (SAMPLE.replace("\n", "\r\n"), "CR or CRLF"),
        ("", "m.md:1: empty file"),
    ],
)
def test_structure_errors_name_file_line_and_expectation(text: str, message: str) -> None:
    with pytest.raises(InvalidMemoryError) as info:
        parse_memory(text, "alice", CONFIG, "m.md")
    assert message in str(info.value)


@pytest.mark.parametrize("brk", ["\n", "\r", "\u2028", "\u2029", "\u0085", "\x0b"])
def test_an_entry_is_one_line(brk: str) -> None:
    with pytest.raises(InvalidMemoryError, match="one line"):
        validate_entry_text(f"first{brk}second", CONFIG, "x")


@pytest.mark.parametrize("start", ["#", "-", ">"])
def test_an_entry_cannot_start_with_markdown_structure(start: str) -> None:
    with pytest.raises(InvalidMemoryError, match=f"cannot start with '{start}'"):
        validate_entry_text(f"{start} sneaky", CONFIG, "x")


def test_entry_max_chars_counts_code_points() -> None:
    config = MemoryConfig(entry_max_chars=10)
    validate_entry_text("é" * 10, config, "x")  # 10 code points, 20 bytes
    with pytest.raises(InvalidMemoryError, match="entry is 11 characters; the limit is 10"):
        validate_entry_text("é" * 11, config, "x")


def test_budget_counts_nfc_code_points() -> None:
    decomposed = "e\u0301" * 10  # NFC: 10 × "é"
    assert char_count(decomposed) == 10
    status = budget_status("x" * 6400, CONFIG)
    assert (status.used, status.level, status.describe()) == (
        6400,
        "warning",
        "80 % — 6400/8000 characters",
    )
    assert budget_status("x" * 6399, CONFIG).level == "ok"
    assert budget_status("x" * 8000, CONFIG).level == "warning"
    with pytest.raises(BudgetExceededError) as refused:
        check_budget("x" * 8001, CONFIG, "m.md")
    assert refused.value.message == "m.md: 8001/8000 characters: the memory is full"
    assert refused.value.hint == (
        "make room first: 'agentmem memory edit' (remove or merge entries yourself) or "
        "'agentmem tidy --to-inbox' (proposes removals and merges for your review)"
    )


def test_a_full_memory_names_the_entries_least_recently_confirmed() -> None:
    text = (
        "# Memory: alice\n\n## Writing style\n"
        "- Answer in French. <!-- am: basis=declared since=2026-03-01 review=2027-03-01 -->\n"
        "- Quote figures with their unit.\n"
        "- Short sentences. <!-- am: basis=declared since=2026-01-15 review=2027-01-15 -->\n"
        "- Clause numbers first. <!-- am: basis=declared since=2026-06-01 review=2027-06-01 -->\n"
        "\n## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n"
    )
    held = parse_memory(text, "alice", CONFIG, "m.md").entries()
    with pytest.raises(BudgetExceededError) as refused:
        check_budget("x" * 8001, CONFIG, "m.md", held)
    assert refused.value.hint is not None
    assert refused.value.hint.endswith(
        "least recently confirmed: #2 'Quote figures with their unit.' (unrecorded); "
        "#3 'Short sentences.' (since 2026-01-15); #1 'Answer in French.' (since 2026-03-01)"
    )
    assert [e.number for e in refused.value.oldest] == [2, 3, 1]  # type: ignore[attr-defined]


def test_add_appends_at_the_end_of_its_section() -> None:
    memory = parse_memory(SAMPLE, "alice", CONFIG, "m.md")
    added = add_entry(memory, "Writing style", "Short sentences.", "m.md")
    assert (
        "- Keep a collaborative tone with long-standing suppliers.\n- Short sentences.\n\n## Priorities"
        in added.render()
    )
    empty = add_entry(memory, "Recurring patterns", "Check warranty first.", "m.md")
    assert (
        "## Recurring patterns\n- Check warranty first.\n\n## Rule dependencies\n" in empty.render()
    )
    last = add_entry(memory, "Rule dependencies", "Penalties follow warranty.", "m.md")
    assert last.render().endswith("## Rule dependencies\n- Penalties follow warranty.\n")
    no_newline = parse_memory(SAMPLE.rstrip("\n"), "alice", CONFIG, "m.md")
    assert (
        add_entry(no_newline, "Rule dependencies", "X y z.", "m.md")
        .render()
        .endswith("dependencies\n- X y z.\n")
    )


def test_modify_and_remove_need_exactly_one_match() -> None:
    memory = parse_memory(SAMPLE, "alice", CONFIG, "m.md")
    changed = modify_entry(memory, "collaborative tone", "Keep a warm tone.", "m.md")
    assert "- Keep a warm tone.\n" in changed.render()
    assert "collaborative" not in changed.render()
    removed = remove_entry(memory, "confidentiality", "m.md")
    assert "confidentiality" not in removed.render()
    with pytest.raises(ApplyConflictError, match="no entry contains 'absent'") as none:
        remove_entry(memory, "absent", "m.md")
    assert "#1 'Keep a collaborative" in (none.value.hint or "")
    with pytest.raises(ApplyConflictError, match="2 entries contain 'o'") as two:
        modify_entry(memory, "o", "new", "m.md")
    assert "#1 (line 4)" in str(two.value) and "#2 (line 7)" in str(two.value)


def test_every_line_break_is_unprintable_so_one_isprintable_pass_clears_an_entry() -> None:
    """``validate_entry_text`` looks for line breaks only in a text ``isprintable()`` refuses."""
    from agentmem.memory.file import LINE_BREAKS, InvalidMemoryError, validate_entry_text

    assert not any(c.isprintable() for c in LINE_BREAKS)
    for c in sorted(LINE_BREAKS):
        with pytest.raises(InvalidMemoryError, match=f"U\\+{ord(c):04X}"):
            validate_entry_text(f"Keep{c}it short", MemoryConfig(), "memories/alice.md:3")
