"""The usage log (docs/design/context.md §Context): which doctrine each audit prompt was given, and why not
the rest.

``agentmem context audit --scope S`` appends ONE JSON line per call to ``.agentmem/usage.jsonl``
(local, git-ignored). The line is bounded: the rules in scope (S or above it) each with their
verdict — except the drafts, never given, which are counted (``drafts``: a doctrine of 100,000
drafts made a line of megabytes) —, the others as one count per reason::

    {"run_id": "r-20261129T101500-3fa2c1", "time": "2026-11-29T10:15:00Z", "actor": "alice",
     "role": "member", "scope": "contracts/supply", "applied": 2,
     "rules": [{"rule": "supply-warranty-12-months", "version": 3, "status": "active",
                "scope": "contracts/supply", "applied": true, "reason": null,
                "review_overdue": false}, ...],
     "drafts": 20, "others": {"draft": 412, "out of scope": 9530}}

``reason`` says why a rule was not applied: ``draft``, ``suspended``, ``deactivated``,
``archived``, ``changed after approval``, ``out of scope``, ``review overdue`` or ``scope
retired`` (under ``on_review_due: suspend``) or ``role not given doctrine``
(``context.doctrine_for_roles``). ``agentmem usage`` reads it back.

Each chat block given to a session (``context chat``, the SessionStart hook, the API's
``chat_context``, the MCP ``show_memory`` tool) appends a line with ``"kind": "chat"``
(:class:`ChatUsage`): the entries' numbers and content hashes, never their text, and the git
object id of the memory file read; ``agentmem usage --chat`` reads them back.

The log rotates by size: a line that would take ``usage.jsonl`` past :data:`USAGE_MAX_BYTES`
first renames it to ``usage.1.jsonl`` (replacing the previous one), so the two files hold at
most twice that; both kinds of line are read from both files, oldest first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem.delivery.usagelog import CHAT_KIND as CHAT_KIND
from agentmem.delivery.usagelog import ROTATED_FILE as ROTATED_FILE
from agentmem.delivery.usagelog import USAGE_FILE as USAGE_FILE
from agentmem.delivery.usagelog import USAGE_MAX_BYTES as USAGE_MAX_BYTES
from agentmem.delivery.usagelog import append_line as append_line
from agentmem.delivery.usagelog import chat_line, write_chat
from agentmem.delivery.usagelog import entry_hash as entry_hash
from agentmem.errors import AgentmemError

if TYPE_CHECKING:
    from agentmem.delivery.context import ChatContext


@dataclass(frozen=True)
class RuleUsage:
    """One rule considered by an audit: ``applied``, else ``reason``; ``version`` of the rule."""

    rule: str
    version: int
    status: str
    scope: str | None
    applied: bool
    reason: str | None
    review_overdue: bool


#: What a usage line holds of each rule, in order (``asdict`` without its deep copy: 20,000
#: rules in scope of a big doctrine).
_RULE_FIELDS = tuple(f.name for f in fields(RuleUsage))


@dataclass(frozen=True)
class UsageRecord:
    """One audit call: ``time`` ISO 8601 UTC, ``rules`` the rules in scope but the drafts,
    ``drafts`` how many drafts are in scope, ``others`` ``(reason, count)`` for the rest;
    ``applied`` = how many rules were given."""

    run_id: str
    time: str
    actor: str
    role: str
    scope: str
    rules: tuple[RuleUsage, ...]
    others: tuple[tuple[str, int], ...] = ()
    drafts: int = 0

    @property
    def applied(self) -> int:
        return sum(1 for r in self.rules if r.applied)

    @property
    def considered(self) -> int:
        """Every rule the audit decided: those in scope (drafts included) and the others."""
        return len(self.rules) + self.drafts + sum(n for _, n in self.others)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "time": self.time,
            "actor": self.actor,
            "role": self.role,
            "scope": self.scope,
            "applied": self.applied,
            "rules": [{name: getattr(r, name) for name in _RULE_FIELDS} for r in self.rules],
            "drafts": self.drafts,
            "others": dict(self.others),
        }


def new_run_id(now: datetime | None = None) -> str:
    """``r-YYYYMMDDTHHMMSS-xxxxxx``: sortable by time, 24 random bits against collisions."""
    # lazy: an audit's run id only; a chat block's usage line (the hot path) needs none
    import secrets

    now = now or datetime.now(UTC)
    return f"r-{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def now_stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def append_usage(root: Path, record: UsageRecord, *, limit: int = USAGE_MAX_BYTES) -> None:
    """Append ``record`` as one line (:func:`append_line`). Raises :class:`AgentmemError` when
    the log cannot be written: an audit that cannot be traced is refused, not run silently."""
    line = json.dumps(record.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        append_line(root, line.encode("utf-8"), limit=limit)
    except OSError as exc:
        raise AgentmemError(
            f"{USAGE_FILE}: cannot append the usage line ({exc.strerror})",
            hint="check that .agentmem/ is writable",
        ) from None


def log_text(root: Path) -> str:
    """The text of ``usage.1.jsonl`` then ``usage.jsonl`` (empty when neither exists).

    Raises :class:`AgentmemError` naming the file when one exists but cannot be read."""
    text = ""
    for name in (ROTATED_FILE, USAGE_FILE):
        try:
            part = (root / name).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise AgentmemError(
                f"{name}: cannot read the usage log ({exc.strerror or exc})",
                hint="check the file's permissions (it is local, never committed)",
            ) from None
        text += part if not part or part.endswith("\n") else part + "\n"
    return text


def _rule_usage(data: Any) -> RuleUsage | None:
    if not isinstance(data, dict) or not isinstance(data.get("rule"), str):
        return None
    version = data.get("version")
    return RuleUsage(
        data["rule"],
        version if isinstance(version, int) else 0,
        str(data.get("status") or ""),
        data.get("scope") if isinstance(data.get("scope"), str) else None,
        data.get("applied") is True,
        data.get("reason") if isinstance(data.get("reason"), str) else None,
        data.get("review_overdue") is True,
    )


def _record(data: Any) -> UsageRecord | None:
    if not isinstance(data, dict):
        return None
    fields = ("run_id", "time", "actor", "scope")
    if not all(isinstance(data.get(k), str) for k in fields) or not isinstance(
        data.get("rules"), list
    ):
        return None
    rules = [_rule_usage(r) for r in data["rules"]]
    if any(r is None for r in rules):
        return None
    others = data.get("others")
    counts = (
        tuple(
            (k, v)
            for k, v in sorted(others.items())
            if isinstance(k, str) and type(v) is int and v >= 0
        )
        if isinstance(others, dict)
        else ()
    )
    drafts = data.get("drafts", 0)  # a line of the former format lists its drafts in rules
    return UsageRecord(
        data["run_id"],
        data["time"],
        data["actor"],
        str(data.get("role") or ""),
        data["scope"],
        tuple(r for r in rules if r is not None),
        counts,
        drafts if type(drafts) is int and drafts >= 0 else 0,
    )


@dataclass(frozen=True)
class UsageLog:
    """The log as read: ``records`` oldest first; ``bad_lines`` numbers of unreadable lines."""

    records: list[UsageRecord]
    bad_lines: list[int]


def read_usage(root: Path, text: str | None = None) -> UsageLog:
    """Every audit record of ``.agentmem/usage.1.jsonl`` then ``.agentmem/usage.jsonl`` (none
    when neither exists); unreadable lines are numbered across the two files in that order.
    ``text``: the log as :func:`log_text` read it already (a caller that also wants
    :func:`read_chats` reads it once)."""
    text = log_text(root) if text is None else text
    records: list[UsageRecord] = []
    bad: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.get("kind") == CHAT_KIND:
                continue  # a chat line: read_chats
            record = _record(data)
        except json.JSONDecodeError:
            record = None
        if record is None:
            bad.append(number)
        else:
            records.append(record)
    return UsageLog(records, bad)


def filter_usage(
    records: list[UsageRecord],
    *,
    scope: str | None = None,
    rule: str | None = None,
    actor: str | None = None,
) -> list[UsageRecord]:
    """Records of one scope (exact), one actor, or that considered ``rule`` as applied."""
    found = []
    for record in records:
        if scope is not None and record.scope != scope:
            continue
        if actor is not None and record.actor != actor:
            continue
        if rule is not None and not any(r.rule == rule and r.applied for r in record.rules):
            continue
        found.append(record)
    return found


# ---------------------------------------------------------------------------------------------
# chat lines: which entries each chat block carried (docs/design/context.md §Context)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatUsage:
    """One chat block given to a session: ``entries`` as ``(number, sha256 prefix)`` pairs —
    never their text — and ``blob`` the git object id of the memory file as read, so that an
    investigator can rebuild what the session saw from history (``git log --find-object``).
    ``via``: ``context chat``, ``session-start``, ``api`` or ``mcp``."""

    run_id: str
    time: str
    actor: str
    person: str
    scope: str | None
    via: str
    file: str
    blob: str
    entries: tuple[tuple[int, str], ...]
    withheld: tuple[int, ...] = ()
    left_out: tuple[tuple[int, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": CHAT_KIND,
            "run_id": self.run_id,
            "time": self.time,
            "actor": self.actor,
            "person": self.person,
            "scope": self.scope,
            "via": self.via,
            "file": self.file,
            "blob": self.blob,
            "entries": [{"number": n, "sha256": h} for n, h in self.entries],
            "withheld": list(self.withheld),
            "left_out": [{"number": n, "reason": r} for n, r in self.left_out],
        }


def log_chat(root: Path, ctx: ChatContext, actor: str, via: str) -> str | None:
    """Append the chat block's line to ``.agentmem/usage.jsonl``
    (:func:`agentmem.delivery.usagelog.write_chat`). Returns None, or the reason it could not be
    written: a chat block is still given (a session never breaks on its log) and the caller
    says so on stderr."""
    return write_chat(root, chat_line(ctx, actor, via))


def _pairs(items: Any, key: str) -> tuple[tuple[int, str], ...] | None:
    if not isinstance(items, list):
        return None
    found = []
    for item in items:
        if not isinstance(item, dict):
            return None
        number, value = item.get("number"), item.get(key)
        if not isinstance(number, int) or not isinstance(value, str):
            return None
        found.append((number, value))
    return tuple(found)


def _chat_record(data: dict[str, Any]) -> ChatUsage | None:
    fields = ("run_id", "time", "actor", "person", "via", "file", "blob")
    if not all(isinstance(data.get(k), str) for k in fields):
        return None
    entries = _pairs(data.get("entries"), "sha256")
    left_out = _pairs(data.get("left_out", []), "reason")
    withheld = data.get("withheld", [])
    if entries is None or left_out is None or not isinstance(withheld, list):
        return None
    scope = data.get("scope")
    return ChatUsage(
        data["run_id"],
        data["time"],
        data["actor"],
        data["person"],
        scope if isinstance(scope, str) else None,
        data["via"],
        data["file"],
        data["blob"],
        entries,
        tuple(n for n in withheld if isinstance(n, int)),
        left_out,
    )


def read_chats(root: Path, text: str | None = None) -> list[ChatUsage]:
    """Every chat line of ``.agentmem/usage.1.jsonl`` then ``.agentmem/usage.jsonl``, oldest
    first (other lines skipped); ``text`` as for :func:`read_usage`."""
    text = log_text(root) if text is None else text
    found = []
    for line in text.splitlines():
        if f'"kind":"{CHAT_KIND}"' not in line:
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("kind") == CHAT_KIND:
            record = _chat_record(data)
            if record is not None:
                found.append(record)
    return found
