"""The Python API for applications that embed agentmem (docs/design/context.md §Context).

    import agentmem

    mem = agentmem.open()                      # the repository found from the current folder
    prompt = mem.chat_context()                # your approved memory, as a prompt block
    pid = mem.remember("Answer in French.", section="Writing style")
    result = mem.harvest([{"role": "user", "content": "From now on, cite the clause number."}])
    for proposal in mem.pending():
        print(proposal.id, proposal.summary())

Every method keeps the command line's guarantees: the person is the git identity of whoever
runs the application (``roles.yaml`` decides what they may do), every write holds the
repository lock, goes through the guard and the duplicate checks, and ends in ONE audit commit
with its ``Agentmem-*`` trailers; nothing reaches a memory before its owner accepts it in
``agentmem review``. Failures are :class:`agentmem.errors.AgentmemError` subclasses (their
``message`` and ``hint`` are the CLI's ``error:`` and ``hint:`` lines), never a print. Heavy
libraries (the anthropic SDK, rapidfuzz, ruamel) load only in the methods that need them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem import notices
from agentmem.apply.writer import read_current
from agentmem.delivery.context import (
    build_chat,
    chat_reader,
    check_format,
    render_audit,
    render_chat,
    run_audit,
)
from agentmem.delivery.usage import log_chat
from agentmem.errors import AgentmemError, UsageError
from agentmem.governance import require_memory_role, require_owner
from agentmem.proposals.inbox import Inbox, foreign, list_pending, read_inbox, write_to_inbox
from agentmem.proposals.model import parse_proposal
from agentmem.store.repo import open_repository as open_repo
from agentmem.store.root import find_root

if TYPE_CHECKING:
    from agentmem.doctrine.lifecycle import Transition
    from agentmem.harvest.run import HarvestResult
    from agentmem.harvest.transcripts import Transcript
    from agentmem.proposals.model import Proposal
    from agentmem.store.repo import Person, Repository

__all__ = ["Agentmem", "open_repository"]


class Agentmem:
    """One memory repository, seen by the person whose git identity runs the application.

    Build it with :func:`agentmem.open`. Methods raise :class:`~agentmem.errors.AgentmemError`
    subclasses: :class:`~agentmem.errors.GovernanceError` (a role or owner refusal),
    :class:`~agentmem.errors.GuardError` (a text the guard refuses; the message names the class
    and position, never the value), :class:`~agentmem.errors.ProposalError` (a duplicate, an
    unknown section), :class:`~agentmem.errors.UsageError` (an unknown person or provider),
    :class:`~agentmem.errors.BusyError` (the lock was held too long).
    """

    def __init__(self, repo: Repository) -> None:
        self._repo = repo

    @property
    def root(self) -> Path:
        """The repository's folder."""
        return self._repo.root

    @property
    def repository(self) -> Repository:
        """The underlying :class:`~agentmem.store.repo.Repository` (layout, settings, lock)."""
        return self._repo

    def actor(self) -> Person:
        """The person running this (git ``user.email`` → ``roles.yaml``); raises
        :class:`~agentmem.errors.GovernanceError` when the identity is not listed."""
        return self._repo.actor()

    def _owner(self, person: str | None, doing: str) -> Person:
        """The actor, refusing a ``person`` who is someone else: only the owner writes their
        memory and inbox."""
        actor = self.actor()
        if person is not None:
            self._repo.person(person)
            require_owner(actor, person, doing)
        return actor

    # -- reading --------------------------------------------------------------------------------

    def chat_context(
        self, person: str | None = None, fmt: str = "text", scope: str | None = None
    ) -> str:
        """The chat block of ``person`` (default: the actor; another person's only for an admin):
        numbered approved entries under their sections with the fill level, labelled as
        remembered preferences — never doctrine. ``scope``: the entries meant everywhere plus
        those whose scope contains it (None: only those meant everywhere), as
        ``agentmem context chat --scope``. ``fmt``: ``text`` or ``markdown``. Raises
        GovernanceError, InvalidMemoryError."""
        if check_format(fmt) == "json":
            raise UsageError("chat_context returns text or markdown; use chat_entries for data")
        actor = self.actor()
        ctx = build_chat(self._repo, chat_reader(self._repo, actor, person), scope)
        failed = log_chat(self._repo.root, ctx, actor.id, "api")
        if failed:
            notices.warn(failed)
        return render_chat(ctx, fmt)

    def audit_context(self, scope: str, fmt: str = "text") -> str:
        """The audit block for ``scope``: the active rules of that scope and every ancestor, with
        their limits — never personal memory. Appends one line to ``.agentmem/usage.jsonl``
        (which rules were given and why the others were not), like ``agentmem context audit``.
        Raises DoctrineError (an invalid scope or rule file), AgentmemError (usage line not
        written: an untraced audit is refused)."""
        if fmt not in ("text", "markdown"):
            raise UsageError(f"unknown format {fmt!r} (text or markdown)")
        ctx = run_audit(self._repo, self.actor(), scope)
        for note in ctx.notes:  # what the served view left out, with the command that fixes it
            notices.warn(note)
        return render_audit(ctx, fmt)

    def pending(self, person: str | None = None) -> list[Proposal]:
        """Pending proposals of ``person`` (default: the actor; another person's only for an
        admin), oldest first. :meth:`inbox` also says which ones the owner did not file."""
        whose = chat_reader(self._repo, self.actor(), person)
        return list_pending(self._repo, whose)

    def inbox(self, person: str | None = None) -> Inbox:
        """:meth:`pending` with the inbox entries skipped as broken (each names its file) and,
        in ``foreign``, each proposal its owner did not file (``{id: why}``), as ``agentmem
        inbox`` flags it: accept one only after reading it."""
        whose = chat_reader(self._repo, self.actor(), person)
        found = read_inbox(self._repo, whose)
        return replace(found, foreign=foreign(self._repo, found.proposals, found.read))

    # -- proposing ------------------------------------------------------------------------------

    def remember(
        self,
        text: str,
        person: str | None = None,
        section: str | None = None,
        session: str | None = None,
    ) -> str:
        """File one ``add`` proposal (one line, at most ``memory.entry_max_chars`` characters)
        in the actor's inbox and commit it at once; returns its id. ``section``: a configured
        section (default: the first); ``session``: recorded with it (default ``api``).
        ``person`` may only name the actor. Raises GovernanceError, GuardError, ProposalError
        (duplicate, unknown section), InvalidMemoryError (not one line)."""
        return self.remember_proposal(text, person, section, session).id

    def remember_proposal(
        self,
        text: str,
        person: str | None = None,
        section: str | None = None,
        session: str | None = None,
    ) -> Proposal:
        """:meth:`remember`, returning the whole :class:`~agentmem.proposals.model.Proposal`
        (its ``summary()``, section, creation time) instead of its id."""
        # lazy: writes only (the guard and the planner); agentmem inbox reads through this module
        from agentmem.proposals.review import remember as do_remember

        actor = self._owner(person, "remembering into")
        with self._repo.locked():
            proposal = do_remember(
                self._repo,
                actor,
                text,
                section or self._repo.config.memory.sections[0],
                session or "api",
            )
        return proposal

    def propose_change(
        self,
        action: str,
        *,
        text: str | None = None,
        target: str | None = None,
        section: str | None = None,
        justification: str,
        session: str,
        source: str = "api",
        basis: str = "inferred",
    ) -> Proposal:
        """File one memory proposal of the actor — ``add`` (``text``, ``section``), ``modify``
        (``target``: a substring of exactly one entry, ``text``) or ``remove`` (``target``) —
        validated like a harvest's (shape, section, target, guard, budget preview, duplicates)
        and committed to the inbox at once. ``source`` names who filed it (``api``,
        ``memory-tool``). Raises GovernanceError, GuardError, ProposalError,
        ApplyConflictError (the target matches no entry or several)."""
        # lazy: writes only (the guard and the planner); agentmem inbox reads through this module
        from agentmem.proposals.validate import validate

        actor = self.actor()
        require_memory_role(actor, "a memory proposal")
        raw = {
            "action": action,
            "route": "memory",
            "section": section,
            "target": target,
            "text": text,
            "justification": justification,
            "basis": basis,
        }
        with self._repo.locked():
            proposal = parse_proposal(
                raw, person=actor.id, session=session, source=source, scope=None, where=action
            )
            memory = read_current(self.root, self._repo.memory_relpath(actor.id))
            pending = [p for p in list_pending(self._repo, actor.id) if p.text]
            proposal = validate(proposal, self._repo, memory, [], pending)
            write_to_inbox(self._repo, actor, [proposal], session, source)
        return proposal

    def harvest(
        self,
        messages: Sequence[Mapping[str, Any]] | str | Path,
        person: str | None = None,
        outcomes: Sequence[Mapping[str, Any]] | None = None,
        scope: str | None = None,
        provider: str | None = None,
        *,
        again: bool = False,
    ) -> HarvestResult:
        """Harvest one finished session into the actor's inbox: at most
        ``harvest.max_proposals`` validated proposals, one commit.

        ``messages``: a Messages list ``[{"role": "user"|"assistant", "content": str | blocks}]``
        or the path of a transcript file (any format ``agentmem harvest`` reads). ``outcomes``:
        ``[{"suggestion", "decision": accepted|reworked|ignored, "final_text"?}]``. ``provider``:
        ``offline``, ``anthropic`` or ``auto`` (default: ``harvest.provider``). A session
        already harvested (same id, or the same messages) raises AgentmemError unless
        ``again``. Raises TranscriptError, ModelError, ConfigError (no API key) before anything
        is written.
        """
        # lazy: harvest only (transcripts, providers, the guard)
        from agentmem.harvest.queue import committed_session_ids, harvested_ids, record_harvested
        from agentmem.harvest.run import choose_provider, harvest_session

        actor = self._owner(person, "harvesting into")
        name = choose_provider(provider, self._repo.config.harvest.provider)
        if name == "replay":
            raise UsageError("the replay provider reads a file: use 'agentmem harvest --proposals'")
        transcript = _transcript(messages)
        if not again:
            done = harvested_ids(self.root) | committed_session_ids(self.root)
            if transcript.session_id in done:
                raise AgentmemError(
                    f"session {transcript.session_id} was already harvested",
                    hint="pass again=True to read it once more",
                )
        with self._repo.locked():
            result = harvest_session(
                self._repo,
                actor,
                transcript.path,
                provider=name,
                scope=scope,
                outcomes=_outcomes(outcomes),
                transcript=transcript,
            )
        record_harvested(
            self.root,
            [result.session],
            str(transcript.path),
            actor.id,
            len(result.kept),
            result.commit,
        )
        return result

    def propose_rule(
        self,
        title: str,
        instruction: str,
        limits: Sequence[str],
        justification: str = "",
        scope: str | None = None,
        session: str | None = None,
    ) -> str:
        """Propose a team doctrine rule as a **draft** (a member or an admin); returns its id.
        ``limits``: at least one case where it does not hold (required before approval).
        It applies to no audit until an admin approves it (``agentmem doctrine approve``).
        Raises GovernanceError, GuardError, DuplicateRuleError (a similar live rule),
        DoctrineError (invalid scope or fields)."""
        # lazy: doctrine writes only (the duplicate guard, the lifecycle)
        from agentmem.doctrine.drafts import Draft, propose

        draft = Draft(title, instruction, tuple(limits), justification, scope, session)
        with self._repo.locked():
            transition = propose(self._repo, draft)
        return transition.rule.id

    # -- deciding (an admin's) ------------------------------------------------------------------

    def approve_rule(
        self,
        rule_id: str,
        version: int,
        *,
        reason: str | None = None,
        session: str | None = None,
    ) -> Transition:
        """Approve version ``version`` of draft rule ``rule_id`` (``agentmem doctrine approve``):
        the actor must be an admin, not its proposer nor the author of that version; the rule
        needs a scope, an instruction and a limit. Refused with what changed when the rule has
        moved past ``version`` (:class:`~agentmem.doctrine.lifecycle.VersionMovedError`). ``reason`` and
        ``session`` are recorded with the approval (``Agentmem-Reason``, ``Agentmem-Session``).
        Raises GovernanceError, DoctrineError, GuardError (a reason it refuses)."""
        # lazy: doctrine writes only
        from agentmem.doctrine.lifecycle import approve

        with self._repo.locked():
            return approve(self._repo, rule_id, version=version, reason=reason, session=session)

    def decide_rule(
        self,
        action: str,
        rule_id: str,
        *,
        reason: str | None = None,
        session: str | None = None,
    ) -> Transition:
        """One status decision on a rule (admin): ``suspend``, ``resume``, ``deactivate``,
        ``archive`` or ``reconfirm``, as ``agentmem doctrine ACTION ID``, with ``reason`` and
        ``session`` recorded. Raises UsageError (another action), GovernanceError,
        DoctrineError, GuardError."""
        # lazy: doctrine writes only
        from agentmem.doctrine import lifecycle

        if action not in _DECISIONS:
            raise UsageError(f"unknown decision {action!r} (one of {', '.join(_DECISIONS)})")
        run = getattr(lifecycle, action)
        with self._repo.locked():
            transition: Transition = run(self._repo, rule_id, reason=reason, session=session)
        return transition

    def restore_rule(
        self,
        rule_id: str,
        version: int,
        *,
        reason: str | None = None,
        session: str | None = None,
    ) -> Transition:
        """Bring back the content of ``version`` as a new draft version (``agentmem doctrine
        restore --yes``: an approved rule drops to draft), with ``reason`` and ``session``
        recorded. Raises GovernanceError, DoctrineError, GuardError."""
        # lazy: doctrine writes only
        from agentmem.doctrine.drafts import restore

        with self._repo.locked():
            return restore(self._repo, rule_id, version, yes=True, reason=reason, session=session)


_DECISIONS = ("suspend", "resume", "deactivate", "archive", "reconfirm")
"""The rule decisions :meth:`Agentmem.decide_rule` takes (approve and restore have their own)."""


def open_repository(path: str | Path | None = None) -> Agentmem:
    """The repository at ``path`` (its folder or one below it), else ``$AGENTMEM_REPO``, else
    found upward from the current folder. Raises NotARepositoryError, ConfigError."""
    return Agentmem(open_repo(None if path is None else find_root(Path(path))))


def _transcript(messages: Sequence[Mapping[str, Any]] | str | Path) -> Transcript:
    """A :class:`Transcript` from a Messages list (session id: ``api-`` and 16 hex digits of
    its canonical JSON) or from a transcript file."""
    # lazy: harvest only (transcript formats)
    from agentmem.harvest.exports import read_messages
    from agentmem.harvest.transcripts import read_transcript

    if isinstance(messages, (str, Path)):
        return read_transcript(Path(messages))
    if not isinstance(messages, Sequence) or not all(isinstance(m, Mapping) for m in messages):
        raise UsageError("messages: expected a list of {role, content} mappings or a file path")
    data: list[dict[str, Any]] = [dict(m) for m in messages if isinstance(m, Mapping)]
    digest = hashlib.sha256(
        json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()
    return read_messages(data, f"api-{digest[:16]}")


def _outcomes(outcomes: Sequence[Mapping[str, Any]] | None) -> tuple[Any, ...]:
    # lazy: harvest only
    from agentmem.harvest.providers.request import Outcome

    found = []
    for index, item in enumerate(outcomes or (), start=1):
        decision = item.get("decision")
        suggestion = item.get("suggestion")
        if not isinstance(suggestion, str) or decision not in ("accepted", "reworked", "ignored"):
            raise UsageError(
                f"outcome {index}: needs a 'suggestion' string and a 'decision' of accepted, "
                "reworked or ignored"
            )
        final = item.get("final_text")
        found.append(Outcome(suggestion, decision, final if isinstance(final, str) else None))
    return tuple(found)
