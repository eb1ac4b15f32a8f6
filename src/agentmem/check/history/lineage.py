"""Where each commit of a ``check --history`` walk stands (docs/design/check.md §Check): which roles,
signing keys and settings hold for it, and who created and last wrote each rule.

- **Main line**: the first-parent chain from HEAD within the walked range. A main-line commit is
  judged with ``roles.yaml`` and ``agentmem.yaml`` at its (first) parent.
- **Side commit**: one brought in by a merge (reachable from a main-line merge's non-first
  parent, not from its first parent: its **entry merge**). It is judged with what holds BOTH at
  its own parent AND in ``roles.yaml`` as its entry merge leaves it (:func:`restrict`; settings:
  the strictest of its parent, the merge's first parent and the merge): a branch made before a
  demotion keeps no power the main line took away (a merge that restores the old roles.yaml is
  itself a change, :mod:`agentmem.check.history.merges`), a person added on the branch or upstream keeps
  the role the merge accepts, and an unrelated history brings no ``roles.yaml`` of its own.
- **Unrelated root**: a parentless commit other than the main line's root (with ``--since``,
  any parentless commit: the repository's root is behind the range). Nobody has a role there,
  nor in the commits above it on its first-parent line.
- **Beside --since**: with ``--since S``, a commit of the range that does not descend from S
  (a branch forked before S, whatever the parent order of the merge that joins them) is also
  restricted by what holds at S: the first-parent order, chosen by whoever merges, cannot
  hide a demotion the accepted tip S already had.
- **Origins**: per rule blob, the person who created the rule file and the person who last
  changed its content (:class:`Origins`), so ``proposed_by`` and the last writer come from
  history, not from the file.
- **Blobs** and **Walk**: the texts read in one batch, parsed once; the :class:`Standing` of
  each commit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from agentmem import governance
from agentmem.check.history import signing
from agentmem.check.history.gitread import CommitRecord
from agentmem.config import CONFIG_FILE, DoctrineConfig
from agentmem.doctrine import fastread
from agentmem.doctrine.model import DoctrineError, Rule, content_sha256
from agentmem.doctrine.parse import parse_rule_text
from agentmem.errors import AgentmemError
from agentmem.store.repo import ROLES_FILE, Person, parse_roles
from agentmem.store.yamlio import load_yaml_text

REMOVED = "***REMOVED***"  # agentmem.erase.run.REMOVED (not imported: erase pulls in the writer)


@dataclass(frozen=True)
class Roles:
    """``roles.yaml`` at one commit: people, their signing keys, and whether it was readable
    (``exists`` False when the file was absent); ``problem`` says why nobody has a role."""

    people: dict[str, Person] = field(default_factory=dict)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exists: bool = False
    problem: str | None = None

    def by_email(self, email: str) -> Person | None:
        return self._emails.get(email.strip().lower())

    @cached_property
    def _emails(self) -> dict[str, Person]:
        return {p.email.lower(): p for p in self.people.values()}


UNRELATED = Roles(
    exists=True,
    problem="a history unrelated to the main line (from a parentless commit) gives nobody a role",
)


def parse_roles_text(text: str | None) -> Roles:
    """A :class:`Roles` from a ``roles.yaml`` text (None: absent). Never raises: an unreadable
    file gives nobody any role (fail closed) and says why in ``problem``."""
    if text is None:
        return Roles()
    try:
        data = load_yaml_text(text, ROLES_FILE)
        return Roles(parse_roles(data, ROLES_FILE), signing.signing_keys(data), True)
    except AgentmemError as exc:
        return Roles(
            exists=True, problem=f"roles.yaml at the parent commit is unreadable ({exc.message})"
        )


def _key_id(key: str) -> str:
    try:
        return signing.fingerprint(key)
    except (ValueError, IndexError):
        return key


def restrict(a: Roles, b: Roles) -> Roles:
    """What holds at both ``a`` and ``b``: a person (same id, same e-mail) with the lesser of
    their two roles, and only the signing keys listed at both. Absent at either: nobody."""
    if a is b:
        return a
    problem = a.problem or b.problem
    if problem:
        return Roles(exists=True, problem=problem)
    people: dict[str, Person] = {}
    keys: dict[str, tuple[str, ...]] = {}
    for pid, first in a.people.items():
        other = b.people.get(pid)
        if other is None or other.email.lower() != first.email.lower():
            continue
        low = min((first, other), key=lambda p: governance.RANK.get(p.role, -1))
        people[pid] = first.replace(role=low.role)
        theirs = {_key_id(k) for k in b.keys.get(pid, ())}
        common = tuple(k for k in a.keys.get(pid, ()) if _key_id(k) in theirs)
        if common:
            keys[pid] = common
    return Roles(people, keys, a.exists or b.exists)


@dataclass(frozen=True)
class Settings:
    """The ``doctrine`` settings a commit is judged with (read at its parent). ``notes`` says,
    per setting name, why it holds its value when a relaxation in the walk decided it: kept
    strict (``held``: the relaxing commit had no second admin's approval) or relaxed with one
    (``check.history.walk._relaxations``)."""

    require_signed: bool = False
    distinct_approver: bool = True
    notes: tuple[tuple[str, str], ...] = ()
    #: ``signing.decisions: required``: every decision commit is signed
    decisions_signed: bool = False

    def join(self, other: Settings) -> Settings:
        """The stricter of both, setting by setting (the notes of both kept)."""
        return Settings(
            self.require_signed or other.require_signed,
            self.distinct_approver or other.distinct_approver,
            tuple(dict.fromkeys((*self.notes, *other.notes))),
            self.decisions_signed or other.decisions_signed,
        )

    def note(self, name: str) -> str | None:
        """Why setting ``name`` holds its value (see the class), or None."""
        return next((why for key, why in self.notes if key == name), None)


def parse_settings_text(text: str | None) -> Settings:
    """``doctrine.require_signed``/``distinct_approver`` from an ``agentmem.yaml`` text (None:
    absent). Leniently: each value that is a boolean counts even when another key is wrong (the
    working-tree check reports that); an unreadable file gives the defaults (changing the file
    already needed an admin, and a signature when required)."""
    default = DoctrineConfig()
    found = Settings(default.require_signed, default.distinct_approver)
    if text is None:
        return found
    try:
        data = load_yaml_text(text, CONFIG_FILE)
    except AgentmemError:
        return found
    signing = data.get("signing") if isinstance(data, dict) else None
    decisions = isinstance(signing, dict) and signing.get("decisions") == "required"
    group = data.get("doctrine") if isinstance(data, dict) else None
    if not isinstance(group, dict):
        return Settings(found.require_signed, found.distinct_approver, (), decisions)
    signed, distinct = group.get("require_signed"), group.get("distinct_approver")
    return Settings(
        signed if isinstance(signed, bool) else found.require_signed,
        distinct if isinstance(distinct, bool) else found.distinct_approver,
        (),
        decisions,
    )


@dataclass(frozen=True)
class Lines:
    """The shape of a walk: ``main`` (first-parent chain from HEAD), ``entry`` (side commit →
    its entry merge), ``root`` (the main line's root when the walk reaches it), ``orphans``
    (parentless commits that are not ``root``)."""

    main: frozenset[str]
    entry: dict[str, str]
    root: str | None
    orphans: frozenset[str]


def lines_of(commits: Sequence[CommitRecord], *, since: str | None) -> Lines:
    """:class:`Lines` of ``commits`` (parents before children, HEAD last), in one pass over the
    parents already read: each side commit is visited once."""
    by_sha = {c.sha: c for c in commits}
    chain: list[str] = []
    sha: str | None = commits[-1].sha if commits else None
    while sha is not None and sha in by_sha:
        chain.append(sha)
        parents = by_sha[sha].parents
        sha = parents[0] if parents else None
    main = frozenset(chain)
    entry: dict[str, str] = {}
    for merge in reversed(chain):  # oldest first: what an older merge brought in is taken
        stack = list(by_sha[merge].parents[1:])
        while stack:
            side = stack.pop()
            if side in main or side in entry or side not in by_sha:
                continue
            entry[side] = merge
            stack.extend(by_sha[side].parents)
    root = chain[-1] if chain and not by_sha[chain[-1]].parents and since is None else None
    orphans = frozenset(c.sha for c in commits if not c.parents and c.sha != root)
    return Lines(main, entry, root, orphans)


def only_removes(old: str, new: str | None) -> int | None:
    """None when ``new`` only takes away from ``old`` (an erasure: the file deleted, or its
    lines a subsequence of the old ones, where a line may have parts replaced by
    ``***REMOVED***``); else the 1-based number of the first line of ``new`` that was not
    there before."""
    if new is None:
        return None
    before = old.splitlines()
    pos = 0
    for number, line in enumerate(new.splitlines(), 1):
        pattern = _removed_pattern(line)
        while pos < len(before) and not (
            before[pos] == line or (pattern is not None and pattern.fullmatch(before[pos]))
        ):
            pos += 1
        if pos == len(before):
            return number
        pos += 1
    return None


def _removed_pattern(line: str) -> re.Pattern[str] | None:
    if REMOVED not in line:
        return None
    return re.compile("(?s:.+?)".join(re.escape(part) for part in line.split(REMOVED)))


@dataclass
class _Version:
    """One rule blob in the walk: its creator (eager), the commit author who wrote it, the blob
    ids it was made from (the parents' versions), and its content writer once resolved."""

    creator: str | None
    author: str | None
    parents: tuple[str, ...]
    writer: str | None = None
    resolved: bool = False


class Origins:
    """Who created each rule file and who last changed its content, per ``(path, blob id)``,
    carried along each commit's changes (branches and merges keep their own lineage). The
    writer is resolved lazily (:meth:`writer`): only activations and reconfirmations ask, so
    most versions are never parsed beyond their ``proposed_by``."""

    def __init__(self, blobs: Blobs) -> None:
        self.blobs = blobs
        self._known: dict[tuple[str, str], _Version] = {}

    def record(
        self, path: str, olds: Sequence[str | None], new: str, author: str | None
    ) -> str | None:
        """Record ``new`` (written by ``author`` from the parents' ``olds``); return its creator:
        the author when no parent had the file, else the first parent's creator — for a rule
        that exists before the walk, the ``proposed_by`` it had then."""
        parents = tuple(o for o in olds if o and o != new)  # a merge may keep one side's
        known = self._known.get((path, new))
        if known is not None:
            return known.creator
        if not parents:
            creator = author
        else:
            first = self._known.get((path, parents[0]))
            creator = first.creator if first else self.blobs.proposed_by(parents[0], path)
        self._known[(path, new)] = _Version(creator, author, parents)
        return creator

    def creator_of(self, path: str, oid: str) -> str | None:
        """Who created the rule file of version ``oid``: as recorded in the walk, else the
        ``proposed_by`` that version names (a rule older than the walk)."""
        known = self._known.get((path, oid))
        return known.creator if known is not None else self.blobs.proposed_by(oid, path)

    def writer(self, path: str, oid: str) -> str | None:
        """Who last changed the content (title, scope, instruction, limits) of version ``oid``:
        the author of the nearest version back whose parents all had other content; None when
        that goes back before the walk."""
        chain: list[_Version] = []
        version = self._known.get((path, oid))
        result: str | None = None
        while version is not None and not version.resolved:
            chain.append(version)
            content = self.blobs.content(oid, path)
            same = next(
                (p for p in version.parents
                 if content is not None and self.blobs.content(p, path, oid) == content),
                None,
            )  # fmt: skip
            if same is None:
                result = version.author
                version = None
                break
            oid, version = same, self._known.get((path, same))
        else:
            result = version.writer if version is not None else None
        for item in chain:
            item.writer, item.resolved = result, True
        return result


@dataclass
class Blobs:
    """Blob texts, parsed rules, roles and settings, each computed once."""

    texts: dict[str, str]
    rules: dict[str, Rule | None] = field(default_factory=dict)
    roles: dict[str | None, Roles] = field(default_factory=dict)
    settings: dict[str | None, Settings] = field(default_factory=dict)
    contents: dict[str, str | None] = field(default_factory=dict)
    statuses: dict[str, str | None] = field(default_factory=dict)
    canonical: dict[str, Rule] = field(default_factory=dict)  # the rules fast_parse read
    #: blob ids whose rule is parsed whole even where one key would do (:meth:`status`,
    #: :meth:`proposed_by_is`): the versions a caller reads anyway (the served view parses
    #: the rule files of ``HEAD``), so that each is parsed once for the judge and the caller
    full: frozenset[str] | set[str] = frozenset()

    def rule(self, oid: str | None, path: str, near: str | None = None) -> Rule | None:
        """The rule blob ``oid`` holds (None: absent or refused by the strict reader), parsed
        once. ``near``: a version of the same rule already parsed (its child or parent in the
        walk); when ``oid`` only differs from it in status and a cleared approval
        (:func:`~agentmem.doctrine.fastread.fast_sibling`), nothing is parsed again."""
        if oid is None:
            return None
        if oid not in self.rules:
            text = self.texts.get(oid, "")
            known = self.canonical.get(near) if near is not None else None
            found = None
            if known is not None and near is not None:
                found = fastread.fast_sibling(text, known, self.texts[near])
                if found is not None and near in self.contents:
                    self.contents[oid] = self.contents[near]  # same title, scope, text, limits
            found = found or fastread.fast_parse(text)
            if found is not None:
                self.canonical[oid] = found
                self.rules[oid] = found
            else:
                try:
                    self.rules[oid] = parse_rule_text(text, path)
                except DoctrineError:
                    self.rules[oid] = None
        return self.rules[oid]

    def content(self, oid: str, path: str, near: str | None = None) -> str | None:
        """:func:`content_sha256` of a rule blob; None when the strict reader refuses it.
        ``near``: as for :meth:`rule`."""
        if oid not in self.contents:
            rule = self.rule(oid, path, near)
            if oid not in self.contents:
                self.contents[oid] = content_sha256(rule) if rule else None
        return self.contents[oid]

    def proposed_by(self, oid: str, path: str) -> str | None:
        fast = fastread.fast_proposed_by(self.texts.get(oid, ""))
        if fast is not None:
            return fast
        rule = self.rule(oid, path)
        return rule.proposed_by if rule else None

    def proposed_by_is(self, oid: str, person: str) -> bool:
        """True when :func:`~agentmem.doctrine.fastread.fast_proposed_by` would provably read
        ``person`` (a quick test), or the rule parsed already names ``person``."""
        rule = self.rules.get(oid)
        if rule is not None:
            return rule.proposed_by == person
        return fastread.proposes(self.texts.get(oid, ""), person)

    def status(self, oid: str | None, path: str) -> str | None:
        """``None`` absent; ``"invalid"`` when the strict parser refuses it (it applies nowhere)."""
        if oid is None:
            return None
        if oid in self.statuses:
            return self.statuses[oid]
        found = None if oid in self.full else fastread.fast_status(self.texts.get(oid, ""))
        if found is None:
            rule = self.rule(oid, path)
            found = rule.status if rule else "invalid"
        self.statuses[oid] = found
        return found

    def roles_of(self, oid: str | None) -> Roles:
        if oid not in self.roles:
            if oid == "!":
                self.roles[oid] = Roles(exists=True, problem="roles.yaml is not a regular file")
            else:
                self.roles[oid] = parse_roles_text(self.texts.get(oid) if oid else None)
        return self.roles[oid]

    def settings_of(self, oid: str | None) -> Settings:
        if oid not in self.settings:
            self.settings[oid] = parse_settings_text(self.texts.get(oid) if oid else None)
        return self.settings[oid]


@dataclass(frozen=True)
class Standing:
    """What one commit is judged with: ``roles`` (restricted for a side commit), ``own`` (roles
    at its own parent: its ``Agentmem-Role`` must match), ``settings``, ``where`` (the phrase
    naming where the roles were read), ``first_settings`` (a main-line commit before any
    ``roles.yaml``: nobody to ask yet), ``unrelated`` (a parentless commit off the main line)."""

    roles: Roles
    own: Roles
    settings: Settings
    where: str = "roles.yaml at the parent commit"
    first_settings: bool = False
    unrelated: bool = False


class Walk:
    """The standing of every commit of a walk, from one ``cat-file --batch-check`` of
    ``roles.yaml``/``agentmem.yaml`` at every first parent and the blobs already read."""

    def __init__(self, commits: list[CommitRecord], ids: dict[str, str | None], blobs: Blobs,
                 forced: Settings, since: str | None) -> None:  # fmt: skip
        self.by_sha = {c.sha: c for c in commits}
        self.lines = lines_of(commits, since=since)
        self.ids, self.blobs, self.forced = ids, blobs, forced
        self.tainted: set[str] = set()
        self.since = since
        self.after_since: set[str] = set()  # the commits that descend from --since
        #: commit → the walked commit that made the agentmem.yaml version it holds (itself when
        #: it changed the file, else its first parent's), and that commit → (the version's blob
        #: id, the settings it is held to: ``check.history.walk._relaxations``). What a version
        #: is held to belongs to the commit that made it, not to its bytes: the same text made
        #: again by an approved relaxation approves nothing made under an earlier, unapproved one.
        self.source: dict[str, str] = {}
        self.held: dict[str, tuple[str | None, Settings]] = {}
        for c in commits:  # parents first: a descendant of an unrelated root is unrelated too
            if c.sha in self.lines.orphans or (c.parents and c.parents[0] in self.tainted):
                self.tainted.add(c.sha)
            if since and any(p == since or p in self.after_since for p in c.parents):
                self.after_since.add(c.sha)
            if any(change.path == CONFIG_FILE for change in c.changes):
                self.source[c.sha] = c.sha
            elif c.parents and c.parents[0] in self.source:
                self.source[c.sha] = self.source[c.parents[0]]
        self._standings: dict[tuple[object, ...], Standing] = {}
        self._plain: dict[tuple[object, ...], Standing] = {}

    def at(self, sha: str | None) -> tuple[str | None, str | None]:
        if sha is None:
            return None, None
        return self.ids.get(f"{sha}:{ROLES_FILE}"), self.ids.get(f"{sha}:{CONFIG_FILE}")

    def settings_at(self, sha: str | None) -> Settings:
        """The settings the version of ``agentmem.yaml`` at ``sha`` is held to: as the walked
        commit that made it left them (:attr:`held`), else as its blob reads
        (:meth:`Blobs.settings_of`)."""
        config_id = self.at(sha)[1]
        made = self.source.get(sha) if sha else None
        held = self.held.get(made) if made else None
        if held is not None and held[0] == config_id:
            return held[1]
        return self.blobs.settings_of(config_id)

    def _key(self, sha: str | None) -> tuple[object, ...]:
        return (self.at(sha), self.source.get(sha) if sha else None)

    def standing(self, commit: CommitRecord) -> Standing:
        """The :class:`Standing` of ``commit`` (shared by the commits it is the same for)."""
        parent = commit.parents[0] if commit.parents else None
        merge = self.lines.entry.get(commit.sha)
        if merge is None and not self.since and commit.sha not in self.tainted:
            # the usual commit (main line, no --since): what holds at its parent decides alone
            at = self._key(parent)
            found = self._plain.get(at)
            if found is None:
                found = self._plain[at] = self._standing(commit)
            return found
        key = (
            self._key(parent),
            self._key(self.by_sha[merge].parents[0]) if merge else None,
            self._key(merge),
            merge,
            commit.sha in self.tainted,
            bool(self.since) and commit.sha not in self.after_since,
        )
        if key not in self._standings:
            self._standings[key] = self._standing(commit)
        return self._standings[key]

    def _standing(self, commit: CommitRecord) -> Standing:
        found = self._by_parents(commit)
        if not self.since or commit.sha in self.after_since or found.unrelated:
            return found
        # made beside --since (the accepted tip), not on it: what --since had revoked stays so
        roles_id, _config_id = self.at(self.since)
        return Standing(
            restrict(found.roles, self.blobs.roles_of(roles_id)),
            found.own,
            found.settings.join(self.settings_at(self.since)),
            f"{found.where} and at the --since commit {self.since[:10]}",
            first_settings=False,
        )

    def _by_parents(self, commit: CommitRecord) -> Standing:
        parent = commit.parents[0] if commit.parents else None
        roles_id, _config_id = self.at(parent)
        own = self.blobs.roles_of(roles_id)
        settings = self.settings_at(parent).join(self.forced)
        if commit.sha in self.tainted:
            return Standing(UNRELATED, own, settings, unrelated=True)
        merge = self.lines.entry.get(commit.sha)
        if merge is None:
            return Standing(own, own, settings, first_settings=not own.exists)
        entry_roles, _entry_config = self.at(merge)
        roles = restrict(own, self.blobs.roles_of(entry_roles))
        where = (
            f"roles.yaml at both the parent commit and the merge {merge[:10]} that brought it in"
        )
        settings = settings.join(self.settings_at(merge))
        settings = settings.join(self.settings_at(self.by_sha[merge].parents[0]))
        return Standing(roles, own, settings, where, first_settings=not roles.exists)
