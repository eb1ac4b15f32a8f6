"""What ``agentmem erase --text`` replaces, and how, in one file (docs/design/sync.md §Sync).

The same :class:`Scrubber` rewrites the work tree and, inside git-filter-repo
(:mod:`agentmem.erase.rewrite`), every blob, path and message of history, so both always
agree.

**Which forms.** The text in any letter case, with any run of white space between its words,
composed or decomposed (``Dave Chen``, ``dave chen``, ``DAVE\\nCHEN``), its digits with or
without separators (spaces, dots, dashes, slashes) between them (``185057800608436`` finds ``1
85 05 78 006 084 36`` and the other way round), and its slug form: its words joined by ``-`` or
``_`` (``dave-chen``, ``Dave_Chen``), the form it takes in rule ids, file names and commit
subjects.

**With what.** A text form becomes ``***REMOVED***``; a slug form, and any form in a path, a
rule id or a scope, becomes ``removed`` (still a slug). Renamed paths and rule ids come from one
map computed over every path of history (:func:`rename_map`): ``doctrine/escalate-to-dave-chen
.yaml`` → ``doctrine/escalate-to-removed.yaml`` (``-2``… when that name is taken), and the id
inside the file and in commit messages follows.

**Through agentmem's own serialisers.** ``***REMOVED***`` at the start of a YAML value would be
read as an alias, so inbox files are loaded and their strings scrubbed; when the file scrubbed
as text reads back as exactly that it is kept (comments and layout stay), else it is dumped
again with the inbox writer's YAML; rule files are parsed strictly, scrubbed field by field, re-rendered (their
comments kept), renamed with their id, and an approval that matched the old content is sealed
again for the new one (the erase is itself the audited decision: docs/decisions/); memory
files are line-based Markdown, scrubbed line by line (a form never joins two lines). A file that did not parse before is scrubbed
as text. ``erasures.yaml`` holds hashes only and is never touched.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from agentmem.doctrine.model import Approval, content_sha256
from agentmem.doctrine.parse import parse_rule_text
from agentmem.errors import AgentmemError
from agentmem.store.erasures import ERASURES_FILE
from agentmem.store.yamlio import dump_yaml, load_yaml_text

PLACEHOLDER = "***REMOVED***"
SLUG_PLACEHOLDER = "removed"
_WORD = re.compile(r"[^\W_]+")
_RULE = re.compile(r"^doctrine/([^/]+)\.yaml$")
_INBOX = re.compile(r"^inbox/[^/]+/[^/]+\.yaml$")
_MEMORY = re.compile(r"^memories/[^/]+\.md$")
_SLUG_KEYS = frozenset({"id", "person", "scope", "session", "route", "action", "basis"})


_DIGIT_RUN = re.compile(r"(\d(?:[\s./-]*\d)*)")
_DIGIT_SEPARATORS = r"[\s./-]*"
"""What may stand between the digits of an identifier (a social-security number written ``1 85
05 78 006 084 36``, ``1.85.05…`` or ``185057800608436``; a date ``12/03/1975``): the same
separators :func:`agentmem.store.erasures.tokens` joins digit runs across."""


def _form_pattern(form: str) -> str:
    """One form of the text: white space runs match any white space, and a run of digits
    matches with or without separators between its digits."""
    parts: list[str] = []
    for i, piece in enumerate(_DIGIT_RUN.split(form)):
        if i % 2:  # a run of digits (with the separators typed between them)
            parts.append(_DIGIT_SEPARATORS.join(c for c in piece if c.isdigit()))
        else:
            parts += [
                r"\s+" if w.isspace() else re.escape(w) for w in re.split(r"(\s+)", piece) if w
            ]
    return "".join(parts)


def _text_pattern(text: str) -> str:
    forms = dict.fromkeys(unicodedata.normalize(f, text) for f in ("NFC", "NFD"))
    return "|".join(_form_pattern(form) for form in forms)


@dataclass
class Scrubber:
    """The forms of one erased ``text`` and the renames of history (``renames``: old path → new
    path; ``ids``: old rule id → new rule id)."""

    text: str
    renames: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        words = _WORD.findall(unicodedata.normalize("NFC", self.text))
        self._text = re.compile(_text_pattern(self.text), re.IGNORECASE)
        slug = "[-_]".join(re.escape(w) for w in words) if len(words) > 1 else ""
        self._slug = re.compile(slug, re.IGNORECASE) if slug else None
        both = [p for p in (self._text.pattern, slug) if p]
        self._any = re.compile("|".join(f"(?:{p})" for p in both), re.IGNORECASE)
        self._ids = (
            re.compile(
                "|".join(rf"(?<![a-z0-9-]){re.escape(old)}(?![a-z0-9-])" for old in self.ids)
            )
            if self.ids
            else None
        )

    # -- strings --------------------------------------------------------------------------------
    def found(self, value: str) -> bool:
        """Whether ``value`` holds any form."""
        return self._any.search(value) is not None

    def found_bytes(self, data: bytes) -> bool:
        try:
            return self.found(data.decode("utf-8"))
        except UnicodeDecodeError:
            return self.found(data.decode("latin-1"))

    def string(self, value: str, *, slug: bool = False) -> str:
        """``value`` with every form replaced (``slug``: by ``removed`` only)."""
        if self._slug is not None:
            value = self._slug.sub(SLUG_PLACEHOLDER, value)
        return self._text.sub(SLUG_PLACEHOLDER if slug else PLACEHOLDER, value)

    def message(self, value: str) -> str:
        """A commit message: renamed rule ids first (``doctrine(escalate-to-dave-chen)``), then
        every form."""
        if self._ids is not None:
            value = self._ids.sub(lambda m: self.ids[m.group(0)], value)
        return self.string(value)

    def path(self, path: str) -> str:
        return self.renames.get(path, path)

    # -- files ----------------------------------------------------------------------------------
    def file(self, path: str, text: str) -> str:
        """The text of the file at ``path`` (its name BEFORE renaming) with every form gone,
        rewritten through its own serialiser when it is an agentmem file that parses."""
        if path == ERASURES_FILE or not self.found(text):
            if _RULE.match(path) and self.path(path) != path:
                return self._rule(path, text)  # only the id moves with the file name
            return text
        if _RULE.match(path):
            return self._rule(path, text)
        if _INBOX.match(path):
            return self._inbox(text)
        if _MEMORY.match(path):  # one entry a line: a form never joins two lines
            return "".join(self.string(line) for line in text.splitlines(keepends=True))
        return self.string(text)

    def _inbox(self, text: str) -> str:
        try:
            data = load_yaml_text(text, "inbox file", AgentmemError)
        except AgentmemError:
            return self.string(text)
        if not isinstance(data, dict):
            return self.string(text)
        wanted = self._walk(data)
        plain = self.string(text)  # keeps comments and layout, when it reads the same
        try:
            if load_yaml_text(plain, "inbox file", AgentmemError) == wanted:
                return plain
        except AgentmemError:
            pass
        return dump_yaml(wanted)

    def _walk(self, value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            if value in self.ids:  # a rule id (a proposal's target): the renamed id
                return self.ids[value]
            return self.string(value, slug=key in _SLUG_KEYS)
        if isinstance(value, dict):
            return {k: self._walk(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v, key) for v in value]
        return value

    def _rule(self, path: str, text: str) -> str:
        # lazy: ruamel.yaml (under doctrine.render) loads only when a rule is rewritten
        from agentmem.doctrine.render import canonical_text, updated_text

        try:
            rule = parse_rule_text(text, path)
        except AgentmemError:
            return self.string(text)
        new_path = self.path(path)
        new_id = _RULE.match(new_path).group(1)  # type: ignore[union-attr]
        new = rule.with_changes(
            id=new_id,
            path=new_path,
            title=self.string(rule.title),
            scope=self.string(rule.scope, slug=True) if rule.scope else rule.scope,
            instruction=self.string(rule.instruction),
            limits=tuple(self.string(limit) for limit in rule.limits),
            justification=self.string(rule.justification),
            proposed_by=self.string(rule.proposed_by, slug=True),
            origin_session=self.string(rule.origin_session, slug=True)
            if rule.origin_session
            else None,
            distinct_from=tuple(
                self.ids.get(d, self.string(d, slug=True)) for d in rule.distinct_from
            ),
        )
        approval = rule.approval
        if approval is not None:
            sealed = approval.content_sha256 == content_sha256(rule)
            new = new.with_changes(
                approval=Approval(
                    self.string(approval.by, slug=True),
                    approval.at,
                    approval.version,
                    content_sha256(new) if sealed else approval.content_sha256,
                )
            )
        try:
            out = self.string(updated_text(text, new, new_path))
            if parse_rule_text(out, new_path) == new:
                return out
        except AgentmemError:
            pass
        return canonical_text(new)


def rename_map(scrubber: Scrubber, paths: set[str]) -> dict[str, str]:
    """Old path → new path for every path of ``paths`` (every path history ever held) whose
    name holds a form of the text; a new name never collides with an existing one."""
    taken = set(paths)
    renames: dict[str, str] = {}
    for path in sorted(paths):
        if path == ERASURES_FILE or not scrubber.found(path):
            continue
        parts = [scrubber.string(part, slug=True).replace("*", "") for part in path.split("/")]
        new = "/".join(p or SLUG_PLACEHOLDER for p in parts)
        stem, dot, ext = new.rpartition(".") if "." in new.rsplit("/", 1)[-1] else (new, "", "")
        n = 2
        while new in taken:
            new = f"{stem}-{n}{dot}{ext}"
            n += 1
        taken.add(new)
        renames[path] = new
    return renames


def rule_ids(renames: dict[str, str]) -> dict[str, str]:
    """Old rule id → new rule id, for the renamed rule files."""
    ids = {}
    for old, new in renames.items():
        a, b = _RULE.match(old), _RULE.match(new)
        if a and b:
            ids[a.group(1)] = b.group(1)
    return ids
