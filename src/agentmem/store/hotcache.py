"""Results the hot path would otherwise recompute at every session start, kept by content in
``.agentmem/hotcache.json`` (docs/design/code.md §Hot path; docs/decisions/0062).

A value is stored under the SHA-256 of the exact input it was computed from (and, for the
guard, a fingerprint of the guard's own code), so a hit is the very value the authority gave for
those bytes: nothing is ever "probably still valid". Two kinds:

- ``yaml``: what :func:`agentmem.store.yamlio.load_yaml_text` returned for a settings or roles
  text, kept only when it survives a JSON round trip unchanged (no dates, no non-string keys);
- ``withhold``: why :func:`agentmem.delivery.context.withhold_reason` refused one entry text
  (a refusal only: a pass is never kept nor read, the guard runs again);
- ``judged``: the history judge's verdict on a commit (:mod:`agentmem.delivery.served`, which
  takes an approval only as its rules say).

The file is local (``.agentmem/`` is never committed) and optional: unreadable, broken or not
writable, it is ignored and everything is computed as without it. Standard library only; no
dataclasses (the hot path does not import them for this).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from importlib.util import find_spec

from agentmem.errors import AgentmemError
from agentmem.store import regular

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.store.root import StrPath

CACHE_FILE = "hotcache.json"
#: The hot path's output memo an older agentmem wrote (it held memory text): ``erase`` deletes
#: it (docs/decisions/ — one cache on the hot path).
LEGACY_MEMO = "hotread.json"
#: Entries kept per kind; the oldest go first.
MAX_ENTRIES = 512
_FORMAT = 1


def digest(text: str) -> str:
    """The key of ``text``: its SHA-256 in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def same_after_json(value: Any) -> bool:
    """True when ``value`` comes back from JSON exactly as it is (types included)."""
    try:
        back = json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return False
    return _same(value, back)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


class HotCache:
    """The cache of one repository; :meth:`save` writes it back when something was added."""

    def __init__(self, local_dir: StrPath) -> None:
        self.path = os.path.join(local_dir, CACHE_FILE)
        self._kinds: dict[str, dict[str, Any]] | None = None
        self._dirty = False

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._kinds is None:
            kinds: dict[str, dict[str, Any]] = {}
            try:
                # regular files only: a named pipe put there would block the session start
                read = regular.read_listed(self.path, CACHE_FILE)
                data = json.loads(read.data) if read is not None else None
                if isinstance(data, dict) and data.get("format") == _FORMAT:
                    kinds = {
                        k: v
                        for k, v in data.items()
                        if k != "format" and isinstance(k, str) and isinstance(v, dict)
                    }
            except (AgentmemError, OSError, ValueError):
                pass
            self._kinds = kinds
        return self._kinds

    def get(self, kind: str, key: str) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` is cached under ``kind``, else ``(False, None)``."""
        entries = self._load().get(kind, {})
        if key in entries:
            return True, entries[key]
        return False, None

    def put(self, kind: str, key: str, value: Any) -> None:
        entries = self._load().setdefault(kind, {})
        entries.pop(key, None)
        entries[key] = value
        while len(entries) > MAX_ENTRIES:
            del entries[next(iter(entries))]
        self._dirty = True

    def save(self) -> None:
        """Write the cache when it changed: a whole new file renamed over the old one; any
        failure leaves the cache as it was (it is only a cache)."""
        if not self._dirty or self._kinds is None:
            return
        folder = os.path.dirname(self.path)
        temp = os.path.join(folder, f"{CACHE_FILE}.{os.getpid()}.tmp")
        try:
            os.makedirs(folder, exist_ok=True)
            with open(temp, "w", encoding="utf-8") as file:
                file.write(json.dumps({"format": _FORMAT, **self._kinds}, ensure_ascii=False))
            os.replace(temp, self.path)
            self._dirty = False
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def purge(root: StrPath) -> list[str]:
    """Delete the cache (and an older version's memo); returns the relative paths removed
    (``erase``: the settings it parsed may name the person)."""
    removed = []
    for name in (CACHE_FILE, LEGACY_MEMO):
        path = os.path.join(root, ".agentmem", name)
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        removed.append(f".agentmem/{name}")
    return removed


def guard_fingerprint() -> str:
    """Names, sizes and modification times of what decides whether an entry is withheld
    (:func:`fingerprint_files`). Any of them changed makes every ``withhold`` entry a miss.
    Computed once per process."""
    if not _FINGERPRINT:
        parts = []
        for path in fingerprint_files():
            try:
                info = os.stat(path)
            except OSError:
                parts.append(f"{path}:missing")
                continue
            parts.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
        _FINGERPRINT.append(digest("\n".join(parts)))
    return _FINGERPRINT[0]


def fingerprint_files() -> list[str]:
    """What decides whether an entry is withheld, sorted: the guard's source files
    (``agentmem/guard/*.py``) and vocabulary (``guard/data/personal.json``),
    ``agentmem/delivery/context.py`` (the delimiter rule), and the word lists the personal-data
    check reads (gender-guesser's first names ``nam_dict.txt``, pyspellchecker's frequency lists
    of the four languages). Paths as strings (``os.path``): every session start computes it."""
    join = os.path.join
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    files = [join(package, "delivery", "context.py")]
    try:
        with os.scandir(join(package, "guard")) as found:
            files += [e.path for e in found if e.name.endswith(".py")]
    except OSError:
        pass

    files.append(join(package, "guard", "data", "personal.json"))
    names = find_spec("gender_guesser")
    if names is not None and names.origin:
        files.append(join(os.path.dirname(names.origin), "data", "nam_dict.txt"))
    words = find_spec("spellchecker")
    if words is not None and words.origin:
        lists = join(os.path.dirname(words.origin), "resources")
        files += [join(lists, f"{lang}.json.gz") for lang in ("en", "fr", "es", "de")]
    return sorted(files)


_FINGERPRINT: list[str] = []
