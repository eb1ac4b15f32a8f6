"""Text that anyone can write (a plain git commit's trailers, a hand-edited file) is shown on a
terminal, never obeyed: escape sequences, bidi overrides and lone carriage returns come out as
visible escapes (``cli.output.visible``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.cli.output import visible
from agentmem.config import load_config
from agentmem.memory.file import new_memory_text

HOSTILE = "x\x1b[2J\x1b]0;owned\x07\u202eabc\x9b31m"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain é, 👩‍💻 and\ttab", "plain é, 👩‍💻 and\ttab"),  # accents, emoji joiner, tab kept
        ("line one\r\nline two", "line one\r\nline two"),  # CRLF line ends kept
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\rb", "a\\x0db"),
        ("\u202egnp.exe", "\\u202egnp.exe"),
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("csi\x9b", "csi\\x9b"),
    ],
)
def test_visible_writes_terminal_controls_as_escapes(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_no_character_visible_escapes_is_printable() -> None:
    """``visible`` returns a printable text as it is, without its search: that is right only
    because no character its pattern matches is printable."""
    from agentmem.cli.output import unsafe

    matched = [c for c in map(chr, range(0x110000)) if unsafe().match(c)]
    assert {"\x1b", "\x9b", "\r", "\u202e", "\u2028"} <= set(matched)
    assert [c for c in matched if c.isprintable()] == [] and "\n" not in matched


def test_log_shows_a_hostile_trailer_without_obeying_it(memrepo: Path, runner: CliRunner) -> None:
    message = (
        "plain commit\n\nAgentmem-Action: accept\nAgentmem-Actor: alice <alice@example.com>\n"
        f"Agentmem-Justification: {HOSTILE}\n"
    )
    git(memrepo, "commit", "-q", "--allow-empty", "-m", message)
    result = invoke(runner, "log")
    assert result.exit_code == 0, result.stderr
    assert "why: x\\x1b[2J\\x1b]0;owned\\x07\\u202eabc\\x9b31m" in result.stdout
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout


def test_blame_shows_a_hand_edited_entry_without_obeying_it(
    memrepo: Path, runner: CliRunner
) -> None:
    path = memrepo / "memories" / "alice.md"
    text = new_memory_text("alice", load_config(memrepo).memory).replace(
        "## Writing style\n", f"## Writing style\n\n- Short sentences {HOSTILE}\n", 1
    )
    path.write_text(text, encoding="utf-8")
    git(memrepo, "add", "memories/alice.md")
    git(memrepo, "commit", "-qm", "hand edit")
    result = invoke(runner, "memory", "blame")
    assert result.exit_code == 0, result.stderr
    assert "Short sentences x\\x1b[2J" in result.stdout and "\x1b" not in result.stdout
    shown = invoke(runner, "memory", "show")
    assert "\x1b" not in shown.stdout and "\\u202eabc" in shown.stdout


@pytest.mark.parametrize(
    "markup",
    [
        "[yellow]warning:[/] rule-1: title: x",
        "[bold red]error:[/] a:b c:d",
        "hint: run [bold]agentmem harvest --queue[/]",
        "time 12:30 and :smile: and :thumbs_up-emoji:",
        "::",
        r"esc \[not:a tag:] :",
    ],
)
def test_messages_print_as_rich_prints_them(markup: str) -> None:
    """``info``/``warn``/``error`` turn rich's emoji codes off only where none can match: what
    they print is what rich prints with its defaults."""
    import io

    from rich.console import Console

    from agentmem.cli.output import _EMOJI_CODE

    def shown(emoji: bool | None) -> str:
        out = io.StringIO()
        Console(file=out, highlight=False, no_color=True, soft_wrap=True).print(markup, emoji=emoji)
        return out.getvalue()

    emoji = None if _EMOJI_CODE.search(markup) else False
    assert shown(emoji) == shown(None)


def test_a_message_without_emoji_codes_leaves_the_emoji_table_unloaded() -> None:
    code = (
        "import sys\n"
        "from agentmem.cli import output\n"
        "output.info('bench has no memory file yet (memories/bench.md): the empty layout')\n"
        "output.warn('a: b')\n"
        "print('rich._emoji_codes' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize(
    "lines",
    [["a", "b  c", "é 👍"], ["a", "b\x1b[2J"], ["a\rb", "c"], ["two\nlines", "x"], [], [""]],
)
def test_data_lines_writes_what_data_writes(
    lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from agentmem.cli import output

    for line in lines:
        output.data(line)
    one_by_one = capsys.readouterr().out
    output.data_lines(iter(lines))
    assert capsys.readouterr().out == one_by_one


class _ClosedPipe:
    """A stdout whose reader went away (``agentmem stats | head -1``)."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("args", [("stats",), ("review", "--dry-run")])
def test_rich_output_into_a_closed_pipe_exits_0_quietly(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """rich's own answer to a closed pipe is exit 1 with no word; agentmem's consoles hand it
    to ``errors.failure``: exit 0, nothing on stderr (docs/design/overview.md §Exit codes)."""
    from agentmem.cli import output

    assert invoke(runner, "remember", "Short sentences in review comments.").exit_code == 0
    real = output.stdout

    def closed() -> object:
        console = real()
        console.file = _ClosedPipe()  # type: ignore[assignment]
        return console

    monkeypatch.setattr(output, "stdout", closed)
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.slow
def test_stats_piped_into_head_exits_0(memrepo: Path) -> None:
    """The same through a real pipe that its reader closes before agentmem writes."""
    import os

    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", "stats"],
        cwd=memrepo,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    os.close(write)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.slow
def test_log_wraps_on_an_80_column_terminal_and_stays_whole_piped(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import files 14 proposals in one commit: ``agentmem log`` named them all on one line
    of 300 characters; on a terminal it now wraps under the first id."""
    import io

    from rich.console import Console
    from tests.helpers import DATA

    from agentmem.cli import output

    instructions = DATA / "imports" / "instructions" / "fr_claude.md"
    assert invoke(runner, "import", str(instructions)).exit_code == 0
    piped = invoke(runner, "log")
    whole = [ln for ln in piped.stdout.splitlines() if ln.startswith("            proposals: ")]
    ids = whole[0].removeprefix("            proposals: ").split(", ")
    assert len(ids) == 14 and len(whole[0]) > 80

    screen = io.StringIO()
    terminal = Console(file=screen, width=80, force_terminal=True, no_color=True, soft_wrap=True)
    monkeypatch.setattr(output, "stdout", lambda: terminal)
    assert invoke(runner, "log").exit_code == 0
    lines = screen.getvalue().splitlines()
    assert max(len(ln) for ln in lines) <= 80
    start = next(i for i, ln in enumerate(lines) if ln.startswith("            proposals: "))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(" " * 23))
    assert all(ln[23] != " " for ln in lines[start + 1 : end])  # each under the first id
    shown = " ".join(lines[start:end]).removeprefix("            proposals: ")
    assert shown.replace(",", " ").split() == ids


def test_progress_is_one_line_rewritten_on_a_terminal_and_plain_lines_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``output.progress`` (the CLI's sink of ``notices.progress``): on a terminal one status
    line that each message rewrites in place, taken away before the next output; in a pipe or
    a CI log one line a message. A hostile message is shown, never obeyed."""
    import io

    from rich.console import Console

    from agentmem.cli import output

    monkeypatch.setenv("TERM", "xterm-256color")
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=30, color_system=None)
    monkeypatch.setattr(output, "stderr", lambda: console)
    monkeypatch.setattr(output, "_STATUS", [])
    monkeypatch.setattr("atexit.register", lambda f: f)
    output.progress("checked 1,375 of 11,000 files")
    output.progress("checked 2,750 of 11,000 files \x1b[2J")
    output.info("agentmem check: clean")
    erase = "\x1b[1G\x1b[2K"
    assert screen.getvalue() == (
        f"{erase}checked 1,375 of 11,000 files"
        f"{erase}checked 2,750 of 11,000 file…"
        f"{erase}agentmem check: clean\n"
    )
    assert output._STATUS == []
    piped = io.StringIO()
    monkeypatch.setattr(output, "stderr", lambda: Console(file=piped, width=30))
    output.progress("checked 1,375 of 11,000 files")
    output.progress("checked 2,750 of 11,000 files")
    assert piped.getvalue() == "checked 1,375 of 11,000 files\nchecked 2,750 of 11,000 files\n"
