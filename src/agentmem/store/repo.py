"""The memory repository (docs/design/overview.md §Vocabulary, §Repository layout): finding it, its layout,
its people, and its lock.

A memory repository is a git work tree holding ``agentmem.yaml``. People and roles come from
``roles.yaml``; the actor is the person whose e-mail matches the git identity of whoever runs the
command — never a name read from a transcript or a model's answer.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cached_property

from agentmem.config import CONFIG_FILE, Config, load_config
from agentmem.errors import (
    AgentmemError,
    BusyError,
    ConfigError,
    GovernanceError,
    NotARepositoryError,
    UsageError,
)
from agentmem.frozen import Frozen
from agentmem.governance import ROLES
from agentmem.lazyre import lazy_compile
from agentmem.store import gitrun
from agentmem.store.paths import JOURNAL_DIR, JOURNAL_NAME, SLUG, check_slug
from agentmem.store.root import DOCTRINE_DIR as DOCTRINE_DIR
from agentmem.store.root import INBOX_DIR as INBOX_DIR
from agentmem.store.root import LOCAL_DIR as LOCAL_DIR
from agentmem.store.root import MEMORY_DIR as MEMORY_DIR
from agentmem.store.root import ROLES_FILE as ROLES_FILE
from agentmem.store.root import locate, upward
from agentmem.store.yamlio import load_yaml_file

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from pathlib import Path

    from agentmem.store.hotcache import HotCache
    from agentmem.store.root import StrPath

LOCK_TIMEOUT_SECONDS = 15.0
#: Beside the lock while it is held: which command holds it (``agentmem review (pid 4242)``), so
#: that one that waited in vain can say who is writing (:class:`BusyError`). Never a value the
#: person typed: the command's first word only, when it is a plain word.
HOLDER_FILE = "lock.holder"


#: What a holder file may say (compiled on first use: the hot path rarely needs it).
_HOLDER = lazy_compile(r"agentmem(?: [a-z][a-z-]{0,30}){0,2} \(pid [0-9]{1,10}\)")


_holder_name: list[str] = []


def name_lock_holder(name: str) -> None:
    """Say which front end holds the lock when this process writes (``agentmem serve``: the
    command line's first word would say only ``serve``); ``name`` is ``agentmem`` and plain
    lower-case words."""
    _holder_name[:] = [name]


def _holder_text() -> str:
    if _holder_name:
        name = _holder_name[0]
    else:
        args = sys.argv[1:]
        while args[:1] == ["--repo"] or (args[:1] and args[0].startswith("--repo=")):
            args = args[2:] if args[0] == "--repo" else args[1:]
        first = args[0] if args else ""
        name = "agentmem " + first if re.fullmatch(r"[a-z][a-z-]{0,30}", first) else "agentmem"
    return f"{name} (pid {os.getpid()})"


def lock_holder(root: StrPath) -> str | None:
    """The command that holds ``root``'s lock, as it wrote itself down (None when unknown)."""
    try:
        with open(os.path.join(root, LOCAL_DIR, HOLDER_FILE), encoding="ascii") as file:
            text = file.read()[:200].strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _HOLDER.fullmatch(text) else None


class Person(Frozen):
    """A key of ``roles.yaml``: ``id`` (slug), ``email``, ``role`` (user | member | admin)."""

    _fields = ("id", "email", "role", "name")
    id: str
    email: str
    role: str
    name: str

    def __init__(self, id: str, email: str, role: str, name: str = "") -> None:  # noqa: A002
        self._set(id=id, email=email, role=role, name=name)

    def signature(self) -> str:
        return f"{self.id} <{self.email}>"


def parse_roles(data: object, where: str) -> dict[str, Person]:
    """Validate a loaded ``roles.yaml``: ``{person: {email, role[, name][, signing_keys]}}``."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of people (alice: {{email: …, role: …}})")
    people: dict[str, Person] = {}
    emails: dict[str, str] = {}
    for pid, info in data.items():
        if not isinstance(pid, str) or not SLUG.match(pid):
            raise ConfigError(f"{where}: invalid person id {pid!r} (lower-case slug expected)")
        if not isinstance(info, dict):
            raise ConfigError(f"{where}: '{pid}' must be a mapping with email and role")
        unknown = set(info) - {"email", "role", "name", "signing_keys"}
        if unknown:
            raise ConfigError(f"{where}: unknown key '{pid}.{sorted(unknown)[0]}'")
        email, role = info.get("email"), info.get("role")
        if not isinstance(email, str) or "@" not in email:
            raise ConfigError(f"{where}: '{pid}.email' must be an e-mail address")
        if role not in ROLES:
            raise ConfigError(
                f"{where}: '{pid}.role' is {role!r}; expected one of {', '.join(ROLES)}"
            )
        key = email.strip().lower()
        if key in emails:
            raise ConfigError(f"{where}: '{pid}' and '{emails[key]}' share the e-mail {email}")
        emails[key] = pid
        people[pid] = Person(pid, email.strip(), role, str(info.get("name") or ""))
    return people


class Repository(Frozen):
    """An opened memory repository: ``root`` path and resolved ``config``; ``cache``, on the hot
    path, spares re-parsing ``roles.yaml`` (:mod:`agentmem.store.hotcache`); it is left out of
    equality, hash and repr. ``top`` is the root as a ``str``, what the hot path works on (with
    ``os.path``): given a ``str``, the ``Path`` is made on first use of ``root``, so that
    ``pathlib`` never loads on the hot path (docs/design/code.md §Hot path)."""

    _fields = ("root", "config", "cache")
    _compared = _shown = ("root", "config")
    top: str
    config: Config
    cache: HotCache | None

    def __init__(self, root: str | Path, config: Config, cache: HotCache | None = None) -> None:
        if isinstance(root, str):
            self._set(top=root, config=config, cache=cache)
        else:
            self._set(top=os.fspath(root), root=root, config=config, cache=cache)

    @cached_property
    def root(self) -> Path:
        """The root folder as a ``Path`` (the one given, else made from :attr:`top` once)."""
        # lazy: pathlib (~9 % of a session start) only for a caller that asks for a Path
        from pathlib import Path

        return Path(self.top)

    def without_cache(self) -> Repository:
        """The same repository reading every file itself (a permission never comes from the
        hot path's cache)."""
        return Repository(self.top, self.config)

    # -- layout -------------------------------------------------------------------------------
    def memory_path(self, person: str) -> Path:
        return self.root / MEMORY_DIR / f"{check_slug(person, 'person id')}.md"

    def memory_relpath(self, person: str) -> str:
        return f"{MEMORY_DIR}/{check_slug(person, 'person id')}.md"

    def inbox_dir(self, person: str) -> Path:
        return self.root / INBOX_DIR / check_slug(person, "person id")

    @property
    def local_dir(self) -> Path:
        path = self.root / LOCAL_DIR
        path.mkdir(exist_ok=True)
        return path

    # -- people -------------------------------------------------------------------------------
    def people(self) -> dict[str, Person]:
        path = os.path.join(self.top, ROLES_FILE)
        if not os.path.exists(path):
            return {}
        return parse_roles(load_yaml_file(path, ROLES_FILE, cache=self.cache), ROLES_FILE)

    def actor(self) -> Person:
        """The person running the command, from the git identity (*actor*,
        docs/design/overview.md §Vocabulary, §Roles)."""
        email = gitrun.user_email(self.top)
        for person in self.people().values():
            if person.email.lower() == email.lower():
                return person
        raise GovernanceError(
            f"your git identity <{email}> is not a person in roles.yaml",
            hint="ask an admin to add you to roles.yaml (person: {email: …, role: member})",
        )

    def person(self, person_id: str) -> Person:
        check_slug(person_id, "person id")
        people = self.people()
        if person_id not in people:
            raise UsageError(
                f"no person '{person_id}' in roles.yaml (known: {', '.join(people) or 'none'})"
            )
        return people[person_id]

    # -- lock ---------------------------------------------------------------------------------
    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        """The repository-level lock around read → validate → write → commit
        (docs/design/write-path.md §Write path).

        ``flock`` on ``.agentmem/lock``: the kernel releases it if the process dies. Once held,
        git's state is checked (:func:`gitio.check_state`: no rebase/merge in progress, no
        detached HEAD, no stale ``index.lock``) and an interrupted change is recovered from the
        journal (:func:`agentmem.store.journal.recover`) — before the caller writes anything.
        Re-entrant within one thread. ``timeout`` in seconds defaults to
        ``$AGENTMEM_LOCK_TIMEOUT`` or 15. Raises
        :class:`BusyError` after it, :class:`GitError` for git's state.
        """
        # lazy: only writers take the lock; reading commands never pay for filelock's import
        from filelock import FileLock, Timeout

        # One instance per path (is_singleton): nested use in one thread re-enters instead of
        # waiting on itself; other threads and processes wait.
        lock = FileLock(str(self.local_dir / "lock"), is_singleton=True)
        try:
            lock.acquire(timeout=_lock_timeout(timeout))
        except Timeout:
            holder = lock_holder(self.root)
            raise BusyError(
                "another agentmem command is writing to this repository"
                + (f": {holder}" if holder else ""),
                hint="retry in a moment (or raise AGENTMEM_LOCK_TIMEOUT, in seconds)",
            ) from None
        first = lock.lock_counter == 1
        holder_path = self.local_dir / HOLDER_FILE
        try:
            if first:
                with suppress(OSError):  # a courtesy to whoever waits, never a reason to fail
                    holder_path.write_text(_holder_text(), encoding="ascii")
                # lazy: the journal and the git adapter load when something may be written
                from agentmem.store import gitio, journal

                gitio.check_state(self.root)
                journal.recover(self.root)
            yield
        finally:
            if first:
                with suppress(OSError):
                    holder_path.unlink()
            lock.release()


def _lock_timeout(explicit: float | None) -> float:
    if explicit is not None:
        return explicit
    raw = os.environ.get("AGENTMEM_LOCK_TIMEOUT", "")
    try:
        return float(raw) if raw else LOCK_TIMEOUT_SECONDS
    except ValueError:
        raise ConfigError(f"AGENTMEM_LOCK_TIMEOUT={raw!r}: expected a number of seconds") from None


def open_repository(explicit: StrPath | None = None, *, hot: bool = False) -> Repository:
    """Open the repository at ``explicit`` (``--repo``), ``$AGENTMEM_REPO``, or found from cwd.
    ``hot``: with the hot path's cache (:func:`hot_repository`)."""
    root = locate(explicit)
    if not _in_work_tree(root):
        raise NotARepositoryError(
            f"{root} has {CONFIG_FILE} but is not in a git work tree",
            hint=f"run 'agentmem init {root}' (it runs git init and keeps your files)",
        )
    repo = hot_repository(root) if hot else Repository(root, load_config(root))
    _recover_if_pending(repo)
    return repo


def _in_work_tree(root: str) -> bool:
    """True when ``root`` (resolved) or a folder above it holds ``.git``."""
    return any(os.path.exists(os.path.join(folder, ".git")) for folder in upward(root))


def hot_repository(root: str | Path) -> Repository:
    """The repository at ``root`` with the hot path's cache (``.agentmem/hotcache.json``) for
    its settings and roles; the caller saves the cache when done."""
    # lazy: only the hot path keeps a cache (and pays for hashlib)
    from agentmem.store.hotcache import HotCache

    cache = HotCache(os.path.join(root, LOCAL_DIR))
    return Repository(root, load_config(root, cache=cache), cache)


def _recover_if_pending(repo: Repository) -> None:
    """Every command first recovers (docs/design/write-path.md §Write path). Costs one stat when nothing is
    pending; otherwise recovers under the lock if it is free now. Never blocks nor fails a read:
    when the lock is busy or git is mid-operation, the next mutating command recovers (or says
    why)."""
    dot_git = os.path.join(repo.top, ".git")
    if os.path.isdir(dot_git) and not os.path.exists(
        os.path.join(dot_git, JOURNAL_DIR, JOURNAL_NAME)
    ):
        return  # the common layout, one stat: the journal module is not even loaded

    # lazy: the SessionStart hook opens the repository without it (hot_repository)
    from agentmem.store import journal

    if not journal.has_pending(repo.root):
        return
    try:
        with repo.locked(timeout=0):
            pass
    except AgentmemError:
        return
