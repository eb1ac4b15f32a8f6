"""An agent makes room in a full memory (docs/design/context.md §Context, *Making room*): ``forget``
entries, or ``replace`` entries by one new text (a modify of one, or a merge of several), by
their numbers as the agent was shown them — filed as pending proposals in the person's inbox,
validated and guarded like a harvest's, in one commit, never applied.

Numbers are the entries' numbers in the memory file (``agentmem memory show``'s), as the served
block gave them. What the agent was shown is ``shown``: number → the entry's
:func:`~agentmem.delivery.usagelog.entry_hash` (the MCP server keeps the block it last served
in its session; without one, the last chat block logged for the person, e.g. the SessionStart
hook's: ``.agentmem/usage.jsonl``). Each number is checked against the served view now: an
entry that is no longer what the agent was shown (the file changed since) refuses the whole
call, saying what changed (moved to another number, changed or removed), so that an agent never
removes an entry it did not see.

A ``replace`` of several entries files the ``remove`` of all but the first, then a ``modify``
of the first to the new text (tidy's order: accepting them in inbox order applies all); each is
validated against the memory as the ones before it leave it (a merged text is no repeat of the
entries it replaces). One call files at most ``harvest.max_proposals`` proposals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agentmem.apply.planner import plan_memory
from agentmem.apply.writer import read_current
from agentmem.delivery.usage import read_chats
from agentmem.delivery.usagelog import entry_hash
from agentmem.errors import AgentmemError, ProposalError, UsageError
from agentmem.governance import require_memory_role
from agentmem.memory.file import Entry, new_memory_text, parse_memory
from agentmem.proposals.inbox import list_pending, write_to_inbox
from agentmem.proposals.model import Proposal, parse_proposal
from agentmem.proposals.validate import validate
from agentmem.store.repo import Person, Repository

#: How many entry numbers one call may name (checked before anything is read).
MAX_NUMBERS = 64


class StaleEntryError(ProposalError):
    """An entry number no longer names the entry the agent was shown."""


@dataclass(frozen=True)
class Room:
    """What one call filed: the proposals (in inbox order) and the inbox commit."""

    proposals: tuple[Proposal, ...]
    commit: str | None


def shown_from_log(repo: Repository, person: str) -> dict[int, str] | None:
    """The entries of the last chat block logged for ``person`` (number → entry hash), or None
    when none was logged."""
    chats = [c for c in read_chats(repo.root) if c.person == person]
    return dict(chats[-1].entries) if chats else None


def shown_of(entries: Sequence[Entry]) -> dict[int, str]:
    """Number → entry hash of served ``entries`` (what a block gives an agent)."""
    return {e.number: entry_hash(e.text) for e in entries}


def check_numbers(numbers: Sequence[int], limit: int, doing: str) -> list[int]:
    """The numbers, distinct and in order; refused before anything is read when there are none,
    too many (more than ``limit`` proposals) or one is not a positive integer."""
    if not numbers:
        raise UsageError(f"{doing}: name at least one entry number")
    if len(numbers) > MAX_NUMBERS:
        raise UsageError(f"{doing}: {len(numbers)} entry numbers; at most {MAX_NUMBERS} a call")
    bad = [n for n in numbers if isinstance(n, bool) or not isinstance(n, int) or n < 1]
    if bad:
        raise UsageError(f"{doing}: entry numbers are whole numbers from 1 (got {bad[0]!r})")
    wanted = list(dict.fromkeys(numbers))
    if len(wanted) > limit:
        raise UsageError(
            f"{doing}: {len(wanted)} entries would file {len(wanted)} proposals; one call files "
            f"at most {limit} (harvest.max_proposals)",
            hint=f"name at most {limit} entries a call",
        )
    return wanted


def resolve(
    numbers: Sequence[int], shown: Mapping[int, str] | None, served: Sequence[Entry]
) -> list[Entry]:
    """The served entries the agent means by ``numbers``. Raises :class:`StaleEntryError` when a
    number was not shown, or names another entry now (the memory file changed since)."""
    if shown is None:
        raise StaleEntryError(
            "no memory was shown in this session: the entry numbers cannot be checked",
            hint="read the memory first (show_memory), then use its numbers",
        )
    now = {e.number: e for e in served}
    where = {entry_hash(e.text): e.number for e in served}
    found: list[Entry] = []
    changed: list[str] = []
    for number in numbers:
        was = shown.get(number)
        entry = now.get(number)
        if was is None:
            listed = ", ".join(f"#{n}" for n in sorted(shown)) or "none"
            changed.append(f"#{number} was not shown to you (shown: {listed})")
        elif entry is not None and entry_hash(entry.text) == was:
            found.append(entry)
        elif was in where:
            changed.append(f"the entry shown as #{number} is #{where[was]} now")
        elif entry is not None:
            changed.append(
                f"#{number} was changed since you were shown it: it reads now {_q(entry.text)}"
            )
        else:
            changed.append(f"the entry shown as #{number} was changed or removed since")
    if changed:
        raise StaleEntryError(
            "the memory changed since it was shown: " + "; ".join(changed) + "; nothing was filed",
            hint="read the memory again (show_memory) and use the numbers it gives now",
        )
    return found


def file_room(
    repo: Repository,
    actor: Person,
    entries: Sequence[Entry],
    text: str | None,
    *,
    session: str,
    source: str,
    justification: str,
) -> Room:
    """File ``forget`` (``text`` None: a ``remove`` of each entry) or ``replace`` (``text``: the
    removes of all entries but the first, then a ``modify`` of the first to ``text``) as
    pending proposals of ``actor`` in one inbox commit. The caller holds the repository lock
    and resolved ``entries`` (:func:`resolve`). Raises the validation's errors (guard, target,
    budget, repeats) for the first proposal refused: nothing is filed then."""
    require_memory_role(actor, "a memory proposal")
    limit = repo.config.harvest.max_proposals
    if len(entries) > limit:
        raise UsageError(f"one call files at most {limit} proposals (harvest.max_proposals)")
    config = repo.config.memory
    relpath = repo.memory_relpath(actor.id)
    current = read_current(repo.root, relpath)
    memory = parse_memory(
        current if current is not None else new_memory_text(actor.id, config),
        actor.id,
        config,
        relpath,
    )
    held = {e.number: e for e in memory.entries()}
    for entry in entries:  # the served view is the committed file: the work tree must agree
        if entry.number not in held or held[entry.number].text != entry.text:
            raise StaleEntryError(
                f"entry #{entry.number} of {relpath} differs from the one served",
                hint="the file has changes not committed yet; read the memory again",
            )
    first, *rest = entries
    raws = [_raw("remove", e, None, justification) for e in (rest if text is not None else entries)]
    if text is not None:
        raws.append(_raw("modify", first, text, justification))
    pending = [p for p in list_pending(repo, actor.id) if p.text]
    filed: list[Proposal] = []
    state: str | None = current
    for n, raw in enumerate(raws, start=1):
        proposal = parse_proposal(
            raw, person=actor.id, session=session, source=source, scope=None, where=f"proposal {n}"
        )
        proposal = validate(proposal, repo, state, filed, pending)
        state = plan_memory(proposal, state, config, relpath).change.new
        filed.append(proposal)
    commit = write_to_inbox(repo, actor, filed, session, source)
    return Room(tuple(filed), commit)


@dataclass(frozen=True)
class Batch:
    """What :func:`file_batch` did: ``filed`` (one commit, ``commit``), ``refused`` as
    ``(position from 1, reason)`` and ``cut`` the positions of valid ones past the cap."""

    filed: tuple[Proposal, ...]
    refused: tuple[tuple[int, str], ...]
    cut: tuple[int, ...]
    commit: str | None


def file_batch(
    repo: Repository,
    actor: Person,
    raws: Sequence[Mapping[str, object]],
    *,
    session: str,
    source: str,
) -> Batch:
    """Validate ``raws`` (proposal dicts, as a model answers) in order against the memory as the
    ones before leave it, keep the first ``harvest.max_proposals`` valid ones and file them in
    ONE inbox commit (a harvest's rule: the cap counts valid proposals). The caller holds the
    repository lock. Nothing is filed when none is valid."""

    require_memory_role(actor, "a memory proposal")
    limit = repo.config.harvest.max_proposals
    config = repo.config.memory
    relpath = repo.memory_relpath(actor.id)
    state = read_current(repo.root, relpath)
    pending = [p for p in list_pending(repo, actor.id) if p.text]
    valid: list[Proposal] = []
    refused: list[tuple[int, str]] = []
    cut: list[int] = []
    for n, raw in enumerate(raws, start=1):
        try:
            proposal = parse_proposal(
                dict(raw),
                person=actor.id,
                session=session,
                source=source,
                scope=None,
                where=f"entry {n}",
            )
            proposal = validate(proposal, repo, state, valid, pending)
            planned = plan_memory(proposal, state, config, relpath).change.new
        except AgentmemError as exc:
            refused.append((n, exc.message.removeprefix(f"entry {n}: ")))
            continue
        if len(valid) >= limit:
            cut.append(n)
            continue
        valid.append(proposal)
        state = planned
    commit = write_to_inbox(repo, actor, valid, session, source) if valid else None
    return Batch(tuple(valid), tuple(refused), tuple(cut), commit)


def _raw(action: str, entry: Entry, text: str | None, why: str) -> dict[str, object]:
    return {
        "action": action,
        "route": "memory",
        "section": entry.section,
        "target": entry.text,
        "text": text,
        "justification": why,
        "basis": "inferred",
    }


def _q(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")
