"""``agentmem check --history`` (docs/design/check.md §Check, §Trailers): who was allowed to do what,
commit by commit, with ``roles.yaml`` and ``agentmem.yaml`` **as they were at the parent commit** —
for a commit brought in by a merge, as they were at BOTH its parent and the merge that brought it
in, as that merge left them (:mod:`agentmem.check.history.lineage`). A merge is also judged on every
watched path it resolved otherwise than a clean merge would (:mod:`agentmem.check.history.merges`).

A commit fails when it
- activates a rule (sets it ``active``, or changes an active rule's content) and its author was
  not admin, or created or proposed the rule, or last wrote its content (with
  ``distinct_approver``), or the rule is incomplete, or its approval does not name the author
  and the content;
- makes any other admin-only change (suspend, resume, deactivate, archive, reconfirm — by an
  admin who did not propose the rule, with ``distinct_approver`` —, deleting an approved rule,
  changing ``roles.yaml``, ``agentmem.yaml`` or a ``.gitattributes``) without being admin;
- creates, edits or deletes a draft without being member or admin, or sets or keeps a
  ``proposed_by`` other than the person who created the rule file;
- changes ``memories/<person>.md`` or ``inbox/<person>/…`` without being that person (or an
  admin's erasure, ``Agentmem-Action: erase``, that only removes);
- makes a watched path a symlink or a submodule, commits a ``.agentmem/`` file, or starts a
  history unrelated to the main line;
- changes ``erasures.yaml`` otherwise than an admin's ``agentmem erase`` adding to it
  (``history-erasure-record``), or brings back what an erase removed: a commit of the history
  it rewrote, or a value it recorded (:mod:`agentmem.check.history.erasures`);
- commits a path that a case-insensitive checkout turns into a watched one (``Doctrine/x.yaml``,
  ``ROLES.yaml``, ``a/.GitAttributes``), or puts two paths that only letter case tells apart
  under a watched folder (:mod:`agentmem.check.casefold`): ``history-path-case``;
- is agentmem-shaped (changes ``doctrine/``, ``memories/``, ``inbox/`` or carries an
  ``Agentmem-*`` trailer) without the trailers of docs/design/governance.md §Trailers, or with an
  ``Agentmem-Actor`` that is not its author, or an ``Agentmem-Role`` that is not the author's role
  at the parent;
- with signatures required (``--require-signed``, or ``doctrine.require_signed`` at the
  parent), makes an activation, a change to an approved rule, or a settings change without a
  good signature from a key listed for its author (:mod:`agentmem.check.history.signing`).

What the walk finds about a commit may depend on commits after it in the same walk (a settings
approval, a version of ``erasures.yaml``, a merge): :data:`agentmem.check.history.start.INERT`
names the commits that cannot change it (one walk then judges several commits); a rule that
reads another kind of later commit narrows it.

A rule's status is read from the blob with :func:`agentmem.doctrine.fastread.fast_status` (no YAML) when that is provably
the status the strict parser would read, otherwise with ``doctrine.parse_rule_text``.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem import governance as gov
from agentmem import notices
from agentmem import trailers as tr
from agentmem.check import casefold
from agentmem.check.findings import ERROR, WARNING, Finding
from agentmem.check.history import erasures, gitread, lineage, merges, signing
from agentmem.check.history.gitread import Change, CommitRecord
from agentmem.check.history.lineage import (
    Blobs,
    Origins,
    Roles,
    Settings,
    Standing,
    Walk,
    parse_roles_text,
    parse_settings_text,
)
from agentmem.config import CONFIG_FILE
from agentmem.doctrine.model import Rule, missing_for_activation
from agentmem.doctrine.settings import adds_folders_only, governance_values
from agentmem.errors import AgentmemError
from agentmem.store.erasures import ERASURES_FILE, lost, parse_record
from agentmem.store.repo import ROLES_FILE, Person

if TYPE_CHECKING:
    from agentmem.store.root import StrPath

__all__ = ["HistoryResult", "Roles", "check_history", "parse_roles_text"]

_RULE_PATH = re.compile(r"^doctrine/([^/]+)\.yaml$")
#: File versions to judge from which the walk says so on stderr (decision 0105: a first audit
#: of 100,000 drafts judges for seconds before it reads the served rules).
PROGRESS_FROM = 2000
_OWNED_PATH = re.compile(r"^(?:memories/([^/]+)\.md|inbox/([^/]+)/.+)$")
APPROVED = ("active", "suspended")
APPROVE_SETTINGS = gov.APPROVE_SETTINGS
DISTINCT = "doctrine.distinct_approver"
SIGNED = "doctrine.require_signed"
SHAPED_PREFIXES = ("doctrine/", "memories/", "inbox/")
LINK_FREE = ("doctrine", "memories", "inbox")
BASE_TRAILERS = tr.REQUIRED


@dataclass
class HistoryResult:
    """Findings, the number of commits walked, and which commits need a signature."""

    findings: list[Finding]
    commits: int


def _wanted(commit: CommitRecord) -> list[str | None]:
    """The blobs the judge reads for ``commit``: every version of a rule file, ``roles.yaml``,
    ``agentmem.yaml`` and ``erasures.yaml`` it changed, and the memory and inbox files an
    erasure changed."""
    erase = commit.trailer(tr.ACTION) == "erase"
    wanted: list[str | None] = []
    for change in commit.changes:
        path = change.path
        if (
            _RULE_PATH.match(path)
            or path in (ROLES_FILE, ERASURES_FILE, CONFIG_FILE)
            or (erase and _OWNED_PATH.match(path))
        ):
            wanted += (*change.olds, change.new)
    return wanted


def check_history(
    root: StrPath,
    *,
    since: str | None = None,
    require_signed: bool = False,
    distinct_approver: bool = False,
    tip: str = "HEAD",
    read: dict[str, bytes] | None = None,
    parse: set[str] | None = None,
    parsed: dict[str, Rule] | None = None,
    walked: list[CommitRecord] | None = None,
) -> HistoryResult:
    """Walk the history (all of it, or ``since..HEAD``) and return its findings (see the module
    docstring). ``require_signed``/``distinct_approver`` True force the setting on for every
    commit; otherwise ``doctrine.*`` in ``agentmem.yaml`` at each commit's parent decides.
    ``tip``: the commit judged instead of HEAD (a pushed one, ``check --pre-receive``).
    ``read``: filled with the bytes of every blob the walk read (``{blob id: bytes}``), for a
    caller that needs the same blobs (the served view reads the rule files it judged).
    ``parse``: blob ids of rule files the caller parses anyway (the served view: ``HEAD``'s),
    which the walk parses whole rather than read one key of; ``parsed``: filled with the rules
    it parsed from bytes that were valid UTF-8 (``{blob id: Rule}``: the caller need not parse
    them again). ``walked``: filled with the commits walked, parents first (the served view
    tells from them which commits one walk judges as a walk of their own would:
    :func:`agentmem.check.history.start.judge_each`). Raises
    :class:`~agentmem.errors.GitError` when git fails."""
    # The walk builds tens of thousands of small objects that live until it ends, and makes
    # almost no reference cycles: the cyclic collector would only re-scan them (about a tenth
    # of the walk's own time). Reference counting still frees what the walk drops.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _walk(
            Path(root), since, require_signed, distinct_approver, tip, read, parse, parsed, walked
        )
    finally:
        if collecting:
            gc.enable()


def _walk(
    root: Path,
    since: str | None,
    require_signed: bool,
    distinct_approver: bool,
    tip: str,
    read: dict[str, bytes] | None = None,
    parse: set[str] | None = None,
    parsed: dict[str, Rule] | None = None,
    walked: list[CommitRecord] | None = None,
) -> HistoryResult:
    since = gitread.resolve(root, since) if since is not None else None
    # the reader reads the blobs while the log is still read
    with gitread.BlobReader(root, keep=read is not None) as reader:
        commits = gitread.read_log(root, since, lambda c: reader.request(_wanted(c)), tip)
        merges.add_merge_changes(root, commits)
        for merge in (c for c in commits if len(c.parents) > 1):
            reader.request(_wanted(merge))  # the paths a merge decided itself
        ids = gitread.ids_at_commits(
            root, commits, (ROLES_FILE, CONFIG_FILE), [since] if since else []
        )
        reader.request(oid for oid in ids.values() if oid != "!")  # roles/settings at parents
        if len(reader.asked) >= PROGRESS_FROM:
            notices.progress(
                f"judging the history: {len(commits):,} commit{'s' if len(commits) != 1 else ''}, "
                f"{len(reader.asked):,} file versions…"
            )
        blobs = Blobs(reader.texts(), full=parse or frozenset())
        if read is not None and reader.raw is not None:
            read.update(reader.raw)
    walk = Walk(commits, ids, blobs, Settings(require_signed, distinct_approver), since)
    relaxed = _relaxations(commits, walk, blobs)
    origins = Origins(blobs)
    findings: list[Finding] = []
    to_sign: dict[str, tuple[CommitRecord, Standing, tuple[str, str]]] = {}
    decisions: dict[str, tuple[CommitRecord, Standing, tuple[str, str]]] = {}
    for commit in commits:
        standing = walk.standing(commit)
        judge = _Judge(commit, standing, blobs, origins, relaxed.get(commit.sha))
        findings += judge.run()
        if standing.settings.require_signed and judge.signed_reason:
            to_sign[commit.sha] = (commit, standing, judge.signed_reason)
        elif standing.settings.decisions_signed and decision_of(commit):
            decisions[commit.sha] = (commit, standing, decision_of(commit) or ("", ""))
    if to_sign:
        findings += _signature_findings(root, to_sign, commits, blobs)
    if decisions:
        findings += _signature_findings(
            root, decisions, commits, blobs, "history-decision-unsigned"
        )
    for commit, path, others in casefold.collisions(root, commits, since):
        message = (
            f"commit {commit.sha[:10]} by {commit.who} puts {path} beside {', '.join(others)}: "
            "on a case-insensitive checkout (macOS, Windows) they become one file"
        )
        findings.append(Finding(path, 1, ERROR, "history-path-case", message, commit.sha))
    findings += erasures.check_erasures(root, commits, blobs.texts, since, tip)
    if parsed is not None:
        parsed.update(_decoded(blobs))
    if walked is not None:
        walked.extend(commits)
    return HistoryResult(findings, len(commits))


def _decoded(blobs: Blobs) -> dict[str, Rule]:
    """The rules the walk parsed whose text was decoded without loss: the reader replaces
    bytes that are not UTF-8 with U+FFFD, which a rule read whole by another reader (one that
    refuses such bytes) would not have; the few texts that hold one are parsed again there."""
    texts = blobs.texts
    return {
        oid: rule
        for oid, rule in blobs.rules.items()
        if rule is not None and "\ufffd" not in texts.get(oid, "\ufffd")
    }


@dataclass(frozen=True)
class Relaxed:
    """A commit that relaxes governance settings (``names``, :data:`governance.RELAXABLE`),
    and the second admin's approval of it (``approved``: person and commit), if any."""

    names: tuple[str, ...]
    approved: tuple[str, str] | None


def _approvals(
    commits: list[CommitRecord], walk: Walk, blobs: Blobs
) -> dict[str, list[tuple[Person, str]]]:
    """Relaxing commit id → ``(approver, approval commit)`` for every commit carrying
    ``Agentmem-Action: approve-settings`` and ``Agentmem-Approves: <commit id>``; the approver
    is the author as a person in ``roles.yaml`` at the approval's parent."""
    found: dict[str, list[tuple[Person, str]]] = {}
    for commit in commits:
        if commit.trailer(tr.ACTION) != APPROVE_SETTINGS:
            continue
        roles = blobs.roles_of(walk.at(commit.parents[0] if commit.parents else None)[0])
        person = roles.by_email(commit.author_email)
        if person is None or commit.sha in walk.tainted:
            continue
        for target in commit.trailers.get(tr.APPROVES, []):
            found.setdefault(target.strip().lower(), []).append((person, commit.sha))
    return found


def _relaxations(commits: list[CommitRecord], walk: Walk, blobs: Blobs) -> dict[str, Relaxed]:
    """Every commit of the walk that relaxes a governance setting of ``agentmem.yaml``
    (compared with each parent's file), with its approval by a second admin if any; and, as
    a side effect, the settings each such ``agentmem.yaml`` version is judged with: a
    relaxation without approval does not count (the setting keeps its value from before), one
    with approval does, and both leave a note naming the commits (:class:`Settings`)."""
    approvals = _approvals(commits, walk, blobs)
    values: dict[str | None, dict[str, object]] = {}
    notes: dict[str | None, dict[str, tuple[bool, str]]] = {}

    def parsed(oid: str | None) -> dict[str, object]:
        if oid not in values:
            values[oid] = governance_values(blobs.texts.get(oid) if oid else None)
        return values[oid]

    effective: dict[str | None, dict[str, object]] = {}
    # config-changing commit → (its version's blob id, the values it is held to, the notes):
    # what the version a commit is made on is held to comes from the commit that made it
    # (``Walk.source``), its bytes only when that commit is not walked
    by_commit: dict[str, tuple[str, dict[str, object], dict[str, tuple[bool, str]]]] = {}
    found: dict[str, Relaxed] = {}

    def held_at(
        parent: str | None, oid: str | None
    ) -> tuple[dict[str, object], dict[str, tuple[bool, str]]]:
        """The values and notes the version ``oid`` at ``parent`` is held to: as the walked
        commit that made it left them, else as its bytes are held (made before the walk)."""
        made = walk.source.get(parent) if parent else None
        prior = by_commit.get(made) if made else None
        if prior is not None and prior[0] == oid:
            return prior[1], prior[2]
        return effective.get(oid, parsed(oid)), notes.get(oid, {})

    for commit in commits:
        for change in commit.changes:
            if change.path != CONFIG_FILE or change.new is None:
                continue
            parent = commit.parents[0] if commit.parents else None
            roles_id, _ = walk.at(parent)
            roles = blobs.roles_of(roles_id)
            if not roles.exists and change.old is None:
                # the repository's first settings: the trust root, held to what they say
                walk.held[commit.sha] = (
                    change.new,
                    parse_settings_text(blobs.texts.get(change.new)),
                )
                continue
            new = parsed(change.new)
            olds = list(change.olds or (change.old,))
            names = [n for n in gov.relaxations(parsed(olds[0]), new)
                     if all(n in gov.relaxations(parsed(o), new) for o in olds[1:])]  # fmt: skip
            author = roles.by_email(commit.author_email)
            approved = None
            for person, sha in approvals.get(commit.sha, []):
                if gov.may_approve_settings(person, author.id if author else None):
                    approved = (person.id, sha)
                    break
            # each parent's version as written, the values it is held to, its notes (a merge
            # has several: a branch's unapproved relaxation stays held in what it takes)
            at = [commit.parents[i] if i < len(commit.parents) else None for i in range(len(olds))]
            parents = [(parsed(oid), *held_at(p, oid)) for p, oid in zip(at, olds, strict=True)]
            base = parents[0][1]
            kept, kept_notes = _carried(new, parents)
            for name in names:
                if approved:
                    why = (f"relaxed by commit {commit.sha[:10]}, approved by {approved[0]} in "
                           f"{approved[1][:10]}")  # fmt: skip
                    kept_notes[name] = (False, why)
                else:
                    why = f"relaxed by commit {commit.sha[:10]} without a second admin's approval"
                    kept_notes[name] = (True, why)
                    kept[name] = base[name]
            if names:
                found[commit.sha] = Relaxed(tuple(names), approved)
            effective[change.new] = kept
            notes[change.new] = kept_notes
            by_commit[commit.sha] = (change.new, kept, kept_notes)
            settings = Settings(
                bool(kept["doctrine.require_signed"]),
                bool(kept["doctrine.distinct_approver"]),
                tuple((name, why) for name, (_held, why) in kept_notes.items()),
                kept["signing.decisions"] == "required",
            )
            walk.held[commit.sha] = (change.new, settings)
            # by its bytes (a version whose maker is not known): the strictest it was held to
            other = blobs.settings.get(change.new)
            blobs.settings[change.new] = settings if other is None else other.join(settings)
    return found


def _carried(
    new: dict[str, object],
    parents: list[tuple[dict[str, object], dict[str, object], dict[str, tuple[bool, str]]]],
) -> tuple[dict[str, object], dict[str, tuple[bool, str]]]:
    """The values a new version of ``agentmem.yaml`` (``new``) is held to, and their notes,
    before its own relaxations count: per parent ``(its values as written, the values it is
    held to, its notes)``. A setting keeps a parent's note where it has that parent's value
    (its *sources*); it stays held when every source holds it (one that does not — a parent
    that had the value as approved or as never stricter — lets it count), so a merge that
    takes a branch's unapproved relaxation, whole or with main's own change, keeps it held
    (docs/decisions/0118). A setting changed from every parent keeps no note."""
    kept = dict(new)
    kept_notes: dict[str, tuple[bool, str]] = {}
    for name in dict.fromkeys(n for _raw, _base, before in parents for n in before):
        sources = [
            (base, before.get(name)) for raw, base, before in parents if raw[name] == new[name]
        ]
        if not sources:
            continue
        free = [note for _base, note in sources if note is None or not note[0]]
        if free:
            note = next((n for n in free if n is not None), None)
            if note is not None:
                kept_notes[name] = note
            continue
        base, held = sources[0]
        if held is not None:
            kept_notes[name] = held
            kept[name] = base[name]
    return kept, kept_notes


def decision_of(commit: CommitRecord) -> tuple[str, str] | None:
    """``(path, what)`` when ``commit`` is a person's decision that ``signing.decisions:
    required`` signs (:func:`agentmem.governance.is_decision`), else None."""
    action = commit.trailer(tr.ACTION)
    proposal = bool(commit.trailers.get(tr.PROPOSAL))
    route = commit.trailer(tr.ROUTE)
    if not gov.is_decision(action, commit.trailer(tr.DECISION), proposal, route):
        return None
    path = commit.changes[0].path if commit.changes else CONFIG_FILE
    return path, f"a decision: {action}"


def _signature_findings(
    root: Path,
    to_sign: dict[str, tuple[CommitRecord, Standing, tuple[str, str]]],
    commits: list[CommitRecord],
    blobs: Blobs,
    code: str = "history-signature",
) -> list[Finding]:
    every_key: set[str] = set()
    for roles in blobs.roles.values():
        for keys in roles.keys.values():
            every_key.update(keys)
    for commit in commits:
        for change in commit.changes:
            if change.path == ROLES_FILE:
                for oid in (change.old, change.new):
                    for keys in blobs.roles_of(oid).keys.values():
                        every_key.update(keys)
    signatures = signing.read_signatures(root, list(to_sign), every_key)
    findings = []
    for sha, (commit, standing, reason) in to_sign.items():
        roles = standing.roles
        author = roles.by_email(commit.author_email)
        keys = roles.keys.get(author.id, ()) if author else ()
        sig = signatures.get(sha, signing.Signature("N", ""))
        path, what = reason
        head = f"commit {sha[:10]} by {commit.who} ({what})"
        who = author.id if author else "its author"
        if sig.status == "N":
            problem = (
                "is not signed; signing.decisions is required"
                if code == "history-decision-unsigned"
                else "is not signed; signatures are required"
            )
        elif sig.status not in ("G", "U"):
            problem = f"has a signature git does not accept (%G? = {sig.status})"
        elif not keys:
            problem = f"is signed, but {who} lists no signing key in {standing.where}"
        elif not sig.matches(keys):
            problem = f"is signed with {sig.key or 'a key'}, which {standing.where} does not list for {who}"
        else:
            continue
        findings.append(Finding(path, 1, ERROR, code, f"{head} {problem}", sha))
    return findings


class _Judge:
    """The verdict on one commit."""

    def __init__(self, commit: CommitRecord, standing: Standing, blobs: Blobs,
                 origins: Origins, relaxed: Relaxed | None = None) -> None:  # fmt: skip
        self.commit = commit
        self.relaxed = relaxed
        self.standing = standing
        self.roles = standing.roles
        self.blobs = blobs
        self.origins = origins
        self.distinct_approver = standing.settings.distinct_approver
        self.author = self.roles.by_email(commit.author_email)
        self.findings: list[Finding] = []
        self.signed_reason: tuple[str, str] | None = None

    # -- helpers ------------------------------------------------------------------------------
    def fail(self, path: str, code: str, what: str, severity: str = ERROR, line: int = 1) -> None:
        message = f"commit {self.commit.sha[:10]} by {self.commit.who} {what}"
        self.findings.append(Finding(path, line, severity, code, message, self.commit.sha))

    def role_text(self) -> str:
        where = self.standing.where
        if self.roles.problem:
            return f"nobody: {self.roles.problem}"
        if self.author is None:
            if not self.roles.exists:
                where = "any roles.yaml (none at the parent commit)"
            return f"the author <{self.commit.author_email}> is not a person in {where}"
        return f"{self.author.id} was {self.author.role} in {where}"

    def may(self, action: str) -> bool:
        return gov.may(self.author.role if self.author else None, action)

    def require(self, path: str, action: str, what: str) -> bool:
        """True when the author may do ``action`` (the governance table); else a finding."""
        if self.may(action):
            return True
        code = "history-not-member" if gov.may(gov.MEMBER, action) else "history-not-admin"
        self.fail(path, code, f"{what}, but {self.role_text()} ({gov.needed(action)} required)")
        return False

    def need_sign(self, path: str, what: str) -> None:
        self.signed_reason = self.signed_reason or (path, what)

    # -- the verdict --------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        if self.standing.unrelated and not self.commit.parents and self.commit.changes:
            self.fail(
                self.commit.changes[0].path,
                "history-unrelated",
                "starts a history unrelated to the main line (a commit without parent) and "
                "changes watched paths: nobody has a role there",
            )
        for change in self.commit.changes:
            self.change(change)
        self.trailers()
        return self.findings

    def change(self, change: Change) -> None:
        path = change.path
        exact = gitread.case_problem(path) if change.new is not None else None
        if exact is not None:
            self.fail(path, "history-path-case",
                      f"commits {path}: on a case-insensitive checkout (macOS, Windows) this file "
                      f"becomes an agentmem file ({exact}); rename or remove it")  # fmt: skip
            return
        if path == ".agentmem" or path.startswith(".agentmem/"):
            if change.new is not None:
                self.fail(path, "history-local-file",
                          f"commits {path}: .agentmem/ holds this clone's local files (lock, "
                          "queue, usage log), never shared: git rm --cached it")  # fmt: skip
            return
        if path == ".gitattributes" or path.endswith("/.gitattributes"):
            what = f"changes {path} (it decides how git checks files out)"
            self.need_sign(path, what)
            self.require(path, gov.SETTINGS, what)
            return
        if path == ERASURES_FILE:
            self.record_change(change)
            return
        if not (path in LINK_FREE or path.startswith(SHAPED_PREFIXES)
                or path in (ROLES_FILE, CONFIG_FILE)):  # fmt: skip
            return
        if change.linked:
            kind = "a symbolic link" if change.mode == gitread.SYMLINK else "a submodule"
            self.fail(path, "history-link",
                      f"makes {path} {kind}: agentmem reads only regular files there, and the "
                      "working-tree check and the audit would follow it")  # fmt: skip
        elif _RULE_PATH.match(path):
            self.rule_change(change)
        elif match := _OWNED_PATH.match(path):
            self.owned_change(change, match.group(1) or match.group(2), bool(match.group(1)))
        elif path in (ROLES_FILE, CONFIG_FILE):
            self.settings_change(change)

    def owned_change(self, change: Change, person: str, memory: bool) -> None:
        if gov.owns(self.author.id if self.author else None, person):
            return
        whose = f"{person}'s {'memory' if memory else 'inbox'}"
        if self.commit.trailer(tr.ACTION) == "erase":
            if not self.require(change.path, gov.ERASE, f"erases {whose}"):
                return
            if change.old is None:
                self.fail(change.path, "history-erase-adds",
                          f"is an erasure but creates {change.path} (an erasure only removes)")  # fmt: skip
            else:
                line = lineage.only_removes(
                    self.blobs.texts.get(change.old, ""),
                    None if change.new is None else self.blobs.texts.get(change.new, ""),
                )
                if line is not None:
                    self.fail(change.path, "history-erase-adds",
                              f"is an erasure but writes {whose} (line {line} was not there "
                              "before; an admin may only remove)", line=line)  # fmt: skip
            return
        if self.roles.people.get(person) or self.standing.own.people.get(person):
            what = f"changes {whose}"
        else:
            kind = "memory file" if memory else "inbox"
            what = f"changes the {kind} of '{person}' (no such person at the parent commit)"
        self.fail(change.path, "history-memory-owner" if memory else "history-inbox-owner",
                  f"{what}; only its owner writes it (an admin may only erase it)")  # fmt: skip

    def record_change(self, change: Change) -> None:
        """``erasures.yaml``: only an admin's erase writes it, and it only grows."""
        path = change.path
        if self.commit.trailer(tr.ACTION) != "erase":
            self.fail(path, "history-erasure-record",
                      f"changes {path}, which only agentmem erase writes (the record of what was "
                      "erased, consulted by check --history and sync)")  # fmt: skip
            return
        if not self.require(path, gov.ERASE, f"changes {path} (an erasure)"):
            return
        if change.new is None or change.linked:
            self.fail(path, "history-erasure-record",
                      f"removes {path}: the record of what was erased must stay")  # fmt: skip
            return
        try:
            after = parse_record(self.blobs.texts.get(change.new, ""), path)
            before = parse_record(self.blobs.texts[change.old], path) if change.old else None
        except (KeyError, AgentmemError):
            self.fail(path, "history-erasure-record", f"commits a {path} that cannot be read")
            return
        missing = lost(before, after) if before else []
        if missing:
            self.fail(path, "history-erasure-record",
                      f"drops {', '.join(missing)} from {path} (the record only grows)")  # fmt: skip

    def settings_change(self, change: Change) -> None:
        if change.old is None and self.standing.first_settings:
            return  # the repository's first settings: nobody to ask yet
        what = f"changes {change.path}"
        self.need_sign(change.path, what)
        action = gov.SETTINGS
        if change.path == CONFIG_FILE and self.maps_folders(change):
            action, what = gov.MAP_SCOPE, f"adds a folder to the scopes: map of {change.path}"
        if not self.require(change.path, action, what):
            return
        if change.path == CONFIG_FILE and self.relaxed and not self.relaxed.approved:
            names = ", ".join(self.relaxed.names)
            me = self.author.id if self.author else "its author"
            self.fail(change.path, "history-settings-relaxed",
                      f"relaxes the governance setting(s) {names} without a second admin's "
                      f"approval (a commit by another admin than {me} carrying "
                      f"{tr.ACTION}: {APPROVE_SETTINGS} and {tr.APPROVES}: {self.commit.sha}, "
                      "e.g. agentmem settings approve); until then history judges with the "
                      "stricter value")  # fmt: skip

    def maps_folders(self, change: Change) -> bool:
        """The change only adds folders to ``scopes:`` (against every parent of a merge)."""
        texts = self.blobs.texts
        new = texts.get(change.new) if change.new else None
        olds = change.olds or (change.old,)
        return all(adds_folders_only(texts.get(o) if o else None, new) for o in olds)

    # -- rules ----------------------------------------------------------------------------------
    def rule_change(self, change: Change) -> None:
        path, rule_id = change.path, _rule_id(change.path)
        old = self.blobs.status(change.old, path)
        new = self.blobs.status(change.new, path)
        if new == "invalid":
            self.fail(
                path,
                "history-invalid-rule",
                "commits a rule file the strict reader refuses (it applies nowhere)",
                WARNING,
            )
        creator = self.creator(change)
        changed = self.content_changed(change) if new == "active" and old in APPROVED else True
        if new == "active" and (old != "active" or changed):
            self.activation(change, old, creator, resume=old == "suspended" and not changed)
        elif new == old and new in APPROVED:
            what = f"changes the {new} rule '{rule_id}'"
            self.require(path, gov.CHANGE_APPROVED, what)
            self.need_sign(path, what)
            self.reconfirm(change, creator)
        elif new != old and not (
            new == "draft" or (new is None and old in (None, "draft", "invalid"))
        ):
            what = f"sets rule '{rule_id}' from {old or 'nothing'} to {new or 'deleted'}"
            self.require(path, gov.STATUS_ACTIONS.get(new or "", gov.CHANGE_APPROVED), what)
        if new == "draft" or (new is None and old in ("draft", "invalid")):
            verb = "writes" if new else "deletes"
            allowed = self.require(path, gov.WRITE_DRAFT, f"{verb} the draft rule '{rule_id}'")
            if allowed and new is None and change.old is not None:
                self.draft_deletion(change, rule_id)
        self.proposer(change, creator)

    def draft_deletion(self, change: Change, rule_id: str) -> None:
        """A draft is deleted by its creator or an admin, never by another member."""
        assert change.old is not None
        creator = self.origins.creator_of(change.path, change.old)
        me = self.author.id if self.author else None
        if gov.may_delete_draft(me, self.author.role if self.author else None, creator):
            return
        made = f", which {creator} created," if creator else ""
        self.fail(change.path, "history-not-admin",
                  f"deletes the draft rule '{rule_id}'{made} but {self.role_text()} (its "
                  "creator or an admin required)")  # fmt: skip

    def creator(self, change: Change) -> str | None:
        """Record the new version; return who created the rule file (None: unknown)."""
        if change.new is None:
            return None
        me = self.author.id if self.author else None
        return self.origins.record(change.path, change.olds, change.new, me)

    def proposer(self, change: Change, creator: str | None) -> None:
        if change.new is None or creator is None:
            return
        if self.blobs.proposed_by_is(change.new, creator):
            return
        proposed_by = self.blobs.proposed_by(change.new, change.path)
        if proposed_by in (None, creator):
            return
        if any(f.path == change.path and f.is_error for f in self.findings):
            return  # this commit already fails on this rule: one finding says enough
        self.fail(
            change.path,
            "history-proposer-mismatch",
            f"gives rule '{_rule_id(change.path)}' proposed_by: {proposed_by}, but "
            f"{creator} created the rule file (proposed_by names who created it)",
        )

    def content_changed(self, change: Change) -> bool:
        if change.old is None or change.new is None:
            return True
        after = self.blobs.content(change.new, change.path)
        before = self.blobs.content(change.old, change.path, change.new)  # None: refused
        return before is None or before != after

    def excluded(self, change: Change, rule: Rule, creator: str | None) -> str | None:
        """Why the author may not approve ``rule`` (distinct_approver), or None."""
        me = self.author.id if self.author else None
        if me is None or change.new is None:
            return None
        if not self.distinct_approver:
            self.relaxed_approval(change, rule, creator)
            return None
        new = change.new
        why = gov.self_approval(
            me,
            proposed_by=rule.proposed_by,
            created_by=creator,
            wrote=lambda: self.origins.writer(change.path, new),
        )
        if why == "proposed":
            return f"{me} proposed it (an admin who did not propose it must approve)"
        if why == "created":
            return (
                f"{me} created the rule file (its proposed_by: {rule.proposed_by} is not who "
                "created it; an admin who did not propose it must approve)"
            )
        if why == "wrote":
            return f"{me} wrote its current content (an admin who did not write it must approve)"
        return None

    def relaxed_approval(self, change: Change, rule: Rule, creator: str | None) -> None:
        """Name an approval the distinct-approver rule would have refused, made while a
        relaxation of it in the walk holds (a warning: the relaxation was approved)."""
        note = self.standing.settings.note(DISTINCT)
        me = self.author.id if self.author else None
        if note is None or me is None or change.new is None:
            return
        new = change.new
        why = gov.self_approval(me, proposed_by=rule.proposed_by, created_by=creator,
                                wrote=lambda: self.origins.writer(change.path, new))  # fmt: skip
        if why is None:
            return
        did = {"proposed": "proposed", "created": "created", "wrote": "wrote the content of"}[why]
        self.fail(change.path, "history-relaxed-approval",
                  f"approves rule '{rule.id}', which {me} {did}: allowed only because "
                  f"{DISTINCT} is false ({note})", WARNING)  # fmt: skip

    def reconfirm(self, change: Change, creator: str | None) -> None:
        after = self.blobs.rule(change.new, change.path)
        before = self.blobs.rule(change.old, change.path, change.new)
        if before is None or after is None or not self.may(gov.RECONFIRM):
            return
        if (before.review_due, before.approval) == (after.review_due, after.approval):
            return
        why = self.excluded(change, after, creator)
        if why:
            self.fail(change.path, "history-self-approval",
                      f"reconfirms rule '{after.id}' (review_due or approval changed), but {why}")  # fmt: skip

    def activation(
        self, change: Change, old: str | None, creator: str | None, *, resume: bool
    ) -> None:
        path, rule_id = change.path, _rule_id(change.path)
        if resume:
            what = f"resumes the suspended rule '{rule_id}'"
        elif old == "active":
            what = f"changes the content of the active rule '{rule_id}'"
        else:
            what = f"sets rule '{rule_id}' to active"
        self.need_sign(path, what)
        if not self.require(path, gov.RESUME if resume else gov.APPROVE, what):
            return
        rule = self.blobs.rule(change.new, path)
        if rule is None or change.new is None:
            return
        assert self.author is not None
        why = None if resume else self.excluded(change, rule, creator)
        if why:
            held = self.standing.settings.note(DISTINCT) or ""
            held = f"; {DISTINCT}: false does not count, {held}" if "without" in held else ""
            self.fail(path, "history-self-approval", f"{what}, but {why}{held}")
        elif not self.standing.settings.require_signed:
            note = self.standing.settings.note(SIGNED)
            if note is not None:
                self.fail(path, "history-relaxed-approval",
                          f"{what} while {SIGNED} is false ({note}): no signature was asked for",
                          WARNING)  # fmt: skip
        missing = missing_for_activation(rule)
        if missing:
            self.fail(path, "history-incomplete", f"{what}, but it has no {', no '.join(missing)}")
        approval = rule.approval
        if approval is None or (not resume and approval.by != self.author.id):
            named = f"names {approval.by}" if approval else "is missing"
            self.fail(
                path,
                "history-approval-mismatch",
                f"{what}, but its approval {named} instead of the commit's author {self.author.id}",
            )
        elif (approval.content_sha256 != self.blobs.content(change.new, path)
              or approval.version != rule.version):  # fmt: skip
            self.fail(
                path,
                "history-approval-mismatch",
                f"{what}, but its approval does not match its content and version",
            )

    def trailers(self) -> None:
        commit = self.commit
        shaped = bool(commit.trailers) or any(
            c.path.startswith(SHAPED_PREFIXES) for c in commit.changes
        )
        if not shaped:
            return
        path = next(
            (c.path for c in commit.changes if c.path.startswith(SHAPED_PREFIXES)),
            commit.changes[0].path if commit.changes else ".",
        )
        init = commit.trailer(tr.ACTION) == "init" and self.standing.first_settings
        needed = BASE_TRAILERS[:1] if init else BASE_TRAILERS
        missing = [k for k in needed if k not in commit.trailers]
        if missing:
            self.fail(
                path,
                "history-trailers",
                f"changes {path} without the audit trailers {', '.join(missing)}: make such changes with agentmem commands",
            )
            return
        actor = commit.trailer(tr.ACTOR) or ""
        email = tr.actor_email(actor)
        if tr.ACTOR in needed and (email is None or email.lower() != commit.author_email.lower()):
            self.fail(
                path,
                "history-actor-mismatch",
                f"carries {tr.ACTOR} '{actor}', which is not its author",
            )
        role = commit.trailer(tr.ROLE)
        person = self.standing.own.by_email(commit.author_email)
        if role is not None and person is not None and role != person.role:
            self.fail(
                path,
                "history-role-mismatch",
                f"carries {tr.ROLE} '{role}', but {person.id} was {person.role} in "
                "roles.yaml at the parent commit",
                WARNING,  # a replayed commit (agentmem sync) keeps the role it was made with
            )


def _rule_id(path: str) -> str:
    match = _RULE_PATH.match(path)
    return match.group(1) if match else path
