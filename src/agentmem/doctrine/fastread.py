"""Fast readers of rule files that parse no YAML (docs/design/check.md §Check), for ``check`` and
``check --history`` on thousands of rules and commits (``benchmarks/bench_check.py``).

The strict reader (:func:`agentmem.doctrine.parse.parse_rule_text`, PyYAML's event stream) and
the canonical renderer (:func:`agentmem.doctrine.render.canonical_text`, ruamel.yaml) stay the
authority. Every reader here either returns exactly what the authority would, or None — then the
caller uses the authority. ``tests/doctrine/test_fastread.py`` proves it over real and tricky files.

- :func:`fast_canonical_text` writes ``canonical_text(rule)`` for the common case where every
  value is a plain scalar that no YAML reader could take for anything but text, else None;
- :func:`fast_parse` reads a rule from such a text with one match of the lines
  :func:`fast_canonical_text` writes, validates each value as the strict parser does and checks
  it as :func:`fast_canonical_text` would write it — so it accepts exactly the texts that
  :func:`fast_canonical_text` gives back (canonical files, without writing one again) and
  returns the rule that ``parse_rule_text`` would;
- :func:`fast_sibling` gives what :func:`fast_parse` would read from a version of a rule that
  only differs from an accepted text in its status line and a cleared approval, by comparing the
  two texts (``check --history``: a draft before its approval, a suspended version);
- :func:`fast_status` and :func:`fast_proposed_by` read one key of any rule file (canonical or
  not) when the text leaves only one possible value; :func:`proposes` is a quicker test of
  :func:`fast_proposed_by` for a known person.

This is the only module of fast (no-YAML) readers: a new one goes here, with its proof.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

import yaml

from agentmem.doctrine.model import (
    MAX_RULE_BYTES,
    STATUSES,
    Approval,
    DoctrineError,
    Rule,
    normalise_scope,
    rule_relpath,
)

_STATUS_AT = re.compile(r"status:[ \t]*([a-z]+)[ \t]*$", re.MULTILINE)  # matched at a line start
_PROPOSER_LINE = re.compile(r"(?m)^proposed_by: ([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)$")
_YAML_WORDS = frozenset("null true false yes no on off y n".split())
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"
_PLAIN_UNSAFE_START = set("-?:,[]{}#&*!|>'\"%@`. ")
_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHA = re.compile(r"^[0-9a-f]{64}$")


_PRINTABLE_RANGE = re.compile("[\x20-\x7e\xa0-\ud7ff]*")


def plain(value: str) -> str | None:
    """``value`` when the canonical renderer certainly writes it as a plain scalar; None when
    the fast path declines."""
    if not value or value[0] in _PLAIN_UNSAFE_START or value[-1] in " :":
        return None
    spaced = " " in value
    if not spaced and value[0] in "0123456789+":
        return None  # a lone token that YAML 1.1 or 1.2 may read as a number or a date
    if ": " in value or " #" in value:
        return None
    if not (value.isprintable() and (value.isascii() or _PRINTABLE_RANGE.fullmatch(value))):
        return None  # (printable ASCII is within the range)
    if spaced and value[0].isalpha():
        return value  # no implicit YAML type (bool, null, number, date) starts so and has a space
    implicit = _RESOLVER.yaml_implicit_resolvers
    if value[0] not in implicit and None not in implicit and not _RESOLVER.yaml_path_resolvers:
        return value  # what resolve() returns when no resolver applies: the str tag
    if _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _STR:
        return None
    return value


_STATUS_LINES = {f"status: {w}\n": w for w in STATUSES if plain(w) == w}
"""The canonical ``status`` lines (every status word is a plain scalar)."""


def fast_canonical_text(rule: Rule) -> str | None:
    """``canonical_text(rule)`` when every value is a certain plain scalar, else None."""
    parts: list[str] = []

    def scalar(key: str, value: str | None) -> bool:
        if value is None:
            parts.append(f"{key}: null\n")
            return True
        text = plain(value)
        if text is None:
            return False
        parts.append(f"{key}: {text}\n")
        return True

    def listing(key: str, values: tuple[str, ...]) -> bool:
        if not values:
            parts.append(f"{key}: []\n")
            return True
        parts.append(f"{key}:\n")
        for item in values:
            text = plain(item)
            if text is None:
                return False
            parts.append(f"  - {text}\n")
        return True

    ok = (
        scalar("id", rule.id)
        and scalar("title", rule.title)
        and scalar("status", rule.status)
        and scalar("scope", rule.scope)
        and scalar("instruction", rule.instruction)
        and listing("limits", rule.limits)
        and scalar("justification", rule.justification)
    )
    if not ok:
        return None
    parts.append(f"version: {rule.version}\n")
    if not scalar("proposed_by", rule.proposed_by):
        return None
    parts.append(f"proposed_at: {rule.proposed_at}\n")
    if not (
        scalar("origin_session", rule.origin_session)
        and listing("distinct_from", rule.distinct_from)
    ):
        return None
    approval = rule.approval
    if approval is None:
        parts.append("approval: null\n")
    else:
        if plain(approval.by) is None or not set(approval.content_sha256) & set("abcdf"):
            return None  # a hash of digits (and e) could read as a number: let ruamel decide
        parts.append(
            f"approval:\n  by: {approval.by}\n  at: {approval.at}\n  version: {approval.version}\n"
            f"  content_sha256: {approval.content_sha256}\n"
        )
    parts.append(f"review_due: {rule.review_due if rule.review_due else 'null'}\n")
    return "".join(parts)


def _number(value: str) -> int:
    if not value.isdigit() or value.startswith("0") or not value.isascii():
        raise ValueError(value)
    return int(value)


def _checked(value: str, pattern: re.Pattern[str]) -> str:
    if not pattern.match(value):
        raise ValueError(value)
    date.fromisoformat(value[:10])
    return value


def _slug(value: str) -> str:
    if not _SLUG.match(value):
        raise ValueError(value)
    return value


@lru_cache(maxsize=1024)
def _stored_scope(scope: str | None) -> bool:
    """True when ``scope`` is a scope as stored (``normalise_scope`` gives it back); cached:
    thousands of rules share a few scopes, and the answer depends on the text alone."""
    try:
        return normalise_scope(scope) == scope
    except DoctrineError:
        return False


#: The shape of a canonical text (:func:`fast_canonical_text`): every key on its line, in order,
#: a list as ``[]`` or one ``  - item`` line per item, the approval null or its four lines.
_CANONICAL_SHAPE = re.compile(
    "id: ([^\n]*)\n"
    "title: ([^\n]*)\n"
    "status: ([^\n]*)\n"
    "scope: ([^\n]*)\n"
    "instruction: ([^\n]*)\n"
    "limits:(?: \\[\\]\n|\n((?:  - [^\n]*\n)+))"
    "justification: ([^\n]*)\n"
    "version: ([^\n]*)\n"
    "proposed_by: ([^\n]*)\n"
    "proposed_at: ([^\n]*)\n"
    "origin_session: ([^\n]*)\n"
    "distinct_from:(?: \\[\\]\n|\n((?:  - [^\n]*\n)+))"
    "approval:(?: null\n|\n  by: ([^\n]*)\n  at: ([^\n]*)\n  version: ([^\n]*)\n"
    "  content_sha256: ([^\n]*)\n)"
    "review_due: ([^\n]*)\n"
)
_PLAIN_STATUSES = frozenset(w for w in STATUSES if plain(w) == w)


def _items(block: str | None) -> tuple[str, ...]:
    """The items of a list's ``  - item`` lines (None: ``[]``), each a certain plain scalar."""
    if block is None:
        return ()
    items = tuple(line[4:] for line in block.split("\n")[:-1])
    for item in items:
        if plain(item) is None:
            raise ValueError(item)
    return items


def fast_parse(text: str) -> Rule | None:
    """The rule a canonical ``text`` holds (exactly what ``parse_rule_text`` returns), or None
    when ``text`` is not provably canonical — then use the strict parser.

    Canonical means ``fast_canonical_text(rule) == text``; that is proven without writing the
    text again: ONE match of :data:`_CANONICAL_SHAPE` (the lines :func:`fast_canonical_text`
    writes, in its order, nothing before or after), then each value checked as
    :func:`fast_canonical_text` checks it (:func:`plain` for the scalars it writes so, a
    number without a leading zero, a stamp, a date, a hash with a letter) and as the strict
    parser validates it (slugs, status, scope)."""
    if len(text) * 4 > MAX_RULE_BYTES and len(text.encode("utf-8")) > MAX_RULE_BYTES:
        return None
    match = _CANONICAL_SHAPE.fullmatch(text)
    if match is None:
        return None
    (
        rule_id, title, status, scope, instruction, limits, justification, version, proposed_by,
        proposed_at, origin_session, distinct_from, by, at, approved, sha, review_due,
    ) = match.groups()  # fmt: skip
    if scope == "null":
        scope = None
    if origin_session == "null":
        origin_session = None
    if review_due == "null":
        review_due = None
    if (
        status not in _PLAIN_STATUSES
        or plain(title) is None
        or plain(instruction) is None
        or plain(justification) is None
        or plain(rule_id) is None
        or plain(proposed_by) is None
        or (scope is not None and plain(scope) is None)
        or (origin_session is not None and plain(origin_session) is None)
        or not _stored_scope(scope)
    ):
        return None
    try:
        approval = None
        if by is not None:
            if plain(by) is None or not _SHA.match(sha) or not set(sha) & set("abcdf"):
                return None
            approval = Approval(_slug(by), _checked(at, _STAMP), _number(approved), sha)
        if review_due is not None:
            _checked(review_due, _DAY)
        return Rule(
            _slug(rule_id), title, status, scope, instruction, _items(limits), justification,
            _number(version), _slug(proposed_by), _checked(proposed_at, _STAMP), origin_session,
            tuple(_slug(item) for item in _items(distinct_from)), approval, review_due,
            rule_relpath(rule_id),
        )  # fmt: skip
    except ValueError:
        return None


_NULL_TAIL = "approval: null\nreview_due: null\n"


def fast_sibling(text: str, rule: Rule, rule_text: str) -> Rule | None:
    """``fast_parse(text)`` without parsing ``text``, when ``rule_text`` is a text
    :func:`fast_parse` accepted (giving ``rule``) and ``text`` is that same text with another
    ``status: <word>`` line and, possibly, ``approval: null`` and ``review_due: null`` as its
    last two lines: a rule's version before its approval, or after a suspension or a
    deactivation. Then ``text`` is the canonical text of ``rule`` with those values, every
    other line validated already, and that rule is what ``fast_parse`` returns. None
    otherwise (then parse ``text``)."""
    if len(text) * 4 > MAX_RULE_BYTES and len(text.encode("utf-8")) > MAX_RULE_BYTES:
        return None
    start = rule_text.find("\nstatus: ") + 1  # line 3 of a canonical text
    if not start or text[:start] != rule_text[:start]:
        return None
    end = rule_text.index("\n", start) + 1
    here = text.find("\n", start) + 1
    status = _STATUS_LINES.get(text[start:here])
    if status is None:
        return None
    approval, review_due = rule.approval, rule.review_due
    if text[here:] != rule_text[end:]:
        tail = rule_text.index("\napproval:") + 1  # the only line starting so (one-line values)
        if len(text) - here != len(_NULL_TAIL) + tail - end or not text.endswith(_NULL_TAIL):
            return None
        if text[here : len(text) - len(_NULL_TAIL)] != rule_text[end:tail]:
            return None
        approval = review_due = None
    return Rule(
        rule.id, rule.title, status, rule.scope, rule.instruction, rule.limits,
        rule.justification, rule.version, rule.proposed_by, rule.proposed_at,
        rule.origin_session, rule.distinct_from, approval, review_due, rule.path,
    )  # fmt: skip


def fast_status(text: str) -> str | None:
    """The ``status`` of a rule file without YAML, or None when not provably the status the
    strict parser reads. Provable when there is no backslash (no escapes), exactly one
    ``status: <word>`` line at column 0, and no other status word anywhere in the file: then
    the real value, which must be a status word written literally, can only be that one."""
    if "\\" in text:
        return None
    at = 0 if text.startswith("status:") else text.find("\nstatus:") + 1
    if text.find("\nstatus:", at) >= 0:
        return None  # more than one line starts with "status:"
    match = _STATUS_AT.match(text, at)  # the one such line (at 0 without one: no match)
    if match is None or match.group(1) not in STATUSES:
        return None
    found: str = match.group(1)
    bare = text.replace("deactivated", "") if "deactivated" in text else text
    for word in STATUSES:
        if word == found:
            continue
        haystack = bare if word == "active" else text
        if word in haystack:
            return None
    return found


def fast_proposed_by(text: str) -> str | None:
    """``proposed_by`` of a rule file without YAML, or None when not provable: the word
    appears once in the file, on a ``proposed_by: <slug>`` line at column 0 that no indented
    line continues, the slug being no YAML 1.1 special word and not a number. When the file
    is valid that line is the key (there is no other) and its plain value is the slug."""
    if text.count("proposed_by") != 1:
        return None
    match = _PROPOSER_LINE.search(text)
    if match is None or match.group(1) in _YAML_WORDS or match.group(1).isdigit():
        return None
    after = text[match.end() + 1 : match.end() + 2]
    return None if after in (" ", "\t") else match.group(1)


def proposes(text: str, person: str) -> bool:
    """True when :func:`fast_proposed_by` of ``text`` provably reads ``person`` (without a
    regular expression over the whole text)."""
    line = f"\nproposed_by: {person}\n"
    at = text.find(line)
    return (
        at >= 0
        and text.count("proposed_by") == 1
        and person not in _YAML_WORDS
        and not person.isdigit()
        and text[at + len(line) : at + len(line) + 1] not in (" ", "\t")
        and _PROPOSER_LINE.fullmatch(line.strip("\n")) is not None
    )
