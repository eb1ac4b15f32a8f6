"""The review screen at 80 columns (docs/design/memory.md §Proposals): one proposal per screen, texts
wrapped on word boundaries with a hanging indent, the facts (why, record, from) apart from the
diff, the words a modify changes marked; piped, every line whole. Memories are seeded through
the accept path, so their entries carry records."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

import agentmem
from agentmem.cli import output
from agentmem.cli.review import _changed_spans, _Screen, _show

_STYLE = re.compile(r"\x1b\[[0-9;]*m")
LONG = (
    "Summaries in 3 bullets, each a full sentence, with the figures of the contract quoted "
    "as written in the annex."
)


@pytest.fixture(autouse=True)
def _a_terminal_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")  # the tests' own TERM=dumb is neither wrapped nor cleared


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=True, highlight=False, soft_wrap=True, no_color=True
    )
    return console, out


def _modify_plan(runner: CliRunner):  # type: ignore[no-untyped-def]
    from agentmem.proposals.review import plan_accept

    seed_memory(runner, [LONG, "Use British English."])
    mem = agentmem.open()
    proposal = mem.propose_change(
        "modify", target="3 bullets", text=LONG.replace("3", "5"), section="Writing style",
        justification="changed "
        "their mind in line 1 of the session about an entry of the memory", session="s1",
        basis="declared",
    )  # fmt: skip
    return proposal, plan_accept(mem.repository, proposal)


@pytest.mark.parametrize("width", [80, 120])
def test_a_modify_reads_calmly_on_a_terminal(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    proposal, plan = _modify_plan(runner)
    console, out = _terminal(width)
    _show(proposal, plan, console)
    raw = out.getvalue()
    assert "\x1b[1;7m5\x1b[0m" in raw  # the changed word, in reverse video (no colour needed)
    shown = _STYLE.sub("", raw)
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "<!-- am:" not in shown
    assert lines[0] == f'{proposal.id}  modify in "Writing style"'
    record = next(i for i, line in enumerate(lines) if line.startswith("  record: "))
    assert lines[record].startswith("  record: declared · everywhere · since 2026-12-01 ·")
    removed = next(i for i, line in enumerate(lines) if line.startswith("  -- "))
    assert record < removed  # the record apart, above the diff; never on a diff line
    # the entry's continuation lines hang under its text: none reads as a line of its own
    body = [line for line in lines[removed:] if line.strip() and not line.startswith("  fill")]
    assert all(line.startswith(("  -- ", "  +- ", "   - ", "     ", "   ## ")) for line in body)
    if width == 80:
        assert lines[removed + 1].startswith("     ") and lines[removed + 1].strip()


def test_piped_the_screen_keeps_whole_lines(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    proposal, plan = _modify_plan(runner)
    out = io.StringIO()
    _show(proposal, plan, Console(file=out, width=80, highlight=False, soft_wrap=True))
    assert f"  -- {LONG}\n  +- {LONG.replace('3', '5')}\n" in out.getvalue()  # for grep


def test_wrapped_hangs_continuations_under_the_first_word() -> None:
    console, out = _terminal(40)
    output.wrapped(console, "  why:    ", "one two three four five six seven eight nine ten")
    assert _STYLE.sub("", out.getvalue()).splitlines() == [
        "  why:    one two three four five six",
        "          seven eight nine ten",
    ]


def test_each_proposal_starts_a_screen_under_the_last_outcome() -> None:
    console, out = _terminal(80)
    screen = _Screen(console)
    screen.start("proposal 1 of 2")
    screen.say("[green]accepted[/] p-1 → abc")
    screen.error("p-1 not applied: because")
    out.truncate(0)
    out.seek(0)
    screen.start("proposal 2 of 2")
    raw = out.getvalue()
    assert raw.startswith("\x1b[2J\x1b[H")  # cleared: one proposal per screen
    shown = _STYLE.sub("", raw[len("\x1b[2J\x1b[H") :]).splitlines()
    assert shown[:2] == ["accepted p-1 → abc", "error: p-1 not applied: because"]
    assert "proposal 2 of 2" in shown[2]
    piped = _Screen(Console(file=io.StringIO()))
    assert not piped.clears  # answers piped in: nothing is cleared


def test_listings_wrap_on_a_terminal_and_stay_whole_piped(capsys: pytest.CaptureFixture) -> None:
    line = 'add to "Writing style": one two three four five six seven [x] eight  [declared]'
    console, out = _terminal(50)
    output.data_wrapped(console, "  p-1  ", line)
    assert _STYLE.sub("", out.getvalue()).splitlines() == [
        '  p-1  add to "Writing style": one two three four',
        "       five six seven [x] eight  [declared]",
    ]
    output.data_wrapped(Console(file=io.StringIO()), "  p-1  ", line)  # not a terminal
    assert capsys.readouterr().out == f"  p-1  {line}\n"


def test_the_changed_words_of_a_modify_are_found() -> None:
    old, new = "Summaries in 3 bullets, always.", "Summaries in 5 short bullets, every time."
    removed, added = _changed_spans(old, new)
    assert [old[a:b] for a, b in removed] == ["3", "always."]
    assert [new[a:b] for a, b in added] == ["5 short", "every time."]
    assert _changed_spans("Same words.", "Same words.") == ([], [])
