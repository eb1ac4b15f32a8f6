"""Three-way merge of one file for ``agentmem sync`` (docs/design/sync.md §Sync): pure, no git, no disk.

``ours`` is the remote's version (already published), ``theirs`` the local commit being
replayed, ``base`` their common ancestor. A *real conflict* stops the sync:

- a memory file (``memories/*.md``) whose same entry (or the same lines) changed on both sides;
  entries both sides *added* at the same place are kept, the remote's first;
- a doctrine rule (``doctrine/*.yaml``) changed on both sides: a rule is one unit (version,
  approval hash), it is never merged line by line;
- any other file: changes to the same lines on both sides.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from agentmem.store.repo import DOCTRINE_DIR, MEMORY_DIR

ENTRY_PREFIX = "- "


class MergeConflict(Exception):
    """A real conflict in one file; ``reason`` says what, for the "sync paused" message."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class _Edit:
    start: int  # first base line replaced (or the insertion point)
    end: int  # one past the last base line replaced (== start for an insertion)
    lines: tuple[str, ...]
    side: str  # "ours" | "theirs"

    @property
    def insertion(self) -> bool:
        return self.start == self.end


def merge_file(
    path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None
) -> bytes | None:
    """The merged content (None: deleted), or :class:`MergeConflict`."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    kind = _kind(path)
    if kind == "rule":
        raise MergeConflict(path, "the same doctrine rule was changed on both sides")
    if ours is None or theirs is None:
        raise MergeConflict(path, "deleted on one side and changed on the other")
    try:
        texts = [None if b is None else b.decode("utf-8") for b in (base, ours, theirs)]
    except UnicodeDecodeError:
        raise MergeConflict(path, "a binary file changed on both sides") from None
    base_text, ours_text, theirs_text = texts
    assert ours_text is not None and theirs_text is not None
    base_lines = _lines(base_text) if base_text is not None else None
    ours_lines, theirs_lines = _lines(ours_text), _lines(theirs_text)
    if base_lines is None:
        if kind != "memory":
            raise MergeConflict(path, "created on both sides with different content")
        base_lines = _skeleton(path, ours_lines, theirs_lines)
    merged = merge_lines(base_lines, ours_lines, theirs_lines, union_entries=kind == "memory")
    if merged is None:
        what = (
            "the same entry was changed on both sides"
            if kind == "memory"
            else "the same lines changed on both sides"
        )
        raise MergeConflict(path, what)
    return "".join(merged).encode("utf-8")


def _kind(path: str) -> str:
    if path.startswith(f"{MEMORY_DIR}/") and path.endswith(".md"):
        return "memory"
    if path.startswith(f"{DOCTRINE_DIR}/") and path.endswith(".yaml"):
        return "rule"
    return "other"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _skeleton(path: str, ours: list[str], theirs: list[str]) -> list[str]:
    """Both sides created the same memory file: their common base is the file without entries."""
    ours_frame = [ln for ln in ours if not ln.startswith(ENTRY_PREFIX)]
    theirs_frame = [ln for ln in theirs if not ln.startswith(ENTRY_PREFIX)]
    if ours_frame != theirs_frame:
        raise MergeConflict(path, "created on both sides with different sections")
    return ours_frame


def merge_lines(
    base: list[str], ours: list[str], theirs: list[str], *, union_entries: bool
) -> list[str] | None:
    """Line-level three-way merge; None on a conflict.

    Edits of the two sides that touch different base lines are both applied. Identical edits
    are applied once. When ``union_entries``, insertions of entry lines at the same place by
    both sides are both kept (ours first); anything else touching the same lines conflicts.
    """
    edits = sorted(
        _edits(base, ours, "ours") + _edits(base, theirs, "theirs"), key=lambda e: (e.start, e.end)
    )
    out: list[str] = []
    pos = 0
    for cluster in _clusters(edits):
        lines = _resolve(cluster, union_entries)
        if lines is None:
            return None
        start = min(e.start for e in cluster)
        out.extend(base[pos:start])
        out.extend(lines)
        pos = max(pos, max(e.end for e in cluster))
    out.extend(base[pos:])
    return out


def _edits(base: list[str], other: list[str], side: str) -> list[_Edit]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Edit(i1, i2, tuple(other[j1:j2]), side)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _overlap(a: _Edit, b: _Edit) -> bool:
    if a.insertion and b.insertion:
        return a.start == b.start
    if a.insertion:
        return b.start < a.start < b.end
    if b.insertion:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def _clusters(edits: list[_Edit]) -> list[list[_Edit]]:
    clusters: list[list[_Edit]] = []
    for edit in edits:
        if clusters and any(_overlap(edit, other) for other in clusters[-1]):
            clusters[-1].append(edit)
        else:
            clusters.append([edit])
    return clusters


def _resolve(cluster: list[_Edit], union_entries: bool) -> list[str] | None:
    sides = {e.side for e in cluster}
    if len(sides) == 1:
        return [ln for e in cluster for ln in e.lines]
    ours = [e for e in cluster if e.side == "ours"]
    theirs = [e for e in cluster if e.side == "theirs"]
    if [(e.start, e.end, e.lines) for e in ours] == [(e.start, e.end, e.lines) for e in theirs]:
        return [ln for e in ours for ln in e.lines]
    if union_entries and all(e.insertion for e in cluster):
        kept = [ln for e in ours for ln in e.lines]
        added = [ln for e in theirs for ln in e.lines if ln not in kept]
        if all(ln.startswith(ENTRY_PREFIX) for ln in kept + added):
            return kept + added
    return None
