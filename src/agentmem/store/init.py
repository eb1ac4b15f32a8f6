"""``agentmem init``: the layout of docs/design/overview.md §Repository layout created in a folder, with
its first commit. Apart from :mod:`agentmem.store.repo` so that opening a repository (every
command) does not build what only ``init`` returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentmem import trailers as tr
from agentmem.config import CONFIG_FILE, DEFAULT_CONFIG_TEXT
from agentmem.errors import UsageError
from agentmem.governance import ADMIN
from agentmem.store import gitio
from agentmem.store.atomic import atomic_write
from agentmem.store.repo import DOCTRINE_DIR, INBOX_DIR, MEMORY_DIR, ROLES_FILE
from agentmem.store.yamlio import dump_yaml


def _person_id_from_email(email: str) -> str:
    local = email.split("@")[0].lower()
    slug = re.sub(r"[^a-z0-9]+", "-", local).strip("-")[:64] or "me"
    return slug


@dataclass(frozen=True)
class InitResult:
    """What ``init`` did: ``created`` lists new relative paths; ``commit`` is None when nothing changed."""

    root: Path
    created: list[str]
    git_initialised: bool
    commit: str | None
    admin: str | None


GITIGNORE_LINES = (".agentmem/",)


def init_repository(path: Path) -> InitResult:
    """Create the layout of docs/design/overview.md §Repository layout at ``path`` (``git init`` where
    needed); idempotent.

    ``roles.yaml`` starts with the git identity running ``init`` as the first admin. Existing
    files are never overwritten. The created files are committed in one commit.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(
            f"{path} is a file, not a folder", hint="give a folder path to agentmem init"
        )
    path.mkdir(parents=True, exist_ok=True)

    # Identity first: a refusal must leave nothing behind (no half-made repository).
    _name, email = gitio.identity(path)
    git_initialised = False
    if not gitio.is_work_tree(path):
        gitio.init(path)
        git_initialised = True
    created: list[str] = []
    admin: str | None = None

    def create(rel: str, text: str) -> None:
        target = path / rel
        if target.exists():
            if not gitio.is_tracked(path, rel):
                created.append(rel)  # left by an interrupted init: commit it now
            return
        atomic_write(target, text)
        created.append(rel)

    create(CONFIG_FILE, DEFAULT_CONFIG_TEXT)
    if not (path / ROLES_FILE).exists():
        admin = _person_id_from_email(email)
        header = "# People and roles (user | member | admin): see agentmem's docs/guide/sync-and-settings.md.\n"
        create(ROLES_FILE, header + dump_yaml({admin: {"email": email, "role": ADMIN}}))
    else:
        create(ROLES_FILE, "")
    for folder in (MEMORY_DIR, DOCTRINE_DIR, INBOX_DIR):
        create(f"{folder}/.gitkeep", "")
    ignore = path / ".gitignore"
    existing = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
    missing = [ln for ln in GITIGNORE_LINES if ln not in existing.splitlines()]
    if missing:
        prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
        atomic_write(ignore, prefix + "".join(f"{ln}\n" for ln in missing))
        created.append(".gitignore")
    commit = None
    if created:
        message = tr.message("agentmem: initialise memory repository", [(tr.ACTION, "init")])
        commit = gitio.commit_paths(path, created, message)
    return InitResult(path.resolve(), created, git_initialised, commit, admin)
