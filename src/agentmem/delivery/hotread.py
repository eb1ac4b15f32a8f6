"""The hot path's memo (docs/design/code.md §Hot path; docs/decisions/, 2026-12-01 — the hot path
answers from a memo of its own output): a SessionStart hook or ``context chat`` run on the very
inputs of an earlier run prints what that run printed, without parsing or judging anything
again and without building a single dataclass.

The memo, ``.agentmem/hotread.json`` (local, never committed, optional), keeps the last
:data:`MAX_ENTRIES` outputs, each with every input it was computed from, as that run read them:

- the command line (``context chat``'s format, ``--person`` and ``--scope``), the repository's
  folder, ``$AGENTMEM_SCOPE``, ``$AGENTMEM_MODEL`` and ``$AGENTMEM_PROVIDER``;
- the texts of ``agentmem.yaml`` and ``roles.yaml``, the git identity (``git config
  user.email``), the memory file's text (or its absence);
- the scope the session was given (``$AGENTMEM_SCOPE``, else the folder map of
  ``agentmem.yaml``, resolved again from the session's folder at every start), and the
  session's folder itself when the output names it (the ``systemMessage`` of a start that
  gives no entry);
- the day range over which no entry changes state: from the day it was computed to the first
  review, expiry or scope retirement after it (:attr:`ChatContext.changes_on`);
- Python's version and the size and modification time of every agentmem module that computed
  it and of what the guard judges with (:func:`agentmem.store.hotcache.fingerprint_files`).

A run whose inputs are all equal (texts compared whole, not by hash) takes the stored output;
anything else, or any doubt (a broken memo, an unreadable file, a ``.git`` that is not a plain
folder, a pending write journal), runs the full path, which stores its output when it succeeded
and saw each input once. Errors are never stored: they are computed every time. The usage line
is written at every run, with its own run id and time. Standard library, and agentmem modules
that are too, only: this module is what a session start loads when nothing changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem.delivery.usagelog import chat_stamp, write_chat
from agentmem.errors import AgentmemError
from agentmem.store import gitrun, regular
from agentmem.store.paths import JOURNAL_DIR, JOURNAL_NAME
from agentmem.store.root import CONFIG_FILE, LOCAL_DIR, ROLES_FILE
from agentmem.store.yamlio import MAX_YAML_BYTES

if TYPE_CHECKING:
    from agentmem.delivery.context import ChatContext
    from agentmem.store.hotcache import HotCache

MEMO_FILE = "hotread.json"
#: Outputs kept (a session start per folder scope, and each ``context chat`` line).
MAX_ENTRIES = 8
#: The environment variables the full path reads, besides ``$AGENTMEM_REPO`` (the folder is
#: compared instead) and ``$AGENTMEM_TODAY`` (the day range is).
ENV = ("AGENTMEM_SCOPE", "AGENTMEM_MODEL", "AGENTMEM_PROVIDER")
#: The formats of ``context chat`` (:func:`agentmem.delivery.context.check_format`).
FORMATS = ("text", "markdown", "json")
SESSION_START = "session-start"
CONTEXT_CHAT = "context chat"
_FORMAT = 1

#: What a hot command prints: stdout, notes, warnings (before the usage line's own), and the
#: usage line to write (:func:`agentmem.delivery.usagelog.chat_line`; None: nothing is logged).
Found = tuple[str, tuple[str, ...], tuple[str, ...], dict[str, Any] | None]


def scope_for_folder(scopes: Sequence[Sequence[str]], folder: str | None, root: Path) -> str | None:
    """The scope of a session run in ``folder`` from ``agentmem.yaml``'s ``scopes:`` map
    (``(folder, scope)`` pairs): the longest mapped folder that is ``folder`` or holds it
    (``~`` expanded, relative folders read from the repository ``root``); None when none does."""
    if not scopes or not folder:
        return None
    here = Path(folder).expanduser().resolve()
    best: tuple[int, str] | None = None
    for mapped, scope in scopes:
        path = resolved_folder(mapped, root)
        if (here == path or path in here.parents) and (best is None or len(path.parts) > best[0]):
            best = (len(path.parts), scope)
    return best[1] if best else None


def resolved_folder(folder: str, root: Path) -> Path:
    """A folder of the ``scopes:`` map as a path of this system (``~`` expanded, a relative
    folder read from the repository ``root``), resolved."""
    path = Path(folder).expanduser()
    return (path if path.is_absolute() else root / path).resolve()


def folder_key(folder: str, root: Path) -> str | None:
    """How ``folder`` (a session's folder) is written in the ``scopes:`` map: relative to the
    repository ``root`` when inside it (every clone reads it the same), ``~/…`` when under the
    home folder (each person's own), else absolute; None when it is not an absolute path of
    this system (a Windows folder read on Linux: it could never match a session here)."""
    path = Path(folder).expanduser()
    if not path.is_absolute():
        return None
    here = path.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):
        home = None
    for base, prefix in ((root.resolve(), ""), (home, "~")):
        if base is None:
            continue
        if here == base:
            return prefix or "."
        if base in here.parents:
            rel = here.relative_to(base).as_posix()
            return f"{prefix}/{rel}" if prefix else rel
    return str(here)


def shown_folder(folder: str) -> str:
    """``folder`` as a person types it in a command: ``~/…`` under the home folder, else
    absolute (a path of another system as it is written)."""
    path = Path(folder).expanduser()
    if not path.is_absolute():
        return folder
    here = path.resolve()
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):
        return str(here)
    if here == home:
        return "~"
    return f"~/{here.relative_to(home).as_posix()}" if home in here.parents else str(here)


def _env() -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in ENV}


def _today() -> str | None:
    """Today as the full path counts it (``$AGENTMEM_TODAY``, else the UTC date); None for a
    ``$AGENTMEM_TODAY`` other than a plain ``YYYY-MM-DD`` day (the full path refuses it)."""
    value = os.environ.get("AGENTMEM_TODAY")
    if not value:
        return datetime.now(UTC).date().isoformat()
    digits = value[:4] + value[5:7] + value[8:]
    plain = len(value) == 10 and value[4] == value[7] == "-"
    if not (plain and digits.isascii() and digits.isdigit()):
        return None
    try:
        date.fromisoformat(value)  # 2026-13-45 is refused by the full path
    except ValueError:
        return None
    return value


def _settings_text(path: Path) -> str | None:
    """The text :func:`agentmem.store.yamlio.load_yaml_file` would parse (UTF-8, newlines
    translated as ``Path.read_text`` does); None when it would refuse it, it is missing, or it
    is not a regular file (opened without blocking: a named pipe there must not hang a start)."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), encoding="utf-8") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_YAML_BYTES:
                return None
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _code() -> list[list[Any]] | None:
    """``[path, size, mtime_ns]`` of every agentmem module loaded (the CLI's aside: it only
    prints) and of what the guard judges with; None when one cannot be read (a module in a
    zip archive: a change could not be seen, so nothing is stored)."""
    # lazy: the full path only, which has loaded it already
    from agentmem.store.hotcache import fingerprint_files

    files = {
        str(module.__file__)
        for name, module in list(sys.modules.items())
        if (name == "agentmem" or name.startswith("agentmem."))
        and not name.startswith("agentmem.cli")
        and getattr(module, "__file__", None)
    }
    files.update(str(path) for path in fingerprint_files())
    found = []
    for path in sorted(files):
        try:
            info = os.stat(path)
        except OSError:
            return None
        found.append([path, info.st_size, info.st_mtime_ns])
    return found


def _same_code(code: list[list[Any]]) -> bool:
    """Every file of ``code`` as it was (size and modification time, as Python's own byte-code
    cache judges a module), and this very copy of agentmem among them: another copy (another
    virtual environment, ``PYTHONPATH`` pointing elsewhere) may print something else, even
    while the copy that computed the output is still there unchanged."""
    if not any(path == __file__ for path, _size, _mtime in code):
        return False
    for path, size, mtime in code:
        try:
            info = os.stat(path)
        except OSError:
            return False
        if (info.st_size, info.st_mtime_ns) != (size, mtime):
            return False
    return True


def _plain_git(root: Path) -> bool:
    """What ``open_repository`` checks before a ``context chat``, when it needs nothing more:
    ``.git`` is a folder and no write journal is pending (else the full path decides)."""
    dot_git = root / ".git"
    return dot_git.is_dir() and not (dot_git / JOURNAL_DIR / JOURNAL_NAME).exists()


def _load(root: Path) -> list[dict[str, Any]]:
    """The memo's entries; none when it is missing, unreadable, not JSON, or not a regular file
    (a named pipe put there would block the session start)."""
    try:
        read = regular.read_listed(root / LOCAL_DIR / MEMO_FILE, f"{LOCAL_DIR}/{MEMO_FILE}")
        data = json.loads(read.data) if read is not None else None
    except (AgentmemError, OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return []
    entries = data.get("entries")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def recall(
    root: Path, command: str, options: Sequence[str | None], cwd: str | None
) -> Found | None:
    """The stored output of ``command`` run with ``options`` in ``root`` (a session in folder
    ``cwd``), when every input it was computed from is the same now; else None (run the full
    path). Never raises: a memo that cannot be read is no memo."""
    try:
        return _recall(root, command, list(options), cwd)
    except Exception:  # noqa: BLE001 - a cache never breaks a command: the full path runs
        return None


def _recall(root: Path, command: str, options: list[str | None], cwd: str | None) -> Found | None:
    entries = _load(root)
    env = _env()
    entries = [
        e
        for e in entries
        if e.get("command") == command
        and e.get("options") == options
        and e.get("env") == env
        and e.get("root") == str(root)
        and e.get("python") == sys.version
    ]
    if not entries:
        return None
    config, roles = _settings_text(root / CONFIG_FILE), _settings_text(root / ROLES_FILE)
    today = _today()
    if config is None or roles is None or today is None:
        return None
    if command == CONTEXT_CHAT and not _plain_git(root):
        return None
    scope_given = bool((env["AGENTMEM_SCOPE"] or "").strip())
    entries = [
        e
        for e in entries
        if e.get("config") == config
        and e.get("roles") == roles
        and e["day"] <= today
        and (e["until"] is None or today < e["until"])
        and (
            command != SESSION_START
            or scope_given
            or scope_for_folder(e["scopes"], cwd or os.getcwd(), root) == e["scope"]
        )
        and e.get("folder") in (None, cwd or os.getcwd())
        and _same_code(e["code"])
    ]
    if not entries:
        return None
    if command == CONTEXT_CHAT and options[1] is not None:
        return None  # another person's block: who may read it is decided from roles.yaml
    email = gitrun.run(root, ["config", "user.email"], None, None, text=True).stdout.strip()
    for entry in entries:
        if entry["email"] != email:
            continue
        if regular.read_text(root, entry["file"], universal_newlines=True) != entry["memory"]:
            continue
        answer = _answer(entry)
        if answer is not None and _checked(root, entry, answer[0]):
            return answer
    return None


def _checked(root: Path, entry: dict[str, Any], stdout: str) -> bool:
    """The stored output checked against its source before it is printed (docs/design/served.md
    §Served view): the served blob as the served view gives it now, and the block one that
    could have been rendered from that blob's text."""
    # lazy: the served view (standard library, the git runner and the cache)
    from agentmem.delivery import served
    from agentmem.store.hotcache import HotCache

    relpath = entry["file"]
    if not (
        isinstance(relpath, str) and relpath.startswith("memories/") and relpath.endswith(".md")
    ):
        return False
    owner = relpath[len("memories/") : -len(".md")]
    cache = HotCache(root / LOCAL_DIR)
    now = served.serve_file(root, relpath, owner, cache, served.FIX_MEMORY)
    cache.save()
    if now.blob != entry.get("blob") or now.work != entry["memory"]:
        return False
    if list(now.notes) != entry.get("notes"):
        return False
    return served.consistent(stdout, now.text, owner)


def _answer(entry: dict[str, Any]) -> Found | None:
    """What ``entry`` printed, when it has the shape :func:`remember` writes (texts, lists of
    texts, a usage line or None); else None: a memo changed by hand is no memo."""
    printed, usage = entry["printed"], entry["usage"]
    if not (isinstance(printed, list) and len(printed) == 3):
        return None
    stdout, notes, warnings = printed
    lines = (*notes, *warnings) if isinstance(notes, list) and isinstance(warnings, list) else (0,)
    if not isinstance(stdout, str) or not all(isinstance(line, str) for line in lines):
        return None
    if usage is not None and not isinstance(usage, dict):
        return None
    return stdout, tuple(notes), tuple(warnings), usage


def remember(
    root: Path,
    cache: HotCache | None,
    command: str,
    options: Sequence[str | None],
    ctx: ChatContext,
    scopes: Sequence[tuple[str, str]],
    found: Found,
    folder: str | None = None,
) -> None:
    """Store ``found``, what the full path printed for ``ctx``, when ``cache`` saw each input
    once (:meth:`agentmem.store.hotcache.HotCache.saw`); a failure to write is ignored.
    ``folder``: the session's folder when the output names it (else any folder, with the same
    scope from the map, gets it)."""
    if cache is None:
        return
    inputs = {}
    for name in (CONFIG_FILE, ROLES_FILE, gitrun.IDENTITY, ctx.path):
        known, text = cache.seen(name)
        if not known or (text is None and name != ctx.path):
            return
        inputs[name] = text
    code = _code()
    if code is None:
        return
    stdout, notes, warnings, usage = found
    entry = {
        "command": command,
        "options": list(options),
        "env": _env(),
        "root": str(root),
        "python": sys.version,
        "config": inputs[CONFIG_FILE],
        "roles": inputs[ROLES_FILE],
        "email": inputs[gitrun.IDENTITY],
        "scopes": [list(pair) for pair in scopes],
        "scope": ctx.scope,
        "folder": folder,
        "file": ctx.path,
        "memory": inputs[ctx.path],
        "blob": ctx.blob,
        "notes": list(ctx.notes),
        "day": ctx.day,
        "until": ctx.changes_on,
        "printed": [stdout, list(notes), list(warnings)],
        "usage": None if usage is None else {**usage, "run_id": "", "time": ""},
        "code": code,
    }
    same = ("command", "options", "env", "root", "scope", "folder")
    kept = [e for e in _load(root) if any(e.get(k) != entry[k] for k in same)]
    _save(root, [entry, *kept][:MAX_ENTRIES])


def _save(root: Path, entries: list[dict[str, Any]]) -> None:
    """A whole new file renamed over the old one; any failure leaves the memo as it was."""
    path = root / LOCAL_DIR / MEMO_FILE
    temp = path.with_name(f"{MEMO_FILE}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        temp.write_text(
            json.dumps({"format": _FORMAT, "entries": entries}, ensure_ascii=False),
            encoding="utf-8",
        )
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


def log(root: Path, usage: dict[str, Any]) -> str | None:
    """Write a chat block's usage line (``usage`` with a new run id and time):
    :func:`agentmem.delivery.usagelog.write_chat`."""
    line = dict(usage)
    line["run_id"], line["time"] = chat_stamp()
    return write_chat(root, line)


def purge(root: Path) -> list[str]:
    """Delete the memo; returns the relative paths removed (``erase``: it holds memory text)."""
    path = root / LOCAL_DIR / MEMO_FILE
    try:
        path.unlink()
    except FileNotFoundError:
        return []
    return [f"{LOCAL_DIR}/{MEMO_FILE}"]
