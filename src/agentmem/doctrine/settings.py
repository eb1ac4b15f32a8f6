"""The governance settings of ``agentmem.yaml`` and a second admin's approval of relaxing one
(docs/design/doctrine.md §Lifecycle, §Check).

:data:`agentmem.governance.RELAXABLE` says when a change relaxes a setting; this module reads
the settings from any ``agentmem.yaml`` text (:func:`governance_values`, leniently, as the
history check reads each version) and makes the approval commit of ``agentmem settings
approve``: an admin other than the relaxing commit's author, one empty audit commit carrying
``Agentmem-Action: approve-settings`` and ``Agentmem-Approves: <commit id>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmem import governance as gov
from agentmem import trailers as tr
from agentmem.config import (
    CONFIG_FILE,
    DEFAULT_RETENTION,
    ContextConfig,
    DoctrineConfig,
    MemoryConfig,
)
from agentmem.errors import AgentmemError, GovernanceError, UsageError
from agentmem.store import gitio
from agentmem.store.repo import Repository, parse_roles
from agentmem.store.sign import signing_wanted
from agentmem.store.yamlio import load_yaml_text

_DOCTRINE, _MEMORY, _CONTEXT = DoctrineConfig(), MemoryConfig(), ContextConfig()
GOVERNANCE_DEFAULTS: dict[str, object] = {
    "doctrine.distinct_approver": _DOCTRINE.distinct_approver,
    "doctrine.require_signed": _DOCTRINE.require_signed,
    "doctrine.on_review_due": _DOCTRINE.on_review_due,
    "doctrine.review_days": _DOCTRINE.review_days,
    "doctrine.duplicate_threshold": _DOCTRINE.duplicate_threshold,
    "context.doctrine_for_roles": tuple(_CONTEXT.doctrine_for_roles),
    "memory.on_review_due": _MEMORY.on_review_due,
    **{
        f"memory.retention.{basis}.{key}": getattr(DEFAULT_RETENTION[basis], key)
        for basis in ("declared", "inferred")
        for key in ("review_days", "expire_days")
    },
    "retired_scopes": (),
    "signing.decisions": "optional",
}
"""Every :data:`agentmem.governance.RELAXABLE` setting with its default (config.py's)."""


def _valid(name: str, value: object) -> bool:
    default = GOVERNANCE_DEFAULTS[name]
    if isinstance(default, bool):
        return isinstance(value, bool)
    if name.endswith("on_review_due"):
        return value in ("alert", "suspend")
    if name == "signing.decisions":
        return value in ("optional", "required")
    if name.endswith("expire_days") and value is None:
        return True
    if isinstance(default, int) or name.endswith("_days"):
        return isinstance(value, int) and not isinstance(value, bool) and value > 0
    return isinstance(value, tuple)


def governance_values(text: str | None) -> dict[str, object]:
    """The governance settings of an ``agentmem.yaml`` text (None: absent), dotted name →
    value, defaults filled in. Leniently, like :func:`parse_settings_text`: a value of the
    wrong type counts as the default (the working-tree check reports it)."""
    values = dict(GOVERNANCE_DEFAULTS)
    if text is None:
        return values
    try:
        data = load_yaml_text(text, CONFIG_FILE)
    except AgentmemError:
        return values
    if not isinstance(data, dict):
        return values
    found: dict[str, object] = {}
    for group in ("doctrine", "context", "memory", "signing"):
        section = data.get(group)
        if isinstance(section, dict):
            for key, value in section.items():
                found[f"{group}.{key}"] = tuple(value) if isinstance(value, list) else value
    retention = found.pop("memory.retention", None)
    if isinstance(retention, dict):
        for basis, spec in retention.items():
            if isinstance(spec, dict):
                for key, value in spec.items():
                    found[f"memory.retention.{basis}.{key}"] = value
    retired = data.get("retired_scopes")
    if isinstance(retired, dict):
        found["retired_scopes"] = tuple(
            sorted((str(k), v.isoformat() if hasattr(v, "isoformat") else str(v))
                   for k, v in retired.items())
        )  # fmt: skip
    for name in values:
        if name in found and _valid(name, found[name]):
            values[name] = found[name]
    return values


def adds_folders_only(old: str | None, new: str | None) -> bool:
    """True when the ``agentmem.yaml`` text ``new`` differs from ``old`` only by folders added
    to the ``scopes:`` map (each folder ``old`` maps keeps its scope; comments and layout
    aside): :data:`agentmem.governance.MAP_SCOPE`, which a member may do. Anything else, or a
    text that does not read as a mapping, is False (a settings change: an admin's)."""
    if new is None:
        return False
    old = old or ""  # no settings before: adding the map is still only adding folders
    try:
        before, after = load_yaml_text(old, CONFIG_FILE), load_yaml_text(new, CONFIG_FILE)
    except AgentmemError:
        return False
    before = {} if before is None else before
    if not isinstance(before, dict) or not isinstance(after, dict):
        return False
    was, now = before.pop("scopes", None) or {}, after.pop("scopes", None)
    if before != after or not isinstance(was, dict) or not isinstance(now, dict):
        return False
    return len(now) > len(was) and all(k in now and now[k] == v for k, v in was.items())


@dataclass(frozen=True)
class SettingsApproval:
    """What ``agentmem settings approve`` did: the relaxing ``commit``, its ``author`` (a
    person id), the settings it relaxed (``names``) and the approval ``approval`` commit."""

    commit: str
    author: str
    names: tuple[str, ...]
    approval: str


def _at(repo: Repository, rev: str, path: str) -> str | None:
    return gitio.show_file(repo.root, rev, path)


def approve_relaxation(repo: Repository, rev: str) -> SettingsApproval:
    """Approve, as a second admin, the commit ``rev`` that relaxed governance settings of
    ``agentmem.yaml``: one empty audit commit. Refused (``GovernanceError``) unless the
    repository's actor is an admin other than its author; ``UsageError`` when ``rev`` is not a
    commit of this branch or relaxes nothing. Call it under the repository lock."""
    actor = repo.actor()
    gov.require(actor, gov.SETTINGS, "approving a relaxed setting")
    proc = gitio.run_git(
        repo.root, ["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], check=False
    )
    sha = proc.stdout.strip()
    if proc.returncode != 0 or not sha:
        raise UsageError(f"{rev}: not a commit of this repository")
    reach = gitio.run_git(repo.root, ["merge-base", "--is-ancestor", sha, "HEAD"], check=False)
    if reach.returncode != 0:
        raise UsageError(f"{rev}: not a commit of this branch (approve what was merged)")
    parents = gitio.run_git(repo.root, ["rev-list", "--parents", "-n1", sha]).stdout.split()[1:]
    new = governance_values(_at(repo, sha, CONFIG_FILE))
    names = (
        gov.relaxations(governance_values(_at(repo, parents[0], CONFIG_FILE)), new)
        if parents
        else []
    )
    if not names:
        raise UsageError(
            f"{sha[:10]} relaxes no governance setting of {CONFIG_FILE}: nothing to approve",
            hint="agentmem check --history names the commits that need a second admin",
        )
    email = gitio.run_git(repo.root, ["log", "-1", "--format=%ae", sha]).stdout.strip()
    try:
        roles = parse_roles(
            load_yaml_text(_at(repo, parents[0], "roles.yaml") or "", "roles.yaml"), "roles.yaml"
        )
    except AgentmemError:
        roles = {}
    author = next((p.id for p in roles.values() if p.email.lower() == email.lower()), None)
    if not gov.may_approve_settings(actor, author):
        raise GovernanceError(
            f"{sha[:10]} was made by {author or 'someone not in roles.yaml'}: a relaxed setting "
            "is approved by a second admin, not by whoever relaxed it",
            hint="ask another admin (roles.yaml lists them) to run agentmem settings approve",
        )
    trailers = [(tr.ACTION, gov.APPROVE_SETTINGS), *tr.audit(actor), (tr.APPROVES, sha)]
    subject = f"settings: approve {', '.join(names)} relaxed in {sha[:10]}"
    signed = signing_wanted(repo, activation=True)
    gitio.check_state(repo.root)
    commit = gitio.commit_paths(repo.root, [], tr.message(subject, trailers), sign=signed)
    return SettingsApproval(sha, author or "", tuple(names), commit)
