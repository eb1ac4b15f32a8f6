"""Writing rule files (docs/design/doctrine.md §Rule file): one canonical layout, and round-trip edits.

:func:`canonical_text` is the one layout of a new rule: the key order of docs/design/doctrine.md §Rule file,
two-space mappings, ``  - `` list items, ``null`` for empty values, times and dates unquoted
(``2026-11-29T10:02:00Z``), and any text that YAML 1.1 would read as something else (``on``,
``yes``, ``1.10``, ``2026-11-29``) single-quoted so both PyYAML and ruamel read it back as text.
:func:`updated_text` edits an existing file with ruamel.yaml's round trip: only the keys whose
value changed are rewritten, so a person's comments and key order survive.
ruamel.yaml is imported inside the functions: reading rules never pays for it.
"""

from __future__ import annotations

import io
from typing import Any

import yaml as pyyaml

from agentmem.doctrine.model import KEYS, DoctrineError, Rule
from agentmem.doctrine.parse import parse_rule_text

_STR = "tag:yaml.org,2002:str"
_TIME_KEYS = ("proposed_at", "review_due")


class _Stamp(str):
    """A time or date written as a plain YAML timestamp (its form is checked by the parser)."""


def _yaml() -> Any:
    # lazy: ruamel.yaml loads only to write a rule
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import RoundTripRepresenter

    class Representer(RoundTripRepresenter):
        """A private subclass: ruamel's ``add_representer`` is class-wide."""

    Representer.add_representer(
        type(None), lambda rep, _v: rep.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    Representer.add_representer(
        _Stamp, lambda rep, v: rep.represent_scalar("tag:yaml.org,2002:timestamp", str(v))
    )
    yaml = YAML()
    yaml.Representer = Representer
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    return yaml


def _text(value: str) -> Any:
    """``value`` as a YAML string that every YAML 1.1 or 1.2 reader reads back as this text."""
    # lazy: ruamel.yaml loads only to write a rule
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    resolved = pyyaml.resolver.Resolver().resolve(pyyaml.ScalarNode, value, (True, False))
    return SingleQuotedScalarString(value) if resolved != _STR else value


def _value(rule: Rule, key: str) -> Any:
    # lazy: ruamel.yaml loads only to write a rule
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    raw = getattr(rule, key)
    if raw is None:
        return None
    if key in _TIME_KEYS:
        return _Stamp(raw)
    if key in ("limits", "distinct_from"):
        return CommentedSeq([_text(item) for item in raw])
    if key == "approval":
        return CommentedMap(
            [
                ("by", _text(raw.by)),
                ("at", _Stamp(raw.at)),
                ("version", raw.version),
                ("content_sha256", _text(raw.content_sha256)),
            ]
        )
    if isinstance(raw, int):
        return raw
    return _text(raw)


def _dump(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def canonical_text(rule: Rule) -> str:
    """The canonical file text of ``rule`` (see the module docstring); parses back to ``rule``."""
    # lazy: ruamel.yaml loads only to write a rule
    from ruamel.yaml.comments import CommentedMap

    return _dump(CommentedMap([(key, _value(rule, key)) for key in KEYS]))


def updated_text(old_text: str, rule: Rule, where: str) -> str:
    """``old_text`` with the values of ``rule`` put in by round trip: changed keys rewritten,
    missing keys inserted at their canonical place, comments and order kept elsewhere.

    Falls back to :func:`canonical_text` if the result would not read back as ``rule`` (a
    layout ruamel cannot keep); raises :class:`DoctrineError` if ``old_text`` is not a rule.
    """
    before = parse_rule_text(old_text, where)
    document = _yaml().load(old_text)
    for position, key in enumerate(KEYS):
        new = getattr(rule, key)
        if key in document and getattr(before, key) == new:
            continue
        if key in document:
            document[key] = _value(rule, key)
        else:
            place = sum(1 for k in KEYS[:position] if k in document)
            document.insert(place, key, _value(rule, key))
    text = _dump(document)
    try:
        if parse_rule_text(text, where) == rule:
            return text
    except DoctrineError:
        pass
    return canonical_text(rule)
