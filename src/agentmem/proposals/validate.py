"""Validating a proposal before it enters the inbox (docs/design/harvest.md §Harvest): the checks every
way in shares — a harvest, ``agentmem remember``, ``agentmem import``.

A proposal routed to doctrine passes the guard as a rule text; a memory proposal must name a
known section, plan cleanly against the current memory (target, guard, budget preview) and
repeat neither an entry of the memory nor another proposal (:data:`DUPLICATE_ENTRY_SCORE`).
A text that contradicts an entry (:mod:`agentmem.proposals.conflicts`) is not a repeat of it:
the proposal is kept, flagged (``contradicts``) for review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agentmem import guard
from agentmem.apply.planner import plan_memory
from agentmem.doctrine.similar import similarity
from agentmem.errors import ProposalError
from agentmem.memory.file import (
    find_entries,
    new_memory_text,
    parse_memory,
    validate_entry_text,
)
from agentmem.proposals.conflicts import SAME_SCORE, contradicted
from agentmem.proposals.model import Contradicts, Proposal
from agentmem.store.repo import Repository

DUPLICATE_ENTRY_SCORE = SAME_SCORE
"""Similarity (0–100) from which a text repeats an entry or a proposal."""


def validate(
    proposal: Proposal,
    repo: Repository,
    memory_text: str | None,
    accepted: Sequence[Proposal],
    pending: Sequence[Proposal] = (),
) -> Proposal:
    """The validation (docs/design/harvest.md §Harvest) of one parsed proposal against the current memory,
    the proposals kept before it in this harvest (``accepted``) and those already in the inbox
    (``pending``). Returns the proposal, flagged with the entries its text contradicts
    (``contradicts``; a ``modify`` is not flagged against its own target). Raises an
    :class:`AgentmemError` whose message is the reason."""
    config = repo.config.memory
    relpath = repo.memory_relpath(proposal.person)
    if proposal.route == "memory" and proposal.text:  # the length before any scan
        validate_entry_text(proposal.text, config, f"{relpath} ({proposal.id})")
    guard.check_personal(proposal.text or "", where=f"proposal {proposal.id}")
    guard.check_personal(proposal.justification, where=f"proposal {proposal.id} justification")
    if proposal.route == "doctrine":
        assert proposal.text is not None
        guard.check(proposal.text, where=f"doctrine proposal {proposal.id}", kind="rule")
        return proposal
    if proposal.section is not None and proposal.section not in config.sections:
        raise ProposalError(
            f"unknown section {proposal.section!r} (sections: {', '.join(config.sections)})"
        )
    if proposal.action in ("modify", "remove") and proposal.section and proposal.target:
        base = memory_text if memory_text is not None else new_memory_text(proposal.person, config)
        holders = find_entries(
            parse_memory(base, proposal.person, config, relpath), proposal.target
        )
        if holders and all(e.section != proposal.section for e in holders):
            raise ProposalError(
                f"the target is not in section {proposal.section!r} "
                f"(it is in {holders[0].section!r})",
                hint="a modify or remove targets an entry of its own section",
            )
    plan = plan_memory(proposal, memory_text, config, relpath)  # target, guard, budget preview
    flags: list[Contradicts] = []
    if proposal.action in ("add", "modify") and proposal.text:
        base = memory_text if memory_text is not None else new_memory_text(proposal.person, config)
        existing = [
            e
            for e in parse_memory(base, proposal.person, config, relpath).entries()
            if not proposal.targets(e.text)
        ]
        found = dict(contradicted(proposal.text, [e.text for e in existing]))
        flags = [Contradicts(existing[i].text, why.describe()) for i, why in found.items()]
        for n, entry in enumerate(existing):
            if n in found:
                continue
            score = similarity(proposal.text, entry.text)
            if score >= DUPLICATE_ENTRY_SCORE:
                raise ProposalError(f"repeats entry #{entry.number} ({score:.0f} % similar)")
        for other, where in [(p, "of this harvest") for p in accepted] + [
            (p, "pending in your inbox") for p in pending
        ]:
            score = similarity(proposal.text, other.text or "")
            if score >= DUPLICATE_ENTRY_SCORE and not contradicted(
                proposal.text, [other.text or ""]
            ):
                raise ProposalError(
                    f"repeats proposal {other.id} {where}",
                    hint=f"accept or reject {other.id} first ('agentmem review')",
                )
    del plan
    return replace(proposal, contradicts=tuple(flags))
