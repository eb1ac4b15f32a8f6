"""``agentmem remember`` under a held lock (docs/design/write-path.md §Write path, *Bounded work*): the text
is never lost. When the repository lock stays taken past ``AGENTMEM_LOCK_TIMEOUT``, remember
checks the text (its shape and the guard: a refused text is refused now, never kept), writes it
to ``.agentmem/spool/<time>-<hex>.json`` (atomically, no lock needed: the folder is local and
untracked) and starts one background ``python -m agentmem.proposals.spool ROOT`` that waits for
the lock (up to :data:`DRAIN_WAIT_S`) and files every spooled text of the person into their inbox
as ``remember`` does (validated, one commit each). Any later ``remember`` drains the spool too.
A spooled text that validation refuses when it is filed (a repeat of an entry accepted
meanwhile) moves to ``.agentmem/spool/refused/`` with the reason, and the next ``remember``
says so: nothing disappears in silence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from secrets import token_hex

from agentmem import guard
from agentmem.apply.planner import check_entry
from agentmem.errors import AgentmemError, ProposalError
from agentmem.governance import require_memory_role
from agentmem.proposals.ids import check_session
from agentmem.proposals.model import Proposal
from agentmem.proposals.review import remember
from agentmem.store.atomic import atomic_delete, atomic_write
from agentmem.store.repo import Person, Repository, open_repository

SPOOL_DIR = "spool"
#: Seconds the background drainer waits for the lock before leaving the texts spooled (the
#: next ``remember`` files them).
DRAIN_WAIT_S = 3600


@dataclass(frozen=True)
class Drained:
    """What a drain did: ``filed`` proposals and ``refused`` ``(spool file name, reason)``."""

    filed: tuple[Proposal, ...]
    refused: tuple[tuple[str, str], ...]


def spool_folder(repo: Repository) -> Path:
    return repo.local_dir / SPOOL_DIR


def keep(repo: Repository, actor: Person, text: str, section: str | None, session: str) -> Path:
    """A ``remember`` that found the lock taken, from any door (the CLI, the MCP server): the
    text is checked now as ``remember`` checks it (role, session, section, entry shape, the
    guard: a refused text is refused now, never kept), spooled, and one background drainer
    started; returns the spooled file."""

    require_memory_role(actor, "remembering (a personal memory)")
    check_session(session)
    config = repo.config.memory
    chosen = section or config.sections[0]
    if chosen not in config.sections:
        raise ProposalError(f"unknown section {chosen!r} (sections: {', '.join(config.sections)})")
    check_entry(text, config, "remember")
    guard.check_personal(text, where="remember")
    path = spool(repo, actor.id, text, chosen, session)
    start_drainer(repo.root)
    return path


def spool(repo: Repository, person: str, text: str, section: str, session: str) -> Path:
    """Keep one ``remember`` for later (see the module docstring); returns its file."""
    now = datetime.now(UTC)
    folder = spool_folder(repo)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{now:%Y%m%dT%H%M%S%f}-{token_hex(3)}.json"
    record = {"person": person, "text": text, "section": section, "session": session}
    atomic_write(path, json.dumps(record, ensure_ascii=False) + "\n")
    return path


def spooled(repo: Repository, person: str) -> list[Path]:
    """The spool files of ``person``, oldest first (a file that cannot be read is skipped)."""
    folder = spool_folder(repo)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        record = _record(path)
        if record is not None and record.get("person") == person:
            found.append(path)
    return found


def drain(repo: Repository, actor: Person) -> Drained:
    """File ``actor``'s spooled texts into their inbox, oldest first, as ``remember`` does. The
    caller holds the repository lock."""
    filed: list[Proposal] = []
    refused: list[tuple[str, str]] = []
    for path in spooled(repo, actor.id):
        record = _record(path) or {}
        try:
            filed.append(
                remember(
                    repo,
                    actor,
                    str(record.get("text", "")),
                    str(record.get("section", repo.config.memory.sections[0])),
                    str(record.get("session", "manual")),
                )
            )
        except AgentmemError as exc:
            target = spool_folder(repo) / "refused" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, json.dumps({**record, "refused": exc.message}) + "\n")
            refused.append((path.name, exc.message))
        atomic_delete(path)
    return Drained(tuple(filed), tuple(refused))


def refused_texts(repo: Repository, person: str) -> list[tuple[str, str]]:
    """``(text, reason)`` of the person's spooled texts refused when they were filed."""
    folder = spool_folder(repo) / "refused"
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        record = _record(path)
        if record is not None and record.get("person") == person:
            found.append((str(record.get("text", "")), str(record.get("refused", ""))))
    return found


def start_drainer(root: Path) -> None:
    """One detached process that waits for the lock and drains the spool (never waited for)."""
    env = {**os.environ, "AGENTMEM_LOCK_TIMEOUT": str(DRAIN_WAIT_S)}
    subprocess.Popen(  # noqa: S603 — our own interpreter and module, no shell
        [sys.executable, "-m", "agentmem.proposals.spool", str(root)],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _record(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _main(argv: list[str]) -> int:
    repo = open_repository(Path(argv[0]) if argv else None)
    actor = repo.actor()
    try:
        with repo.locked():
            drain(repo, actor)
    except AgentmemError:
        return 1  # still busy after DRAIN_WAIT_S: the texts stay spooled for the next remember
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
