"""``agentmem scope retire S`` (docs/design/doctrine.md §Lifecycle; docs/decisions/0052): an event (a contract ended, a client left) invalidates what was learnt in a
scope, so every personal entry and every doctrine rule scoped to S or below goes back to the
review lists.

The retirement is ONE line in ``agentmem.yaml`` — ``retired_scopes: {S: YYYY-MM-DD}`` — written
by an admin in one audited commit (``governance.RETIRE_SCOPE``; ``check --history`` judges it as
any settings change). Nothing else is rewritten: a memory file is written by its owner only.
From that day, an entry confirmed before it (its record's ``since``) and a rule confirmed before
it (approval or reconfirmation) are *review due* — listed by ``agentmem memory due`` and
``agentmem doctrine due``, and no longer given where ``on_review_due: suspend``. Reconfirming
(``memory reconfirm``, ``doctrine reconfirm``) dates the item after the retirement and ends it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from agentmem import governance as gov
from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes, read_current
from agentmem.config import CONFIG_FILE, parse_config
from agentmem.doctrine.lifecycle import decision_trailers, signing_wanted
from agentmem.doctrine.model import retired_rule_on, today
from agentmem.doctrine.parse import load_rules
from agentmem.errors import ConfigError, UsageError
from agentmem.memory.file import parse_memory
from agentmem.memory.records import retired_on, today_iso
from agentmem.proposals.ids import check_scope
from agentmem.store import gitio, regular
from agentmem.store.repo import Repository
from agentmem.store.yamlio import load_yaml_text

RETIRED_KEY = "retired_scopes"


@dataclass(frozen=True)
class Retirement:
    """What ``scope retire`` did: the scope, the day, the commit, and what it sent to review
    (``entries``: person → entry numbers; ``rules``: rule ids)."""

    scope: str
    day: str
    commit: str | None
    entries: dict[str, list[int]] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)
    applied: bool = True
    previous: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "retired": self.day,
            "commit": self.commit,
            "previous": self.previous,
            "entries": self.entries,
            "rules": self.rules,
            "still_applied": self.applied,
        }


def with_retirement(text: str, scope: str, day: str) -> str:
    """``agentmem.yaml``'s text with ``retired_scopes.<scope>: <day>`` set (round trip: the
    person's comments and order survive)."""
    return settings_with(text, RETIRED_KEY, scope, day, "scopes to days")


def settings_with(text: str, group: str, key: str, value: str, what: str) -> str:
    """``agentmem.yaml``'s text with ``<group>.<key>: <value>`` set, ``group`` a top-level
    mapping (``what`` it maps, for the refusal when it is not one); round trip: the person's
    comments and order survive."""
    # lazy: ruamel.yaml loads only to write the settings
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    data = yaml.load(text) if text.strip() else None
    if data is None:
        data = CommentedMap()
    if not isinstance(data, dict):
        raise ConfigError(f"{CONFIG_FILE}: expected a mapping of settings groups")
    found = data.get(group)
    if found is None:
        data[group] = found = CommentedMap()
    if not isinstance(found, dict):
        raise ConfigError(f"{CONFIG_FILE}: '{group}' must map {what}")
    found[key] = value
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def committed_settings(repo: Repository) -> str:
    """``agentmem.yaml``'s text (empty when absent), refused while it differs from HEAD's: a
    settings commit would commit the person's edit unseen. Raises :class:`UsageError`."""
    old = read_current(repo.root, CONFIG_FILE) or ""
    if old != (gitio.show_file(repo.root, "HEAD", CONFIG_FILE) or ""):
        raise UsageError(
            f"{CONFIG_FILE} has changes that are not committed: this commit would commit "
            "them unseen",
            hint=f"commit or drop your edit of {CONFIG_FILE} first (git diff {CONFIG_FILE})",
        )
    return old


def affected(repo: Repository, scope: str, day: str) -> tuple[dict[str, list[int]], list[str]]:
    """Entries (person → numbers) and active or suspended rules that a retirement of ``scope``
    on ``day`` sends to review (what is confirmed on or after ``day`` is not)."""
    retired = ((scope, day),)
    entries: dict[str, list[int]] = {}
    config = repo.config
    for person in sorted(repo.people()):
        relpath = repo.memory_relpath(person)
        text = regular.read_text(repo.root, relpath, universal_newlines=True)
        if text is None:
            continue
        memory = parse_memory(text, person, config.memory, relpath)
        numbers = [
            e.number
            for e in memory.entries()
            if e.record.marked and retired_on(e.record.scope, e.record.since, retired, day)
        ]
        if numbers:
            entries[person] = numbers
    on = today()
    rules = [
        r.id
        for r in load_rules(repo.root)
        if r.status in ("active", "suspended")
        and retired_rule_on(r, on, retired, config.doctrine.review_days) is not None
    ]
    return entries, rules


def retire_scope(repo: Repository, scope: str, reason: str | None = None) -> Retirement:
    """Retire ``scope`` today (``AGENTMEM_TODAY`` drives the clock) as the repository's actor:
    ONE audited commit of ``agentmem.yaml`` (action ``retire-scope``). Caller holds the lock.

    Raises :class:`GovernanceError` for anyone but an admin, :class:`UsageError` for an
    invalid scope or one already retired today, :class:`GuardError` for a reason the guard
    refuses, :class:`ConfigError` when the settings cannot be read or would not read back."""
    actor = repo.actor()
    gov.require(actor, gov.RETIRE_SCOPE, "retiring a scope")
    clean = check_scope(scope, "scope")
    if clean is None:
        raise UsageError("scope retire needs a scope such as contracts/supply")
    said = decision_trailers(reason, None)  # Agentmem-Reason, through the guard
    day = today_iso()
    previous = dict(repo.config.retired_scopes).get(clean)
    if previous == day:
        raise UsageError(
            f"scope {clean} was already retired today ({day})",
            hint="agentmem memory due and agentmem doctrine due list what it sent to review",
        )
    old = committed_settings(repo)
    new = with_retirement(old, clean, day)
    parse_config(load_yaml_text(new, CONFIG_FILE), CONFIG_FILE)  # reads back, or refuses
    entries, rules = affected(repo, clean, day)
    count = sum(len(n) for n in entries.values())
    trailers = [
        (tr.ACTION, gov.RETIRE_SCOPE),
        *tr.audit(actor),
        (tr.SCOPE, clean),
        *said,
        (
            tr.JUSTIFICATION,
            f"scope {clean} retired on {day}: {count} entries and {len(rules)} rules to review",
        ),
    ]
    message = tr.message(f"scope({clean}): retire on {day}", trailers)
    sign = signing_wanted(repo)
    change = FileChange(CONFIG_FILE, old or None, new)
    commit = apply_changes(repo.root, [change], message, sign=sign)
    return Retirement(
        clean,
        day,
        commit,
        entries,
        rules,
        repo.config.memory.on_review_due == "alert",
        previous,
    )
