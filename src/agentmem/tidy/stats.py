"""``agentmem stats`` (docs/design/overview.md §Commands, §Recall): what the memory holds and what
happened to it, per person and for the team — read from the files, ONE ``git log`` and the
local logs, never written anywhere.

Sources:

- the memory files: entries by basis (declared, inferred, unrecorded) and by age (the record's
  ``since``), expired and review-due entries now (retired scopes included), the fill level,
  contradicting pairs now (``tidy``'s detector);
- the history, in one ``git log`` read through :func:`agentmem.trailers.parse`: proposals
  accepted, accepted after an edit or a correction, rejected (each proposal of a rejection);
  entries reconfirmed (``memory reconfirm``) and corrected (an accepted ``modify``, a
  ``memory edit``); erasures (``Agentmem-Erased``); by the person in ``Agentmem-Actor``;
- ``.agentmem/harvested.jsonl`` (this clone): harvest proposals the guard refused, by the class
  of its finding, and those refused for another reason;
- ``.agentmem/usage.jsonl`` (this clone): doctrine audits, rules applied, rules not applied by
  reason; chat blocks given.

Conflicts are counted as they exist: contradicting pairs in the memory files now, and the live
doctrine rules that conflict with another now (``check``'s ``doctrine-conflict``, team only).
No conflict is recorded when it is resolved, so "resolved" is reported as unknown (None) with a
note.

Who sees what (``governance.may_read``): a person sees their own figures and the team's totals;
an admin sees everyone's. Trends are counted per week (Monday first), oldest first.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from agentmem import governance
from agentmem import trailers as tr
from agentmem.delivery.usage import log_text, read_chats, read_usage
from agentmem.doctrine.conflicts import conflicts_among, profile
from agentmem.doctrine.parse import load_rules_and_errors
from agentmem.errors import AgentmemError
from agentmem.harvest.queue import HARVESTED_FILE, LOCAL_DIR
from agentmem.memory.file import budget_status, parse_memory
from agentmem.proposals.inbox import list_pending
from agentmem.store import gitio, regular
from agentmem.store.repo import Person, Repository
from agentmem.tidy.hygiene import _Maker, _pairs

AGES = ("under 30 days", "30-89 days", "90-364 days", "a year or more", "undated")
SERIES = ("accepted", "rejected", "refused", "audits", "chats")
WEEKS = 8
NO_RESOLUTION = (
    "conflicts: 'flagged' counts the contradicting pairs in the memory files now (tidy's "
    "detector), 'pending_flagged' the pending proposals validation flagged as contradicting an "
    "entry, 'doctrine_rules' the live rules in conflict now (check's doctrine-conflict); how a "
    "conflict was resolved is not recorded in history, so 'resolved' is unknown"
)


@dataclass
class Figures:
    """The figures of one person, or of the team (the sum, plus what only the team has)."""

    entries: int = 0
    basis: Counter[str] = field(default_factory=Counter)
    age: Counter[str] = field(default_factory=Counter)
    expired: int = 0
    review_due: int = 0
    fill: dict[str, Any] = field(default_factory=dict)
    accepted: int = 0
    edited: int = 0
    rejected: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    invalid: int = 0
    conflicts: int = 0
    pending_flagged: int = 0
    rule_conflicts: int = 0
    reconfirmed: int = 0
    corrected: int = 0
    erasures: int = 0
    audits: int = 0
    rules_applied: int = 0
    rules_not_applied: Counter[str] = field(default_factory=Counter)
    chats: int = 0
    trend: dict[str, list[int]] = field(default_factory=dict)

    def add(self, other: Figures) -> None:
        for name in (
            "entries expired review_due accepted edited rejected invalid conflicts pending_flagged "
            "reconfirmed "
            "corrected erasures audits rules_applied chats"
        ).split():
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("basis", "age", "refused", "rules_not_applied"):
            getattr(self, name).update(getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        return {
            "entries": {
                "total": self.entries,
                "basis": {b: self.basis.get(b, 0) for b in ("declared", "inferred", "unrecorded")},
                "age": {a: self.age.get(a, 0) for a in AGES},
                "expired": self.expired,
                "review_due": self.review_due,
            },
            "fill": self.fill,
            "proposals": {
                "accepted": self.accepted,
                "edited": self.edited,
                "rejected": self.rejected,
                "refused_by_guard": dict(sorted(self.refused.items())),
                "invalid": self.invalid,
            },
            "conflicts": {
                "flagged": self.conflicts,
                "pending_flagged": self.pending_flagged,
                "doctrine_rules": self.rule_conflicts,
                "resolved": None,
            },
            "entries_reconfirmed": self.reconfirmed,
            "entries_corrected": self.corrected,
            "erasures": self.erasures,
            "doctrine": {
                "audits": self.audits,
                "applied": self.rules_applied,
                "not_applied": dict(sorted(self.rules_not_applied.items())),
            },
            "chat_blocks": self.chats,
            "trend": self.trend,
        }


@dataclass
class Stats:
    """``agentmem stats``: ``team`` totals, ``people`` the persons the actor may see, ``weeks``
    the Mondays of the trend columns, ``notes`` what the figures cannot say."""

    date: str
    weeks: list[str]
    team: Figures
    people: dict[str, Figures]
    hidden: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "weeks": self.weeks,
            "team": self.team.to_dict(),
            "people": [{"person": p, **f.to_dict()} for p, f in self.people.items()],
            "people_not_shown": self.hidden,
            "notes": self.notes,
        }


def _age(since: str | None, today: date) -> str:
    if not since:
        return AGES[-1]
    try:
        days = (today - date.fromisoformat(since)).days
    except ValueError:
        return AGES[-1]
    return AGES[0] if days < 30 else AGES[1] if days < 90 else AGES[2] if days < 365 else AGES[3]


class _Weeks:
    """Week columns: the Monday of each of the last :data:`WEEKS` weeks up to ``today``."""

    def __init__(self, today: date) -> None:
        monday = today - timedelta(days=today.weekday())
        self.mondays = [monday - timedelta(weeks=WEEKS - 1 - i) for i in range(WEEKS)]

    def index(self, stamp: str) -> int | None:
        try:
            day = date.fromisoformat(stamp[:10])
        except ValueError:
            return None
        for i in range(WEEKS - 1, -1, -1):
            if day >= self.mondays[i]:
                return i if day < self.mondays[i] + timedelta(weeks=1) else None
        return None


def _bump(figures: Figures, weeks: _Weeks, series: str, stamp: str, count: int = 1) -> None:
    at = weeks.index(stamp)
    if at is not None:
        figures.trend.setdefault(series, [0] * WEEKS)[at] += count


def _memory(repo: Repository, person: str, figures: Figures, today: date, notes: list[str]) -> None:
    relpath = repo.memory_relpath(person)
    config = repo.config
    try:
        text = regular.read_text(repo.root, relpath, universal_newlines=True)
        if text is None:
            return
        memory = parse_memory(text, person, config.memory, relpath)
    except AgentmemError as exc:
        notes.append(f"{relpath}: not counted ({exc})")
        return
    day = today.isoformat()
    entries = memory.entries()
    figures.entries += len(entries)
    for entry in entries:
        record = entry.record
        figures.basis[record.basis_label] += 1
        figures.age[_age(record.since, today)] += 1
        state = record.state(day, config.retired_scopes) if record.marked else "ok"
        if state == "expired":
            figures.expired += 1
        elif state == "review due":
            figures.review_due += 1
    status = budget_status(text, config.memory)
    figures.fill = {
        "used": status.used,
        "budget": status.budget,
        "ratio": round(status.ratio, 4),
        "level": status.level,
    }
    figures.conflicts += sum(
        1 for f in _pairs(entries, _Maker(person, "stats")) if f.kind == "contradiction"
    )


def _pending(repo: Repository, person: str, figures: Figures, notes: list[str]) -> None:
    """Pending proposals that validation flagged as contradicting an entry."""
    try:
        pending = list_pending(repo, person)
    except AgentmemError as exc:
        notes.append(f"inbox of {person}: not counted ({exc})")
        return
    figures.pending_flagged += sum(1 for p in pending if p.contradicts)


def _history(repo: Repository, people: dict[str, Figures], team: Figures, weeks: _Weeks) -> None:
    """Decisions, reconfirmations, corrections and erasures from ONE ``git log``."""
    for commit in gitio.log(repo.root):
        values = commit.trailer_values
        action = (values.get(tr.ACTION) or [""])[-1]
        actor = tr.actor_id((values.get(tr.ACTOR) or [""])[-1])
        mine = Figures()
        decision = (values.get(tr.DECISION) or [""])[-1]
        if decision == "accepted":
            if values.get(tr.EDITED) or values.get(tr.CORRECTED):
                mine.edited += 1
            else:
                mine.accepted += 1
            if action == "modify" and (values.get(tr.ROUTE) or [""])[-1] == "memory":
                mine.corrected += 1
            _bump(mine, weeks, "accepted", commit.date)
        elif decision == "rejected":
            count = len(values.get(tr.PROPOSAL, [])) or 1
            mine.rejected += count
            _bump(mine, weeks, "rejected", commit.date, count)
        elif decision == "edited" and action == "edit":
            mine.corrected += 1
        if action == "reconfirm" and (values.get(tr.ROUTE) or [""])[-1] == "memory":
            mine.reconfirmed += max(1, commit.subject.count("#"))
        if action == "erase":
            team.erasures += 1
            erased = (values.get(tr.ERASED) or [""])[-1]
            whose = erased.rsplit(" of ", 1)[-1] if " of " in erased else None
            if whose in people:
                people[whose].erasures += 1
        if actor in people:
            _merge(people[actor], mine)
        _merge(team, mine)


def _merge(into: Figures, mine: Figures) -> None:
    into.add(mine)
    for series, counts in mine.trend.items():
        row = into.trend.setdefault(series, [0] * WEEKS)
        for i, n in enumerate(counts):
            row[i] += n


def _harvests(repo: Repository, people: dict[str, Figures], team: Figures, weeks: _Weeks) -> None:
    """Refusals recorded by harvests in this clone (``.agentmem/harvested.jsonl``)."""
    try:
        text = (repo.root / LOCAL_DIR / HARVESTED_FILE).read_text(
            encoding="utf-8", errors="replace"
        )
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        refused = data.get("refused")
        invalid = data.get("invalid")
        mine = Figures()
        if isinstance(refused, dict):
            for reason, count in refused.items():
                if isinstance(reason, str) and isinstance(count, int) and count > 0:
                    mine.refused[reason] += count
        if isinstance(invalid, int) and invalid > 0:
            mine.invalid += invalid
        total = sum(mine.refused.values())
        if total:
            _bump(mine, weeks, "refused", str(data.get("harvested_at") or ""), total)
        actor = data.get("actor")
        if isinstance(actor, str) and actor in people:
            _merge(people[actor], mine)
        _merge(team, mine)


def _usage(repo: Repository, people: dict[str, Figures], team: Figures, weeks: _Weeks) -> None:
    """Audits (rules applied, not applied by reason) and chat blocks from the usage log (read
    once for both)."""
    text = log_text(repo.root)
    for record in read_usage(repo.root, text).records:
        mine = Figures(audits=1)
        for rule in record.rules:
            if rule.applied:
                mine.rules_applied += 1
            else:
                mine.rules_not_applied[rule.reason or "unknown"] += 1
        if record.drafts:  # the drafts in scope, counted
            mine.rules_not_applied["draft"] += record.drafts
        for reason, count in record.others:  # rules outside the scope, one count per reason
            mine.rules_not_applied[reason] += count
        _bump(mine, weeks, "audits", record.time)
        if record.actor in people:
            _merge(people[record.actor], mine)
        _merge(team, mine)
    for chat in read_chats(repo.root, text):
        mine = Figures(chats=1)
        _bump(mine, weeks, "chats", chat.time)
        if chat.person in people:
            _merge(people[chat.person], mine)
        _merge(team, mine)


def collect(repo: Repository, actor: Person, person: str | None, today: date) -> Stats:
    """The figures ``actor`` may see: their own (or, for an admin, everyone's, or ``person``'s)
    and the team's totals. Raises GovernanceError when ``person`` is someone else's and the
    actor is no admin, UsageError for an unknown person."""
    everyone = repo.people()
    if person is not None:
        repo.person(person)
        governance.require_read(
            actor,
            person,
            f"the figures of {person} are",
            "run agentmem stats for your own figures and the team's totals",
        )
    weeks = _Weeks(today)
    all_figures = {p: Figures() for p in sorted(everyone)}
    team = Figures()
    notes: list[str] = []
    for pid, figures in all_figures.items():
        if governance.may(everyone[pid].role, governance.HAVE_MEMORY):
            _memory(repo, pid, figures, today, notes)
            _pending(repo, pid, figures, notes)
    _history(repo, all_figures, team, weeks)
    _harvests(repo, all_figures, team, weeks)
    _usage(repo, all_figures, team, weeks)
    files = [f.fill for f in all_figures.values() if f.fill]
    rules, _broken = load_rules_and_errors(repo.root)
    profiles = [p for p in (profile(r) for r in rules) if p is not None]
    team.rule_conflicts = len(conflicts_among(profiles))
    for figures in all_figures.values():
        team.entries += figures.entries
        team.basis.update(figures.basis)
        team.age.update(figures.age)
        team.expired += figures.expired
        team.review_due += figures.review_due
        team.conflicts += figures.conflicts
        team.pending_flagged += figures.pending_flagged
    team.fill = {
        "files": len(files),
        "warning": sum(1 for f in files if f["level"] == "warning"),
        "over": sum(1 for f in files if f["level"] == "over"),
        "mean_ratio": round(sum(f["ratio"] for f in files) / len(files), 4) if files else 0.0,
    }
    for figures in (team, *all_figures.values()):
        for series in SERIES:
            figures.trend.setdefault(series, [0] * WEEKS)
        figures.trend = {s: figures.trend[s] for s in SERIES}
    wanted = [person] if person else [p for p in all_figures if governance.may_read(actor, p)]
    shown = {p: all_figures[p] for p in wanted}
    notes.append(NO_RESOLUTION)
    notes.append(
        "guard refusals and doctrine usage come from this clone's .agentmem/ logs "
        "(harvested.jsonl, usage.jsonl); history figures from git"
    )
    return Stats(
        today.isoformat(),
        [m.isoformat() for m in weeks.mondays],
        team,
        shown,
        len(all_figures) - len(shown),
        notes,
    )
