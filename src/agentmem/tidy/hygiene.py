"""Hygiene by proposal: ``agentmem tidy`` (docs/design/search.md §Recall).

:func:`run_tidy` reads one person's memory file and the doctrine and returns a dated
:class:`Report` of findings, never changing anything itself:

- ``duplicate``: two entries at least ``SAME_SCORE`` (90) similar (the duplicate guard's
  scorer, :mod:`agentmem.doctrine.similar`) → a ``remove`` of the second and, when the second
  is the longer, a ``modify`` of the first to its text (accepted in that order, both apply). Identical entries get no proposal (a
  target cannot tell them apart): the report says to edit the file;
- ``contradiction``: two entries that contradict each other (:mod:`agentmem.proposals.conflicts`:
  the same words with and without a negation, another value of one setting or the opposite
  word, the same words with other figures) — flagged, no proposal (only the person knows
  which holds);
- ``over-budget``: the memory file is at or over its warning level (``memory.warn_ratio``):
  the least recently confirmed entries as ``remove`` candidates, until the file would be under
  the level;
- ``dead-link``: an entry naming a file (``./x``, ``~/x``, ``/x``, ``dir/file.ext``, a Markdown
  link, ``file://``) that does not exist (relative to the repository root; web links are not
  checked: no network) → ``remove``;
- ``rule-repeat``: two live rules of different scopes at least ``doctrine.duplicate_threshold``
  similar — flagged (a doctrine change is an admin's, through ``agentmem doctrine``).

- ``expired``: an entry whose record (``<!-- am: … expires=… -->``,
  :mod:`agentmem.memory.records`) has expired → ``remove``.

"Least recently confirmed" is the record's ``since`` date, else the blame date of the line. With ``to_inbox`` the proposals go to the owner's inbox (``basis: inferred``, source
``tidy``, one commit), applied only through ``agentmem review``; a proposal already pending
there is not filed twice. The caller holds the repository lock.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem import governance
from agentmem.apply.planner import plan_memory
from agentmem.apply.writer import read_current
from agentmem.doctrine.fastread import fast_parse
from agentmem.doctrine.model import LIVE_STATUSES, DoctrineError, today
from agentmem.doctrine.parse import parse_rule_text
from agentmem.doctrine.similar import normalise, score_normalised
from agentmem.errors import GovernanceError
from agentmem.memory.file import budget_status, parse_memory
from agentmem.proposals.conflicts import related_pairs
from agentmem.proposals.inbox import list_pending, write_to_inbox
from agentmem.proposals.model import parse_proposal
from agentmem.store import gitio, regular

if TYPE_CHECKING:
    from agentmem.doctrine.model import Rule
    from agentmem.memory.file import Entry
    from agentmem.proposals.model import Proposal
    from agentmem.store.repo import Person, Repository

SOURCE = "tidy"
KINDS = ("expired", "duplicate", "contradiction", "over-budget", "dead-link", "rule-repeat")


@dataclass(frozen=True)
class EntryRef:
    """An entry as a finding names it: ``number`` (from 1 across the file), ``line``, ``section``,
    ``text``; ``confirmed``: ISO date of the commit that last set its line (over-budget only)."""

    number: int
    line: int
    section: str
    text: str
    confirmed: str | None = None


@dataclass
class Finding:
    """One hygiene finding: ``kind`` (one of :data:`KINDS`), ``reason`` in words, the
    ``entries`` or ``rules`` (ids) it is about, and the ``proposals`` that would fix it."""

    kind: str
    reason: str
    entries: list[EntryRef] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "entries": [asdict(e) for e in self.entries],
            "rules": list(self.rules),
            "proposals": [p.to_dict() for p in self.proposals],
        }


@dataclass
class Report:
    """What :func:`run_tidy` found for ``person`` on ``date`` (ISO day). ``fill``: the memory
    file's fill level in words; ``filed``: ids of the proposals written to the inbox;
    ``already_pending``: proposals not filed because the inbox holds them already."""

    date: str
    person: str
    memory: str
    fill: str
    findings: list[Finding] = field(default_factory=list)
    filed: list[str] = field(default_factory=list)
    already_pending: int = 0

    @property
    def proposals(self) -> list[Proposal]:
        return [p for f in self.findings for p in f.proposals]

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "person": self.person,
            "memory": self.memory,
            "fill": self.fill,
            "findings": [f.to_dict() for f in self.findings],
            "filed": list(self.filed),
            "already_pending": self.already_pending,
        }


def run_tidy(
    repo: Repository, actor: Person, person: str | None = None, *, to_inbox: bool = False
) -> Report:
    """The hygiene report of ``person`` (default: the actor; another person's only for an
    admin, and only as a dry run: an inbox is written by its owner alone). Raises
    GovernanceError, UsageError (unknown person), InvalidMemoryError (a broken memory file)."""
    who = person or actor.id
    if who != actor.id:
        repo.person(who)
        governance.require_read(
            actor, who, f"{who}'s memory is", "run agentmem tidy without --person (your own memory)"
        )
        if to_inbox:
            raise GovernanceError(
                f"only {who} files proposals into {who}'s inbox; you are {actor.id}",
                hint=f"run the dry run for {who}, or ask {who} to run agentmem tidy --to-inbox",
            )
    relpath = repo.memory_relpath(who)
    text = read_current(repo.root, relpath)
    config = repo.config.memory
    report = Report(today().isoformat(), who, relpath, "no memory file yet")
    if text is not None:
        memory = parse_memory(text, who, config, relpath)
        entries = memory.entries()
        status = budget_status(text, config)
        report.fill = status.describe()
        session = f"tidy-{report.date}"
        make = _Maker(who, session)
        report.findings += _expired(entries, make, report.date)
        report.findings += _pairs(entries, make)
        if status.level != "ok":
            report.findings += _over_budget(repo, relpath, text, entries, status, make)
        report.findings += _dead_links(repo.root, entries, make)
        _one_proposal_per_target(report.findings)
    report.findings += _rule_repeats(repo)
    if to_inbox and report.proposals:
        _file(repo, actor, report)
    return report


# -- proposals --------------------------------------------------------------------------------
class _Maker:
    """Builds memory proposals of ``person``, ``basis: inferred``, source ``tidy``."""

    def __init__(self, person: str, session: str) -> None:
        self.person = person
        self.session = session

    def __call__(self, action: str, entry: Entry, why: str, text: str | None = None) -> Proposal:
        return parse_proposal(
            {
                "action": action,
                "route": "memory",
                "section": entry.section,
                "target": entry.text,
                "text": text,
                "justification": why,
                "basis": "inferred",
            },
            person=self.person,
            session=self.session,
            source=SOURCE,
            scope=None,
            where="tidy",
            default_basis="inferred",
        )


def _ref(entry: Entry, confirmed: str | None = None) -> EntryRef:
    return EntryRef(entry.number, entry.line, entry.section, entry.text, confirmed)


def _one_proposal_per_target(findings: list[Finding]) -> None:
    """An entry is the target of one proposal at most (the first finding's): two proposals on
    one entry could not both be accepted."""
    seen: set[str] = set()
    for finding in findings:
        kept = []
        for proposal in finding.proposals:
            if proposal.target not in seen:
                seen.add(proposal.target or "")
                kept.append(proposal)
        finding.proposals = kept


def _file(repo: Repository, actor: Person, report: Report) -> None:
    """Write the report's proposals not already pending into the owner's inbox (one commit);
    each is checked against the file first (target, guard, budget), like a harvest's."""
    pending = {(p.action, p.target, p.text) for p in list_pending(repo, actor.id)}
    current = read_current(repo.root, report.memory)
    fresh = []
    for proposal in report.proposals:
        if (proposal.action, proposal.target, proposal.text) in pending:
            report.already_pending += 1
            continue
        plan_memory(proposal, current, repo.config.memory, report.memory)
        fresh.append(proposal)
    if fresh:
        write_to_inbox(repo, actor, fresh, fresh[0].session, SOURCE)
        report.filed = [p.id for p in fresh]


# -- duplicates and contradictions ------------------------------------------------------------
def _pairs(entries: list[Entry], make: _Maker) -> list[Finding]:
    """Near-duplicate and contradicting pairs: the one detector
    (:func:`agentmem.proposals.conflicts.related_pairs`) that validation, review and ``check``
    share; each text normalised once."""
    found: list[Finding] = []
    for pair in related_pairs([e.text for e in entries]):
        a, b = entries[pair.i], entries[pair.j]
        if pair.why is None:
            found.append(_duplicate(a, b, pair.score, make))
            continue
        found.append(
            Finding(
                "contradiction",
                f"#{a.number} and #{b.number} say {pair.why.describe()}: keep the one that holds",
                [_ref(a), _ref(b)],
            )
        )
    return found


def _duplicate(a: Entry, b: Entry, score: float, make: _Maker) -> Finding:
    refs = [_ref(a), _ref(b)]
    if a.text == b.text:
        return Finding(
            "duplicate",
            f"#{a.number} and #{b.number} are identical: remove one with agentmem memory edit "
            "(a proposal's target cannot tell them apart)",
            refs,
        )
    why = f"tidy: #{a.number} and #{b.number} are {score:.0f} % similar; one entry is enough"
    # The remove first: accepted in inbox order, the modify then meets one entry with that text.
    proposals = [make("remove", b, why)]
    if len(b.text) > len(a.text):
        proposals.append(make("modify", a, why, b.text))
    kept = f"#{b.number}'s text in #{a.number}'s place" if len(proposals) == 2 else f"#{a.number}"
    return Finding(
        "duplicate",
        f"#{a.number} and #{b.number} are {score:.0f} % similar: keep one ({kept})",
        refs,
        proposals=proposals,
    )


# -- over the warning level -------------------------------------------------------------------
def _confirmed(root: Path, relpath: str, text: str) -> dict[int, str]:
    """Line → ISO date of the commit that last set it (``git blame`` at HEAD); lines not
    committed as they are now count as confirmed today."""
    committed = gitio.show_file(root, "HEAD", relpath)
    if committed != text:
        return {}
    proc = gitio.run_git(root, ["blame", "--porcelain", "HEAD", "--", relpath], check=False)
    if proc.returncode != 0:
        return {}
    times: dict[str, str] = {}
    dates: dict[int, str] = {}
    sha = ""
    final = 0
    for line in proc.stdout.splitlines():
        parts = line.split(" ")
        if (
            len(parts) >= 3
            and len(parts[0]) >= 40
            and not line.startswith("\t")
            and parts[1].isdigit()
            and parts[2].isdigit()
        ):
            sha, final = parts[0], int(parts[2])
            continue
        if line.startswith("committer-time "):
            stamp = int(line.split(" ", 1)[1])
            times[sha] = datetime.fromtimestamp(stamp, UTC).date().isoformat()
        elif line.startswith("\t") and sha in times:
            dates[final] = times[sha]
    return dates


def _over_budget(
    repo: Repository, relpath: str, text: str, entries: list[Entry], status: Any, make: _Maker
) -> list[Finding]:
    """The least recently confirmed entries as ``remove`` candidates, oldest first, until the
    file would be under its warning level."""
    limit = int(status.budget * status.warn_ratio)
    need = status.used - limit + 1
    if need <= 0:
        return []
    blamed = _confirmed(repo.root, relpath, text)
    dates = {e.line: e.record.since or blamed.get(e.line) for e in entries}
    dates = {line: day for line, day in dates.items() if day}
    now = today().isoformat()
    ordered = sorted(entries, key=lambda e: (dates.get(e.line, now), e.number))
    found = []
    freed = 0
    for entry in ordered:
        if freed >= need:
            break
        size = len(unicodedata.normalize("NFC", entry.text)) + 3  # "- " and the line end
        freed += size
        when = dates.get(entry.line)
        since = f"last confirmed {when}" if when else "not committed yet"
        why = (
            f"tidy: {relpath} is at {status.describe()} (warning level "
            f"{status.warn_ratio:.0%}); #{entry.number} is among the least recently confirmed "
            f"({since})"
        ).replace("%)", " %)")
        found.append(
            Finding(
                "over-budget",
                f"#{entry.number} ({entry.section}) {since}: a remove candidate to bring "
                f"{relpath} under {status.warn_ratio:.0%}".replace("%", " %"),
                [_ref(entry, when)],
                proposals=[make("remove", entry, why)],
            )
        )
    return found


# -- past expiry ------------------------------------------------------------------------------
def _expired(entries: list[Entry], make: _Maker, today: str) -> list[Finding]:
    """Entries whose record's ``expires`` date is today or past (they already reach no context
    block) → ``remove``."""
    found = []
    for entry in entries:
        expires = entry.record.expires
        if expires and expires <= today:
            why = f"tidy: #{entry.number} expired on {expires}"
            found.append(
                Finding(
                    "expired",
                    f"#{entry.number} expired on {expires} (it reaches no context block)",
                    [_ref(entry, entry.record.since)],
                    proposals=[make("remove", entry, why)],
                )
            )
    return found


# -- dead links -------------------------------------------------------------------------------
_LINKS = re.compile(
    r"\]\((?P<md>[^)\s]+)\)"  # [text](target)
    r"|`(?P<tick>[^`\s]+)`"  # `path`
    r"|file://(?P<file>[^\s)>\]`'\"]+)"
    r"|(?<![\w/.:~-])(?P<bare>(?:~|\.{1,2})?/[\w.-][\w./-]*"  # ./x, ../x, ~/x, /x
    r"|[\w.-]+(?:/[\w.-]+)+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])"  # dir/file.ext
)


def _targets(text: str) -> list[str]:
    found = []
    for match in _LINKS.finditer(text):
        value = next(v for v in match.groupdict().values() if v)
        if "://" in value or value.startswith(("mailto:", "#")) or "@" in value:
            continue
        if match.group("tick") and "/" not in value and not re.search(r"\.[A-Za-z]\w*$", value):
            continue  # `npm` or `uv`, not a path
        if match.group("file"):
            value = "/" + value.lstrip("/")
        found.append(value.rstrip(".,;:"))
    return found


def _dead_links(root: Path, entries: list[Entry], make: _Maker) -> list[Finding]:
    found = []
    for entry in entries:
        missing = []
        for target in _targets(entry.text):
            path = Path(os.path.expanduser(target.split("#", 1)[0]))
            if not path.is_absolute():
                path = root / path
            if not os.path.lexists(path):
                missing.append(target)
        if missing:
            names = ", ".join(missing)
            gone = "which no longer exists" if len(missing) == 1 else "which no longer exist"
            why = f"tidy: #{entry.number} points at {names}, {gone}"
            found.append(
                Finding(
                    "dead-link",
                    f"#{entry.number} points at {names}, {gone}",
                    [_ref(entry)],
                    proposals=[make("remove", entry, why)],
                )
            )
    return found


# -- doctrine ---------------------------------------------------------------------------------
def _rules(root: Path) -> list[Rule]:
    """Every readable rule: canonical files through the fast reader (``check``'s, proven equal
    to the strict parser), others through the strict one; unreadable ones are ``check``'s to
    report and are left out here."""
    rules = []
    for name in regular.listing(root, "doctrine", ".yaml", stem=True)[0]:
        relpath = f"doctrine/{name}"
        try:
            read = regular.read_listed(root / relpath, relpath)
            text = read.data.decode("utf-8") if read is not None else None
            rule = None if text is None else fast_parse(text) or parse_rule_text(text, relpath)
        except (DoctrineError, UnicodeDecodeError):
            continue
        if rule is not None and rule.path == relpath:
            rules.append(rule)
    return rules


def _rule_repeats(repo: Repository) -> list[Finding]:
    """Pairs of live rules of different scopes that repeat each other. Compared only when they
    share one of their two rarest words and hold the same figures (the scorer caps other pairs
    below any threshold), so the pairs compared grow with the rules that share a rare word,
    not with the square of the rules."""
    threshold = repo.config.doctrine.duplicate_threshold
    rules = [r for r in _rules(repo.root) if r.status in LIVE_STATUSES]
    forms = [normalise(r.instruction or r.title) for r in rules]
    counts: dict[str, int] = {}
    for form in forms:
        for word in set(form.split()):
            counts[word] = counts.get(word, 0) + 1
    buckets: dict[tuple[str, frozenset[str]], list[int]] = {}
    for n, form in enumerate(forms):
        words = sorted(set(form.split()), key=lambda w: (counts[w], w))
        figures = frozenset(w for w in words if w.isdigit())
        for word in [w for w in words if not w.isdigit()][:2]:
            buckets.setdefault((word, figures), []).append(n)
    seen: set[tuple[int, int]] = set()
    found = []
    for members in buckets.values():
        for x, i in enumerate(members):
            for j in members[x + 1 :]:
                a, b = rules[i], rules[j]
                if (i, j) in seen or a.scope == b.scope or b.id in a.distinct_from:
                    continue
                seen.add((i, j))
                if a.id in b.distinct_from:
                    continue
                score = score_normalised(forms[i], forms[j])
                if score >= threshold:
                    found.append(
                        Finding(
                            "rule-repeat",
                            f"{a.id} ({a.status}, {a.scope or 'no scope'}) and {b.id} "
                            f"({b.status}, {b.scope or 'no scope'}) are {score:.0f} % similar: "
                            "one rule at the common scope may be enough",
                            rules=[a.id, b.id],
                        )
                    )
    return sorted(found, key=lambda f: f.rules)
