"""Every read of the review pages (docs/design/web.md §Web), in ONE module: what a page shows comes
from here, through the functions the CLI's reading commands call (``inbox``, ``memory
show|blame|due``, ``doctrine list|show|history|diff|due``, ``usage``, ``search``), so a page
never shows what the CLI would not show the same person. A memory file is read through the
served view (:func:`agentmem.delivery.served.serve_file`, docs/design/served.md §Served view):
the page shows what an agent is given, labelled as the chat block labels it, with the served
view's notes, and a decision is planned against that text. Nothing here writes.

Each view carries a ``stamp`` of what it was computed from (an inbox file, a memory file, a
rule's version): a form posts it back, and :mod:`agentmem.web.actions` refuses a decision taken
on a page that no longer matches the repository (a stale form).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from agentmem import governance as gov
from agentmem.apply.planner import MemoryPlan, plan_memory
from agentmem.apply.writer import read_current
from agentmem.delivery.context import build_chat, entry_label, withhold_reason
from agentmem.delivery.served import FIX_MEMORY, ServedFile, serve_file
from agentmem.doctrine.compare import diff_lines, whole
from agentmem.doctrine.drafts import plan_from_proposal, similar_rules
from agentmem.doctrine.index import Brief, Briefs, brief_of, read_briefs, rules_of
from agentmem.doctrine.lifecycle import due, preview_approval
from agentmem.doctrine.model import (
    STATUSES,
    DoctrineError,
    Rule,
    UnknownRuleError,
    applies_to,
    content_sha256,
    missing_for_activation,
    today,
)
from agentmem.doctrine.parse import load_rule, parse_rule_text
from agentmem.doctrine.versions import rule_history, version_content
from agentmem.errors import AgentmemError, UsageError
from agentmem.memory.file import Entry, new_memory_text, parse_memory
from agentmem.memory.records import Record, today_iso
from agentmem.proposals.inbox import Broken, foreign, proposal_relpath, read_inbox
from agentmem.proposals.model import Proposal
from agentmem.proposals.review import contradicted_entries, require_committed_memory
from agentmem.proposals.trail import AuditRecord, BlameEntry, audit_log, blame_memory
from agentmem.store import gitrun, regular
from agentmem.store.repo import LOCAL_DIR, Person, Repository


def digest(*parts: str | bytes | None) -> str:
    """A short fingerprint of what a page showed (hex, 16 characters)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else (part or b"")
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()[:16]


def in_words(exc: AgentmemError) -> str:
    """A refusal as one line of a page: its message, then what to do (the CLI's hint)."""
    return f"{exc.message} — what to do: {exc.hint}" if exc.hint else exc.message


def days_since(stamp: str | None, on: date | None = None) -> int:
    """Whole days from an ISO date or time (``2026-12-01``, ``2026-12-01T10:00:00Z``) to
    ``on`` (default: agentmem's clock, :func:`agentmem.doctrine.model.today`); 0 when unknown."""
    if not stamp:
        return 0
    try:
        day = date.fromisoformat(stamp[:10])
    except ValueError:
        return 0
    return max(0, ((on or today()) - day).days)


# -- who reads whose -----------------------------------------------------------------------------


def reader(repo: Repository, person: str | None) -> tuple[Person, str]:
    """The actor (the git identity of this clone, as for the CLI) and whose memory and inbox a
    page shows: the actor's, or ``person``'s where the CLI's ``--person`` would show it
    (``governance.require_read``, the same refusal word for word)."""
    actor = repo.actor()
    if not person or person == actor.id:
        return actor, actor.id
    repo.person(person)
    gov.require_read(
        actor,
        person,
        f"{person}'s memory and inbox are",
        "ask them, or an admin, to share what you need",
    )
    return actor, person


_CACHE_LOCK = threading.Lock()


def served_memory(repo: Repository, person: str) -> ServedFile:
    """``person``'s memory file as the served view gives it to an agent (committed, approved
    bytes with one-line notes: docs/design/served.md §Served view). The history judge's
    verdict on each commit is kept in ``.agentmem/hotcache.json`` (kind ``judged``, by commit
    id), as on the hot path: a page load judges only a commit it has not judged before."""
    # lazy: the verdict cache only for a page that reads a memory file
    from agentmem.store.hotcache import HotCache

    # the server's threads write the one cache file in turn (its temp name is per process)
    with _CACHE_LOCK:
        cache = HotCache(repo.root / LOCAL_DIR)
        try:
            return serve_file(repo.root, repo.memory_relpath(person), person, cache, FIX_MEMORY)
        finally:
            cache.save()


# -- the badge -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """One item that waits for a decision: a proposal for its owner, a rule for an admin."""

    kind: str  # proposal | rule
    ident: str
    label: str
    since: str
    days: int
    late: bool
    href: str


@dataclass(frozen=True)
class Badge:
    """What waits, oldest first: ``proposals`` for the actor, ``rules`` for an admin (drafts
    and active rules past their review date); ``late`` of them older than
    ``review.remind_days``."""

    proposals: int
    rules: int
    items: tuple[Waiting, ...]
    remind_days: int

    @property
    def late(self) -> int:
        return sum(1 for item in self.items if item.late)

    @property
    def late_proposals(self) -> bool:
        return any(item.late for item in self.items if item.kind == "proposal")

    @property
    def late_rules(self) -> bool:
        return any(item.late for item in self.items if item.kind == "rule")


#: ``(rule id, version) → proposed_at`` of the drafts read so far: the badge on every page
#: parses only the draft files it has not seen at that version.
_PROPOSED_AT: dict[tuple[str, int], str] = {}


def _draft_dates(repo: Repository, found: Briefs, drafts: list[Brief]) -> dict[str, str]:
    dates: dict[str, str] = {}
    unknown = []
    for brief in drafts:
        key = (brief.id, brief.version)
        rule = found.parsed.get(brief.id)
        if rule is not None:
            _PROPOSED_AT[key] = rule.proposed_at
        if key in _PROPOSED_AT:
            dates[brief.id] = _PROPOSED_AT[key]
        else:
            unknown.append(brief.id)
    for rule in rules_of(repo.root, found, unknown) if unknown else []:
        _PROPOSED_AT[(rule.id, rule.version)] = rule.proposed_at
        dates[rule.id] = rule.proposed_at
    return dates


def badge(repo: Repository, pending: list[Proposal], found: Briefs | None = None) -> Badge:
    """The header of every page: the actor's pending proposals and the rules that wait for an
    admin (drafts, active rules past their review date), oldest first; an item older than
    ``review.remind_days`` is ``late``. Rules come from the rule index (only the drafts not
    seen at their version are read)."""
    remind = repo.config.review.remind_days
    found = found if found is not None else served_briefs(repo)
    briefs = found.briefs
    items: list[Waiting] = []
    for p in pending:
        days = days_since(p.created_at)
        items.append(
            Waiting("proposal", p.id, p.summary(), p.created_at[:10], days, days > remind, "/inbox")
        )
    now = today().isoformat()
    drafts = [b for b in briefs if b.status == "draft"]
    due = [b for b in briefs if b.status == "active" and b.review_due and b.review_due < now]
    dates = _draft_dates(repo, found, drafts)
    for b in drafts:
        since = dates.get(b.id, "")
        days = days_since(since)
        items.append(
            Waiting(
                "rule",
                b.id,
                f"draft {b.id} v{b.version}: {b.label}",
                since[:10],
                days,
                days > remind,
                f"/doctrine/rule/{b.id}",
            )
        )
    for b in due:
        days = days_since(b.review_due)
        items.append(
            Waiting(
                "rule",
                b.id,
                f"{b.id} v{b.version}: review due {b.review_due}",
                b.review_due or "",
                days,
                days > remind,
                f"/doctrine/rule/{b.id}",
            )
        )
    items.sort(key=lambda w: (w.since or "9999", w.ident))
    return Badge(len(pending), len(drafts) + len(due), tuple(items), remind)


# -- the inbox -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Contradiction:
    number: int
    section: str
    text: str
    why: str


@dataclass(frozen=True)
class ProposalView:
    """One pending proposal as the inbox shows it: the diff against the memory file as it is
    now (``plan``), or why it cannot be applied (``problem``); for a doctrine proposal, the
    draft it would become (``draft_id``, ``draft_scope``, ``similar``) or why not."""

    proposal: Proposal
    stamp: str
    days: int
    late: bool
    plan: MemoryPlan | None = None
    problem: str | None = None
    contradicts: tuple[Contradiction, ...] = ()
    foreign: str | None = None
    draft_id: str | None = None
    draft_scope: str | None = None
    similar: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: what the diff is against: the memory as an agent is given it now (the served text)
    before: str = ""


@dataclass(frozen=True)
class InboxView:
    person: str
    actor: Person
    proposals: list[ProposalView]
    broken: list[Broken]
    sections: tuple[str, ...]
    memory_text: str
    own: bool
    #: the served view's notes on the memory file (an uncommitted edit, a change that is not
    #: the owner's decision), each with the command that fixes it
    notes: tuple[str, ...] = ()


def proposal_stamp(repo: Repository, proposal: Proposal, served: ServedFile) -> str:
    """What a decision on ``proposal`` was shown: its inbox file, the memory file as an agent
    is given it (the served blob) and as the work tree holds it (what an accept writes on)."""

    data = regular.read_bytes(repo.root, proposal_relpath(proposal))
    return digest(data, served.blob, served.work)


def inbox_view(repo: Repository, person: str | None = None) -> InboxView:
    """The pending proposals of the actor (or of ``person`` where the CLI shows them), memory
    ones first, each planned as ``review --accept`` plans it (on the file as it is now) and
    shown as what accepting changes in what an agent is given: its diff against the served
    text, the fill level after it, the entries it contradicts, who put it there when not its
    owner; the served view's notes on the file."""
    actor, who = reader(repo, person)
    box = read_inbox(repo, who)
    pending = box.proposals
    strange = foreign(repo, pending, box.read)  # the bytes parsed: not read again
    relpath = repo.memory_relpath(who)
    served = served_memory(repo, who)
    current = read_current(repo.root, relpath)
    empty = new_memory_text(who, repo.config.memory)
    base = current if current is not None else empty
    before = served.text if served.text is not None else empty
    entries: list[Entry] | None = None
    try:
        entries = parse_memory(base, who, repo.config.memory, relpath).entries()
    except AgentmemError:
        entries = None  # each plan says what is wrong with the file
    uncommitted: str | None = None
    try:
        require_committed_memory(repo, relpath, current)
    except AgentmemError as exc:
        uncommitted = in_words(exc)
    remind = repo.config.review.remind_days
    views: list[ProposalView] = []
    memory = [p for p in pending if p.route == "memory"]
    doctrine = [p for p in pending if p.route == "doctrine"]
    for p in memory + doctrine:
        stamp = proposal_stamp(repo, p, served)
        days = days_since(p.created_at)
        common = {
            "proposal": p,
            "stamp": stamp,
            "days": days,
            "late": days > remind,
            "foreign": strange.get(p.id),
            "before": before,
        }
        if p.route == "doctrine":
            views.append(ProposalView(**common, **_draft_preview(repo, actor, p)))  # type: ignore[arg-type]
            continue
        plan: MemoryPlan | None = None
        problem = uncommitted
        if problem is None:
            try:
                plan = plan_memory(p, current, repo.config.memory, relpath)
            except AgentmemError as exc:
                problem = in_words(exc)
        contradicts = tuple(
            Contradiction(e.number, e.section, e.text, why.describe())
            for e, why in (contradicted_entries(repo, p, entries) if entries is not None else [])
        )
        views.append(
            ProposalView(**common, plan=plan, problem=problem, contradicts=contradicts)  # type: ignore[arg-type]
        )
    return InboxView(
        who,
        actor,
        views,
        box.broken,
        tuple(repo.config.memory.sections),
        base,
        who == actor.id,
        served.notes,
    )


def _draft_preview(repo: Repository, actor: Person, proposal: Proposal) -> dict[str, object]:
    """The draft rule a doctrine proposal would become (what ``review`` shows), or why not."""

    try:
        plan = plan_from_proposal(repo, proposal)
    except AgentmemError as exc:
        return {"problem": in_words(exc)}
    return {
        "draft_id": plan.rule.id,
        "draft_scope": plan.rule.scope,
        "similar": tuple(s.describe() for s in plan.similar),
        "warnings": tuple(plan.warnings),
    }


def pending_proposal(repo: Repository, proposal_id: str) -> ProposalView | None:
    """One pending proposal of the actor as the inbox shows it, or None."""
    view = inbox_view(repo)
    return next((v for v in view.proposals if v.proposal.id == proposal_id), None)


def decided(repo: Repository, person: str, proposal_id: str) -> AuditRecord | None:
    """The audit commit that decided ``proposal_id`` (accepted, edited or rejected), newest
    first; None when no commit names it as decided."""
    for record in audit_log(repo, person=person):
        if proposal_id in record.proposals and record.action not in (None, "propose"):
            return record
    return None


def pending_ids(repo: Repository, person: str) -> list[str]:
    return [p.id for p in read_inbox(repo, person).proposals]


# -- memory --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryView:
    """One entry of a memory file as an agent is given it: its record, where it came from (the
    blame), the label the chat block gives it (``[inferred, scope S]``) and whether it is given:
    ``given`` says to whom in words, ``not_given`` why not (expired, past review under
    ``memory.on_review_due: suspend``, withheld by the guard), None when it is given."""

    number: int
    section: str
    text: str
    record: Record
    state: str  # ok | review due | expired | unrecorded
    blame: BlameEntry | None
    stamp: str
    label: str = ""
    given: str = ""
    not_given: str | None = None


@dataclass(frozen=True)
class MemoryView:
    person: str
    actor: Person
    relpath: str
    exists: bool
    sections: list[tuple[str, list[EntryView]]]
    due: list[EntryView]
    fill: str
    level: str
    stamp: str
    own: bool
    entry_max_chars: int
    #: the served view's notes (an uncommitted edit, a change that is not the owner's
    #: decision), each with the command that fixes it; the commit the text is served as of
    notes: tuple[str, ...] = ()
    commit: str = ""


def entry_stamp(number: int, text: str) -> str:
    """What a decision on entry ``number`` was shown: its number and text (an entry added or
    removed above it moves the numbers, and the form no longer matches)."""
    return digest(str(number), text)


def _given(entry: Entry, state: str, suspend: bool) -> tuple[str, str]:
    """``(label, words)`` of an entry a chat block gives in some session."""
    scope = entry.record.scope
    due = state == "review due" and not suspend
    words = f"given in sessions of scope {scope}" if scope else "given in every session"
    if due:
        words += ", marked as past its review date"
    return entry_label(entry, due), words


def memory_view(repo: Repository, person: str | None = None) -> MemoryView:
    """The memory file of the actor (or of ``person`` where ``memory show --person`` shows it)
    as the served view gives it to an agent (docs/design/served.md §Served view): numbered
    entries with basis, scope, since/review/expiry and the commit each came from, each labelled
    as the chat block labels it and marked when it is not given (expired, past review,
    withheld); the entries due for review or expired; the served view's notes."""
    actor, who = reader(repo, person)
    relpath = repo.memory_relpath(who)
    config = repo.config.memory
    served = served_memory(repo, who)
    text = served.text
    ctx = build_chat(repo, who, served=served)
    memory = parse_memory(text or new_memory_text(who, config), who, config, relpath)
    blame = {b.number: b for b in blame_memory(repo, who, (text, served.commit))}
    day = today_iso()
    retired = repo.config.retired_scopes
    suspend = config.on_review_due == "suspend"
    withheld = dict(ctx.why)
    left_out = dict(ctx.left_out)
    by_section: dict[str, list[EntryView]] = {name: [] for name in memory.sections()}
    due: list[EntryView] = []
    for entry in memory.entries():
        record = entry.record
        state = record.state(day, retired) if record.marked else "unrecorded"
        why = left_out.get(entry.number)
        not_given: str | None = None
        label, words = "", ""
        if why == "expired":
            not_given = "not given to an agent: expired"
        elif why == "review due":
            not_given = (
                "not given to an agent: past its review date (memory.on_review_due: suspend)"
            )
        else:
            reason = withheld.get(entry.number)
            if why == "out of scope":
                reason = withhold_reason(entry.text)
            if reason is not None:
                not_given = f"withheld from an agent: the entry {reason}; run agentmem check"
            else:
                label, words = _given(entry, state, suspend)
        view = EntryView(
            entry.number,
            entry.section,
            entry.text,
            record,
            state,
            blame.get(entry.number),
            entry_stamp(entry.number, entry.text),
            label,
            words,
            not_given,
        )
        by_section.setdefault(entry.section, []).append(view)
        if state in ("review due", "expired"):
            due.append(view)
    status = ctx.status
    return MemoryView(
        who,
        actor,
        relpath,
        text is not None,
        list(by_section.items()),
        due,
        status.describe(),
        status.level,
        digest(served.blob, served.work),
        who == actor.id,
        config.entry_max_chars,
        served.notes,
        served.commit,
    )


def memory_text(repo: Repository, person: str) -> str | None:
    """``person``'s memory as an agent is given it (the served text; None: nothing given)."""
    return served_memory(repo, person).text


# -- doctrine ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServedRules:
    """``doctrine/`` as the served view gives it (docs/design/served.md §Served view,
    :func:`agentmem.delivery.served.serve_doctrine`): the rule files whose work-tree file is
    NOT what an audit is given (``instead``: path → the rule given in its place, None when none
    is), and ``notes``, the served view's lines on what is left out, each with its fix. Every
    other rule file is given as the work tree (and the rule index) holds it."""

    notes: tuple[str, ...]
    instead: dict[str, Rule | None]

    def rule_id(self, path: str) -> str:
        return path[len("doctrine/") : -len(".yaml")]

    def by_id(self) -> dict[str, Rule | None]:
        return {self.rule_id(path): rule for path, rule in self.instead.items()}

    def about(self, path: str) -> list[str]:
        """The notes that name ``path`` (all of them when none does: a note names at most a
        few files, then "and N more")."""
        return [n for n in self.notes if path in n] or list(self.notes)


def _dirty_rules(repo: Repository) -> tuple[list[str], list[str]]:
    """The rule files whose work tree (or index) differs from ``HEAD``, and those git does not
    track: one ``git status`` of ``doctrine/``."""

    args = ["status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all"]
    proc = gitrun.run(repo.root, [*args, "--", "doctrine/"], None, None, text=True)
    edited: list[str] = []
    new: list[str] = []
    if proc.returncode != 0:
        return edited, new
    for item in proc.stdout.split("\0"):
        if len(item) < 4 or not item.endswith(".yaml"):
            continue
        code, path = item[:2], item[3:]
        (new if code == "??" else edited).append(path)
    return sorted(edited), sorted(new)


def served_rules(repo: Repository) -> ServedRules:
    """``doctrine/`` as an audit is given it (:func:`~agentmem.delivery.served.serve_doctrine`):
    each rule file as committed, as of its last change ``check --history`` accepts (none when
    no change is), never the work tree; the served view's notes name what the work tree changes
    or adds and what a commit that is not a decision changed."""
    # lazy: the served doctrine only for a page that shows rules
    from agentmem.delivery.served import serve_doctrine

    view = serve_doctrine(repo.root)
    edited, new = _dirty_rules(repo)
    paths = sorted(set(view.changed) | set(edited))
    texts = view.texts(paths)
    instead: dict[str, Rule | None] = {}
    for path in paths:
        raw = texts.get(path)
        rule: Rule | None = None
        if raw is not None:
            try:
                rule = parse_rule_text(regular.universal(raw.decode("utf-8")), path)
            except (UnicodeDecodeError, DoctrineError):
                rule = None
        instead[path] = rule
    instead.update(dict.fromkeys(new))
    refused = tuple(f"{path}: {why}" for path, why in view.refused)
    return ServedRules(view.notes + refused, instead)


def served_briefs(repo: Repository, served: ServedRules | None = None) -> Briefs:
    """The rule index's briefs (docs/design/search.md §Rule index) with each rule the work tree
    does not hold as given replaced by the one given (left out when none is)."""

    found = read_briefs(repo.root)
    served = served if served is not None else served_rules(repo)
    if not served.instead:
        return found
    instead = served.by_id()
    briefs = [b for b in found.briefs if b.id not in instead]
    parsed = {k: v for k, v in found.parsed.items() if k not in instead}
    for rule_id, rule in instead.items():
        if rule is not None:
            briefs.append(brief_of(rule))
            parsed[rule_id] = rule
    briefs.sort(key=lambda b: b.id)
    return Briefs(briefs, found.errors, parsed)


def served_rule(repo: Repository, rule_id: str, served: ServedRules | None = None) -> Rule:
    """Rule ``rule_id`` as an audit is given it (:func:`served_rules`). Raises the CLI's
    ``UnknownRuleError`` when there is no such rule, and one naming the note when its file is
    not given at all."""
    served = served if served is not None else served_rules(repo)
    instead = served.by_id()
    if rule_id not in instead:
        return load_rule(repo.root, rule_id)
    rule = instead[rule_id]
    if rule is None:
        load_rule(repo.root, rule_id)  # the CLI's refusal for a name that is no rule
        raise UnknownRuleError(  # a 404: no rule of that id is given
            f"doctrine/{rule_id}.yaml is not given to an audit: "
            + "; ".join(served.about(f"doctrine/{rule_id}.yaml")),
            hint="agentmem doctrine propose files a rule for an admin to approve",
        )
    return rule


@dataclass(frozen=True)
class DoctrineList:
    """The rules by status, as ``doctrine list`` lists them (from the rule index)."""

    groups: list[tuple[str, list[Brief]]]
    total: int
    shown: int
    errors: list[str]
    status: str | None
    scope: str | None
    found: Briefs
    notes: tuple[str, ...] = ()


def doctrine_list(repo: Repository, status: str | None, scope: str | None) -> DoctrineList:
    """``doctrine list [--status S] [--scope S]``: every rule file through the rule index
    (docs/design/search.md §Rule index), as the served view gives it (:func:`served_briefs`),
    grouped by status, with the served view's notes."""
    if status is not None and status not in STATUSES:
        raise UsageError(f"status {status!r}: expected one of {', '.join(STATUSES)}")
    served = served_rules(repo)
    found = served_briefs(repo, served)
    briefs = [
        b
        for b in found.briefs
        if (status is None or b.status == status) and (scope is None or applies_to(b.scope, scope))
    ]
    groups: dict[str, list[Brief]] = {s: [] for s in STATUSES}
    for b in briefs:
        groups.setdefault(b.status, []).append(b)
    return DoctrineList(
        [(s, groups[s]) for s in groups if groups[s]],
        len(found.briefs),
        len(briefs),
        [str(e) for e in found.errors],
        status,
        scope,
        found,
        served.notes,
    )


@dataclass(frozen=True)
class VersionRow:
    version: int | None
    date: str
    actor: str
    action: str
    change: str
    commit: str


@dataclass(frozen=True)
class RuleView:
    """One rule: its fields, its versions, the diff between two of them, what approval still
    needs and its problems (``doctrine show|history|diff``)."""

    rule: Rule
    stamp: str
    sha: str
    content: str
    history: list[VersionRow]
    versions: list[int]
    missing: list[str]
    compare_from: int | None
    compare_to: int | None
    changes: list[str]
    compare_error: str | None
    may_decide: bool
    #: the served view's notes on this rule's file (its work tree is not what is given)
    notes: tuple[str, ...] = ()


def rule_stamp(rule: Rule) -> str:
    """What a decision on a rule was shown: its version, status and content."""
    return digest(rule.id, str(rule.version), rule.status, content_sha256(rule))


def rule_view(
    repo: Repository, rule_id: str, compare_from: int | None = None, compare_to: int | None = None
) -> RuleView:
    """``doctrine show`` + ``history`` + ``diff --from`` of one rule as an audit is given it
    (:func:`served_rule`). Raises the CLI's ``UnknownRuleError`` for an unknown id."""
    served = served_rules(repo)
    rule = served_rule(repo, rule_id, served)
    path = f"doctrine/{rule_id}.yaml"
    notes = tuple(served.about(path)) if path in served.instead else ()
    entries = rule_history(repo.root, rule_id)
    rows = [
        VersionRow(
            e.version,
            e.date[:19],
            e.actor,
            e.action,
            f"{e.status_from} → {e.status_to}",
            e.commit,
        )
        for e in entries
    ]
    versions = sorted({e.version for e in entries if e.version is not None} | {rule.version})
    changes: list[str] = []
    error = None
    if compare_from is not None:
        target = compare_to or rule.version
        try:
            before = version_content(repo.root, rule_id, compare_from)
            after = rule if target == rule.version else version_content(repo.root, rule_id, target)
            changes = diff_lines(before, after) or ["  (the same content)"]
        except DoctrineError as exc:
            error = in_words(exc)
        compare_to = target
    actor = repo.actor()
    return RuleView(
        rule,
        rule_stamp(rule),
        content_sha256(rule),
        "\n".join(whole(rule)),
        rows,
        versions,
        missing_for_activation(rule),
        compare_from,
        compare_to,
        changes,
        error,
        gov.may(actor.role, gov.APPROVE),
        notes,
    )


@dataclass(frozen=True)
class QueueItem:
    """A rule in the admins' queue: ``ready`` to approve at ``version`` (with the changes since
    its last active version), or ``blocked`` by what :func:`preview_approval` refuses and by the
    duplicate guard; ``conflicts`` with live rules are warnings (docs/decisions/)."""

    rule: Rule
    stamp: str
    sha: str
    ready: bool
    blocks: tuple[str, ...]
    changes: tuple[str, ...]
    conflicts: tuple[str, ...]
    similar: tuple[str, ...]
    days: int
    late: bool


@dataclass(frozen=True)
class DueView:
    rule: Rule
    stamp: str
    days_overdue: int
    applied: bool
    retired: str | None


@dataclass(frozen=True)
class ReviewQueue:
    ready: list[QueueItem]
    blocked: list[QueueItem]
    due: list[DueView]
    policy: str
    notes: tuple[str, ...] = ()


def review_queue(repo: Repository) -> ReviewQueue:
    """The admins' "to review" queue: drafts ready to activate, what blocks the others
    (missing scope or limit, a duplicate, the distinct-approver rule: the refusals of
    ``doctrine approve`` word for word), and active rules past their review date
    (``doctrine due``, admin only: a member gets its refusal)."""

    due_rules = due(repo)  # raises the CLI's refusal for anyone but an admin
    served = served_rules(repo)
    instead = served.by_id()
    found = served_briefs(repo, served)
    drafts = rules_of(repo.root, found, [b.id for b in found.briefs if b.status == "draft"])
    remind = repo.config.review.remind_days
    ready: list[QueueItem] = []
    blocked: list[QueueItem] = []
    for rule in sorted(drafts, key=lambda r: (r.proposed_at, r.id)):
        blocks: list[str] = []
        changes: tuple[str, ...] = ()
        conflicts: tuple[str, ...] = ()
        if rule.id in instead:  # its file is not what is given: the note says why
            blocks += served.about(rule.path)
        else:
            try:
                preview = preview_approval(repo, rule.id)
                changes = preview.changes
                conflicts = tuple(c.describe() for c in preview.conflicts)
            except AgentmemError as exc:
                blocks.append(in_words(exc))
        similar = tuple(s.describe() for s in similar_rules(repo, rule, rule.distinct_from))
        if similar:
            blocks.append(f"similar to {len(similar)} live rule(s) (a duplicate?)")
        days = days_since(rule.proposed_at)
        item = QueueItem(
            rule,
            rule_stamp(rule),
            content_sha256(rule),
            not blocks,
            tuple(blocks),
            changes,
            conflicts,
            similar,
            days,
            days > remind,
        )
        (blocked if blocks else ready).append(item)
    return ReviewQueue(
        ready,
        blocked,
        [
            DueView(d.rule, rule_stamp(d.rule), d.days_overdue, d.applied, d.retired)
            for d in due_rules
            if d.rule.id not in instead
        ],
        repo.config.doctrine.on_review_due,
        served.notes,
    )


def current_rule(repo: Repository, rule_id: str) -> Rule:
    """Rule ``rule_id`` as an audit is given it (:func:`served_rule`)."""
    return served_rule(repo, rule_id)


# -- audits, history, search ---------------------------------------------------------------------


@dataclass(frozen=True)
class AuditsView:
    """``agentmem usage --details`` and ``usage --chat``, newest first."""

    audits: list[object]
    chats: list[object]
    bad_lines: list[int] = field(default_factory=list)


def audits_view(repo: Repository, last: int = 100) -> AuditsView:
    """The usage log: for each audit the rules considered, applied or not and why, the others by
    reason; for each chat block the entries given and those left out, with why."""
    # lazy: the usage log's reader only for this page
    from agentmem.delivery.usage import read_chats, read_usage

    log = read_usage(repo.root)
    chats = read_chats(repo.root)
    return AuditsView(
        list(reversed(log.records[-last:])),
        list(reversed(chats[-last:])),
        list(log.bad_lines),
    )


def history_view(repo: Repository, person: str | None = None) -> list[AuditRecord]:
    """``agentmem log [--person P]``: the audit commits, newest first."""
    if person:
        repo.person(person)
    return audit_log(repo, person=person)


def search_view(
    repo: Repository, query: str, areas: str | None, limit: int = 50
) -> tuple[list[object], list[str]]:
    """``agentmem search QUERY [--in AREAS]``: the hits the actor may read, and the notes."""
    # lazy: the search index (SQLite FTS5) only for this page
    from agentmem.search.query import parse_kinds, search

    kinds = parse_kinds(areas)
    result = search(repo, repo.actor(), query, kinds=kinds, limit=limit)
    return list(result.hits), list(result.notes)


def now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
