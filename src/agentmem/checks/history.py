"""``agentmem check --history`` (issue 5 item 2, SPEC §9): who was allowed to do what, commit
by commit, with ``roles.yaml`` **as it was at the parent commit**.

A commit fails when it
- activates a rule (sets it ``active``, or changes an active rule's content) and its author was
  not admin at the parent, or proposed the rule, or the rule is incomplete, or its approval does
  not name the author and the content;
- makes any other admin-only change (suspend, resume, deactivate, archive, reconfirm, deleting an
  approved rule, changing ``roles.yaml`` or ``agentmem.yaml``) without being admin at the parent;
- creates or edits a draft without being member or admin at the parent;
- changes ``memories/<person>.md`` without being that person (or an admin's erasure:
  ``Agentmem-Action: erase``);
- is agentmem-shaped (changes ``doctrine/``, ``memories/``, ``inbox/`` or carries an
  ``Agentmem-*`` trailer) without the SPEC §9 trailers, or with an ``Agentmem-Actor`` that is
  not its author;
- with signatures required, makes an activation, a change to an active rule, or a change to
  ``roles.yaml``/``agentmem.yaml`` without a good signature from a key listed for its author
  at the parent (:mod:`agentmem.checks.signing`).

A rule's status is read from the blob with :func:`fast_status` (no YAML) when that is provably
the status the strict parser would read, otherwise with ``doctrine.parse_rule_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agentmem.checks import gitread, signing
from agentmem.checks.canonical import fast_parse
from agentmem.checks.findings import ERROR, WARNING, Finding
from agentmem.checks.gitread import CommitRecord
from agentmem.config import CONFIG_FILE
from agentmem.doctrine import (
    STATUSES,
    DoctrineError,
    Rule,
    content_sha256,
    missing_for_activation,
    parse_rule_text,
)
from agentmem.errors import AgentmemError
from agentmem.repo import ROLES_FILE, Person, parse_roles
from agentmem.yamlio import load_yaml_text

_RULE_PATH = re.compile(r"^doctrine/([^/]+)\.yaml$")
_MEMORY_PATH = re.compile(r"^memories/([^/]+)\.md$")
_STATUS_LINE = re.compile(r"(?m)^status:[ \t]*([a-z]+)[ \t]*$")
APPROVED = ("active", "suspended")
SHAPED_PREFIXES = ("doctrine/", "memories/", "inbox/")
BASE_TRAILERS = ("Agentmem-Action", "Agentmem-Actor", "Agentmem-Role")


@dataclass(frozen=True)
class Roles:
    """``roles.yaml`` at one commit: people, their signing keys, and whether it was readable
    (``exists`` False when the file was absent)."""

    people: dict[str, Person] = field(default_factory=dict)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exists: bool = False
    problem: str | None = None

    def by_email(self, email: str) -> Person | None:
        return self._emails.get(email.strip().lower())

    @cached_property
    def _emails(self) -> dict[str, Person]:
        return {p.email.lower(): p for p in self.people.values()}


def parse_roles_text(text: str | None) -> Roles:
    """A :class:`Roles` from a ``roles.yaml`` text (None: absent). Never raises: an unreadable
    file gives nobody any role (fail closed) and says why in ``problem``."""
    if text is None:
        return Roles()
    try:
        data = load_yaml_text(text, ROLES_FILE)
        return Roles(parse_roles(data, ROLES_FILE), signing.signing_keys(data), True)
    except AgentmemError as exc:
        return Roles(exists=True, problem=exc.message)


def fast_status(text: str) -> str | None:
    """The ``status`` of a rule file without YAML, or None when not provably the status the
    strict parser reads. Provable when there is no backslash (no escapes), exactly one
    ``status: <word>`` line at column 0, and no other status word anywhere in the file: then
    the real value, which must be a status word written literally, can only be that one."""
    if "\\" in text:
        return None
    lines = _STATUS_LINE.findall(text)
    if (
        len(lines) != 1
        or lines[0] not in STATUSES
        or text.count("\nstatus:") + text.startswith("status:") != 1
    ):
        return None
    found = lines[0]
    bare = text.replace("deactivated", "")
    for word in STATUSES:
        if word == found:
            continue
        haystack = bare if word == "active" else text
        if word in haystack:
            return None
    return found


@dataclass
class _Blobs:
    """Blob texts, parsed rules and roles, each computed once."""

    texts: dict[str, str]
    rules: dict[str, Rule | None] = field(default_factory=dict)
    roles: dict[str | None, Roles] = field(default_factory=dict)

    def rule(self, oid: str | None, path: str) -> Rule | None:
        if oid is None:
            return None
        if oid not in self.rules:
            text = self.texts.get(oid, "")
            try:
                self.rules[oid] = fast_parse(text) or parse_rule_text(text, path)
            except DoctrineError:
                self.rules[oid] = None
        return self.rules[oid]

    def status(self, oid: str | None, path: str) -> str | None:
        """``None`` absent; ``"invalid"`` when the strict parser refuses it (it applies nowhere)."""
        if oid is None:
            return None
        fast = fast_status(self.texts.get(oid, ""))
        if fast is not None:
            return fast
        rule = self.rule(oid, path)
        return rule.status if rule else "invalid"

    def roles_of(self, oid: str | None) -> Roles:
        if oid not in self.roles:
            self.roles[oid] = parse_roles_text(self.texts.get(oid) if oid else None)
        return self.roles[oid]


@dataclass
class HistoryResult:
    """Findings, the number of commits walked, and which commits need a signature."""

    findings: list[Finding]
    commits: int


def check_history(
    root: Path,
    *,
    since: str | None = None,
    require_signed: bool = False,
    distinct_approver: bool = True,
) -> HistoryResult:
    """Walk the history (all of it, or ``since..HEAD``) and return its findings (see the module
    docstring). Raises :class:`~agentmem.errors.GitError` when git fails."""
    commits = gitread.read_log(root, since)
    parents = sorted({c.parents[0] for c in commits if c.parents})
    roles_ids = gitread.object_ids(root, [f"{p}:{ROLES_FILE}" for p in parents])
    wanted = {oid for oid in roles_ids.values() if oid}
    for commit in commits:
        for change in commit.changes:
            if _RULE_PATH.match(change.path) or (change.path == ROLES_FILE and require_signed):
                wanted.update(o for o in (change.old, change.new) if o)
    blobs = _Blobs(gitread.blobs(root, wanted))
    findings: list[Finding] = []
    to_sign: dict[str, tuple[CommitRecord, Roles, tuple[str, str]]] = {}
    for commit in commits:
        parent_roles = blobs.roles_of(
            roles_ids.get(f"{commit.parents[0]}:{ROLES_FILE}") if commit.parents else None
        )
        judge = _Judge(commit, parent_roles, blobs, distinct_approver)
        findings += judge.run()
        if require_signed and judge.signed_reason:
            to_sign[commit.sha] = (commit, parent_roles, judge.signed_reason)
    if to_sign:
        findings += _signature_findings(root, to_sign, commits, blobs)
    return HistoryResult(findings, len(commits))


def _signature_findings(
    root: Path,
    to_sign: dict[str, tuple[CommitRecord, Roles, tuple[str, str]]],
    commits: list[CommitRecord],
    blobs: _Blobs,
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
    for sha, (commit, roles, reason) in to_sign.items():
        author = roles.by_email(commit.author_email)
        keys = roles.keys.get(author.id, ()) if author else ()
        sig = signatures.get(sha, signing.Signature("N", ""))
        path, what = reason
        head = f"commit {sha[:10]} by {commit.who} ({what})"
        if sig.status == "N":
            problem = "is not signed; signatures are required"
        elif sig.status not in ("G", "U"):
            problem = f"has a signature git does not accept (%G? = {sig.status})"
        elif not keys:
            who = author.id if author else "its author"
            problem = (
                f"is signed, but {who} lists no signing key in roles.yaml at the parent commit"
            )
        elif not sig.matches(keys):
            owner = author.id if author else "its author"
            problem = f"is signed with {sig.key or 'a key'}, which roles.yaml at the parent commit does not list for {owner}"
        else:
            continue
        findings.append(Finding(path, 1, ERROR, "history-signature", f"{head} {problem}", sha))
    return findings


class _Judge:
    """The verdict on one commit."""

    def __init__(
        self, commit: CommitRecord, roles: Roles, blobs: _Blobs, distinct_approver: bool
    ) -> None:
        self.commit = commit
        self.roles = roles
        self.blobs = blobs
        self.distinct_approver = distinct_approver
        self.author = roles.by_email(commit.author_email)
        self.findings: list[Finding] = []
        self.signed_reason: tuple[str, str] | None = None

    # -- helpers ------------------------------------------------------------------------------
    def fail(self, path: str, code: str, what: str, severity: str = ERROR) -> None:
        message = f"commit {self.commit.sha[:10]} by {self.commit.who} {what}"
        self.findings.append(Finding(path, 1, severity, code, message, self.commit.sha))

    def role_text(self) -> str:
        if self.roles.problem:
            return f"nobody: roles.yaml at the parent commit is unreadable ({self.roles.problem})"
        if self.author is None:
            where = (
                "roles.yaml at the parent commit"
                if self.roles.exists
                else "any roles.yaml (none at the parent commit)"
            )
            return f"the author <{self.commit.author_email}> is not a person in {where}"
        return f"{self.author.id} was {self.author.role} in roles.yaml at the parent commit"

    def is_admin(self) -> bool:
        return self.author is not None and self.author.role == "admin"

    def need_sign(self, path: str, what: str) -> None:
        self.signed_reason = self.signed_reason or (path, what)

    # -- the verdict --------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        for change in self.commit.changes:
            if _RULE_PATH.match(change.path):
                self.rule_change(change)
            elif _MEMORY_PATH.match(change.path):
                self.memory_change(change)
            elif change.path in (ROLES_FILE, CONFIG_FILE):
                self.settings_change(change)
        self.trailers()
        return self.findings

    def rule_change(self, change: gitread.Change) -> None:
        path = change.path
        old = self.blobs.status(change.old, path)
        new = self.blobs.status(change.new, path)
        if new == "invalid":
            self.fail(
                path,
                "history-invalid-rule",
                "commits a rule file the strict reader refuses (it applies nowhere)",
                WARNING,
            )
        changed = self.content_changed(change) if new == "active" and old in APPROVED else True
        if new == "active" and (old != "active" or changed):
            self.activation(change, old, resume=old == "suspended" and not changed)
        elif new == old and new in APPROVED:
            self.admin_only(path, f"changes the {new} rule '{_rule_id(path)}'")
            self.need_sign(path, f"changes the {new} rule '{_rule_id(path)}'")
        elif new != old and not (
            new == "draft" or (new is None and old in (None, "draft", "invalid"))
        ):
            what = f"sets rule '{_rule_id(path)}' from {old or 'nothing'} to {new or 'deleted'}"
            self.admin_only(path, what)
        if new == "draft" and (self.author is None or self.author.role not in ("member", "admin")):
            self.fail(
                path,
                "history-not-member",
                f"writes the draft rule '{_rule_id(path)}', but {self.role_text()} (member or admin required)",
            )

    def content_changed(self, change: gitread.Change) -> bool:
        before = self.blobs.rule(change.old, change.path)
        after = self.blobs.rule(change.new, change.path)
        return before is None or after is None or content_sha256(before) != content_sha256(after)

    def admin_only(self, path: str, what: str) -> None:
        if not self.is_admin():
            self.fail(path, "history-not-admin", f"{what}, but {self.role_text()} (admin required)")

    def activation(self, change: gitread.Change, old: str | None, *, resume: bool) -> None:
        path, rule_id = change.path, _rule_id(change.path)
        if resume:
            what = f"resumes the suspended rule '{rule_id}'"
        elif old == "active":
            what = f"changes the content of the active rule '{rule_id}'"
        else:
            what = f"sets rule '{rule_id}' to active"
        self.need_sign(path, what)
        if not self.is_admin():
            self.fail(path, "history-not-admin", f"{what}, but {self.role_text()} (admin required)")
            return
        rule = self.blobs.rule(change.new, path)
        if rule is None:
            return
        assert self.author is not None
        if self.distinct_approver and not resume and rule.proposed_by == self.author.id:
            self.fail(
                path,
                "history-self-approval",
                f"{what}, but {self.author.id} proposed it (an admin who did not propose it must approve)",
            )
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
        elif approval.content_sha256 != content_sha256(rule) or approval.version != rule.version:
            self.fail(
                path,
                "history-approval-mismatch",
                f"{what}, but its approval does not match its content and version",
            )

    def memory_change(self, change: gitread.Change) -> None:
        person = _MEMORY_PATH.match(change.path).group(1)  # type: ignore[union-attr]
        if self.author is not None and self.author.id == person:
            return
        if self.commit.trailer("Agentmem-Action") == "erase":
            if not self.is_admin():
                self.fail(
                    change.path,
                    "history-not-admin",
                    f"erases {person}'s memory, but {self.role_text()} (admin required)",
                )
            return
        owner = self.roles.people.get(person)
        whose = (
            f"{person}'s memory"
            if owner
            else f"the memory file of '{person}' (no such person at the parent commit)"
        )
        self.fail(
            change.path,
            "history-memory-owner",
            f"changes {whose}; only its owner writes it (an admin may only erase it)",
        )

    def settings_change(self, change: gitread.Change) -> None:
        if change.old is None and not self.roles.exists:
            return  # the repository's first settings: nobody to ask yet
        what = f"changes {change.path}"
        self.need_sign(change.path, what)
        self.admin_only(change.path, what)

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
        needed = BASE_TRAILERS if commit.trailer("Agentmem-Action") != "init" else BASE_TRAILERS[:1]
        missing = [k for k in needed if k not in commit.trailers]
        if missing:
            self.fail(
                path,
                "history-trailers",
                f"changes {path} without the audit trailers {', '.join(missing)}: make such changes with agentmem commands",
            )
            return
        actor = commit.trailer("Agentmem-Actor") or ""
        match = re.search(r"<([^<>]+)>\s*$", actor)
        if "Agentmem-Actor" in needed and (
            not match or match.group(1).lower() != commit.author_email.lower()
        ):
            self.fail(
                path,
                "history-actor-mismatch",
                f"carries Agentmem-Actor '{actor}', which is not its author",
            )


def _rule_id(path: str) -> str:
    match = _RULE_PATH.match(path)
    return match.group(1) if match else path
