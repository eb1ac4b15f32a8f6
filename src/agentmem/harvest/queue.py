"""The harvest queue (docs/design/harvest.md §Harvest): sessions that ended, waiting for ``harvest
--queue``.

Claude Code gives a ``SessionEnd`` hook 1.5 s and discards its output, and a transcript is
written asynchronously, so the hook only appends one line to ``.agentmem/queue.jsonl``; the
harvest runs later. Two local, git-ignored files in ``.agentmem/``:

- ``queue.jsonl`` — one :class:`QueuedSession` a line (``session_id``, ``transcript_path``,
  ``cwd``, ``reason``, ``event``, ``queued_at``); a session may be queued several times
  (``PreCompact`` then ``SessionEnd``): the last line wins. ``harvest --queue`` appends a
  ``refused`` line (``session_id``, ``transcript_path``, ``refused``: the reason,
  ``refused_at``) for a transcript it refused (no turn, unknown format): the session is no
  longer queued, until a hook queues it again.
- ``harvested.jsonl`` — one :class:`HarvestRecord` a line per harvested session, written by
  ``harvest`` and ``harvest --queue``. A session id found there, or in the ``Agentmem-Session``
  trailer of an ``inbox(...)`` propose commit, is never harvested again.

This module is on the hook's hot path: it imports nothing beyond the standard library and
``agentmem.errors`` at module level (no git, no YAML, no config).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from agentmem import trailers as tr
from agentmem.errors import AgentmemError, UsageError
from agentmem.harvest.payload import PAYLOAD_MAX_BYTES as PAYLOAD_MAX_BYTES
from agentmem.harvest.payload import SESSION_ID
from agentmem.harvest.payload import HookPayload as HookPayload
from agentmem.harvest.payload import HookPayloadError as HookPayloadError
from agentmem.harvest.payload import parse_payload as parse_payload

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from agentmem.store.root import StrPath

LOCAL_DIR = ".agentmem"
QUEUE_FILE = "queue.jsonl"
HARVESTED_FILE = "harvested.jsonl"
#: Hook events whose payload is queued, and the field that says why the session stopped.
QUEUED_EVENTS = {"SessionEnd": "reason", "PreCompact": "trigger"}


@dataclass(frozen=True)
class QueuedSession:
    """One line of ``queue.jsonl``; ``queued_at`` is ISO 8601 UTC."""

    session_id: str
    transcript_path: str
    cwd: str | None
    reason: str | None
    event: str | None
    queued_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class HarvestRecord:
    """One line of ``harvested.jsonl``: a session harvested once, by whom, with what result."""

    session_id: str
    transcript_path: str
    harvested_at: str
    actor: str
    proposals: int
    commit: str | None
    forgotten: bool = False
    #: proposals the guard refused, by the class of its finding (``secret``, ``injection`` …)
    refused: dict[str, int] = field(default_factory=dict)
    #: proposals refused for another reason (schema, section, target, repeats, budget).
    invalid: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _append_line(path: StrPath, record: dict[str, Any]) -> None:
    """Append one JSON line with a single ``write`` on an ``O_APPEND`` descriptor, so that
    concurrent hooks never interleave their lines; fsync so a crash cannot lose it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def enqueue(root: StrPath, payload: HookPayload) -> QueuedSession:
    """Append ``payload`` to ``root/.agentmem/queue.jsonl``; returns the line written."""
    entry = QueuedSession(
        payload.session_id,
        payload.transcript_path,
        payload.cwd,
        payload.reason,
        payload.event,
        _now(),
    )
    _append_line(os.path.join(root, LOCAL_DIR, QUEUE_FILE), entry.to_dict())
    return entry


def _read_lines(path: StrPath) -> tuple[list[dict[str, Any]], list[int]]:
    """The JSON objects of a JSONL file and the numbers of the lines that are not (a torn last
    line after a crash, a hand edit). Missing file: nothing."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            raw = file.read()
    except FileNotFoundError:
        return [], []
    records: list[dict[str, Any]] = []
    bad: list[int] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            bad.append(number)
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            bad.append(number)
    return records, bad


@dataclass(frozen=True)
class QueueState:
    """The queue as read: ``sessions`` (one per session id, last line wins, in first-queued
    order), ``bad_lines`` (unreadable line numbers of ``queue.jsonl``)."""

    sessions: list[QueuedSession]
    bad_lines: list[int]
    #: session ids whose transcript was refused and that were not queued again since
    refused: list[str] = field(default_factory=list)


def read_queue(root: StrPath) -> QueueState:
    """Every queued session of ``root/.agentmem/queue.jsonl``, harvested or not."""
    records, bad = _read_lines(os.path.join(root, LOCAL_DIR, QUEUE_FILE))
    by_id: dict[str, QueuedSession] = {}
    refused: dict[str, None] = {}
    for record in records:
        sid, path = record.get("session_id"), record.get("transcript_path")
        if not isinstance(sid, str) or not SESSION_ID.match(sid) or not isinstance(path, str):
            continue
        if isinstance(record.get("refused"), str):
            by_id.pop(sid, None)
            refused[sid] = None
            continue
        refused.pop(sid, None)
        by_id[sid] = QueuedSession(
            sid,
            path,
            record.get("cwd") if isinstance(record.get("cwd"), str) else None,
            record.get("reason") if isinstance(record.get("reason"), str) else None,
            record.get("event") if isinstance(record.get("event"), str) else None,
            str(record.get("queued_at") or ""),
        )
    return QueueState(list(by_id.values()), bad, list(refused))


def record_refused(root: StrPath, session_id: str, transcript_path: str, reason: str) -> None:
    """Take a queued session out of the queue because its transcript was refused (``reason``,
    the error's message, which shows no value of the file): one line in ``queue.jsonl``; a
    hook that queues the session again puts it back."""
    record = {
        "session_id": session_id,
        "transcript_path": transcript_path,
        "refused": reason,
        "refused_at": _now(),
    }
    _append_line(os.path.join(root, LOCAL_DIR, QUEUE_FILE), record)


def harvested_ids(root: StrPath) -> set[str]:
    """Session ids recorded in ``harvested.jsonl`` (local; no git)."""
    records, _bad = _read_lines(os.path.join(root, LOCAL_DIR, HARVESTED_FILE))
    return {r["session_id"] for r in records if isinstance(r.get("session_id"), str)}


def committed_session_ids(root: Path) -> set[str]:
    """Session ids of every harvest commit in the history (``Agentmem-Action: propose`` from a
    provider, not from ``remember``): a session harvested on a clone whose ``.agentmem/`` was
    lost still counts as harvested. One ``git log``."""
    # lazy: hot path: the hook queues a session without git
    from agentmem.store import gitio

    found: set[str] = set()
    for commit in gitio.log(root, ["inbox"]):
        trailers = commit.trailers
        if trailers.get(tr.ACTION) == "propose" and trailers.get(tr.SOURCE) != "remember":
            session = trailers.get(tr.SESSION)
            if session:
                found.add(session)
    return found


def waiting(root: StrPath, done: set[str] | None = None) -> list[QueuedSession]:
    """Queued sessions not yet harvested, oldest first. ``done`` defaults to the local record
    only (cheap enough for ``agentmem inbox``); ``harvest --queue`` adds the commit trailers."""
    done = harvested_ids(root) if done is None else done
    return [s for s in read_queue(root).sessions if s.session_id not in done]


def record_harvested(
    root: StrPath,
    session_ids: list[str],
    transcript_path: str,
    actor: str,
    proposals: int,
    commit: str | None,
    refused: dict[str, int] | None = None,
    invalid: int = 0,
) -> None:
    """Mark sessions as harvested (a queued id and the transcript's own id may differ), with
    what was refused (``agentmem stats``), on the first id only (one session, one count)."""
    stamp = _now()
    for n, sid in enumerate(dict.fromkeys(session_ids)):
        record = HarvestRecord(
            sid,
            transcript_path,
            stamp,
            actor,
            proposals,
            commit,
            refused=dict(refused or {}) if n == 0 else {},
            invalid=invalid if n == 0 else 0,
        )
        _append_line(os.path.join(root, LOCAL_DIR, HARVESTED_FILE), record.to_dict())


def forget(root: StrPath, session_id: str, actor: str) -> QueuedSession:
    """Drop a queued session without harvesting it (``harvest --forget``): a line in
    ``harvested.jsonl`` with ``forgotten: true`` and 0 proposals, so ``harvest --queue`` never
    tries it again (its transcript was deleted, or the session is not worth it). The queue
    file itself is left as written (append-only, shared with the hook).

    Raises :class:`~agentmem.errors.UsageError` (exit 2) when the id is not in the queue, with
    the ids that wait, and :class:`AgentmemError` when it was already harvested or forgotten.
    """
    queued = {s.session_id: s for s in read_queue(root).sessions}
    session = queued.get(session_id)
    if session is None:
        ids = ", ".join(s.session_id for s in waiting(root)[:5]) or "none"
        raise UsageError(
            f"session {session_id} is not in the harvest queue",
            hint=f"queued and waiting: {ids} (agentmem inbox lists them)",
        )
    if session_id in harvested_ids(root):
        raise AgentmemError(f"session {session_id} was already harvested or forgotten")
    record = HarvestRecord(session_id, session.transcript_path, _now(), actor, 0, None, True)
    _append_line(os.path.join(root, LOCAL_DIR, HARVESTED_FILE), record.to_dict())
    return session
