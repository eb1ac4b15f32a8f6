"""The fast (no-YAML) rule readers of agentmem/doctrine/fastread.py against the authority: over
this repository's own rules, the doctrine test files and tricky variants of each, every fast
reader returns None or exactly what the strict reader (``parse_rule_text``) or the canonical
renderer (``canonical_text``, ruamel.yaml) gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.helpers import DATA, REPO_ROOT
from tests.helpers.team import make_rule

from agentmem.doctrine.fastread import (
    fast_canonical_text,
    fast_parse,
    fast_proposed_by,
    fast_sibling,
    fast_status,
    proposes,
)
from agentmem.doctrine.fastread import fast_canonical_text as _fast_canonical
from agentmem.doctrine.model import DoctrineError, Rule
from agentmem.doctrine.parse import parse_rule_text
from agentmem.doctrine.render import canonical_text

REAL = sorted((REPO_ROOT / "doctrine").glob("*.yaml")) + sorted((DATA / "doctrine").glob("*.yaml"))


def _variants(name: str, text: str) -> list[tuple[str, str]]:
    """Tricky edits of a real rule file: quoting, comments, escapes, line ends, a second status
    or proposer spelt elsewhere, YAML 1.1 words, continuation lines, flow style."""
    sub = re.sub
    found = [
        ("as-is", text),
        ("status-quoted", sub(r"(?m)^status: (\w+)$", r'status: "\1"', text)),
        ("status-single-quoted", sub(r"(?m)^status: (\w+)$", r"status: '\1'", text)),
        ("status-comment", sub(r"(?m)^status: (\w+)$", r"status: \1  # reviewed", text)),
        ("status-escaped", sub(r"(?m)^status: (\w+)$", r'status: "\\x64raft"', text)),
        ("status-trailing-space", sub(r"(?m)^status: (\w+)$", r"status: \1   ", text)),
        ("status-word-in-text", sub(r"(?m)^title: ", "title: suspended until active ", text)),
        ("status-twice", text + "status: archived\n"),
        ("status-anchor", sub(r"(?m)^status: (\w+)$", r"status: &s \1", text)),
        ("status-on", sub(r"(?m)^status: (\w+)$", "status: on", text)),
        ("proposer-quoted", sub(r"(?m)^proposed_by: (\S+)$", r'proposed_by: "\1"', text)),
        ("proposer-yes", sub(r"(?m)^proposed_by: (\S+)$", "proposed_by: yes", text)),
        ("proposer-number", sub(r"(?m)^proposed_by: (\S+)$", "proposed_by: 1234", text)),
        ("proposer-null", sub(r"(?m)^proposed_by: (\S+)$", "proposed_by: null", text)),
        ("proposer-continued", sub(r"(?m)^proposed_by: (\S+)$", r"proposed_by: \1\n  more", text)),
        ("proposer-in-text", sub(r"(?m)^title: ", "title: proposed_by: mallory ", text)),
        ("proposer-other", sub(r"(?m)^proposed_by: (\S+)$", "proposed_by: mallory", text)),
        ("crlf", text.replace("\n", "\r\n")),
        ("bom", "\ufeff" + text),
        ("no-final-newline", text.rstrip("\n")),
        ("comment-first", "# a person's note\n" + text),
        ("tab-indent", text.replace("\n  ", "\n\t")),
        ("document-marker", "---\n" + text),
        ("second-document", text + "---\nid: other\n"),
    ]
    return [(f"{name}:{label}", variant) for label, variant in found]


CASES = [case for path in REAL for case in _variants(path.stem, path.read_text(encoding="utf-8"))]


def _strict(text: str) -> Rule | None:
    match = re.search(r"(?m)^id: ([a-z0-9-]+)\s*$", text)
    path = f"doctrine/{match.group(1) if match else 'x'}.yaml"
    try:
        return parse_rule_text(text, path)
    except DoctrineError:
        return None


def test_the_cases_hold_canonical_valid_and_invalid_files() -> None:
    """The proofs below are not vacuous: fast readers accept some of these files."""
    assert len(REAL) >= 10
    assert any(fast_parse(text) is not None for _, text in CASES)
    assert any(_strict(text) is None for _, text in CASES)
    assert any(fast_status(text) is not None for _, text in CASES)
    assert any(fast_proposed_by(text) is not None for _, text in CASES)


_CANONICAL: dict[Rule, str] = {}


def _canonical(rule: Rule) -> str:
    """``canonical_text`` (ruamel.yaml, milliseconds a rule) once per distinct rule."""
    if rule not in _CANONICAL:
        _CANONICAL[rule] = canonical_text(rule)
    return _CANONICAL[rule]


@pytest.mark.parametrize("path", REAL, ids=[p.stem for p in REAL])
def test_every_fast_reader_agrees_with_the_strict_reader(path: Path) -> None:
    for name, text in _variants(path.stem, path.read_text(encoding="utf-8")):
        strict = _strict(text)
        fast = fast_parse(text)
        if fast is not None:
            assert fast == strict, name
        if strict is not None:
            # On a file the strict reader accepts, a fast key reader is silent or right.
            assert fast_status(text) in (None, strict.status), name
            assert fast_proposed_by(text) in (None, strict.proposed_by), name
            rendered = fast_canonical_text(strict)
            if rendered is not None:
                assert rendered == _canonical(strict), name
            # fast_parse reads exactly the canonical texts
            assert (fast is not None) == (rendered == text), name
        for person in ("reviewer", "lead", "alice", "mallory", "yes", "1234"):
            if proposes(text, person):
                assert fast_proposed_by(text) == person, name


def _siblings(text: str) -> list[tuple[str, str]]:
    """Other versions of a canonical rule text: each status, the approval cleared or kept, and
    edits the shortcut must refuse (another line changed, a status spelt otherwise, more text)."""
    sub = re.sub
    status = r"(?m)^status: \w+$"
    cleared = sub(r"(?ms)^approval:.*", "approval: null\nreview_due: null\n", text)
    found = []
    for word in ("draft", "active", "suspended", "deactivated", "archived", "retired"):
        found.append((f"{word}-kept", sub(status, f"status: {word}", text)))
        found.append((f"{word}-cleared", sub(status, f"status: {word}", cleared)))
    return found + [
        ("quoted", sub(status, 'status: "draft"', cleared)),
        ("two-spaces", sub(status, "status:  draft", cleared)),
        ("title-changed", sub(r"(?m)^title: ", "title: new ", cleared)),
        ("scope-changed", sub(r"(?m)^scope: .*$", "scope: elsewhere", cleared)),
        ("version-changed", sub(r"(?m)^version: (\d+)$", "version: 99", cleared)),
        ("review-date-stays", sub(r"(?ms)^approval:.*?(?=^review_due:)", "approval: null\n", text)),
        ("approval-only", cleared.replace("review_due: null\n", "review_due: 2030-01-01\n")),
        ("more-after", cleared + "extra: 1\n"),
        ("crlf", cleared.replace("\n", "\r\n")),
        ("no-final-newline", cleared.rstrip("\n")),
        ("empty", ""),
    ]


def test_a_sibling_version_reads_as_the_fast_reader_reads_it() -> None:
    """fast_sibling (check --history: a draft before its approval, a suspended version) returns
    None or exactly what fast_parse and the strict reader return for the other version."""
    accepted = 0
    for path in REAL:
        text = path.read_text(encoding="utf-8")
        rule = fast_parse(text)
        if rule is None:
            continue
        for name, other in _siblings(text):
            derived = fast_sibling(other, rule, text)
            if derived is not None:
                accepted += 1
                assert derived == fast_parse(other) == _strict(other), f"{path.stem}:{name}"
            elif name.endswith(("-kept", "-cleared")) and "retired" not in name:
                assert fast_parse(other) is None or other == text, f"{path.stem}:{name}"
    assert accepted >= 10


@pytest.mark.parametrize(
    "value",
    [
        "Plain words only.",
        "Note: a colon and space",
        "ends with a colon:",
        "yes",
        "on",
        "1.10",
        "2026-11-29",
        "it's fine",
        "- leading dash",
        "# not a comment",
        "a #hash inside",
        "a # comment-like",
        "Garantie de 12 mois acceptée « sous réserve »",
        "null",
        "~",
        "'quoted'",
        '"double"',
        "[brackets]",
        "{braces}",
        "50% off",
        "@at",
        "`tick`",
        "!bang",
        "&amp",
        "*star",
        "|pipe",
        ">gt",
        "?question",
        ". dot",
        "...",
        "---",
        "trailing space ",
        " leading space",
        "tab\there",
        "non-breaking\u00a0space",
        "emoji ⚠️ sign",
        "0x1F",
        "0o17",
        "1_000",
        "+12",
        ".inf",
        "<<",
        "=",
        "key: value: more",
    ],
)
def test_fast_canonical_agrees_with_canonical_text(value: str) -> None:
    for field in ("title", "instruction", "limits", "justification", "scope"):
        rule = make_rule("fast")
        if field == "limits":
            rule = rule.with_changes(limits=(value, "second limit"))
        elif field == "scope":
            continue
        else:
            rule = rule.with_changes(**{field: value})
        fast = _fast_canonical(rule)
        if fast is not None:
            assert fast == canonical_text(rule), (field, value)
    approved = make_rule("fast", status="active", approved_by="alice")
    assert _fast_canonical(approved) == canonical_text(approved)


def test_fast_canonical_agrees_on_random_values() -> None:
    import random

    rng = random.Random(5)
    alphabet = "ab Z09:#-'\"?.,!%&*[]{}|>@`~é«»\u00a0\t=+_/"
    for _ in range(250):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        rule = make_rule("fast").with_changes(instruction=value, limits=(value[::-1] or "x",))
        fast = _fast_canonical(rule)
        if fast is not None:
            assert fast == canonical_text(rule), repr(value)


def test_fast_parse_reads_exactly_what_the_strict_parser_reads() -> None:
    """Random edits of canonical rule files: whenever the fast reader accepts a text, the strict
    reader returns the very same rule (and never refuses it)."""
    import random

    from agentmem.doctrine.model import DoctrineError
    from agentmem.doctrine.parse import parse_rule_text

    rng = random.Random(11)
    bases = [
        canonical_text(make_rule("base")),
        canonical_text(
            make_rule("approved", status="active", approved_by="alice", proposed_by="bob")
        ),
        canonical_text(make_rule("nulls", scope=None, limits=())),
    ]
    alphabet = "az09 :#-'\"\n\t.[]{}!&*|>?@%`~éÉ\u00a0\u2028"
    accepted = 0
    for _ in range(1500):
        text = rng.choice(bases)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text))
            kind = rng.random()
            if kind < 0.4:
                text = text[:i] + rng.choice(alphabet) + text[i:]
            elif kind < 0.7:
                text = text[:i] + text[i + 1 :]
            else:
                text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
        fast = fast_parse(text)
        if fast is None:
            continue
        accepted += 1
        try:
            strict = parse_rule_text(text, "doctrine/x.yaml")
        except DoctrineError as exc:  # pragma: no cover - the failure this test exists for
            raise AssertionError(
                f"fast reader accepted a text the strict one refuses: {text!r}: {exc}"
            ) from None
        assert fast == strict, repr(text)
    assert accepted > 100
    for base in bases:
        assert fast_parse(base) == parse_rule_text(base, "doctrine/x.yaml")
