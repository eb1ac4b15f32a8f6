"""All terminal output goes through here: stdout is data, stderr is everything else."""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Iterable
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from rich.text import Text


class Format(StrEnum):
    """``--format`` of listings: a table for people, JSON for programs
    (docs/design/overview.md §Commands)."""

    text = "text"
    json = "json"


def _no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


class _Console(Console):
    """rich's console, but a reader that goes away (``agentmem stats | head -1``) is a
    ``BrokenPipeError`` for ``errors.failure`` (exit 0, quietly), not rich's own exit 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def stdout() -> Console:
    return _Console(highlight=False, no_color=_no_color(), soft_wrap=True)


def table(renderable: Any) -> None:
    """Print a rich table on stdout: fitted to a terminal's width, but whole rows for a pipe
    or a file (a row wrapped at 80 columns is two rows for ``grep`` and ``awk``)."""
    if _STATUS:
        clear_progress()
    console = stdout()
    if not console.is_terminal:
        # lazy: rich's measuring is only needed for a piped table
        from rich.measure import Measurement

        wide = console.options.update_width(100_000)
        console.width = max(console.width, Measurement.get(console, wide, renderable).maximum)
    console.print(renderable)


def stderr() -> Console:
    return _Console(stderr=True, highlight=False, no_color=_no_color(), soft_wrap=True)


def data_wrapped(console: Console, lead: str, body: str) -> None:
    """Plain data ``lead`` + ``body`` on stdout as :func:`data` prints it; on a terminal
    (``console``, a :func:`stdout` console) wrapped as :func:`wrapped` wraps it. Piped, no rich
    rendering is paid (a listing of hundreds of lines)."""
    if not console.is_terminal:
        data(lead + body)
        return
    wrapped(console, esc(lead), esc(body))


def wrapped(
    console: Console, lead: Text | str, body: Text | str, indent: int | None = None
) -> None:
    """``lead`` then ``body`` (rich markup, or :class:`Text`): on a terminal wrapped on word
    boundaries to its width with a hanging indent (continuation lines start ``indent``
    cells in, by default under the body's first word), so that no continuation reads as a
    line of its own (a ``- …`` entry, a ``+``/``-`` diff line); piped or redirected, one
    whole line (for ``grep``), as :func:`table` does."""
    # lazy: rich.text is loaded by the screens that wrap
    from rich.text import Text

    head = Text.from_markup(lead, emoji=False) if isinstance(lead, str) else lead
    text = Text.from_markup(body, emoji=False) if isinstance(body, str) else body
    pad = head.cell_len if indent is None else indent
    room = console.width - pad
    if not console.is_terminal or room < 20 or head.cell_len + text.cell_len <= console.width:
        console.print(head + text, soft_wrap=True)
        return
    out = Text()
    for number, line in enumerate(text.wrap(console, room)):
        line.rstrip()
        out.append_text(head if number == 0 else Text(" " * pad))
        out.append_text(line)
        out.append("\n")
    console.print(out, end="", soft_wrap=True)


#: Characters a terminal acts on instead of showing: C0 controls but tab and line feed, DEL, C1
#: controls (ESC starts colour, cursor and title sequences; U+009B is a one-byte CSI), the bidi
#: embeddings, overrides and isolates (they reorder what follows), and the line and paragraph
#: separators, and a carriage return not followed by a line feed. Text read from files and commit messages anyone can write (a plain git commit's
#: trailer, a hand-edited file) goes through :func:`visible` before it reaches a terminal.
_UNSAFE = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
    "|\r(?!\n)"  # a carriage return alone rewrites the line; CRLF line ends are kept
)


@cache
def unsafe() -> re.Pattern[str]:
    """:data:`_UNSAFE` compiled, on the first text that is not printable line by line."""
    return re.compile(_UNSAFE)


def visible(text: str) -> str:
    """``text`` with every terminal-acting character written as an escape (``\\x1b``,
    ``\\u202e``), so it is shown, not obeyed. Emoji joiners and accents are kept."""
    if text.isprintable() or text.replace("\n", "").isprintable():
        return text  # what _UNSAFE matches is never printable, nor a line feed (tested)
    pattern = unsafe()
    if not pattern.search(text):
        return text
    return pattern.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text
    )


#: The progress line on the terminal now (its console), if one is shown: it ends with no newline.
_STATUS: list[Console] = []


def progress(message: str) -> None:
    """A progress message of a long step (``checked 2,750 of 11,000 files``; ``message`` is
    plain text). On a terminal, ONE status line that each message rewrites in place (rich's
    control codes; cut to the width), taken away by the next output of any kind and at exit;
    elsewhere (a CI log, a pipe, a file) a line each, as :func:`info`."""
    console = stderr()
    if not console.is_terminal or console.is_dumb_terminal:
        info(esc(message))
        return
    # lazy: the control codes only for progress on a terminal
    from rich.control import Control
    from rich.segment import ControlType
    from rich.text import Text

    if not _STATUS:
        import atexit

        atexit.register(clear_progress)
    _STATUS[:] = [console]
    console.control(Control.move_to_column(0), Control((ControlType.ERASE_IN_LINE, 2)))
    line = Text(visible(message), no_wrap=True, overflow="ellipsis", end="")
    line.truncate(max(1, console.width - 1), overflow="ellipsis")
    console.print(line, end="", soft_wrap=True)


def clear_progress() -> None:
    """Take the progress line away (before any other output, and at exit)."""
    if not _STATUS:
        return
    # lazy: as in progress()
    from rich.control import Control
    from rich.segment import ControlType

    console = _STATUS.pop()
    console.control(Control.move_to_column(0), Control((ControlType.ERASE_IN_LINE, 2)))


def data(text: str = "") -> None:
    """Plain data on stdout (no markup interpretation; terminal controls made :func:`visible`)."""
    if _STATUS:
        clear_progress()
    sys.stdout.write(visible(text) + "\n")
    sys.stdout.flush()


def data_lines(lines: Iterable[str]) -> None:
    """:func:`data` for many lines in one write (a listing of thousands of rules)."""
    lines = list(lines)
    if _STATUS:
        clear_progress()
    if "".join(lines).isprintable():  # every line printable: each is its own visible() form
        sys.stdout.write("".join(line + "\n" for line in lines))
    else:
        sys.stdout.write("".join(visible(line) + "\n" for line in lines))
    sys.stdout.flush()


def as_json(items: Iterable[dict[str, Any]] | dict[str, Any]) -> None:
    """A JSON document on stdout: listings are arrays of objects with the field names of
    docs/design/memory.md §Proposals."""
    import json  # only a --format json listing needs it

    value = items if isinstance(items, dict) else list(items)
    if _STATUS:
        clear_progress()
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


#: What rich's emoji replacement can act on: two colons with no white space between them
#: (its pattern is ``:(\S*?)(?:-(emoji|text))?:``). A message without this prints the same with
#: the replacement off, which spares loading rich's table of emoji codes.
_EMOJI_CODE = re.compile(r":\S*?:")


def _print_markup(markup: str) -> None:
    """On a terminal a message wraps on word boundaries (never mid-word at 80 columns)."""
    if _STATUS:
        clear_progress()
    console = stderr()
    emoji = None if _EMOJI_CODE.search(markup) else False
    console.print(markup, emoji=emoji, soft_wrap=not console.is_terminal)


def info(message: str) -> None:
    """A human message on stderr; ``message`` is rich markup, escape data with :func:`esc`."""
    _print_markup(visible(message))


def warn(message: str) -> None:
    _print_markup(f"[yellow]warning:[/] {visible(message)}")


def error(message: str) -> None:
    _print_markup(f"[bold red]error:[/] {escape(visible(message))}")


def esc(value: object) -> str:
    """Escape a value for rich markup (entries may contain ``[brackets]``) and make terminal
    controls :func:`visible`."""
    return escape(visible(str(value)))
