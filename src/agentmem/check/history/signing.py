"""Signed activations (docs/design.md §Check, §Lifecycle): which keys an admin may sign with, and
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentmem.store.gitio import run_git

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
    root: Path, commits: Sequence[str], keys: Iterable[str]
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
