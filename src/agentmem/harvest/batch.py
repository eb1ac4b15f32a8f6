"""Harvesting several sessions (docs/design/harvest.md §Harvest): the ONE loop behind ``agentmem harvest
FILE…`` and ``agentmem harvest --queue``.

A :class:`Job` is one session to harvest: where its transcript is, how to read it (a file, a
conversation of an export, a queued session) and, for the queue, the id the hook queued it
under. :func:`harvest_jobs` harvests each job under the repository lock, records it in
``.agentmem/harvested.jsonl``, never harvests a session id twice, and goes on after a session
that fails; callbacks let the command line show progress and results as they come (the domain
prints nothing). :func:`file_jobs` and :func:`harvest_queue` build the jobs of the two commands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from agentmem.errors import AgentmemError, TranscriptError, TranscriptUnavailableError, UsageError
from agentmem.harvest.exports import is_conversation_export, read_export
from agentmem.harvest.providers.request import Outcome
from agentmem.harvest.queue import (
    LOCAL_DIR,
    QUEUE_FILE,
    committed_session_ids,
    harvested_ids,
    read_queue,
    record_harvested,
    record_refused,
)
from agentmem.harvest.run import HarvestResult, harvest_session, refusals
from agentmem.harvest.transcripts import (
    DEFAULT_MAX_TRANSCRIPT_MB,
    Transcript,
    check_size,
    read_transcript,
)
from agentmem.store import gitio, regular
from agentmem.store.repo import Person, Repository


@dataclass(frozen=True)
class Job:
    """One session to harvest: ``path`` of its transcript, ``read`` returns it (or raises
    :class:`AgentmemError`), ``queued`` the session id of the queue line (``harvest --queue``;
    None for a file given on the command line)."""

    path: Path
    read: Callable[[], Transcript]
    queued: str | None = None


@dataclass
class Batch:
    """What a harvest of several sessions did: ``results`` (one per harvested session),
    ``failures`` (the job and its error; a queued session stays queued unless ``refused``:
    its transcript refused, recorded in the queue), ``skipped`` sessions already harvested,
    ``bad_lines`` unreadable queue lines, ``warnings`` what was ignored."""

    results: list[HarvestResult] = field(default_factory=list)
    failures: list[tuple[Job, AgentmemError]] = field(default_factory=list)
    skipped: int = 0
    bad_lines: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


Working = Callable[[Job, int, int], AbstractContextManager[object]]
"""``working(job, index, total)``: a context around one session's harvest (a spinner)."""


def harvest_jobs(
    repo: Repository,
    actor: Person,
    jobs: Sequence[Job],
    *,
    provider: str,
    done: set[str],
    scope: str | None = None,
    outcomes: tuple[Outcome, ...] = (),
    proposals_file: Path | None = None,
    working: Working | None = None,
    on_result: Callable[[HarvestResult], None] | None = None,
    on_failure: Callable[[Job, AgentmemError], None] | None = None,
    on_done: Callable[[Job], None] | None = None,
) -> Batch:
    """Harvest each job in order, each under the lock; ``done`` (session ids already harvested)
    grows with every harvested session.

    A session already in ``done`` is a failure for a file (``--again`` passes an empty set) and
    is recorded and skipped for a queued one. A failing job is in ``Batch.failures`` and
    ``on_failure`` (which may raise to stop) and the others go on; ``on_result`` gets each
    result as it comes and ``on_done`` each job, harvested or not.
    """
    batch = Batch()
    for index, job in enumerate(jobs, start=1):
        try:
            try:
                transcript = job.read()
                if transcript.session_id in done:
                    if job.queued is not None:
                        record_harvested(repo.root, [job.queued], str(job.path), actor.id, 0, None)
                        batch.skipped += 1
                        continue
                    raise AgentmemError(
                        f"{job.path}: session {transcript.session_id} was already harvested",
                        hint="its proposals are in your inbox or were decided (agentmem log); "
                        "add --again to read it once more",
                    )
                progress = working(job, index, len(jobs)) if working else nullcontext()
                with progress:  # harvest_session takes the lock itself, never during a model call
                    result = harvest_session(
                        repo,
                        actor,
                        job.path,
                        provider=provider,
                        scope=scope,
                        outcomes=outcomes,
                        proposals_file=proposals_file,
                        transcript=transcript,
                    )
            except AgentmemError as exc:
                batch.failures.append((job, exc))
                if job.queued is not None and _refused(exc):
                    record_refused(repo.root, job.queued, str(job.path), exc.message)
                    batch.refused.append(job.queued)
                if on_failure:
                    on_failure(job, exc)
                continue
            ids = [i for i in (job.queued, transcript.session_id) if i is not None]
            refused, invalid = refusals(result.rejected)
            record_harvested(
                repo.root,
                ids,
                str(job.path),
                actor.id,
                len(result.kept),
                result.commit,
                refused,
                invalid,
            )
            done.update(ids)
            batch.results.append(result)
            if on_result:
                on_result(result)
        finally:
            if on_done:
                on_done(job)
    return batch


def _refused(error: AgentmemError) -> bool:
    """A transcript refused for what it holds (no turn, unknown format, binary): reading it
    again gives the same answer. Over the size limit or unreadable now, it may not."""
    return isinstance(error, TranscriptError) and not isinstance(error, TranscriptUnavailableError)


def _read(transcript: Transcript) -> Callable[[], Transcript]:
    return lambda: transcript


def _fail(error: AgentmemError) -> Callable[[], Transcript]:
    def read() -> Transcript:
        raise error

    return read


def file_jobs(
    paths: Sequence[Path],
    conversation: str | None,
    done: set[str],
    max_mb: float = DEFAULT_MAX_TRANSCRIPT_MB,
) -> tuple[list[Job], int]:
    """The jobs of ``agentmem harvest FILE…`` and how many conversations of exports were skipped
    as already harvested (in ``done``). A transcript is read now (a file that cannot be read is
    a job that fails); a ChatGPT or Claude.ai ``conversations.json`` export gives one job per
    conversation, ``conversation`` picks one. Raises :class:`UsageError` when ``conversation``
    names nothing in an export or is given for a file that is not one."""
    jobs: list[Job] = []
    skipped = 0
    for path in paths:
        try:
            head = regular.given_head(path, 65536)  # a FIFO is never opened for reading
        except OSError:
            head = b""
        try:
            check_size(path, max_mb)  # a transcript over harvest.max_transcript_mb: not read
            if not is_conversation_export(head):
                if conversation is None:
                    jobs.append(Job(path, _read(read_transcript(path, max_mb))))
                    continue
                raise UsageError(
                    f"{path}: --conversation picks a conversation of a ChatGPT or Claude.ai "
                    "conversations.json; this file is not one"
                )
            found = read_export(path)
            if conversation is not None:
                picked = [t for t in found if t.session_id == conversation]
                if not picked:
                    raise UsageError(
                        f"{path}: no conversation {conversation!r} in this export "
                        f"({len(found)} conversation(s))",
                        hint="the ids are the 'id' (ChatGPT) or 'uuid' (Claude.ai) of each "
                        "conversation",
                    )
                jobs.extend(Job(path, _read(t)) for t in picked)
                continue
            waiting = [t for t in found if t.session_id not in done]
            skipped += len(found) - len(waiting)
            jobs.extend(Job(path, _read(t)) for t in waiting)
        except AgentmemError as exc:
            if isinstance(exc, UsageError):
                raise
            jobs.append(Job(path, _fail(exc)))
    return jobs, skipped


def _read_queued(path: Path, session_id: str, max_mb: float) -> Callable[[], Transcript]:
    def read() -> Transcript:
        if not path.is_file():
            raise AgentmemError(
                f"{path}: transcript not found",
                hint="Claude Code deletes transcripts after cleanupPeriodDays; harvest it by "
                f"hand, or drop it: agentmem harvest --forget {session_id}",
            )
        return read_transcript(path, max_mb)

    return read


def harvest_queue(
    repo: Repository,
    actor: Person,
    *,
    provider: str,
    scope: str | None = None,
    proposals_file: Path | None = None,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[Job], None] | None = None,
) -> Batch:
    """``harvest --queue``: every queued session not yet harvested, oldest first, through
    :func:`harvest_jobs`. A session whose transcript cannot be read stays queued (a failure);
    ``on_start(total)`` and ``on_done(job)`` drive a progress display. A queue file that git
    tracks is not read at all (a warning says so): ``.agentmem/`` is local, and a committed
    queue would point this person's harvest at any file."""
    queue_rel = f"{LOCAL_DIR}/{QUEUE_FILE}"
    if gitio.is_tracked(repo.root, queue_rel):
        warning = (
            f"{queue_rel} is tracked by git, so anyone who can push could have written it: "
            f"ignored (it is local, never shared): git rm --cached {queue_rel} and commit; "
            "harvest your own transcripts by hand meanwhile (agentmem harvest FILE)"
        )
        return Batch(warnings=[warning])
    state = read_queue(repo.root)
    done = harvested_ids(repo.root) | committed_session_ids(repo.root)
    todo = [s for s in state.sessions if s.session_id not in done]
    if on_start:
        on_start(len(todo))
    jobs = [
        Job(Path(s.transcript_path), _read_queued(Path(s.transcript_path), s.session_id, repo.config.harvest.max_transcript_mb),
            s.session_id)
        for s in todo
    ]  # fmt: skip
    batch = harvest_jobs(
        repo,
        actor,
        jobs,
        provider=provider,
        done=done,
        scope=scope,
        proposals_file=proposals_file,
        on_done=on_done,
    )
    batch.skipped += len(state.sessions) - len(todo)
    batch.bad_lines = state.bad_lines
    return batch
