"""The Anthropic memory tool (``memory_20250818``) on reviewed memory.

    from anthropic import Anthropic
    from agentmem.integrations.anthropic import MemoryTool

    runner = Anthropic().beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=1024, tools=[MemoryTool()],
        messages=[{"role": "user", "content": "Remember that I want clause numbers first."}],
    )

``MemoryTool`` subclasses the SDK's ``anthropic.lib.tools.BetaAbstractMemoryTool``. The model
sees a ``/memories`` folder holding one file, ``/memories/<person>.md``: the person's approved
memory, read only. Every write the model asks for becomes a **pending proposal** in the
person's inbox (source ``memory-tool``, basis ``inferred``), validated like a harvest's and
committed at once; nothing reaches the memory before the person accepts it in ``agentmem
review``, and the tool result tells the model exactly what was filed:

- ``create`` (any path under ``/memories``): each list item or paragraph of ``file_text`` is one
  ``add`` proposal, its section chosen by keywords as the offline harvest does;
- ``str_replace`` on the memory file: ``old_str`` must lie within one entry; a ``modify`` of that
  entry (a ``remove`` when ``new_str`` is empty). ``old_str`` quoting several whole entry lines
  makes room in a full memory (:mod:`agentmem.delivery.room`): with a one-line ``new_str``, the
  removes of all but the first and a ``modify`` of the first (a merge); with an empty one, a
  ``remove`` of each;
- ``insert`` on the memory file: ``add`` proposals in the section that holds ``insert_line``;
- ``delete`` of the memory file: one ``remove`` proposal per entry;
- ``rename``: refused (a memory file's name is its owner's id; no proposal can express it).

One call files at most ``harvest.max_proposals`` proposals, in ONE inbox commit (the rest are
named as not filed); an argument over :data:`MAX_ARGUMENT_CHARS` is refused before it is read;
a full memory's refusal says how the tool makes room (:data:`ROOM_HINT`).

Paths are checked first: they must be ``/memories`` or below it, with no ``..``, backslash,
percent-encoding or control character; anything else is refused with a tool error. The
anthropic SDK is imported when ``MemoryTool`` is first looked up, never by ``import agentmem``.
"""

from __future__ import annotations

import posixpath
import re
from datetime import UTC, datetime
from secrets import token_hex
from typing import TYPE_CHECKING, Any, cast

import agentmem
from agentmem.delivery.context import build_chat, serve_memory
from agentmem.errors import AgentmemError, BudgetExceededError
from agentmem.harvest.imports import markdown_candidates
from agentmem.harvest.providers.offline import section_for
from agentmem.memory.file import new_memory_text, parse_memory
from agentmem.memory.records import split_entry

if TYPE_CHECKING:
    from agentmem.api import Agentmem
    from agentmem.proposals.model import Proposal

ROOT = "/memories"
SOURCE = "memory-tool"
#: Characters a ``view`` returns at most (the model pages with ``view_range``).
MAX_VIEW_CHARS = 16_000
_UNSAFE_PATH = re.compile(r"[\\%\x00-\x1f\x7f]")
#: Characters an argument (``file_text``, ``old_str``, ``insert_text``…) may hold: checked
#: before anything reads it.
MAX_ARGUMENT_CHARS = 100_000
#: What a full memory's refusal adds for the model: how this tool makes room.
ROOM_HINT = (
    "to make room, str_replace an entry with a shorter text or with nothing (a removal), or "
    "quote several whole entry lines in old_str and give one line in new_str (a merge); the "
    "user accepts these in their review"
)


class MemoryToolRefusal(AgentmemError):
    """A command the tool refuses (a path outside ``/memories``, an unknown file, a rename)."""


def check_path(path: object) -> str:
    """The normalised path (``/memories`` or ``/memories/…``); raises
    :class:`MemoryToolRefusal` for anything else (traversal, encoding, backslashes)."""
    if not isinstance(path, str) or not path:
        raise MemoryToolRefusal("a path is required, e.g. /memories")
    if _UNSAFE_PATH.search(path) or ".." in path.split("/"):
        raise MemoryToolRefusal(
            f"the path {path!r} is refused: use a plain path under {ROOT} (no '..', backslash "
            "or percent-encoding)"
        )
    clean = posixpath.normpath(path)
    if clean != ROOT and not clean.startswith(ROOT + "/"):
        raise MemoryToolRefusal(
            f"the path {path!r} is outside {ROOT}; every path starts with {ROOT}"
        )
    return clean


class _MemoryBackend:
    """What :class:`MemoryTool` does; mixed with the SDK's base class on first use."""

    def __init__(
        self,
        mem: Agentmem | None = None,
        *,
        session: str | None = None,
        cache_control: Any = None,
    ) -> None:
        """``mem``: the repository (default: :func:`agentmem.open`); the person is its actor.
        ``session``: recorded with every proposal (default ``memory-tool-<time>-<hex>``)."""
        cast(Any, super()).__init__(cache_control=cache_control)
        if mem is None:
            mem = agentmem.open()
        self._mem = mem
        self._session = session or _new_session()

    # -- the paths ----------------------------------------------------------------------------

    @property
    def person(self) -> str:
        return self._mem.actor().id

    @property
    def memory_path(self) -> str:
        """``/memories/<person>.md``: the one file the model sees."""
        return f"{ROOT}/{self.person}.md"

    def _memory_text(self) -> str:
        """The memory as the served view gives it (docs/design/served.md §Served view): the committed
        bytes of the person's last decision, never the work tree."""
        repo = self._mem.repository
        text = serve_memory(repo, self.person).text
        return text if text is not None else new_memory_text(self.person, repo.config.memory)

    def _shown(self) -> tuple[dict[int, str], tuple[str, ...]]:
        """What ``view`` may show of the served memory: line number → the entry line as the
        model reads it, for the entries a chat block gives (labelled ``[inferred]``, with their
        scope), withheld ones named; and the served view's notes."""
        repo = self._mem.repository
        ctx = build_chat(repo, self.person)
        shown: dict[int, str] = {}
        for entry in ctx.entries:
            if entry.number in ctx.withheld:
                shown[entry.line] = "- [withheld: this entry fails agentmem's checks]"
                continue
            tags = [
                *(["inferred"] if entry.record.basis == "inferred" else []),
                *([f"scope {entry.record.scope}"] if entry.record.scope else []),
            ]
            label = f"[{', '.join(tags)}] " if tags else ""
            shown[entry.line] = f"- {label}{entry.text}"
        return shown, ctx.notes

    def _require_memory_file(self, path: object, doing: str) -> None:
        clean = check_path(path)
        if clean != self.memory_path:
            raise MemoryToolRefusal(
                f"{clean} does not exist: {doing} works on {self.memory_path}, the only file here "
                "(files you create are filed as proposals, not written)"
            )

    # -- commands -----------------------------------------------------------------------------

    def view(self, command: Any) -> str:
        """The folder listing, or the memory file with line numbers (``view_range`` honoured)."""
        return self._run(lambda: self._view(command))

    def _view(self, command: Any) -> str:
        clean = check_path(command.path)
        text = self._memory_text()
        if clean == ROOT:
            size = _human(len(text.encode("utf-8")))
            return (
                f"Here're the files and directories up to 2 levels deep in {ROOT}, excluding "
                f"hidden items:\n{_human(len(text.encode('utf-8')))}\t{ROOT}\n{size}\t{self.memory_path}\n"
                f"(this is {self.person}'s reviewed memory: read it freely; what you write is "
                "filed as a pending proposal for them to accept)"
            )
        self._require_memory_file(clean, "view")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        start, end = 1, len(lines)
        view_range = getattr(command, "view_range", None)
        if view_range:
            start = max(1, int(view_range[0]))
            end = len(lines) if int(view_range[1]) == -1 else min(len(lines), int(view_range[1]))
            if start > max(end, 1):
                raise MemoryToolRefusal(
                    f"view_range {list(view_range)} is outside the file's {len(lines)} lines"
                )
        shown, notes = self._shown()
        body = "\n".join(
            f"{n:6d}\t{shown.get(n, '') if lines[n - 1].startswith('- ') else lines[n - 1]}"
            for n in range(start, end + 1)
            if not lines[n - 1].startswith("- ") or n in shown
        )
        left = sum(
            1 for n in range(start, end + 1) if lines[n - 1].startswith("- ") and n not in shown
        )
        if left:
            body += (
                f"\n[{left} entr{'y' if left == 1 else 'ies'} not shown: expired, past review or "
                "kept for another scope]"
            )
        if notes:
            body += "\n[" + " | ".join(notes) + "]"
        if len(body) > MAX_VIEW_CHARS:
            body = body[:MAX_VIEW_CHARS] + "\n[truncated: use view_range to read further]"
        return f"Here's the content of {clean} with line numbers:\n{body}"

    def create(self, command: Any) -> str:
        return self._run(lambda: self._create(command))

    def _create(self, command: Any) -> str:
        clean = check_path(command.path)
        if clean == ROOT:
            raise MemoryToolRefusal(f"{ROOT} is a folder; create a file below it")
        text = command.file_text if isinstance(command.file_text, str) else ""
        _bounded(text, "file_text")
        entries = [c.text for c in markdown_candidates(text)]
        entries = [e for e in entries if not e.startswith("Memory:")]
        if not entries:
            raise MemoryToolRefusal(
                "nothing to file: write one preference per line (a list item or a sentence)"
            )
        return self._file_adds(entries, None, f"written by the assistant to {clean}")

    def str_replace(self, command: Any) -> str:
        return self._run(lambda: self._str_replace(command))

    def _str_replace(self, command: Any) -> str:
        self._require_memory_file(command.path, "str_replace")
        quoted = command.old_str if isinstance(command.old_str, str) else ""
        replacement = getattr(command, "new_str", None) or ""
        if len(quoted) > MAX_ARGUMENT_CHARS or len(replacement) > MAX_ARGUMENT_CHARS:
            raise MemoryToolRefusal(
                f"old_str and new_str are at most {MAX_ARGUMENT_CHARS:,} characters each"
            )
        if "\n" in quoted.strip():
            return self._merge(quoted, replacement)
        old = _entry_text(quoted)
        new = _entry_text(replacement)
        if not old:
            raise MemoryToolRefusal("old_str is empty; quote the part of one entry to change")
        if "\n" in new.strip():
            raise MemoryToolRefusal(
                "new_str is one line: one entry (several entries in old_str are merged into it)"
            )
        why = "asked by the assistant through the memory tool"
        if new:
            proposal = self._mem.propose_change(
                "modify", target=old, text=new, justification=why, session=self._session,
                source=SOURCE,
            )  # fmt: skip
        else:
            proposal = self._mem.propose_change(
                "remove", target=old, justification=why, session=self._session, source=SOURCE
            )
        return _filed([proposal], self.person)

    def _merge(self, quoted: str, replacement: str) -> str:
        """``old_str`` quotes several whole entries (lines of ``view``): a ``replace`` of them
        by ``new_str`` (one line: a merge) or, when ``new_str`` is empty, a ``forget`` of each
        (:mod:`agentmem.delivery.room`). The quoted lines must be entries of the memory as it
        is now: a line that is no longer one refuses the call."""
        # lazy: the write path (validation, planner) only when the model makes room
        from agentmem.delivery import room

        lines = [_entry_text(line) for line in quoted.strip().split("\n") if line.strip()]
        new = _entry_text(replacement)
        if "\n" in new.strip():
            raise MemoryToolRefusal(
                "new_str is one line: the one entry that replaces the entries quoted in old_str"
            )
        repo = self._mem.repository
        limit = repo.config.harvest.max_proposals
        if len(lines) > limit:
            raise MemoryToolRefusal(
                f"old_str quotes {len(lines)} entries: one call files at most {limit} proposals "
                "(harvest.max_proposals); quote fewer"
            )
        actor = self._mem.actor()
        with repo.locked():
            memory = parse_memory(
                self._memory_text(),
                self.person,
                repo.config.memory,
                repo.memory_relpath(self.person),
            )
            entries = []
            for line in lines:
                match = [e for e in memory.entries() if e.text == line]
                if len(match) != 1:
                    raise MemoryToolRefusal(
                        f"{line[:60]!r} is not an entry of {self.memory_path} as it is now; "
                        "view the file again and quote whole entry lines"
                    )
                entries.append(match[0])
            filed = room.file_room(
                repo,
                actor,
                list(dict.fromkeys(entries)),
                new or None,
                session=self._session,
                source=SOURCE,
                justification="asked by the assistant through the memory tool",
            )
        return _filed(list(filed.proposals), self.person)

    def insert(self, command: Any) -> str:
        return self._run(lambda: self._insert(command))

    def _insert(self, command: Any) -> str:
        self._require_memory_file(command.path, "insert")
        lines = self._memory_text().split("\n")
        line = int(command.insert_line)
        if line < 0 or line > len(lines):
            raise MemoryToolRefusal(
                f"insert_line {line} is outside the file's {len(lines)} lines (0 inserts at the top)"
            )
        section = None
        for above in reversed(lines[:line]):
            if above.startswith("## "):
                section = above[3:].strip()
                break
        _bounded(command.insert_text or "", "insert_text")
        entries = [c.text for c in markdown_candidates(command.insert_text or "")]
        if not entries:
            raise MemoryToolRefusal("insert_text holds no entry; write one preference per line")
        return self._file_adds(
            entries, section, "inserted by the assistant through the memory tool"
        )

    def delete(self, command: Any) -> str:
        return self._run(lambda: self._delete(command))

    def _delete(self, command: Any) -> str:
        clean = check_path(command.path)
        if clean == ROOT:
            raise MemoryToolRefusal(f"{ROOT} itself cannot be deleted")
        self._require_memory_file(clean, "delete")
        repo = self._mem.repository
        memory = parse_memory(
            self._memory_text(), self.person, repo.config.memory, repo.memory_relpath(self.person)
        )
        entries = memory.entries()
        if not entries:
            raise MemoryToolRefusal(f"{clean} holds no entry: nothing to remove")
        raws = [
            {
                "action": "remove",
                "route": "memory",
                "section": entry.section,
                "target": entry.text,
                "justification": "the assistant asked to delete the memory file",
                "basis": "inferred",
            }
            for entry in entries
        ]
        return self._file_batch(raws)

    def rename(self, command: Any) -> str:
        return self._run(lambda: self._rename(command))

    def _rename(self, command: Any) -> str:
        check_path(command.old_path)
        check_path(command.new_path)
        raise MemoryToolRefusal(
            f"renaming is refused: {self.memory_path} is named after its owner and the folder "
            "holds nothing else; nothing was changed or filed"
        )

    # -- helpers ------------------------------------------------------------------------------

    def _file_adds(self, entries: list[str], section: str | None, why: str) -> str:
        sections = self._mem.repository.config.memory.sections
        raws = [
            {
                "action": "add",
                "route": "memory",
                "section": section if section in sections else section_for(text, sections),
                "text": text,
                "justification": why,
                "basis": "inferred",
            }
            for text in entries
        ]
        return self._file_batch(raws)

    def _file_batch(self, raws: list[dict[str, Any]]) -> str:
        """File ``raws`` in ONE inbox commit, at most ``harvest.max_proposals`` of them
        (:func:`agentmem.delivery.room.file_batch`); the rest said, never silently dropped."""
        # lazy: the write path (validation, planner) only when the model writes
        from agentmem.delivery import room

        repo = self._mem.repository
        actor = self._mem.actor()
        with repo.locked():
            batch = room.file_batch(repo, actor, raws, session=self._session, source=SOURCE)
        refused = [f"entry {n} not filed: {why}" for n, why in batch.refused]
        full = any("the memory is full" in why for _, why in batch.refused)
        if full:
            refused.append(ROOM_HINT)
        if batch.cut:
            limit = repo.config.harvest.max_proposals
            refused.append(
                f"{len(batch.cut)} more not filed (entries {_spans(batch.cut)}): one call files "
                f"at most {limit} proposals (harvest.max_proposals); file them again once the "
                "user has reviewed these"
            )
        if not batch.filed:
            raise MemoryToolRefusal("; ".join(refused))
        return "\n".join([_filed(list(batch.filed), self.person), *refused])

    def _run(self, work: Any) -> str:
        """Run a command; an agentmem refusal becomes the SDK's ``ToolError`` (an ``is_error``
        tool result the model reads), its message written for a model."""
        # lazy: the anthropic SDK loads only when the memory tool is used
        from anthropic.lib.tools import ToolError

        try:
            return cast(str, work())
        except AgentmemError as exc:
            raise ToolError(_for_model(exc)) from None


def _filed(proposals: list[Proposal], person: str) -> str:
    lines = [
        f"Filed {len(proposals)} pending proposal(s) for {person} to review; the memory file is "
        "unchanged until they accept them:"
    ]
    lines += [f"- {p.id}: {p.summary()}" for p in proposals]
    return "\n".join(lines)


def _entry_text(value: object) -> str:
    """An entry as the model quotes it from ``view``: line number, tab and ``- `` dropped."""
    text = value if isinstance(value, str) else ""
    return split_entry(re.sub(r"^\s*\d+\t", "", text.strip()))[0].strip()


def _for_model(exc: AgentmemError) -> str:
    """The refusal without command-line advice (the model cannot run commands); a full memory
    says how the tool makes room (:data:`ROOM_HINT`)."""
    message = exc.message
    said = re.sub(r"\s*\(?'?agentmem [a-z]+[^)]*\)?", "", message).strip() or message
    return f"{said}; {ROOM_HINT}" if isinstance(exc, BudgetExceededError) else said


def _bounded(text: str, name: str) -> None:
    """Refuse an argument over :data:`MAX_ARGUMENT_CHARS` before anything reads it."""
    if len(text) > MAX_ARGUMENT_CHARS:
        raise MemoryToolRefusal(
            f"{name} is {len(text):,} characters; at most {MAX_ARGUMENT_CHARS:,} are read "
            "(one preference per line, a few at a time)"
        )


def _spans(numbers: tuple[int, ...]) -> str:
    """``7-300`` for consecutive numbers, else them all joined by commas."""
    if numbers and list(numbers) == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(str(n) for n in numbers)


def _human(size: int) -> str:
    return f"{size}B" if size < 1024 else f"{size / 1024:.1f}K"


def _new_session() -> str:
    return f"memory-tool-{datetime.now(UTC):%Y%m%dT%H%M%S}-{token_hex(3)}"


_built: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """``MemoryTool``: built on first access (imports the anthropic SDK then)."""
    if name != "MemoryTool":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if "MemoryTool" not in _built:
        # lazy: the anthropic SDK loads only when the memory tool is used
        from anthropic.lib.tools import BetaAbstractMemoryTool

        _built["MemoryTool"] = type(
            "MemoryTool",
            (_MemoryBackend, BetaAbstractMemoryTool),
            {"__module__": __name__, "__doc__": __doc__},
        )
    return _built["MemoryTool"]
