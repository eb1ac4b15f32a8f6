"""The pure planner: proposal + current text → the new text, its diff and its fill level.

Nothing here touches the disk. Every check (entry shape, guard, target, budget) runs before the
writer is called, so a failure leaves every file as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentmem.apply.change import FileChange
from agentmem.config import MemoryConfig
from agentmem.errors import InvalidMemoryError, ProposalError
from agentmem.memory.file import (
    BudgetStatus,
    add_entry,
    budget_status,
    modify_entry,
    new_memory_text,
    over_budget,
    parse_memory,
    remove_entry,
    validate_entry_text,
)
from agentmem.memory.records import Record, strip_markers, today_iso, with_dates
from agentmem.proposals.model import Proposal

if TYPE_CHECKING:
    from agentmem.guard import Finding

__all__ = ["FileChange", "MemoryPlan", "budget_after", "check_entry", "plan_memory"]


@dataclass(frozen=True)
class MemoryPlan:
    """The planned change of one memory file for one proposal, with the fill level after it.

    ``base`` is the text the plan was made from: the file, or the empty layout for a new file;
    ``record`` the record the added or modified entry carries (None for a remove).
    """

    proposal: Proposal
    change: FileChange
    budget: BudgetStatus
    base: str
    record: Record | None = None

    def diff(self) -> str:
        """The change as a person reviews it: a unified diff of the file as it reaches a
        prompt, each entry line ``- `` and its text (:func:`strip_markers`; a first entry
        against the empty layout). The record is shown apart (:attr:`record`), never on a
        diff line."""
        old = self.change.old if self.change.old is not None else self.base
        readable = FileChange(
            self.change.path, strip_markers(old), strip_markers(self.change.new or "")
        )
        return readable.diff()


# "… rest unchanged …", "[existing content]", "reste inchangé": a model (or a person) that
# abbreviates the entry it rewrites. The entry is stored as written, so the rest would be lost.
_ELISION = re.compile(
    r"\b(?:the )?(?:rest|remainder)(?: of (?:the )?(?:entry|text|line|file|content|section))?"
    r" (?:is |stays |remains )?(?:unchanged|as before|as is|omitted|elided|the same)\b"
    r"|\[ *(?:existing|unchanged|previous|original|current|same|rest of(?: the)?) "
    r"(?:content|text|entry|entries|rules?|lines?|code) *\]"
    r"|(?:…|\.\.\.) *(?:existing|unchanged|previous|original) (?:content|text|entry|code)\b"
    r"|\b(?:le )?(?:reste|suite)(?: (?:du texte|de l'entrée|du contenu))? (?:est |reste )?"
    r"(?:inchangée?s?|sans changement|identiques?)\b"
    r"|\[ *(?:contenu|texte|entrée) (?:existante?|inchangée?|précédente?|actuelle?) *\]",
    re.IGNORECASE,
)


def check_entry(text: str, config: MemoryConfig, where: str) -> list[Finding]:
    """An entry's shape (docs/design/memory.md §Memory file), no elision marker, then the guard
    (§Guard); returns guard warnings.

    Raises :class:`InvalidMemoryError` or :class:`GuardError`.
    """
    # lazy: compiled patterns, paid only by commands that write
    from agentmem import guard

    validate_entry_text(text, config, where)
    elided = _ELISION.search(text)
    if elided is not None:
        raise InvalidMemoryError(
            f"{where}: the text holds an elision marker at {elided.start()} (such as "
            "'… rest unchanged …' or '[existing content]'): an entry is stored exactly as "
            "written, so the elided part would be lost",
            hint="write the whole entry as it should read",
        )
    return guard.check(text, where=where, max_chars=config.entry_max_chars, kind="entry")


def new_record(
    basis: str, scope: str | None, config: MemoryConfig, today: str | None = None
) -> Record:
    """The record of an entry accepted (or confirmed) ``today``: its basis and scope, review
    and expiry dates from ``memory.retention`` (docs/decisions/)."""
    retention = config.retention[basis]
    since = today or today_iso()
    return with_dates(Record(basis, scope), since, retention.review_days, retention.expire_days)


def plan_memory(
    proposal: Proposal, current: str | None, config: MemoryConfig, relpath: str
) -> MemoryPlan:
    """Plan one memory proposal against the file's current text (None: the file is new).

    An added or modified entry carries its record (basis, scope, today's date, review and
    expiry from ``memory.retention``; :mod:`agentmem.memory.records`).

    Raises :class:`ProposalError` (wrong route), :class:`InvalidMemoryError` (file or entry
    structure), :class:`GuardError`, :class:`ApplyConflictError` (target matches zero or several
    entries, unknown section) or :class:`BudgetExceededError` (with the figures).
    """
    if proposal.route != "memory":
        raise ProposalError(f"{proposal.id}: a '{proposal.route}' proposal is not a memory change")
    where = f"{relpath} ({proposal.id})"
    base = current if current is not None else new_memory_text(proposal.person, config)
    memory = parse_memory(base, proposal.person, config, relpath)
    record: Record | None = None
    if proposal.action == "add":
        assert proposal.text is not None and proposal.section is not None
        check_entry(proposal.text, config, where)
        record = new_record(proposal.basis, proposal.scope, config)
        updated = add_entry(memory, proposal.section, proposal.text, where, record)
    elif proposal.action == "modify":
        assert proposal.text is not None and proposal.target is not None
        check_entry(proposal.text, config, where)
        record = new_record(proposal.basis, proposal.scope, config)
        updated = modify_entry(memory, proposal.target, proposal.text, where, record)
    else:
        assert proposal.target is not None
        updated = remove_entry(memory, proposal.target, where)
    new_text = updated.render()
    budget = budget_status(new_text, config)
    if budget.level == "over":
        raise over_budget(budget, relpath, memory.entries())
    return MemoryPlan(proposal, FileChange(relpath, current, new_text), budget, base, record)


def budget_after(
    proposals: list[Proposal], current: str | None, config: MemoryConfig, relpath: str, person: str
) -> BudgetStatus:
    """The fill level of the memory file once every memory ``add`` of ``proposals`` is in it,
    counted as :func:`plan_memory` counts one (its records' markers left out): what a batch
    needs before any of it is filed (``agentmem import``). Nothing is refused here."""
    base = current if current is not None else new_memory_text(person, config)
    memory = parse_memory(base, person, config, relpath)
    for proposal in proposals:
        if proposal.route == "memory" and proposal.action == "add" and proposal.text:
            assert proposal.section is not None
            record = new_record(proposal.basis, proposal.scope, config)
            memory = add_entry(memory, proposal.section, proposal.text, relpath, record)
    return budget_status(memory.render(), config)
