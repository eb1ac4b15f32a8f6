"""Harvest (docs/design/harvest.md §Harvest): one session in, at most ``max_proposals`` validated proposals
in the inbox.

Order: read the transcript (and outcomes) → ONE provider call → parse and validate each proposal
(shape, section, route, target, guard, budget preview, duplicate, document content) → keep the
first ``max_proposals`` valid ones (the cap counts valid proposals; the others are listed as
cut) → write the kept ones to the inbox and commit them. Rejections are listed with their
reason, never dropped silently. The person is always the actor, never a name from the
transcript or the answer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem import guard
from agentmem.apply.writer import read_current
from agentmem.config import HarvestConfig
from agentmem.doctrine.model import applies_to, content_sha256
from agentmem.doctrine.parse import load_rules_and_errors
from agentmem.doctrine.similar import similarity
from agentmem.errors import (
    AgentmemError,
    ConfigError,
    GuardError,
    ModelError,
    ProposalError,
    TranscriptError,
    UsageError,
)
from agentmem.governance import require_memory_role
from agentmem.harvest.own import restates
from agentmem.harvest.providers import offline
from agentmem.harvest.providers.request import HarvestRequest, Outcome, RawAnswer
from agentmem.harvest.transcripts import Transcript, read_transcript
from agentmem.memory.file import new_memory_text, nfc, parse_memory
from agentmem.proposals.ids import check_scope, check_session
from agentmem.proposals.inbox import list_pending, write_to_inbox
from agentmem.proposals.model import Proposal, parse_proposal
from agentmem.proposals.validate import DUPLICATE_ENTRY_SCORE, validate
from agentmem.store import regular
from agentmem.store.repo import Person, Repository
from agentmem.store.yamlio import load_yaml_text

if TYPE_CHECKING:
    from agentmem.doctrine.model import Rule

PROVIDERS = ("auto", "anthropic", "offline", "openai", "replay")


@dataclass(frozen=True)
class Rejection:
    """A proposal that was not kept: ``index`` is 1-based in the provider's answer."""

    index: int
    label: str
    reason: str
    #: the guard's codes when the guard refused it (``secret:github``, ``injection`` …).
    codes: tuple[str, ...] = ()


_GUARD_CODE = re.compile(r"refused: ([a-z][a-z0-9_.-]*)|; ([a-z][a-z0-9_.-]*)(?::\S+)? at \d+")


def guard_codes(message: str) -> tuple[str, ...]:
    """The classes of the findings a guard refusal names (``…: refused: <code> at <offset>: …;
    <code> at …``; ``secret:github`` → ``secret``)."""
    return tuple(dict.fromkeys(a or b for a, b in _GUARD_CODE.findall(message)))


def refusals(rejected: list[Rejection]) -> tuple[dict[str, int], int]:
    """``({guard code class: proposals}, other invalid proposals)`` of a harvest: what
    ``harvested.jsonl`` keeps for ``agentmem stats``."""
    by_reason: dict[str, int] = {}
    invalid = 0
    for item in rejected:
        if not item.codes:
            invalid += 1
        for reason in item.codes:
            by_reason[reason] = by_reason.get(reason, 0) + 1
    return by_reason, invalid


@dataclass
class HarvestResult:
    """What one session's harvest produced (docs/design/harvest.md §Harvest)."""

    session: str
    transcript: str
    provider: str
    kept: list[Proposal] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    received: int = 0
    cut: int = 0
    cut_items: list[Rejection] = field(default_factory=list)
    turns: int = 0
    user_turns: int = 0
    commit: str | None = None
    #: the folder the session ran in, as its transcript says (:attr:`Transcript.folder`).
    folder: str | None = None
    #: what the provider says about its reading (the offline one: a language it has no markers for)
    notes: list[str] = field(default_factory=list)


def choose_provider(flag: str | None, configured: str, env: Mapping[str, str] | None = None) -> str:
    """``--provider`` wins, then ``harvest.provider``; ``auto`` means anthropic with a key, else
    offline (docs/design/settings.md §Settings, §Providers)."""
    env = os.environ if env is None else env
    name = flag or configured
    if name not in PROVIDERS:
        raise UsageError(f"unknown provider {name!r} (known: {', '.join(PROVIDERS)})")
    if name == "auto":
        has_key = bool(env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_AUTH_TOKEN"))
        return "anthropic" if has_key else "offline"
    return name


def load_outcomes(path: Path) -> tuple[Outcome, ...]:
    """The outcomes file: ``[{suggestion, decision: accepted|reworked|ignored, final_text?}]``."""
    where = str(path)
    try:
        data = json.loads(regular.given_bytes(path).decode("utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{where}: outcomes file not found") from None
    except OSError as exc:
        raise UsageError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", 1)
        raise ProposalError(f"{where}:{line}: not valid JSON: {exc}") from None
    if not isinstance(data, list):
        raise ProposalError(f"{where}: expected a JSON array of outcomes")
    outcomes = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("suggestion"), str):
            raise ProposalError(f"{where}: outcome {i} needs a 'suggestion' string")
        decision = item.get("decision")
        if decision not in ("accepted", "reworked", "ignored"):
            raise ProposalError(
                f"{where}: outcome {i} has decision {decision!r}; expected accepted, reworked or ignored"
            )
        final = item.get("final_text")
        outcomes.append(
            Outcome(item["suggestion"], decision, final if isinstance(final, str) else None)
        )
    return tuple(outcomes)


def read_replay(path: Path) -> RawAnswer:
    """``--proposals FILE``: ``{"proposals": [...]}`` (JSON or YAML), validated like a model answer."""
    where = str(path)
    try:
        text = regular.given_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"{where}: proposals file not found") from None
    except OSError as exc:
        raise UsageError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ProposalError(f"{where}:1: not UTF-8 text") from None
    data = load_yaml_text(text, where, ProposalError)  # YAML is a superset of JSON
    if not isinstance(data, dict) or not isinstance(data.get("proposals"), list):
        raise ProposalError(f'{where}: expected {{"proposals": [...]}}')
    return RawAnswer(provider="replay", proposals=list(data["proposals"]))


def _label(raw: object) -> str:
    if isinstance(raw, dict):
        action = raw.get("action", "?")
        route = raw.get("route", "memory")
        section = raw.get("section")
        return f"{action} ({route}{', ' + str(section) if section else ''})"
    return "malformed proposal"


def _visible_text(raw: object) -> str:
    """A cut proposal's text when the guard finds nothing in it; else a note (never a value)."""
    text = raw.get("text") if isinstance(raw, dict) else None
    if not isinstance(text, str) or not text.strip():
        return "(no text)"
    if any(f.severity == "error" for f in guard.scan(text, kind="rule")):
        return "(text withheld: the guard would refuse it)"
    return text


def _call_provider(
    name: str, request: HarvestRequest, proposals_file: Path | None, settings: HarvestConfig
) -> RawAnswer:
    if name == "replay":
        if proposals_file is None:
            raise UsageError("the replay provider needs --proposals FILE")
        return read_replay(proposals_file)
    if name == "anthropic":
        # lazy: the provider and its SDK load only when chosen
        from agentmem.harvest.providers import anthropic_provider

        anthropic_provider.check_credentials()
        return anthropic_provider.harvest(request)
    if name == "openai":
        # lazy: the provider and its SDK load only when chosen
        from agentmem.harvest.providers import openai_provider

        return openai_provider.harvest(request, openai_provider.settings_from(settings))

    return offline.harvest(request)


def harvest_session(
    repo: Repository,
    actor: Person,
    transcript_path: Path,
    *,
    provider: str,
    scope: str | None = None,
    outcomes: tuple[Outcome, ...] = (),
    proposals_file: Path | None = None,
    transcript: Transcript | None = None,
) -> HarvestResult:
    """Harvest one transcript for ``actor``; commits the kept proposals to the inbox.

    The repository lock is never held during the provider call: the memory and doctrine are
    read, the lock released (the caller must not hold it), the provider called, then the lock
    taken again, the memory and inbox read again and every proposal validated against them
    before the inbox commit. Raises :class:`TranscriptError`, :class:`ModelError`,
    :class:`ConfigError` (e.g. no API key) naming the session, before anything is written (a
    queued session stays queued).
    """
    transcript = transcript or read_transcript(transcript_path)
    check_session(transcript.session_id, f"{transcript_path}: session id", TranscriptError)
    scope = check_scope(scope, "--scope")
    relpath = repo.memory_relpath(actor.id)
    memory_text = read_current(repo.root, relpath)
    if memory_text is not None:
        parse_memory(memory_text, actor.id, repo.config.memory, relpath)
    rules = doctrine_in_scope(repo, scope)
    settings = repo.config.harvest
    request = HarvestRequest(
        person=actor.id,
        transcript=transcript,
        memory_text=memory_text or new_memory_text(actor.id, repo.config.memory),
        doctrine_text=render_doctrine(rules),
        sections=repo.config.memory.sections,
        max_proposals=settings.max_proposals,
        scope=scope,
        model=settings.model,
        outcomes=outcomes,
        doctrine_rules=tuple(rule.instruction for rule in rules),
        timeout_s=settings.timeout_s,
    )
    try:
        answer = _call_provider(provider, request, proposals_file, settings)
    except (ModelError, ConfigError) as exc:
        raise type(exc)(
            f"session {transcript.session_id} ({transcript_path}): {exc.message}",
            hint=(exc.hint + "; " if exc.hint else "")
            + "nothing was written and the session stays queued: harvest it again later",
        ) from exc
    with repo.locked():
        return _validate_and_write(repo, actor, transcript, transcript_path, scope, answer)


def _validate_and_write(
    repo: Repository,
    actor: Person,
    transcript: Transcript,
    transcript_path: Path,
    scope: str | None,
    answer: RawAnswer,
) -> HarvestResult:
    """Under the lock: read the memory and inbox again, validate, keep the first
    ``max_proposals`` valid proposals and commit them to the inbox."""
    relpath = repo.memory_relpath(actor.id)
    memory_text = read_current(repo.root, relpath)
    result = HarvestResult(transcript.session_id, str(transcript_path), answer.provider)
    result.folder = transcript.folder
    result.received = len(answer.proposals)
    result.notes = list(answer.notes)
    result.turns, result.user_turns = len(transcript.turns), len(transcript.user_turns())
    limit = repo.config.harvest.max_proposals
    pending_texts = [p for p in list_pending(repo, actor.id) if p.text]
    not_own = transcript.not_own()
    parsed: list[tuple[int, Proposal, object]] = []
    for index, raw in enumerate(answer.proposals, start=1):
        try:
            proposal = parse_proposal(
                raw,
                person=actor.id,
                session=transcript.session_id,
                source=answer.provider,
                scope=scope,
                where=f"proposal {index}",
            )
        except GuardError as exc:
            reason = str(exc)
            result.rejected.append(
                Rejection(index, _label(raw), reason, guard_codes(reason) or ("guard",))
            )
            continue
        except AgentmemError as exc:
            reason = str(exc).removeprefix(f"proposal {index}: ")
            result.rejected.append(Rejection(index, _label(raw), reason))
            continue
        parsed.append((index, proposal, raw))
    # A remove and an add of the same entry cancel out before validation, which would refuse
    # the add as a repeat of the entry still there and keep the remove alone.
    parsed = _cancel_out(parsed, memory_text, repo, actor.id, result)
    valid: list[tuple[int, Proposal, object]] = []
    for index, proposal, item in parsed:
        try:
            if proposal.route == "memory":
                require_memory_role(actor, "a memory proposal")
            proposal = validate(
                proposal, repo, memory_text, [p for _, p, _ in valid], pending_texts
            )
            if proposal.text and restates(proposal.text, not_own):
                raise GuardError(
                    "refused: document-content: the text restates a document or quotation "
                    "pasted in the session, not the person's own words",
                    hint="write the preference in your own words",
                )
        except GuardError as exc:
            reason = str(exc)
            result.rejected.append(
                Rejection(index, _label(item), reason, guard_codes(reason) or ("guard",))
            )
            continue
        except AgentmemError as exc:
            reason = str(exc).removeprefix(f"proposal {index}: ")
            result.rejected.append(Rejection(index, _label(item), reason))
            continue
        valid.append((index, proposal, item))
    result.rejected.sort(key=lambda r: r.index)
    # The cap counts valid proposals: validation first, then the first max_proposals are kept.
    result.kept = [p for _, p, _ in valid[:limit]]
    result.cut = max(0, len(valid) - limit)
    result.cut_items = [
        Rejection(i, _label(raw), _visible_text(raw)) for i, _, raw in valid[limit:]
    ]
    if result.kept:
        result.commit = write_to_inbox(
            repo, actor, result.kept, transcript.session_id, answer.provider
        )
    return result


def _cancel_out(
    parsed: list[tuple[int, Proposal, object]],
    memory_text: str | None,
    repo: Repository,
    person: str,
    result: HarvestResult,
) -> list[tuple[int, Proposal, object]]:
    """A ``remove`` of an entry and an ``add`` that puts the same entry back, in one answer,
    cancel out: a no-op. Both are listed as rejected (saying so) and neither is kept, so the
    entry stays as it is. The add is the same entry when it holds the removal's target or is
    as similar to the removed entry (or the target) as a repeat would be."""
    removals = [(i, p) for i, p, _ in parsed if p.action == "remove" and p.target]
    if not removals or not any(p.action == "add" and p.text for _, p, _ in parsed):
        return parsed
    config = repo.config.memory
    base = memory_text if memory_text is not None else new_memory_text(person, config)
    entries = parse_memory(base, person, config, repo.memory_relpath(person)).entries()
    dropped: dict[int, int] = {}
    for i, removal in removals:
        assert removal.target is not None
        removed = [e.text for e in entries if nfc(removal.target) in nfc(e.text)]
        removed = removed or [removal.target]
        for j, addition, _ in parsed:
            if i in dropped or j in dropped or addition.action != "add" or not addition.text:
                continue
            same = removal.target in addition.text or any(
                similarity(text, addition.text) >= DUPLICATE_ENTRY_SCORE
                for text in {*removed, removal.target}
            )
            if same:
                dropped[i], dropped[j] = j, i
    for index, _, raw in parsed:
        if index in dropped:
            result.rejected.append(
                Rejection(
                    index,
                    _label(raw),
                    f"cancels proposal {dropped[index]} (a remove and an add of the same "
                    "entry): a no-op, the entry stays as it is",
                )
            )
    return [v for v in parsed if v[0] not in dropped]


def doctrine_in_scope(repo: Repository, scope: str | None) -> list[Rule]:
    """The active, approved rules that apply to ``scope`` (every active approved rule when no
    scope is given); unreadable rule files are left out (``check`` reports them)."""
    rules, _errors = load_rules_and_errors(repo.root)
    return [
        rule
        for rule in rules
        if rule.status == "active"
        and rule.approval is not None
        and rule.approval.content_sha256 == content_sha256(rule)
        and (scope is None or applies_to(rule.scope, scope))
    ]


def render_doctrine(rules: Sequence[Rule]) -> str:
    """``- [id] (scope) instruction`` lines, one per rule (the model request's doctrine block)."""
    return "\n".join(f"- [{r.id}] ({r.scope or 'no scope'}) {r.instruction}" for r in rules)
