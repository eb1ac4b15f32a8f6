"""Strict reading of rule files (docs/design/doctrine.md §Rule file).

A rule file is read from PyYAML's C event stream, never constructed into Python objects by YAML
itself: anchors, aliases (a billion-laughs bomb stops at its first ``*``), explicit tags
(``!!python/object``), several documents and duplicate keys are refused; each value's type is
checked from the scalar's plain or quoted form, so ``status: on`` (a YAML 1.1 boolean) or
``version: 1.10`` (a float) is an error, never a silent coercion. Every error reads
``doctrine/<id>.yaml:<line>: <key>: <reason>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from agentmem.doctrine.fastread import fast_parse
from agentmem.doctrine.model import (
    APPROVAL_KEYS,
    DOCTRINE_DIR,
    KEYS,
    STATUSES,
    Approval,
    DoctrineError,
    Rule,
    UnknownRuleError,
    normalise_scope,
    rule_relpath,
)
from agentmem.doctrine.model import MAX_RULE_BYTES as MAX_RULE_BYTES
from agentmem.store import regular

REQUIRED = ("id", "title", "status", "instruction", "version", "proposed_by", "proposed_at")
_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_KINDS = {
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:int": "a whole number",
    "tag:yaml.org,2002:float": "a decimal number",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:timestamp": "a date",
}


@dataclass
class _Node:
    """One YAML node with its 1-based line: ``kind`` scalar | map | seq."""

    kind: str
    line: int
    value: str = ""
    tag: str = "tag:yaml.org,2002:str"
    items: list[_Node] = field(default_factory=list)  # seq items, or map keys and values in turn

    def describe(self) -> str:
        if self.kind != "scalar":
            return "a list" if self.kind == "seq" else "a mapping"
        if self.tag == "tag:yaml.org,2002:null":
            return "null"
        said = f"{_KINDS.get(self.tag, 'text')} {self.value!r}"
        if self.tag == "tag:yaml.org,2002:bool":
            said += " (YAML 1.1 reads on, off, yes and no as booleans)"
        return said


class _Builder:
    """Builds :class:`_Node` trees from parser events, refusing what a rule never needs."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.stack: list[_Node] = []
        self.root: _Node | None = None
        self.documents = 0

    def fail(self, line: int, reason: str) -> DoctrineError:
        return DoctrineError(f"{self.where}:{line}: {self.path()}: {reason}")

    def path(self) -> str:
        parts: list[str] = []
        for node in self.stack:
            if node.kind == "map":
                if node.items:
                    parts.append(
                        node.items[-1].value if len(node.items) % 2 else node.items[-2].value
                    )
            else:
                parts.append(f"[{len(node.items) + 1}]")
        text = ".".join(parts).replace(".[", "[")
        return text or "(file)"

    def attach(self, node: _Node) -> None:
        if not self.stack:
            self.root = node
            return
        parent = self.stack[-1]
        if parent.kind == "map" and len(parent.items) % 2 == 0 and node.kind != "scalar":
            raise self.fail(node.line, "a key must be plain text")
        parent.items.append(node)

    def feed(self, event: yaml.Event) -> None:
        mark = event.start_mark
        line = mark.line + 1 if mark is not None else 1
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self.fail(line, "one YAML document per rule file (remove the '---')")
        if isinstance(event, yaml.AliasEvent):
            raise self.fail(line, f"aliases (*{event.anchor}) are not allowed in a rule file")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise self.fail(line, f"anchors (&{anchor}) are not allowed in a rule file")
        tag = getattr(event, "tag", None)
        if tag is not None and isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
            raise self.fail(line, f"tags ({tag}) are not allowed in a rule file")
        if isinstance(event, yaml.ScalarEvent):
            resolved = "tag:yaml.org,2002:str"
            if event.implicit[0]:  # plain: YAML 1.1 gives it a type from its form
                resolved = _RESOLVER.resolve(yaml.ScalarNode, event.value, (True, False))
            self.attach(_Node("scalar", line, event.value, resolved))
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            node = _Node("map" if isinstance(event, yaml.MappingStartEvent) else "seq", line)
            self.attach(node)
            self.stack.append(node)
        elif isinstance(event, yaml.CollectionEndEvent):
            self.stack.pop()


def _tree(text: str, where: str) -> _Node:
    builder = _Builder(where)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            builder.feed(event)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DoctrineError(f"{where}:{line}: {builder.path()}: invalid YAML: {problem}") from None
    if builder.root is None or builder.root.kind != "map":
        raise DoctrineError(f"{where}:1: (file): expected a mapping of rule keys")
    return builder.root


class _Reader:
    """Typed access to the values of one mapping, each error naming file, line and key."""

    def __init__(
        self, node: _Node, where: str, prefix: str, known: tuple[str, ...], line: int | None = None
    ) -> None:
        self.where, self.prefix, self.line = where, prefix, line or node.line
        self.values: dict[str, _Node] = {}
        self.lines: dict[str, int] = {}
        lines = self.lines
        for key, value in zip(node.items[::2], node.items[1::2], strict=True):
            name = key.value
            if key.tag != "tag:yaml.org,2002:str" or name not in known:
                expected = ", ".join(known)
                raise self.error(key, name, f"unknown key (expected one of: {expected})")
            if name in lines:
                raise self.error(
                    key, name, f"duplicate key (first at line {lines[name]}); nothing is kept twice"
                )
            lines[name] = key.line
            self.values[name] = value

    def error(self, node: _Node, key: str, reason: str) -> DoctrineError:
        return DoctrineError(f"{self.where}:{node.line}: {self.prefix}{key}: {reason}")

    def require(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            if key not in self.values:
                raise DoctrineError(f"{self.where}:{self.line}: {self.prefix}{key}: missing")

    def _scalar(self, key: str, what: str) -> _Node | None:
        node = self.values.get(key)
        if node is None:
            return None
        if node.kind != "scalar":
            raise self.error(node, key, f"expected {what}, got {node.describe()}")
        if node.tag == "tag:yaml.org,2002:null":
            return None
        return node

    def text(self, key: str, *, nullable: bool = False, required: bool = False) -> str | None:
        node = self._scalar(key, "text")
        if node is None:
            if nullable:
                return None
            if key in self.values:
                raise self.error(self.values[key], key, "expected text, got null")
            return ""
        if node.tag != "tag:yaml.org,2002:str":
            raise self.error(node, key, f"expected text, got {node.describe()}; quote it")
        if required and not node.value.strip():
            raise self.error(node, key, "is empty")
        return node.value

    def slug(self, key: str) -> str:
        node = self.values[key]
        value = self.text(key, required=True) or ""
        if not _SLUG.match(value):
            raise self.error(node, key, f"{value!r} is not a lower-case kebab-case slug")
        return value

    def whole(self, key: str) -> int:
        node = self.values[key]
        if node.kind != "scalar" or node.tag != "tag:yaml.org,2002:int" or not node.value.isdigit():
            raise self.error(node, key, f"expected a whole number ≥ 1, got {node.describe()}")
        number = int(node.value)
        if number < 1:
            raise self.error(node, key, f"expected a whole number ≥ 1, got {number}")
        return number

    def dated(
        self, key: str, pattern: re.Pattern[str], shape: str, *, nullable: bool
    ) -> str | None:
        node = self._scalar(key, shape)
        if node is None:
            if nullable:
                return None
            raise self.error(self.values[key], key, f"expected {shape}, got null")
        ok = node.tag in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:timestamp")
        if not ok or not pattern.match(node.value):
            raise self.error(node, key, f"expected {shape}, got {node.describe()}")
        try:
            date.fromisoformat(node.value[:10])
        except ValueError:
            raise self.error(node, key, f"{node.value!r} is not a real date") from None
        return node.value

    def texts(self, key: str, *, slugs: bool = False) -> tuple[str, ...]:
        node = self.values.get(key)
        if node is None or (node.kind == "scalar" and node.tag == "tag:yaml.org,2002:null"):
            return ()
        if node.kind != "seq":
            raise self.error(node, key, f"expected a list, got {node.describe()}")
        out = []
        for number, item in enumerate(node.items, start=1):
            name = f"{key}[{number}]"
            if item.kind != "scalar" or item.tag != "tag:yaml.org,2002:str":
                raise self.error(item, name, f"expected text, got {item.describe()}")
            if not item.value.strip():
                raise self.error(item, name, "is empty")
            if slugs and not _SLUG.match(item.value):
                raise self.error(item, name, f"{item.value!r} is not a rule id")
            out.append(item.value)
        return tuple(out)


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _approval(reader: _Reader) -> Approval | None:
    node = reader.values.get("approval")
    if node is None or (node.kind == "scalar" and node.tag == "tag:yaml.org,2002:null"):
        return None
    if node.kind != "map":
        raise reader.error(node, "approval", f"expected a mapping or null, got {node.describe()}")
    inner = _Reader(node, reader.where, "approval.", APPROVAL_KEYS, reader.lines["approval"])
    inner.require(APPROVAL_KEYS)
    sha = inner.text("content_sha256", required=True) or ""
    if not _SHA.match(sha):
        raise inner.error(
            inner.values["content_sha256"], "content_sha256", "expected 64 hex digits"
        )
    at = inner.dated("at", _STAMP, "a UTC time YYYY-MM-DDTHH:MM:SSZ", nullable=False)
    return Approval(inner.slug("by"), at or "", inner.whole("version"), sha)


def parse_rule_text(text: str, where: str) -> Rule:
    """Parse one rule file's text strictly (see the module docstring); ``where`` names it in errors.

    Raises :class:`DoctrineError` ``where:line: key: reason`` for a file over
    :data:`MAX_RULE_BYTES`, invalid YAML, an anchor, alias, tag, unknown, duplicate or missing key,
    or a value of the wrong type. The status/approval consistency is :func:`lifecycle_problems`'s.
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_RULE_BYTES:
        raise DoctrineError(
            f"{where}:1: (file): {size:,} bytes; a rule file holds at most {MAX_RULE_BYTES:,}"
        )
    reader = _Reader(_tree(text, where), where, "", KEYS)
    reader.require(REQUIRED)
    rule_id = reader.slug("id")
    status = reader.values["status"]
    if status.kind != "scalar" or status.tag != _STR or status.value not in STATUSES:
        raise reader.error(
            status, "status", f"expected one of {', '.join(STATUSES)}; got {status.describe()}"
        )
    status_value = status.value
    scope = reader.text("scope", nullable=True)
    try:
        scope = normalise_scope(scope)
    except DoctrineError as exc:
        raise reader.error(reader.values["scope"], "scope", exc.message.split(": ", 1)[1]) from None
    return Rule(
        id=rule_id,
        title=reader.text("title", required=True) or "",
        status=status_value,
        scope=scope,
        instruction=reader.text("instruction") or "",
        limits=reader.texts("limits"),
        justification=reader.text("justification") or "",
        version=reader.whole("version"),
        proposed_by=reader.slug("proposed_by"),
        proposed_at=reader.dated(
            "proposed_at", _STAMP, "a UTC time YYYY-MM-DDTHH:MM:SSZ", nullable=False
        )
        or "",
        origin_session=reader.text("origin_session", nullable=True),
        distinct_from=reader.texts("distinct_from", slugs=True),
        approval=_approval(reader),
        review_due=reader.dated("review_due", _DAY, "a date YYYY-MM-DD", nullable=True),
        path=rule_relpath(rule_id),
    )


def read_rule_file(root: Path, where: str) -> str:
    """The text of rule file ``root/where``, size-capped before reading; errors as
    :class:`DoctrineError`. Follows no symlink and reads only a regular file
    (:func:`agentmem.store.regular.read_capped`)."""
    return _rule_text(regular.read_capped(root, where, MAX_RULE_BYTES), where)


def _rule_text(read: regular.Read | None, where: str) -> str:
    if read is None:
        raise UnknownRuleError(
            f"{where}: no such rule", hint="agentmem doctrine list shows the rules"
        )
    if read.size > MAX_RULE_BYTES or len(read.data) > MAX_RULE_BYTES:
        size = max(read.size, len(read.data))
        raise DoctrineError(
            f"{where}:1: (file): {size:,} bytes; a rule file holds at most {MAX_RULE_BYTES:,}"
        )
    try:
        return read.data.decode("utf-8")  # bytes as they are: no newline translation
    except UnicodeDecodeError:
        raise DoctrineError(f"{where}:1: (file): not UTF-8 text") from None


def _named_rule(text: str, where: str, rule_id: str) -> Rule:
    """The rule in ``text`` (file ``where``), which must carry the id of its file name. A
    canonical file is read line by line (:func:`agentmem.doctrine.fastread.fast_parse`, which
    returns what :func:`parse_rule_text` would, proven in tests/doctrine/test_fastread.py); any other
    file by the strict parser."""
    rule = fast_parse(text) or parse_rule_text(text, where)
    if rule.id != rule_id:
        raise DoctrineError(
            f"{where}:1: id: is {rule.id!r}; it must match the file name ({rule_id!r})"
        )
    return rule


def is_rule_name(rule_id: str) -> bool:
    """True when ``rule_id`` (a file name without ``.yaml``) is a rule id."""
    return bool(_SLUG.match(rule_id or ""))


def load_rule(root: Path, rule_id: str) -> Rule:
    """Read ``doctrine/<rule_id>.yaml`` strictly; its ``id`` must match its file name."""
    if not _SLUG.match(rule_id or ""):
        raise DoctrineError(f"invalid rule id {rule_id!r}: use a lower-case kebab-case slug")
    where = rule_relpath(rule_id)
    return _named_rule(read_rule_file(root, where), where, rule_id)


def load_rules(root: Path) -> list[Rule]:
    """Every ``doctrine/*.yaml``, parsed strictly, sorted by id. The first bad file raises
    :class:`DoctrineError` (what audits need: no doctrine rather than part of it) — a symlink
    or a folder named ``*.yaml`` included."""
    rules, errors = load_rules_and_errors(root)
    if errors:
        raise errors[0]
    return rules


def load_rules_and_errors(root: Path) -> tuple[list[Rule], list[DoctrineError]]:
    """Every readable rule sorted by id, and one :class:`DoctrineError` per file that is not
    (file order). For listings, which show the rest and name the broken files.

    ``doctrine/`` itself being a symlink is one error (and no rule); an entry named ``*.yaml``
    that is a symlink, a folder or anything but a regular file is an error of its own
    (:func:`agentmem.store.regular.listing`)."""
    names, refused = regular.listing(root, DOCTRINE_DIR, ".yaml")
    errors = [DoctrineError(regular.message(r), hint=regular.HINT) for r in refused]
    rules: list[Rule] = []
    for name in names:
        rule_id = name[: -len(".yaml")]
        if not _SLUG.match(rule_id):
            errors.append(
                DoctrineError(f"{DOCTRINE_DIR}/{name}:1: (file): the file name is not a rule id")
            )
            continue
        where = f"{DOCTRINE_DIR}/{name}"
        try:
            # the folder is known to be real (listing): only the file itself is checked
            read = regular.read_listed(root / DOCTRINE_DIR / name, where, MAX_RULE_BYTES)
            rules.append(_named_rule(_rule_text(read, where), where, rule_id))
        except DoctrineError as exc:
            errors.append(exc)
    return sorted(rules, key=lambda r: r.id), sorted(errors, key=lambda e: e.message)
