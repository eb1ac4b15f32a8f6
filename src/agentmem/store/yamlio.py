"""Read-only YAML loading: PyYAML's C safe loader, with duplicate keys refused.

Round-trip editing of doctrine files (comments kept) belongs to ruamel.yaml, not here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from agentmem.errors import ConfigError

if TYPE_CHECKING:
    _BaseLoader = yaml.SafeLoader
else:  # the C loader where libyaml is there, with the same behaviour
    _BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_YAML_BYTES = 1_000_000  # a hand-written settings or proposal file is never this large


class _StrictLoader(_BaseLoader):
    """Safe loader that refuses duplicate keys instead of keeping the last one."""


def _construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}'", key_node.start_mark
            )
        seen[key] = key_node.start_mark.line
    return dict(loader.construct_pairs(node, deep=deep))


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# Raw characters YAML reads as a line break and folds into a space inside a scalar: loading would
# change the text (NEXT LINE, a carriage return not followed by a line feed). agentmem's own
# files write them as escapes ("\\N", "\\r"). U+2028/U+2029 are kept as they are: not refused.
_FOLDED_BREAK = re.compile(r"\x85|\r(?!\n)")


def load_yaml_text(text: str, where: str, error: type[Exception] = ConfigError) -> Any:
    """Parse YAML text safely. Raises ``error`` with ``where:line: reason`` on any YAML fault,
    and on a raw U+0085 or lone carriage return, which the loader would fold into a space
    (refused, never rewritten: docs/design.md §Guard)."""
    if "\x85" in text or "\r" in text:
        folded = _FOLDED_BREAK.search(text)
        if folded is not None:
            row = text.count("\n", 0, folded.start()) + 1
            what = "U+0085 (NEXT LINE)" if folded.group() == "\x85" else "carriage return"
            raise error(
                f"{where}:{row}: a raw {what} character, which YAML would read as a line break "
                "and fold into a space: refused, never rewritten (remove it, or write it as an "
                "escape in a double-quoted string)"
            )
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{where}{line}: invalid YAML: {problem}") from None


def load_yaml_file(
    path: Path, where: str | None = None, error: type[Exception] = ConfigError
) -> Any:
    """Read and parse a YAML file; size-capped at :data:`MAX_YAML_BYTES`; errors as ``error``."""
    where = where or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise error(f"{where}:1: file is {size:,} bytes; the limit is {MAX_YAML_BYTES:,}")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{where}:1: not UTF-8 text") from None
    except FileNotFoundError:
        raise error(f"{where}: file not found") from None
    return load_yaml_text(text, where, error)


def dump_yaml(data: Any) -> str:
    """Canonical block-style YAML for files agentmem writes itself (keys in the given order)."""
    return yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
