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
  entry (a ``remove`` when ``new_str`` is empty);
- ``insert`` on the memory file: ``add`` proposals in the section that holds ``insert_line``;
- ``delete`` of the memory file: one ``remove`` proposal per entry;
- ``rename``: refused (a memory file's name is its owner's id; no proposal can express it).

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
from agentmem.errors import AgentmemError
from agentmem.harvest.imports import markdown_candidates
from agentmem.harvest.providers.offline import section_for
from agentmem.memory.file import new_memory_text, parse_memory
from agentmem.memory.records import split_entry
from agentmem.store import regular

if TYPE_CHECKING:
    from agentmem.api import Agentmem
    from agentmem.proposals.model import Proposal

ROOT = "/memories"
SOURCE = "memory-tool"
#: Characters a ``view`` returns at most (the model pages with ``view_range``).
MAX_VIEW_CHARS = 16_000
_UNSAFE_PATH = re.compile(r"[\\%\x00-\x1f\x7f]")


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
        repo = self._mem.repository
        text = regular.read_text(
            repo.root, repo.memory_relpath(self.person), universal_newlines=True
        )
        return text if text is not None else new_memory_text(self.person, repo.config.memory)

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
        body = "\n".join(f"{n:6d}\t{_as_read(lines[n - 1])}" for n in range(start, end + 1))
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
        old = _entry_text(command.old_str)
        new = _entry_text(getattr(command, "new_str", None) or "")
        if not old:
            raise MemoryToolRefusal("old_str is empty; quote the part of one entry to change")
        if "\n" in old.strip() or "\n" in new.strip():
            raise MemoryToolRefusal("change one entry at a time: old_str and new_str on one line")
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
        filed = [
            self._mem.propose_change(
                "remove",
                target=entry.text,
                justification="the assistant asked to delete the memory file",
                session=self._session,
                source=SOURCE,
            )
            for entry in entries
        ]
        return _filed(filed, self.person)

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
        filed: list[Proposal] = []
        refused: list[str] = []
        for number, text in enumerate(entries, start=1):
            try:
                filed.append(
                    self._mem.propose_change(
                        "add",
                        text=text,
                        section=section if section in sections else section_for(text, sections),
                        justification=why,
                        session=self._session,
                        source=SOURCE,
                    )
                )
            except AgentmemError as exc:
                refused.append(f"entry {number} not filed: {exc.message}")
        if not filed:
            raise MemoryToolRefusal("; ".join(refused))
        return "\n".join([_filed(filed, self.person), *refused])

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


def _as_read(line: str) -> str:
    """A line of the memory file as the model reads it: an entry as ``- `` and its text, its
    record left out (:func:`agentmem.memory.records.split_entry`)."""
    return f"- {split_entry(line)[0]}" if line.startswith("- ") else line


def _for_model(exc: AgentmemError) -> str:
    """The refusal without command-line advice (the model cannot run commands)."""
    message = exc.message
    return re.sub(r"\s*\(?'?agentmem [a-z]+[^)]*\)?", "", message).strip() or message


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
