"""Personal memory files (docs/design/memory.md §Memory file): ``memories/<person>.md``.

A memory file is kept as its list of lines, each classified (title, heading, entry, blank), so
that rendering gives back the exact bytes that were read and an edit touches only its own line.

Layout::

    # Memory: alice
                                 (blank lines are free)
    ## Writing style             (exactly the configured sections, in order)
    - one entry per line
    - an entry with its record <!-- am: basis=inferred since=2026-12-01 review=2026-12-31 -->

An entry line may end with a record marker (:mod:`agentmem.memory.records`): ``Entry.text`` is
the text before it, ``Entry.record`` what it says. Sizes are counted in Unicode code points on
the NFC form of the whole file without its markers (docs/design/memory.md §Memory file).
"""

from __future__ import annotations

import unicodedata
from enum import Enum

from agentmem.config import MemoryConfig
from agentmem.errors import ApplyConflictError, BudgetExceededError, InvalidMemoryError
from agentmem.frozen import Frozen
from agentmem.memory.records import (
    MARKER_OPEN,
    NO_RECORD,
    Record,
    parse_record,
    split_entry,
    strip_markers,
)

ENTRY_PREFIX = "- "
HEADING_PREFIX = "## "
TITLE_PREFIX = "# Memory: "
# Every kind of line break Python's str.splitlines() knows, plus the ones
# docs/design/memory.md §Memory file lists.
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
FORBIDDEN_ENTRY_STARTS = ("#", "-", ">")


class LineKind(Enum):
    TITLE = "title"
    HEADING = "heading"
    ENTRY = "entry"
    BLANK = "blank"


class Line(Frozen):
    """One physical line, with its end-of-line characters (``raw`` re-renders it exactly)."""

    _fields = ("kind", "raw", "section", "parsed")
    _compared = _shown = ("kind", "raw", "section")
    kind: LineKind
    raw: str
    section: str | None  # the section an entry or heading belongs to
    #: an entry's text and record as :func:`parse_memory` read them (None: read on demand),
    #: so listing the entries never parses a marker twice; left out of equality and repr.
    parsed: tuple[str, Record] | None

    def __init__(
        self,
        kind: LineKind,
        raw: str,
        section: str | None = None,
        parsed: tuple[str, Record] | None = None,
    ) -> None:
        self._set(kind=kind, raw=raw, section=section, parsed=parsed)

    @property
    def text(self) -> str:
        """For an entry: the text after ``- ``, without its record marker and the line end."""
        if self.kind is not LineKind.ENTRY:
            return self.raw.rstrip("\n")
        return self.parsed[0] if self.parsed is not None else split_entry(self.raw)[0]

    @property
    def marker(self) -> str | None:
        """For an entry: the body of its record marker (``basis=…``), None without one."""
        if self.kind is not LineKind.ENTRY:
            return None
        return split_entry(self.raw)[1]


class Entry(Frozen):
    """An entry as listed to people: ``number`` counts from 1 across the file, ``line`` is
    1-based, ``record`` its metadata (``NO_RECORD`` without a marker: unrecorded)."""

    _fields = ("number", "section", "text", "line", "record")
    number: int
    section: str
    text: str
    line: int
    record: Record

    def __init__(
        self, number: int, section: str, text: str, line: int, record: Record = NO_RECORD
    ) -> None:
        self._set(number=number, section=section, text=text, line=line, record=record)


class BudgetStatus(Frozen):
    """Fill level of a memory file: ``used``/``budget`` code points; ``level`` ok | warning | over."""

    _fields = ("used", "budget", "warn_ratio")
    used: int
    budget: int
    warn_ratio: float

    def __init__(self, used: int, budget: int, warn_ratio: float) -> None:
        self._set(used=used, budget=budget, warn_ratio=warn_ratio)

    @property
    def ratio(self) -> float:
        return self.used / self.budget

    @property
    def level(self) -> str:
        if self.used > self.budget:
            return "over"
        return "warning" if self.ratio >= self.warn_ratio else "ok"

    def describe(self) -> str:
        """``43 % — 3440/8000 characters`` (docs/design/context.md §Context)."""
        return f"{self.ratio:.0%} — {self.used}/{self.budget} characters".replace("%", " %")


class MemoryFile:
    """A parsed memory file. ``lines`` render back to the exact input bytes. Mutable, compared
    by value, unhashable (as the dataclass it was; a plain class: see :mod:`agentmem.frozen`)."""

    person: str
    lines: list[Line]

    def __init__(self, person: str, lines: list[Line] | None = None) -> None:
        self.person = person
        self.lines = [] if lines is None else lines

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, MemoryFile)
            return (self.person, self.lines) == (other.person, other.lines)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(person={self.person!r}, lines={self.lines!r})"

    def render(self) -> str:
        return "".join(line.raw for line in self.lines)

    def _entry_lines(self) -> list[tuple[int, Line]]:
        """``(1-based line number, line)`` of each entry line, in order: entry ``n`` is the
        n-th."""
        return [
            (index, line)
            for index, line in enumerate(self.lines, start=1)
            if line.kind is LineKind.ENTRY and line.section is not None
        ]

    def entries(self) -> list[Entry]:
        found: list[Entry] = []
        for index, line in self._entry_lines():
            assert line.section is not None
            if line.parsed is not None:
                text, record = line.parsed
            else:
                text, marker = split_entry(line.raw)
                record = NO_RECORD if marker is None else parse_record(marker, f"line {index}")
            found.append(Entry(len(found) + 1, line.section, text, index, record))
        return found

    def entry_texts(self) -> list[tuple[int, str]]:
        """``(line, text)`` of each entry, in order (entry ``n`` is the n-th): what
        :meth:`entries` lists, without building an :class:`Entry` or reading a record, for a
        reader of the texts alone (``check`` on thousands of files)."""
        return [(index, line.text) for index, line in self._entry_lines()]

    def sections(self) -> list[str]:
        return [ln.section for ln in self.lines if ln.kind is LineKind.HEADING and ln.section]


def char_count(text: str) -> int:
    """Size in Unicode code points of the NFC form (``memory.budget_chars``,
    docs/design/settings.md §Settings)."""
    return len(text) if text.isascii() else len(unicodedata.normalize("NFC", text))


def budget_status(text: str, config: MemoryConfig) -> BudgetStatus:
    """The fill level of a whole memory file's text, counted on what reaches a prompt: the
    file without its record markers (:func:`agentmem.memory.records.strip_markers`)."""
    return BudgetStatus(char_count(strip_markers(text)), config.budget_chars, config.warn_ratio)


def check_budget(
    text: str, config: MemoryConfig, where: str, held: list[Entry] | None = None
) -> BudgetStatus:
    """Refuse a text over budget with the figures and what to do (docs/design/memory.md §Memory file):
    the commands that make room and, from ``held`` (the entries the memory holds before the
    change), the :data:`OLDEST_SHOWN` least recently confirmed; returns the status otherwise."""
    status = budget_status(text, config)
    if status.level == "over":
        raise over_budget(status, where, held or [])
    return status


#: How many of the least recently confirmed entries a budget refusal names.
OLDEST_SHOWN = 3


def least_recently_confirmed(entries: list[Entry], count: int = OLDEST_SHOWN) -> list[Entry]:
    """The ``count`` entries confirmed longest ago: unrecorded ones first (in file order), then
    by their record's ``since`` (docs/design/memory.md §Memory file)."""
    return sorted(
        entries, key=lambda e: (e.record.since is not None, e.record.since or "", e.number)
    )[:count]


def over_budget(status: BudgetStatus, where: str, held: list[Entry]) -> BudgetExceededError:
    """The refusal of a change that takes a memory file over its budget: the figures, the
    commands that make room (``agentmem memory edit``, ``agentmem tidy --to-inbox``) and the
    entries least recently confirmed, by number (``oldest`` on the error, for a caller that
    words it for a model)."""
    oldest = least_recently_confirmed(held)
    named = "; ".join(
        f"#{e.number} {_quoted(e.text)} ({'since ' + e.record.since if e.record.since else 'unrecorded'})"
        for e in oldest
    )
    error = BudgetExceededError(
        f"{where}: {status.used}/{status.budget} characters: the memory is full",
        hint="make room first: 'agentmem memory edit' (remove or merge entries yourself) or "
        "'agentmem tidy --to-inbox' (proposes removals and merges for your review)"
        + (f"; least recently confirmed: {named}" if named else ""),
    )
    error.oldest = tuple(oldest)
    error.status = status
    return error


def _quoted(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def new_memory_text(person: str, config: MemoryConfig) -> str:
    """An empty memory file with the configured sections (docs/design/memory.md §Memory file)."""
    parts = [f"{TITLE_PREFIX}{person}\n"]
    for section in config.sections:
        parts.append(f"\n{HEADING_PREFIX}{section}\n")
    return "".join(parts)


def validate_entry_text(text: str, config: MemoryConfig, where: str) -> None:
    """An entry is exactly one non-empty line, no leading ``#``, ``-`` or ``>``, at most
    ``entry_max_chars`` code points (docs/design/memory.md §Memory file). Raises
    :class:`InvalidMemoryError`."""
    # every line break is unprintable: one pass of isprintable() spares looking for each
    breaks = (
        [] if text.isprintable() else sorted({f"U+{ord(c):04X}" for c in LINE_BREAKS if c in text})
    )
    if breaks:
        raise InvalidMemoryError(
            f"{where}: an entry must be one line; it contains line break(s) {', '.join(breaks)}"
        )
    stripped = text.strip()
    if not stripped:
        raise InvalidMemoryError(f"{where}: an entry cannot be empty")
    if stripped != text:
        raise InvalidMemoryError(f"{where}: an entry cannot start or end with white space")
    if text.startswith(FORBIDDEN_ENTRY_STARTS):
        raise InvalidMemoryError(
            f"{where}: an entry cannot start with '{text[0]}' (it would read as Markdown structure)"
        )
    size = char_count(text)
    if size > config.entry_max_chars:
        raise InvalidMemoryError(
            f"{where}: entry is {size} characters; the limit is {config.entry_max_chars}"
        )


#: The last text :func:`parse_memory` read and what it read (its lines are immutable): a review
#: of many proposals, or one validation, plans against the same file again and again.
_last_parsed: list[tuple[tuple[str, str, tuple[str, ...], int, str], list[Line]]] = []


def parse_memory(text: str, person: str, config: MemoryConfig, where: str) -> MemoryFile:
    """Parse a memory file's text; ``where`` is the path shown in errors.

    Raises :class:`InvalidMemoryError` with ``where:line: problem (expected …)`` for a missing or
    wrong title, an unknown, missing or out-of-order section, text outside an entry, or an
    invalid entry. Budget is not checked here (see :func:`check_budget`). The same text read
    twice in a row is parsed once (a new :class:`MemoryFile` over the same immutable lines).
    """
    key = (text, person, tuple(config.sections), config.entry_max_chars, where)
    if _last_parsed and _last_parsed[0][0] == key:
        return MemoryFile(person, list(_last_parsed[0][1]))
    memory = _parse_memory(text, person, config, where)
    _last_parsed[:] = [(key, list(memory.lines))]
    return memory


def _parse_memory(text: str, person: str, config: MemoryConfig, where: str) -> MemoryFile:
    if "\r" in text:
        raise InvalidMemoryError(f"{where}: uses CR or CRLF line ends; save it with LF line ends")
    expected = list(config.sections)
    title = f"{TITLE_PREFIX}{person}"
    lines: list[Line] = []
    current: str | None = None
    seen: list[str] = []
    raw_lines = text.splitlines(keepends=True)
    for number, raw in enumerate(raw_lines, start=1):
        body = raw[:-1] if raw.endswith("\n") else raw
        at = f"{where}:{number}"
        if not lines:
            if body != title:
                raise InvalidMemoryError(
                    f"{at}: expected the title line '{title}', found {body[:60]!r}"
                )
            lines.append(Line(LineKind.TITLE, raw))
            continue
        if not body.strip():
            lines.append(Line(LineKind.BLANK, raw, current))
        elif body.startswith(HEADING_PREFIX):
            name = body[len(HEADING_PREFIX) :]
            want = expected[len(seen)] if len(seen) < len(expected) else None
            if name != want:
                hint = f"expected '## {want}'" if want else "all sections are already present"
                if name in seen:
                    hint = f"section '{name}' appears twice"
                raise InvalidMemoryError(
                    f"{at}: unexpected section '{name}' ({hint}; sections: {', '.join(expected)})"
                )
            seen.append(name)
            current = name
            lines.append(Line(LineKind.HEADING, raw, name))
        elif body.startswith(ENTRY_PREFIX):
            if current is None:
                raise InvalidMemoryError(
                    f"{at}: entry outside any section (expected one of: {', '.join(expected)})"
                )
            entry_text, marker = split_entry(body)
            if MARKER_OPEN in entry_text:
                raise InvalidMemoryError(
                    f"{at}: broken entry metadata: a marker '<!-- am: … -->' must end the line, "
                    "once, after a space"
                )
            record = NO_RECORD if marker is None else parse_record(marker, at)
            validate_entry_text(entry_text, config, at)
            lines.append(Line(LineKind.ENTRY, raw, current, (entry_text, record)))
        else:
            raise InvalidMemoryError(
                f"{at}: unexpected text {body[:40]!r} (expected an entry '- …', a blank line "
                f"or a section heading '## …')"
            )
    if not lines:
        raise InvalidMemoryError(f"{where}:1: empty file (expected the title line '{title}')")
    if len(seen) < len(expected):
        missing = ", ".join(expected[len(seen) :])
        raise InvalidMemoryError(f"{where}:{len(raw_lines)}: missing section(s): {missing}")
    return MemoryFile(person, lines)


def nfc(text: str) -> str:
    """``text`` in Unicode NFC: entries are stored composed (docs/design/memory.md §Memory file), so a
    composed target finds them; a canonical equivalent, never another text."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def find_entries(memory: MemoryFile, target: str) -> list[Entry]:
    """The entries whose text contains ``target`` as an exact substring, both compared in NFC
    (docs/design/memory.md §Memory file): an entry written decomposed before is still found. The
    target is read as an entry line (:func:`agentmem.memory.records.split_entry`): quoted
    with its ``- `` or its record marker, it still matches on the entry's text alone."""
    wanted = nfc(split_entry(target)[0])
    return [e for e in memory.entries() if wanted in nfc(e.text)]


def _unique_target(memory: MemoryFile, target: str, where: str) -> Entry:
    matches = find_entries(memory, target)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        listed = "; ".join(f"#{e.number} {e.text[:60]!r}" for e in memory.entries()[:10])
        raise ApplyConflictError(
            f"{where}: no entry contains {split_entry(target)[0]!r}",
            hint=f"entries: {listed}" if listed else "the memory has no entries yet",
        )
    listed = "; ".join(f"#{e.number} (line {e.line}) {e.text[:60]!r}" for e in matches)
    raise ApplyConflictError(
        f"{where}: {len(matches)} entries contain {split_entry(target)[0]!r}: {listed}",
        hint="give a longer target that matches exactly one entry",
    )


def _entry_raw(text: str, record: Record | None = None) -> str:
    marker = f" {record.render()}" if record is not None and record.marked else ""
    return f"{ENTRY_PREFIX}{nfc(text)}{marker}\n"


def add_entry(
    memory: MemoryFile, section: str, text: str, where: str, record: Record | None = None
) -> MemoryFile:
    """A new MemoryFile with ``- text`` (and ``record``'s marker) appended at the end of
    ``section`` (``add``, docs/design/memory.md §Proposals)."""
    if section not in memory.sections():
        raise ApplyConflictError(
            f"{where}: no section '{section}' (sections: {', '.join(memory.sections())})"
        )
    lines = list(memory.lines)
    heading = next(
        i for i, ln in enumerate(lines) if ln.kind is LineKind.HEADING and ln.section == section
    )
    insert_at = heading + 1
    for i in range(heading + 1, len(lines)):
        if lines[i].kind is LineKind.HEADING:
            break
        if lines[i].kind is LineKind.ENTRY:
            insert_at = i + 1
    before = lines[insert_at - 1]
    if not before.raw.endswith("\n"):
        lines[insert_at - 1] = Line(before.kind, before.raw + "\n", before.section)
    lines.insert(insert_at, Line(LineKind.ENTRY, _entry_raw(text, record), section))
    return MemoryFile(memory.person, lines)


def modify_entry(
    memory: MemoryFile, target: str, text: str, where: str, record: Record | None = None
) -> MemoryFile:
    """A new MemoryFile with the one entry containing ``target`` replaced by ``text`` (with
    ``record``'s marker; None keeps the entry's marker as it was)."""
    entry = _unique_target(memory, target, where)
    lines = list(memory.lines)
    old = lines[entry.line - 1]
    ending = "\n" if old.raw.endswith("\n") else ""
    if record is None:
        marker = f" {MARKER_OPEN}{old.marker}-->" if old.marker is not None else ""
    else:
        marker = f" {record.render()}" if record.marked else ""
    lines[entry.line - 1] = Line(
        LineKind.ENTRY, f"{ENTRY_PREFIX}{nfc(text)}{marker}{ending}", old.section
    )
    return MemoryFile(memory.person, lines)


def set_record(memory: MemoryFile, number: int, record: Record) -> MemoryFile:
    """A new MemoryFile where entry ``number`` carries ``record``'s marker (text unchanged)."""
    entry = memory.entries()[number - 1]
    return modify_entry_at(memory, entry, entry.text, record)


def modify_entry_at(memory: MemoryFile, entry: Entry, text: str, record: Record) -> MemoryFile:
    """A new MemoryFile with ``entry``'s line rewritten as ``- text <marker>``."""
    lines = list(memory.lines)
    old = lines[entry.line - 1]
    ending = "\n" if old.raw.endswith("\n") else ""
    raw = _entry_raw(text, record).rstrip("\n") + ending
    lines[entry.line - 1] = Line(LineKind.ENTRY, raw, old.section)
    return MemoryFile(memory.person, lines)


def remove_entry(memory: MemoryFile, target: str, where: str) -> MemoryFile:
    """A new MemoryFile without the one entry containing ``target``."""
    entry = _unique_target(memory, target, where)
    lines = list(memory.lines)
    del lines[entry.line - 1]
    return MemoryFile(memory.person, lines)


def remove_entry_at(memory: MemoryFile, entry: Entry) -> MemoryFile:
    """A new MemoryFile without ``entry`` (by its line: the entry a person picked by number)."""
    lines = list(memory.lines)
    del lines[entry.line - 1]
    return MemoryFile(memory.person, lines)
