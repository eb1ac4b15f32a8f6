"""Signed activations (docs/design/check.md §Check, §Lifecycle): which keys an admin may sign with, and
what git says about a commit's signature.

``roles.yaml`` lists each person's keys: ``signing_keys: ["ssh-ed25519 AAAA… comment", …]`` (SSH
public keys, as in ``~/.ssh/id_ed25519.pub``) or 40-hex GPG fingerprints. A signature counts
only when git reports it good (``%G?`` = ``G``) and its key is listed for the commit's author in
``roles.yaml`` **at the parent commit**: the allowed-signers file handed to git holds every key
ever listed, and the per-commit decision is made here by fingerprint.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem import trailers as tr
from agentmem.errors import AgentmemError
from agentmem.store.gitio import run_git

if TYPE_CHECKING:
    from agentmem.check.findings import Finding
    from agentmem.store.root import StrPath

SSH_KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
_GPG_FINGERPRINT = re.compile(r"^[0-9A-Fa-f]{40}$")


def key_problem(key: object) -> str | None:
    """Why ``key`` is not a usable ``signing_keys`` entry, or None when it is."""
    if not isinstance(key, str) or not key.strip():
        return "a signing key must be a non-empty string"
    text = key.strip()
    if _GPG_FINGERPRINT.match(text.replace(" ", "")):
        return None
    parts = text.split()
    if parts[0] not in SSH_KEY_TYPES:
        return (
            f"unknown key type {parts[0][:30]!r} (expected an SSH public key line such as "
            "'ssh-ed25519 AAAA…' or a 40-hex GPG fingerprint)"
        )
    if len(parts) < 2:
        return "the SSH key has no base64 part"
    try:
        base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        return "the SSH key's base64 part does not decode"
    return None


def fingerprint(key: str) -> str:
    """``SHA256:…`` for an SSH key line (as ``ssh-keygen -l`` and git's ``%GK`` show it), or
    the upper-case fingerprint of a GPG key. Assumes :func:`key_problem` found nothing."""
    text = key.strip()
    if _GPG_FINGERPRINT.match(text.replace(" ", "")):
        return text.replace(" ", "").upper()
    blob = base64.b64decode(text.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def signing_keys(data: object) -> dict[str, tuple[str, ...]]:
    """``{person: (key, …)}`` from a loaded ``roles.yaml``; malformed keys are left out (the
    working-tree check reports them)."""
    found: dict[str, tuple[str, ...]] = {}
    if not isinstance(data, dict):
        return found
    for pid, info in data.items():
        keys = info.get("signing_keys") if isinstance(info, dict) else None
        if isinstance(keys, list):
            good = tuple(k.strip() for k in keys if key_problem(k) is None)
            if good:
                found[str(pid)] = good
    return found


@dataclass(frozen=True)
class Signature:
    """What git says of one commit: ``status`` is ``%G?`` (G good, N none, B bad, U unknown
    validity, X/Y expired, R revoked, E cannot check); ``key`` is ``%GK`` (SSH: ``SHA256:…``);
    ``fingerprints`` holds ``%GF`` and ``%GP`` for GPG."""

    status: str
    key: str
    fingerprints: tuple[str, ...] = ()

    def matches(self, keys: Iterable[str]) -> bool:
        """True when the signature is good and made with one of ``keys``."""
        if self.status != "G":
            return False
        wanted = {fingerprint(k) for k in keys}
        return self.key in wanted or any(f.upper() in wanted for f in self.fingerprints if f)


def _allowed_signers(keys: Iterable[str]) -> str:
    lines = []
    for key in sorted(set(keys)):
        if key.startswith(SSH_KEY_TYPES):
            kind, data = key.split()[:2]
            lines.append(f'agentmem namespaces="git" {kind} {data}')
    return "\n".join(lines) + "\n"


def read_signatures(
    root: StrPath, commits: Sequence[str], keys: Iterable[str]
) -> dict[str, Signature]:
    """``%G?``/``%GK`` of ``commits``, in ONE ``git log --no-walk --stdin`` process, with an
    allowed-signers file holding ``keys`` (every SSH key listed in any ``roles.yaml`` version).
    Raises :class:`~agentmem.errors.GitError` when git fails."""
    if not commits:
        return {}
    with tempfile.TemporaryDirectory(prefix="agentmem-signers-") as tmp:
        signers = Path(tmp) / "allowed_signers"
        signers.write_text(_allowed_signers(keys), encoding="utf-8")
        proc = run_git(
            root,
            [
                "-c",
                f"gpg.ssh.allowedSignersFile={signers}",
                "log",
                "--no-walk=unsorted",
                "--stdin",
                "--format=%H%x1f%G?%x1f%GK%x1f%GF%x1f%GP",
            ],
            input_text="".join(f"{c}\n" for c in commits),
        )
    found: dict[str, Signature] = {}
    for line in proc.stdout.splitlines():
        parts = line.split("\x1f")
        if len(parts) == 5:
            sha, status, key, gf, gp = parts
            found[sha] = Signature(status, key, (gf, gp))
    return found


def keys_of(people_keys: Mapping[str, tuple[str, ...]], person: str | None) -> tuple[str, ...]:
    return people_keys.get(person or "", ())


_RECORD = "\x1e"
_FIELD = "\x1f"


def _roles_at(root: StrPath, rev: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """``roles.yaml`` at ``rev``: e-mail (lower case) → person, and person → signing keys
    (both empty when the file is absent or unreadable)."""
    # lazy: the YAML reader only for a decision to verify
    from agentmem.store.yamlio import load_yaml_text

    text = run_git(root, ["show", f"{rev}:roles.yaml"], check=False).stdout
    try:
        data = load_yaml_text(text, "roles.yaml") if text else None
    except AgentmemError:
        return {}, {}
    emails: dict[str, str] = {}
    if isinstance(data, dict):
        for pid, info in data.items():
            if isinstance(info, dict) and isinstance(info.get("email"), str):
                emails[info["email"].strip().lower()] = str(pid)
    return emails, signing_keys(data)


def verify_decisions(
    root: StrPath,
    revisions: Sequence[str],
    entry: str | None = None,
    actions: Collection[str] | None = None,
) -> list[Finding]:
    """The decision commits of ``revisions`` (``git log`` arguments: ``["old..new"]`` in a
    pre-receive hook, ``["HEAD"]`` for all) that are not signed by a key ``roles.yaml`` lists
    for their author at their parent: one ``history-decision-unsigned`` finding each
    (docs/design/check.md §Check, §Trust boundary). ``entry``: the merge that brought these
    commits in through a second parent; a key then counts only when ``roles.yaml`` at that
    merge lists it too, for the same person (the walk's rule for a side commit:
    :func:`agentmem.check.history.lineage.restrict`) — a key main revoked signs nothing an
    older branch brings in. ``actions``: only the decisions with such an ``Agentmem-Action``
    (``doctrine.require_signed`` signs activations only). A decision is what :func:`agentmem.governance.is_decision` says;
    the caller decides that signatures are required (``signing.decisions: required``). Two
    git processes, plus one per parent (and the merge) whose ``roles.yaml`` is read. Raises
    :class:`~agentmem.errors.GitError` when git fails."""
    # lazy: the findings and the trailer names only for a verification (not the walk's reader)
    from agentmem import governance as gov
    from agentmem.check.findings import ERROR, Finding

    fmt = _RECORD + _FIELD.join(["%H", "%P", "%ae", "%an", "%(trailers:only,unfold)"])
    log = run_git(root, ["log", f"--format={fmt}", *revisions]).stdout
    decisions: list[tuple[str, str, str, str, str, str]] = []
    for record in log.split(_RECORD):
        parts = record.split(_FIELD)
        if len(parts) != 5:
            continue
        sha, parents, email, name, rest = parts
        said = tr.parse(rest)

        def last(key: str, said: dict[str, list[str]] = said) -> str | None:
            values = said.get(key)
            return values[-1] if values else None

        action = last(tr.ACTION)
        if not gov.is_decision(action, last(tr.DECISION), tr.PROPOSAL in said, last(tr.ROUTE)):
            continue
        if actions is not None and action not in actions:
            continue
        rule, actor = last(tr.RULE), tr.actor_id(last(tr.ACTOR) or "")
        path = (
            f"doctrine/{rule}.yaml"
            if rule
            else "erasures.yaml"
            if action == gov.ERASE
            else f"memories/{actor}.md"
            if last(tr.ROUTE) == "memory" and actor
            else "agentmem.yaml"
        )
        parent = parents.split()[0] if parents.split() else sha
        decisions.append((sha, parent, email, name, action or "", path))
    if not decisions:
        return []
    roles = {parent: _roles_at(root, parent) for _s, parent, *_rest in decisions}
    if entry is not None:
        merged = _roles_at(root, entry)
        roles = {parent: _both(found, merged) for parent, found in roles.items()}
    every = {k for _emails, keys in roles.values() for ks in keys.values() for k in ks}
    signatures = read_signatures(root, [d[0] for d in decisions], every)
    findings: list[Finding] = []
    for sha, parent, email, name, action, path in decisions:
        emails, keys = roles[parent]
        who = emails.get(email.lower())
        sig = signatures.get(sha, Signature("N", ""))
        wanted = keys.get(who or "", ())
        if sig.status == "N":
            problem = "is not signed; signing.decisions is required"
        elif sig.status not in ("G", "U"):
            problem = f"has a signature git does not accept (%G? = {sig.status})"
        elif not wanted:
            problem = f"is signed, but {who or 'its author'} lists no signing key in roles.yaml"
        elif not sig.matches(wanted):
            problem = f"is signed with {sig.key or 'a key'}, which roles.yaml does not list"
        else:
            continue
        message = f"commit {sha[:10]} by {name} <{email}> (a decision: {action}) {problem}"
        findings.append(Finding(path, 1, ERROR, "history-decision-unsigned", message, sha))
    return findings


def _both(
    a: tuple[dict[str, str], dict[str, tuple[str, ...]]],
    b: tuple[dict[str, str], dict[str, tuple[str, ...]]],
) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """What two ``roles.yaml`` (:func:`_roles_at`) both say: the e-mails that name the same
    person in each, and of that person's keys at ``a`` those ``b`` lists too (by fingerprint)."""
    emails = {email: who for email, who in a[0].items() if b[0].get(email) == who}
    people = set(emails.values())
    keys: dict[str, tuple[str, ...]] = {}
    for who, listed in a[1].items():
        theirs = {fingerprint(k) for k in b[1].get(who, ())}
        common = tuple(k for k in listed if who in people and fingerprint(k) in theirs)
        if common:
            keys[who] = common
    return emails, keys
