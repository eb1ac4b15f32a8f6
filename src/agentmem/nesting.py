"""How deep a parsed JSON value may nest (docs/design/write-path.md §Write path, *Bounded work*): hook
payloads, MCP arguments and JSON transcripts nested beyond :data:`MAX_DEPTH` levels are refused
by name, never walked (a reader that recurses would meet Python's recursion limit)."""

from __future__ import annotations

#: Levels of arrays and objects a JSON value may hold (``{"a": [1]}`` is 2).
MAX_DEPTH = 32


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (what ``json.loads`` returns) nests more than ``limit`` levels of lists
    and dicts. Iterative, and it stops at the first branch past the limit."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = list(item)
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return False
