"""What the pages print: word-level diffs, text made visible, the Jinja2 environment
(docs/design/web.md §Web). Presentation only: no decision is taken here."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from agentmem.memory.records import entry_text

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")

#: The characters ``agentmem.cli.output.visible`` shows as escapes (a test checks both sets are
#: the same): C0 and C1 controls but tab and line feed, the bidi embeddings, overrides and
#: isolates (in a page they reorder what follows: a spoofed entry), the line and paragraph
#: separators, and a carriage return alone.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\r(?!\n)"
)


def visible(text: object) -> str:
    """``text`` with every character of :data:`_UNSAFE` written as an escape (``\\u202e``)."""
    value = "" if text is None else str(text)
    if not _UNSAFE.search(value):
        return value
    return _UNSAFE.sub(lambda m: str(m.group(0).encode("unicode_escape").decode("ascii")), value)


@dataclass(frozen=True)
class Segment:
    op: str  # same | del | ins
    text: str


@dataclass(frozen=True)
class Row:
    kind: str  # same | del | ins | mod | gap
    segments: tuple[Segment, ...]
    number: int | None = None  # line number in the new text (or the old one for a deletion)


def word_diff(old: str, new: str) -> tuple[Segment, ...]:
    """``new`` against ``old`` word by word (white space between words as in ``new``)."""
    a, b = old.split(), new.split()
    out: list[Segment] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(Segment("same", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(Segment("del", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(Segment("ins", " ".join(b[j1:j2])))
    return tuple(out)


def _shown(line: str) -> str:
    """A memory file's line as a person reads it: an entry without its record marker (the
    record is shown apart)."""
    line = line.rstrip("\n")
    return "- " + entry_text(line) if line.startswith("- ") else line


def line_rows(old: str, new: str, context: int = 1) -> list[Row]:
    """The lines that change from ``old`` to ``new`` with ``context`` unchanged lines around
    them; a changed line paired with the line it replaces is one ``mod`` row diffed word by
    word; runs of unchanged lines between changes are one ``gap`` row."""
    a = [_shown(x) for x in old.splitlines()]
    b = [_shown(x) for x in new.splitlines()]
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    opcodes = matcher.get_opcodes()
    for index, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op == "equal":
            keep: set[int] = set()
            if index > 0:
                keep.update(range(j1, min(j2, j1 + context)))
            if index < len(opcodes) - 1:
                keep.update(range(max(j1, j2 - context), j2))
            skipped = False
            for j in range(j1, j2):
                if j in keep:
                    rows.append(Row("same", (Segment("same", b[j]),), j + 1))
                elif not skipped:
                    rows.append(Row("gap", ()))
                    skipped = True
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            rows.append(Row("mod", word_diff(a[i1 + k], b[j1 + k]), j1 + k + 1))
        for i in range(i1 + pairs, i2):
            rows.append(Row("del", (Segment("del", a[i]),), i + 1))
        for j in range(j1 + pairs, j2):
            rows.append(Row("ins", (Segment("ins", b[j]),), j + 1))
    return rows


def segments_html(segments: tuple[Segment, ...]) -> Markup:
    """Segments as HTML: removed words in ``<del>``, added ones in ``<ins>`` (escaped, made
    visible)."""
    parts = []
    for seg in segments:
        text = escape(visible(seg.text))
        if seg.op == "del":
            parts.append(Markup('<del aria-label="removed">') + text + Markup("</del>"))
        elif seg.op == "ins":
            parts.append(Markup('<ins aria-label="added">') + text + Markup("</ins>"))
        else:
            parts.append(text)
    return Markup(" ").join(parts)


def environment() -> Any:
    """The Jinja2 environment of the pages: templates from this package, HTML escaped
    everywhere, ``visible`` as a filter (text from files and commits)."""
    # lazy: Jinja2 loads only for agentmem serve
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = visible
    env.filters["segments"] = segments_html
    env.globals["line_rows"] = line_rows
    env.globals["word_diff"] = word_diff
    return env
