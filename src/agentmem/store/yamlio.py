"""Read-only YAML loading: PyYAML's C safe loader, with duplicate keys refused.

Round-trip editing of doctrine files (comments kept) belongs to ruamel.yaml, not here.
"""

from __future__ import annotations

import os
import stat
from functools import cache

from agentmem.errors import ConfigError
from agentmem.lazyre import lazy_compile

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.store.hotcache import HotCache
    from agentmem.store.root import StrPath

MAX_YAML_BYTES = 1_000_000  # a hand-written settings or proposal file is never this large


@cache
def _strict_loader() -> Any:
    """PyYAML's safe loader (the C one where libyaml is there, with the same behaviour) that
    refuses duplicate keys instead of keeping the last one."""
    # lazy: PyYAML loads on the first parse: the hot path reads its settings from the hot cache
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[valid-type,misc]
        pass

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}'", key_node.start_mark
                )
            seen[key] = key_node.start_mark.line
        return dict(loader.construct_pairs(node, deep=deep))

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return StrictLoader


# Raw characters YAML reads as a line break and folds into a space inside a scalar: loading would
# change the text (NEXT LINE, a carriage return not followed by a line feed). agentmem's own
# files write them as escapes ("\\N", "\\r"). U+2028/U+2029 are kept as they are: not refused.
#: A line break YAML folds (compiled on first use: the hot path rarely needs it).
_FOLDED_BREAK = lazy_compile(r"\x85|\r(?!\n)")


def load_yaml_text(text: str, where: str, error: type[Exception] = ConfigError) -> Any:
    """Parse YAML text safely. Raises ``error`` with ``where:line: reason`` on any YAML fault,
    and on a raw U+0085 or lone carriage return, which the loader would fold into a space
    (refused, never rewritten: docs/design/guard.md §Guard)."""
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
    # lazy: PyYAML loads on the first parse (see _strict_loader)
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{where}{line}: invalid YAML: {problem}") from None


def load_yaml_file(
    path: StrPath,
    where: str | None = None,
    error: type[Exception] = ConfigError,
    cache: HotCache | None = None,
    read: dict[str, bytes] | None = None,
) -> Any:
    """Read and parse a YAML file; size-capped at :data:`MAX_YAML_BYTES`; errors as ``error``.
    With ``cache``, a text parsed before is not parsed again: the value stored under its
    SHA-256 is the value this function returned for it (:mod:`agentmem.store.hotcache`).
    With ``read``, the bytes read are put in it under ``where`` (for a caller that needs them
    again: the inbox's provenance), and the text is the one ``read_text`` gives."""
    where = where or os.fspath(path)
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            raise error(f"{where}: not a regular file; put the YAML file itself in its place")
        size = status.st_size
        if size > MAX_YAML_BYTES:
            raise error(f"{where}:1: file is {size:,} bytes; the limit is {MAX_YAML_BYTES:,}")
        if read is None:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        else:
            with open(path, "rb") as binary:
                data = binary.read()
            text = data.decode("utf-8")
            if "\r" in text:  # universal newlines, as read_text decodes
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            read[where] = data
    except UnicodeDecodeError:
        raise error(f"{where}:1: not UTF-8 text") from None
    except FileNotFoundError:
        raise error(f"{where}: file not found") from None
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if cache is None:
        return load_yaml_text(text, where, error)
    # lazy: the hot path only (the cache module is light; see agentmem.store.hotcache)
    from agentmem.store.hotcache import digest, same_after_json

    key = digest(text)
    found, value = cache.get("yaml", key)
    if found:
        return value
    value = load_yaml_text(text, where, error)
    if same_after_json(value):
        cache.put("yaml", key, value)
    return value


def dump_yaml(data: Any) -> str:
    """Canonical block-style YAML for files agentmem writes itself (keys in the given order)."""
    # lazy: PyYAML loads on first use (see _strict_loader)
    import yaml

    return yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
